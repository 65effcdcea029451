"""Assembling validated records into the typed trial DataFrame, block by block.

Columns, in order (see :data:`COLUMNS`): the :class:`~noisefloor.logs.schema.TrialRecord`
fields, then ``source`` (file path) and ``line`` (1-based line of a JSONL file, or 1-based
record index of a JSON document) (:data:`RECORD_COLUMNS`, what a builder assembles), then the
run columns the loader adds (:data:`RUN_COLUMNS`): ``run`` (the run's name), ``logged_protocol``
(the protocol the log gave, before a label) and ``configuration`` (what the run's tool records
about the system under test, canonical JSON; see :mod:`noisefloor.logs.configuration`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

# the import registers the dtype "extra_json"
from noisefloor.logs.records.extra import ExtraArray, ExtraDtype  # noqa: F401
from noisefloor.logs.schema import KEY_FIELDS


def _string_dtype() -> Any:
    """pandas' string dtype with NaN for missing values: ``"str"`` on pandas 3; on pandas 2
    (the only pandas for Python 3.10) ``"str"`` means numpy's unicode type, which turns a
    missing value into the text ``'None'``, so the same dtype is spelled out."""
    if int(pd.__version__.split(".")[0]) >= 3:
        return "str"
    try:
        return pd.StringDtype("pyarrow", na_value=np.nan)
    except TypeError:  # pandas < 2.3: no NaN-valued string dtype; pd.NA marks missing
        return pd.StringDtype("pyarrow")


#: The dtype of every string column of a trial frame (pandas' ``"str"``).
STRING_DTYPE: Any = _string_dtype()


#: The Arrow type of the strings a :data:`STRING_DTYPE` array stores (``large_string`` on
#: pandas 3): readers build string columns of this type, so that the frame takes them over
#: without a copy.
ARROW_STRING: pa.DataType = pa.array(pd.array([], dtype=STRING_DTYPE)).type


def string_array(values: Any) -> Any:
    """A pandas string array (:data:`STRING_DTYPE`) of pyarrow strings or Python values."""
    return pd.array(values, dtype=STRING_DTYPE)

__all__ = ["COLUMNS", "DTYPES", "RECORD_COLUMNS", "RUN_COLUMNS", "FrameBuilder",
           "duplicate_rows", "empty_frame"]

#: Columns assembled from the records of one run.
RECORD_COLUMNS: tuple[str, ...] = (
    "schema_version", "benchmark", "model", "protocol", "seed", "task_id", "trial", "reward",
    "termination_reason", "infrastructure_error", "store_events_at_start", "injections",
    "first_request_sha256", "extra", "source", "line",
)

#: Columns the loader adds per run.
RUN_COLUMNS: tuple[str, ...] = ("run", "logged_protocol", "configuration")

#: Column order of the trial DataFrame.
COLUMNS: tuple[str, ...] = RECORD_COLUMNS + RUN_COLUMNS

#: dtype of each column (``"str"`` is pandas' string dtype; missing strings are NaN;
#: ``"extra_json"`` is :class:`~noisefloor.logs.records.extra.ExtraDtype`: JSON text, read as
#: dicts).
DTYPES: dict[str, Any] = {
    "schema_version": STRING_DTYPE, "benchmark": STRING_DTYPE, "model": STRING_DTYPE,
    "protocol": STRING_DTYPE,
    "seed": "Int64", "task_id": STRING_DTYPE, "trial": "int64", "reward": "float64",
    "termination_reason": STRING_DTYPE, "infrastructure_error": "bool",
    "store_events_at_start": "Int64", "injections": "Int64", "first_request_sha256": STRING_DTYPE,
    "extra": "extra_json", "source": STRING_DTYPE, "line": "int64",
    "run": STRING_DTYPE, "logged_protocol": STRING_DTYPE, "configuration": STRING_DTYPE,
}

_STR = ("schema_version", "benchmark", "model", "protocol", "task_id", "termination_reason",
        "first_request_sha256")
_NULLABLE_INT = ("seed", "store_events_at_start", "injections")


def nullable_int64(arr: pa.Array | pa.ChunkedArray) -> pd.arrays.IntegerArray:
    """Arrow int64 (with nulls) -> pandas ``Int64``, exactly.

    Values and mask are taken separately: pandas' own conversion goes through float64 when
    there are nulls, which rounds integers beyond 2**53.
    """
    values = arr.fill_null(0).to_numpy()
    mask = arr.is_null().to_numpy(zero_copy_only=False)
    return pd.arrays.IntegerArray(values.astype(np.int64, copy=False), mask)


def empty_frame(columns: tuple[str, ...] = RECORD_COLUMNS) -> pd.DataFrame:
    """Return a trial DataFrame with no rows and the typed ``columns``."""
    return pd.DataFrame({c: pd.Series([], dtype=DTYPES[c]) for c in columns})


class FrameBuilder:
    """Accumulates validated records block by block; :meth:`build` returns the DataFrame.

    Blocks arrive as compact arrays (Arrow strings and nullable integers, numpy numbers), so
    the Python objects of a block are freed before the next block is read.
    """

    def __init__(self) -> None:
        self.columns = RECORD_COLUMNS
        self._chunks: dict[str, list[Any]] = {c: [] for c in self.columns}
        self.n_rows = 0

    def add(self, arrays: dict[str, Any], source: str, lines: list[int]) -> None:
        """Append a block's arrays (as :func:`noisefloor.logs.jsonl.columns.to_arrays` makes them)
        that came from ``source`` at ``lines``."""
        n = len(lines)
        if n == 0:
            return
        for name, arr in arrays.items():
            if name in self._chunks:
                if isinstance(arr, pa.ChunkedArray):
                    self._chunks[name].extend(arr.chunks)
                else:
                    self._chunks[name].append(arr)
        self._chunks["source"].append((source, n))
        self._chunks["line"].append(np.array(lines, dtype=np.int64))
        self.n_rows += n

    def build(self) -> pd.DataFrame:
        """Return the DataFrame (columns :data:`RECORD_COLUMNS`, dtypes :data:`DTYPES`)."""
        if self.n_rows == 0:
            return empty_frame()
        data: dict[str, Any] = {}
        for name in self.columns:
            parts = self._chunks[name]
            if name == "source":
                # one entry per block: (path, rows); stored as codes into the list of paths
                paths = list(dict.fromkeys(path for path, _ in parts))
                position = {path: i for i, path in enumerate(paths)}
                codes = np.repeat(np.array([position[p] for p, _ in parts], dtype=np.int32),
                                  [k for _, k in parts])
                decoded = pa.DictionaryArray.from_arrays(
                    codes, pa.array(paths, type=ARROW_STRING)).dictionary_decode()
                data[name] = string_array(decoded)
            elif name in _STR:
                data[name] = string_array(pa.chunked_array(parts, type=ARROW_STRING))
            elif name == "extra":
                data[name] = ExtraArray._concat_same_type(parts)
            elif name in _NULLABLE_INT:
                data[name] = nullable_int64(pa.chunked_array(parts, type=pa.int64()))
            else:
                data[name] = np.concatenate(parts)
            parts.clear()
        # the arrays were made for this frame: no copy (nor consolidation into 2-D blocks)
        return pd.DataFrame(data, columns=list(self.columns), copy=False)


def duplicate_rows(frame: pd.DataFrame) -> list[tuple[int, int]]:
    """Positions ``(first, later)`` of rows repeating an earlier row's key.

    The key is ``(benchmark, model, protocol, seed, task_id, trial)``; a null seed equals a null
    seed. Each later duplicate is paired with the first row that had its key.

    Notes
    -----
    The key columns are numbered one at a time (:func:`pandas.factorize`, nulls numbered like
    values) and folded into one group number per row (mixed radix, renumbered densely
    whenever the next column could overflow 64 bits): memory is a few integer arrays of the
    frame's length, never a copy of the key columns.
    """
    n = len(frame)
    if n < 2:
        return []
    groups: np.ndarray = np.zeros(n, dtype=np.int64)
    bound = 1  # every group number is below it
    for name in KEY_FIELDS:
        codes, uniques = pd.factorize(frame[name], use_na_sentinel=False)
        if bound * len(uniques) >= 2**62:  # renumber densely first, so nothing overflows
            groups, kept = pd.factorize(groups)
            bound = len(kept)
        groups = groups * len(uniques) + codes
        bound *= len(uniques)
    groups, kept = pd.factorize(groups)  # numbered in order of first appearance
    if len(kept) == n:
        return []
    # group numbers follow first appearance, so each group's first row is where it first shows
    first = np.full(len(kept), n, dtype=np.int64)
    np.minimum.at(first, groups, np.arange(n, dtype=np.int64))
    later = np.flatnonzero(first[groups] != np.arange(n))
    return list(zip(first[groups[later]].tolist(), later.tolist()))
