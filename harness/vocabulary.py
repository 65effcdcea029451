"""The words every part of the harness shares: dialogue markers, families, difficulties, sides.

A leaf module of the harness (it imports nothing from :mod:`harness`), so the task modules, the
registry, the manifest and the runner can all read it without an import cycle.
:mod:`harness.base` re-exports every name. The two dialogue markers are the analysis's too, so
they are defined in :mod:`noisefloor.tax.markers` (harness depends on noisefloor, never the
reverse) and re-exported here.

Examples
--------
>>> from harness.vocabulary import FAMILIES, FINAL_MARKER, PUZZLE_KINDS
>>> FAMILIES, PUZZLE_KINDS["csp"]
(('spatial', 'relational', 'csp'), 'constraint')
>>> "We agree. " + FINAL_MARKER + " 3412/1243/4321/2134"
'We agree. FINAL ANSWER: 3412/1243/4321/2134'
"""

from __future__ import annotations

from noisefloor.tax.markers import FINAL_MARKER, OTHER_AGENT_PREFIX

#: Instance sizes every task accepts: 0 (easy), 1 (default), 2 (hard).
DIFFICULTIES = (0, 1, 2)
#: The difficulty ``generate`` uses when none is given.
DEFAULT_DIFFICULTY = 1

#: The three task families of the collaboration-tax suite, in listing order.
FAMILIES = ("spatial", "relational", "csp")
#: What the prompts call each family's puzzles.
PUZZLE_KINDS = {"spatial": "map", "relational": "logic", "csp": "constraint"}

#: The two agents (views) of a split instance, in order.
SIDES = ("a", "b")

__all__ = [
    "DEFAULT_DIFFICULTY",
    "DIFFICULTIES",
    "FAMILIES",
    "FINAL_MARKER",
    "OTHER_AGENT_PREFIX",
    "PUZZLE_KINDS",
    "SIDES",
]
