"""Runtime monitoring of a deployed coordination protocol over trial logs.

The analysis layer between the trial logs (:mod:`noisefloor.logs`) and the pure alarms of
:mod:`noisefloor.stats.monitor`: trial records in time order
(:mod:`~noisefloor.monitoring.time_order`, :func:`order_trials`); coordination-active pass^k of
the golden tasks (trials with ``store_events_at_start > 0``), round by round
(:mod:`~noisefloor.monitoring.pass_hat_k_rounds`,
:func:`coordination_active_pass_hat_k_rounds`); the three alarms over a monitored stream and
its release baseline in one call, each alarm mapped to its record
(:mod:`~noisefloor.monitoring.pipeline`, :func:`monitor_trials`); and the R1 sigma from the
noise floor of logs of the same deployment (:mod:`~noisefloor.monitoring.sigma`,
:func:`floor_sigma`); and ``noisefloor monitor`` in one call, logs in and sigma given or from a
floor's logs (:mod:`~noisefloor.monitoring.from_logs`, :func:`monitor_logs`). The names below
are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.monitoring.from_logs import monitor_logs
    from noisefloor.monitoring.pass_hat_k_rounds import (
        PassHatKRounds,
        coordination_active_pass_hat_k_rounds,
    )
    from noisefloor.monitoring.pipeline import (
        COORDINATION_KEYS_FIELD,
        MonitorReport,
        monitor_trials,
    )
    from noisefloor.monitoring.sigma import FloorSigma, floor_sigma, labels_differ
    from noisefloor.monitoring.time_order import (
        TIMESTAMP_FIELD,
        NaiveTimestampWarning,
        order_trials,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "COORDINATION_KEYS_FIELD": "pipeline",
    "FloorSigma": "sigma",
    "MonitorReport": "pipeline",
    "NaiveTimestampWarning": "time_order",
    "PassHatKRounds": "pass_hat_k_rounds",
    "TIMESTAMP_FIELD": "time_order",
    "coordination_active_pass_hat_k_rounds": "pass_hat_k_rounds",
    "floor_sigma": "sigma",
    "labels_differ": "sigma",
    "monitor_logs": "from_logs",
    "monitor_trials": "pipeline",
    "order_trials": "time_order",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
