"""Analysis of collaboration-tax runs: the tax per cell, the game, the cascade, the prediction,
the prompt intervention and the paper's figures.

Public API: :func:`tax_report` (one call: run directory in, :class:`TaxReport` out, files
written with ``out=``), :func:`read_run`, and the building blocks in the submodules
(:mod:`~noisefloor.tax.cells`, :mod:`~noisefloor.tax.mixed`, :mod:`~noisefloor.tax.features`,
:mod:`~noisefloor.tax.prediction`, :mod:`~noisefloor.tax.cascade`,
:mod:`~noisefloor.tax.intervention`, :mod:`~noisefloor.tax.figures`,
:mod:`~noisefloor.tax.synthetic`).
"""

from noisefloor.tax.report import TaxReport, tax_report
from noisefloor.tax.run import TaxRun, TaxRunError, read_run, read_transcripts

__all__ = ["TaxReport", "TaxRun", "TaxRunError", "read_run", "read_transcripts", "tax_report"]
