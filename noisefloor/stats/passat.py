"""pass@k: the probability that at least one of k attempts at a task succeeds, averaged over tasks.

The unbiased estimator of Chen et al. (2021, section 2.1): per task with n counted attempts of
which c succeeded, ``1 - C(n - c, k) / C(n, k)``, averaged over tasks. It is the complement of
pass^k's dual: pass^k (:mod:`noisefloor.stats.passk`) asks that *all* k attempts succeed, pass@k
that *any* does, so ``pass@k >= pass^k`` with equality at k = 1. Trials are counted exactly as
pass^k counts them (success within 1e-6 of reward 1, the same infrastructure-error, not-run,
k-exceeds-n and unequal-trials policies), through the one counting function of
:mod:`noisefloor.stats.passk` (:func:`~noisefloor.stats.passk.count_trials`). Reading the
columns of a trial log is :mod:`noisefloor.passk`'s work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.passk import TaskCounts, pass_hat_k_from_counts

__all__ = ["PassAtK", "pass_at_k_estimate", "pass_at_k_from_counts"]


def pass_at_k_estimate(n: int, c: int, k: int) -> float:
    """Chen et al.'s unbiased pass@k of one task: ``1 - C(n - c, k) / C(n, k)``.

    Computed in the numerically stable product form
    ``1 - prod_{i = n - c + 1}^{n} (1 - k / i)`` (Chen et al. 2021, figure 3), which never
    forms the binomial coefficients (C(200, 100) overflows a float).

    Parameters
    ----------
    n : int
        Attempts counted, >= 1.
    c : int
        Successful attempts, 0 <= c <= n.
    k : int
        Attempts drawn, 1 <= k <= n.

    Returns
    -------
    float
        In [0, 1]; 1.0 when ``n - c < k`` (every draw of k holds a success).

    Raises
    ------
    ValueError
        Counts out of range.

    References
    ----------
    Chen, M. et al. (2021). Evaluating Large Language Models Trained on Code.
    arXiv:2107.03374, section 2.1 and figure 3.

    Examples
    --------
    >>> pass_at_k_estimate(5, 2, 2)   # 1 - C(3, 2) / C(5, 2) = 1 - 3/10
    0.7
    >>> pass_at_k_estimate(10, 0, 3), pass_at_k_estimate(10, 8, 3)
    (0.0, 1.0)
    """
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if not (n >= 1 and 0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@k needs n >= 1, 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, "
                         f"k={k}")
    if n - c < k:
        return 1.0
    i = np.arange(n - c + 1, n + 1, dtype=float)
    return float(1.0 - np.prod(1.0 - k / i))


@dataclass(frozen=True)
class PassAtK(FrozenResult):
    """Result of :func:`pass_at_k_from_counts` (and :func:`noisefloor.passk.pass_at_k`).

    Attributes
    ----------
    k : int
        Attempts drawn, of which at least one must succeed.
    value : float
        pass@k in [0, 1]; NaN with ``reason`` when undefined.
    se : float
        Standard error over tasks, ``SD_t(v_t) / sqrt(T)`` of the per-task estimates; NaN with
        fewer than two tasks.
    ci_low, ci_high : float
        ``value -+ z se`` clipped to [0, 1], at ``confidence``.
    confidence : float
        Interval level.
    n_tasks, n_tasks_used, n_trials, n_infrastructure_errors, n_not_run, trials_min, \
