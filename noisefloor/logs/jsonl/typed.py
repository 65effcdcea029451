"""Typed decoding of a block of JSONL trial records with msgspec (the ``extra`` fast path).

:func:`typed_block` decodes every line of a block into a :class:`msgspec.Struct` that states
the :class:`~noisefloor.logs.schema.TrialRecord` rules (exact JSON types, required keys, no
unknown key, bounds, non-empty strings, the schema version) and keeps ``extra`` as its raw JSON
text (:class:`msgspec.Raw`). It returns typed arrays when it can vouch that the strict reader
(:func:`noisefloor.logs.jsonl.jsonparse.parse_strict` and the pydantic model) accepts *every*
line of the block and reads it to the same values, and None otherwise: the caller then reads the
block with the exact path, which names each problem. So this module changes speed, never the
verdict or the frame.

What the typed decode does not check is checked here, on the block's bytes where it can be:

* *a key given twice at the top level* (msgspec keeps the last): in the block as written every
  ``:`` is a key's separator or a character inside a string. The block's colons are counted
  and compared with the keys msgspec kept (ten required ones and each optional one present),
  plus the colons inside the kept string values and inside the ``extra`` texts. A key given
  twice adds at least one colon, so equality proves none was. A ``\\u003a`` escape (a colon
  the line does not spell out) sends the block to the exact path;
* *inside* ``extra`` (kept as text by the typed decode, which checks only its syntax): the
  texts are decoded again, which refuses bad UTF-8, lone surrogates, numbers overflowing to
  infinity and ``NaN``/``Infinity`` literals, as the reference does. A key given twice:

  - when no quote of the texts is followed by white space, every key written ends in ``":``,
    so an object writing ``w`` keys holds at least ``w`` such pairs. The objects are decoded
    into a struct whose fields are the keys of the first object, all required and no other
    allowed: each object then writes at least those ``K`` keys. If the texts hold exactly
    ``K`` pairs ``":`` per object, each object wrote each of its ``K`` keys once and nests
    no object with keys, so no key was given twice at any depth (:func:`_no_key_given_twice`);
  - otherwise (objects of different keys, nesting) the texts are decoded as dicts: for flat
    objects the keys kept are their lengths summed and compared with the pairs ``":``, else
    the dicts are encoded again and their colons counted (as many as the texts only if no key
    was dropped);
* *an* ``extra`` *that is neither an object nor null*;
* *one record per line*: msgspec's line decoder skips blank lines, so the count of records
  must equal the count of lines, and each line must start with ``{``;
* *the SHA-256 pattern*: the decode checks the length (64 characters), the column's bytes
  are then checked to be lowercase hexadecimal digits (a regular expression per value would
  cost more than the rest of the decode);
* the reader's rule that an infrastructure error carries no reward.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
import pyarrow as pa
from msgspec import UNSET, Meta, Raw, UnsetType
from msgspec.structs import astuple

from noisefloor.logs.records.extra import TEXT_TYPE, ExtraArray
from noisefloor.logs.records.frame import ARROW_STRING

__all__ = ["typed_block"]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_Int64 = Annotated[int, Meta(ge=_INT64_MIN, le=_INT64_MAX)]
_Count = Annotated[int, Meta(ge=0, le=_INT64_MAX)]
_Name = Annotated[str, Meta(min_length=1)]
_Reward = Annotated[float, Meta(ge=0.0, le=1.0)]
#: 64 characters; that they are lowercase hexadecimal digits is checked on the column.
_Sha256 = Annotated[str, Meta(min_length=64, max_length=64)]


class _Line(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One trial record as written (the TrialRecord rules; ``extra`` kept as text)."""

    schema_version: Literal["1"]
    benchmark: _Name
    model: _Name
    protocol: _Name
    seed: _Int64 | None
    task_id: _Name
    trial: _Count
    reward: _Reward | None
    termination_reason: str | None
    infrastructure_error: bool
    store_events_at_start: _Count | None | UnsetType = UNSET
    injections: _Count | None | UnsetType = UNSET
    first_request_sha256: _Sha256 | None | UnsetType = UNSET
    extra: Raw | UnsetType = UNSET


_DECODER = msgspec.json.Decoder(_Line)
_ANY = msgspec.json.Decoder()
_STRINGS = ("schema_version", "benchmark", "model", "protocol", "task_id",
            "termination_reason", "first_request_sha256")
#: String fields that may hold a colon (the schema version is "1", a SHA-256 is hex).
_COLON_STRINGS = ("benchmark", "model", "protocol", "task_id", "termination_reason")
_OPTIONAL = ("store_events_at_start", "injections", "first_request_sha256")
_FIELDS = tuple(_Line.__struct_fields__)
_N_REQUIRED = 10
_COLON_ESCAPE = b"\\u003"
_NEWLINE, _QUOTE, _COLON = ord("\n"), ord('"'), ord(":")
_OPEN, _NULL_FIRST = ord("{"), ord("n")
_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)


