"""``noisefloor compare``: A against B on per-trial logs, against the floor of their re-runs.

:func:`compare` returns one frozen :class:`Comparison` (:func:`compare_runs`: two runs as the
two arms); :mod:`noisefloor.compare.render` turns
it into text, Markdown and the forest plot (the CLI only parses options and prints those).
"""

from noisefloor.compare.result import BY, VERDICTS, Comparison, ComparisonRow, compare
from noisefloor.compare.runs import compare_runs

__all__ = ["BY", "VERDICTS", "Comparison", "ComparisonRow", "compare", "compare_runs"]
