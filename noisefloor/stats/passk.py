"""pass^k: the probability that all k of k i.i.d. trials of a task succeed, averaged over tasks.

Estimator of tau-bench (Yao et al., 2024) and tau2-bench: per task with n trials of which c
succeeded, ``C(c, k) / C(n, k)``, averaged over tasks. A trial succeeds when its reward is
within 1e-6 of 1, so a partial reward is never a success.

Everything here takes arrays: :func:`count_trials` turns per-trial arrays (task, reward,
infrastructure error, trial index) into per-task counts under the policies for infrastructure
errors and unequal trial counts (:class:`TaskCounts`), the one counting that pass^k, pass@k
(:mod:`noisefloor.stats.passat`) and their intervals (below)
share; :func:`pass_hat_k_from_counts` is the estimator on those counts.

Intervals (:func:`pass_hat_k_interval_from_counts`): pass^k is a mean over tasks of the per-task
unbiased estimate ``C(c_t, k) / C(n_t, k)``. Tasks are the independent unit (trials of one task
share it), so both intervals treat the per-task estimates as the sample: the analytic SE is their
standard deviation over ``sqrt(T)`` (Miller's CLT SE with tasks as clusters), the bootstrap
resamples tasks with replacement (scipy.stats.bootstrap, seeded by ``rng``).

Reading the columns of a trial log is :mod:`noisefloor.passk`'s work
(:func:`noisefloor.passk.pass_hat_k`, :func:`noisefloor.passk.pass_hat_k_interval`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate

SUCCESS_TOLERANCE = 1e-6

__all__ = ["INTERVAL_METHODS", "SUCCESS_TOLERANCE", "PassHatK", "PassHatKInterval", "TaskCounts",
           "count_trials", "is_success", "pass_hat_k_from_counts", "pass_hat_k_interval_from_counts",
           "per_task_pass_hat_k", "trial_outcomes"]


@dataclass(frozen=True)
class PassHatK(FrozenResult):
    """Result of :func:`pass_hat_k_from_counts` (and :func:`noisefloor.passk.pass_hat_k`).

    Attributes
    ----------
    k : int
        Number of trials that must all succeed.
    value : float
        pass^k in [0, 1]; NaN with ``reason`` when undefined.
    n_tasks : int
        Tasks in the input.
    n_tasks_used : int
        Tasks that entered the average.
    n_trials : int
        Trials counted (after exclusions).
    n_infrastructure_errors : int
        Trials that ended in an infrastructure error (``infrastructure_error`` true), whatever
        the policy: dropped under ``infrastructure_errors="exclude"``, counted as failed
        trials (and in ``n_trials``) under ``"fail"``.
    n_not_run : int
        Trials without a reward (``reward`` null/NaN) that are not marked as infrastructure
        errors; dropped, counted here.
    trials_min, trials_max : int
        Smallest and largest number of counted trials per task (equal for a balanced run).
    infrastructure_errors : str
        Policy used: ``"exclude"`` or ``"fail"``.
    k_exceeds_n : str
        Policy used for tasks with fewer than k trials: ``"nan"``, ``"exclude"`` or ``"error"``.
    tasks_excluded : tuple of str
        Tasks left out of the average (``k_exceeds_n="exclude"``: those with no counted trial
        first, then those with fewer than k), or, when no task has a counted trial, all of
        them.
    reason : str
        Why ``value`` is NaN, or what was excluded; empty otherwise.
    unequal_trials : str
        Policy used when tasks have different numbers of counted trials: ``"allow"``,
        ``"truncate"`` or ``"error"``.
    n_trials_truncated : int
        Counted trials dropped by ``unequal_trials="truncate"`` (0 otherwise).
    """

    k: int
    value: float
    n_tasks: int
    n_tasks_used: int
    n_trials: int
    n_infrastructure_errors: int
    n_not_run: int
    trials_min: int
    trials_max: int
    infrastructure_errors: str
    k_exceeds_n: str
    tasks_excluded: tuple[str, ...] = ()
    reason: str = ""
    unequal_trials: str = "allow"
    n_trials_truncated: int = 0


def is_success(reward, tolerance: float = SUCCESS_TOLERANCE):
    """Elementwise success: reward within ``tolerance`` of 1 (NaN is not a success)."""
    r = np.asarray(reward, dtype=float)
    return np.abs(r - 1.0) <= tolerance


def trial_outcomes(reward, infrastructure_error=None, infrastructure_errors: str = "exclude"):
    """The one success rule: per trial 1.0 (success), 0.0 (failure) or NaN (undefined).

    Parameters
    ----------
    reward : array-like of float, shape (n,)
        Rewards, NaN when the trial has none.
    infrastructure_error : array-like of bool, shape (n,), optional
        Trials that ended in an infrastructure error (default: none).
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        An infrastructure error is undefined (left out), or a failure, whatever reward it
        carries: an endpoint failure is never a score.

    Returns
    -------
    numpy.ndarray of float, shape (n,)

    Notes
    -----
    Success is :math:`|r - 1| \\le 10^{-6}` (a partial reward is a failure), as in tau-bench
    (Yao et al. 2024); a trial without reward that is not an infrastructure error never ran
    and is undefined under either policy.

    Examples
    --------
    >>> trial_outcomes([1.0, 0.5, float("nan"), 1.0], [False, False, False, True], "fail")
    array([ 1.,  0., nan,  0.])
    >>> trial_outcomes([1.0, 1.0], [False, True])
    array([ 1., nan])
    """
    if infrastructure_errors not in ("exclude", "fail"):
        raise ValueError("infrastructure_errors must be 'exclude' or 'fail', got "
                         f"{infrastructure_errors!r}")
    r = np.asarray(reward, dtype=float)
    infra = (np.zeros(r.shape, dtype=bool) if infrastructure_error is None
             else np.asarray(infrastructure_error, dtype=bool))
    outcome = np.where(is_success(r) & ~infra, 1.0, 0.0)
    undefined = np.isnan(r) & ~infra
    if infrastructure_errors == "exclude":
        undefined |= infra
    outcome[undefined] = np.nan
    return outcome


@dataclass(frozen=True)
class TaskCounts:
    """Per-task trial counts of one configuration, as :func:`count_trials` makes them.

    Attributes
    ----------
    tasks : tuple of str, length T
        Task labels in first-seen order, every task of the input (also those with no counted
        trial).
    n : numpy.ndarray of int, shape (T,)
        Counted trials of each task (0 when none was counted).
    c : numpy.ndarray of int, shape (T,)
        Successful counted trials of each task.
    n_trials : int
        Trials counted, ``n.sum()``.
    n_infrastructure_errors : int
        Trials that ended in an infrastructure error, whatever the policy.
    n_not_run : int
        Trials without a reward that are not infrastructure errors (never counted).
    n_trials_truncated : int
        Counted trials dropped by ``unequal_trials="truncate"``.
    infrastructure_errors, unequal_trials : str
        Policies used.
    """

    tasks: tuple[str, ...]
    n: np.ndarray = field(repr=False)
    c: np.ndarray = field(repr=False)
    n_trials: int
    n_infrastructure_errors: int
    n_not_run: int
    n_trials_truncated: int
    infrastructure_errors: str
    unequal_trials: str


def _first_m(task: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Mask keeping each task's first m entries by ``order`` (stable), m the fewest any task has."""
    _, codes, sizes = np.unique(task, return_inverse=True, return_counts=True)
    m = int(sizes.min())
    idx = np.lexsort((np.arange(task.size), order, codes))  # by task, then order, then position
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    rank = np.empty(task.size, dtype=np.int64)
    rank[idx] = np.arange(task.size) - np.repeat(starts, sizes)
    return rank < m


