"""pass^k and pass@k of trial logs: per configuration, per k, with intervals over tasks.

This package reads the columns of a trial frame (:func:`noisefloor.logs.load_trials`): it
checks that the records are one configuration, turns ``task_id``, ``trial``, ``reward`` and
``infrastructure_error`` into arrays and hands them to the estimators of
:mod:`noisefloor.stats.passk` (pass^k and its intervals) and :mod:`noisefloor.stats.passat`,
which take counts only (:mod:`~noisefloor.passk.trials`).
:func:`~noisefloor.passk.report.pass_hat_k_report_from_logs` is ``noisefloor passk`` in one
call (:func:`~noisefloor.passk.report.pass_hat_k_report_from_trials` on trials already
loaded): the tables and intervals gathered into one result (by
:func:`~noisefloor.passk.report.pass_hat_k_report`) whose ``to_dict()`` is the command's
``--json``. The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.passk.report import (
        PassHatKReport,
        pass_hat_k_report,
        pass_hat_k_report_from_logs,
        pass_hat_k_report_from_trials,
    )
    from noisefloor.passk.trials import (
        CONFIG_COLUMNS,
        default_max_k,
        pass_at_k,
        pass_at_k_table,
        pass_hat_k,
        pass_hat_k_interval,
        pass_hat_k_table,
        per_task_success_share,
        task_counts,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "CONFIG_COLUMNS": "trials",
    "PassHatKReport": "report",
    "default_max_k": "trials",
    "pass_at_k": "trials",
    "pass_at_k_table": "trials",
    "pass_hat_k": "trials",
    "pass_hat_k_interval": "trials",
    "pass_hat_k_report": "report",
    "pass_hat_k_table": "trials",
    "pass_hat_k_report_from_logs": "report",
    "pass_hat_k_report_from_trials": "report",
    "per_task_success_share": "trials",
    "task_counts": "trials",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
