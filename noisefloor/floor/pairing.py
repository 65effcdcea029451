"""Vectorised pairing of trial records: one array per (arm, trial) over the tasks of a group.

:func:`encode_groups` turns a trial DataFrame into :class:`Group` objects (one per benchmark,
model and seed), each holding a :class:`Slot` per (arm, trial): the outcome, the store and
injection counts and the first-request hash of every task of the group, aligned on one task
index, so that pairing two arms is elementwise NumPy (:func:`pair_counts`) instead of a join per
pair. :func:`paired_contrast` is the same pairing for one contrast ``a-b`` of a trial frame,
with the task lists it could not pair. The outcome is
:func:`noisefloor.stats.passk.trial_outcomes`: success is a reward within 1e-6 of 1, a trial
without reward is undefined, and so is an infrastructure error when
``infrastructure_errors == "exclude"`` (with ``"fail"`` it counts as a failure).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.paired import Slot, pair_counts, sign_test  # the one pairing's counts
from noisefloor.stats.passk import trial_outcomes

__all__ = ["PAIRING_COLUMNS", "Contrast", "Group", "Slot", "encode_groups", "pair_counts",
           "paired_contrast"]


@dataclass(frozen=True)
class Group:
    """The slots of one (benchmark, model, seed).

    Attributes
    ----------
    key : tuple of str
        ``(benchmark, model)`` values (as present in the frame; empty when absent).
    seed : int or None
        The seed (None when not logged).
    slots : dict
        ``(arm, trial) -> Slot``.
    tasks : tuple of str
        The ``task_id`` of each position of the slots' arrays.
    """

    key: tuple
    seed: int | None
    slots: dict = field(repr=False)
    tasks: tuple = field(default=(), repr=False)

    @property
    def arms(self) -> list[str]:
        """Arm names, sorted."""
        return sorted({arm for arm, _ in self.slots})

    def trials(self, arm: str) -> list[int]:
        """Trials of ``arm``, sorted."""
        return sorted(t for a, t in self.slots if a == arm)


def _float_column(trials: pd.DataFrame, name: str) -> np.ndarray:
    if name not in trials.columns:
        return np.full(len(trials), np.nan)
    return pd.to_numeric(trials[name], errors="coerce").astype("Float64").to_numpy(
        dtype=float, na_value=np.nan)


def _as_text(values: pd.Series) -> pd.Series:
    """Strings as they are (no per-element conversion of a string column), anything else as
    str."""
    return values if pd.api.types.is_string_dtype(values.dtype) else values.astype(str)


def _codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """``argsort(keys, kind="stable")``; small non-negative keys go through a 16-bit copy, for
    which NumPy's stable sort is a radix sort (linear time)."""
    if keys.size and keys.min() >= 0 and keys.max() < 2**16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    return np.argsort(keys, kind="stable")


