"""``noisefloor compare``: A against B on per-trial logs, against the floor of their re-runs.

:func:`compare` returns one frozen :class:`Comparison` (:func:`compare_runs`: two runs as the
two arms); :mod:`noisefloor.compare.render` turns
it into text, Markdown and the forest plot (the CLI only parses options and prints those).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.compare.render import comparison_text, save_comparison_report
    from noisefloor.compare.result import BY, VERDICTS, Comparison, ComparisonRow, compare
    from noisefloor.compare.runs import compare_runs

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "BY": "result",
    "Comparison": "result",
    "ComparisonRow": "result",
    "VERDICTS": "result",
    "compare": "result",
    "compare_runs": "runs",
    "comparison_text": "render",
    "save_comparison_report": "render",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