trials_max, tasks_excluded, n_trials_truncated
        As in :class:`noisefloor.stats.passk.PassHatK` (the same counting).
    infrastructure_errors, k_exceeds_n, unequal_trials : str
        Policies used.
    reason : str
        Why a field is NaN, or what was left out; empty otherwise.
    """

    k: int
    value: float
    se: float
    ci_low: float
    ci_high: float
    confidence: float
    n_tasks: int
    n_tasks_used: int
    n_trials: int
    n_infrastructure_errors: int
    n_not_run: int
    trials_min: int
    trials_max: int
    infrastructure_errors: str
    k_exceeds_n: str
    unequal_trials: str
    n_trials_truncated: int
    tasks_excluded: tuple[str, ...] = ()
    reason: str = ""


def pass_at_k_from_counts(counts: TaskCounts, k: int = 1, *, confidence: float = 0.95,
                          k_exceeds_n: str = "nan") -> PassAtK:
    """pass@k of one configuration from its per-task counts, with an interval over tasks.

    Parameters
    ----------
    counts : noisefloor.stats.passk.TaskCounts
        Per-task counted trials and successes (:func:`noisefloor.stats.passk.count_trials`).
    k : int, default 1
        Attempts drawn, >= 1.
    confidence : float, default 0.95
        Level of the interval, in (0, 1).
    k_exceeds_n : {"nan", "exclude", "error"}, default "nan"
        As in :func:`noisefloor.stats.passk.pass_hat_k_from_counts`, which decides which tasks
        enter and when the value is undefined (a task with fewer than k counted trials).

    Returns
    -------
    PassAtK

    Raises
    ------
    ValueError
        As :func:`noisefloor.stats.passk.pass_hat_k_from_counts` raises, or a bad
        ``confidence``.

    Notes
    -----
    ``pass@k = mean_t [1 - C(n_t - c_t, k) / C(n_t, k)]`` (Chen et al. 2021, eq. 1 and its
    unbiased estimator), each term by :func:`pass_at_k_estimate`. The interval treats tasks as
    the independent unit: ``SE = SD_t(v_t) / sqrt(T)`` over the T per-task estimates and
    ``value -+ z_{(1+confidence)/2} SE`` (the CLT interval of Miller 2024 with tasks as
    clusters), clipped to [0, 1].

    References
    ----------
    Chen, M. et al. (2021). Evaluating Large Language Models Trained on Code.
    arXiv:2107.03374.
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640.

    Examples
    --------
    >>> from noisefloor.stats.passk import count_trials
    >>> counts = count_trials(["1", "1", "2", "2"], [1.0, 0.0, 0.0, 0.0])
    >>> pass_at_k_from_counts(counts, 1).value, pass_at_k_from_counts(counts, 2).value
    (0.25, 0.5)
    """
    conf = _validate.probability("confidence", confidence)
    hat = pass_hat_k_from_counts(counts, k, k_exceeds_n=k_exceeds_n)
    common: dict[str, Any] = dict(
        k=hat.k, confidence=conf, n_tasks=hat.n_tasks, n_tasks_used=hat.n_tasks_used,
        n_trials=hat.n_trials, n_infrastructure_errors=hat.n_infrastructure_errors,
        n_not_run=hat.n_not_run, trials_min=hat.trials_min, trials_max=hat.trials_max,
        infrastructure_errors=hat.infrastructure_errors, k_exceeds_n=k_exceeds_n,
        unequal_trials=hat.unequal_trials, n_trials_truncated=hat.n_trials_truncated,
        tasks_excluded=hat.tasks_excluded)
    nan = math.nan
    if math.isnan(hat.value):
        return PassAtK(value=nan, se=nan, ci_low=nan, ci_high=nan,
                       reason=hat.reason.replace(f"pass^{k}", f"pass@{k}"), **common)
    left_out = set(hat.tasks_excluded)
    v = np.array([pass_at_k_estimate(int(n), int(c), hat.k)
                  for t, n, c in zip(counts.tasks, counts.n, counts.c) if t not in left_out])
    value = float(v.mean())
    reason = hat.reason
    if v.size < 2:
        se = lo = hi = nan
        reason = "; ".join(filter(None, [reason, "an interval over tasks needs at least two "
                                         f"tasks; got {v.size}"]))
    else:
        se = float(np.std(v, ddof=1) / math.sqrt(v.size))
        z = float(special.ndtri(0.5 + conf / 2))  # the normal quantile
        lo, hi = max(0.0, value - z * se), min(1.0, value + z * se)
    return PassAtK(value=value, se=se, ci_low=lo, ci_high=hi, reason=reason, **common)
