"""Alarm R2 of the noise-floor paper: the rolling-N quantile of injection events per trial.

The alarm is raised when the rolling 95th percentile is 50 % or more above the 95th
percentile of the release baseline (the paper: "right-skew defeats Gaussian 2 sigma", hence a
quantile rule).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.monitor.alarms import Alarm, _positive_int, _real, _rising_edges, _series

__all__ = ["RollingQuantileResult", "rolling_quantile_monitor"]


@dataclass(frozen=True)
class RollingQuantileResult(FrozenResult):
    """Result of :func:`rolling_quantile_monitor` (alarm R2).

    Attributes
    ----------
    window : int
        N, the number of trials in each rolling window.
    q : float
        Quantile level (0.95 for the paper's 95th percentile).
    rel_increase : float
        Alarm when the rolling quantile is at least ``(1 + rel_increase)`` times the baseline's.
    baseline_quantile : float
        The ``q`` quantile of the baseline counts.
    threshold : float
        ``(1 + rel_increase) * baseline_quantile``; NaN when the baseline quantile is 0
        (a relative rise over zero is undefined; see ``reason``).
    n_baseline : int
        Number of baseline trials.
    statistic : tuple of float
        Rolling quantile after each trial, length n; NaN for the first ``window - 1`` trials.
    alarms : tuple of Alarm
        Onsets: trials where the statistic reaches the threshold after being below it.
    reason : str
        Why the alarm could not be evaluated (or part of the stream was not); empty otherwise.
    """

    window: int
    q: float
    rel_increase: float
    baseline_quantile: float
    threshold: float
    n_baseline: int
    statistic: tuple[float, ...]
    alarms: tuple[Alarm, ...]
    reason: str = ""

    @property
    def n(self) -> int:
        """Number of monitored trials."""
        return len(self.statistic)

    # hand-written: one row per trial, with above and alarm flags
    def to_frame(self) -> pd.DataFrame:
        """One row per trial: ``index, statistic, above`` (statistic >= threshold), ``alarm``."""
        stat = np.asarray(self.statistic, dtype=float)
        above = (
            (stat >= self.threshold) if math.isfinite(self.threshold) else np.zeros(self.n, bool)
        )
        alarm = np.zeros(self.n, dtype=bool)
        alarm[[a.index for a in self.alarms]] = True
        return pd.DataFrame(
            {"index": np.arange(self.n), "statistic": stat, "above": above, "alarm": alarm}
        )


def rolling_quantile_monitor(
    x: Sequence[float] | np.ndarray,
    baseline: Sequence[float] | np.ndarray,
    *,
    window: int = 200,
    q: float = 0.95,
    rel_increase: float = 0.5,
) -> RollingQuantileResult:
    """Rolling-N quantile of a count per trial against a release baseline (alarm R2).

    Parameters
    ----------
    x : sequence of float, shape (n,)
        Injection events per trial of the monitored stream, in time order, >= 0.
    baseline : sequence of float, shape (m,)
        Injection events per trial of the release baseline, >= 0, m >= 1.
    window : int, default 200
        N, the trials in each rolling window (the paper leaves N open). Small windows make the
        95th percentile noisy: on right-skewed baseline-like streams (negative binomial, mean
        2.77 injections per trial) of 1,000 trials we measured false-alarm shares of 92 % for
        N = 20, 59 % for N = 50, 8 % for N = 100 and 1 % for N = 200; the median delay after
        the mean doubles grows from 10 trials (N = 20) to 60 (N = 200)
        (``python benchmarks/monitor_alarms.py``).
    q : float, default 0.95
        Quantile level, in (0, 1).
    rel_increase : float, default 0.5
        Alarm when the rolling quantile is >= ``(1 + rel_increase)`` times the baseline
        quantile (the paper: ">= 50 % above release baseline"), > 0.

    Returns
    -------
    RollingQuantileResult
        ``window, q, rel_increase, baseline_quantile, threshold, n_baseline, statistic,
        alarms, reason``.

    Raises
    ------
    TypeError, ValueError
        For a non-finite or negative count, an empty baseline, or a parameter out of range.

    Notes
    -----
    Quantiles are NumPy's default linear interpolation (Hyndman & Fan type 7, R's default
    ``quantile(type = 7)``). The statistic at trial i >= N - 1 is the ``q`` quantile of trials
    ``i - N + 1 .. i``; earlier trials have no full window (NaN, no alarm). An alarm is reported
    at each onset: the first trial of every run of trials with ``statistic >= threshold``.
    When the baseline quantile is 0 a relative rise is undefined: the threshold is NaN, no alarm
    is raised and ``reason`` says so.

    References
    ----------
    Hyndman, R. J. & Fan, Y. (1996). Sample quantiles in statistical packages. The American
    Statistician 50(4), 361-365.
    Kaliyev, A. & Maryanskyy, A. (2026). How Much Coordination Gain Is Real? A Paired
    Noise-Floor Protocol for Multi-Agent LLM Benchmarks. KDD 2026 Workshop on Agentic AI
    Evaluation and Trustworthiness (section "Runtime monitoring").

    Examples
    --------
    >>> base = [0, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    >>> res = rolling_quantile_monitor([2, 3, 2, 3, 9, 9, 9, 3], base, window=4)
    >>> res.baseline_quantile, res.threshold
    (4.0, 6.0)
    >>> [(a.index, round(a.statistic, 12)) for a in res.alarms]  # R: quantile(c(3, 2, 3, 9), .95)
    [(4, 8.1)]
    """
    obs = _series("x", x, nonneg=True)
    base = _series("baseline", baseline, nonneg=True)
    if base.size == 0:
        raise ValueError("baseline must hold at least one trial")
    n_win = _positive_int("window", window)
    level = _validate.probability("q", q)
    rise = _real("rel_increase", rel_increase, positive=True)
    b = float(np.quantile(base, level))
    reasons = []
    stat = np.full(obs.size, np.nan)
    if obs.size >= n_win:
        windows = np.lib.stride_tricks.sliding_window_view(obs, n_win)
        step = max(1, 2_000_000 // n_win)  # np.quantile copies: bound memory to ~16 MB a chunk
        for start in range(0, windows.shape[0], step):
            chunk = windows[start : start + step]
            stat[n_win - 1 + start : n_win - 1 + start + chunk.shape[0]] = np.quantile(
                chunk, level, axis=1
            )
    else:
        reasons.append(f"fewer monitored trials ({obs.size}) than one window ({n_win})")
    if b > 0:
        thr = (1.0 + rise) * b
        above = np.where(np.isnan(stat), False, stat >= thr)
        idx = _rising_edges(above)
        alarms = tuple(Alarm("R2", int(i), float(stat[i]), thr, "above") for i in idx)
    else:
        thr = math.nan
        alarms = ()
        reasons.insert(
            0,
            f"baseline {level:g} quantile is 0, so a rise of {rise:.0%} over it is undefined; "
            "R2 raises no alarm",
        )
    return RollingQuantileResult(
        window=n_win,
        q=level,
        rel_increase=rise,
        baseline_quantile=b,
        threshold=thr,
        n_baseline=int(base.size),
        statistic=tuple(stat.tolist()),
        alarms=alarms,
        reason="; ".join(reasons),
    )
