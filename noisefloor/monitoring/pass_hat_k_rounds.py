"""Coordination-active pass^k of a golden-task set, round by round, from a trial stream.

:func:`coordination_active_pass_hat_k_rounds` reads trials in time order, keeps the
coordination-active ones (``store_events_at_start > 0``: the store holds peer events when the
trial starts), cuts them into rounds over the golden tasks and computes pass^k of each round;
these values are what alarm R1 (:func:`noisefloor.stats.monitor.cusum.tabular_cusum`) watches.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.monitoring.time_order import require_trial_frame
from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.passk import count_trials, per_task_pass_hat_k

__all__ = ["TRIAL_COLUMNS", "PassHatKRounds", "coordination_active_pass_hat_k_rounds"]

#: Columns of the trial frame the rounds are built from.
TRIAL_COLUMNS = ("task_id", "reward", "infrastructure_error", "store_events_at_start")

#: Reasons a row is left out of the rounds, in the order they are applied.
EXCLUSION_REASONS = ("infrastructure_error", "reward_null", "store_unknown", "store_empty",
                     "not_golden")


@dataclass(frozen=True)
class PassHatKRounds(FrozenResult):
    """Coordination-active pass^k of a golden-task set, one value per round.

    Coordination-active here means ``store_events_at_start > 0``: the store held peer events
    when the trial started.

    Attributes
    ----------
    k : int
        The k of pass^k.
    trials_per_round : int
        n, the coordination-active trials of each task in one round.
    tasks : tuple of str
        The golden tasks (sorted).
    values : tuple of float
        Mean over the golden tasks of ``C(c, k) / C(n, k)`` in each round, in round order.
    rows : tuple
        Label of the row that completed each round (the latest of its trials in time order).
    policy : str
        How rounds are formed: ``"latest"`` or ``"blocks"`` (see
        :func:`coordination_active_pass_hat_k_rounds`).
    n_pending : int
        Coordination-active golden trials after the last complete round, waiting for the next.
    n_skipped : int
        Coordination-active golden trials passed over because a newer trial of the same task
        entered the round (policy ``"latest"`` only; 0 for ``"blocks"``).
    excluded : dict of str to int
        Rows left out, by reason: ``infrastructure_error``, ``reward_null``,
        ``store_unknown`` (``store_events_at_start`` null), ``store_empty`` (0 events, not
        coordination-active), ``not_golden``.
    reason : str
        Why there is no round, if there is none; empty otherwise.
    """

    k: int
    trials_per_round: int
    tasks: tuple[str, ...]
    values: tuple[float, ...]
    rows: tuple[Any, ...]
    policy: str
    n_pending: int
    n_skipped: int
    excluded: dict[str, int] = field(default_factory=dict)
    reason: str = ""

    # hand-written: one row per round from the parallel tuples
    def to_frame(self) -> pd.DataFrame:
        """One row per round: ``round, pass_hat_k, row``."""
        return pd.DataFrame(
            {"round": np.arange(len(self.values)), "pass_hat_k": self.values, "row": self.rows}
        )


def coordination_active_pass_hat_k_rounds(
    frame: pd.DataFrame,
    *,
    k: int = 1,
    trials_per_round: int = 1,
    tasks: Iterable[str] | None = None,
    infrastructure_errors: str = "exclude",
    rounds: str = "latest",
) -> PassHatKRounds:
    """Split a time-ordered trial stream into rounds and compute pass^k of each.

    Parameters
    ----------
    frame : pandas.DataFrame
        Trials in time order (see :func:`order_trials`) with columns ``task_id``, ``reward``,
        ``infrastructure_error``, ``store_events_at_start``.
    k : int, default 1
        The k of pass^k, 1 <= k <= ``trials_per_round``.
    trials_per_round : int, default 1
        n: coordination-active trials of each golden task per round. The paper's design runs
        trial 0 (store empty) and trial 1 (store holds peer events) per task, so a round is one
        coordination-active trial per task and pass^1 its success rate.
    tasks : iterable of str or None
        The golden-task set; ``None`` takes every task with a coordination-active trial.
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Leave trials with ``infrastructure_error`` out (counted in ``excluded``), or count
        them as failures.
    rounds : {"latest", "blocks"}, default "latest"
        How a task's trials enter rounds when tasks become coordination-active at different
        times (see Notes).

    Returns
    -------
    PassHatKRounds
        ``k, trials_per_round, tasks, values, rows, policy, n_pending, n_skipped, excluded,
        reason``.

    Raises
    ------
    TypeError, ValueError
        For a missing column, ``k`` outside ``1..trials_per_round``, or an empty task set.

    Notes
    -----
    A trial is coordination-active when ``store_events_at_start > 0``; success is a reward
    within 1e-6 of 1 (as in tau-bench, Yao et al. 2024). Trials are read in time order; a round
    completes at the first trial after which every golden task has at least n
    coordination-active trials not yet used. With ``"latest"`` the round takes each task's n
    most recent such trials and the older ones are passed over (counted in ``n_skipped``), so a
    round always describes the recent past even when one task becomes coordination-active late;
    with ``"blocks"`` each task's trials are cut into consecutive blocks of n and round r is the
    r-th block of every task (nothing is passed over, but rounds lag behind a task that is
    active often). In the paper's design (per round, one trial 0 with an empty store and one
    coordination-active trial 1 per task) both agree. A round's value is the tau-bench estimator
    averaged over tasks, ``mean_t C(c_t, k) / C(n, k)`` with ``c_t`` the successes of task t in
    the round (Yao et al. 2024), computed by :func:`noisefloor.passk.pass_hat_k`; its
    ``row`` is the trial that completed it.

    References
    ----------
    Yao, S. et al. (2024). tau-bench: A benchmark for tool-agent-user interaction in
    real-world domains. arXiv:2406.12045.

    Examples
    --------
    >>> df = pd.DataFrame({"task_id": ["a", "b", "a", "b"], "reward": [1.0, 0.0, 1.0, 1.0],
    ...                    "infrastructure_error": False, "store_events_at_start": [2, 1, 3, 2]})
    >>> coordination_active_pass_hat_k_rounds(df).values
    (0.5, 1.0)
    """
    require_trial_frame(frame, "frame", TRIAL_COLUMNS)
    n = _positive_int("trials_per_round", trials_per_round)
    kk = _positive_int("k", k)
    if kk > n:
        raise ValueError(f"k must be at most trials_per_round ({n}), got {k!r}")
    policy = _validate.choice("infrastructure_errors", infrastructure_errors, ("exclude", "fail"))
    how = _validate.choice("rounds", rounds, ("latest", "blocks"))

    infra = frame["infrastructure_error"].astype(bool).to_numpy()
    reward = pd.to_numeric(frame["reward"], errors="raise").to_numpy(dtype=float)
    keep, excluded = _coordination_active(frame, infra, reward, policy)
    task_ids = frame["task_id"].astype(str).to_numpy()
    golden = _golden_tasks(tasks, task_ids[keep])
    is_golden = np.isin(task_ids, golden)
    excluded["not_golden"] = int((keep & ~is_golden).sum())
    keep &= is_golden

    blocks, n_pending, ever, skipped = _cut_rounds(task_ids, np.flatnonzero(keep), golden, n,
                                                   how)
    n_rounds, n_golden = blocks.shape[:2]
    # every (round, task) cell is one "task" of the counting: n trials each, none short of k
    flat = blocks.reshape(-1)
    cell = np.repeat(np.arange(n_rounds * n_golden), n)
    counts = count_trials(cell, reward[flat], infra[flat], infrastructure_errors=policy)
    per_cell = per_task_pass_hat_k(counts, kk).reshape(n_rounds, n_golden)
    values = [float(np.mean(row)) for row in per_cell]  # the average of pass_hat_k, task order
    rows = list(frame.index[blocks.reshape(n_rounds, -1).max(axis=1)]) if n_rounds else []
    reason = "" if n_rounds else _no_round_reason(golden, ever, n, excluded)
    return PassHatKRounds(
        k=kk,
        trials_per_round=n,
        tasks=tuple(golden),
        values=tuple(values),
        rows=tuple(rows),
        policy=how,
        n_pending=n_pending,
        n_skipped=int(skipped),
        excluded=excluded,
        reason=reason,
    )


def _positive_int(name: str, value: object) -> int:
    v = _validate.count(name, value)
    if v < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return v


def _coordination_active(
    frame: pd.DataFrame, infra: np.ndarray, reward: np.ndarray, policy: str
) -> tuple[np.ndarray, dict[str, int]]:
    """Rows that are usable and coordination-active, and the count left out for each reason.

    A row is left out, in this order, for an infrastructure error (policy ``"exclude"``), a
    null reward (an infrastructure error counted as a failure keeps its row), an unknown store
    (``store_events_at_start`` null) or an empty store (0 events: not coordination-active).
    """
    events = frame["store_events_at_start"]
    unknown = events.isna().to_numpy()
    active = np.zeros(len(frame), dtype=bool)
    active[~unknown] = events[~unknown].to_numpy(dtype=np.int64) > 0
    excluded = dict.fromkeys(EXCLUSION_REASONS, 0)
    keep = np.ones(len(frame), dtype=bool)
    if policy == "exclude":
        excluded["infrastructure_error"] = int(infra.sum())
        keep &= ~infra
    null_reward = np.isnan(reward) & ~(infra & (policy == "fail"))
    excluded["reward_null"] = int((keep & null_reward).sum())
    keep &= ~null_reward
    excluded["store_unknown"] = int((keep & unknown).sum())
    keep &= ~unknown
    excluded["store_empty"] = int((keep & ~active).sum())
    keep &= active
    return keep, excluded


def _golden_tasks(tasks: Iterable[str] | None, active_task_ids: np.ndarray) -> list[str]:
    """The golden-task set, sorted: ``tasks`` as given, or every coordination-active task."""
    if tasks is None:
        return sorted(set(active_task_ids.tolist()))
    if isinstance(tasks, str):
        raise TypeError("tasks must be an iterable of task ids, not a single string")
    golden = sorted({str(t) for t in tasks})
    if not golden:
        raise ValueError("tasks must name at least one golden task")
    return golden


def _cut_rounds(
    task_ids: np.ndarray, positions: np.ndarray, golden: list[str], n: int, how: str
) -> tuple[np.ndarray, int, dict[str, int], int]:
    """Cut the kept rows (``positions``, in time order) into rounds of n trials per task.

    Returns the rounds as row positions, shape (rounds, golden tasks, n) in golden-task order
    and time order within a task; the number of kept trials still pending after the last round;
    the number of kept trials of each task; and the number passed over (``"latest"``).

    A task's kept trials are one sorted run of ``by_task``. With ``"blocks"`` round r is every
    task's r-th block of n. With ``"latest"`` a round that starts after the row at position s
    completes at the row e holding the n-th trial after s of the task that needs longest; it
    takes each task's n latest trials up to e, the older ones since s are passed over.
    """
    n_golden = len(golden)
    code = pd.Index(golden).get_indexer(task_ids[positions])
    by_task = positions[np.argsort(code, kind="stable")]  # per task, in time order
    lens = np.bincount(code, minlength=n_golden).astype(np.int64)
    start = np.cumsum(lens) - lens
    ever = dict(zip(golden, lens.tolist()))
    ends: list[np.ndarray] = []  # per round, each task's used trials up to the round's end
    skipped = 0
    if n_golden and lens.min() >= n:
        if how == "blocks":
            ends = [np.full(n_golden, (r + 1) * n) for r in range(int(lens.min()) // n)]
        else:
            span = len(task_ids) + 1  # task-major keys: one sorted array for all tasks
            keyed = np.repeat(np.arange(n_golden), lens) * span + by_task
            used = np.zeros(n_golden, dtype=np.int64)
            while (used + n <= lens).all():
                last = int(by_task[start + used + n - 1].max())  # the row completing the round
                upto = np.searchsorted(keyed, np.arange(n_golden) * span + last, side="right")
                upto -= start
                skipped += int((upto - used - n).sum())
                ends.append(upto)
                used = upto
    used_all = ends[-1] if ends else np.zeros(n_golden, dtype=np.int64)
    pending = int((lens - used_all).sum())
    if not ends:
        return np.empty((0, n_golden, n), dtype=np.int64), pending, ever, skipped
    take = start[None, :, None] + np.array(ends)[:, :, None] - n + np.arange(n)
    return by_task[take], pending, ever, skipped


def _no_round_reason(golden: list[str], ever: dict[str, int], n: int,
                     excluded: dict[str, int]) -> str:
    """Why no round completed: no coordination-active trial, or tasks short of n trials."""
    left = ", ".join(f"{count} {why}" for why, count in excluded.items() if count)
    if not golden:
        reason = "no coordination-active trial (store_events_at_start > 0) in the frame"
        if left:  # say why: an all-infrastructure-error log is not an empty store
            reason += f" once these are left out: {left}"
        return reason
    if all(ever[t] == 0 for t in golden):
        shown = ", ".join(map(repr, golden[:3])) + (", ..." if len(golden) > 3 else "")
        return (
            f"no complete round: none of the {len(golden)} golden task(s) ({shown}) has a "
            "usable coordination-active trial" + (f"; left out: {left}" if left else "")
        )
    short = [t for t in golden if ever[t] < n]
    return (
        f"no complete round: {len(short)} golden task(s) have fewer than {n} "
        f"coordination-active trial(s), e.g. {short[0]!r} has {ever[short[0]]}"
    )
