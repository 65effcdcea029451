"""Runtime monitoring of a deployed coordination protocol over trial logs.

The analysis layer between the trial logs (:mod:`noisefloor.logs`) and the pure alarms of
:mod:`noisefloor.stats.monitor`:

* :mod:`noisefloor.monitoring.time_order` -- trial records in time order
  (:func:`order_trials`);
* :mod:`noisefloor.monitoring.pass_hat_k_rounds` -- coordination-active pass^k of the golden
  tasks (trials with ``store_events_at_start > 0``), round by round
  (:func:`coordination_active_pass_hat_k_rounds`);
* :mod:`noisefloor.monitoring.pipeline` -- the three alarms over a monitored stream and its
  release baseline, in one call (:func:`monitor_trials`), each alarm mapped to its record;
* :mod:`noisefloor.monitoring.floor_sigma` -- the R1 sigma from the noise floor of logs of the
  same deployment (:func:`floor_sigma`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.monitoring.floor_sigma import FloorSigma, floor_sigma, labels_differ
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
    "floor_sigma": "floor_sigma",
    "labels_differ": "floor_sigma",
    "monitor_trials": "pipeline",
    "order_trials": "time_order",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
