"""Payload canonicalisation shared by the session and the framework adapters: request hashes,
tool-call arguments and tool responses as text."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["as_arguments", "as_text", "request_sha256"]


def request_sha256(payload: Any) -> str:
    """Hex SHA-256 of a model request (JSON-serialisable), for ``first_request_sha256``.

    Keys are sorted and separators fixed, so byte-identical requests hash alike.

    Parameters
    ----------
    payload : object
        The request body (messages, tools, sampling parameters); values JSON cannot encode are
        written with ``str()``.

    Returns
    -------
    str
        64 lowercase hex digits.

    Examples
    --------
    >>> from noisefloor.protocols import request_sha256
    >>> request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    >>> len(request_sha256(request))
    64
    >>> request_sha256(request) == request_sha256(dict(reversed(list(request.items()))))
    True
    """
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def as_arguments(arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """Tool-call arguments as a dict (a JSON string is parsed; ``None`` is ``{}``).

    Raises
    ------
    ValueError
        If a string is not JSON.
    TypeError
        If the value is not a mapping.

    Examples
    --------
    >>> as_arguments('{"a": 1}'), as_arguments(None)
    ({'a': 1}, {})
    """
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ValueError(f"tool arguments string is not JSON: {exc.msg}") from None
    if not isinstance(arguments, Mapping):
        raise TypeError(f"tool arguments must be a mapping, got {type(arguments).__name__}")
    return dict(arguments)


def as_text(response: Any) -> str:
    """A tool response as text: strings unchanged, other values as sorted-key JSON (``str()``
    as a fallback).

    Examples
    --------
    >>> as_text({"b": 1, "a": 2}), as_text("ok")
    ('{"a": 2, "b": 1}', 'ok')
    """
    if isinstance(response, str):
        return response
    try:
        return json.dumps(response, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(response)
