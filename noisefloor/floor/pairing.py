"""Vectorised pairing of trial records: one array per (arm, trial) over the tasks of a group.

:func:`encode_groups` turns a trial DataFrame into :class:`Group` objects (one per benchmark,
model and seed), each holding a :class:`Slot` per (arm, trial): the outcome, the store and
injection counts and the first-request hash of every task of the group, aligned on one task
index, so that pairing two arms is elementwise NumPy (:func:`pair_counts`) instead of a join per
pair. The outcome follows :func:`noisefloor.stats.contrasts.paired_contrast`: success is a reward
within 1e-6 of 1, a trial without reward is undefined, and so is an infrastructure error when
``infrastructure_errors == "exclude"`` (with ``"fail"`` it counts as a failure).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from noisefloor.stats.paired import Slot, pair_counts  # the one pairing's counts
from noisefloor.stats.passk import trial_outcomes

__all__ = ["Group", "Slot", "encode_groups", "pair_counts"]


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


