"""A misbehaving OpenAI-compatible server: every odd answer a proxy or gateway can send.

:class:`HostileServer` listens on 127.0.0.1 (a free port by default) from an asyncio event
loop in a background thread and answers every ``POST .../chat/completions`` with the *kind*
of misbehaviour configured for the request's model (:data:`KINDS`); a model mapped to
``"ok"`` gets a valid chat completion. It is the counterpart of
:class:`harness.runner.scripted.ScriptedServer` (which scripts healthy agents and a few
transport faults) for trying the response boundary of :mod:`noisefloor.endpoints`.

Kinds
-----
``html``            a 200 whose body is an HTML page
``sse``             a 200 server-sent event stream (``text/event-stream``)
``array``           a 200 whose body is a JSON array of completions
``no_content_204``  a 204 with no body
``choices_object``  ``choices`` as an object instead of a list
``no_message``      a choice without ``message``
``content_number``  the message content is a number
``content_parts``   the message content is a list of parts
``usage_strings``   usage counts as strings
``usage_huge``      usage counts of 1e30
``usage_negative``  a negative usage count
``surrogate``       content holding a lone surrogate (``\\ud800``)
``deep``            nesting 100,000 levels deep
``duplicate_keys``  ``choices`` given twice
``not_utf8``        a body that is not UTF-8
``truncated``       JSON cut off in the middle
``gzip_bomb``       about 1 MB of gzip that inflates to 1 GiB (:attr:`HostileServer.bomb_bytes`)
``endless``         a chunked body that never ends
``trickle``         a body of one byte every 0.2 s, forever (no read ever times out)
``error_huge``      a 500 whose HTML error page is 50 MB

Examples
--------
>>> with HostileServer({"bad": "array", "good": "ok"}) as server:
...     server.base_url.startswith("http://127.0.0.1:")
True
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import struct
import sys
import threading
import zlib
from collections import Counter
from collections.abc import Mapping
from typing import Any

KINDS = ("ok", "html", "sse", "array", "no_content_204", "choices_object", "no_message",
         "content_number", "content_parts", "usage_strings", "usage_huge", "usage_negative",
         "surrogate", "deep", "duplicate_keys", "not_utf8", "truncated", "gzip_bomb",
         "endless", "trickle", "error_huge")
_BOMBS: dict[int, bytes] = {}
_OK_TEXT = "I need to think about this some more."


def gzip_bomb(inflated_bytes: int) -> bytes:
    """A valid gzip stream of ``inflated_bytes`` zero bytes (a multiple of 1 MiB), about 1/1000
    of that size; built from one full-flushed deflate segment repeated (cached per size)."""
    mib = 1 << 20
    if inflated_bytes < mib or inflated_bytes % mib:
        raise ValueError(f"inflated_bytes must be a positive multiple of 1 MiB, "
                         f"got {inflated_bytes!r}")
    if inflated_bytes not in _BOMBS:
        zeros = bytes(mib)
        comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        first = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
        segment = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
        n = inflated_bytes // mib
        crc = 0
        for _ in range(n):
            crc = zlib.crc32(zeros, crc)
        # b"\x03\x00": an empty final fixed-Huffman block; then the gzip trailer
        _BOMBS[inflated_bytes] = (first + segment * (n - 1) + b"\x03\x00"
                                  + struct.pack("<II", crc, inflated_bytes & 0xFFFFFFFF))
    return _BOMBS[inflated_bytes]


def _completion(content: Any = _OK_TEXT, usage: Any = None, **choice: Any) -> dict[str, Any]:
    first = {"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": content}}
    first.update(choice)
    return {"id": "chatcmpl-hostile", "object": "chat.completion", "created": 0,
            "model": "m", "choices": [first],
            "usage": usage or {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12}}


def _head(status: int, reason: str, headers: Mapping[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _fixed(status: int, body: bytes, ctype: str = "application/json",
           extra: Mapping[str, str] | None = None) -> bytes:
    reason = {200: "OK", 204: "No Content", 500: "Internal Server Error"}.get(status, "Status")
    headers = {"Content-Type": ctype, "Content-Length": str(len(body)), **(extra or {})}
    if status == 204:
        headers.pop("Content-Length")
    return _head(status, reason, headers) + body


class HostileServer:
    """An OpenAI-compatible server that misbehaves per model, on 127.0.0.1.

    Parameters
    ----------
    kinds : mapping of str to str
        Model name -> one of :data:`KINDS`. A model not named gets ``default``.
    default : str, default "ok"
    port : int, default 0
        0 takes a free port from the OS.
    bomb_bytes : int, default 1 GiB
        What the ``gzip_bomb`` body inflates to.
    error_bytes : int, default 50 MB
        Size of the ``error_huge`` page.

    Attributes
    ----------
    served : collections.Counter
        Kind -> requests answered with it.
    """

    def __init__(self, kinds: Mapping[str, str] | None = None, *, default: str = "ok",
                 port: int = 0, bomb_bytes: int = 1 << 30, error_bytes: int = 50_000_000
                 ) -> None:
        self.kinds = dict(kinds or {})
        for kind in [*self.kinds.values(), default]:
            if kind not in KINDS:
                raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        self.default = default
        self.bomb_bytes = bomb_bytes
        self.error_bytes = error_bytes
        self.served: Counter[str] = Counter()
        self._page: bytes | None = None
        self._port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        if "gzip_bomb" in [*self.kinds.values(), default]:
            gzip_bomb(bomb_bytes)  # built before the first request

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> HostileServer:
        """Start serving in a background thread; returns self."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self._port))
        self._port = sock.getsockname()[1]

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._server = loop.run_until_complete(
                asyncio.start_server(self._connection, sock=sock))
            self._ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=serve, name="hostile-server", daemon=True)
        self._thread.start()
        self._ready.wait()
        return self

    def stop(self) -> None:
        """Stop the server and its thread."""
        loop, server = self._loop, self._server
        if loop is None or server is None:
            return

        async def shutdown() -> None:
            server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                raw = await reader.readexactly(length)
                try:
                    model = str(json.loads(raw).get("model"))
                except (ValueError, AttributeError):
                    model = ""
                kind = self.kinds.get(model, self.default)
                self.served[kind] += 1
                if not await self._send(kind, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError,
                asyncio.CancelledError):  # the client went away, or the server stops
            pass
        finally:
            writer.close()

    async def _send(self, kind: str, writer: asyncio.StreamWriter) -> bool:
        """Write the answer of ``kind``; False when the connection must close."""
        dumps = json.dumps
        if kind in ("endless", "trickle"):
            writer.write(_head(200, "OK", {"Content-Type": "application/json",
                                           "Transfer-Encoding": "chunked"}))
            chunk = b" " * 65536 if kind == "endless" else b" "
            frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
            writer.write(b'1\r\n{\r\n')
            while True:  # until the client goes away
                writer.write(frame)
                await writer.drain()
                if kind == "trickle":
                    await asyncio.sleep(0.2)
        bodies: dict[str, bytes] = {
            "ok": dumps(_completion()).encode(),
            "array": dumps([_completion()]).encode(),
            "choices_object": dumps({**_completion(), "choices": {"0": _completion()["choices"][0]}}
                                    ).encode(),
            "no_message": dumps({**_completion(), "choices": [{"index": 0,
                                                              "finish_reason": "stop"}]}).encode(),
            "content_number": dumps(_completion(42)).encode(),
            "content_parts": dumps(_completion([{"type": "text", "text": "hi"}])).encode(),
            "usage_strings": dumps(_completion(usage={"prompt_tokens": "3",
                                                      "completion_tokens": "9"})).encode(),
            "usage_huge": dumps(_completion(usage={"prompt_tokens": 1e30,
                                                   "completion_tokens": 10**30})).encode(),
            "usage_negative": dumps(_completion(usage={"prompt_tokens": -1,
                                                       "completion_tokens": 9})).encode(),
            "surrogate": dumps(_completion("FINAL ANSWER: \ud800")).encode(),
            "deep": (b'{"choices": [{"message": {"content": "x"}}], "x": '
                     + b"[" * 100_000 + b"]" * 100_000 + b"}"),
            "duplicate_keys": (b'{"choices": [], "choices": [{"message": {"content": "x"}}]}'),
            "not_utf8": b'{"choices": [{"message": {"content": "\xff\xfe"}}]}',
            "truncated": b'{"id": "x", "choices": [{"index": 0, "mess',
        }
        if kind in bodies:
            writer.write(_fixed(200, bodies[kind]))
        elif kind == "html":
            writer.write(_fixed(200, b"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1>"
                                     b"</body></html>", "text/html"))
        elif kind == "sse":
            event = dumps({"choices": [{"delta": {"content": "hi"}, "index": 0}]})
            writer.write(_fixed(200, f"data: {event}\n\ndata: [DONE]\n\n".encode(),
                                "text/event-stream"))
        elif kind == "no_content_204":
            writer.write(_fixed(204, b""))
        elif kind == "gzip_bomb":
            writer.write(_fixed(200, gzip_bomb(self.bomb_bytes),
                                extra={"Content-Encoding": "gzip"}))
        elif kind == "error_huge":
            if self._page is None:
                self._page = _fixed(500, b"<html>" + b"x" * (self.error_bytes - 13)
                                    + b"</html>", "text/html")
            writer.write(self._page)
        await writer.drain()
        return True


def main(argv: list[str] | None = None) -> None:
    """``python -m harness.runner.hostile --kind MODEL=KIND ...``: serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m harness.runner.hostile",
                                     description="A misbehaving OpenAI-compatible server.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--kind", action="append", default=[], metavar="MODEL=KIND",
                        help=f"misbehaviour per model; kinds: {', '.join(KINDS)}")
    parser.add_argument("--default", default="ok", choices=KINDS)
    args = parser.parse_args(argv)
    kinds = dict(item.split("=", 1) for item in args.kind)
    server = HostileServer(kinds, default=args.default, port=args.port).start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()
        sys.exit(0)


if __name__ == "__main__":
    main()
