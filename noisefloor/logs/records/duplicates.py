"""Finding repeated trials in logs too large to keep, by 128-bit hashes of the trial key.

A trial is identified by ``(benchmark, model, protocol, seed, task_id, trial)``. Keeping those
keys for every record of a 10 GB log would cost hundreds of bytes per record; this module keeps
two independent 64-bit hashes of each key (pandas' ``hash_pandas_object`` with two different
hash keys) plus where the record came from: 24 bytes per record. Two different keys are
reported as a duplicate only if both hashes collide; for 10^9 records the chance that this
happens anywhere is below 10^-20.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from noisefloor.logs.records.frame import nullable_int64, string_array
from noisefloor.logs.schema import KEY_FIELDS

__all__ = ["DuplicateIndex", "key_hashes"]

_HASH_KEYS = ("noisefloor-key-1", "noisefloor-key-2")  # 16 characters each, as pandas wants


def _as_pandas(arr: Any, name: str) -> Any:
    if isinstance(arr, (pa.Array, pa.ChunkedArray)):
        return nullable_int64(arr) if name == "seed" else string_array(arr)
    return arr


def key_hashes(arrays: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Two independent uint64 hashes of each row's trial key.

    Parameters
    ----------
    arrays : dict
        Block arrays as :func:`noisefloor.logs.jsonl.columns.to_arrays` returns them (or any
        mapping with the six key columns of equal length).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Shape (n,) each, dtype uint64. A null seed hashes equal to a null seed.
    """
    frame = pd.DataFrame({name: _as_pandas(arrays[name], name) for name in KEY_FIELDS})
    h1, h2 = (pd.util.hash_pandas_object(frame, index=False, hash_key=key).to_numpy()
              for key in _HASH_KEYS)
    return h1, h2


class DuplicateIndex:
    """Remembers trial keys (as hashes) block by block and reports repeats.

    Use :meth:`add` for every block in reading order; :meth:`check_block` reports, for a
    streaming reader, the rows of a block whose key was seen before (at once); :meth:`pairs`
    reports all repeats at the end. Each repeat is ``((source, line) of the first record,
    (source, line) of the repeat)``.
    """

    def __init__(self) -> None:
        self._h1: list[np.ndarray] = []
        self._h2: list[np.ndarray] = []
        self._lines: list[np.ndarray] = []
        self._sources: list[str] = []
        self._starts: list[int] = []
        self._seen: dict[int, int] = {}  # streaming mode: 128-bit key -> global row
        self.n_rows = 0

    def add(self, arrays: dict[str, Any], source: str, lines: list[int],
            streaming: bool = False) -> list[tuple[tuple[str, int], tuple[str, int]]]:
        """Record a block; in ``streaming`` mode return its repeats of earlier rows now."""
        n = len(lines)
        if n == 0:
            return []
        h1, h2 = key_hashes(arrays)
        start = self.n_rows
        self._h1.append(h1)
        self._h2.append(h2)
        self._lines.append(np.asarray(lines, dtype=np.int64))
        self._sources.append(source)
        self._starts.append(start)
        self.n_rows += n
        if not streaming:
            return []
        found = []
        seen = self._seen
        combined = (h1.astype(object) << 64) | h2.astype(object)
        for offset, key in enumerate(combined.tolist()):
            first = seen.setdefault(key, start + offset)
            if first != start + offset:
                found.append((self._where(first), (source, int(lines[offset]))))
        return found

    def _where(self, row: int) -> tuple[str, int]:
        block = int(np.searchsorted(self._starts, row, side="right")) - 1
        return self._sources[block], int(self._lines[block][row - self._starts[block]])

    def pairs(self) -> list[tuple[tuple[str, int], tuple[str, int]]]:
        """Every repeat (each later record paired with the first one that had its key)."""
        if self.n_rows < 2:
            return []
        h1 = np.concatenate(self._h1)
        h2 = np.concatenate(self._h2)
        order = np.lexsort((np.arange(self.n_rows), h2, h1))  # by key, then reading order
        s1, s2 = h1[order], h2[order]
        same = (s1[1:] == s1[:-1]) & (s2[1:] == s2[:-1])
        if not same.any():
            return []
        later = np.flatnonzero(same) + 1  # sorted positions that repeat the one before
        run_starts = np.flatnonzero(np.concatenate(([True], ~same)))
        firsts = run_starts[np.searchsorted(run_starts, later, side="right") - 1]
        found = list(zip(order[firsts].tolist(), order[later].tolist()))
        found.sort(key=lambda pair: pair[1])
        return [(self._where(a), self._where(b)) for a, b in found]