def count_trials(task, reward, infrastructure_error=None, order=None, *,
                 infrastructure_errors: str = "exclude",
                 unequal_trials: str = "allow") -> TaskCounts:
    """Count each task's trials and successes under the policies of pass^k.

    Parameters
    ----------
    task : array-like of str, shape (n,)
        Task label of each trial.
    reward : array-like of float, shape (n,)
        Reward of each trial, NaN when the trial never ran.
    infrastructure_error : array-like of bool, shape (n,), optional
        Trials that ended in an infrastructure error (default: none).
    order : array-like of int, shape (n,), optional
        Trial index of each trial: a repeated (task, index) pair is an error, and
        ``unequal_trials="truncate"`` keeps the lowest indices (default: input order, no check).
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        ``"exclude"`` drops infrastructure-error trials; ``"fail"`` counts them as failures.
    unequal_trials : {"allow", "truncate", "error"}, default "allow"
        Tasks with different numbers of counted trials: keep each task's own n, keep every
        task's first m counted trials (m the fewest any task has), or raise.

    Returns
    -------
    TaskCounts

    Raises
    ------
    ValueError
        Arrays of different lengths, a missing task label (None or NaN), a repeated (task,
        trial index), an invalid policy, or unequal counts under ``unequal_trials="error"``.

    Examples
    --------
    >>> c = count_trials(["1", "1", "2"], [1.0, 0.0, float("nan")])
    >>> c.tasks, c.n.tolist(), c.c.tolist(), c.n_not_run
    (('1', '2'), [2, 0], [1, 0], 1)
    """
    _validate.choice("infrastructure_errors", infrastructure_errors, ("exclude", "fail"))
    _validate.choice("unequal_trials", unequal_trials, ("allow", "truncate", "error"))
    raw = np.asarray(task, dtype=object)
    if raw.ndim != 1:
        raise ValueError(f"task must be a 1-d array, got shape {raw.shape}")
    codes, uniques = pd.factorize(raw, use_na_sentinel=False)  # codes in first-seen order
    missing = pd.isna(uniques)
    if missing.any():  # str() would make "None" or "nan" a task of its own
        first = int(np.flatnonzero(np.isin(codes, np.flatnonzero(missing)))[0])
        raise ValueError(f"task is missing at position {first} (got {raw[first]!r}); every "
                         "trial needs a task label")
    tasks = np.array([str(t) for t in uniques], dtype=object)
    if len(set(tasks)) < tasks.size:  # e.g. 1 and "1": one task, as its text says
        codes, uniques = pd.factorize(tasks[codes])
        tasks = np.asarray(uniques, dtype=object)
    labels = tasks[codes]
    r = np.asarray(reward, dtype=float)
    infra = (np.zeros(r.shape, dtype=bool) if infrastructure_error is None
             else np.asarray(infrastructure_error, dtype=bool))
    idx = np.arange(labels.size) if order is None else np.asarray(order)
    if not (labels.shape == r.shape == infra.shape == idx.shape):
        raise ValueError("task, reward, infrastructure_error and order must be 1-d arrays of one "
                         f"length; got shapes {labels.shape}, {r.shape}, {infra.shape}, "
                         f"{idx.shape}")
    if order is not None and labels.size:
        dup = pd.DataFrame({"task": codes, "order": idx}).duplicated(keep=False).to_numpy()
        if dup.any():
            first = int(np.flatnonzero(dup)[0])
            raise ValueError(f"duplicate trial: task {labels[first]!r} trial {idx[first]} "
                             "appears more than once; pass^k would double count it")
    not_run = np.isnan(r) & ~infra
    keep = ~not_run if infrastructure_errors == "fail" else ~infra & ~not_run
    success = is_success(r) & ~infra
    n_truncated = 0
    if keep.any():
        kept_codes, sizes = np.unique(codes[keep], return_counts=True)
        if sizes.min() != sizes.max():
            if unequal_trials == "error":
                fewest = str(tasks[kept_codes[int(np.argmin(sizes))]])
                raise _validate.ParameterError("unequal_trials", "'allow' or 'truncate'", message=(
                    _validate.literal(
                        f"tasks have unequal numbers of counted trials ({int(sizes.min())} to "
                        f"{int(sizes.max())}; e.g. task {fewest!r} has "
                        f"{int(sizes.min())}); ")
                    + "pass {unequal_trials='allow'} (per-task n, the tau-bench estimator) or "
                    "{unequal_trials='truncate'} (every task's first m trials) to decide"))
            if unequal_trials == "truncate":
                kept = np.flatnonzero(keep)
                first_m = _first_m(codes[kept], idx[kept])
                n_truncated = int((~first_m).sum())
                keep = keep.copy()
                keep[kept[~first_m]] = False
    n = np.bincount(codes[keep], minlength=tasks.size).astype(np.int64)
    c = np.bincount(codes[keep & success], minlength=tasks.size).astype(np.int64)
    return TaskCounts(tuple(str(t) for t in tasks), n, c, int(n.sum()), int(infra.sum()),
                      int(not_run.sum()), n_truncated, infrastructure_errors, unequal_trials)