def encode_groups(trials: pd.DataFrame, arms: pd.Series,
                  infrastructure_errors: str = "exclude") -> list[Group]:
    """The trial records as :class:`Group` objects, ordered by benchmark, model, then seed
    (a missing seed first).

    Parameters
    ----------
    trials : pandas.DataFrame
        ``task_id, trial, reward`` and optionally ``benchmark, model, seed,
        infrastructure_error, store_events_at_start, injections, first_request_sha256``.
    arms : pandas.Series of str
        The arm of each record (e.g. :func:`noisefloor.floor.nulls.arm_labels`).
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Whether an infrastructure error is undefined (left out) or a failure.

    Raises
    ------
    ValueError
        If a task appears more than once in one arm at one trial (within one group).
    """
    n = len(trials)
    reward = trials["reward"].astype(float).to_numpy()
    infra = (trials["infrastructure_error"].fillna(False).astype(bool).to_numpy()
             if "infrastructure_error" in trials.columns else np.zeros(n, dtype=bool))
    outcome = trial_outcomes(reward, infra, infrastructure_errors)
    store = _float_column(trials, "store_events_at_start")
    injections = _float_column(trials, "injections")
    sha = (_codes(trials["first_request_sha256"])[0] if "first_request_sha256" in trials.columns
           else np.full(n, -1, dtype=np.int64))
    task_code, task_names = _codes(_as_text(trials["task_id"]))
    arm_code, arm_names = _codes(_as_text(arms))
    trial = trials["trial"].astype(np.int64).to_numpy()

    key_cols = [c for c in ("benchmark", "model") if c in trials.columns]
    parts = [pd.factorize(trials[c], use_na_sentinel=False) for c in key_cols]
    seeds = (trials["seed"] if "seed" in trials.columns
             else pd.Series(pd.array([None] * n, dtype="Int64")))
    seed_codes, seed_uniques = pd.factorize(seeds, use_na_sentinel=False)
    combined: npt.NDArray[np.signedinteger[Any]] = np.zeros(n, dtype=np.int64)
    for codes, uniques in parts:
        combined = combined * (len(uniques) + 1) + codes
    combined = combined * (len(seed_uniques) + 1) + seed_codes
    group_of, group_ids = pd.factorize(combined)
    order = _stable_order(group_of)
    bounds = np.searchsorted(group_of[order], np.arange(len(group_ids) + 1))
    first_rows = order[bounds[:-1]]

    def sort_key(g: int):
        row = first_rows[g]
        labels = tuple(str(trials[c].iat[row]) for c in key_cols)
        seed: Any = seeds.iat[row]
        return labels, (0, 0) if pd.isna(seed) else (1, int(seed))

    n_tasks = len(task_names)
    groups = []
    for g in sorted(range(len(group_ids)), key=sort_key):
        rows = order[bounds[g]:bounds[g + 1]]
        # tasks of the group, renumbered 0..m-1 (a lookup table instead of a sort)
        mark = np.zeros(n_tasks, dtype=bool)
        mark[task_code[rows]] = True
        local_tasks = np.flatnonzero(mark)
        m = len(local_tasks)
        local = (np.cumsum(mark) - 1)[task_code[rows]]
        slot_key = arm_code[rows] * (int(trial[rows].max()) + 1) + trial[rows]
        slot_order = _stable_order(slot_key)
        keys_sorted = slot_key[slot_order]
        starts = np.flatnonzero(np.r_[True, keys_sorted[1:] != keys_sorted[:-1]])
        ends = np.r_[starts[1:], len(keys_sorted)]
        slots = {}
        for s, e in zip(starts, ends):
            idx = rows[slot_order[s:e]]
            pos = local[slot_order[s:e]]
            arm, t = str(arm_names[arm_code[idx[0]]]), int(trial[idx[0]])
            counts = np.bincount(pos, minlength=m)
            if counts.max() > 1:
                task = task_names[local_tasks[int(np.flatnonzero(counts > 1)[0])]]
                raise ValueError(
                    f"protocol {arm!r} trial {t}: task {task!r} appears more than once; a "
                    "paired contrast needs one record per task (filter by seed/model/benchmark "
                    "first)")
            present = np.zeros(m, dtype=bool)
            present[pos] = True
            arrays = []
            for values, fill in ((outcome, np.nan), (store, np.nan), (injections, np.nan)):
                out = np.full(m, fill)
                out[pos] = values[idx]
                arrays.append(out)
            first = np.full(m, -1, dtype=np.int64)
            first[pos] = sha[idx]
            slots[(arm, t)] = Slot(present, arrays[0], arrays[1], arrays[2], first)
        row = first_rows[g]
        seed_value: Any = seeds.iat[row]
        groups.append(Group(key=tuple(str(trials[c].iat[row]) for c in key_cols),
                            seed=None if pd.isna(seed_value) else int(seed_value),
                            slots=slots,
                            tasks=tuple(str(task_names[i]) for i in local_tasks)))
    return groups


#: Columns that must hold a single value within one paired contrast.
PAIRING_COLUMNS = ("benchmark", "model", "seed")


