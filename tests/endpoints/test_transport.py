"""One HTTP client per base URL, its pool sized to the URL's concurrency limit, no TLS set-up
for ``http://``, and HTTP/1.1 framing (chunked, close-delimited, interim responses, broken
framing) against real loopback servers; nothing of the transport is mocked."""

from __future__ import annotations

import asyncio
import gzip
import ssl
import warnings

import httpx
import pytest

from harness.runner.scripted import ScriptedServer
from noisefloor.endpoints import EndpointError, Endpoints, ModelEndpoint
from noisefloor.endpoints.client import _proxied
from noisefloor.endpoints.transport import HTTPPool

MSG = [{"role": "user", "content": "hello there"}]
OK_BODY = (b'{"choices": [{"message": {"role": "assistant", "content": "hi"}, '
           b'"finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}')


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="no price known")
        yield


def _count_tls(monkeypatch) -> list[str]:
    """Record every TLS context made (the standard library's and httpx's constructors)."""
    made: list[str] = []
    real_default, real_httpx = ssl.create_default_context, httpx.create_ssl_context

    def default(*a, **k):
        made.append("ssl.create_default_context")
        return real_default(*a, **k)

    def from_httpx(*a, **k):
        made.append("httpx.create_ssl_context")
        return real_httpx(*a, **k)

    monkeypatch.setattr(ssl, "create_default_context", default)
    monkeypatch.setattr(httpx, "create_ssl_context", from_httpx)
    return made


def test_one_client_per_base_url_with_the_urls_limit_as_pool_size(monkeypatch):
    made = _count_tls(monkeypatch)
    specs = [ModelEndpoint("a", ("http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"),
                           concurrency=64),
             ModelEndpoint("b", ("http://localhost:11/v1",), concurrency=3)]
    endpoints = Endpoints(specs)
    clients = endpoints._clients
    assert len(clients) == 3  # one per base URL, not one per connection or two
    assert all(isinstance(c, HTTPPool) for c in clients)
    assert [c.max_connections for c in clients] == [64, 64, 3]
    pools = {name: [e.client for e in pool.endpoints] for name, pool in endpoints._pools.items()}
    assert pools == {"a": clients[:2], "b": clients[2:]}
    assert made == [] and endpoints._ssl is None  # no CA bundle for http:// URLs
    asyncio.run(endpoints.aclose())


def test_https_urls_share_one_tls_context_loaded_once(monkeypatch):
    made = _count_tls(monkeypatch)
    endpoints = Endpoints([ModelEndpoint("a", ("https://a.example/v1", "https://b.example/v1"),
                                         concurrency=64),
                           ModelEndpoint("b", ("http://127.0.0.1:9/v1",))])
    assert made.count("ssl.create_default_context") == 1  # the CA bundle, loaded once
    tls = [c._ssl for c in endpoints._clients]
    assert tls[0] is tls[1] is endpoints._ssl and tls[2] is None
    assert [c.tls for c in endpoints._clients] == [True, True, False]


def test_a_proxied_url_gets_one_httpx_client_with_the_limit(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:3128")
    monkeypatch.setenv("NO_PROXY", "bypass.example")
    assert _proxied("http://models.example/v1") and not _proxied("http://bypass.example/v1")
    endpoints = Endpoints([ModelEndpoint("a", ("http://models.example/v1",), concurrency=7),
                           ModelEndpoint("b", ("http://bypass.example/v1",))])
    proxied, direct = endpoints._clients
    assert isinstance(proxied, httpx.AsyncClient) and isinstance(direct, HTTPPool)
    pool = proxied._transport_for_url(httpx.URL("http://models.example/v1"))._pool
    assert pool._max_connections == 7
    asyncio.run(endpoints.aclose())


def test_connections_are_kept_alive_and_never_exceed_the_limit():
    async def go(url):
        spec = ModelEndpoint("m", (url,), concurrency=3)
        async with Endpoints([spec]) as endpoints:
            results = await asyncio.gather(*(endpoints.complete("m", MSG) for _ in range(30)))
            client = endpoints._clients[0]
            idle = client.open_connections
        return results, client.connections_made, idle, client.open_connections

    with ScriptedServer({"m": "silent"}, latency_s=0.02) as server:
        results, made, idle, after_close = asyncio.run(go(server.base_url))
        assert server.max_in_flight == 3
    # three connections carried the 30 requests, stayed open between them, closed at the end
    assert len(results) == 30 and made == 3 and idle == 3 and after_close == 0


async def _serve(handler):
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"


async def _one(url, **kw):
    spec = ModelEndpoint("m", (url,), concurrency=2)
    async with Endpoints([spec], max_retries=0, timeout=5.0, **kw) as endpoints:
        return await endpoints.complete("m", MSG)


def _respond(*responses: bytes):
    """A server answering each request on a connection with the next of ``responses``, then
    closing it (a response given as ``b"CLOSE"`` closes without answering)."""
    async def handler(reader, writer):
        for response in responses:
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            if response == b"CLOSE":
                break
            writer.write(response)
            await writer.drain()
        writer.close()
    return handler


def _run_against(handler, **kw):
    async def go():
        server, url = await _serve(handler)
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
    # gzip, as asked for
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
    done = _run_against(_respond(response))
    assert not isinstance(done, Exception), done
    assert (done.text, done.tokens_in, done.tokens_out) == ("hi", 3, 1)


@pytest.mark.parametrize("response, kind, words", [
    (b"CLOSE", "connection", "without sending a response"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"choices\"", "connection",
     "before the end of the body"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "connection",
     "invalid chunk size"),
    (b"SPDY/3 200 OK\r\n\r\n", "malformed_response", "not an HTTP/1.x status line"),
    (b"HTTP/1.1 200 OK\r\nbad header line\r\n\r\n", "malformed_response", "not 'name: value'"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", "malformed_response",
     "invalid Content-Length"),
    (b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70_000 + b"\r\n\r\n", "malformed_response",
     "head is longer than"),
])
def test_broken_framing_is_an_infrastructure_error(response, kind, words):
    err = _run_against(_respond(response))
    assert isinstance(err, EndpointError), err
    assert err.kind == kind and words in str(err), str(err)


def test_a_connection_the_server_closed_while_idle_is_not_used_again():
    ok = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(OK_BODY), OK_BODY)

    async def go():
        server, url = await _serve(_respond(ok))  # one answer per connection, then close
        async with server:
            spec = ModelEndpoint("m", (url,), concurrency=1)
            async with Endpoints([spec], max_retries=0) as endpoints:
                first = await endpoints.complete("m", MSG)
                await asyncio.sleep(0.1)  # the close arrives while the connection is idle
                second = await endpoints.complete("m", MSG)
                return first, second, endpoints._clients[0].connections_made

    first, second, made = asyncio.run(go())
    assert first.text == second.text == "hi" and second.retries == 0 and made == 2


def test_connection_close_is_honoured():
    ok = (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
          % (len(OK_BODY), OK_BODY))

    async def go():
        server, url = await _serve(_respond(ok, ok))
        async with server:
            spec = ModelEndpoint("m", (url,), concurrency=1)
            async with Endpoints([spec], max_retries=0) as endpoints:
                await endpoints.complete("m", MSG)
                await endpoints.complete("m", MSG)
                return endpoints._clients[0].connections_made

    assert asyncio.run(go()) == 2
