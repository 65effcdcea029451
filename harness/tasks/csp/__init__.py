"""The CSP family of the collaboration-tax suite: constraint problems split into two views.

:mod:`~harness.tasks.csp.common` holds the family base :class:`EliminationTask`; the answer
readers, notebook readers, shared vocabulary, clocks and units are
:mod:`~harness.tasks.csp.answers`, :mod:`~harness.tasks.csp.notebooks`,
:mod:`~harness.tasks.csp.vocabulary`, :mod:`~harness.tasks.csp.time` and
:mod:`~harness.tasks.csp.units`; the other modules each hold tasks, registered by name on
import. The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.tasks.csp.answers import (
        WORD,
        OrderAnswer,
        canonical_name,
        first_line_block,
        parse_name_list,
        parse_pairs,
        position_vector,
        word_list,
    )
    from harness.tasks.csp.common import (
        DIFFICULTIES,
        SIDES,
        UNPARSED,
        EliminationTask,
        Instance,
        Task,
        View,
        check_keep,
        check_seed_difficulty,
        permutations_array,
        read_only_array,
        solutions_array,
    )
    from harness.tasks.csp.grid import MapColouring, Seating, Sudoku4, sudoku4_grids
    from harness.tasks.csp.notebooks import need, read_notebooks, unreadable
    from harness.tasks.csp.optimisation import (
        CATEGORIES,
        CURRENCIES,
        GEAR,
        BudgetCurrency,
        KnapsackUnits,
        SelectionTask,
    )
    from harness.tasks.csp.recipe import INGREDIENTS, RecipeUnits
    from harness.tasks.csp.rosters import RoomBooking, ShiftRoster
    from harness.tasks.csp.time import (
        UTC,
        ZONE_PAIRS,
        clock,
        local_stamp,
        offset_minutes,
        parse_instant,
        random_date,
        read_clock,
        read_stamp,
        read_zone,
        tz_conventions,
        utc_instant,
        utc_offset_text,
    )
    from harness.tasks.csp.timezones import DeliveryWindows, MeetingTimezones
    from harness.tasks.csp.units import convert, imperial_text, metric_text, parse_quantity, ureg
    from harness.tasks.csp.vocabulary import (
        COLOURS,
        GUEST_NAMES,
        MEETING_NAMES,
        ROOM_NAMES,
        SHIFT_NAMES,
        SHIFT_STARTS,
        TOWN_NAMES,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "BudgetCurrency": "optimisation",
    "CATEGORIES": "optimisation",
    "COLOURS": "vocabulary",
    "CURRENCIES": "optimisation",
    "DIFFICULTIES": "common",
    "DeliveryWindows": "timezones",
    "EliminationTask": "common",
    "GEAR": "optimisation",
    "GUEST_NAMES": "vocabulary",
    "INGREDIENTS": "recipe",
    "Instance": "common",
    "KnapsackUnits": "optimisation",
    "MEETING_NAMES": "vocabulary",
    "MapColouring": "grid",
    "MeetingTimezones": "timezones",
    "OrderAnswer": "answers",
    "ROOM_NAMES": "vocabulary",
    "RecipeUnits": "recipe",
    "RoomBooking": "rosters",
    "SHIFT_NAMES": "vocabulary",
    "SHIFT_STARTS": "vocabulary",
    "SIDES": "common",
    "Seating": "grid",
    "SelectionTask": "optimisation",
    "ShiftRoster": "rosters",
    "Sudoku4": "grid",
    "TOWN_NAMES": "vocabulary",
    "Task": "common",
    "UNPARSED": "common",
    "UTC": "time",
    "View": "common",
    "WORD": "answers",
    "ZONE_PAIRS": "time",
    "canonical_name": "answers",
    "check_keep": "common",
    "check_seed_difficulty": "common",
    "clock": "time",
    "convert": "units",
    "first_line_block": "answers",
    "imperial_text": "units",
    "local_stamp": "time",
    "metric_text": "units",
    "need": "notebooks",
    "offset_minutes": "time",
    "parse_instant": "time",
    "parse_name_list": "answers",
    "parse_pairs": "answers",
    "parse_quantity": "units",
    "permutations_array": "common",
    "position_vector": "answers",
    "random_date": "time",
    "read_clock": "time",
    "read_notebooks": "notebooks",
    "read_only_array": "common",
    "read_stamp": "time",
    "read_zone": "time",
    "solutions_array": "common",
    "sudoku4_grids": "grid",
    "tz_conventions": "time",
    "unreadable": "notebooks",
    "ureg": "units",
    "utc_instant": "time",
    "utc_offset_text": "time",
    "word_list": "answers",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
