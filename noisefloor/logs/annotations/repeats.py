"""The first repeated key of a table, found over whole columns.

A table read from a file may not hold one key twice (an item rated twice by one rater, a
count-table row given twice); :func:`first_repeat` names the first row, in file order, whose
key an earlier row already holds, and that earlier row, without a Python loop over rows.

Each key column becomes one integer per row. Numbers, an item column whose file is sorted by
item (coded by its runs) and a string column of a few distinct values (raters, categories:
Arrow's hash table of them stays in the processor's caches) get exact codes; these combine
into one exact integer per row, which is counted. Any other string column is hashed: its UTF-8 bytes, read eight at a time
straight from the Arrow buffer, are folded into one 64-bit value per row by a multiply-xorshift
mix (the whole key's columns into the same value). Equal keys always give equal values, so a
table whose values are all distinct has no repeat; rows whose value occurs twice are then
compared exactly, on their cells, so a collision of two different keys is never reported as a
repeat. The hash costs a few array passes per eight bytes of an id, where a hash table of the
ids (``pyarrow.compute.dictionary_encode``) costs a cache miss per row once the ids outgrow
the processor's caches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["first_repeat"]

# an odd 64-bit multiplier (2**64 divided by the golden ratio, as in Fibonacci hashing;
# Knuth, The Art of Computer Programming, vol. 3, section 6.4)
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
# the first r bytes of a little-endian 64-bit word, r = 0..8
_FIRST_BYTES = np.array([(1 << (8 * r)) - 1 for r in range(9)], dtype=np.uint64)
# rows looked at before deciding that an item column is not sorted
_PREFIX = 1024
# rows hashed at a time: a block's scratch arrays stay in a core's cache, allocated once
_BLOCK = 1 << 15


def _absorb(state: np.ndarray, values: np.ndarray, spare: np.ndarray) -> None:
    """Fold one 64-bit value per row into ``state``, in place: xor, multiply by an odd
    constant (a bijection that carries low bits up), xor-shift (carries high bits down).
    ``spare`` is scratch space of the same length."""
    state ^= values
    state *= _MULTIPLIER
    np.right_shift(state, np.uint64(32), out=spare)
    state ^= spare


def _offsets(chunk: Any) -> np.ndarray:
    """The offsets of an Arrow (large) string array's cells, a view of its buffer."""
    width = np.int64 if chunk.type.equals("large_string") else np.int32
    return np.frombuffer(chunk.buffers()[1], dtype=width)[chunk.offset:chunk.offset + len(chunk) + 1]


def _total_bytes(strings: Any) -> int:
    """Bytes in all cells of an Arrow string chunked array."""
    return sum(int(o[-1] - o[0]) for o in map(_offsets, strings.chunks))


def _pieces(strings: Any) -> Any:
    """The cells of an Arrow string chunked array in pieces of at most ``_BLOCK`` rows, in
    order: (first row, offsets, the chunk's data buffer)."""
    row = 0
    for chunk in strings.chunks:
        offsets = _offsets(chunk)
        for start in range(0, len(chunk), _BLOCK):
            stop = min(start + _BLOCK, len(chunk))
            yield row + start, offsets[start:stop + 1], chunk.buffers()[2]
        row += len(chunk)


def _absorb_strings(state: np.ndarray, strings: Any) -> None:
    """Fold each cell of an Arrow string chunked array (one per row of ``state``) into
    ``state``: its bytes eight at a time, zero-padded to the column's longest cell, the first
    word tagged with the cell's length (so that ``"a"`` and ``"a\\0"`` differ).

    The rows go in blocks of ``_BLOCK``: a block's scratch arrays stay in the processor's
    caches and are allocated once."""
    longest = max(int(np.diff(_offsets(c)).max()) for c in strings.chunks if len(c))
    spare = np.empty(_BLOCK, dtype=np.uint64)
    padded = np.zeros(0, dtype=np.uint8)
    for row, offsets, data in _pieces(strings):
        m = len(offsets) - 1
        lengths = np.diff(offsets).astype(np.int64, copy=False)
        size = int(offsets[-1] - offsets[0])
        # the piece's bytes, padded so that a word read at a cell start + 0, 8, 16 ...
        # < longest stays inside
        if len(padded) < size + longest + 8:
            padded = np.empty(2 * (size + longest + 8), dtype=np.uint8)
        if size:
            padded[:size] = np.frombuffer(data, dtype=np.uint8, count=size,
                                          offset=int(offsets[0]))
        padded[size:size + longest + 8] = 0
        width = int(lengths[0])
        starts = None if (lengths == width).all() else offsets[:-1] - offsets[0]
        cells, scratch = state[row:row + m], spare[:m]
        for at in range(0, longest, 8):
            word: np.ndarray
            if starts is None:  # one width: the words at one offset form a strided view
                word = np.ndarray((m,), dtype="<u8", buffer=padded, offset=at,
                                  strides=(max(width, 1),)).astype(np.uint64)
                word &= _FIRST_BYTES[min(max(width - at, 0), 8)]
            else:  # a little-endian 64-bit word at each cell start + at
                word = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded,
                                  strides=(1,))[starts + at].astype(np.uint64, copy=False)
                word &= _FIRST_BYTES[np.clip(lengths - at, 0, 8)]
            if at == 0:
                word ^= lengths.view(np.uint64) * _MULTIPLIER
            _absorb(cells, word, scratch)


