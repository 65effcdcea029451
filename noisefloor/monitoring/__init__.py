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
  same deployment (:func:`floor_sigma`);
* :mod:`noisefloor.monitoring.from_logs` -- the alarms over logs, sigma given or from a floor's
  logs, in one call (:func:`monitor_logs`; ``noisefloor monitor``).
"""

from noisefloor.monitoring.floor_sigma import FloorSigma, floor_sigma
from noisefloor.monitoring.from_logs import monitor_logs
from noisefloor.monitoring.pass_hat_k_rounds import (
    PassHatKRounds,
    coordination_active_pass_hat_k_rounds,
)
from noisefloor.monitoring.pipeline import COORDINATION_KEYS_FIELD, MonitorReport, monitor_trials
from noisefloor.monitoring.time_order import TIMESTAMP_FIELD, NaiveTimestampWarning, order_trials

__all__ = [
    "COORDINATION_KEYS_FIELD",
    "FloorSigma",
    "TIMESTAMP_FIELD",
    "MonitorReport",
    "NaiveTimestampWarning",
    "PassHatKRounds",
    "coordination_active_pass_hat_k_rounds",
    "floor_sigma",
    "monitor_logs",
    "monitor_trials",
    "order_trials",
]
