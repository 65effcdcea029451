"""Names the CSP tasks share with each other and with their text readers (a leaf module).

Guests, towns, colours, meetings, rooms and shifts: what one task draws from and what the
same task reads back from its rendering. Nothing here imports a task module, so every CSP
module can import it without an import cycle.

Examples
--------
>>> from harness.tasks.csp.vocabulary import COLOURS, SHIFT_NAMES, SHIFT_STARTS
>>> COLOURS, dict(zip(SHIFT_NAMES, SHIFT_STARTS))
(('red', 'green', 'blue'), {'early': 360, 'late': 840, 'night': 1320})
"""

from __future__ import annotations

GUEST_NAMES = (
    "Ada",
    "Bruno",
    "Chiara",
    "Dmitri",
    "Elif",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Kenji",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Soren",
    "Tariq",
)
TOWN_NAMES = (
    "Ashby",
    "Bexley",
    "Carlow",
    "Dunmore",
    "Elstow",
    "Fenwick",
    "Garford",
    "Hexham",
    "Ilkley",
    "Jarrow",
    "Kelso",
    "Ludlow",
    "Marlow",
    "Norham",
    "Oakham",
    "Penrith",
)
COLOURS = ("red", "green", "blue")

MEETING_NAMES = ("Apollo", "Borealis", "Comet", "Delta", "Echo", "Falcon", "Gemini", "Horizon")
ROOM_NAMES = ("Aspen", "Birch", "Cedar", "Maple")

#: Shift names and their start times (minutes after local midnight).
SHIFT_NAMES = ("early", "late", "night")
SHIFT_STARTS = (6 * 60, 14 * 60, 22 * 60)
