"""pass^k: the probability that all k of k i.i.d. trials of a task succeed, averaged over tasks.

Estimator of tau-bench (Yao et al., 2024) and tau2-bench: per task with n trials of which c
succeeded, ``C(c, k) / C(n, k)``, averaged over tasks. A trial succeeds when its reward is
within 1e-6 of 1, so a partial reward is never a success.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from noisefloor.stats import validation as _validate

SUCCESS_TOLERANCE = 1e-6
#: Columns that identify one configuration; pass^k is computed within one of them.
CONFIG_COLUMNS = ("benchmark", "model", "protocol", "seed")


@dataclass(frozen=True)
class PassHatK:
    """Result of :func:`pass_hat_k`.

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

    def to_dict(self) -> dict:
        """Plain-dict view."""
        d = asdict(self)
        d["tasks_excluded"] = list(self.tasks_excluded)
        return d

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame."""
        return pd.DataFrame([self.to_dict()])


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


def _check_one_configuration(trials: pd.DataFrame) -> None:
    for col in CONFIG_COLUMNS:
        if col in trials.columns:
            values = trials[col].dropna().unique()
            if len(values) > 1:
                shown = ", ".join(map(str, sorted(map(str, values))[:5]))
                raise ValueError(
                    f"trials hold {len(values)} values of {col!r} ({shown}); pass^k is computed "
                    "within one configuration: filter the trials first, or use pass_hat_k_table"
                )


def _truncate(kept: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Each task's first m counted trials (in ``order``), m the fewest any task has (> 0)."""
    sizes = kept.groupby("task_id", sort=False)["success"].transform("size")
    m = int(sizes.min()) if len(sizes) else 0
    rank = kept.sort_values("order", kind="stable").groupby("task_id", sort=False).cumcount()
    keep = rank.reindex(kept.index) < m
    return kept[keep], int((~keep).sum())


def _counts(trials: pd.DataFrame, infrastructure_errors: str, unequal_trials: str = "allow"):
    for col in ("task_id", "reward"):
        if col not in trials.columns:
            raise ValueError(f"trials must have a {col!r} column; columns are {list(trials.columns)}")
    if "trial" in trials.columns:
        dup = trials.duplicated(["task_id", "trial"], keep=False)
        if dup.any():
            first = trials.loc[dup, ["task_id", "trial"]].iloc[0]
            raise ValueError(
                f"duplicate trial: task {first['task_id']!r} trial {first['trial']} appears more "
                "than once; pass^k would double count it"
            )
    reward = trials["reward"].astype(float).to_numpy()
    infra = (
        trials["infrastructure_error"].fillna(False).astype(bool).to_numpy()
        if "infrastructure_error" in trials.columns
        else np.zeros(len(trials), dtype=bool)
    )
    not_run = np.isnan(reward) & ~infra
    if infrastructure_errors == "exclude":
        keep = ~infra & ~not_run
    else:  # "fail": an infrastructure error counts as a failed trial
        keep = ~not_run
    success = is_success(reward) & ~infra
    order = (trials["trial"].to_numpy() if "trial" in trials.columns
             else np.arange(len(trials)))
    frame = pd.DataFrame({"task_id": trials["task_id"].astype(str).to_numpy(),
                          "success": success, "keep": keep, "order": order})
    all_tasks = pd.unique(frame["task_id"])
    kept = frame[frame["keep"]]
    n_truncated = 0
    if len(kept):
        sizes = kept.groupby("task_id", sort=False).size()
        if sizes.min() != sizes.max():
            if unequal_trials == "error":
                raise _validate.ParameterError("unequal_trials", "'allow' or 'truncate'", message=(
                    _validate.literal(
                        f"tasks have unequal numbers of counted trials ({int(sizes.min())} to "
                        f"{int(sizes.max())}; e.g. task {sizes.idxmin()!r} has "
                        f"{int(sizes.min())}); ")
                    + "pass {unequal_trials='allow'} (per-task n, the tau-bench estimator) or "
                    "{unequal_trials='truncate'} (every task's first m trials) to decide"))
            if unequal_trials == "truncate":
                kept, n_truncated = _truncate(kept)
    per_task = kept.groupby("task_id", sort=False)["success"].agg(["size", "sum"])
    per_task = per_task.reindex(all_tasks, fill_value=0)
    n_infra = int(infra.sum())  # reported under either policy; the policy says how they counted
    return per_task, n_infra, int(not_run.sum()), int(keep.sum()) - n_truncated, n_truncated


