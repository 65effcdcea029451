"""Assembling validated records into the typed trial DataFrame, block by block.

Columns, in order (see :data:`COLUMNS`): the :class:`~noisefloor.logs.schema.TrialRecord`
fields, then ``source`` (file path) and ``line`` (1-based line of a JSONL file, or 1-based
record index of a JSON document).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from noisefloor.logs.schema import KEY_FIELDS

__all__ = ["COLUMNS", "DTYPES", "FrameBuilder", "empty_frame", "duplicate_rows"]

#: Column order of the trial DataFrame.
COLUMNS: tuple[str, ...] = (
    "schema_version", "benchmark", "model", "protocol", "seed", "task_id", "trial", "reward",
    "termination_reason", "infrastructure_error", "store_events_at_start", "injections",
    "first_request_sha256", "extra", "source", "line",
)

#: dtype of each column (``"str"`` is pandas' string dtype; missing strings are NaN).
DTYPES: dict[str, Any] = {
    "schema_version": "str", "benchmark": "str", "model": "str", "protocol": "str",
    "seed": "Int64", "task_id": "str", "trial": "int64", "reward": "float64",
    "termination_reason": "str", "infrastructure_error": "bool",
    "store_events_at_start": "Int64", "injections": "Int64", "first_request_sha256": "str",
    "extra": "object", "source": "str", "line": "int64",
}

_STR = ("schema_version", "benchmark", "model", "protocol", "task_id", "termination_reason",
        "first_request_sha256")
_INTERNED = ("schema_version", "benchmark", "model", "protocol", "termination_reason")
_NULLABLE_INT = ("seed", "store_events_at_start", "injections")


def empty_frame() -> pd.DataFrame:
    """Return a trial DataFrame with no rows and the typed columns."""
    return pd.DataFrame({c: pd.Series([], dtype=DTYPES[c]) for c in COLUMNS})


class FrameBuilder:
    """Accumulates columns of validated records; :meth:`build` returns the DataFrame.

    Low-cardinality string columns share one object per distinct value, so memory grows
    with the number of rows, not with the length of repeated strings.
    """

    def __init__(self) -> None:
        self._lists: dict[str, list[Any]] = {c: [] for c in COLUMNS if c not in
                                             ("reward", "trial", "infrastructure_error", "line")}
        self._arrays: dict[str, list[np.ndarray]] = {
            "reward": [], "trial": [], "infrastructure_error": [], "line": []}
        self._interned: dict[str, str] = {}
        self.n_rows = 0

    def add(self, columns: dict[str, list[Any]], source: str, lines: list[int]) -> None:
        """Append validated columns (``{field: values}``) that came from ``source`` at ``lines``."""
        n = len(lines)
        if n == 0:
            return
        cache = self._interned.setdefault
        for name in _INTERNED:
            values = columns[name]
            self._lists[name].extend([v if v is None else cache(v, v) for v in values])
        for name in ("task_id", "first_request_sha256", "seed", "store_events_at_start",
                     "injections", "extra"):
            self._lists[name].extend(columns[name])
        self._lists["source"].extend([cache(source, source)] * n)
        self._arrays["reward"].append(np.array(columns["reward"], dtype=np.float64))
        self._arrays["trial"].append(np.array(columns["trial"], dtype=np.int64))
        self._arrays["infrastructure_error"].append(
            np.array(columns["infrastructure_error"], dtype=bool))
        self._arrays["line"].append(np.array(lines, dtype=np.int64))
        self.n_rows += n

    def build(self) -> pd.DataFrame:
        """Return the DataFrame (columns :data:`COLUMNS`, dtypes :data:`DTYPES`)."""
        if self.n_rows == 0:
            return empty_frame()
        data: dict[str, Any] = {}
        for name in COLUMNS:
            if name in self._arrays:
                data[name] = np.concatenate(self._arrays[name])
            elif name in _NULLABLE_INT:
                try:
                    data[name] = pd.array(self._lists[name], dtype="Int64")
                except (OverflowError, TypeError, ValueError) as exc:
                    raise OverflowError(
                        f"column {name!r} holds an integer outside the 64-bit range: {exc}"
                    ) from None
            elif name == "extra":
                arr = np.empty(self.n_rows, dtype=object)
                arr[:] = self._lists[name]
                data[name] = arr
            else:
                data[name] = pd.array(self._lists[name], dtype="str")
        self._lists.clear()
        self._arrays.clear()
        return pd.DataFrame(data, columns=list(COLUMNS))


def duplicate_rows(frame: pd.DataFrame) -> list[tuple[int, int]]:
    """Positions ``(first, later)`` of rows repeating an earlier row's key.

    The key is ``(benchmark, model, protocol, seed, task_id, trial)``; a null seed equals a null
    seed. Each later duplicate is paired with the first row that had its key.
    """
    if len(frame) < 2:
        return []
    keys = frame.loc[:, list(KEY_FIELDS)]
    dup_later = keys.duplicated(keep="first").to_numpy()
    if not dup_later.any():
        return []
    first_of = keys.groupby(list(KEY_FIELDS), dropna=False, sort=False).ngroup().to_numpy()
    first_pos: dict[int, int] = {}
    pairs = []
    for pos, group in enumerate(first_of):
        if group not in first_pos:
            first_pos[group] = pos
        elif dup_later[pos]:
            pairs.append((first_pos[group], pos))
    return pairs
