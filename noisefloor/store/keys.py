"""Canonical coordination keys for tool calls.

The intercept reader of the paired noise-floor protocol fires when a tool call's ``(name,
arguments)`` *literally* matches a peer failure event. "Literally" needs a definition that does
not depend on how a model happened to format its JSON, so arguments are reduced to one
canonical text first:

* object keys are sorted (code-point order) and whitespace is never significant;
* numbers are compared by value: ``1``, ``1.0``, ``1.00`` and ``1e0`` are one number, and a
  non-integral float is written in its shortest round-trip form (``0.1``, never ``0.1000000001``);
* ``True``/``False`` stay booleans (``True`` is not ``1``), ``None`` is ``null``;
* strings are compared exactly (no trimming, no case folding, no Unicode normalisation: ``"W1"``
  and ``" W1"`` are different literals); the canonical text escapes every non-ASCII code point, so
  strings holding lone surrogates (e.g. bytes decoded with ``surrogateescape``) are keyed safely;
* ``bytes`` are kept apart from strings as ``{"$bytes": <base64>}``;
* ``Decimal`` values key like the JSON number they denote; tuples are lists; a JSON *string*
  passed as the whole argument set is parsed first.

The key itself is ``"<tool_name>:<first 32 hex digits of SHA-256(canonical text)>"``.

Two further helpers serve the runtime alarm R3 (coordination-key collision rate, "distinct calls
that map to one key"): :func:`call_fingerprint` identifies the *literal* call (formatting
insensitive, but type-preserving, so ``1`` and ``1.0`` are distinct calls that share one key).

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

import base64
import decimal
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "KEY_HEX_DIGITS",
    "MAX_ARGUMENT_DEPTH",
    "call_fingerprint",
    "canonical_arguments",
    "canonical_key",
    "check_depth",
]

#: Number of hexadecimal digits of SHA-256 kept in a key (128 bits).
KEY_HEX_DIGITS = 32

#: Deepest nesting of lists and objects accepted in a call's arguments. Real tool arguments
#: nest a few levels; the bound keeps every recursive step (keying, storing, JSON) far from
#: Python's recursion limit, so deeper input is a clear ValueError, never a RecursionError.
MAX_ARGUMENT_DEPTH = 100


def check_depth(value: Any, name: str = "arguments", limit: int = MAX_ARGUMENT_DEPTH) -> None:
    """Raise ValueError if lists/objects in ``value`` nest deeper than ``limit`` levels.

    Iterative (no recursion), so it is safe on input of any depth.

    Parameters
    ----------
    value : object
        JSON-like data (mappings, sequences other than str/bytes, scalars).
    name : str, default "arguments"
        What the value is, for the message.
    limit : int, default MAX_ARGUMENT_DEPTH
        Deepest nesting allowed; a scalar has depth 0, ``{"a": 1}`` depth 1.

    Raises
    ------
    ValueError
        Naming the path at which the limit is passed.

    Examples
    --------
    >>> check_depth({"a": [1, {"b": 2}]})
    >>> deep = []
    >>> for _ in range(200):
    ...     deep = [deep]
    >>> check_depth({"x": deep})
    Traceback (most recent call last):
    ...
    ValueError: arguments nest deeper than 100 levels (at $.x[0][0]...); ...
    """
    stack = [(value, 0, "$")]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, (str, bytes, bytearray, memoryview)) or not isinstance(
            item, (Mapping, Sequence)
        ):
            continue
        if depth >= limit:
            shown = path if len(path) <= 40 else path[:40] + "..."
            raise ValueError(
                f"{name} nest deeper than {limit} levels (at {shown}); tool arguments of a real "
                f"call nest a few levels, so this is refused rather than stored"
            )
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1, f"{path}.{k}") for k, v in item.items())
        else:
            stack.extend((v, depth + 1, f"{path}[{i}]") for i, v in enumerate(item))

_MAX_INT_AS_FLOAT = 2**53


def _number_text(value: float | decimal.Decimal, *, preserve_type: bool) -> str:
    if isinstance(value, bool):  # pragma: no cover - caught by the caller
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        return str(value) + (".i" if preserve_type else "")
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return _number_text(float(value), preserve_type=False)
        if value == value.to_integral_value():
            return _number_text(int(value), preserve_type=False) + (".d" if preserve_type else "")
        # non-integral decimals are keyed as the float they denote, like JSON numbers are
        return _number_text(float(value), preserve_type=False) + (".d" if preserve_type else "")
    if math.isnan(value):
        return '{"$float":"nan"}'
    if math.isinf(value):
        return '{"$float":"inf"}' if value > 0 else '{"$float":"-inf"}'
    if value.is_integer() and abs(value) <= _MAX_INT_AS_FLOAT:
        return str(int(value)) + (".f" if preserve_type else "")
    return repr(value) + (".f" if preserve_type else "")


def _canonical(value: Any, path: str, *, preserve_type: bool) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, decimal.Decimal)):
        return _number_text(value, preserve_type=preserve_type)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True)
    if isinstance(value, (bytes, bytearray, memoryview)):
        encoded = base64.b64encode(bytes(value)).decode("ascii")
        return '{"$bytes":' + json.dumps(encoded) + "}"
    if isinstance(value, Mapping):
        items = []
        for key in value:
            if not isinstance(key, str):
                raise TypeError(
                    f"argument keys must be strings; got {type(key).__name__} key {key!r} at {path}"
                )
        for key in sorted(value):
            child = _canonical(value[key], f"{path}.{key}", preserve_type=preserve_type)
            items.append(json.dumps(key, ensure_ascii=True) + ":" + child)
        return "{" + ",".join(items) + "}"
    if isinstance(value, Sequence):
        parts = [
            _canonical(item, f"{path}[{i}]", preserve_type=preserve_type)
            for i, item in enumerate(value)
        ]
        return "[" + ",".join(parts) + "]"
    raise TypeError(
        f"cannot key a value of type {type(value).__name__} at {path}; expected JSON-like data "
        "(dict with str keys, list, tuple, str, bytes, int, float, Decimal, bool, None)"
    )


def _coerce_arguments(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"arguments given as a string must be JSON; parsing failed at line {exc.lineno} "
                f"column {exc.colno}: {exc.msg}"
            ) from None
        except RecursionError:
            raise ValueError(f"arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels; tool "
                             "arguments of a real call nest a few levels") from None
    check_depth(arguments)
    return arguments


def canonical_arguments(arguments: Any) -> str:
    """Canonical JSON text of a tool call's arguments.

    Parameters
    ----------
    arguments : mapping, sequence, scalar, or str
        The call's arguments as parsed JSON-like data, or a JSON document as a string (parsed
        first). ``None`` means "no arguments" and is keyed as ``{}``.

    Returns
    -------
    str
        ASCII-only canonical text (sorted keys, no whitespace, numbers by value).

    Raises
    ------
    TypeError
        For a value that is not JSON-like, or a mapping key that is not a string; the message
        names the path of the offending value (``$.a[2].b``).
    ValueError
        For a string that is not valid JSON, or lists/objects nested deeper than
        :data:`MAX_ARGUMENT_DEPTH` levels.

    Examples
    --------
    >>> canonical_arguments({"b": 1.0, "a": [1, 2.50]})
    '{"a":[1,2.5],"b":1}'
    >>> canonical_arguments('{ "b" : 1e0 ,"a":[1,2.5] }')
    '{"a":[1,2.5],"b":1}'
    >>> canonical_arguments({"ok": True, "n": 1})
    '{"n":1,"ok":true}'
    """
    arguments = _coerce_arguments(arguments)
    if arguments is None:
        arguments = {}
    return _canonical(arguments, "$", preserve_type=False)


def canonical_key(tool_name: str, arguments: Any) -> str:
    """Coordination key of one tool call: the literal-match identity used by intercept.

    Parameters
    ----------
    tool_name : str
        Name of the tool, non-empty; compared exactly.
    arguments : mapping, sequence, scalar, or str
        As for :func:`canonical_arguments`.

    Returns
    -------
    str
        ``"<tool_name>:<32 hex digits>"``, the first 128 bits of
        ``SHA-256(tool_name + "\\x00" + canonical_arguments(arguments))``.

    Raises
    ------
    ValueError
        If ``tool_name`` is empty or not a string, or ``arguments`` is an invalid JSON string.
    TypeError
        If ``arguments`` holds a value that is not JSON-like.

    Notes
    -----
    Two calls share a key exactly when they have the same tool name and equal canonical
    arguments, i.e. they differ at most in key order, whitespace and number formatting.

    Examples
    --------
    >>> k1 = canonical_key("cancel_order", {"order_id": "#W123", "reason": "no longer needed"})
    >>> k2 = canonical_key("cancel_order", '{"reason":"no longer needed",  "order_id":"#W123"}')
    >>> k1 == k2, k1.startswith("cancel_order:"), len(k1.split(":")[1])
    (True, True, 32)
    >>> canonical_key("cancel_order", {"order_id": "#W456"}) == k1
    False
    """
    if not isinstance(tool_name, str) or not tool_name:
        raise ValueError(f"tool_name must be a non-empty string, got {tool_name!r}")
    text = tool_name + "\x00" + canonical_arguments(arguments)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{tool_name}:{digest[:KEY_HEX_DIGITS]}"


def call_fingerprint(tool_name: str, arguments: Any) -> str:
    """Identity of a *literal* call, for the collision-rate alarm (R3).

    Insensitive to key order and whitespace like :func:`canonical_key`, but type-preserving:
    ``{"n": 1}`` and ``{"n": 1.0}`` are two distinct calls (two fingerprints) that map to one
    coordination key. The collision rate of a key scheme is then the share of distinct
    fingerprints that share their key with another fingerprint.

    Parameters
    ----------
    tool_name : str
        Name of the tool, non-empty.
    arguments : mapping, sequence, scalar, or str
        As for :func:`canonical_arguments`.

    Returns
    -------
    str
        64 hex digits (SHA-256).

    Raises
    ------
    ValueError, TypeError
        As for :func:`canonical_key`.

    Examples
    --------
    >>> call_fingerprint("f", {"n": 1}) == call_fingerprint("f", {"n": 1.0})
    False
    >>> canonical_key("f", {"n": 1}) == canonical_key("f", {"n": 1.0})
    True
    """
    if not isinstance(tool_name, str) or not tool_name:
        raise ValueError(f"tool_name must be a non-empty string, got {tool_name!r}")
    arguments = _coerce_arguments(arguments)
    if arguments is None:
        arguments = {}
    text = tool_name + "\x00" + _canonical(arguments, "$", preserve_type=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
