"""The Relational family of the collaboration-tax suite: relations split into two views.

:mod:`~harness.tasks.relational.common` holds the family base :class:`RelationalTask` with its
answer parsers and scoring, :mod:`~harness.tasks.relational.structures` the random trees,
chains and orders the tasks draw; the other modules each hold tasks, registered by name on
import. The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.tasks.relational.common import (
        GIVEN_NAMES,
        MAX_ATTEMPTS,
        MAX_QUESTION,
        NONE,
        NONE_WORDS,
        SURNAMES,
        RelationalTask,
        balanced_owners,
        compact,
        draw_people,
        jaccard,
        make_rng,
        name_index,
        pair_concordance,
        parse_numbered,
        parse_sequence,
        resolve,
        split_set,
    )
    from harness.tasks.relational.graphs import FamilyTree, OrgChart
    from harness.tasks.relational.networks import (
        CODENAMES,
        COURSE_TITLES,
        DEPARTMENTS,
        STATIONS,
        AliasResolution,
        CoursePrerequisites,
        RailConnections,
    )
    from harness.tasks.relational.orders import (
        EventPrecedence,
        InstallOrder,
        TimelineDates,
        TransitiveComparison,
        closure,
        order_of,
    )
    from harness.tasks.relational.records import (
        CLUBS,
        ITEMS,
        ClubMemberships,
        OwnershipTransfers,
        final_owner,
    )
    from harness.tasks.relational.structures import (
        QUESTIONS_ANSWER_FORMAT,
        chain_up,
        pick_queries,
        random_linear_extension,
        random_tree,
        reattach_tree_edges,
        shuffled,
        up_distances,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "AliasResolution": "networks",
    "CLUBS": "records",
    "CODENAMES": "networks",
    "COURSE_TITLES": "networks",
    "ClubMemberships": "records",
    "CoursePrerequisites": "networks",
    "DEPARTMENTS": "networks",
    "EventPrecedence": "orders",
    "FamilyTree": "graphs",
    "GIVEN_NAMES": "common",
    "ITEMS": "records",
    "InstallOrder": "orders",
    "MAX_ATTEMPTS": "common",
    "MAX_QUESTION": "common",
    "NONE": "common",
    "NONE_WORDS": "common",
    "OrgChart": "graphs",
    "OwnershipTransfers": "records",
    "QUESTIONS_ANSWER_FORMAT": "structures",
    "RailConnections": "networks",
    "RelationalTask": "common",
    "STATIONS": "networks",
    "SURNAMES": "common",
    "TimelineDates": "orders",
    "TransitiveComparison": "orders",
    "balanced_owners": "common",
    "chain_up": "structures",
    "closure": "orders",
    "compact": "common",
    "draw_people": "common",
    "final_owner": "records",
    "jaccard": "common",
    "make_rng": "common",
    "name_index": "common",
    "order_of": "orders",
    "pair_concordance": "common",
    "parse_numbered": "common",
    "parse_sequence": "common",
    "pick_queries": "structures",
    "random_linear_extension": "structures",
    "random_tree": "structures",
    "reattach_tree_edges": "structures",
    "resolve": "common",
    "shuffled": "structures",
    "split_set": "common",
    "up_distances": "structures",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
