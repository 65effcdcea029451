"""The stdio transport of the store's MCP server: every request that carries an id is answered.

The MCP SDK's stdio transport drops a line it cannot validate as a JSON-RPC message, and reads
a request whose ``id`` is not a string or an integer as a notification; in both cases the
client waits forever. This transport screens each line first (:func:`screen_line`) and answers
what the SDK would drop with a JSON-RPC 2.0 error object, then hands every other line to the
SDK unchanged:

=========  =================  ==========================================================
code       name               when
=========  =================  ==========================================================
-32700     parse error        the line is not JSON (or not UTF-8)
-32600     invalid request    not an object; ``jsonrpc`` missing or not ``"2.0"``; an
                              ``id`` that is not a string or an integer; ``method`` not a
                              string; a batch (MCP has no batches); anything else the
                              SDK's message model refuses
-32602     invalid params     ``params`` not an object; a string holding a lone surrogate;
                              nesting deeper than :data:`MAX_MESSAGE_DEPTH` levels
=========  =================  ==========================================================

The reply carries the request's ``id`` when it can be read, else ``null`` (JSON-RPC 2.0,
section 5). A line without an id (a notification) gets no reply, as the specification says;
it is logged on stderr. Each member of a batch that carries an id gets an error in one reply
array.
"""

from __future__ import annotations

import json
import logging
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from noisefloor.store.keys import MAX_ARGUMENT_DEPTH

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_MESSAGE_DEPTH",
    "PARSE_ERROR",
    "Screened",
    "screen_line",
    "screened_stdio",
]

log = logging.getLogger(__name__)

#: JSON-RPC 2.0 error codes (section 5.1 of the specification).
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602

#: Deepest nesting of a message: a tool's arguments (:data:`MAX_ARGUMENT_DEPTH`) plus the
#: envelope (message, params, arguments) and a margin. The SDK's JSON parser stops at 200
#: levels and Python's at about 1000; this bound sits below both.
MAX_MESSAGE_DEPTH = MAX_ARGUMENT_DEPTH + 8


@dataclass(frozen=True)
class Screened:
    """What to do with one line read from the client.

    Attributes
    ----------
    forward : str or None
        The line to hand to the SDK (it parses as a JSON-RPC message), or None.
    reply : str or None
        A JSON-RPC error reply to write back (one line, no newline), or None.
    problem : str
        Why the line was refused; empty when it is forwarded.
    """

    forward: str | None
    reply: str | None = None
    problem: str = ""


def _error(id_: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def _valid_id(obj: dict) -> bool:
    value = obj.get("id")
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _echo_id(obj: Any) -> Any:
    """The id to answer with: the request's own when it is a JSON scalar, else null."""
    if isinstance(obj, dict) and "id" in obj:
        value = obj["id"]
        if value is None or isinstance(value, (str, int, float, bool)):
            return value
    return None


def _depth_and_surrogate(value: Any) -> tuple[int, str]:
    """Deepest nesting of ``value`` and the path of a string with a lone surrogate (or "")."""
    deepest, bad = 0, ""
    stack = [(value, 0, "")]
    while stack:
        item, depth, path = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, str):
            if not bad:
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    bad = path or "<root>"
        elif isinstance(item, dict):
            if deepest > MAX_MESSAGE_DEPTH:
                continue
            for k, v in item.items():
                if not bad:
                    try:
                        k.encode("utf-8")
                    except UnicodeEncodeError:
                        bad = f"{path}.{k!a}".lstrip(".")
                stack.append((v, depth + 1, f"{path}.{k}".lstrip(".")))
        elif isinstance(item, list):
            if deepest > MAX_MESSAGE_DEPTH:
                continue
            stack.extend((v, depth + 1, f"{path}[{i}]") for i, v in enumerate(item))
    return deepest, bad


def _shallow(text: str) -> Any:
    """Parse only the top level of a JSON text too deep for ``json.loads``.

    Every nested value of the top-level object or array becomes ``null``; the scan is
    iterative, so no depth can exhaust the stack. Returns None when even that does not parse.
    """
    out, depth, in_string, escaped = [], 0, False, False
    for ch in text:
        if in_string:
            if depth <= 1:
                out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            if depth <= 1:
                out.append(ch)
        elif ch in "{[":
            depth += 1
            if depth == 2:
                out.append("null")
            elif depth == 1:
                out.append(ch)
        elif ch in "}]":
            if depth == 1:
                out.append(ch)
            depth -= 1
        elif depth <= 1:
            out.append(ch)
    try:
        return json.loads("".join(out))
    except ValueError:
        return None


