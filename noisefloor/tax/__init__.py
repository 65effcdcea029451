"""Analysis of collaboration-tax runs: the tax per cell, the game, the cascade, the prediction,
the prompt intervention and the paper's figures.

Public API: :func:`tax_report` (one call: run directory in, :class:`TaxReport` out, files
written with ``out=``), :func:`read_run`, and the building blocks in the submodules
(:mod:`~noisefloor.tax.cells`, :mod:`~noisefloor.tax.mixed`, :mod:`~noisefloor.tax.features`,
:mod:`~noisefloor.tax.prediction` with its grouped-fold ridge :mod:`~noisefloor.tax.grouped`,
:mod:`~noisefloor.tax.cascade`,
:mod:`~noisefloor.tax.intervention`, :mod:`~noisefloor.tax.figures`,
:mod:`~noisefloor.tax.synthetic`), and the transcripts' dialogue markers
(:mod:`~noisefloor.tax.markers`, which the task suite re-exports). The names below are imported
on first use, so the runner, which needs only the run directory's layout
(:mod:`~noisefloor.tax.layout`), and the task suite reading the markers load none of the
analysis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.tax.report import TaxReport, tax_report
    from noisefloor.tax.run import TaxRun, TaxRunError, read_run, read_transcripts

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "TaxReport": "report",
    "TaxRun": "run",
    "TaxRunError": "run",
    "read_run": "run",
    "read_transcripts": "run",
    "tax_report": "report",
}

# spelled out (not ``sorted(_HOMES)``) so that linters see the names imported above as used
__all__ = ["TaxReport", "TaxRun", "TaxRunError", "read_run", "read_transcripts", "tax_report"]

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
