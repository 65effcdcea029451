"""Intervals on pass^k: a bootstrap over tasks, and the analytic (CLT over tasks) standard error.

pass^k (:func:`noisefloor.stats.passk.pass_hat_k_from_counts`) is a mean over tasks of the per-task unbiased
estimate ``C(c_t, k) / C(n_t, k)``. Tasks are the independent unit (trials of one task share it),
so both intervals treat the per-task estimates as the sample: the analytic SE is their standard
deviation over ``sqrt(T)`` (Miller's CLT SE with tasks as clusters), the bootstrap resamples tasks
with replacement (scipy.stats.bootstrap, seeded by ``rng``). The input is per-task counts
(:class:`noisefloor.stats.passk.TaskCounts`); :func:`noisefloor.passk.pass_hat_k_interval`
reads them from a trial log.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.passk import TaskCounts, pass_hat_k_from_counts, per_task_pass_hat_k

__all__ = ["METHODS", "PassHatKInterval", "pass_hat_k_interval_from_counts"]

METHODS = ("analytic", "percentile", "bca", "basic")


@dataclass(frozen=True)
class PassHatKInterval(FrozenResult):
    """Result of :func:`pass_hat_k_interval_from_counts` (and
    :func:`noisefloor.passk.pass_hat_k_interval`).

    Attributes
    ----------
    k : int
        Trials that must all succeed.
    value : float
        pass^k (as :func:`~noisefloor.stats.passk.pass_hat_k_from_counts` returns it).
    se : float
        Standard error: analytic (per-task SD over sqrt(T)) or the bootstrap SD.
    ci_low, ci_high : float
        Interval at ``confidence``; the analytic one is ``value -+ z se`` clipped to [0, 1].
    confidence : float
        Interval level.
    method : str
        ``"analytic"``, or the bootstrap interval ``"percentile"``, ``"bca"`` or ``"basic"``.
    n_tasks : int
        Tasks that entered the average.
    n_boot : int
        Bootstrap resamples (0 for the analytic interval).
    reason : str
        Why a field is NaN, or what pass^k left out; empty otherwise.
    """

    k: int
    value: float
    se: float
    ci_low: float
    ci_high: float
    confidence: float
    method: str
    n_tasks: int
    n_boot: int
    reason: str = ""


def pass_hat_k_interval_from_counts(counts: TaskCounts, k: int = 1, *,
                                    confidence: float = 0.95, method: str = "analytic",
                                    n_boot: int = 2000, rng=None,
                                    k_exceeds_n: str = "nan") -> PassHatKInterval:
    """pass^k with a standard error and an interval, from a bootstrap over tasks or the CLT.

    Parameters
    ----------
    counts : noisefloor.stats.passk.TaskCounts
        Per-task counted trials and successes of one configuration
        (:func:`noisefloor.stats.passk.count_trials`).
    k : int, default 1
        Trials that must all succeed, >= 1.
    confidence : float, default 0.95
        Interval level, in (0, 1).
    method : {"analytic", "percentile", "bca", "basic"}, default "analytic"
        ``"analytic"``: ``value -+ z SE``, ``SE = SD_t(v_t) / sqrt(T)``. Otherwise a bootstrap
        over tasks (``scipy.stats.bootstrap`` with that interval method).
    n_boot : int, default 2000
        Bootstrap resamples (bootstrap methods only), >= 100.
    rng : int or numpy.random.Generator, optional
        Seed or generator of the bootstrap; the same seed gives the same interval.
    k_exceeds_n : {"nan", "exclude"}, default "nan"
        A task with fewer than k counted trials: NaN result, or left out (as in
        :func:`~noisefloor.stats.passk.pass_hat_k_from_counts`).

    Returns
    -------
    PassHatKInterval
        NaN fields with a reason when pass^k is undefined or fewer than two tasks remain; a
        degenerate bootstrap (every task the same value) gives NaN BCa bounds with a reason.

    Raises
    ------
    ValueError
        On an invalid option or ``k``.

    Notes
    -----
    With per-task estimates ``v_t = C(c_t, k) / C(n_t, k)``, ``t = 1..T``:
    ``value = mean(v)``, analytic ``SE = sqrt(sum (v_t - value)^2 / (T - 1) / T)``. As the number
    of resamples grows the bootstrap SE tends to ``sqrt((T - 1) / T)`` times the analytic SE
    (the plug-in SE of a mean; Efron & Tibshirani 1993, section 5.2).

    References
    ----------
    Yao, S. et al. (2024). tau-bench. arXiv:2406.12045 (pass^k).
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640.
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> from noisefloor.stats.passk import count_trials
    >>> counts = count_trials([str(i // 2) for i in range(8)],
    ...                       [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0])
    >>> r = pass_hat_k_interval_from_counts(counts, 1)
    >>> r.value, round(r.se, 4)
    (0.625, 0.2394)
    """
    _validate.choice("method", method, METHODS)
    _validate.choice("k_exceeds_n", k_exceeds_n, ("nan", "exclude"))
    conf = _validate.probability("confidence", confidence)
    boot = method != "analytic"
    if boot and (isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 100):
        raise _validate.ParameterError("n_boot", "an integer >= 100", n_boot)
    overall = pass_hat_k_from_counts(counts, k, k_exceeds_n=k_exceeds_n)
    nan = math.nan
    nb = int(n_boot) if boot else 0

    def result(se, lo, hi, tasks, reason=overall.reason):
        return PassHatKInterval(k, overall.value, se, lo, hi, conf, method, tasks, nb, reason)

    if math.isnan(overall.value):
        return result(nan, nan, nan, overall.n_tasks_used)
    left_out = set(overall.tasks_excluded)
    per_task = per_task_pass_hat_k(counts, k)
    # tasks in sorted order, so that a seeded bootstrap does not depend on the input's order
    v = np.array([x for t, x in sorted(zip(counts.tasks, per_task)) if t not in left_out],
                 dtype=float)
    if not math.isclose(float(v.mean()), overall.value, rel_tol=1e-12, abs_tol=1e-12):
        raise RuntimeError("per-task pass^k values do not average to pass^k's value")
    tasks = int(v.size)
    if tasks < 2:
        return result(nan, nan, nan, tasks, "an interval over tasks needs at least two tasks; "
                      f"got {tasks}")
    if not boot:
        se = float(np.std(v, ddof=1) / math.sqrt(tasks))
        z = float(special.ndtri(0.5 + conf / 2))  # the normal quantile
        return result(se, max(0.0, overall.value - z * se), min(1.0, overall.value + z * se),
                      tasks)
    from scipy import stats  # on first use: scipy.stats costs start-up to every command

    gen = np.random.default_rng(rng)
    with np.errstate(invalid="ignore", divide="ignore"):
        res = stats.bootstrap((v,), _mean, n_resamples=nb, confidence_level=conf,
                              method=_BOOTSTRAP_METHODS[method], rng=gen,
                              vectorized=True)
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    reason = overall.reason
    if math.isnan(lo) or math.isnan(hi):
        why = (f"the bootstrap distribution is degenerate (every task has pass^{k} = "
               f"{v[0]:g}): no {method} interval")
        reason = "; ".join(filter(None, [reason, why]))
    return result(float(res.standard_error), lo, hi, tasks, reason)


#: The bootstrap methods of ``method`` as scipy.stats.bootstrap types them.
_BOOTSTRAP_METHODS: dict[str, Literal["percentile", "bca", "basic"]] = {
    "percentile": "percentile", "bca": "bca", "basic": "basic"}


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mean along ``axis``, the statistic of the vectorised bootstrap."""
    return np.mean(x, axis=axis)
