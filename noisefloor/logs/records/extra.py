"""The ``extra`` column of a trial frame: JSON text stored by Arrow, dicts when read.

A trial record's ``extra`` is free-form metadata (a JSON object or null). Holding one Python
dict per record costs several times the text it was read from (a tax run's 22-key ``extra``
takes about 3 kB as a dict, 0.6 kB as text), so the frame keeps each ``extra`` as the JSON text
of the object (an Arrow ``large_string`` array, null for a null ``extra``) inside an
:class:`ExtraArray`, a pandas extension array of dtype :class:`ExtraDtype` (``"extra_json"``).
Reading a value decodes it: ``frame["extra"].iloc[0]`` is a ``dict`` (or None), iterating,
``.map``, ``.tolist()`` and ``.to_numpy()`` give dicts, so code written for a column of dicts
keeps working. Each read decodes again: a dict taken from the column is a fresh copy, and
changing it does not change the frame. :func:`extra_texts` gives the stored texts (None for a
null) without decoding them.

The text of a record read from a JSONL file is the ``extra`` value as the line wrote it; an
``extra`` built by a reader of another format is written compactly (``json.dumps`` with
``separators=(",", ":")`` and ``ensure_ascii=False``; ``NaN`` and ``Infinity`` where
``allow_nan`` let them in). Decoding gives back exactly the value the reader validated:
integers of any size stay exact, key order is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
from pandas.api.extensions import ExtensionArray, ExtensionDtype, register_extension_dtype

__all__ = ["ExtraArray", "ExtraDtype", "decode_extra", "encode_extra", "extra_texts"]

#: The Arrow type of the stored texts.
TEXT_TYPE = pa.large_string()

# orjson turns an integer outside [-2**63, 2**64) into a float and refuses NaN/Infinity: a text
# that may hold either (a run of 19+ digits, a non-finite literal) is decoded by json instead.
_INEXACT = re.compile(r"[0-9]{19}|NaN|Infinity")


def decode_extra(text: str | bytes | None) -> dict[str, Any] | None:
    """The object a stored ``extra`` text stands for (None for None).

    Examples
    --------
    >>> decode_extra('{"turns": 3, "big": 18446744073709551616}')
    {'turns': 3, 'big': 18446744073709551616}
    >>> decode_extra(None) is None
    True
    """
    if text is None:
        return None
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text).decode("utf-8")
    if _INEXACT.search(text):
        value = json.loads(text)
    else:
        value = orjson.loads(text)
    return value


def encode_extra(value: Any) -> str | None:
    """The stored text of one ``extra`` value: compact JSON, None for None (or a missing NaN).

    Examples
    --------
    >>> encode_extra({"turns": 3, "note": "é"})
    '{"turns":3,"note":"é"}'
    """
    if value is None or (isinstance(value, float) and value != value):
        return None
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=True)


def _texts(values: Iterable[Any]) -> pa.Array:
    """Stored texts of ``extra`` values: a dict is encoded, None or NaN is null; anything
    else is a TypeError (pandas then keeps such values in an object column)."""
    out = []
    for value in values:
        if value is None or isinstance(value, dict) or (isinstance(value, float)
                                                        and value != value):
            out.append(encode_extra(value))
        else:
            raise TypeError(f"an extra value is a JSON object or None, got {type(value).__name__}")
    return pa.array(out, type=TEXT_TYPE)


@register_extension_dtype
class ExtraDtype(ExtensionDtype):
    """pandas dtype of the ``extra`` column (``"extra_json"``): JSON objects stored as text."""

    name = "extra_json"
    kind = "O"
    na_value = None

    type = dict

    def __repr__(self) -> str:
        return "ExtraDtype()"

    @classmethod
    def construct_array_type(cls) -> Any:
        """Return :class:`ExtraArray`."""
        return ExtraArray


class ExtraArray(ExtensionArray):
    """A pandas extension array of JSON objects kept as text (see the module notes).

    Parameters
    ----------
    texts : pyarrow.Array or pyarrow.ChunkedArray of strings
        One JSON object text per row, null for a null ``extra``. Not checked: build it from
        validated records (the log readers do), or use :meth:`from_values`.
    """

    _dtype = ExtraDtype()

    def __init__(self, texts: pa.Array | pa.ChunkedArray) -> None:
        if isinstance(texts, pa.Array):
            texts = pa.chunked_array([texts], type=texts.type)
        if texts.type != TEXT_TYPE:
            texts = texts.cast(TEXT_TYPE)
        self._data: pa.ChunkedArray = texts

    @classmethod
    def from_values(cls, values: Iterable[Any]) -> ExtraArray:
        """An array of dicts (encoded) and None/NaN (null).

        Raises
        ------
        TypeError
            A value that is neither.
        """
        return cls(_texts(values))

    def map(self, mapper: Any, na_action: Any = None) -> Any:
        """``mapper`` applied to each decoded value (an object array, as for dicts)."""
        return pd.Series(np.asarray(self), dtype=object).map(mapper, na_action=na_action) \
            .to_numpy()

    # -- the ExtensionArray interface ---------------------------------------------------

    @classmethod
    def _from_sequence(cls, scalars: Any, *, dtype: Any = None, copy: bool = False) -> ExtraArray:
        if isinstance(scalars, ExtraArray):
            return scalars
        return cls.from_values(scalars)

    @classmethod
    def _from_factorized(cls, values: Any, original: Any) -> ExtraArray:
        return cls.from_values(values)

    @property
    def dtype(self) -> ExtraDtype:
        return self._dtype

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[Any]:
        for chunk in self._data.chunks:
            yield from map(decode_extra, chunk.to_pylist())

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, (int, np.integer)):
            n = len(self)
            pos = int(item)
            if pos < 0:
                pos += n
            if not 0 <= pos < n:
                raise IndexError(f"index {int(item)} is out of bounds for length {n}")
            return decode_extra(self._data[pos].as_py())
        if isinstance(item, slice):
            start, stop, step = item.indices(len(self))
            if step == 1:
                return type(self)(self._data.slice(start, max(stop - start, 0)))
            item = np.arange(start, stop, step)
        item = pd.api.indexers.check_array_indexer(self, item)
        if item.dtype == bool:
            return type(self)(self._data.filter(pa.array(item)))
        return type(self)(self._data.take(pa.array(item)))

    def isna(self) -> np.ndarray:
        return np.asarray(self._data.is_null().to_numpy(zero_copy_only=False), dtype=bool)

    def take(self, indices: Any, *, allow_fill: bool = False,
             fill_value: Any = None) -> ExtraArray:
        idx = np.asarray(indices, dtype=np.int64)
        n = len(self)
        if allow_fill:
            missing = idx == -1
            if (idx < -1).any():
                raise ValueError("take: indices below -1 with allow_fill=True")
            if fill_value is not None and missing.any():
                filled = self.take(np.where(missing, 0, idx))
                values = list(filled._data.to_pylist())
                text = _texts([fill_value])[0].as_py()
                for pos in np.flatnonzero(missing).tolist():
                    values[pos] = text
                return type(self)(pa.array(values, type=TEXT_TYPE))
            if (idx >= n).any():
                raise IndexError("take: index out of bounds")
            return type(self)(self._data.take(pa.array(idx, mask=missing)))
        if n == 0 and len(idx):
            raise IndexError("cannot take from an empty array")
        if ((idx < -n) | (idx >= n)).any():
            raise IndexError("take: index out of bounds")
        return type(self)(self._data.take(pa.array(np.where(idx < 0, idx + n, idx))))

    def copy(self) -> ExtraArray:
        return type(self)(self._data)  # Arrow arrays are immutable: sharing is a copy

    @classmethod
    def _concat_same_type(cls, to_concat: Sequence[ExtraArray]) -> ExtraArray:
        chunks = [chunk for arr in to_concat for chunk in arr._data.chunks]
        return cls(pa.chunked_array(chunks, type=TEXT_TYPE))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = np.empty(len(self), dtype=object)
        out[:] = list(self)
        return out

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        if isinstance(dtype, ExtraDtype) or dtype == "extra_json":
            return self.copy() if copy else self
        if isinstance(dtype, pd.StringDtype) or dtype in ("str", "string"):  # the texts
            return pd.Series(self._data.to_pylist(), dtype=object).astype(dtype).array
        return np.asarray(self).astype(dtype, copy=False)  # object, or a TypeError

    def __eq__(self, other: Any) -> Any:
        left = np.asarray(self)
        if isinstance(other, (ExtraArray, np.ndarray, list)):
            right = np.asarray(other, dtype=object)
            return np.array([a == b for a, b in zip(left, right)], dtype=bool)
        return np.array([a == other for a in left], dtype=bool)

    def __arrow_array__(self, type: Any = None) -> pa.ChunkedArray:
        return self._data

    def _formatter(self, boxed: bool = False) -> Any:
        return repr


def extra_texts(values: Any) -> list[str | None]:
    """The stored JSON text of each ``extra`` (None for a null), without decoding.

    ``values`` is a frame's ``extra`` column (or its array); a column of dicts (a frame built
    by hand) is encoded as :func:`encode_extra` does.

    Examples
    --------
    >>> extra_texts(pd.Series(ExtraArray.from_values([{"a": 1}, None])))
    ['{"a":1}', None]
    """
    arr = values.array if isinstance(values, pd.Series) else values
    if isinstance(arr, ExtraArray):
        return list(arr._data.to_pylist())
    return list(_texts(arr).to_pylist())