@dataclass(frozen=True)
class Contrast(FrozenResult):
    """A paired contrast ``a-b`` and its sign test.

    Attributes
    ----------
    label : str
        ``"a-b"``, or ``"a[t_i]-a[t_j]"`` for a re-run of one configuration against itself.
    a, b : str
        Protocols of the two arms.
    trial_a, trial_b : int
        Trial index compared in each arm.
    wins, losses, ties, n : int
        Paired outcome counts over the tasks both arms ran (``n`` includes ties).
    gap, p_value, ci_low, ci_high : float
        As in :class:`~noisefloor.stats.paired.SignTest` (proportions).
    tasks_only_a, tasks_only_b : tuple of str
        Tasks present in one arm only: counted and listed, not paired.
    tasks_excluded : tuple of str
        Tasks present in both arms but left out because a trial has no reward or ended in an
        infrastructure error (``infrastructure_errors="exclude"``).
    reason : str
        Why a statistic is NaN; empty otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> from noisefloor.floor.pairing import paired_contrast
    >>> t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1", "2", "1", "3"],
    ...                   "trial": 0, "reward": [1.0, 0.0, 0.0, 1.0]})
    >>> c = paired_contrast(t, "x", "y")
    >>> c.label, c.n, c.gap, c.p_value, round(c.ci_low, 4)
    ('x-y', 1, 1.0, 1.0, -0.5869)
    """

    label: str
    a: str
    b: str
    trial_a: int
    trial_b: int
    wins: int
    losses: int
    ties: int
    n: int
    gap: float
    p_value: float
    ci_low: float
    ci_high: float
    tasks_only_a: tuple[str, ...] = ()
    tasks_only_b: tuple[str, ...] = ()
    tasks_excluded: tuple[str, ...] = ()
    reason: str = ""

    # hand-written: the task lists become their counts, so the row stays scalar
    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame (task lists replaced by their counts).

        Returns
        -------
        pandas.DataFrame, shape (1, 17)
            The scalar fields, then ``n_tasks_only_a, n_tasks_only_b, n_tasks_excluded``.

        Examples
        --------
        >>> import pandas as pd
        >>> from noisefloor.floor.pairing import paired_contrast
        >>> t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1", "2", "1", "3"],
        ...                   "trial": 0, "reward": [1.0, 0.0, 0.0, 1.0]})
        >>> f = paired_contrast(t, "x", "y").to_frame()
        >>> f.shape, f[["n_tasks_only_a", "n_tasks_only_b", "n_tasks_excluded"]].iloc[0].tolist()
        ((1, 17), [1, 1, 0])
        """
        d = self.to_dict()
        for key in ("tasks_only_a", "tasks_only_b", "tasks_excluded"):
            d["n_" + key] = len(d.pop(key))
        return pd.DataFrame([d])


def _arm(trials: pd.DataFrame, protocol: str, trial: int, infrastructure_errors: str) -> pd.Series:
    rows = trials[(trials["protocol"].astype(str) == protocol) & (trials["trial"] == trial)]
    dup = rows["task_id"].astype(str).duplicated(keep=False)
    if dup.any():
        task = rows.loc[dup, "task_id"].iloc[0]
        raise ValueError(
            f"protocol {protocol!r} trial {trial}: task {task!r} appears more than once; a paired "
            "contrast needs one record per task (filter by seed/model/benchmark first)"
        )
    reward = rows["reward"].astype(float).to_numpy()
    infra = (rows["infrastructure_error"].fillna(False).astype(bool).to_numpy()
             if "infrastructure_error" in rows.columns else np.zeros(len(rows), dtype=bool))
    outcome = trial_outcomes(reward, infra, infrastructure_errors)
    return pd.Series(outcome, index=rows["task_id"].astype(str).to_numpy())


def paired_contrast(
    trials: pd.DataFrame,
    a: str,
    b: str,
    *,
    trial: int = 0,
    trial_b: int | None = None,
    tasks=None,
    infrastructure_errors: str = "exclude",
    confidence: float = 0.95,
) -> Contrast:
    """W/L/T and the sign test of contrast ``a-b`` from per-trial records.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records with ``protocol``, ``task_id``, ``trial``, ``reward`` (NaN when the trial
        never ran) and optionally ``infrastructure_error``; one benchmark, model and seed.
    a, b : str
        Protocols of the two arms; equal for a re-run of one configuration (then the trials
        must differ).
    trial : int, default 0
        Trial index of arm a.
    trial_b : int, optional
        Trial index of arm b (default: ``trial``).
    tasks : iterable of str, optional
        Restrict the contrast to these tasks (e.g. the coordination-active subset).
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Whether a trial that ended in an infrastructure error is left out (its task is listed
        in ``tasks_excluded``) or counted as a failure.
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    Contrast
        Counts, sign test and the tasks that could not be paired.

    Raises
    ------
    ValueError
        On missing columns, several seeds/models/benchmarks, a duplicate task within an arm,
        an arm with no records, or ``a == b`` with equal trials.

    Notes
    -----
    Success is ``|reward - 1| <= 1e-6`` (a partial reward is a failure). A win is a task where
    a succeeded and b failed. Statistics by :func:`~noisefloor.stats.paired.sign_test`.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1", "2", "1", "3"],
    ...                   "trial": 0, "reward": [1.0, 0.0, 0.0, 1.0]})
    >>> c = paired_contrast(t, "x", "y")
    >>> c.wins, c.losses, c.ties, c.tasks_only_a, c.tasks_only_b
    (1, 0, 0, ('2',), ('3',))
    """
    _validate.choice("infrastructure_errors", infrastructure_errors, ("exclude", "fail"))
    if not isinstance(trials, pd.DataFrame):
        raise TypeError(f"trials must be a pandas DataFrame, got {type(trials).__name__}")
    for col in ("protocol", "task_id", "trial", "reward"):
        if col not in trials.columns:
            raise ValueError(f"trials must have a {col!r} column; columns are {list(trials.columns)}")
    for col in PAIRING_COLUMNS:
        if col in trials.columns and trials[col].nunique(dropna=True) > 1:
            values = sorted(map(str, trials[col].dropna().unique()))
            raise ValueError(
                f"trials hold {len(values)} values of {col!r} ({', '.join(values[:5])}); a paired "
                f"contrast pairs tasks within one {col}: filter first"
            )
    trial_b = trial if trial_b is None else trial_b
    if a == b and trial == trial_b:
        raise ValueError(f"contrast {a}-{b} compares trial {trial} with itself; pass trial_b")
    arm_a = _arm(trials, a, trial, infrastructure_errors)
    arm_b = _arm(trials, b, trial_b, infrastructure_errors)
    for name, arm, t in ((a, arm_a, trial), (b, arm_b, trial_b)):
        if arm.empty:
            known = sorted(map(str, trials["protocol"].unique()))
            raise ValueError(f"no records for protocol {name!r} at trial {t}; protocols present: "
                             f"{', '.join(known)}")
    if tasks is not None:
        keep = {str(t) for t in tasks}
        arm_a = arm_a[arm_a.index.isin(keep)]
        arm_b = arm_b[arm_b.index.isin(keep)]
    only_a = tuple(sorted(set(arm_a.index) - set(arm_b.index)))
    only_b = tuple(sorted(set(arm_b.index) - set(arm_a.index)))
    both = arm_a.index.intersection(arm_b.index)
    oa, ob = arm_a.loc[both].to_numpy(float), arm_b.loc[both].to_numpy(float)
    excluded = tuple(sorted(both[np.isnan(oa) | np.isnan(ob)]))
    # the one pairing of every paired comparison: W/L/T over the tasks both arms hold
    present, none = np.ones(len(both), dtype=bool), np.full(len(both), np.nan)
    first = np.full(len(both), -1, dtype=np.int64)
    counts = pair_counts(Slot(present, oa, none, none, first), Slot(present, ob, none, none, first))
    wins, losses, ties = counts["wins"], counts["losses"], counts["ties"]
    test = sign_test(wins, losses, ties, confidence=confidence)
    label = f"{a}-{b}" if a != b else f"{a}[t{trial}]-{b}[t{trial_b}]"
    return Contrast(label, a, b, int(trial), int(trial_b), wins, losses, ties, test.n, test.gap,
                    test.p_value, test.ci_low, test.ci_high, only_a, only_b, excluded, test.reason)
