"""Strict JSON parsing: duplicate keys and non-finite numbers rejected, UTF-8 only.

Two parsers give the same answer on every input they both accept:

* :func:`parse_strict` -- the reference: the standard library's :mod:`json` with an
  ``object_pairs_hook`` that rejects duplicate keys, a ``parse_constant`` that rejects the
  ``NaN``/``Infinity``/``-Infinity`` literals and a ``parse_float`` that rejects numbers that
  overflow to infinity (unless ``allow_nan=True``).
* :func:`parse_fast` -- :mod:`orjson` (which always rejects non-finite literals, invalid UTF-8
  and lone surrogates) plus a sound duplicate-key test that holds for any content, colons and
  escapes in strings and nested objects included (:func:`unsure_lines`).

The duplicate-key test compares colon bytes. In the line as written, every ``:`` is either a
key's separator or a character inside a string (a key's or a value's), including the strings
of a key given twice, which orjson keeps only once. orjson writes the decoded value back with
one ``:`` per key it kept and one per ``:`` character in the strings it kept (it never
escapes a colon). So the written line has at least as many colons as the re-encoded value,
and exactly as many only if no key was dropped -- unless a ``\\u003a`` escape decoded to a
colon that the line does not spell out, which is why lines holding that escape go to
:func:`parse_strict`. The same test runs on a whole block of lines at once
(:func:`unsure_lines`): one count over the block's bytes and one over its re-encoding.

orjson also widens an integer outside ``[-2**63, 2**64)`` to a float (which it writes with an
exponent of at least 18); a line where that may have happened goes to :func:`parse_strict`
too, so integers stay exact.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import orjson

from noisefloor.stats.validation import mention_text

__all__ = ["JSONProblem", "parse_fast", "parse_strict", "unsure_lines"]


class JSONProblem(ValueError):
    """A line is not one strict JSON value. ``kind`` is ``"json"``, ``"encoding"``,
    ``"duplicate_key"`` or ``"non_finite"``; ``field`` is the dotted path of the value at
    fault when it is known (a lone surrogate), else None. With ``mentions=True`` the message
    mentions parameters as ``{allow_nan=True}`` (rendered ``allow_nan=True``); ``templates``
    then keeps it as written, for :class:`~noisefloor.logs.records.errors.LogProblem`."""

    def __init__(self, message: str, kind: str = "json", field: str | None = None, *,
                 mentions: bool = False) -> None:
        super().__init__(mention_text(message) if mentions else message)
        self.kind = kind
        self.field = field
        self.templates = (message, None) if mentions else None


# A \uXXXX escape of a UTF-16 surrogate; json.loads turns a lone one into a str that cannot be
# encoded again (pyarrow, orjson and every UTF-8 writer refuse it), so it is refused here.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _surrogate_path(value: Any, path: str = "") -> tuple[str, str] | None:
    """``(dotted path, character)`` of the first string (key or value) holding a surrogate."""
    if type(value) is str:
        for ch in value:
            if "\ud800" <= ch <= "\udfff":
                return path, ch
        return None
    if type(value) is dict:
        for key, item in value.items():
            where = f"{path}.{key}" if path else key
            found = _surrogate_path(key, where) or _surrogate_path(item, where)
            if found:
                return found
    elif type(value) is list:
        for pos, item in enumerate(value):
            found = _surrogate_path(item, f"{path}[{pos}]")
            if found:
                return found
    return None


def _refuse_lone_surrogates(text: str, obj: Any) -> None:
    if "\\u" not in text or not _SURROGATE_ESCAPE.search(text):
        return
    found = _surrogate_path(obj)
    if found is None:  # every surrogate escape was half of a valid pair
        return
    where, ch = found
    raise JSONProblem(
        f"lone UTF-16 surrogate \\u{ord(ch):04x} in a string (an escape without its pair is "
        "not a Unicode character; fix the writer, or replace it)", "encoding", where or None)


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JSONProblem(f"duplicate key {key!r} in one object", "duplicate_key")
            seen.add(key)
    return obj


def _reject_constant(name: str) -> float:
    raise JSONProblem(
        f"non-finite number literal {name} (pass {{allow_nan=True}} to accept it "
        "where a field may hold it, e.g. extra; a reward must be finite)", "non_finite",
        mentions=True)


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise JSONProblem(
            f"number {text} overflows to infinity (pass {{allow_nan=True}} to accept "
            "it where a field may hold it, e.g. extra; a reward must be finite)",
            "non_finite", mentions=True)
    return value


def parse_strict(
    raw: bytes, *, allow_nan: bool = False, document: bool = False, surrogates: bool = False,
) -> Any:
    """Decode one JSON value from UTF-8 bytes, strictly.

    Parameters
    ----------
    raw : bytes
        The encoded value (one JSONL line without its newline, or a whole JSON document).
    allow_nan : bool, default False
        Accept the ``NaN``, ``Infinity`` and ``-Infinity`` literals and overflowing numbers.
    document : bool, default False
        ``raw`` is a whole JSON document (not one JSONL line): every problem is located by
        line and column, a duplicate key or non-finite number by the object holding it.
    surrogates : bool, default False
        Let strings hold lone UTF-16 surrogates (format detection only looks at the keys).

    Returns
    -------
    object
        The decoded value.

    Raises
    ------
    JSONProblem
        Invalid UTF-8, malformed JSON, a duplicate key in one object, a string holding a lone
        UTF-16 surrogate escape such as ``"\\ud800"`` (``field`` names where), or a non-finite
        number while ``allow_nan`` is False. The message gives the column (and the line, for a
        document or an input spanning lines).

    Examples
    --------
    >>> parse_strict(b'{"task_id": "007"}')
    {'task_id': '007'}
    >>> parse_strict(b'{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    noisefloor.logs.jsonl.jsonparse.JSONProblem: duplicate key 'a' in one object
    >>> parse_strict(b'{"reward": NaN}')
    Traceback (most recent call last):
    ...
    noisefloor.logs.jsonl.jsonparse.JSONProblem: non-finite number literal NaN (pass allow_nan=True to accept it where a field may hold it, e.g. extra; a reward must be finite)
    >>> try:
    ...     parse_strict(b'{"extra": {"note": "\\\\ud800"}}')
    ... except JSONProblem as exc:
    ...     print(exc.field, exc.kind)
    extra.note encoding
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        hint = ""
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            hint = "; it starts with a UTF-16 byte-order mark: save the file as UTF-8"
        raise JSONProblem(
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at "
            f"{_byte_position(raw, exc.start, document)}{hint})",
            "encoding",
        ) from None
    try:
        if allow_nan:
            obj = json.loads(text, object_pairs_hook=_pairs_hook)
        else:
            obj = json.loads(
                text,
                object_pairs_hook=_pairs_hook,
                parse_constant=_reject_constant,
                parse_float=_finite_float,
            )
    except json.JSONDecodeError as exc:
        where = (f"line {exc.lineno}, column {exc.colno}" if document or "\n" in text
                 else f"column {exc.colno}")
        raise JSONProblem(f"malformed JSON: {exc.msg} ({where})") from None
    except JSONProblem as exc:
        # A duplicate key or a NaN inside a multi-line document (a tau2-bench results.json, a
        # tau-bench list): the hooks do not know where they are, so find the object again.
        if not (document or "\n" in text):
            raise
        pos = _locate_object(text, allow_nan)
        if pos is None:
            raise
        line = text.count("\n", 0, pos) + 1
        column = pos - text.rfind("\n", 0, pos)
        raise JSONProblem(f"{exc} (in the object starting at line {line}, column {column})",
                          exc.kind) from None
    except RecursionError:
        raise JSONProblem("malformed JSON: nested too deeply") from None
    if not surrogates:
        _refuse_lone_surrogates(text, obj)
    return obj


def _byte_position(raw: bytes, offset: int, document: bool) -> str:
    """``column C`` on a one-line input, ``line L, column C`` for a document or when ``raw``
    spans lines."""
    if not document and b"\n" not in raw:
        return f"column {offset + 1}"
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - raw.rfind(b"\n", 0, offset)
    return f"line {line}, column {column}"


def _locate_object(text: str, allow_nan: bool) -> int | None:
    """Offset of the innermost object in which strict decoding of ``text`` fails, or None.

    Re-decodes with the pure-Python scanner, whose object parser can be wrapped to note where
    each object starts; only called on the error path, so its slowness does not matter.
    """
    found: list[int] = []

    def parse_object(s_and_end, *args):
        try:
            return json.decoder.JSONObject(s_and_end, *args)  # type: ignore[attr-defined]  # typeshed omits it
        except JSONProblem:
            if not found:
                found.append(s_and_end[1] - 1)
            raise

    if allow_nan:
        decoder = json.JSONDecoder(object_pairs_hook=_pairs_hook)
    else:
        decoder = json.JSONDecoder(object_pairs_hook=_pairs_hook,
                                   parse_constant=_reject_constant, parse_float=_finite_float)
    # typeshed omits the pure-Python scanner and the decoder's hook attributes it reads
    decoder.parse_object = parse_object  # type: ignore[attr-defined]  # typeshed omits it
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]  # idem
    try:
        decoder.decode(text)
    except (JSONProblem, ValueError, RecursionError):
        pass
    return found[0] if found else None


