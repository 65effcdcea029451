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
    from noisefloor.tax.cascade import (
        STAGES,
        judge_prompt,
        judge_rollouts,
        parse_judge_reply,
        stage_rates,
    )
    from noisefloor.tax.cells import NEGATIVE_NOTE, cell_table, instance_table, task_table
    from noisefloor.tax.features import FEATURES, conversation_features
    from noisefloor.tax.grouped import grouped_ridge, pooled_and_mean_r2, spearman_test
    from noisefloor.tax.intervention import figure6_markdown, recovered_share_table
    from noisefloor.tax.judge import judge_with_endpoint
    from noisefloor.tax.layout import JOURNAL_FILE, TRIALS_STAMP_FILE, path_inside
    from noisefloor.tax.markers import FINAL_MARKER, OTHER_AGENT_PREFIX
    from noisefloor.tax.mixed import mixed_pair_table
    from noisefloor.tax.prediction import predict_tax
    from noisefloor.tax.replies import JOURNAL_NAME
    from noisefloor.tax.report import TaxReport, tax_report
    from noisefloor.tax.run import (
        TaxRun,
        TaxRunError,
        read_run,
        read_transcripts,
        trials_behind_journal,
    )
    from noisefloor.tax.synthetic import write_synthetic_run

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "FEATURES": "features",
    "FINAL_MARKER": "markers",
    "JOURNAL_FILE": "layout",
    "JOURNAL_NAME": "replies",
    "NEGATIVE_NOTE": "cells",
    "OTHER_AGENT_PREFIX": "markers",
    "STAGES": "cascade",
    "TRIALS_STAMP_FILE": "layout",
    "TaxReport": "report",
    "TaxRun": "run",
    "TaxRunError": "run",
    "cell_table": "cells",
    "conversation_features": "features",
    "figure6_markdown": "intervention",
    "grouped_ridge": "grouped",
    "instance_table": "cells",
    "judge_prompt": "cascade",
    "judge_rollouts": "cascade",
    "judge_with_endpoint": "judge",
    "mixed_pair_table": "mixed",
    "parse_judge_reply": "cascade",
    "path_inside": "layout",
    "pooled_and_mean_r2": "grouped",
    "predict_tax": "prediction",
    "read_run": "run",
    "read_transcripts": "run",
    "recovered_share_table": "intervention",
    "spearman_test": "grouped",
    "stage_rates": "cascade",
    "task_table": "cells",
    "tax_report": "report",
    "trials_behind_journal": "run",
    "write_synthetic_run": "synthetic",
}

# spelled out (not ``sorted(_HOMES)``) so that linters see the names imported above as used
__all__ = [
    "FEATURES",
    "FINAL_MARKER",
    "JOURNAL_FILE",
    "JOURNAL_NAME",
    "NEGATIVE_NOTE",
    "OTHER_AGENT_PREFIX",
    "STAGES",
    "TRIALS_STAMP_FILE",
    "TaxReport",
    "TaxRun",
    "TaxRunError",
    "cell_table",
    "conversation_features",
    "figure6_markdown",
    "grouped_ridge",
    "instance_table",
    "judge_prompt",
    "judge_rollouts",
    "judge_with_endpoint",
    "mixed_pair_table",
    "parse_judge_reply",
    "path_inside",
    "pooled_and_mean_r2",
    "predict_tax",
    "read_run",
    "read_transcripts",
    "recovered_share_table",
    "spearman_test",
    "stage_rates",
    "task_table",
    "tax_report",
    "trials_behind_journal",
    "write_synthetic_run",
]

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