def _check_one(obj: Any) -> tuple[int, str] | None:
    """The (code, message) of the first problem of one parsed message, or None."""
    if not isinstance(obj, dict):
        return INVALID_REQUEST, f"Invalid Request: expected a JSON object, got {type(obj).__name__}"
    if obj.get("jsonrpc") != "2.0":
        got = "it is missing" if "jsonrpc" not in obj else f"got {obj['jsonrpc']!r:.40}"
        return INVALID_REQUEST, f'Invalid Request: the jsonrpc field must be "2.0" ({got})'
    if "id" in obj and not _valid_id(obj):
        return INVALID_REQUEST, ("Invalid Request: id must be a string or an integer (MCP), got "
                                 f"{json.dumps(obj['id'])[:40]}")
    if "method" in obj and not isinstance(obj["method"], str):
        return INVALID_REQUEST, "Invalid Request: method must be a string"
    if "params" in obj and obj["params"] is not None and not isinstance(obj["params"], dict):
        return INVALID_PARAMS, ("Invalid params: params must be an object (MCP passes parameters "
                                f"by name), got {type(obj['params']).__name__}")
    depth, bad = _depth_and_surrogate(obj)
    if depth > MAX_MESSAGE_DEPTH:
        return INVALID_PARAMS, (f"Invalid params: the message nests deeper than "
                                f"{MAX_MESSAGE_DEPTH} levels (tool arguments may nest at most "
                                f"{MAX_ARGUMENT_DEPTH})")
    if bad:
        return INVALID_PARAMS, (f"Invalid params: the string at {bad} holds a lone surrogate "
                                "(a \\ud800-\\udfff escape without its pair); JSON text must be "
                                "valid Unicode")
    return None


def _sdk_refuses(text: str) -> str:
    """The SDK's reason for refusing a line as a JSON-RPC message, or "" when it accepts it."""
    import mcp_types as types

    try:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception as exc:  # any refusal is answered, never dropped
        first = str(exc).splitlines()
        return first[1].strip() if len(first) > 1 else str(exc)
    return ""


def screen_line(raw: bytes | str) -> Screened:
    """Decide whether one line from the client goes to the SDK or is answered with an error.

    Parameters
    ----------
    raw : bytes or str
        One line as read from stdin (a trailing newline is ignored).

    Returns
    -------
    Screened
        ``forward`` set for a line the SDK will parse; ``reply`` set (a JSON-RPC error with
        the request's id, or null when none can be read) for a refused request; both None
        for a blank line or a refused notification (no id, so no reply is allowed).

    Notes
    -----
    The codes follow JSON-RPC 2.0: -32700 parse error, -32600 invalid request, -32602
    invalid params. Nesting deeper than Python's parser allows is read iteratively, so the
    id of a 3,000-deep request is still found and answered.

    References
    ----------
    JSON-RPC Working Group (2013). JSON-RPC 2.0 Specification, sections 4, 5 and 6.
    https://www.jsonrpc.org/specification

    Examples
    --------
    >>> screen_line(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}').forward is not None
    True
    >>> reply = json.loads(screen_line(b'{"id": 7, "method": "ping"}').reply)
    >>> reply["id"], reply["error"]["code"], reply["error"]["message"]
    (7, -32600, 'Invalid Request: the jsonrpc field must be "2.0" (it is missing)')
    >>> screen_line(b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": [1]}').problem
    'Invalid params: params must be an object (MCP passes parameters by name), got list'
    >>> screen_line(b'{"jsonrpc": "2.0", "method": "ping", "params": [1]}').reply is None
    True
    """
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
            bad_utf8 = ""
        except UnicodeDecodeError as exc:
            text = raw.decode("utf-8", "replace")
            bad_utf8 = f"Parse error: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
    else:
        text, bad_utf8 = raw, ""
    text = text.strip()
    if not text:
        return Screened(None)
    try:
        obj = json.loads(text)
    except RecursionError:
        obj = _shallow(text)
        if obj is None:
            problem = "Parse error: the line is not JSON"
            return Screened(None, json.dumps(_error(None, PARSE_ERROR, problem)), problem)
        code = INVALID_PARAMS if isinstance(obj, dict) and "params" in obj else INVALID_REQUEST
        problem = (f"{'Invalid params' if code == INVALID_PARAMS else 'Invalid Request'}: the "
                   f"message nests deeper than {MAX_MESSAGE_DEPTH} levels (tool arguments may "
                   f"nest at most {MAX_ARGUMENT_DEPTH})")
        return _answer([obj] if isinstance(obj, dict) else obj, code, problem, batch=isinstance(obj, list))
    except ValueError as exc:
        problem = f"Parse error: the line is not JSON ({exc})"
        return Screened(None, json.dumps(_error(None, PARSE_ERROR, problem)), problem)
    if bad_utf8:
        return _answer([obj] if not isinstance(obj, list) else obj, PARSE_ERROR, bad_utf8,
                       batch=isinstance(obj, list))
    if isinstance(obj, list):
        if not obj:
            problem = "Invalid Request: an empty batch"
            return Screened(None, json.dumps(_error(None, INVALID_REQUEST, problem)), problem)
        return _answer(obj, INVALID_REQUEST, "Invalid Request: batches are not supported (MCP "
                       "sends one JSON-RPC message per line); send each request on its own line",
                       batch=True)
    found = _check_one(obj)
    if found is None:
        refused = _sdk_refuses(text)
        if not refused:
            return Screened(text)
        found = (INVALID_REQUEST, f"Invalid Request: {refused}")
    return _answer([obj], *found, batch=False)


