"""pass^k and pass@k of trial logs: the columns of a trial frame read into per-task counts.

A trial frame (:func:`noisefloor.logs.load_trials`) holds one row per trial; this module reads
its ``task_id``, ``trial``, ``reward`` and ``infrastructure_error`` columns, checks that the rows
are one configuration (:data:`CONFIG_COLUMNS`), and hands arrays to the estimators of
:mod:`noisefloor.stats.passk` and :mod:`noisefloor.stats.passat`, which count and estimate.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from noisefloor.stats import validation as _validate
from noisefloor.stats.passat import PassAtK, pass_at_k_from_counts
from noisefloor.stats.passk import (
    PassHatK,
    PassHatKInterval,
    TaskCounts,
    count_trials,
    is_success,
    pass_hat_k_from_counts,
    pass_hat_k_interval_from_counts,
)

__all__ = ["CONFIG_COLUMNS", "default_max_k", "pass_at_k", "pass_at_k_table", "pass_hat_k",
           "pass_hat_k_interval", "pass_hat_k_table", "per_task_success_share", "task_counts"]

#: Columns that identify one configuration; pass^k is computed within one of them.
CONFIG_COLUMNS = ("benchmark", "model", "protocol", "seed")


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


def task_counts(trials: pd.DataFrame, *, infrastructure_errors: str = "exclude",
                unequal_trials: str = "allow") -> TaskCounts:
    """Per-task counted trials and successes of one configuration's trial records.

    Parameters
    ----------
    trials : pandas.DataFrame, shape (n_trials, ...)
        One row per trial with at least ``task_id`` and ``reward`` (NaN when the trial never
        ran); ``trial`` and ``infrastructure_error`` are used when present. All rows must belong
        to one configuration (one benchmark, model, protocol and seed).
    infrastructure_errors, unequal_trials : str
        As in :func:`noisefloor.stats.passk.count_trials`.

    Returns
    -------
    noisefloor.stats.passk.TaskCounts

    Raises
    ------
    TypeError
        ``trials`` is not a DataFrame.
    ValueError
        A missing column, several configurations, a duplicate (task, trial), or what
        :func:`~noisefloor.stats.passk.count_trials` raises.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"task_id": ["1", "1", "2"], "trial": [0, 1, 0],
    ...                   "reward": [1.0, 0.0, 1.0]})
    >>> c = task_counts(t)
    >>> c.tasks, c.n.tolist(), c.c.tolist()
    (('1', '2'), [2, 1], [1, 1])
    """
    if not isinstance(trials, pd.DataFrame):
        raise TypeError(f"trials must be a pandas DataFrame, got {type(trials).__name__}")
    for col in ("task_id", "reward"):
        if col not in trials.columns:
            raise ValueError(f"trials must have a {col!r} column; columns are {list(trials.columns)}")
    _check_one_configuration(trials)
    infra = (trials["infrastructure_error"].fillna(False).astype(bool).to_numpy()
             if "infrastructure_error" in trials.columns else None)
    order = trials["trial"].to_numpy() if "trial" in trials.columns else None
    return count_trials(trials["task_id"].astype(str).to_numpy(),
                        trials["reward"].astype(float).to_numpy(), infra, order,
                        infrastructure_errors=infrastructure_errors,
                        unequal_trials=unequal_trials)


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
    successes of task t (success: ``|reward - 1| <= 1e-6``), counted by
    :func:`noisefloor.stats.passk.count_trials` and estimated by
    :func:`noisefloor.stats.passk.pass_hat_k_from_counts`. Tasks may have unequal ``n_t``;
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
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    _validate.choice("k_exceeds_n", k_exceeds_n, ("nan", "exclude", "error"))
    counts = task_counts(trials, infrastructure_errors=infrastructure_errors,
                         unequal_trials=unequal_trials)
    return pass_hat_k_from_counts(counts, k, k_exceeds_n=k_exceeds_n)


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
        :class:`~noisefloor.stats.passk.PassHatK` (``tasks_excluded`` as a list).

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


def pass_at_k(
    trials: pd.DataFrame,
    k: int = 1,
    *,
    confidence: float = 0.95,
    infrastructure_errors: str = "exclude",
    k_exceeds_n: str = "nan",
    unequal_trials: str = "allow",
) -> PassAtK:
    """pass@k of one configuration from its trial records, with an interval over tasks.

    Parameters
    ----------
    trials : pandas.DataFrame, shape (n_trials, ...)
        One row per trial: ``task_id``, ``reward`` (NaN when the trial never ran), and
        ``trial`` and ``infrastructure_error`` when present; one configuration.
    k : int, default 1
        Attempts drawn, >= 1.
    confidence : float, default 0.95
        Level of the interval, in (0, 1).
    infrastructure_errors, k_exceeds_n, unequal_trials : str
        As in :func:`pass_hat_k`, which decides the counts and when the value is undefined (a
        task with fewer than k counted trials).

    Returns
    -------
    noisefloor.stats.passat.PassAtK

    Raises
    ------
    ValueError
        As :func:`pass_hat_k` raises, or a bad ``confidence``.

    Notes
    -----
    The trials are counted by :func:`task_counts`; the estimator (Chen et al. 2021) and its
    interval over tasks (Miller 2024) are :func:`noisefloor.stats.passat.pass_at_k_from_counts`.

    References
    ----------
    Chen, M. et al. (2021). Evaluating Large Language Models Trained on Code.
    arXiv:2107.03374.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"task_id": ["1", "1", "2", "2"], "trial": [0, 1, 0, 1],
    ...                   "reward": [1.0, 0.0, 0.0, 0.0]})
    >>> pass_at_k(t, 1).value, pass_at_k(t, 2).value
    (0.25, 0.5)
    """
    counts = task_counts(trials, infrastructure_errors=infrastructure_errors,
                         unequal_trials=unequal_trials)
    return pass_at_k_from_counts(counts, k, confidence=confidence, k_exceeds_n=k_exceeds_n)


def pass_at_k_table(
    trials: pd.DataFrame,
    ks: Iterable[int] = (1,),
    *,
    by: Sequence[str] = CONFIG_COLUMNS,
    confidence: float = 0.95,
    infrastructure_errors: str = "exclude",
    k_exceeds_n: str = "nan",
    unequal_trials: str = "allow",
) -> pd.DataFrame:
    """pass@k for every configuration in ``trials`` and every k in ``ks``.

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, k): the ``by`` columns present, then every field of
        :class:`~noisefloor.stats.passat.PassAtK`, in the order :func:`pass_hat_k_table` uses.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": ["a", "a", "b", "b"], "task_id": ["1", "1", "1", "1"],
    ...                   "trial": [0, 1, 0, 1], "reward": [1.0, 0.0, 0.0, 0.0]})
    >>> pass_at_k_table(t, [1, 2])[["protocol", "k", "value"]].values.tolist()
    [['a', 1, 0.5], ['a', 2, 1.0], ['b', 1, 0.0], ['b', 2, 0.0]]
    """
    keys = [c for c in by if c in trials.columns]
    rows = []
    groups = trials.groupby(keys, sort=True, dropna=False) if keys else [((), trials)]
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        for k in ks:
            r = pass_at_k(group, int(k), confidence=confidence,
                          infrastructure_errors=infrastructure_errors, k_exceeds_n=k_exceeds_n,
                          unequal_trials=unequal_trials)
            rows.append({**dict(zip(keys, key)), **r.to_dict()})
    return pd.DataFrame(rows)


def per_task_success_share(trials: pd.DataFrame) -> pd.Series:
    """Each task's share of successful trials over every record given (all arms, all seeds).

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records with ``task_id`` and ``reward`` (``infrastructure_error`` rows, when the
        column exists, and rows without a reward are left out).

    Returns
    -------
    pandas.Series
        Indexed by ``task_id``: the estimate of ``p_t`` that
        :func:`noisefloor.stats.snr.simulate_reruns` takes.

    Raises
    ------
    ValueError
        If a column is missing or no trial has a reward.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"task_id": list("aab"), "reward": [1.0, 0.0, 1.0]})
    >>> per_task_success_share(t).tolist()
    [0.5, 1.0]
    """
    for col in ("task_id", "reward"):
        if col not in trials.columns:
            raise ValueError(f"trials lacks column {col!r}; expected task_id and reward")
    kept = trials[trials["reward"].notna()]
    if "infrastructure_error" in kept.columns:
        kept = kept[~kept["infrastructure_error"].astype(bool)]
    if kept.empty:
        raise ValueError("no trial with a reward: no per-task success share to simulate from")
    ok = pd.Series(is_success(kept["reward"]), index=kept.index)
    return ok.groupby(kept["task_id"].astype(str)).mean().rename("success_share")


def pass_hat_k_interval(trials: pd.DataFrame, k: int = 1, *, confidence: float = 0.95,
                        method: str = "analytic", n_boot: int = 2000, rng=None,
                        infrastructure_errors: str = "exclude",
                        k_exceeds_n: str = "nan") -> PassHatKInterval:
    """pass^k of one configuration's trial records with a standard error and an interval.

    Parameters
    ----------
    trials : pandas.DataFrame, shape (n_trials, ...)
        Trial records of one configuration, as :func:`pass_hat_k` takes them.
    k : int, default 1
        Trials that must all succeed, >= 1.
    confidence, method, n_boot, rng, k_exceeds_n
        As in :func:`noisefloor.stats.passk.pass_hat_k_interval_from_counts`
        (``method``: ``"analytic"``, the CLT over tasks, or a bootstrap over tasks).
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        As in :func:`pass_hat_k`.

    Returns
    -------
    noisefloor.stats.passk.PassHatKInterval

    Raises
    ------
    ValueError
        What :func:`task_counts` raises for the trials, or an invalid option.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"task_id": [str(i // 2) for i in range(8)], "trial": [0, 1] * 4,
    ...                   "reward": [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]})
    >>> r = pass_hat_k_interval(t, 1)
    >>> r.value, round(r.se, 4)
    (0.625, 0.2394)
    """
    counts = task_counts(trials, infrastructure_errors=infrastructure_errors)
    return pass_hat_k_interval_from_counts(counts, k, confidence=confidence, method=method,
                                           n_boot=n_boot, rng=rng, k_exceeds_n=k_exceeds_n)
