"""noisefloor: is a claimed multi-agent LLM gain real, or inside the run-to-run noise floor?

Data flows one way: files -> :mod:`noisefloor.logs` (validated trial records, a DataFrame) ->
:mod:`noisefloor.stats` (pure statistics on arrays and counts) -> :mod:`noisefloor.floor`,
:mod:`noisefloor.audit`, :mod:`noisefloor.compare`, :mod:`noisefloor.leaderboard`,
:mod:`noisefloor.agreement`, :mod:`noisefloor.monitoring` (typed, frozen results; one call per
command in :mod:`noisefloor.pipelines`) -> :mod:`noisefloor.report` and the ``noisefloor``
command line (:mod:`noisefloor.cli`). The main functions and result types of those packages are
importable from here (``from noisefloor import noise_floor, load_trials``); they load on first
use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"


# The public API, imported on first use: ``import noisefloor`` and ``noisefloor --help`` load
# nothing below until a name is asked for.
if TYPE_CHECKING:
    from noisefloor.agreement.study import AgreementTable, agreement_by_label
    from noisefloor.audit.published import TableError, read_claims, read_paired_counts
    from noisefloor.audit.verdicts import AuditResult, ClaimVerdict, audit
    from noisefloor.compare.result import Comparison, compare
    from noisefloor.floor.estimate import NoiseFloor, noise_floor
    from noisefloor.floor.nulls import NullContrasts, certified_null_contrasts
    from noisefloor.floor.random_effects import random_effects_floor
    from noisefloor.leaderboard.entries import Leaderboard, read_leaderboard
    from noisefloor.leaderboard.gaps import compare_entries
    from noisefloor.leaderboard.tiers import leaderboard_tiers
    from noisefloor.logs.errors import LogValidationError
    from noisefloor.logs.load import load_trials, read_records, validate_logs
    from noisefloor.logs.schema import TrialRecord
    from noisefloor.monitoring.pipeline import monitor_trials
    from noisefloor.pipelines import ContrastRun, FloorRun, contrast_run, floor_run
    from noisefloor.pipelines.audit import AuditRun, audit_run
    from noisefloor.report.forest import audit_forest, forest_plot
    from noisefloor.report.html.render import html_report, write_html
    from noisefloor.stats.agreement.alpha import krippendorff_alpha
    from noisefloor.stats.agreement.cohen import cohen_kappa
    from noisefloor.stats.agreement.fleiss import fleiss_kappa
    from noisefloor.stats.agreement.result import AgreementResult
    from noisefloor.stats.multiplicity import adjust_pvalues
    from noisefloor.stats.paired import SignTest, sign_test, wilson_mapped_ci
    from noisefloor.stats.passat import PassAtK, pass_at_k, pass_at_k_table
    from noisefloor.stats.passk import PassHatK, pass_hat_k, pass_hat_k_table
    from noisefloor.stats.pooling import pool_counts, pool_random_effects
    from noisefloor.stats.power.planning import minimum_detectable_effect, sample_size

#: Public name -> the module that defines it.
_HOMES: dict[str, str] = {
    "AgreementResult": "noisefloor.stats.agreement.result",
    "AgreementTable": "noisefloor.agreement.study",
    "AuditResult": "noisefloor.audit.verdicts",
    "AuditRun": "noisefloor.pipelines.audit",
    "ClaimVerdict": "noisefloor.audit.verdicts",
    "Comparison": "noisefloor.compare.result",
    "ContrastRun": "noisefloor.pipelines",
    "FloorRun": "noisefloor.pipelines",
    "Leaderboard": "noisefloor.leaderboard.entries",
    "LogValidationError": "noisefloor.logs.errors",
    "NoiseFloor": "noisefloor.floor.estimate",
    "NullContrasts": "noisefloor.floor.nulls",
    "PassAtK": "noisefloor.stats.passat",
    "PassHatK": "noisefloor.stats.passk",
    "SignTest": "noisefloor.stats.paired",
    "TableError": "noisefloor.audit.published",
    "TrialRecord": "noisefloor.logs.schema",
    "adjust_pvalues": "noisefloor.stats.multiplicity",
    "agreement_by_label": "noisefloor.agreement.study",
    "audit": "noisefloor.audit.verdicts",
    "audit_forest": "noisefloor.report.forest",
    "audit_run": "noisefloor.pipelines.audit",
    "certified_null_contrasts": "noisefloor.floor.nulls",
    "cohen_kappa": "noisefloor.stats.agreement.cohen",
    "compare": "noisefloor.compare.result",
    "compare_entries": "noisefloor.leaderboard.gaps",
    "contrast_run": "noisefloor.pipelines",
    "fleiss_kappa": "noisefloor.stats.agreement.fleiss",
    "floor_run": "noisefloor.pipelines",
    "forest_plot": "noisefloor.report.forest",
    "html_report": "noisefloor.report.html.render",
    "krippendorff_alpha": "noisefloor.stats.agreement.alpha",
    "leaderboard_tiers": "noisefloor.leaderboard.tiers",
    "load_trials": "noisefloor.logs.load",
    "minimum_detectable_effect": "noisefloor.stats.power.planning",
    "monitor_trials": "noisefloor.monitoring.pipeline",
    "noise_floor": "noisefloor.floor.estimate",
    "pass_at_k": "noisefloor.stats.passat",
    "pass_at_k_table": "noisefloor.stats.passat",
    "pass_hat_k": "noisefloor.stats.passk",
    "pass_hat_k_table": "noisefloor.stats.passk",
    "pool_counts": "noisefloor.stats.pooling",
    "pool_random_effects": "noisefloor.stats.pooling",
    "random_effects_floor": "noisefloor.floor.random_effects",
    "read_claims": "noisefloor.audit.published",
    "read_leaderboard": "noisefloor.leaderboard.entries",
    "read_paired_counts": "noisefloor.audit.published",
    "read_records": "noisefloor.logs.load",
    "sample_size": "noisefloor.stats.power.planning",
    "sign_test": "noisefloor.stats.paired",
    "validate_logs": "noisefloor.logs.load",
    "wilson_mapped_ci": "noisefloor.stats.paired",
    "write_html": "noisefloor.report.html.render",
}
#: Subpackages reachable as attributes (``noisefloor.stats``) without an explicit import.
_SUBPACKAGES = (
    "agreement",
    "audit",
    "compare",
    "endpoints",
    "floor",
    "leaderboard",
    "logs",
    "monitoring",
    "pipelines",
    "protocols",
    "report",
    "stats",
    "store",
    "tax",
)

__all__ = sorted([*_HOMES, "__version__"])


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is not None:
        value = getattr(importlib.import_module(home), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES) | set(_SUBPACKAGES))