_DIGITS_AS_D = bytes.maketrans(b"0123456789", b"dddddddddd")
_RUN = b"d" * 19


def wide_int_lines(data: bytes, newlines: Any) -> set[int]:
    """0-based indices of the lines of a block (``data``, ``\\n`` offsets ``newlines``) that
    hold a run of 19+ digits (see :func:`may_hold_wide_int`); one C-level pass over the block.
    """
    marked = data.translate(_DIGITS_AS_D)
    found: set[int] = set()
    pos = marked.find(_RUN)
    while pos != -1:
        line = int(np.searchsorted(newlines, pos))
        found.add(line)
        nxt = int(newlines[line]) + 1 if line < len(newlines) else len(data)
        pos = marked.find(_RUN, nxt)
    return found


def may_hold_wide_int(raw: bytes) -> bool:
    """True if ``raw`` has a run of 19+ digits, the only way to write an integer that orjson
    would widen to a float (so a float it returns cannot be trusted to be one).

    Examples
    --------
    >>> may_hold_wide_int(b'{"x": 18446744073709551616}'), may_hold_wide_int(b'{"x": 0.5}')
    (True, False)
    """
    return _RUN in raw.translate(_DIGITS_AS_D)


# A \u003a escape decodes to a colon the written line does not spell out (see the module notes).
_COLON_ESCAPE = re.compile(rb"\\u003[aA]")
_COLON_PREFIX = b"\\u003"
# How orjson writes a float of magnitude >= 1e18: a widened integer (>= 2**63) looks like this.
_WIDE_FLOAT = re.compile(rb"e\+(?:1[89]|[2-9][0-9]|[0-9]{3})")