def pass_hat_k(
    trials: pd.DataFrame,
    k: int = 1,
    *,
    infrastructure_errors: str = "exclude",
    k_exceeds_n: str = "nan",
    unequal_trials: str = "allow",
) -> PassHatK:
    """pass^k of one configuration from its trial records.

    Parameters
    ----------
    trials : pandas.DataFrame, shape (n_trials, ...)
        One row per trial with at least ``task_id`` and ``reward`` (float, NaN when the trial
        never ran); ``trial`` and ``infrastructure_error`` are used when present. All rows must
        belong to one configuration (one benchmark, model, protocol and seed).
    k : int, default 1
        Number of trials that must all succeed, >= 1.
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        ``"exclude"`` drops infrastructure-error trials before counting (tau2-bench); ``"fail"``
        counts them as failures. Either way the number is recorded.
    k_exceeds_n : {"nan", "exclude", "error"}, default "nan"
        What to do when a task has fewer than k counted trials: return NaN with a reason,
        leave those tasks out (recorded in ``tasks_excluded``), or raise. k is never lowered.
        A task with no counted trial at all (every trial an infrastructure error under
        ``"exclude"``, or never run) is such a task too.
    unequal_trials : {"allow", "truncate", "error"}, default "allow"
        What to do when tasks have different numbers of counted trials (after the exclusions
        above): ``"allow"`` uses each task's own n (the tau-bench estimator; ``trials_min`` and
        ``trials_max`` record the spread), ``"truncate"`` keeps every task's first m counted
        trials by ``trial`` index, m the fewest any task has (dropped trials counted in
        ``n_trials_truncated``), ``"error"`` raises.

    Returns
    -------
    PassHatK
        The estimate and everything that was excluded.

    Raises
    ------
    ValueError
        On a missing column, several configurations, a duplicate (task, trial), an invalid
        policy, a task with fewer than k trials under ``k_exceeds_n="error"``, or unequal
        trial counts under ``unequal_trials="error"``.

    Notes
    -----
    ``pass^k = mean_t C(c_t, k) / C(n_t, k)`` with ``n_t`` counted trials and ``c_t``
    successes of task t (success: ``|reward - 1| <= 1e-6``). Tasks may have unequal ``n_t``;
    ``trials_min`` and ``trials_max`` record it.

    References
    ----------
    Yao, S. et al. (2024). tau-bench: A Benchmark for Tool-Agent-User Interaction in
    Real-World Domains. arXiv:2406.12045, section 3 (pass^k).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"task_id": ["1", "1", "2", "2"], "trial": [0, 1, 0, 1],
    ...                   "reward": [1.0, 0.0, 1.0, 1.0]})
    >>> pass_hat_k(t, 1).value, pass_hat_k(t, 2).value
    (0.75, 0.5)
    >>> r = pass_hat_k(t, 3)
    >>> r.value, r.reason
    (nan, 'k=3 exceeds the trial count of 2 task(s) (fewest trials: 2); pass^3 is undefined')
    """
    if not isinstance(trials, pd.DataFrame):
        raise TypeError(f"trials must be a pandas DataFrame, got {type(trials).__name__}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    k = int(k)
    _validate.choice("infrastructure_errors", infrastructure_errors, ("exclude", "fail"))
    _validate.choice("k_exceeds_n", k_exceeds_n, ("nan", "exclude", "error"))
    _validate.choice("unequal_trials", unequal_trials, ("allow", "truncate", "error"))
    _check_one_configuration(trials)
    per_task, n_infra, n_not_run, n_trials, n_truncated = _counts(
        trials, infrastructure_errors, unequal_trials)
    n_tasks = len(per_task)
    sizes = per_task["size"].to_numpy()
    t_min = int(sizes.min()) if n_tasks else 0
    t_max = int(sizes.max()) if n_tasks else 0
    common = dict(n_tasks=n_tasks, n_trials=n_trials, n_infrastructure_errors=n_infra,
                  n_not_run=n_not_run, trials_min=t_min, trials_max=t_max,
                  infrastructure_errors=infrastructure_errors, k_exceeds_n=k_exceeds_n,
                  unequal_trials=unequal_trials, n_trials_truncated=n_truncated)
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


def pass_hat_k_table(
    trials: pd.DataFrame,
    ks: Iterable[int] = (1,),
    *,
    by: Sequence[str] = CONFIG_COLUMNS,
    infrastructure_errors: str = "exclude",
    k_exceeds_n: str = "nan",
    unequal_trials: str = "allow",
) -> pd.DataFrame:
    """pass^k for every configuration in ``trials`` and every k in ``ks``.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records (see :func:`pass_hat_k`), possibly of several configurations.
    ks : iterable of int, default (1,)
        Values of k.
    by : sequence of str, default ("benchmark", "model", "protocol", "seed")
        Columns that identify a configuration; those absent from ``trials`` are ignored.
    infrastructure_errors, k_exceeds_n, unequal_trials : str
        Passed to :func:`pass_hat_k`.

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, k): the ``by`` columns, then every field of
        :class:`PassHatK` (``tasks_excluded`` as a list).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": ["a", "a", "b", "b"], "task_id": ["1", "1", "1", "1"],
    ...                   "trial": [0, 1, 0, 1], "reward": [1.0, 0.0, 1.0, 1.0]})
    >>> pass_hat_k_table(t, [1, 2])[["protocol", "k", "value"]].values.tolist()
    [['a', 1, 0.5], ['a', 2, 0.0], ['b', 1, 1.0], ['b', 2, 1.0]]
    """
    ks = [int(k) for k in ks]
    keys = [c for c in by if c in trials.columns]
    rows = []
    groups = trials.groupby(keys, sort=True, dropna=False) if keys else [((), trials)]
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        for k in ks:
            r = pass_hat_k(group, k, infrastructure_errors=infrastructure_errors,
                           k_exceeds_n=k_exceeds_n, unequal_trials=unequal_trials)
            rows.append({**dict(zip(keys, key)), **r.to_dict()})
    return pd.DataFrame(rows)


def default_max_k(
    trials: pd.DataFrame,
    *,
    by: Sequence[str] = CONFIG_COLUMNS,
    infrastructure_errors: str = "exclude",
    unequal_trials: str = "allow",
) -> int:
    """The largest k worth reporting: the most counted trials any task of any configuration has.

    Counted as :func:`pass_hat_k` counts them (``trials_max`` of its result): infrastructure
    errors dropped or kept by ``infrastructure_errors``, never-run trials dropped, and
    ``unequal_trials="truncate"`` applied. ``noisefloor passk`` reports k = 1 up to this.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records, possibly of several configurations (see :func:`pass_hat_k_table`).
    by : sequence of str, default ("benchmark", "model", "protocol", "seed")
        Columns that identify a configuration.
    infrastructure_errors, unequal_trials : str
        As for :func:`pass_hat_k` (``unequal_trials="error"`` counts like ``"allow"`` here).

    Returns
    -------
    int
        At least 1 (also when no trial is counted: pass^1 is then NaN with its reason).

    Examples
    --------
    Task 1 has three trials, but one was an infrastructure error:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"task_id": ["1", "1", "1", "2", "2"], "trial": [0, 1, 2, 0, 1],
    ...                   "reward": [1.0, None, 0.0, 1.0, 1.0],
    ...                   "infrastructure_error": [False, True, False, False, False]})
    >>> default_max_k(t), default_max_k(t, infrastructure_errors="fail")
    (2, 3)
    """
    policy = "allow" if unequal_trials == "error" else unequal_trials
    table = pass_hat_k_table(trials, [1], by=by, infrastructure_errors=infrastructure_errors,
                             unequal_trials=policy)
    most = int(table["trials_max"].max()) if len(table) else 0
    return max(1, most)
