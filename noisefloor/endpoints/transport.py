"""HTTP/1.1 for the endpoint layer: one keep-alive connection pool per base URL.

:class:`HTTPPool` sends ``POST`` requests to one base URL over at most ``max_connections``
persistent connections (the URL's concurrency limit) on bare :mod:`asyncio` streams, and hands
the response body, as raw (possibly compressed) chunks, to the response boundary
(:func:`noisefloor.endpoints.response.read_body`), which caps and inflates it. The framing of
RFC 9112 is read: ``Content-Length``, ``Transfer-Encoding: chunked`` or a body up to the
closing of the connection; 1xx interim responses are skipped; a connection is used again only
after its response was read to the end and neither side asked to close it.

An ``https://`` URL is reached with the TLS context given to the pool (the caller loads the CA
bundle once, for every ``https://`` URL together); an ``http://`` URL creates no TLS context at
all. A general-purpose client such as ``httpx`` costs about 2 ms of CPU per request on a small
machine (its request and response models, URL handling and the ``anyio`` layer); a request here
costs a fraction of that, which is what keeps a single event loop near the throughput its
endpoints allow.

Errors: a refused, reset or dropped connection, or a framing the server broke, raises
:class:`HTTPTransportError` (the caller's ``connection`` failure); a status line or header that
is not HTTP/1.x raises :class:`noisefloor.endpoints.response.MalformedResponse`.

Examples
--------
>>> pool = HTTPPool("http://127.0.0.1:8000/v1", headers={"Authorization": "Bearer EMPTY"},
...                 max_connections=4)
>>> pool.host, pool.port, pool.path_prefix, pool.max_connections, pool.tls
('127.0.0.1', 8000, '/v1/', 4, False)
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from noisefloor.endpoints.response import MalformedResponse

__all__ = ["HTTPPool", "HTTPResponse", "HTTPTransportError"]

#: Most bytes of a status line plus headers (a longer head is a malformed response).
MAX_HEAD_BYTES = 64 * 1024
#: Most interim (1xx) responses skipped before the final one.
MAX_INTERIM = 8
_READ = 64 * 1024


class HTTPTransportError(ConnectionError):
    """The connection failed: refused, reset, closed before the response ended, or a framing
    the server broke (chunk sizes, a body shorter than its ``Content-Length``)."""


@dataclass
class HTTPResponse:
    """A response whose head was read; its body is read with :meth:`HTTPPool.body`.

    Attributes
    ----------
    status : int
    headers : dict
        Lower-case names; repeated headers joined with ``", "``.
    """

    status: int
    headers: dict[str, str]
    _conn: _Connection = field(repr=False)
    _length: int | None = field(repr=False, default=None)
    _chunked: bool = field(repr=False, default=False)
    _done: bool = field(repr=False, default=False)
    _released: bool = field(repr=False, default=False)


class _Connection:
    __slots__ = ("reader", "writer", "reusable")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.reusable = True

    def alive(self) -> bool:
        # an idle connection the server closed has seen its EOF; buffered bytes on an idle
        # connection are a protocol error of the server: neither is used again
        return (not self.writer.is_closing() and not self.reader.at_eof()
                and not self.reader._buffer)  # type: ignore[attr-defined]

    def close(self) -> None:
        self.reusable = False
        try:
            self.writer.close()
        except RuntimeError:  # the event loop is already closed
            pass


def _headers(lines: list[bytes]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in lines:
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip() or b" " in name:
            raise MalformedResponse(f"a response header line is not 'name: value' "
                                    f"({line[:60]!r})")
        key = name.decode("latin-1").lower()
        text = value.strip().decode("latin-1")
        out[key] = f"{out[key]}, {text}" if key in out else text
    return out


class HTTPPool:
    """Persistent HTTP/1.1 connections to one base URL, at most ``max_connections`` at once.

    Parameters
    ----------
    base_url : str
        ``http(s)://HOST[:PORT]/PATH``; request paths are relative to it.
    headers : mapping
        Headers sent with every request (``Host`` and ``Content-Length`` are added).
    max_connections : int
        Most connections open at once (>= 1); a request beyond it waits for one.
    ssl_context : ssl.SSLContext, optional
        Required for an ``https://`` URL; never used (nor needed) for ``http://``.

    Raises
    ------
    ValueError
        An ``https://`` URL without ``ssl_context``, or ``max_connections`` < 1.
    """

    def __init__(self, base_url: str, *, headers: Mapping[str, str], max_connections: int,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        parts = urlsplit(base_url)
        self.tls = parts.scheme == "https"
        if self.tls and ssl_context is None:
            raise ValueError(f"{base_url}: an https:// URL needs an ssl_context")
        if max_connections < 1:
            raise ValueError(f"max_connections must be >= 1, got {max_connections!r}")
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.tls else 80)
        self.path_prefix = (parts.path or "/").rstrip("/") + "/"
        self.max_connections = max_connections
        self._ssl = ssl_context if self.tls else None
        default_port = self.port == (443 if self.tls else 80)
        host = f"[{self.host}]" if ":" in self.host else self.host
        self._host_header = host if default_port else f"{host}:{self.port}"
        fixed = {"Host": self._host_header, "User-Agent": "noisefloor", **headers}
        self._head = "".join(f"{k}: {v}\r\n" for k, v in fixed.items()).encode("latin-1")
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()
        self._slots: asyncio.Semaphore | None = None
        self.connections_made = 0

    @property
    def slots(self) -> asyncio.Semaphore:
        if self._slots is None:  # made inside the event loop that uses it (Python 3.9 rule)
            self._slots = asyncio.Semaphore(self.max_connections)
        return self._slots

    @property
    def open_connections(self) -> int:
        """Connections open now (idle or carrying a request)."""
        return len(self._open)

    async def _connect(self) -> _Connection:
        try:
            reader, writer = await asyncio.open_connection(
                self.host, self.port, ssl=self._ssl,
                server_hostname=self.host if self.tls else None, limit=MAX_HEAD_BYTES)
        except (OSError, ssl.SSLError) as exc:
            raise HTTPTransportError(f"cannot connect to {self.host}:{self.port} "
                                     f"({type(exc).__name__}: {exc})") from None
        self.connections_made += 1
        conn = _Connection(reader, writer)
        self._open.add(conn)
        return conn

    def _drop(self, conn: _Connection) -> None:
        conn.close()
        self._open.discard(conn)

    async def post(self, path: str, body: bytes) -> HTTPResponse:
        """Send ``POST path`` with ``body``; returns the response once its head is read.

        The caller must read the body (:meth:`body`) or :meth:`release` the response, in a
        ``finally``: the connection slot is held until then.

        Raises
        ------
        HTTPTransportError
            Connecting, sending or reading the head failed.
        MalformedResponse
            The head is not HTTP/1.x.
        """
        await self.slots.acquire()
        conn: _Connection | None = None
        try:
            while self._idle:
                candidate = self._idle.pop()
                if candidate.alive():
                    conn = candidate
                    break
                self._drop(candidate)
            if conn is None:
                conn = await self._connect()
            request = (b"POST " + (self.path_prefix + path).encode("ascii") + b" HTTP/1.1\r\n"
                       + self._head + b"Content-Length: " + str(len(body)).encode()
                       + b"\r\n\r\n" + body)
            conn.writer.write(request)
            return await self._read_head(conn)
        except BaseException:
            if conn is not None:
                self._drop(conn)
            self.slots.release()
            raise

    async def _read_head(self, conn: _Connection) -> HTTPResponse:
        reader = conn.reader
        for _ in range(MAX_INTERIM + 1):
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as exc:
                raise HTTPTransportError(
                    "the server closed the connection without sending a response"
                    if not exc.partial else "the connection closed inside the response head"
                ) from None
            except asyncio.LimitOverrunError:
                raise MalformedResponse(f"the response head is longer than "
                                        f"{MAX_HEAD_BYTES:,} bytes") from None
            except OSError as exc:
                raise HTTPTransportError(f"{type(exc).__name__}: {exc}") from None
            lines = head[:-4].split(b"\r\n")
            version, _, rest = lines[0].partition(b" ")
            code = rest[:3]
            if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 \
                    or not code.isdigit() or rest[3:4] not in (b"", b" "):
                raise MalformedResponse(f"not an HTTP/1.x status line: {lines[0][:60]!r}")
            status = int(code)
            headers = _headers(lines[1:])
            if 100 <= status < 200 and status != 101:
                continue  # interim response (100 Continue, 103 Early Hints)
            break
        else:
            raise MalformedResponse(f"more than {MAX_INTERIM} interim (1xx) responses")
        if version == b"HTTP/1.0" or "close" in headers.get("connection", "").lower():
            conn.reusable = False
        response = HTTPResponse(status, headers, conn)
        coding = headers.get("transfer-encoding", "").lower()
        if status in (204, 304) or status < 200:
            response._length = 0
        elif coding:
            if coding.rsplit(",", 1)[-1].strip() != "chunked":
                raise MalformedResponse(f"unsupported Transfer-Encoding {coding!r}")
            response._chunked = True
        elif "content-length" in headers:
            values = {v.strip() for v in headers["content-length"].split(",")}
            value = values.pop()
            if values or not value.isdigit():
                raise MalformedResponse(f"invalid Content-Length "
                                        f"{headers['content-length']!r}")
            response._length = int(value)
        else:
            conn.reusable = False  # the body ends when the connection closes
        return response

    async def body(self, response: HTTPResponse) -> AsyncIterator[bytes]:
        """The body's raw chunks (as sent: still compressed); the connection returns to the
        pool when the last chunk was read (:meth:`release` must still be called)."""
        reader = response._conn.reader
        try:
            if response._chunked:
                while True:
                    line = await reader.readuntil(b"\r\n")
                    size_text = line[:-2].split(b";", 1)[0].strip()
                    try:
                        size = int(size_text, 16)
                    except ValueError:
                        raise HTTPTransportError(f"invalid chunk size {size_text[:20]!r}"
                                                 ) from None
                    if size_text.startswith((b"-", b"+", b"0x", b"0X")):
                        raise HTTPTransportError(f"invalid chunk size {size_text[:20]!r}")
                    if size == 0:
                        while await reader.readuntil(b"\r\n") != b"\r\n":
                            pass  # trailers, ignored
                        break
                    while size:
                        piece = await reader.read(min(size, _READ))
                        if not piece:
                            raise asyncio.IncompleteReadError(b"", size)
                        size -= len(piece)
                        yield piece
                    if await reader.readexactly(2) != b"\r\n":
                        raise HTTPTransportError("a chunk does not end with CRLF")
            elif response._length is not None:
                left = response._length
                while left:
                    piece = await reader.read(min(left, _READ))
                    if not piece:
                        raise HTTPTransportError(
                            f"the server closed the connection {left:,} bytes before the end "
                            "of the body (Content-Length)")
                    left -= len(piece)
                    yield piece
            else:
                while True:
                    piece = await reader.read(_READ)
                    if not piece:
                        break
                    yield piece
            response._done = True
        except asyncio.IncompleteReadError:
            raise HTTPTransportError("the server closed the connection inside the body"
                                     ) from None
        except asyncio.LimitOverrunError:
            raise HTTPTransportError("a chunk-size line is longer than "
                                     f"{MAX_HEAD_BYTES:,} bytes") from None
        except OSError as exc:
            raise HTTPTransportError(f"{type(exc).__name__}: {exc}") from None

    def release(self, response: HTTPResponse) -> None:
        """Give the response's connection back (kept for the next request when its body was
        read to the end and it may stay open; closed otherwise) and free its slot."""
        if response._released:
            return
        response._released = True
        conn = response._conn
        if response._done and conn.reusable and conn in self._open and conn.alive():
            self._idle.append(conn)
        else:
            self._drop(conn)
        self.slots.release()

    async def aclose(self) -> None:
        """Close every connection."""
        for conn in list(self._open):
            self._drop(conn)
        self._idle.clear()

    def __repr__(self) -> str:
        scheme = "https" if self.tls else "http"
        return (f"HTTPPool({scheme}://{self._host_header}{self.path_prefix}, "
                f"max_connections={self.max_connections})")