def _present(values: Any) -> tuple[Any, int]:
    """``values`` (a sequence) with UNSET as None, and how many were set."""
    unset = values.count(UNSET)
    if not unset:
        return values, len(values)
    if unset == len(values):
        return [None] * unset, 0
    return [None if v is UNSET else v for v in values], len(values) - unset


def _string_bytes(arr: pa.Array) -> np.ndarray:
    """The bytes of every value of a string array, end to end (uint8; no copy)."""
    buffers = arr.buffers()
    if buffers[2] is None or not len(arr):
        return np.zeros(0, dtype=np.uint8)
    wide = pa.types.is_large_string(arr.type)
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if wide else np.int32)
    start, stop = offsets[arr.offset], offsets[arr.offset + len(arr)]
    return np.frombuffer(buffers[2], dtype=np.uint8)[start:stop]


def _lower_hex(arr: pa.Array) -> bool:
    """True if every byte of the strings of ``arr`` is one of ``0-9a-f``."""
    data = _string_bytes(arr)
    return bool((((data - np.uint8(48)) < 10) | ((data - np.uint8(97)) < 6)).all())


def _one_object_per_line(data: bytes, buf: np.ndarray, newlines: np.ndarray) -> bool:
    """True if every line of the block starts with ``{`` (none is blank)."""
    if not data.startswith(b"{"):
        return False
    if not len(newlines):
        return True
    if int(newlines[-1]) == len(data) - 1:
        return False  # a blank last line
    return bool((buf[newlines + 1] == _OPEN).all())


