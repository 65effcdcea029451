"""One HTTP client (an aiohttp session) per base URL, its pool sized to the URL's concurrency
limit, no TLS set-up for ``http://``, proxies read from the environment only for the URLs it
proxies, and what aiohttp does with HTTP/1.1 framing (chunked, close-delimited, interim
responses, ``Connection: close``, idle connections the server closed, broken framing), seen
from the endpoint layer against real loopback servers; nothing of the transport is mocked."""

from __future__ import annotations

import asyncio
import gzip
import ssl
import warnings

import pytest

from noisefloor.endpoints import EndpointError, Endpoints, ModelEndpoint
from noisefloor.endpoints.client import _proxied, url_problem
from noisefloor.endpoints.transport import HTTPPool

MSG = [{"role": "user", "content": "hello there"}]
OK_BODY = (b'{"choices": [{"message": {"role": "assistant", "content": "hi"}, '
           b'"finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}')
OK = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(OK_BODY), OK_BODY)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy",
                 "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="no price known")
        yield


def _count_tls(monkeypatch) -> list[str]:
    """Record every TLS context made through the standard library's default constructor (the
    one that loads the CA bundle)."""
    made: list[str] = []
    real_default = ssl.create_default_context

    def default(*a, **k):
        made.append("ssl.create_default_context")
        return real_default(*a, **k)

    monkeypatch.setattr(ssl, "create_default_context", default)
    return made


class _Server:
    """A loopback HTTP/1.1 server that counts connections: each request on a connection is
    answered with the next of ``responses`` (``b"CLOSE"`` closes without answering), the last
    one again and again when ``keep`` (after ``delay`` seconds); the connection is closed
    when they run out."""

    def __init__(self, *responses: bytes, keep: bool = False, delay: float = 0.0) -> None:
        self.responses, self.keep, self.delay = responses, keep, delay
        self.connections = self.open = self.in_flight = self.max_in_flight = 0
        self.request_lines: list[bytes] = []

    async def handler(self, reader, writer):
        self.connections += 1
        self.open += 1
        try:
            i = 0
            while i < len(self.responses) or self.keep:
                response = self.responses[min(i, len(self.responses) - 1)]
                i += 1
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    break
                self.request_lines.append(head.split(b"\r\n", 1)[0])
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                await reader.readexactly(length)
                if response == b"CLOSE":
                    break
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                await asyncio.sleep(self.delay)
                self.in_flight -= 1
                writer.write(response)
                await writer.drain()
            writer.close()
        finally:
            self.open -= 1

    async def start(self):
        server = await asyncio.start_server(self.handler, "127.0.0.1", 0)
        return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"


def test_one_client_per_base_url_with_the_urls_limit_as_pool_size(monkeypatch):
    made = _count_tls(monkeypatch)
    specs = [ModelEndpoint("a", ("http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"),
                           concurrency=64),
             ModelEndpoint("b", ("http://localhost:11/v1",), concurrency=3)]

    async def go():
        endpoints = Endpoints(specs)
        clients = endpoints._clients
        sessions = [c.session for c in clients]  # made in the loop, as a first request does
        limits = [s.connector.limit for s in sessions]
        await endpoints.aclose()
        return endpoints, clients, limits, [s.closed for s in sessions]

    endpoints, clients, limits, closed = asyncio.run(go())
    assert len(clients) == 3  # one per base URL, not one per connection or two
    assert all(isinstance(c, HTTPPool) for c in clients)
    assert [c.max_connections for c in clients] == limits == [64, 64, 3]
    pools = {name: [e.client for e in pool.endpoints] for name, pool in endpoints._pools.items()}
    assert pools == {"a": clients[:2], "b": clients[2:]}
    assert made == [] and endpoints._ssl is None  # no TLS context for http:// URLs
    assert all(closed)


def test_https_urls_share_one_tls_context_loaded_once(monkeypatch):
    made = _count_tls(monkeypatch)
    endpoints = Endpoints([ModelEndpoint("a", ("https://a.example/v1", "https://b.example/v1"),
                                         concurrency=64),
                           ModelEndpoint("b", ("http://127.0.0.1:9/v1",))])
    assert made.count("ssl.create_default_context") == 1  # the CA bundle, loaded once
    tls = [c._ssl for c in endpoints._clients]
    assert tls[0] is tls[1] is endpoints._ssl and tls[2] is None
    assert [c.tls for c in endpoints._clients] == [True, True, False]