def unsure_lines(lines: list[bytes], objs: list[Any], data: bytes | None = None,
                 newlines: Any = None) -> list[int]:
    """Positions of the lines whose :mod:`orjson` decoding may differ from :func:`parse_strict`.

    Parameters
    ----------
    lines : list of bytes
        JSONL lines (without newlines), each decoded by ``orjson.loads`` into ``objs``.
    objs : list
        The decoded values, one per line.
    data : bytes, optional
        ``b"\\n".join(lines)`` when the caller has it (saves the join).
    newlines : numpy.ndarray, optional
        Offsets of the ``\\n`` bytes of ``data``.

    Returns
    -------
    list of int
        Sorted positions of the lines that may hold a duplicate key, a ``\\u003a`` escape or
        an integer that orjson widened to a float; every other line decodes exactly as the
        reference parser decodes it (see the module notes for why the test is sound).

    Notes
    -----
    One ``bytes.count`` over the block and one over ``orjson.dumps(objs)`` decide for the
    whole block; only when they differ (a real duplicate key) is each line counted alone.

    Examples
    --------
    >>> import orjson
    >>> lines = [b'{"task_id": "spatial_key_door:0"}', b'{"a": {"b": 1, "b": 2}}']
    >>> unsure_lines(lines, [orjson.loads(x) for x in lines])
    [1]
    """
    if data is None:
        data = b"\n".join(lines)
    if newlines is None:
        newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    dumped = orjson.dumps(objs)
    unsure: set[int] = set()
    # each regex runs only when its literal prefix occurs (a fast bytes search)
    if _COLON_PREFIX in data and _COLON_ESCAPE.search(data):
        unsure.update(i for i, line in enumerate(lines) if _COLON_ESCAPE.search(line))
    if b"e+" in dumped and _WIDE_FLOAT.search(dumped):
        unsure.update(i for i in wide_int_lines(data, newlines)
                      if _WIDE_FLOAT.search(orjson.dumps(objs[i])))
    written, kept = data.count(b":"), dumped.count(b":")
    for i in unsure:
        written -= lines[i].count(b":")
        kept -= orjson.dumps(objs[i]).count(b":")
    if written != kept:
        unsure.update(i for i, (line, obj) in enumerate(zip(lines, objs))
                      if i not in unsure and line.count(b":") != orjson.dumps(obj).count(b":"))
    return sorted(unsure)


def parse_fast(raw: bytes, *, allow_nan: bool = False) -> Any:
    """Decode one JSONL line with :mod:`orjson`, falling back to :func:`parse_strict`.

    Gives the same result and the same errors as :func:`parse_strict` for every line (see the
    module notes for why the duplicate-key test is sound whatever the line holds); only a line
    that orjson refuses or that the test cannot vouch for is decoded again by the reference.

    Examples
    --------
    >>> parse_fast(b'{"task_id": "spatial_key_door:0", "trial": 0}')
    {'task_id': 'spatial_key_door:0', 'trial': 0}
    >>> parse_fast(b'{"extra": {"b": 1, "b": 1}}')
    Traceback (most recent call last):
    ...
    noisefloor.logs.jsonl.jsonparse.JSONProblem: duplicate key 'b' in one object
    """
    if allow_nan:
        return parse_strict(raw, allow_nan=True)
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return parse_strict(raw)
    if type(obj) is not dict or _COLON_ESCAPE.search(raw):
        return parse_strict(raw)
    dumped = orjson.dumps(obj)
    if raw.count(b":") != dumped.count(b":"):
        return parse_strict(raw)
    if _WIDE_FLOAT.search(dumped) and may_hold_wide_int(raw):
        return parse_strict(raw)
    return obj
