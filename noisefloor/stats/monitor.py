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
position in the stream that raised them. :mod:`noisefloor.stats.monitor_frame` runs them over the
trial DataFrame of :func:`noisefloor.logs.load_trials` in time order and maps every alarm back to
the record (file and line) that raised it. No I/O happens here.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.stats import _validate

__all__ = [
    "Alarm",
    "CollisionRateResult",
    "CusumResult",
    "RollingQuantileResult",
    "collision_rate_monitor",
    "rolling_quantile_monitor",
    "siegmund_arl",
    "simulate_cusum_run_lengths",
    "tabular_cusum",
]

#: Offset added to ``h`` in Siegmund's ARL approximation (Siegmund 1985; Montgomery 2009,
#: sec. 9.1): ``b = h + 1.166``.
SIEGMUND_OFFSET = 1.166


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Alarm:
    """One alarm raised by a monitor.

    Attributes
    ----------
    rule : str
        ``"R1"`` (CUSUM on pass^k), ``"R2"`` (injection quantile) or ``"R3"`` (key collisions).
    index : int
        0-based position in the monitored stream of the observation that raised the alarm
        (R1: the round; R2, R3: the trial).
    statistic : float
        Value of the monitored statistic at that observation (R1: the CUSUM ``C+`` or ``C-``
        in the units of the observations; R2: the rolling quantile; R3: the collision rate).
    threshold : float
        The threshold it crossed (R1: the decision interval ``H = h * sigma``).
    direction : str
        ``"upper"`` or ``"lower"`` for R1 (pass^k rose or fell); ``"above"`` for R2 and R3.
    row : hashable or None
        Label of the DataFrame row that completed the observation (frame-level functions);
        ``None`` for array input.
    """

    rule: str
    index: int
    statistic: float
    threshold: float
    direction: str
    row: Any = None

    def to_dict(self) -> dict:
        """Plain-dict view."""
        return asdict(self)

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame with one column per field."""
        return pd.DataFrame([self.to_dict()])


def _alarms_frame(alarms: Sequence[Alarm]) -> pd.DataFrame:
    cols = ["rule", "index", "statistic", "threshold", "direction", "row"]
    return pd.DataFrame([a.to_dict() for a in alarms], columns=cols)


@dataclass(frozen=True)
class CusumResult:
    """Result of :func:`tabular_cusum` (alarm R1).

    Attributes
    ----------
    target : float
        In-control mean ``mu0`` of the observations.
    sigma : float
        Scale ``sigma`` the reference value and decision interval are expressed in.
    sigma_source : str
        Where ``sigma`` came from (``"parameter"``, ``"null_gap_sd of <type>"``, ...).
    k, h : float
        Reference value and decision interval in sigma units.
    reference_value, decision_interval : float
        ``K = k * sigma`` and ``H = h * sigma`` in the units of the observations.
    restart : bool
        Whether both sums restart at zero after an alarm.
    arl0 : float
        Two-sided in-control average run length of this (k, h) by Siegmund's approximation,
        for normal observations whose standard deviation is ``sigma``.
    x, c_plus, c_minus : tuple of float
        Observations and the upper and lower cumulative sums after each one, length n.
    alarms : tuple of Alarm
        Every observation at which ``C+ > H`` or ``C- > H``.
    """

    target: float
    sigma: float
    sigma_source: str
    k: float
    h: float
    reference_value: float
    decision_interval: float
    restart: bool
    arl0: float
    x: tuple[float, ...]
    c_plus: tuple[float, ...]
    c_minus: tuple[float, ...]
    alarms: tuple[Alarm, ...]

    @property
    def n(self) -> int:
        """Number of observations."""
        return len(self.x)

    def to_dict(self) -> dict:
        """Plain-dict view (lists for the sequences, dicts for the alarms)."""
        d = asdict(self)
        d["x"], d["c_plus"], d["c_minus"] = list(self.x), list(self.c_plus), list(self.c_minus)
        return d

    def to_frame(self) -> pd.DataFrame:
        """One row per observation: ``index, x, c_plus, c_minus, alarm`` (``""``/upper/lower)."""
        flag = [""] * self.n
        for a in self.alarms:
            flag[a.index] = a.direction if not flag[a.index] else "both"
        return pd.DataFrame(
            {
                "index": np.arange(self.n),
                "x": self.x,
                "c_plus": self.c_plus,
                "c_minus": self.c_minus,
                "alarm": flag,
            }
        )


@dataclass(frozen=True)
class RollingQuantileResult:
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

    def to_dict(self) -> dict:
        """Plain-dict view."""
        d = asdict(self)
        d["statistic"] = list(self.statistic)
        return d

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


@dataclass(frozen=True)
class CollisionRateResult:
    """Result of :func:`collision_rate_monitor` (alarm R3).

    Attributes
    ----------
    threshold : float
        Alarm when the collision rate is strictly above this (0.005 in the paper).
    n_distinct_calls : tuple of int
        Distinct calls seen up to and including each trial, length n.
    n_colliding_calls : tuple of int
        Of those, calls whose key is shared with at least one other distinct call.
    rate : tuple of float
        ``n_colliding_calls / n_distinct_calls`` after each trial; NaN before the first call.
    collisions : tuple of (key, int)
        Every key shared by more than one distinct call at the end, with its number of calls.
    alarms : tuple of Alarm
        Onsets: trials where the rate rises above the threshold after being at or below it.
    """

    threshold: float
    n_distinct_calls: tuple[int, ...]
    n_colliding_calls: tuple[int, ...]
    rate: tuple[float, ...]
    collisions: tuple[tuple[Any, int], ...]
    alarms: tuple[Alarm, ...]

    @property
    def n(self) -> int:
        """Number of monitored trials."""
        return len(self.rate)

    def to_dict(self) -> dict:
        """Plain-dict view."""
        d = asdict(self)
        for name in ("n_distinct_calls", "n_colliding_calls", "rate"):
            d[name] = list(d[name])
        d["collisions"] = [list(c) for c in self.collisions]
        return d

    def to_frame(self) -> pd.DataFrame:
        """One row per trial: ``index, n_distinct_calls, n_colliding_calls, rate, alarm``."""
        alarm = np.zeros(self.n, dtype=bool)
        alarm[[a.index for a in self.alarms]] = True
        return pd.DataFrame(
            {
                "index": np.arange(self.n),
                "n_distinct_calls": self.n_distinct_calls,
                "n_colliding_calls": self.n_colliding_calls,
                "rate": self.rate,
                "alarm": alarm,
            }
        )


# --------------------------------------------------------------------------- validation


def _real(name: str, value: object, *, positive: bool = False, nonneg: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and v <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if nonneg and v < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return v


def _positive_int(name: str, value: object) -> int:
    v = _validate.count(name, value)
    if v < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return v


def _series(name: str, values: object, *, nonneg: bool = False) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 1-D sequence of numbers") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"{name} must be finite; position {bad[0]} is {arr[bad[0]]}")
    if nonneg and (arr < 0).any():
        i = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name} must be >= 0; position {i} is {arr[i]}")
    return arr


def _sigma_of(sigma: object) -> tuple[float, str]:
    """Accept a float or an object with ``null_gap_sd`` (a noise-floor result)."""
    if hasattr(sigma, "null_gap_sd"):
        value = sigma.null_gap_sd
        try:
            v = _real("sigma.null_gap_sd", value, positive=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"sigma was given as a {type(sigma).__name__} whose null_gap_sd is unusable: {exc}"
            ) from None
        return v, f"null_gap_sd of {type(sigma).__name__}"
    return _real("sigma", sigma, positive=True), "parameter"


def _rising_edges(condition: np.ndarray) -> np.ndarray:
    prev = np.concatenate([[False], condition[:-1]])
    return np.flatnonzero(condition & ~prev)


# --------------------------------------------------------------------------- R1: CUSUM


def siegmund_arl(
    shift: float = 0.0, *, k: float = 0.5, h: float = 1.5, sided: str = "two"
) -> float:
    """Average run length of a tabular CUSUM by Siegmund's approximation.

    Parameters
    ----------
    shift : float, default 0.0
        Shift of the process mean in sigma units (0 gives the in-control ARL0).
    k : float, default 0.5
        Reference value in sigma units, >= 0.
    h : float, default 1.5
        Decision interval in sigma units, > 0.
    sided : {"two", "upper", "lower"}, default "two"
        The two-sided scheme or one of its halves.

    Returns
    -------
    float
        Expected number of observations until the first alarm.

    Raises
    ------
    TypeError, ValueError
        For a non-numeric or out-of-range parameter.

    Notes
    -----
    For the upper sum, with ``Delta = shift - k`` and ``b = h + 1.166``,
    ``ARL+ = (exp(-2 Delta b) + 2 Delta b - 1) / (2 Delta^2)`` (``b^2`` when ``Delta = 0``);
    the lower sum uses ``Delta = -shift - k``; the two-sided ARL is
    ``1 / (1 / ARL+ + 1 / ARL-)``. Montgomery reports the approximation as accurate for
    normal observations; it gives 169.0 for k = 0.5, h = 4 and 469.1 for h = 5, against
    168 and 465 in Montgomery's Table 9.3 (which a Brook-Evans Markov chain reproduces: 167.7
    and 465.4), so it overstates ARL0 by under 1 %.

    References
    ----------
    Siegmund, D. (1985). *Sequential Analysis*. Springer. Montgomery, D. C. (2009).
    *Introduction to Statistical Quality Control*, 6th ed., Wiley, sec. 9.1.

    Examples
    --------
    >>> round(siegmund_arl(0.0, k=0.5, h=4.0), 1)
    169.0
    >>> round(siegmund_arl(1.0, k=0.5, h=4.0), 2)
    8.34
    """
    d = _real("shift", shift)
    k = _real("k", k, nonneg=True)
    h = _real("h", h, positive=True)
    side = _validate.choice("sided", sided, ("two", "upper", "lower"))
    b = h + SIEGMUND_OFFSET

    def one(delta: float) -> float:
        x = -2.0 * delta * b
        if abs(x) < 1e-3:  # series of exp(x) - x - 1 avoids cancellation; b^2 at delta = 0
            return b * b * (1.0 + x / 3.0 + x * x / 12.0)
        if x > 700:
            return math.inf
        return (math.expm1(x) - x) / (2.0 * delta * delta)

    up, lo = one(d - k), one(-d - k)
    if side == "upper":
        return up
    if side == "lower":
        return lo
    return 1.0 / (1.0 / up + 1.0 / lo)


def tabular_cusum(
    x: Sequence[float],
    *,
    target: float,
    sigma: float | Any,
    k: float = 0.5,
    h: float = 1.5,
    restart: bool = True,
) -> CusumResult:
    """Two-sided tabular CUSUM of a stream of observations (alarm R1).

    Parameters
    ----------
    x : sequence of float, shape (n,)
        Observations in time order (for R1: coordination-active pass^k per round), finite.
    target : float
        In-control mean ``mu0`` (for R1: the release baseline's pass^k).
    sigma : float or object with a ``null_gap_sd`` attribute
        Scale of ``k`` and ``h``, > 0: the noise floor's sigma, given directly or as a
        noise-floor result (``noisefloor.floor.NoiseFloor``) whose ``null_gap_sd`` is used.
    k : float, default 0.5
        Reference value in sigma units (``K = k * sigma``); 0.5 tunes the chart to a shift of
        one sigma (Montgomery 2009, sec. 9.1).
    h : float, default 1.5
        Decision interval in sigma units (``H = h * sigma``); 1.5 is the paper's
        "alarm at +-1.5 sigma_floor".
    restart : bool, default True
        Restart both sums at zero after an alarm, so a lasting shift raises an alarm about
        every few observations and every one of them is reported.

    Returns
    -------
    CusumResult
        ``target, sigma, sigma_source, k, h, reference_value, decision_interval, restart,
        arl0, x, c_plus, c_minus, alarms``.

    Raises
    ------
    TypeError, ValueError
        For a non-finite observation or parameter, ``sigma <= 0``, ``k < 0`` or ``h <= 0``.

    Notes
    -----
    The tabular CUSUM (Montgomery 2009, sec. 9.1), with ``C+_0 = C-_0 = 0``::

        C+_i = max(0, x_i - (mu0 + K) + C+_{i-1})
        C-_i = max(0, (mu0 - K) - x_i + C-_{i-1})

    and an alarm at observation i when ``C+_i > H`` (pass^k rose) or ``C-_i > H`` (fell).

    *Mapping the paper's rule.* The paper specifies "CUSUM ... alarm at +-1.5 sigma_floor"
    without a reference value. We read the 1.5 sigma as the decision interval (``h = 1.5``),
    the level the cumulative sums are compared with, and use Montgomery's standard reference
    value ``k = 0.5``. This is a sensitive chart: for normal observations whose standard
    deviation equals sigma its in-control ARL is about 10.5 observations (Brook-Evans Markov
    chain; Siegmund's approximation, reported as ``arl0``, gives 10.7), so it is a fast
    tripwire, not a quiet one. For Montgomery's textbook designs pass ``h=4`` (ARL0 ~ 168) or
    ``h=5`` (ARL0 ~ 465). The noise floor's sigma is the spread of a *gap* between two runs; a
    single round's pass^k spreads about sigma / sqrt(2), which lengthens the in-control ARL of
    any (k, h) (to about 49 rounds for k = 0.5, h = 1.5, by Siegmund).

    References
    ----------
    Page, E. S. (1954). Continuous inspection schemes. Biometrika 41, 100-115.
    Montgomery, D. C. (2009). *Introduction to Statistical Quality Control*, 6th ed., sec. 9.1.

    Examples
    --------
    >>> res = tabular_cusum([0.40, 0.42, 0.39, 0.20, 0.18, 0.22], target=0.40, sigma=0.05)
    >>> [(a.index, a.direction) for a in res.alarms]
    [(3, 'lower'), (4, 'lower'), (5, 'lower')]
    >>> round(res.decision_interval, 3), round(res.arl0, 1)
    (0.075, 10.7)
    """
    obs = _series("x", x)
    mu0 = _real("target", target)
    s, source = _sigma_of(sigma)
    k = _real("k", k, nonneg=True)
    h = _real("h", h, positive=True)
    if not isinstance(restart, bool):
        raise TypeError(f"restart must be a bool, got {restart!r}")
    kk, hh = k * s, h * s
    up_ref, lo_ref = mu0 + kk, mu0 - kk
    cp = cm = 0.0
    c_plus: list[float] = []
    c_minus: list[float] = []
    alarms: list[Alarm] = []
    for i, xi in enumerate(obs.tolist()):
        cp = max(0.0, xi - up_ref + cp)
        cm = max(0.0, lo_ref - xi + cm)
        c_plus.append(cp)
        c_minus.append(cm)
        hit = False
        if cp > hh:
            alarms.append(Alarm("R1", i, cp, hh, "upper"))
            hit = True
        if cm > hh:
            alarms.append(Alarm("R1", i, cm, hh, "lower"))
            hit = True
        if hit and restart:
            cp = cm = 0.0
    return CusumResult(
        target=mu0,
        sigma=s,
        sigma_source=source,
        k=k,
        h=h,
        reference_value=kk,
        decision_interval=hh,
        restart=restart,
        arl0=siegmund_arl(0.0, k=k, h=h),
        x=tuple(obs.tolist()),
        c_plus=tuple(c_plus),
        c_minus=tuple(c_minus),
        alarms=tuple(alarms),
    )


def simulate_cusum_run_lengths(
    n_chains: int,
    *,
    k: float = 0.5,
    h: float = 1.5,
    shift: float = 0.0,
    rng: int | np.random.Generator | None = None,
    max_length: int = 100_000,
    block: int | None = None,
) -> np.ndarray:
    """Simulated run lengths of the two-sided tabular CUSUM on normal observations.

    Parameters
    ----------
    n_chains : int
        Number of independent charts simulated (each gives one run length), >= 1.
    k, h : float, default 0.5, 1.5
        Reference value and decision interval in sigma units, as in :func:`tabular_cusum`.
    shift : float, default 0.0
        Mean of the N(shift, 1) observations (0: in control).
    rng : int, numpy.random.Generator or None
        Seed or generator; the same seed gives the same run lengths.
    max_length : int, default 100000
        Charts still silent after this many observations are censored at ``max_length + 1``.
    block : int or None, default None
        Observations drawn per surviving chain per step. ``None`` picks it so that one step
        holds about 2 million draws (16 MB per array), between 16 and 4096.

    Returns
    -------
    numpy.ndarray of int, shape (n_chains,)
        1-based index of the first alarm of each chart (``max_length + 1`` if none).

    Raises
    ------
    TypeError, ValueError
        For a parameter out of range.

    Notes
    -----
    Vectorised over chains and over time within a block: each one-sided sum is a Lindley
    recursion ``C_i = max(0, C_{i-1} + w_i)`` with increments ``w = z - k`` (upper) or
    ``w = -z - k`` (lower), whose solution from ``C_0 = c >= 0`` is
    ``C_i = c + S_i - min(0, c + min_{j <= i} S_j)`` with ``S`` the running sum of ``w``; the
    sums are carried across blocks. This is the first-alarm run length of :func:`tabular_cusum`
    (an alarm when either sum exceeds ``h``).

    Examples
    --------
    >>> rl = simulate_cusum_run_lengths(2000, k=0.5, h=4.0, shift=1.0, rng=1)
    >>> bool(7.5 < rl.mean() < 9.5)    # Montgomery Table 9.3: ARL 8.38 at a 1-sigma shift
    True
    """
    m = _positive_int("n_chains", n_chains)
    k = _real("k", k, nonneg=True)
    h = _real("h", h, positive=True)
    d = _real("shift", shift)
    cap = _positive_int("max_length", max_length)
    blk = None if block is None else _positive_int("block", block)
    gen = np.random.default_rng(rng)
    run = np.full(m, cap + 1, dtype=np.int64)
    alive = np.arange(m)
    cp = np.zeros(m)
    cm = np.zeros(m)
    t0 = 0
    while alive.size and t0 < cap:
        step = blk if blk is not None else min(4096, max(16, 2_000_000 // alive.size))
        width = min(step, cap - t0)
        z = gen.standard_normal((alive.size, width)) + d
        up = _lindley(cp[alive], z - k)
        lo = _lindley(cm[alive], -z - k)
        hit = (up > h) | (lo > h)
        any_hit = hit.any(axis=1)
        first = hit.argmax(axis=1)
        run[alive[any_hit]] = t0 + first[any_hit] + 1
        cp[alive] = up[:, -1]
        cm[alive] = lo[:, -1]
        alive = alive[~any_hit]
        t0 += width
    return run


def _lindley(start: np.ndarray, increments: np.ndarray) -> np.ndarray:
    """``C_i = max(0, C_{i-1} + w_i)`` for each row, from ``C_0 = start``, vectorised."""
    s = np.cumsum(increments, axis=1)
    running_min = np.minimum.accumulate(s, axis=1)
    low = np.minimum(running_min + start[:, None], 0.0)
    return start[:, None] + s - low


# --------------------------------------------------------------------------- R2: quantile


def rolling_quantile_monitor(
    x: Sequence[float],
    baseline: Sequence[float],
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


# --------------------------------------------------------------------------- R3: collisions


def collision_rate_monitor(
    trials: Sequence[Iterable[Any]],
    *,
    key_function: Callable[[str, Any], Hashable] | None = None,
    identity_function: Callable[[str, Any], Hashable] | None = None,
    threshold: float = 0.005,
) -> CollisionRateResult:
    """Cumulative coordination-key collision rate after each trial (alarm R3).

    Parameters
    ----------
    trials : sequence of iterables, length n
        One entry per trial in time order, holding that trial's calls. Without
        ``key_function`` each call is a ``(call_id, key)`` pair of hashables (e.g. the
        ``fingerprint`` and ``key`` a reader logged). With ``key_function`` each call is a
        ``(tool_name, arguments)`` pair, keyed by ``key_function(tool_name, arguments)`` and
        identified by ``identity_function(tool_name, arguments)``.
    key_function : callable or None
        The key scheme under test, e.g. :func:`noisefloor.store.keys.canonical_key`.
    identity_function : callable or None
        Identity of a literal call; default
        :func:`noisefloor.store.keys.call_fingerprint` (key order and whitespace insensitive,
        type preserving). Only used with ``key_function``.
    threshold : float, default 0.005
        Alarm when the rate is strictly above this (the paper: "> 0.5 %"), in [0, 1).

    Returns
    -------
    CollisionRateResult
        ``threshold, n_distinct_calls, n_colliding_calls, rate, collisions, alarms``.

    Raises
    ------
    TypeError
        For a call that is not a pair, or an unhashable id or key.
    ValueError
        For a threshold out of range, or one call id logged under two different keys (the key
        scheme is not a function of the call; the message names both trials).

    Notes
    -----
    After trial i, let D be the distinct calls seen so far and, for each key, D_key those
    mapping to it. The collision rate is ``sum over keys with |D_key| >= 2 of |D_key|`` divided
    by ``|D|``: the share of distinct calls whose key also stands for another call, i.e. calls on
    which a literal reader can fire a warning meant for a different call. It is cumulative (a
    set property of everything seen) and NaN before the first call. An alarm is reported at each
    onset: the first trial of every run with ``rate > threshold``.

    Examples
    --------
    >>> trials = [[("a", "k1"), ("b", "k2")], [("a", "k1")], [("c", "k2")]]
    >>> res = collision_rate_monitor(trials)
    >>> res.rate
    (0.0, 0.0, 0.6666666666666666)
    >>> [(a.index, round(a.statistic, 3)) for a in res.alarms], res.collisions
    ([(2, 0.667)], (('k2', 2),))
    """
    thr = _real("threshold", threshold, nonneg=True)
    if thr >= 1.0:
        raise ValueError(f"threshold must lie in [0, 1), got {threshold!r}")
    if key_function is not None and not callable(key_function):
        raise TypeError(f"key_function must be callable, got {key_function!r}")
    if identity_function is not None and key_function is None:
        raise ValueError("identity_function is only used together with key_function")
    if key_function is not None and identity_function is None:
        from noisefloor.store.keys import call_fingerprint as identity_function
    if isinstance(trials, (str, bytes)):
        raise TypeError("trials must be a sequence with one iterable of calls per trial")

    key_of: dict[Hashable, tuple[Hashable, int]] = {}
    members: dict[Hashable, int] = {}
    distinct = colliding = 0
    n_distinct: list[int] = []
    n_colliding: list[int] = []
    for t, calls in enumerate(trials):
        for j, call in enumerate(calls):
            if not isinstance(call, (tuple, list)) or len(call) != 2:
                raise TypeError(
                    f"trial {t}, call {j}: expected a pair, got {type(call).__name__} {call!r}"
                )
            if key_function is not None:
                tool, args = call
                cid, key = identity_function(tool, args), key_function(tool, args)
            else:
                cid, key = call
            try:
                seen = key_of.get(cid)
                hash(key)
            except TypeError:
                raise TypeError(
                    f"trial {t}, call {j}: call id and key must be hashable, got {call!r}"
                ) from None
            if seen is not None:
                if seen[0] != key:
                    raise ValueError(
                        f"call {cid!r} is logged with key {seen[0]!r} at trial {seen[1]} and with "
                        f"key {key!r} at trial {t}; a key must be a function of the call"
                    )
                continue
            key_of[cid] = (key, t)
            size = members.get(key, 0)
            members[key] = size + 1
            distinct += 1
            colliding += 2 if size == 1 else (1 if size >= 2 else 0)
        n_distinct.append(distinct)
        n_colliding.append(colliding)
    nd = np.asarray(n_distinct, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(
            nd > 0, np.asarray(n_colliding, dtype=float) / np.where(nd > 0, nd, 1), np.nan
        )
    above = np.where(np.isnan(rate), False, rate > thr)
    alarms = tuple(Alarm("R3", int(i), float(rate[i]), thr, "above") for i in _rising_edges(above))
    collisions = tuple((key, size) for key, size in members.items() if size >= 2)
    return CollisionRateResult(
        threshold=thr,
        n_distinct_calls=tuple(n_distinct),
        n_colliding_calls=tuple(n_colliding),
        rate=tuple(rate.tolist()),
        collisions=collisions,
        alarms=alarms,
    )
