"""The response boundary: read an HTTP answer within bounds and check its shape.

Nothing reads an endpoint's answer before it passed here. :func:`read_body` reads a body
with a cap on the bytes received *and* on the bytes they inflate to (gzip and deflate are
decompressed here, in bounded steps), so neither an endless chunked body nor a small body
that inflates to gigabytes can exhaust memory; the caller puts one total deadline around the
request and this read. :func:`parse_chat_completion` then checks the body against the
chat-completions shape with strict pydantic models: an object with a list ``choices`` whose
first element has a ``message`` whose ``content`` is a string (or null), usage counts that are
integers in ``[0, MAX_TOKENS]``, text that is valid Unicode (no lone surrogates), no
duplicate keys and no nesting deeper than the JSON parser's recursion limit. Whatever fails raises
:class:`MalformedResponse` (or :class:`ResponseTooLarge`), which the client retries and, when
the retries are spent, turns into an infrastructure error of that request.

Examples
--------
>>> ok = b'{"choices": [{"message": {"role": "assistant", "content": "hi"},'
>>> ok += b' "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}'
>>> parsed = parse_chat_completion(ok, "application/json")
>>> parsed.content, parsed.tokens_in, parsed.tokens_out, parsed.finish_reason
('hi', 3, 1, 'stop')
>>> try:
...     parse_chat_completion(b'[{"choices": []}]', "application/json")
... except MalformedResponse as exc:
...     print(exc)
the body is a JSON array, not a chat-completion object
>>> try:
...     parse_chat_completion(b'{"choices": [{"message": {"content": 42}}]}', "application/json")
... except MalformedResponse as exc:
...     print(exc)
field choices.0.message.content: expected a string or null, got 42
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "ERROR_EXCERPT_CHARS",
    "MAX_TOKENS",
    "BodyRead",
    "MalformedResponse",
    "ParsedCompletion",
    "ResponseTooLarge",
    "error_excerpt",
    "parse_chat_completion",
    "read_body",
]

#: Default cap on a response body in bytes, after decompression (8 MiB; a chat completion of
#: 100,000 tokens with log-probabilities is well under it).
DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
#: Characters of an error body kept in an error message (the body's size is given beside it).
ERROR_EXCERPT_CHARS = 500
#: Bytes of an error body read at most (the rest is not received).
ERROR_BODY_READ_BYTES = 64 * 1024
#: Largest token count accepted in ``usage`` (10^9 tokens in one request is not a real count).
MAX_TOKENS = 10**9
_STEP = 64 * 1024  # most bytes inflated per decompression step


class MalformedResponse(ValueError):
    """A response that is not a chat completion (its shape, encoding or framing is wrong)."""


class ResponseTooLarge(MalformedResponse):
    """A response body over the size cap (received, or after decompression)."""


@dataclass(frozen=True)
class BodyRead:
    """A body read by :func:`read_body`.

    Attributes
    ----------
    data : bytes
        The (decompressed) bytes kept, at most the cap.
    received : int
        Bytes received on the wire.
    complete : bool
        False when reading stopped at the cap.
    """

    data: bytes
    received: int
    complete: bool


class _Inflater:
    """Bounded gzip/deflate decoding: never more than ``cap`` bytes out, in small steps."""

    def __init__(self, encoding: str) -> None:
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            self._z = None
        elif encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj()
        else:
            raise MalformedResponse(f"unsupported Content-Encoding {encoding!r} "
                                    "(gzip, deflate or identity were asked for)")
        self._deflate_raw_tried = encoding != "deflate"

    def feed(self, chunk: bytes, room: int) -> bytes:
        """Inflate ``chunk``; at most ``room + 1`` bytes out (one more than fits means 'over')."""
        if self._z is None:
            return chunk[:room + 1]
        out = []
        size = 0
        data = chunk
        try:
            while True:
                piece = self._z.decompress(data, min(_STEP, room + 1 - size))
                out.append(piece)
                size += len(piece)
                data = self._z.unconsumed_tail
                if size > room or not data:
                    break
        except zlib.error as exc:
            if not self._deflate_raw_tried and not out:  # 'deflate' sent as a raw stream
                self._deflate_raw_tried = True
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.feed(chunk, room)
            raise MalformedResponse(f"the compressed body is corrupt ({exc})") from None
        return b"".join(out)


async def read_body(chunks: AsyncIterator[bytes], *, encoding: str, cap: int,
                    deadline: float | None = None) -> BodyRead:
    """Read a body of raw (possibly compressed) chunks within ``cap`` bytes.

    Parameters
    ----------
    chunks : async iterator of bytes
        The body as received, transfer framing removed but still compressed
        (:meth:`noisefloor.endpoints.transport.HTTPPool.body`).
    encoding : str
        The ``Content-Encoding`` header (``""``, ``identity``, ``gzip`` or ``deflate``).
    cap : int
        Most bytes kept, counted after decompression; the received bytes are capped at the
        same figure.
    deadline : float, optional
        ``time.monotonic()`` value after which reading stops with :class:`TimeoutError`
        (the caller's total deadline; checked between chunks).

    Returns
    -------
    BodyRead
        ``complete`` is False when the body went over ``cap`` (reading stopped there).

    Raises
    ------
    MalformedResponse
        Unsupported encoding or corrupt compressed data.
    TimeoutError
        The deadline passed.
    """
    inflater = _Inflater(encoding)
    kept: list[bytes] = []
    size = received = 0
    async for chunk in chunks:
        received += len(chunk)
        piece = inflater.feed(chunk, cap - size)
        kept.append(piece)
        size += len(piece)
        if size > cap or received > cap:
            return BodyRead(b"".join(kept)[:cap], received, False)
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("the body did not arrive within the deadline")
    return BodyRead(b"".join(kept), received, True)


def error_excerpt(body: BodyRead, content_length: str | None = None) -> str:
    """An error body as a short excerpt plus its size (never the whole body).

    Examples
    --------
    >>> error_excerpt(BodyRead(b'{"error": "busy"}', 17, True))
    '{"error": "busy"} (17 bytes)'
    >>> error_excerpt(BodyRead(b"x" * 600, 600, False), "52428800")[-44:]
    '... (excerpt of a body of 52428800 bytes)'
    """
    text = body.data.decode("utf-8", "replace").strip()
    size = (content_length if content_length and content_length.isdigit()
            else f"{body.received}" if body.complete else f"more than {body.received}")
    if len(text) > ERROR_EXCERPT_CHARS or not body.complete:
        return f"{text[:ERROR_EXCERPT_CHARS]}... (excerpt of a body of {size} bytes)"
    return f"{text} ({size} bytes)"


# ----- the chat-completion shape ----------------------------------------------------------
_Tokens = StrictInt


class _Usage(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    prompt_tokens: _Tokens | None = Field(default=None, ge=0, le=MAX_TOKENS)
    completion_tokens: _Tokens | None = Field(default=None, ge=0, le=MAX_TOKENS)


class _Function(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    name: StrictStr
    arguments: StrictStr


class _ToolCall(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    id: StrictStr
    function: _Function


class _Message(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    content: StrictStr | None = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    message: _Message
    finish_reason: StrictStr | None = None


class _ChatCompletion(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    choices: list[_Choice]
    usage: _Usage | None = None


@dataclass(frozen=True)
class ParsedCompletion:
    """The parts of a valid chat completion that noisefloor reads.

    Attributes
    ----------
    content : str or None
        ``choices[0].message.content``.
    finish_reason : str or None
    tokens_in, tokens_out : int or None
        ``usage.prompt_tokens`` / ``usage.completion_tokens`` (in ``[0, MAX_TOKENS]``).
    n_choices : int
    tool_calls : tuple of dict or None, default None
        ``choices[0].message.tool_calls`` as ``{"id", "name", "arguments"}`` dicts
        (``arguments`` is the JSON text the model sent); None when the message has none.
    """

    content: str | None
    finish_reason: str | None
    tokens_in: int | None
    tokens_out: int | None
    n_choices: int
    tool_calls: tuple[dict[str, str], ...] | None = None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise MalformedResponse(f"duplicate key {key!r} in a JSON object")
            seen.add(key)
    return out


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_chat_completion(body: bytes, content_type: str | None) -> ParsedCompletion:
    """Check a response body against the chat-completions shape.

    Parameters
    ----------
    body : bytes
        The whole (decompressed) body.
    content_type : str or None
        The ``Content-Type`` header (used to name what arrived instead of JSON).

    Returns
    -------
    ParsedCompletion

    Raises
    ------
    MalformedResponse
        Not UTF-8 JSON, an SSE stream, HTML, a JSON value other than an object, duplicate
        keys, nesting deeper than the parser's recursion limit, ``choices`` not a list, a choice
        without ``message``, content that is not a string, usage counts that are not integers
        in ``[0, MAX_TOKENS]``, or content with a lone surrogate. The message names the field.
    """
    ctype = (content_type or "").split(";")[0].strip().lower()
    if not body.strip():
        raise MalformedResponse("the body is empty")
    if ctype == "text/event-stream" or body.lstrip().startswith(b"data:"):
        raise MalformedResponse("the body is a server-sent event stream (text/event-stream); "
                                "a complete chat-completion JSON object was expected")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedResponse(f"the body is not UTF-8 ({exc.reason} at byte {exc.start})"
                                ) from None
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise MalformedResponse("the JSON nests too deeply to be a chat completion") from None
    except MalformedResponse:
        raise
    except ValueError as exc:
        what = f"a {ctype} body" if ctype and ctype != "application/json" else "the body"
        raise MalformedResponse(f"{what} is not JSON ({exc}); it starts "
                                f"{_describe(text[:40])}") from None
    if not isinstance(data, dict):
        kind = {list: "a JSON array", str: "a JSON string", type(None): "JSON null",
                bool: "a JSON boolean"}.get(type(data), "a JSON number")
        raise MalformedResponse(f"the body is {kind}, not a chat-completion object")
    try:
        parsed = _ChatCompletion.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        expected = {"string_type": "a string or null", "int_type": "an integer",
                    "list_type": "a list", "model_type": "an object",
                    "missing": "present", "greater_than_equal": "a count >= 0",
                    "less_than_equal": f"a count <= {MAX_TOKENS:,}"}.get(err["type"],
                                                                        err["msg"])
        got = "nothing" if err["type"] == "missing" else _describe(err.get("input"))
        raise MalformedResponse(f"field {where}: expected {expected}, got {got}") from None
    usage = parsed.usage
    first = parsed.choices[0] if parsed.choices else None
    content = first.message.content if first is not None else None
    for name, value in (("choices.0.message.content", content),
                        ("choices.0.finish_reason", first.finish_reason if first else None)):
        if value is not None:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise MalformedResponse(f"field {name}: holds a lone surrogate "
                                        "(not valid Unicode text)") from None
    calls = first.message.tool_calls if first is not None else None
    return ParsedCompletion(
        content=content, finish_reason=first.finish_reason if first else None,
        tokens_in=usage.prompt_tokens if usage else None,
        tokens_out=usage.completion_tokens if usage else None,
        n_choices=len(parsed.choices),
        tool_calls=tuple({"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
                         for c in calls) if calls else None)
