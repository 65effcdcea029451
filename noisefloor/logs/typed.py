"""Typed decoding of a block of JSONL trial records with msgspec (the ``extra`` fast path).

:func:`typed_block` decodes every line of a block into a :class:`msgspec.Struct` that states
the :class:`~noisefloor.logs.schema.TrialRecord` rules (exact JSON types, required keys, no
unknown key, bounds, non-empty strings, the SHA-256 pattern, the schema version) and keeps
``extra`` as its raw JSON text (:class:`msgspec.Raw`). It returns typed arrays when it can vouch
that the strict reader (:func:`noisefloor.logs.jsonparse.parse_strict` and the pydantic model)
accepts *every* line of the block and reads it to the same values, and None otherwise: the
caller then reads the block with the exact path, which names each problem. So this module
changes speed, never the verdict or the frame.

What msgspec does not check is checked here:

* *a key given twice* (msgspec keeps the last): in the block as written every ``:`` is a key's
  separator or a character inside a string. Top level: the block's colons are counted and
  compared with the keys msgspec kept (ten required ones and each optional one present),
  plus the colons inside the kept string values and inside the ``extra`` texts. A key given
  twice adds at least one colon, so equality proves none was. Inside ``extra``: the texts are
  decoded (:mod:`msgspec`, exact integers) and re-encoded; the re-encoding has as many colons
  as the texts only if no key was dropped. A ``\\u003a`` escape (a colon the line does not
  spell out) sends the block to the exact path;
* *inside* ``extra`` (kept as text by the typed decode): UTF-8, lone surrogates, numbers
  overflowing to infinity and ``NaN``/``Infinity`` literals, all refused by msgspec's decode
  of the texts; an ``extra`` that is neither an object nor null;
* *one record per line*: msgspec's line decoder skips blank lines, so the count of records
  must equal the count of lines, and each line must start with ``{``;
* the reader's rule that an infrastructure error carries no reward.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from msgspec import UNSET, Meta, Raw, UnsetType

from noisefloor.logs.extra import TEXT_TYPE, ExtraArray
from noisefloor.logs.frame import ARROW_STRING

__all__ = ["typed_block"]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_Int64 = Annotated[int, Meta(ge=_INT64_MIN, le=_INT64_MAX)]
_Count = Annotated[int, Meta(ge=0, le=_INT64_MAX)]
_Name = Annotated[str, Meta(min_length=1)]
_Reward = Annotated[float, Meta(ge=0.0, le=1.0)]
_Sha256 = Annotated[str, Meta(pattern=r"\A[0-9a-f]{64}\Z")]


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
_FIELDS = ("schema_version", "benchmark", "model", "protocol", "seed", "task_id", "trial",
           "reward", "termination_reason", "infrastructure_error", "store_events_at_start",
           "injections", "first_request_sha256", "extra")
_GET = attrgetter(*_FIELDS)
_N_REQUIRED = 10
_COLON_ESCAPE = b"\\u003"
_OPEN, _NULL_FIRST = ord("{"), ord("n")


def _present(values: list[Any]) -> tuple[list[Any], int]:
    """``values`` with UNSET as None, and how many were set."""
    unset = values.count(UNSET)
    if not unset:
        return values, len(values)
    if unset == len(values):
        return [None] * unset, 0
    return [None if v is UNSET else v for v in values], len(values) - unset


def _no_key_dropped(decoded: list[dict[str, Any]], objects: bytes, colons: int) -> bool:
    """True if the decoded objects kept every key their texts (``objects``, ``colons``
    colons) wrote, i.e. no object gave a key twice.

    When no string of the texts holds a quote (no ``\\"``) and no string is followed by
    white space, every key ends in ``":`` and each ``":`` ends a key or starts a string that
    starts with a colon: the ``":`` counted are at least the keys written. For flat objects
    (one ``{`` per object, no ``[``; a brace inside a string only sends the block to the other
    test) the keys kept are their lengths summed, so equality means no key was dropped.
    Otherwise the objects are encoded again and their colons counted (the module notes).
    """
    if _keys_end_in_quote_colon(objects) and objects.count(b"{") == len(decoded) \
            and b"[" not in objects:  # one brace per object, no bracket: no nesting
        return sum(map(len, decoded)) == objects.count(b'":')
    return msgspec.json.encode(decoded).count(b":") == colons


def _keys_end_in_quote_colon(text: bytes) -> bool:
    """True if ``text`` holds no ``\\"`` and no quote followed by white space (single-byte
    searches first: they run at memory speed)."""
    if b"\\" in text and b'\\"' in text:
        return False
    return not any(space in text and b'"' + space in text for space in (b" ", b"\t", b"\r"))


def _colons(arr: pa.Array) -> int:
    total = pc.sum(pc.count_substring(arr, ":")).as_py()
    return int(total or 0)


def typed_block(data: bytes) -> dict[str, Any] | None:
    """Decode and validate a block of JSONL records; None unless every line is exact.

    Parameters
    ----------
    data : bytes
        Complete lines joined by ``\\n`` (no newline after the last).

    Returns
    -------
    dict or None
        ``{field: array}`` as :func:`noisefloor.logs.columns.to_arrays` returns it (``extra``
        an :class:`~noisefloor.logs.extra.ExtraArray` of the texts as written), one row per
        line, or None: the caller reads the block with the exact path.
    """
    n = data.count(b"\n") + 1
    if not data.startswith(b"{") or data.count(b"\n{") != n - 1:
        return None
    if _COLON_ESCAPE in data:  # a \u003a escape: the colon test cannot vouch (module notes)
        return None
    try:
        lines = _DECODER.decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if len(lines) != n:
        return None
    columns = dict(zip(_FIELDS, map(list, zip(*map(_GET, lines)))))
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
    text_col, objects = _extra_texts(extras)
    if text_col is None:
        return None  # an extra that is neither an object nor null
    written = data.count(b":")
    in_objects = objects.count(b":")
    kept = kept_keys + sum(_colons(arrays[name]) for name in _COLON_STRINGS) + in_objects
    if written != kept:
        return None  # a top-level key given twice (or a colon escape): the exact path
    if objects:
        try:
            decoded = _ANY.decode_lines(objects)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None  # bad UTF-8, a lone surrogate, an overflowing number, NaN ...
        if not _no_key_dropped(decoded, objects, in_objects):
            return None  # a key given twice inside extra
        del decoded
    infra = np.array(columns["infrastructure_error"], dtype=bool)
    reward = columns["reward"]
    rewards = np.array(reward, dtype=np.float64)  # None -> nan
    if (infra & ~np.isnan(rewards)).any():
        return None  # an infrastructure error with a reward: the exact path names it
    for name in ("seed", "store_events_at_start", "injections"):
        arrays[name] = pa.array(columns[name], type=pa.int64())
    arrays["trial"] = np.array(columns["trial"], dtype=np.int64)
    arrays["reward"] = rewards
    arrays["infrastructure_error"] = infra
    arrays["extra"] = ExtraArray(text_col)
    return arrays


def _extra_texts(extras: list[Any]) -> tuple[pa.Array | None, bytes]:
    """The ``extra`` column (text of each object, null for a null or missing ``extra``) and the
    object texts joined by newlines; ``(None, b"")`` when some ``extra`` is neither."""
    n = len(extras)
    at = None if extras.count(None) == 0 else np.flatnonzero(
        np.fromiter((e is not None for e in extras), dtype=bool, count=n))
    values = extras if at is None else [e for e in extras if e is not None]
    if not values:
        return pa.nulls(n, TEXT_TYPE), b""
    joined = b"\n".join(values)  # a JSON value holds no raw newline: one piece per value
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    first = np.frombuffer(joined, dtype=np.uint8)[starts]
    is_object = first == _OPEN
    if not (is_object | (first == _NULL_FIRST)).all():  # a valid value starting "n" is null
        return None, b""
    pieces = joined.split(b"\n")
    objects = joined if is_object.all() else b"\n".join(
        piece for piece, keep in zip(pieces, is_object.tolist()) if keep)
    texts = pa.array(pieces, type=pa.large_binary(), mask=~is_object).cast(TEXT_TYPE)
    if at is not None:
        index = np.full(n, -1, dtype=np.int64)
        index[at] = np.arange(len(values))
        texts = texts.take(pa.array(index, mask=index < 0))
    return texts, objects