def typed_block(data: bytes, newlines: np.ndarray | None = None) -> dict[str, Any] | None:
    """Decode and validate a block of JSONL records; None unless every line is exact.

    Parameters
    ----------
    data : bytes
        Complete lines joined by ``\\n`` (no newline after the last).
    newlines : numpy.ndarray of int64, optional
        The offsets of the ``\\n`` bytes of ``data`` when the caller knows them
        (:attr:`noisefloor.logs.jsonl.lines.LineBlock.newlines`); found here otherwise.

    Returns
    -------
    dict or None
        ``{field: array}`` as :func:`noisefloor.logs.jsonl.columns.to_arrays` returns it (``extra``
        an :class:`~noisefloor.logs.records.extra.ExtraArray` of the texts as written), one row per
        line, or None: the caller reads the block with the exact path.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    if newlines is None:
        newlines = np.flatnonzero(buf == _NEWLINE)
    n = len(newlines) + 1
    if not _one_object_per_line(data, buf, newlines):
        return None
    if b"\\" in data and _COLON_ESCAPE in data:  # a \u003a escape: the colon test cannot vouch
        return None
    try:
        lines = _DECODER.decode_lines(data)
    except _ERRORS:
        return None
    if len(lines) != n:
        return None
    columns = dict(zip(_FIELDS, zip(*map(astuple, lines))))
    del lines
    # the top-level keys kept: ten required ones plus each optional one present
    kept_keys = _N_REQUIRED * n
    for name in _OPTIONAL:
        columns[name], present = _present(columns[name])
        kept_keys += present
    extras, present = _present(columns.pop("extra"))
    kept_keys += present
    arrays: dict[str, Any] = {}
    try:
        for name in _STRINGS:
            arrays[name] = pa.array(columns[name], type=ARROW_STRING)
    except (pa.ArrowInvalid, UnicodeEncodeError):  # a lone surrogate msgspec let through
        return None
    if not _lower_hex(arrays["first_request_sha256"]):
        return None
    extra = _extra_texts(extras)
    if extra is None:
        return None  # an extra that is neither an object nor null
    text_col, objects, joined = extra
    colon_at = np.flatnonzero(np.frombuffer(joined, dtype=np.uint8) == _COLON)
    kept = kept_keys + len(colon_at) + sum(
        int(np.count_nonzero(_string_bytes(arrays[name]) == _COLON)) for name in _COLON_STRINGS)
    if int(np.count_nonzero(buf == _COLON)) != kept:
        return None  # a top-level key given twice (or a colon escape): the exact path
    if objects and not _no_key_given_twice(objects, joined, colon_at):
        return None  # a key given twice inside extra, or an extra the reference refuses
    infra = np.fromiter(columns["infrastructure_error"], dtype=bool, count=n)
    rewards = np.array(columns["reward"], dtype=np.float64)  # None -> nan
    if (infra & ~np.isnan(rewards)).any():
        return None  # an infrastructure error with a reward: the exact path names it
    for name in ("seed", "store_events_at_start", "injections"):
        arrays[name] = pa.array(columns[name], type=pa.int64())
    arrays["trial"] = np.fromiter(columns["trial"], dtype=np.int64, count=n)
    arrays["reward"] = rewards
    arrays["infrastructure_error"] = infra
    arrays["extra"] = ExtraArray(text_col)
    return arrays


def _no_key_given_twice(objects: list[Raw], joined: bytes, colon_at: np.ndarray) -> bool:
    """True if the object texts ``objects`` (``joined`` end to end, its colons at
    ``colon_at``) are strict JSON objects, none of which gives a key twice at any depth.

    Decoding them refuses what the reference refuses inside a value (the module notes); the
    key test is the struct test when it applies, else the test on the decoded dicts.
    """
    lines = b"\n".join(objects)
    text = np.frombuffer(joined, dtype=np.uint8)
    quote_colons = int(np.count_nonzero(text[colon_at - 1] == _QUOTE)) if len(colon_at) else 0
    if not _quote_then_space(joined):
        keys = _first_keys(objects[0])
        decoder = None if keys is None or quote_colons != len(objects) * len(keys) \
            else _keys_decoder(keys)
        if decoder is not None:
            try:
                decoder.decode_lines(lines)
                return True
            except _ERRORS:
                pass  # objects of other keys, or a bad value: decided below
    try:
        decoded = _ANY.decode_lines(lines)
    except _ERRORS:
        return False  # bad UTF-8, a lone surrogate, an overflowing number, NaN ...
    return _no_key_dropped(decoded, lines, len(colon_at), quote_colons)


def _first_keys(raw: Raw) -> tuple[str, ...] | None:
    """The keys of one object text, or None if it does not decode."""
    try:
        value = _ANY.decode(raw)
    except _ERRORS:
        return None
    return tuple(value) if isinstance(value, dict) else None


@lru_cache(maxsize=32)
def _keys_decoder(keys: tuple[str, ...]) -> msgspec.json.Decoder | None:
    """A decoder of objects holding exactly the keys ``keys`` (any order, each required, no
    other key allowed; the values decoded as any JSON value), or None for keys msgspec cannot
    name a field by (a quote, a backslash or a control character)."""
    names = [f"f{pos}" for pos in range(len(keys))]
    try:
        struct = msgspec.defstruct("_Extra", [(name, Any) for name in names],
                                   rename=dict(zip(names, keys)), forbid_unknown_fields=True,
                                   gc=False)
    except (ValueError, TypeError):
        return None
    return msgspec.json.Decoder(struct)


def _quote_then_space(text: bytes) -> bool:
    """True if a quote of ``text`` is followed by white space (single-byte searches first:
    they run at memory speed)."""
    return any(space in text and b'"' + space in text for space in (b" ", b"\t", b"\r"))


def _no_key_dropped(decoded: list[Any], objects: bytes, colons: int, quote_colons: int) -> bool:
    """True if the decoded objects kept every key their texts (``objects``, joined by
    newlines, ``colons`` colons, ``quote_colons`` of them after a quote) wrote.

    When no string of the texts holds a quote (no ``\\"``) and no quote is followed by
    white space, every key ends in ``":`` and each ``":`` ends a key or starts a string that
    starts with a colon: the ``":`` counted are at least the keys written. For flat objects
    (one ``{`` per object, no ``[``; a brace inside a string only sends the block to the other
    test) the keys kept are their lengths summed, so equality means no key was dropped.
    Otherwise the objects are encoded again and their colons counted (the module notes).
    """
    if not (b"\\" in objects and b'\\"' in objects) and not _quote_then_space(objects) \
            and objects.count(b"{") == len(decoded) and b"[" not in objects:
        return sum(map(len, decoded)) == quote_colons
    return msgspec.json.encode(decoded).count(b":") == colons


def _texts(values: list[Raw], joined: bytes) -> pa.Array:
    """The string array of the texts ``values`` (``joined`` end to end), without a copy."""
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, values), dtype=np.int64, count=len(values)),
              out=offsets[1:])
    return pa.Array.from_buffers(TEXT_TYPE, len(values),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(joined)])


def _extra_texts(extras: Any) -> tuple[pa.Array, list[Raw], bytes] | None:
    """The ``extra`` column (the text of each object, null for a null or missing ``extra``),
    the object texts and those texts end to end; None when some ``extra`` is neither."""
    n = len(extras)
    missing = extras.count(None)
    values = list(extras) if not missing else [e for e in extras if e is not None]
    if not values:
        return pa.nulls(n, TEXT_TYPE), [], b""
    joined = b"".join(values)
    texts = _texts(values, joined)
    starts = np.frombuffer(texts.buffers()[1], dtype=np.int64)[:-1]
    first = np.frombuffer(joined, dtype=np.uint8)[starts]  # a value is never empty
    is_object = first == _OPEN
    if is_object.all() and not missing:
        return texts, values, joined
    if not (is_object | (first == _NULL_FIRST)).all():  # a valid value starting "n" is null
        return None
    # some extra is null or missing: the objects alone, placed by a row index
    objects = values if is_object.all() else [
        value for value, keep in zip(values, is_object.tolist()) if keep]
    rows = np.flatnonzero(np.fromiter((e is not None for e in extras), dtype=bool, count=n))
    index = np.full(n, -1, dtype=np.int64)
    index[rows[is_object]] = np.arange(len(objects))
    joined = b"".join(objects)
    if not objects:
        return pa.nulls(n, TEXT_TYPE), [], b""
    texts = _texts(objects, joined).take(pa.array(index, mask=index < 0))
    return texts, objects, joined