def _answer(objs: list, code: int, problem: str, *, batch: bool) -> Screened:
    """The error reply for a refused message (each member of a batch), or none for a notification."""
    if batch:
        replies = [_error(_echo_id(o) if isinstance(o, dict) else None, code, problem)
                   for o in objs if not isinstance(o, dict) or "id" in o]
        return Screened(None, json.dumps(replies) if replies else None, problem)
    obj = objs[0]
    if isinstance(obj, dict) and "id" not in obj:
        return Screened(None, None, problem)  # a notification: JSON-RPC allows no reply
    return Screened(None, json.dumps(_error(_echo_id(obj), code, problem)), problem)


class _LineWriter:
    """Serialised line writes to the client (the SDK's replies and this module's errors)."""

    def __init__(self, stream: Any) -> None:
        import anyio

        self._stream = stream
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        async with self._lock:
            await self._stream.write(text)
            await self._stream.flush()

    async def flush(self) -> None:
        return None


class _ScreenedLines:
    """Async iterator over the client's lines that the SDK can parse; answers the others."""

    def __init__(self, source: Any, writer: _LineWriter) -> None:
        self._source, self._writer = source, writer

    def __aiter__(self):
        return self._lines()

    async def _lines(self):
        async for raw in self._source:
            screened = screen_line(raw)
            if screened.problem:
                log.warning("refused a message: %s", screened.problem)
            if screened.reply is not None:
                await self._writer.write(screened.reply + "\n")
            if screened.forward is not None:
                yield screened.forward


@asynccontextmanager
async def screened_stdio(stdin: Any = None, stdout: Any = None):
    """The SDK's stdio transport behind :func:`screen_line`: ``(read_stream, write_stream)``.

    Parameters
    ----------
    stdin : async iterable of bytes, optional
        Lines from the client; default the process's standard input.
    stdout : async text file, optional
        Where replies go (``write`` and ``flush`` coroutines); default standard output.

    Yields
    ------
    tuple
        The SDK's ``(read_stream, write_stream)`` pair, for ``Server.run``.
    """
    import io

    import anyio
    from mcp.server.stdio import stdio_server

    if stdin is None:
        stdin = anyio.wrap_file(sys.stdin.buffer)
    if stdout is None:
        stdout = anyio.wrap_file(io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8",
                                                  errors="backslashreplace", write_through=True))
    writer = _LineWriter(stdout)
    # The SDK annotates both streams as anyio.AsyncFile[str] but only iterates stdin and awaits
    # stdout.write/flush, which these two objects provide.
    async with stdio_server(stdin=_ScreenedLines(stdin, writer),  # type: ignore[arg-type]  # SDK: AsyncFile
                            stdout=writer) as streams:  # type: ignore[arg-type]  # SDK: AsyncFile
        yield streams
