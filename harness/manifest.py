"""The task suite's manifest: which tasks exist, by family. The one place that counts them.

The collaboration-tax paper measures 32 tasks; this suite holds 11 Spatial, 11 Relational and
10 CSP tasks (the example below states it, so a 33rd task updates it here too). Every other
count (``noisefloor harness list``, the tests, the docs) is derived from
:data:`TASKS_BY_FAMILY`, so adding a task means adding its name here (and writing its class);
``tests/harness/test_manifest.py`` checks that the manifest and the registry
(:func:`harness.registry.list_tasks`) name exactly the same tasks with the same families.

A leaf module: it imports only :mod:`harness.vocabulary`, never a task module.

Examples
--------
>>> from harness.manifest import TASK_NAMES, family_counts
>>> len(TASK_NAMES), family_counts()
(32, {'spatial': 11, 'relational': 11, 'csp': 10})
>>> family_of("csp_sudoku4")
'csp'

References
----------
.. [1] *The Collaboration Tax*, EMNLP 2026, section 1 (32 tasks in three families).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from harness.vocabulary import FAMILIES

#: Task names of each family (in :data:`~harness.vocabulary.FAMILIES` order, names sorted).
TASKS_BY_FAMILY: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "spatial": (
        "spatial_key_door",
        "spatial_landmarks",
        "spatial_local_view",
        "spatial_maze_halves",
        "spatial_obstacles_split",
        "spatial_one_way",
        "spatial_rotated_view",
        "spatial_teleporters",
        "spatial_tile_stitch",
        "spatial_two_goals",
        "spatial_weighted_terrain",
    ),
    "relational": (
        "relational_alias_resolution",
        "relational_club_memberships",
        "relational_course_prerequisites",
        "relational_event_precedence",
        "relational_family_tree",
        "relational_install_order",
        "relational_org_chart",
        "relational_ownership_transfers",
        "relational_rail_connections",
        "relational_timeline_dates",
        "relational_transitive_comparison",
    ),
    "csp": (
        "csp_budget_currency",
        "csp_delivery_windows",
        "csp_graph_colouring",
        "csp_knapsack_units",
        "csp_meeting_timezones",
        "csp_recipe_units",
        "csp_room_booking",
        "csp_seating",
        "csp_shift_roster",
        "csp_sudoku4",
    ),
})

#: Every task name of the suite, families in order.
TASK_NAMES: tuple[str, ...] = tuple(n for f in FAMILIES for n in TASKS_BY_FAMILY[f])


def family_counts() -> dict[str, int]:
    """Number of tasks of each family, from the manifest.

    Returns
    -------
    dict of str to int
        ``{family: count}`` in :data:`~harness.vocabulary.FAMILIES` order.

    Examples
    --------
    >>> from harness.manifest import TASK_NAMES, family_counts
    >>> sum(family_counts().values()) == len(TASK_NAMES)
    True
    """
    return {family: len(TASKS_BY_FAMILY[family]) for family in FAMILIES}


def family_of(name: str) -> str:
    """The family the manifest lists task ``name`` under.

    Parameters
    ----------
    name : str
        A task name, e.g. ``"csp_sudoku4"``.

    Returns
    -------
    str
        One of :data:`~harness.vocabulary.FAMILIES`.

    Raises
    ------
    KeyError
        If the manifest does not list ``name``.

    Examples
    --------
    >>> from harness.manifest import family_of
    >>> family_of("spatial_one_way")
    'spatial'
    >>> family_of("sudoku")
    Traceback (most recent call last):
    ...
    KeyError: "task 'sudoku' is not in the manifest (harness/manifest.py)"
    """
    for family, names in TASKS_BY_FAMILY.items():
        if name in names:
            return family
    raise KeyError(f"task {name!r} is not in the manifest (harness/manifest.py)")
