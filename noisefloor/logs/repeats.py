"""The first repeated key of a table, found over whole columns.

A table read from a file may not hold one key twice (an item rated twice by one rater, a
count-table row given twice); :func:`first_repeat` names the first row, in file order, whose
key an earlier row already holds, and that earlier row, without a Python loop over rows: each
key column becomes integer codes, the codes one integer per row, and the integers are counted
or sorted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["first_repeat"]


def _total_bytes(strings: Any) -> int:
    """Bytes in all cells of an Arrow string chunked array."""
    total = 0
    for chunk in strings.chunks:
        width = np.int64 if chunk.type.equals("large_string") else np.int32
        offsets = np.frombuffer(chunk.buffers()[1], dtype=width)
        total += int(offsets[chunk.offset + len(chunk)] - offsets[chunk.offset])
    return total


def _codes(values: Any) -> tuple[np.ndarray | None, int]:
    """Integer codes (0 .. k-1) of a string column, equal codes for equal strings, and k;
    codes None when every cell is ``""`` (k = 1)."""
    import pyarrow.compute as pc

    if _total_bytes(values) == 0:
        return None, 1
    encoded = pc.dictionary_encode(values).combine_chunks()
    return encoded.indices.to_numpy(zero_copy_only=False), len(encoded.dictionary)


def _item_groups(items: Any) -> tuple[np.ndarray | None, int]:
    """Codes of the item column: the index of each row's run of equal items when the runs are
    in strictly increasing or decreasing order (so no item comes back after another: a file
    sorted by item), otherwise hashed codes (:func:`_codes`)."""
    import pyarrow.compute as pc

    n = len(items)
    later, earlier = items[1:], items[:-1]
    down = pc.less(later, earlier).to_numpy(zero_copy_only=False)
    up = pc.greater(later, earlier).to_numpy(zero_copy_only=False)
    # items never fall (or never rise) from a row to the next: runs are in sorted order
    if not down.any() or not up.any():
        group = np.empty(n, dtype=np.int64)
        group[0] = 0
        np.cumsum(down | up, out=group[1:])  # a new run wherever the item changes
        return group, int(group[-1]) + 1
    return _codes(items)


def _as_strings(values: pd.Series) -> Any:
    """A column of strings as an Arrow chunked array (no copy when pandas keeps it in Arrow)."""
    import pyarrow as pa

    array = pa.array(values)
    return array if isinstance(array, pa.ChunkedArray) else pa.chunked_array([array])


def _column_codes(values: pd.Series, runs: bool) -> tuple[np.ndarray | None, int]:
    """Codes of one key column: numbers by :func:`pandas.factorize`, strings by Arrow
    (:func:`_item_groups` when ``runs``, else :func:`_codes`)."""
    if values.dtype == object:
        strings = pd.api.types.infer_dtype(values, skipna=False) == "string"
    else:
        strings = pd.api.types.is_string_dtype(values.dtype)
    if not strings:
        codes, uniques = pd.factorize(values)
        return (None, 1) if len(uniques) <= 1 else (codes.astype(np.int64), len(uniques))
    column = _as_strings(values)
    return _item_groups(column) if runs else _codes(column)


def first_repeat(frame: pd.DataFrame, keys: tuple[str, ...] = ("category", "item", "rater")
                 ) -> tuple[int, int]:
    """The first row whose ``keys`` appeared on an earlier row, and that earlier row.

    Vectorised: each key column becomes integer codes (an item column sorted by item is coded
    by its runs, without hashing), the codes one integer per row, and the integers are counted
    (:func:`numpy.bincount`) or sorted; only rows whose integer occurs twice are looked at in
    file order.

    Parameters
    ----------
    frame : pandas.DataFrame
        String columns ``keys``, rows in file order.
    keys : tuple of str
        The columns that together may not repeat; the one named ``"item"`` (if any) is coded
        by its runs when sorted.

    Returns
    -------
    (int, int)
        Positions ``(row, first)``: ``row`` the first row (in order) whose keys equal those of
        an earlier row, ``first`` the earliest such row; ``(len(frame), -1)`` when no keys
        repeat.

    Examples
    --------
    >>> f = pd.DataFrame({"category": ["", "", "", ""], "item": ["1", "1", "2", "1"],
    ...                   "rater": ["a", "b", "a", "a"]})
    >>> first_repeat(f)
    (3, 0)
    """
    n = len(frame)
    if n < 2:
        return n, -1
    key: np.ndarray | None = None  # one integer per row, in [0, space)
    space = 1
    for name in keys:
        codes, k = _column_codes(frame[name], runs=name == "item")
        if codes is None:  # one value: nothing to tell rows apart
            continue
        if key is None:
            writable = codes.dtype == np.int64 and codes.flags.writeable
            key, space = (codes if writable else codes.astype(np.int64)), k
            continue
        if space * k >= 2**62:  # re-code the combinations seen so far densely: at most n
            _, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64).ravel()
            space = int(key.max()) + 1
        key *= k
        key += codes
        space *= k
    if key is None:  # every row has the same keys
        return 1, 0
    if space <= 4 * n + 1024:
        counts = np.bincount(key, minlength=space)
        if counts.max() <= 1:
            return n, -1
        suspects = np.flatnonzero(counts[key] > 1)
    else:
        ordered = np.sort(key)
        same = ordered[1:] == ordered[:-1]
        if not same.any():
            return n, -1
        suspects = np.flatnonzero(np.isin(key, ordered[1:][same]))
    seen = pd.Series(key[suspects]).duplicated(keep="first").to_numpy()
    row = int(suspects[np.flatnonzero(seen)[0]])
    first = int(suspects[np.flatnonzero(key[suspects] == key[row])[0]])
    return row, first
