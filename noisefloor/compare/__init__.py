"""``noisefloor compare``: A against B on per-trial logs, against the floor of their re-runs.

:func:`compare` returns one frozen :class:`Comparison`; :mod:`noisefloor.compare.render` turns
it into text, Markdown and the forest plot (the CLI only parses options and prints those).
"""

from noisefloor.compare.result import BY, VERDICTS, Comparison, ComparisonRow, compare

__all__ = ["BY", "VERDICTS", "Comparison", "ComparisonRow", "compare"]
