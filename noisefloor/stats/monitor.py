"""Runtime alarms for a deployed coordination protocol (noise-floor paper, "Runtime monitoring").

Three alarms watch a stream of trials in time order and compare it with a release baseline:

* **R1** -- a two-sided tabular CUSUM on coordination-active pass^k over a golden-task set,
  with decision interval ``h`` in units of the noise floor's sigma (the paper's "alarm at
  +-1.5 sigma_floor" is ``h = 1.5``; see :func:`tabular_cusum`).
* **R2** -- the rolling-N 95th percentile of injection events per trial, alarm at 50 % or more
  above the 95th percentile of the release baseline (the paper: "right-skew defeats Gaussian
  2 sigma", hence a quantile rule).
* **R3** -- the coordination-key collision rate: the share of distinct calls that share their
  key with another distinct call, alarm above 0.5 %.

The functions here take plain sequences and return frozen results whose alarms carry the
position in the stream that raised them. The rules live in
:mod:`noisefloor.stats.cusum`, :mod:`noisefloor.stats.rolling_quantile` and
:mod:`noisefloor.stats.collision_rate` (the shared :class:`Alarm` in
:mod:`noisefloor.stats.alarms`); this module gathers them under one name.
:func:`noisefloor.monitoring.monitor_trials` runs them over a trial DataFrame in time order and
maps every alarm back to the record (file and line) that raised it. No I/O happens here.
"""

from noisefloor.stats.alarms import Alarm, alarms_frame
from noisefloor.stats.collision_rate import CollisionRateResult, collision_rate_monitor
from noisefloor.stats.cusum import (
    SIEGMUND_OFFSET,
    CusumResult,
    siegmund_arl,
    simulate_cusum_run_lengths,
    tabular_cusum,
)
from noisefloor.stats.rolling_quantile import RollingQuantileResult, rolling_quantile_monitor

__all__ = [
    "SIEGMUND_OFFSET",
    "Alarm",
    "CollisionRateResult",
    "CusumResult",
    "RollingQuantileResult",
    "alarms_frame",
    "collision_rate_monitor",
    "rolling_quantile_monitor",
    "siegmund_arl",
    "simulate_cusum_run_lengths",
    "tabular_cusum",
]