def test_only_a_proxied_url_reads_its_proxy_from_the_environment(monkeypatch):
    async def go():
        proxy = _Server(OK, keep=True)
        server, proxy_url = await proxy.start()
        monkeypatch.setenv("HTTP_PROXY", proxy_url.rsplit("/", 1)[0])
        monkeypatch.setenv("NO_PROXY", "bypass.example")
        assert _proxied("http://models.example/v1")
        assert not _proxied("http://bypass.example/v1") and not _proxied("https://x.example/v1")
        async with server:
            specs = [ModelEndpoint("a", ("http://models.example/v1",), concurrency=7),
                     ModelEndpoint("b", ("http://bypass.example/v1",))]
            async with Endpoints(specs, max_retries=0) as endpoints:
                done = await endpoints.complete("a", MSG)
                return done, [c.trust_env for c in endpoints._clients], proxy.request_lines

    done, trust, lines = asyncio.run(go())
    assert done.text == "hi" and trust == [True, False]
    # the proxy got the request in absolute form, for the host it was meant for
    assert lines == [b"POST http://models.example/v1/chat/completions HTTP/1.1"]


def test_url_problems_are_named():
    assert url_problem("http://127.0.0.1:8000/v1") is None
    assert url_problem("http://") == "has no host (expected http(s)://HOST[:PORT]/...)"
    assert url_problem("http://x:70000/v1") == "has port 70000 (expected 1 to 65535)"
    assert url_problem("http://x:0/v1") == "has port 0 (expected 1 to 65535)"
    assert url_problem("http://x:abc/v1").startswith("is not a valid URL (")
    assert url_problem("http://exa mple/v1") == "contains whitespace or a control character"
    assert url_problem("http://exa\tmple/v1") == "contains whitespace or a control character"


def test_connections_are_kept_alive_and_never_exceed_the_limit():
    server_state = _Server(OK, keep=True, delay=0.02)

    async def go():
        server, url = await server_state.start()
        async with server:
            spec = ModelEndpoint("m", (url,), concurrency=3)
            async with Endpoints([spec]) as endpoints:
                results = await asyncio.gather(*(endpoints.complete("m", MSG)
                                                 for _ in range(30)))
                idle = server_state.open
            for _ in range(100):  # the server sees the closes shortly after
                if not server_state.open:
                    break
                await asyncio.sleep(0.01)
            return results, idle

    results, idle = asyncio.run(go())
    # three connections carried the 30 requests, stayed open between them, closed at the end
    assert len(results) == 30 and all(r.retries == 0 for r in results)
    assert server_state.connections == 3 and server_state.max_in_flight == 3
    assert idle == 3 and server_state.open == 0


async def _one(url, **kw):
    spec = ModelEndpoint("m", (url,), concurrency=2)
    async with Endpoints([spec], **{"max_retries": 0, "timeout": 5.0, **kw}) as endpoints:
        return await endpoints.complete("m", MSG)


def _run_against(*responses, **kw):
    async def go():
        server, url = await _Server(*responses).start()
        async with server:
            try:
                return await _one(url, **kw)
            except EndpointError as exc:
                return exc
    return asyncio.run(go())


@pytest.mark.parametrize("response", [
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
    # chunked, in two chunks with an extension, and a trailer
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
    # no length: the body ends when the server closes the connection
    b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n%s",
    # an interim response first
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s",
    # gzip, as asked for: the response boundary inflates it (aiohttp passes it on as sent)
    b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s",
])
def test_every_framing_of_a_valid_answer_is_read(response):
    body = gzip.compress(OK_BODY) if b"gzip" in response else OK_BODY
    if b"chunked" in response:
        half = len(body) // 2
        response += (b"%x;ext=1\r\n%s\r\n%x\r\n%s\r\n0\r\nX-Trailer: 1\r\n\r\n"
                     % (half, body[:half], len(body) - half, body[half:]))
    elif b"%d" in response:
        response = response % (len(body), body)
    else:
        response = response % body
    done = _run_against(response)
    assert not isinstance(done, Exception), done
    assert (done.text, done.tokens_in, done.tokens_out) == ("hi", 3, 1)