def per_task_pass_hat_k(counts: TaskCounts, k: int = 1) -> np.ndarray:
    """Each task's pass^k estimate ``C(c_t, k) / C(n_t, k)``, NaN where ``n_t < k``.

    Parameters
    ----------
    counts : TaskCounts
        Per-task counts (:func:`count_trials`).
    k : int, default 1
        Trials that must all succeed, >= 1.

    Returns
    -------
    numpy.ndarray of float, shape (T,)
        In the order of ``counts.tasks``.

    Examples
    --------
    >>> per_task_pass_hat_k(count_trials(list("aabb"), [1.0, 0.0, 1.0, 1.0]), 2).tolist()
    [0.0, 1.0]
    """
    k = _check_k(k)
    return np.array([math.comb(int(c), k) / math.comb(int(n), k) if n >= k else math.nan
                     for n, c in zip(counts.n, counts.c)], dtype=float)


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return int(k)


def pass_hat_k_from_counts(counts: TaskCounts, k: int = 1, *,
                           k_exceeds_n: str = "nan") -> PassHatK:
    """pass^k of one configuration from its per-task counts.

    Parameters
    ----------
    counts : TaskCounts
        Per-task counted trials and successes (:func:`count_trials`), which fix the
        infrastructure-error and unequal-trials policies.
    k : int, default 1
        Number of trials that must all succeed, >= 1.
    k_exceeds_n : {"nan", "exclude", "error"}, default "nan"
        What to do when a task has fewer than k counted trials: return NaN with a reason,
        leave those tasks out (recorded in ``tasks_excluded``), or raise. k is never lowered.
        A task with no counted trial at all is such a task too.

    Returns
    -------
    PassHatK
        The estimate and everything that was excluded.

    Raises
    ------
    ValueError
        An invalid ``k`` or policy, or a task with fewer than k trials under
        ``k_exceeds_n="error"``.

    Notes
    -----
    ``pass^k = mean_t C(c_t, k) / C(n_t, k)`` with ``n_t`` counted trials and ``c_t``
    successes of task t. Tasks may have unequal ``n_t``; ``trials_min`` and ``trials_max``
    record it.

    References
    ----------
    Yao, S. et al. (2024). tau-bench: A Benchmark for Tool-Agent-User Interaction in
    Real-World Domains. arXiv:2406.12045, section 3 (pass^k).

    Examples
    --------
    >>> counts = count_trials(["1", "1", "2", "2"], [1.0, 0.0, 1.0, 1.0], order=[0, 1, 0, 1])
    >>> pass_hat_k_from_counts(counts, 1).value, pass_hat_k_from_counts(counts, 2).value
    (0.75, 0.5)
    >>> r = pass_hat_k_from_counts(counts, 3)
    >>> r.value, r.reason
    (nan, 'k=3 exceeds the trial count of 2 task(s) (fewest trials: 2); pass^3 is undefined')
    """
    k = _check_k(k)
    _validate.choice("k_exceeds_n", k_exceeds_n, ("nan", "exclude", "error"))
    per_task = pd.DataFrame({"size": counts.n, "sum": counts.c},
                            index=pd.Index(counts.tasks, dtype=object))
    n_infra, n_not_run = counts.n_infrastructure_errors, counts.n_not_run
    n_trials, n_truncated = counts.n_trials, counts.n_trials_truncated
    infrastructure_errors, unequal_trials = counts.infrastructure_errors, counts.unequal_trials
    n_tasks = len(per_task)
    sizes = per_task["size"].to_numpy()
    t_min = int(sizes.min()) if n_tasks else 0
    t_max = int(sizes.max()) if n_tasks else 0
    common: dict[str, Any] = dict(
        n_tasks=n_tasks, n_trials=n_trials, n_infrastructure_errors=n_infra, n_not_run=n_not_run,
        trials_min=t_min, trials_max=t_max, infrastructure_errors=infrastructure_errors,
        k_exceeds_n=k_exceeds_n, unequal_trials=unequal_trials, n_trials_truncated=n_truncated)
    empty = tuple(per_task.index[per_task["size"] == 0])
    # a task with no counted trial (every trial an infrastructure error or never run) has fewer
    # than k trials like any other short task: the k_exceeds_n policy decides, never a silent drop
    short = per_task[per_task["size"] < k]
    if n_tasks == 0 or len(empty) == n_tasks:
        return PassHatK(k, math.nan, n_tasks_used=0, tasks_excluded=empty,
                        reason="no counted trials: pass^k is undefined", **common)
    none_counted = (f", {len(empty)} of them with no counted trial (every trial an "
                    "infrastructure error or not run)" if empty else "")
    if len(short) and k_exceeds_n == "error":
        first = empty[0] if empty else short.index[0]
        raise _validate.ParameterError("k_exceeds_n", "'nan' or 'exclude'", message=(
            _validate.literal(f"k={k} exceeds the trial count of {len(short)} task(s)"
                              f"{none_counted}, e.g. task {first!r} has "
                              f"{int(short.loc[first, 'size'])}")
            + "; pass {k_exceeds_n='nan'} or {k_exceeds_n='exclude'} to decide explicitly"))
    if len(short) and k_exceeds_n == "nan":
        return PassHatK(k, math.nan, n_tasks_used=0, tasks_excluded=(),
                        reason=f"k={k} exceeds the trial count of {len(short)} task(s) (fewest "
                               f"trials: {int(short['size'].min())}{none_counted}); pass^{k} is "
                               "undefined",
                        **common)
    excluded = tuple(empty) + tuple(t for t in short.index if t not in set(empty))
    use = per_task.drop(index=list(excluded))
    if use.empty:
        return PassHatK(k, math.nan, n_tasks_used=0, tasks_excluded=excluded,
                        reason=f"every task has fewer than k={k} trials; pass^{k} is undefined",
                        **common)
    ratios = [math.comb(int(c), k) / math.comb(int(n), k) for n, c in zip(use["size"], use["sum"])]
    reason = ""
    if excluded:
        reason = (f"{len(excluded)} task(s) left out (k_exceeds_n='exclude'): "
                  f"{len(empty)} with no counted trial, {len(excluded) - len(empty)} with fewer "
                  f"than k={k} trials")
    return PassHatK(k, float(np.mean(ratios)), n_tasks_used=len(use), tasks_excluded=excluded,
                    reason=reason, **common)


INTERVAL_METHODS = ("analytic", "percentile", "bca", "basic")


@dataclass(frozen=True)
class PassHatKInterval(FrozenResult):
    """Result of :func:`pass_hat_k_interval_from_counts` (and
    :func:`noisefloor.passk.pass_hat_k_interval`).

    Attributes
    ----------
    k : int
        Trials that must all succeed.
    value : float
        pass^k (as :func:`pass_hat_k_from_counts` returns it).
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
    counts : TaskCounts
        Per-task counted trials and successes of one configuration
        (:func:`count_trials`).
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
        :func:`pass_hat_k_from_counts`).

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
    _validate.choice("method", method, INTERVAL_METHODS)
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
        from scipy import special  # on first use: counting pass^k needs no scipy

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
