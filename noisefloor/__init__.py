"""noisefloor: is a claimed multi-agent LLM gain real, or inside the run-to-run noise floor?

Data flows one way: files -> :mod:`noisefloor.logs` (validated trial records, a DataFrame) ->
:mod:`noisefloor.stats` (pure statistics on arrays and counts) -> :mod:`noisefloor.floor`,
:mod:`noisefloor.audit`, :mod:`noisefloor.compare`, :mod:`noisefloor.leaderboard`,
:mod:`noisefloor.agreement`, :mod:`noisefloor.monitoring`, :mod:`noisefloor.passk` (typed,
frozen results; one call per command in :mod:`noisefloor.pipelines`) -> :mod:`noisefloor.report`
and the ``noisefloor`` command line (:mod:`noisefloor.cli`). The main functions and result types
of those packages are importable from here (``from noisefloor import noise_floor,
load_trials``); they load on first use. No name exported here is also the name of a package
(``noisefloor.audit`` and ``noisefloor.compare`` are packages: their one calls are
:func:`audit_run` and :func:`compare_runs`, and ``from noisefloor.compare import compare``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

__version__ = "0.1.0"


# The public API, imported on first use: ``import noisefloor`` and ``noisefloor --help`` load
# nothing below until a name is asked for.
if TYPE_CHECKING:
    from noisefloor.agreement.from_file import AgreementStudy, agreement_study
    from noisefloor.agreement.study import AgreementTable, agreement_by_label
    from noisefloor.audit.published import TableError, read_claims, read_paired_counts
    from noisefloor.audit.verdicts import AuditResult, ClaimVerdict
    from noisefloor.compare.result import Comparison
    from noisefloor.compare.runs import compare_runs
    from noisefloor.floor.estimate import NoiseFloor, noise_floor
    from noisefloor.floor.nulls import NullContrasts, certified_null_contrasts
    from noisefloor.floor.random_effects import random_effects_floor
    from noisefloor.leaderboard.entries import Leaderboard, read_leaderboard
    from noisefloor.leaderboard.gaps import compare_entries
    from noisefloor.leaderboard.tiers import leaderboard_tiers
    from noisefloor.logs.load import load_trials, read_records, validate_logs
    from noisefloor.logs.records.errors import LogValidationError
    from noisefloor.logs.schema import TrialRecord
    from noisefloor.monitoring.from_logs import monitor_logs
    from noisefloor.monitoring.pipeline import monitor_trials
    from noisefloor.passk.report import PassHatKReport, pass_hat_k_report_from_logs
    from noisefloor.passk.trials import pass_at_k, pass_at_k_table, pass_hat_k, pass_hat_k_table
    from noisefloor.pipelines.audit import AuditRun, audit_run
    from noisefloor.pipelines.contrast import ContrastRun, contrast_counts, contrast_run
    from noisefloor.pipelines.floor import FloorRun, floor_run
    from noisefloor.pipelines.leaderboard import LeaderboardRun, leaderboard_run
    from noisefloor.pipelines.planning import PlanRun, RerunsSimRun, plan_run, reruns_sim_run
    from noisefloor.report.forest import audit_forest, forest_plot
    from noisefloor.report.html.render import html_report, write_html
    from noisefloor.stats.agreement.alpha import krippendorff_alpha
    from noisefloor.stats.agreement.cohen import cohen_kappa
    from noisefloor.stats.agreement.fleiss.kappa import fleiss_kappa
    from noisefloor.stats.agreement.result import AgreementResult
    from noisefloor.stats.multiplicity import adjust_pvalues
    from noisefloor.stats.paired import SignTest, sign_test, wilson_mapped_ci
    from noisefloor.stats.passat import PassAtK
    from noisefloor.stats.passk import PassHatK
    from noisefloor.stats.pooling import pool_counts, pool_random_effects
    from noisefloor.stats.power.planning import minimum_detectable_effect, sample_size

#: Public name -> the module (relative to this package) that defines it.
_HOMES: dict[str, str] = {
    "AgreementResult": "stats.agreement.result",
    "AgreementStudy": "agreement.from_file",
    "AgreementTable": "agreement.study",
    "AuditResult": "audit.verdicts",
    "AuditRun": "pipelines.audit",
    "ClaimVerdict": "audit.verdicts",
    "Comparison": "compare.result",
    "ContrastRun": "pipelines.contrast",
    "FloorRun": "pipelines.floor",
    "Leaderboard": "leaderboard.entries",
    "LeaderboardRun": "pipelines.leaderboard",
    "LogValidationError": "logs.records.errors",
    "NoiseFloor": "floor.estimate",
    "NullContrasts": "floor.nulls",
    "PassAtK": "stats.passat",
    "PassHatK": "stats.passk",
    "PassHatKReport": "passk.report",
    "PlanRun": "pipelines.planning",
    "RerunsSimRun": "pipelines.planning",
    "SignTest": "stats.paired",
    "TableError": "audit.published",
    "TrialRecord": "logs.schema",
    "adjust_pvalues": "stats.multiplicity",
    "agreement_by_label": "agreement.study",
    "agreement_study": "agreement.from_file",
    "audit_forest": "report.forest",
    "audit_run": "pipelines.audit",
    "certified_null_contrasts": "floor.nulls",
    "cohen_kappa": "stats.agreement.cohen",
    "compare_entries": "leaderboard.gaps",
    "compare_runs": "compare.runs",
    "contrast_counts": "pipelines.contrast",
    "contrast_run": "pipelines.contrast",
    "fleiss_kappa": "stats.agreement.fleiss.kappa",
    "floor_run": "pipelines.floor",
    "forest_plot": "report.forest",
    "html_report": "report.html.render",
    "krippendorff_alpha": "stats.agreement.alpha",
    "leaderboard_run": "pipelines.leaderboard",
    "leaderboard_tiers": "leaderboard.tiers",
    "load_trials": "logs.load",
    "minimum_detectable_effect": "stats.power.planning",
    "monitor_logs": "monitoring.from_logs",
    "monitor_trials": "monitoring.pipeline",
    "noise_floor": "floor.estimate",
    "pass_at_k": "passk.trials",
    "pass_at_k_table": "passk.trials",
    "pass_hat_k": "passk.trials",
    "pass_hat_k_report_from_logs": "passk.report",
    "pass_hat_k_table": "passk.trials",
    "plan_run": "pipelines.planning",
    "pool_counts": "stats.pooling",
    "pool_random_effects": "stats.pooling",
    "random_effects_floor": "floor.random_effects",
    "read_claims": "audit.published",
    "read_leaderboard": "leaderboard.entries",
    "read_paired_counts": "audit.published",
    "read_records": "logs.load",
    "reruns_sim_run": "pipelines.planning",
    "sample_size": "stats.power.planning",
    "sign_test": "stats.paired",
    "validate_logs": "logs.load",
    "wilson_mapped_ci": "stats.paired",
    "write_html": "report.html.render",
}
#: Subpackages reachable as attributes (``noisefloor.stats``) without an explicit import.
_SUBPACKAGES = (
    "agreement",
    "endpoints",
    "floor",
    "leaderboard",
    "logs",
    "monitoring",
    "passk",
    "pipelines",
    "protocols",
    "report",
    "stats",
    "store",
    "tax",
)

__all__ = sorted([*_HOMES, "__version__"])


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, _SUBPACKAGES)
