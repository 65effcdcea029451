"""HTTP for the endpoint layer: one ``aiohttp`` session per base URL.

:class:`HTTPPool` sends ``POST`` requests to one base URL through one
:class:`aiohttp.ClientSession`, whose connector keeps at most ``max_connections`` keep-alive
connections (the URL's concurrency limit). aiohttp reads the HTTP/1.1 framing
(``Content-Length``, chunked bodies, bodies that end when the connection closes, interim 1xx
responses, ``Connection: close``); its automatic decompression is off, so the body reaches the
response boundary (:func:`noisefloor.endpoints.response.read_body`) as sent, which caps it and
inflates it in bounded steps. The session is made inside the event loop that first uses it.

An ``https://`` URL is reached with the TLS context given to the pool (the caller loads the CA
bundle once, for every ``https://`` URL together); an ``http://`` URL is given none. A URL for
which the environment names a proxy is given a session that trusts the environment
(``trust_env``): aiohttp then reads ``HTTP_PROXY``, ``HTTPS_PROXY``, ``NO_PROXY`` and the proxy
credentials of ``~/.netrc``. Only such a session does: trusting the environment costs two
thread hand-offs per request (the proxy and ``.netrc`` look-ups).

Errors: a refused, reset or dropped connection, a body the server broke off or framed wrongly,
or a proxy that refused the request raises :class:`HTTPTransportError` (the caller's
``connection`` failure); a status line or header aiohttp cannot parse raises
:class:`noisefloor.endpoints.response.MalformedResponse`. aiohttp's socket and connect
timeouts are off: the caller puts one total deadline around the request and its body. That
deadline also ends a body whose chunk framing breaks in a packet after the head: aiohttp's C
parser (aiohttp 3.14) then stops feeding the body without waking its reader, where its
pure-Python parser raises at once.

Examples
--------
>>> pool = HTTPPool("http://127.0.0.1:8000/v1", headers={"Authorization": "Bearer EMPTY"},
...                 max_connections=4)
>>> pool.url("chat/completions"), pool.max_connections, pool.tls, pool.trust_env
('http://127.0.0.1:8000/v1/chat/completions', 4, False, False)
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import aiohttp
from aiohttp.http_exceptions import HttpProcessingError

from noisefloor.endpoints.response import MalformedResponse

__all__ = ["HTTPPool", "HTTPResponse", "HTTPTransportError"]

#: Bytes of one response header line at most (a longer one is a malformed response).
MAX_HEADER_LINE_BYTES = 64 * 1024
#: Bytes asked of aiohttp's body buffer per read.
_READ = 64 * 1024


class HTTPTransportError(ConnectionError):
    """The connection failed: refused, reset, closed before the response ended, a framing
    the server broke (chunk sizes, a body shorter than its ``Content-Length``), or a proxy
    that refused the request."""


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
    _response: aiohttp.ClientResponse = field(repr=False)


def _headers(response: aiohttp.ClientResponse) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in response.headers.items():
        key = name.lower()
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


def _one_line(text: str) -> str:
    r"""A parser message on one line: its pointer lines (``^``) dropped, at most 200 chars.

    Examples
    --------
    >>> _one_line("Bad status line:\n  Invalid status code:\n\n  b'HTTP/1.1 2x0'\n    ^")
    "Bad status line: Invalid status code: b'HTTP/1.1 2x0'"
    """
    lines = [line.strip() for line in text.splitlines()]
    text = " ".join(line for line in lines if line.strip("^ "))
    return text if len(text) <= 200 else text[:200] + "..."


def _transport_error(exc: aiohttp.ClientError, where: str) -> HTTPTransportError:
    """The message of a failed connection, from aiohttp's exception."""
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return HTTPTransportError(f"the server closed the connection {where}")
    if isinstance(exc, aiohttp.ClientPayloadError):
        cause = exc.__cause__ or exc.__context__
        detail = getattr(cause, "message", None) or str(cause or exc)
        return HTTPTransportError(f"the body broke off or its framing is broken "
                                  f"({_one_line(str(detail))})")
    if isinstance(exc, aiohttp.ClientHttpProxyError):
        return HTTPTransportError(f"the proxy refused the request (HTTP {exc.status}: "
                                  f"{exc.message})")
    return HTTPTransportError(f"{type(exc).__name__}: {exc}")


