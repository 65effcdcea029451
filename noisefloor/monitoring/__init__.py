"""Runtime monitoring of a deployed coordination protocol over trial logs.

The analysis layer between the trial logs (:mod:`noisefloor.logs`) and the pure alarms of
:mod:`noisefloor.stats.monitor`: trial records in time order
(:mod:`~noisefloor.monitoring.time_order`, :func:`order_trials`); coordination-active pass^k of
the golden tasks (trials with ``store_events_at_start > 0``), round by round
(:mod:`~noisefloor.monitoring.pass_hat_k_rounds`,
:func:`coordination_active_pass_hat_k_rounds`); the three alarms over a monitored stream and
its release baseline in one call, each alarm mapped to its record
(:mod:`~noisefloor.monitoring.pipeline`, :func:`monitor_trials`); and the R1 sigma from the
noise floor of logs of the same deployment (:mod:`~noisefloor.monitoring.floor_sigma`,
:func:`floor_sigma`). The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

# Imported now, not on first use: the function has the name of its module, and importing the
# module ``noisefloor.monitoring.floor_sigma`` (which a lazy export would do) binds that module
# to the package's attribute ``floor_sigma`` over the function.
from noisefloor.monitoring.floor_sigma import floor_sigma

if TYPE_CHECKING:
    from noisefloor.monitoring.floor_sigma import FloorSigma, labels_differ
    from noisefloor.monitoring.pass_hat_k_rounds import (
        PassHatKRounds,
        coordination_active_pass_hat_k_rounds,
    )
    from noisefloor.monitoring.pipeline import (
        COORDINATION_KEYS_FIELD,
        MonitorReport,
        monitor_trials,
    )
    from noisefloor.monitoring.time_order import (
        TIMESTAMP_FIELD,
        NaiveTimestampWarning,
        order_trials,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "COORDINATION_KEYS_FIELD": "pipeline",
    "FloorSigma": "floor_sigma",
    "MonitorReport": "pipeline",
    "NaiveTimestampWarning": "time_order",
    "PassHatKRounds": "pass_hat_k_rounds",
    "TIMESTAMP_FIELD": "time_order",
    "coordination_active_pass_hat_k_rounds": "pass_hat_k_rounds",
    "labels_differ": "floor_sigma",
    "monitor_trials": "pipeline",
    "order_trials": "time_order",
}

__all__ = sorted([*_HOMES, "floor_sigma"])

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