def test_a_body_over_the_cap_is_not_read_further():
    big = b'{"choices": [{"message": {"content": "%s"}}]}' % (b"x" * 5000)
    err = _run_against(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(big), big),
                       max_response_bytes=1024)
    assert isinstance(err, EndpointError) and err.kind == "response_too_large", err
    assert "exceeds the cap of 1,024 bytes" in str(err)


NOT_HTTP = "the response is not valid HTTP/1.x ("


# the parser's own words differ between aiohttp's C and pure-Python parsers: what is pinned
# here is ours, and the part of the response each message quotes
@pytest.mark.parametrize("response, kind, words", [
    (b"CLOSE", "connection", ("the server closed the connection without sending a response",)),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"choices\"", "connection",
     ("the body broke off or its framing is broken (", "content length", "10 of 500 bytes")),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc", "connection",
     ("the body broke off or its framing is broken (", "transfer length")),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed_response",
     (NOT_HTTP, "zz")),
    (b"SPDY/3 200 OK\r\n\r\n", "malformed_response", (NOT_HTTP, "status line", "SPDY/3 200 OK")),
    (b"HTTP/1.1 200 OK\r\nbad header line\r\n\r\n", "malformed_response",
     (NOT_HTTP, "header", "bad header line")),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", "malformed_response",
     (NOT_HTTP, "Content-Length")),
    # two lengths: the C parser names them, the pure-Python one reads 3 bytes (not JSON)
    (b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
     "malformed_response", ()),
    (b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70_000 + b"\r\n\r\n", "malformed_response",
     (NOT_HTTP, "65536")),
])
def test_broken_framing_is_an_infrastructure_error(response, kind, words):
    err = _run_against(response)
    assert isinstance(err, EndpointError), err
    assert err.kind == kind and all(w in str(err) for w in words), str(err)
    assert "\n" not in str(err) and len(str(err)) < 400  # one line, the parser's caret dropped


def test_a_connection_the_server_closed_while_idle_is_not_used_again():
    server_state = _Server(OK)  # one answer per connection, then close

    async def go():
        server, url = await server_state.start()
        async with server:
            spec = ModelEndpoint("m", (url,), concurrency=1)
            async with Endpoints([spec], max_retries=0) as endpoints:
                first = await endpoints.complete("m", MSG)
                await asyncio.sleep(0.1)  # the close arrives while the connection is idle
                second = await endpoints.complete("m", MSG)
                return first, second

    first, second = asyncio.run(go())
    assert first.text == second.text == "hi" and second.retries == 0
    assert server_state.connections == 2


def test_connection_close_is_honoured():
    ok = (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
          % (len(OK_BODY), OK_BODY))
    server_state = _Server(ok, ok)  # would answer a second request on the same connection

    async def go():
        server, url = await server_state.start()
        async with server:
            spec = ModelEndpoint("m", (url,), concurrency=1)
            async with Endpoints([spec], max_retries=0) as endpoints:
                await endpoints.complete("m", MSG)
                await endpoints.complete("m", MSG)

    asyncio.run(go())
    assert server_state.connections == 2


def test_a_refused_connection_names_host_and_port():
    async def go():
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        try:
            return await _one(f"http://127.0.0.1:{port}/v1")
        except EndpointError as exc:
            return exc, port

    err, port = asyncio.run(go())
    assert err.kind == "connection" and f"Cannot connect to host 127.0.0.1:{port}" in str(err)


def test_framing_that_breaks_after_the_head_ends_within_the_deadline():
    # aiohttp's C parser drops a body whose chunk framing breaks in a later packet without
    # waking its reader (its pure-Python parser raises at once): the total deadline still
    # ends the request, as an infrastructure error.
    async def handler(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(b"zz\r\n")
        await writer.drain()
        await asyncio.sleep(3)
        writer.close()

    async def go():
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
        async with server:
            t0 = asyncio.get_running_loop().time()
            try:
                await _one(url, timeout=0.5)
            except EndpointError as exc:
                return exc, asyncio.get_running_loop().time() - t0

    err, seconds = asyncio.run(go())
    assert err.kind in ("timeout", "connection") and seconds < 2.0, (err, seconds)