class HTTPPool:
    """Keep-alive HTTP/1.1 connections to one base URL, at most ``max_connections`` at once.

    Parameters
    ----------
    base_url : str
        ``http(s)://HOST[:PORT]/PATH``; request paths are relative to it.
    headers : mapping
        Headers sent with every request (aiohttp adds ``Host`` and ``Content-Length``).
    max_connections : int
        Most connections open at once (>= 1); a request beyond it waits for one.
    ssl_context : ssl.SSLContext, optional
        Required for an ``https://`` URL; never used (nor needed) for ``http://``.
    trust_env : bool, default False
        Let aiohttp read proxies (``HTTP_PROXY``, ``HTTPS_PROXY``, ``NO_PROXY``) and proxy
        credentials (``~/.netrc``) from the environment, per request.

    Raises
    ------
    ValueError
        An ``https://`` URL without ``ssl_context``, or ``max_connections`` < 1.
    """

    def __init__(self, base_url: str, *, headers: Mapping[str, str], max_connections: int,
                 ssl_context: ssl.SSLContext | None = None, trust_env: bool = False) -> None:
        parts = urlsplit(base_url)
        self.tls = parts.scheme == "https"
        if self.tls and ssl_context is None:
            raise ValueError(f"{base_url}: an https:// URL needs an ssl_context")
        if max_connections < 1:
            raise ValueError(f"max_connections must be >= 1, got {max_connections!r}")
        self.base_url = base_url.rstrip("/") + "/"
        self.max_connections = max_connections
        self.trust_env = trust_env
        self._ssl = ssl_context if self.tls else None
        self._headers = {"User-Agent": "noisefloor", **headers}
        self._session: aiohttp.ClientSession | None = None
        self._urls: dict[str, str] = {}

    def url(self, path: str) -> str:
        """The absolute URL of ``path`` (relative to the base URL)."""
        url = self._urls.get(path)
        if url is None:
            url = self._urls[path] = self.base_url + path.lstrip("/")
        return url

    @property
    def session(self) -> aiohttp.ClientSession:
        """The URL's session, made in the running event loop on first use."""
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=self.max_connections, limit_per_host=0,
                ssl=self._ssl if self._ssl is not None else False)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, trust_env=self.trust_env,
                auto_decompress=False,  # the response boundary inflates, within its cap
                timeout=aiohttp.ClientTimeout(),  # the caller's total deadline rules
                cookie_jar=aiohttp.DummyCookieJar(), raise_for_status=False,
                max_line_size=MAX_HEADER_LINE_BYTES, max_field_size=MAX_HEADER_LINE_BYTES)
        return self._session

    async def post(self, path: str, body: bytes) -> HTTPResponse:
        """Send ``POST path`` with ``body``; returns the response once its head is read.

        Redirects are not followed (a 3xx is returned as it is). The caller must
        :meth:`release` the response, in a ``finally``: its connection is held until then.

        Raises
        ------
        HTTPTransportError
            Connecting, sending or reading the head failed.
        MalformedResponse
            The head is not HTTP/1.x (a status line or header aiohttp cannot parse).
        """
        try:
            response = await self.session.post(self.url(path), data=body,
                                               allow_redirects=False)
        except aiohttp.ServerTimeoutError:
            raise
        except aiohttp.ClientHttpProxyError as exc:
            raise _transport_error(exc, "") from None
        except aiohttp.ClientResponseError as exc:  # what arrived did not parse
            raise MalformedResponse(f"the response is not valid HTTP/1.x "
                                    f"({_one_line(str(exc.message))})") from None
        except aiohttp.ClientError as exc:
            raise _transport_error(exc, "without sending a response") from None
        return HTTPResponse(response.status, _headers(response), response)

    async def body(self, response: HTTPResponse) -> AsyncIterator[bytes]:
        """The body's raw chunks (as sent: still compressed, the transfer framing removed).

        Raises
        ------
        HTTPTransportError
            The connection closed inside the body, or its framing is broken.
        """
        content = response._response.content
        try:
            while True:
                piece = await content.read(_READ)
                if not piece:
                    break
                yield piece
        except aiohttp.ServerTimeoutError:
            raise
        except aiohttp.ClientError as exc:
            raise _transport_error(exc, "inside the body") from None
        except HttpProcessingError as exc:  # aiohttp's pure-Python parser raises it as such
            raise HTTPTransportError(f"the body's framing is broken ({_one_line(exc.message)})"
                                     ) from None

    def release(self, response: HTTPResponse) -> None:
        """Give the response's connection back: kept for the next request when its body was
        read to the end and neither side asked to close it, closed otherwise."""
        resp = response._response
        if resp.content.at_eof():
            resp.release()
        else:
            resp.close()

    async def aclose(self) -> None:
        """Close every connection."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    def __repr__(self) -> str:
        return (f"HTTPPool({self.base_url}, max_connections={self.max_connections}"
                f"{', trust_env=True' if self.trust_env else ''})")
