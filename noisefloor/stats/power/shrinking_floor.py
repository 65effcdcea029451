"""Sample size against a measured floor that shrinks with n.

A floor measured on ``n0`` paired tasks is an upper confidence bound of null gaps; run the same
null contrasts on ``n`` tasks and its width scales about as ``1/sqrt(n)`` (the null discordance,
the share of tasks on which two runs of one configuration disagree, held fixed). Planning
against the measured value as if it were fixed is conservative, and for a gain below that
value it has no answer at all. :func:`sample_size_shrinking_floor` solves for the smallest n
at which the gain clears the floor *as it would be at that n*:
``floor(n) = floor0 * sqrt(n0 / n)``.

References
----------
Connor, R. J. (1987), "Sample size for testing differences in proportions for the
paired-sample design", Biometrics 43(1) (the paired power function used).
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real?" (the floor as an upper
bound of null gaps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from noisefloor.stats.power.functions import power as power_at

__all__ = ["ShrinkingFloorPlan", "sample_size_shrinking_floor"]


@dataclass(frozen=True)
class ShrinkingFloorPlan:
    """Result of :func:`sample_size_shrinking_floor`.

    Attributes
    ----------
    n : int
        Smallest n (tasks) reaching ``power`` (-1 when none up to ``n_max``; see ``reason``).
    floor_at_n : float
        The floor as it would be at ``n`` (proportion; NaN without n).
    achieved_power : float
        Power at ``n`` against ``floor_at_n`` (NaN without n).
    held_fixed : str
        What the plan holds fixed while the floor shrinks.
    reason : str
        Why there is no n; empty otherwise.
    """

    n: int
    floor_at_n: float
    achieved_power: float
    held_fixed: str
    reason: str = ""


def sample_size_shrinking_floor(gap: float, floor0: float, n0: int, *, test: str = "mcnemar",
                                p_d: float | None = None, baseline: float | None = None,
                                alpha: float = 0.05, power: float = 0.8,
                                n_max: int = 10_000_000) -> ShrinkingFloorPlan:
    """Smallest n at which ``gap`` clears the floor ``floor0 * sqrt(n0 / n)`` with ``power``.

    Parameters
    ----------
    gap : float
        The true gain (proportion), > 0.
    floor0 : float
        The floor measured on ``n0`` tasks (proportion), >= 0.
    n0 : int
        Paired tasks of the null contrast that set ``floor0``, >= 1.
    test, p_d, baseline, alpha, power
        As in :func:`noisefloor.stats.power.planning.sample_size`.
    n_max : int, default 10,000,000
        Largest n searched.

    Returns
    -------
    ShrinkingFloorPlan

    Notes
    -----
    Power is non-decreasing in n here (more tasks and a lower floor both help), so the
    smallest n is found by doubling, then bisection.

    Examples
    --------
    >>> p = sample_size_shrinking_floor(0.10, 0.172, 50, p_d=0.3)
    >>> p.n > 50, round(p.floor_at_n, 3) < 0.10
    (True, True)
    """
    if not (isinstance(n0, int) and n0 >= 1):
        raise ValueError(f"n0 must be an integer >= 1, got {n0!r}")
    if not (gap > 0) or not (floor0 >= 0):
        raise ValueError(f"gap must be > 0 and floor0 >= 0, got gap {gap!r}, floor0 {floor0!r}")
    held = (f"the null discordance of the floor's contrast (its floor {floor0:g} at n0 = {n0} "
            "scales as sqrt(n0 / n))")

    def floor_at(n: int) -> float:
        return floor0 * math.sqrt(n0 / n)

    def achieved(n: int) -> float:
        f = floor_at(n)
        if f >= gap or (p_d is not None and f * f >= p_d):
            return 0.0  # a gain no larger than the floor never clears it
        value = power_at(test, n, gap, baseline=baseline, p_d=p_d, alpha=alpha, floor=f)
        return 0.0 if math.isnan(value) else float(value)

    hi = 2
    while achieved(hi) < power:
        hi *= 2
        if hi > n_max:
            return ShrinkingFloorPlan(-1, math.nan, math.nan, held,
                                      f"power {power:g} is not reached up to n = {n_max}")
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if achieved(mid) >= power:
            hi = mid
        else:
            lo = mid
    return ShrinkingFloorPlan(hi, floor_at(hi), achieved(hi), held)
