"""Alarm R1 of the noise-floor paper: a two-sided tabular CUSUM on coordination-active pass^k.

The decision interval ``h`` is in units of the noise floor's sigma (the paper's "alarm at
+-1.5 sigma_floor" is ``h = 1.5``); :func:`siegmund_arl` gives the average run length of a
design and :func:`simulate_cusum_run_lengths` simulates it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.monitor.alarms import Alarm, _positive_int, _real, _series

__all__ = [
    "SIEGMUND_OFFSET",
    "CusumResult",
    "siegmund_arl",
    "simulate_cusum_run_lengths",
    "tabular_cusum",
]

#: Offset added to ``h`` in Siegmund's ARL approximation (Siegmund 1985; Montgomery 2009,
#: sec. 9.1): ``b = h + 1.166``.
SIEGMUND_OFFSET = 1.166


@dataclass(frozen=True)
class CusumResult(FrozenResult):
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

    # hand-written: one row per observation, with the alarm's direction
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
        noise-floor result (``noisefloor.floor.estimate.NoiseFloor``) whose ``null_gap_sd`` is used.
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
    Kaliyev, A. & Maryanskyy, A. (2026). How Much Coordination Gain Is Real? A Paired
    Noise-Floor Protocol for Multi-Agent LLM Benchmarks. KDD 2026 Workshop on Agentic AI
    Evaluation and Trustworthiness (section "Runtime monitoring").

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
    alive: npt.NDArray[np.intp] = np.arange(m)
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