def _low_cardinality(strings: Any) -> bool:
    """Whether a string column looks like a few values repeated (raters, categories): few
    distinct values among its first rows, so that a hash table of its values stays in the
    processor's caches."""
    import pyarrow.compute as pc

    head = strings.slice(0, _PREFIX)
    return pc.count_distinct(head).as_py() <= max(2, len(head) // 16)


def _codes(strings: Any) -> tuple[np.ndarray, int]:
    """Exact integer codes (0 .. k-1) of a string column, equal codes for equal strings, and
    k, from Arrow's hash table of its values."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(strings).combine_chunks()
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), len(encoded.dictionary)


def _item_runs(items: Any) -> tuple[np.ndarray, int] | None:
    """The index of each row's run of equal items, and the number of runs, when the runs are
    in strictly increasing or decreasing order (so no item comes back after another: a file
    sorted by item); None otherwise."""
    import pyarrow.compute as pc

    n = len(items)
    for stop in (min(n, _PREFIX), n):  # a shuffled file shows it in its first rows
        later, earlier = items[1:stop], items[:stop - 1]
        down = pc.less(later, earlier).to_numpy(zero_copy_only=False)
        up = pc.greater(later, earlier).to_numpy(zero_copy_only=False)
        if down.any() and up.any():
            return None
    group = np.empty(n, dtype=np.int64)
    group[0] = 0
    np.cumsum(down | up, out=group[1:])  # a new run wherever the item changes
    return group, int(group[-1]) + 1


def _as_strings(values: pd.Series) -> Any:
    """A column of strings as an Arrow chunked array (no copy when pandas keeps it in Arrow)."""
    import pyarrow as pa

    array = pa.array(values)
    return array if isinstance(array, pa.ChunkedArray) else pa.chunked_array([array])


def _is_strings(values: pd.Series) -> bool:
    if values.dtype == object:
        return bool(pd.api.types.infer_dtype(values, skipna=False) == "string")
    return pd.api.types.is_string_dtype(values.dtype)


def _exact_repeat(frame: pd.DataFrame, keys: tuple[str, ...], rows: np.ndarray
                  ) -> tuple[int, int]:
    """:func:`first_repeat` among ``rows`` (positions in file order) only, comparing the cells
    themselves as Python values (a missing value equals a missing value, as in
    :func:`pandas.factorize`).

    Not :meth:`pandas.DataFrame.duplicated`: with pandas 2's object-dtype strings its hash
    table compares C strings, so ``"\\x00"`` equals ``""`` there, and a forced hash collision
    of those two cells returned a row as its own repeat.
    """
    columns = [frame[name].iloc[rows].tolist() for name in keys]
    seen: dict[tuple[Any, ...], int] = {}
    for at, cells in enumerate(zip(*columns)):
        cell_key = tuple(_MISSING if _is_missing(c) else c for c in cells)
        earlier = seen.setdefault(cell_key, at)
        if earlier != at:
            return int(rows[at]), int(rows[earlier])
    return len(frame), -1


_MISSING = object()


def _is_missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def first_repeat(frame: pd.DataFrame, keys: tuple[str, ...] = ("category", "item", "rater")
                 ) -> tuple[int, int]:
    """The first row whose ``keys`` appeared on an earlier row, and that earlier row.

    Vectorised: each key column becomes one integer per row (exact codes for numbers and for
    an item column sorted by item, a 64-bit hash of the bytes for other strings), the columns
    one integer per row, and the integers are counted (:func:`numpy.bincount`) or sorted; only
    rows whose integer occurs twice are compared, cell by cell, in file order. A hash
    collision of two different keys therefore costs a comparison, never a wrong answer.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``keys`` (strings or numbers), rows in file order.
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
    key: np.ndarray | None = None  # exact: one integer per row, in [0, space)
    space = 1
    hashed: list[Any] = []  # string columns to hash
    for name in keys:
        values = frame[name]
        if _is_strings(values):
            strings = _as_strings(values)
            if _total_bytes(strings) == 0:  # every cell "": nothing to tell rows apart
                continue
            runs = _item_runs(strings) if name == "item" else None
            if runs is not None:
                codes, k = runs
            elif _low_cardinality(strings):
                codes, k = _codes(strings)
            else:
                hashed.append(strings)
                continue
        else:
            factor, uniques = pd.factorize(values)
            if len(uniques) <= 1:
                continue
            codes, k = factor.astype(np.int64), len(uniques)
        if key is None:
            key, space = codes, k
            continue
        if space * k >= 2**62:  # re-code the combinations seen so far densely: at most n
            _, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64).ravel()
            space = int(key.max()) + 1
        key = key * k + codes
        space *= k
    if key is None and not hashed:  # every row has the same keys
        return 1, 0
    if hashed:
        exact = key

        def hashes() -> np.ndarray:
            # the exact codes (if any) seed the hash: the first word is xor-ed into them
            state = (np.zeros(n, dtype=np.uint64) if exact is None
                     else exact.view(np.uint64) * _MULTIPLIER)
            for strings in hashed:
                _absorb_strings(state, strings)
            return state

        ordered = hashes()
        ordered.sort()  # in place: no second array of a million hashes
        same = ordered[1:] == ordered[:-1]
        if not same.any():
            return n, -1
        # equal hashes: equal keys or a collision; the cells of those rows decide
        key = hashes()
        return _exact_repeat(frame, keys, np.flatnonzero(np.isin(key, ordered[1:][same])))
    assert key is not None
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
