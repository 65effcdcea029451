"""Runtime alarms R1-R3 of the noise-floor paper for a deployed coordination protocol.

R1, a two-sided tabular CUSUM on coordination-active pass^k (:mod:`~noisefloor.stats.monitor.cusum`);
R2, the rolling 95th percentile of injection events per trial against the release baseline
(:mod:`~noisefloor.stats.monitor.rolling_quantile`); R3, the coordination-key collision rate
(:mod:`~noisefloor.stats.monitor.collision_rate`); every rule reports the shared
:class:`Alarm` record (:mod:`~noisefloor.stats.monitor.alarms`). The functions take plain
sequences and return frozen results; :func:`noisefloor.monitoring.monitor_trials` runs them over
a trial log. The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.stats.monitor.alarms import ALARM_COLUMNS, Alarm, alarms_frame
    from noisefloor.stats.monitor.collision_rate import (
        CollisionRateResult,
        collision_rate_from_calls,
        collision_rate_monitor,
    )
    from noisefloor.stats.monitor.cusum import (
        SIEGMUND_OFFSET,
        CusumResult,
        siegmund_arl,
        simulate_cusum_run_lengths,
        tabular_cusum,
    )
    from noisefloor.stats.monitor.rolling_quantile import (
        RollingQuantileResult,
        rolling_quantile_monitor,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "ALARM_COLUMNS": "alarms",
    "Alarm": "alarms",
    "CollisionRateResult": "collision_rate",
    "CusumResult": "cusum",
    "RollingQuantileResult": "rolling_quantile",
    "SIEGMUND_OFFSET": "cusum",
    "alarms_frame": "alarms",
    "collision_rate_from_calls": "collision_rate",
    "collision_rate_monitor": "collision_rate",
    "rolling_quantile_monitor": "rolling_quantile",
    "siegmund_arl": "cusum",
    "simulate_cusum_run_lengths": "cusum",
    "tabular_cusum": "cusum",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
