"""The endpoint layer: chat completions against OpenAI-compatible endpoints.

:class:`Endpoints` holds one pool per model over that model's base URLs (self-hosted
replicas). Each base URL has one HTTP client, whose pool holds as many keep-alive
connections as the URL's concurrency limit, and that limit; a request goes to the URL with
the most free capacity. The client is :class:`noisefloor.endpoints.transport.HTTPPool`, one
``aiohttp`` session per URL; a URL for which the environment names a proxy (``HTTP_PROXY``,
``HTTPS_PROXY``, not excluded by ``NO_PROXY``) gets a session that reads its proxy from the
environment. The CA bundle is loaded once, and only when some URL is ``https://``. A 429 halves that URL's limit
(once per burst) and blocks it for the ``Retry-After`` the server sent; every success raises
the limit by ``1/limit`` again up to the configured maximum (additive increase,
multiplicative decrease). Timeouts, dropped connections, 5xx, malformed bodies and empty
``choices`` are retried with exponential backoff; when the retries are spent the call raises
:class:`EndpointError`, which the runner records as an infrastructure error, never a score.
401, 403 and 404 raise :class:`EndpointFatalError` at once (the run cannot succeed).

Every answer passes the response boundary (:mod:`noisefloor.endpoints.response`) before
anything reads it: the body is read under one total deadline (``timeout``, over the request
and the whole body, not per read) and a size cap that also bounds decompression, then checked
against the chat-completions shape; an error body is kept as a short excerpt with its size.

The client is used by every part of noisefloor that calls a model: the collaboration-tax
runner (:mod:`harness.runner`), the judge of ``tax report`` and the protocols runner. An
example against a live server is in ``docs/tax-run.md``.

Examples
--------
>>> endpoint = ModelEndpoint("m", ("http://127.0.0.1:8000/v1",), price_input_per_mtok=1.0,
...                          price_output_per_mtok=2.0)
>>> print(f"{endpoint.cost(1, 10):.6f}")
0.000021
>>> retry_after_seconds({"retry-after": "3"}, default=1.0)
3.0
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import os
import random
import ssl
import sys
import time
import urllib.parse
import urllib.request
import warnings
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from noisefloor.endpoints.response import (
    DEFAULT_MAX_RESPONSE_BYTES,
    ERROR_BODY_READ_BYTES,
    ERROR_EXCERPT_CHARS,
    MalformedResponse,
    ParsedCompletion,
    ResponseTooLarge,
    error_excerpt,
    parse_chat_completion,
    read_body,
)
from noisefloor.endpoints.slots import _Endpoint, _Pool  # noqa: F401 - _Endpoint: tests
from noisefloor.endpoints.transport import HTTPPool, HTTPTransportError
from noisefloor.results import FrozenResult
from noisefloor.stats.warning_classes import UnknownPriceWarning

logger = logging.getLogger(__name__)

#: HTTP statuses that end a run at once: no retry or later rollout can succeed.
FATAL_STATUSES = (401, 403, 404)
#: HTTP statuses (besides 429 and 5xx) that are retried.
RETRIED_STATUSES = (408, 409)
#: The path of a chat-completions request, relative to a base URL.
CHAT_PATH = "chat/completions"

#: Highest price accepted, in USD per million tokens (no model costs more than this).
MAX_PRICE_PER_MTOK = 10_000.0

_T = TypeVar("_T")


def _proxied(url: str) -> bool:
    """Whether the environment routes ``url`` through a proxy (as ``aiohttp`` reads it:
    ``HTTP_PROXY`` or ``HTTPS_PROXY`` by the URL's scheme, unless ``NO_PROXY`` excludes its host).

    Examples
    --------
    >>> import os
    >>> _proxied("http://127.0.0.1:8000/v1") if not os.environ.get("HTTP_PROXY") else False
    False
    """
    proxies = urllib.request.getproxies()
    scheme = url.split("://", 1)[0]
    if not proxies.get(scheme):
        return False
    return not urllib.request.proxy_bypass(urllib.parse.urlsplit(url).hostname or "")


def url_problem(url: Any) -> str | None:
    """What is wrong with a base URL, or None (http or https, with a host).

    Examples
    --------
    >>> print(url_problem("http://127.0.0.1:8000/v1"))
    None
    >>> url_problem("http://")
    'has no host (expected http(s)://HOST[:PORT]/...)'
    >>> url_problem("ftp://x/v1")
    'must start with http:// or https://'
    >>> url_problem("http://x:99999/v1")
    'has port 99999 (expected 1 to 65535)'
    """
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return "must start with http:// or https://"
    if any(c.isspace() or not c.isprintable() for c in url):
        return "contains whitespace or a control character"
    parsed = urllib.parse.urlsplit(url)
    try:
        port = parsed.port
    except ValueError as exc:
        number = parsed.netloc.rsplit(":", 1)[-1]
        if number.isdigit():
            return f"has port {int(number)} (expected 1 to 65535)"
        return f"is not a valid URL ({exc})"
    if not parsed.hostname:
        return "has no host (expected http(s)://HOST[:PORT]/...)"
    if port is not None and not 0 < port < 65536:
        return f"has port {port} (expected 1 to 65535)"
    return None


@dataclass(frozen=True)
class ModelEndpoint:
    """How to reach one model.

    Attributes
    ----------
    name : str
        Model name as the endpoint knows it (sent as ``model`` in every request).
    base_urls : tuple of str
        One or more OpenAI-compatible base URLs (``.../v1``); requests spread over them.
    api_key_env : str, default "OPENAI_API_KEY"
        Environment variable holding the API key; when it is unset the key ``"EMPTY"`` is
        sent (local servers need none).
    concurrency : int, default 8
        Maximum requests in flight per base URL (>= 1).
    price_input_per_mtok, price_output_per_mtok : float or None, default None
        US dollars per million input / output tokens; None when unknown (costs are then
        null, never 0).
    """

    name: str
    base_urls: tuple[str, ...]
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    price_input_per_mtok: float | None = None
    price_output_per_mtok: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"model name must be a non-empty string, got {self.name!r}")
        urls = (self.base_urls,) if isinstance(self.base_urls, str) else tuple(self.base_urls)
        object.__setattr__(self, "base_urls", urls)
        if not urls:
            raise ValueError(f"model {self.name!r}: base_urls must be one or more http(s) "
                             f"URLs, got {self.base_urls!r}")
        for url in urls:
            problem = url_problem(url)
            if problem:
                raise ValueError(f"model {self.name!r}: base_urls: {url!r} {problem}")
        if isinstance(self.concurrency, bool) or not isinstance(self.concurrency, int) \
                or self.concurrency < 1:
            raise ValueError(f"model {self.name!r}: concurrency must be an int >= 1, "
                             f"got {self.concurrency!r}")
        for attr in ("price_input_per_mtok", "price_output_per_mtok"):
            value = getattr(self, attr)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0 <= value <= MAX_PRICE_PER_MTOK):
                raise ValueError(f"model {self.name!r}: {attr} must be a number in "
                                 f"[0, {MAX_PRICE_PER_MTOK:g}] (USD per million tokens) or "
                                 f"None, got {value!r}")

    def cost(self, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """Cost in USD of one request, or None when a price or a token count is unknown.

        Notes
        -----
        ``cost = tokens_in * price_in / 1e6 + tokens_out * price_out / 1e6``.

        Examples
        --------
        >>> ModelEndpoint("m", ("http://x/v1",), price_input_per_mtok=0.15,
        ...               price_output_per_mtok=0.6).cost(1_000_000, 500_000)
        0.45
        >>> print(ModelEndpoint("m", ("http://x/v1",)).cost(10, 10))
        None
        """
        price_in, price_out = self.price_input_per_mtok, self.price_output_per_mtok
        if price_in is None or price_out is None or tokens_in is None or tokens_out is None:
            return None
        return (tokens_in * price_in + tokens_out * price_out) / 1e6


@dataclass(frozen=True)
class Completion(FrozenResult):
    """One successful chat completion.

    Attributes
    ----------
    model : str
    text : str
        The assistant message's content.
    tokens_in, tokens_out : int or None
        ``usage.prompt_tokens`` / ``usage.completion_tokens``; None when the endpoint sent
        no usage.
    cost_usd : float or None
        :meth:`ModelEndpoint.cost` of this request.
    latency_s : float
        Seconds of the successful HTTP request.
    elapsed_s : float
        Seconds from the call to its return: queueing, failed attempts and backoff included.
    retries : int
        Failed attempts before the success.
    base_url : str
        The URL that answered.
    finish_reason : str or None
    params : dict
        The request parameters other than ``model`` and ``messages``.
    tool_calls : tuple of dict or None, default None
        The message's tool calls (``{"id", "name", "arguments"}``, arguments as the JSON text
        sent); a reply with tool calls may have no content (``text`` is then ``""``).
    """

    model: str
    text: str
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    latency_s: float
    elapsed_s: float
    retries: int
    base_url: str
    finish_reason: str | None
    params: dict[str, Any] = field(default_factory=dict)
    tool_calls: tuple[dict[str, str], ...] | None = None


class EndpointError(Exception):
    """A request failed after its retries were spent (an infrastructure error).

    Attributes
    ----------
    kind : str
        ``rate_limit``, ``timeout``, ``connection``, ``malformed_response`` (not a chat
        completion: HTML, an SSE stream, a JSON array, a 204, a field of the wrong type, ...),
        ``response_too_large`` (over the size cap, compressed or inflated), ``empty_choices``,
        ``no_content`` or ``http_<status>``.
    model : str
    retries : int
        Failed attempts before giving up (attempts - 1).
    """

    def __init__(self, kind: str, message: str, *, model: str, retries: int,
                 tokens_in: int = 0) -> None:
        super().__init__(f"{model}: {kind} after {retries} retries: {message}")
        self.kind = kind
        self.model = model
        self.retries = retries


class EndpointFatalError(EndpointError):
    """An error no retry can fix (401, 403, 404): the run stops."""


async def _within(seconds: float, awaitable: Awaitable[_T]) -> _T:
    """Await ``awaitable``; TimeoutError after ``seconds`` (``asyncio.timeout`` is 3.11+)."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    return await asyncio.wait_for(awaitable, seconds)  # raises asyncio.TimeoutError on 3.10


def retry_after_seconds(headers: Mapping[str, str] | None, default: float) -> float:
    """Seconds to wait after a 429, from ``retry-after-ms`` or ``Retry-After``.

    ``Retry-After`` may be seconds (integer or decimal) or an HTTP date; anything else gives
    ``default``.

    Examples
    --------
    >>> retry_after_seconds({"retry-after": "2"}, 1.0), retry_after_seconds({}, 1.0)
    (2.0, 1.0)
    >>> retry_after_seconds({"retry-after-ms": "250"}, 1.0)
    0.25
    """
    if not headers:
        return default
    lower = {k.lower(): v for k, v in headers.items()}
    try:
        if "retry-after-ms" in lower:
            return max(0.0, float(lower["retry-after-ms"]) / 1000.0)
        if "retry-after" in lower:
            value = lower["retry-after"]
            try:
                return max(0.0, float(value))
            except ValueError:
                when = email.utils.parsedate_to_datetime(value)
                return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        pass
    return default


class Endpoints:
    """Pools of OpenAI-compatible endpoints, one per model; use as an async context manager.

    Parameters
    ----------
    models : sequence of ModelEndpoint
        One entry per model name (names must be unique).
    timeout : float, default 60.0
        Seconds one HTTP request may take, its whole body included, before it counts as a
        ``timeout`` failure (a total deadline, not a per-read timeout).
    max_retries : int, default 3
        Failed attempts retried per call (>= 0); attempts = max_retries + 1.
    backoff_base : float, default 0.5
        Seconds before the first retry of a non-429 failure; doubles per retry (with up to
        25 % jitter), capped at ``backoff_max``.
    backoff_max : float, default 30.0
        Cap on any wait, including a server's ``Retry-After``.
    max_response_bytes : int, default 8 MiB
        Most bytes of one response body, counted after decompression (>= 1024); a longer
        body is a ``response_too_large`` failure and is not read further.

    Notes
    -----
    Requests are plain HTTP/1.1 POSTs of ``{"model", "messages", **params}`` to
    ``BASE_URL/chat/completions`` with ``Authorization: Bearer KEY``, as the OpenAI API
    defines them. The concurrency limit of a base URL starts at its configured maximum
    :math:`c`; a 429 sets it to :math:`\\max(1, \\ell/2)` (at most once per burst) and
    blocks the URL for the ``Retry-After``; each success sets
    :math:`\\ell \\leftarrow \\min(c, \\ell + 1/\\ell)`.

    References
    ----------
    .. [1] Fielding, R. and Reschke, J. (2014). RFC 7231, section 7.1.3 (Retry-After).
    .. [2] Chiu, D.-M. and Jain, R. (1989). Analysis of the increase and decrease algorithms
       for congestion avoidance in computer networks. Computer Networks and ISDN Systems,
       17(1), 1-14.
    """

    def __init__(self, models: Sequence[ModelEndpoint], *, timeout: float = 60.0,
                 max_retries: int = 3, backoff_base: float = 0.5,
                 backoff_max: float = 30.0,
                 max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> None:
        names = [m.name for m in models]
        if len(set(names)) != len(names):
            raise ValueError(f"models must have unique names, got {names}")
        if not (isinstance(timeout, (int, float)) and 0 < timeout < 86_400):
            raise ValueError(f"timeout must be a number of seconds in (0, 86400), "
                             f"got {timeout!r}")
        for name, value in (("backoff_base", backoff_base), ("backoff_max", backoff_max)):
            if not (isinstance(value, (int, float)) and 0 <= value <= 86_400):
                raise ValueError(f"{name} must be a number of seconds in [0, 86400], "
                                 f"got {value!r}")
        if (isinstance(max_response_bytes, bool) or not isinstance(max_response_bytes, int)
                or max_response_bytes < 1024):
            raise ValueError(f"max_response_bytes must be an int >= 1024, "
                             f"got {max_response_bytes!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.specs = {m.name: m for m in models}
        self._pools: dict[str, _Pool] = {}
        self._clients: list[HTTPPool] = []
        self._warned_price: set[str] = set()
        self._random = random.Random(0)
        self._ssl: ssl.SSLContext | None = None
        self.max_response_bytes = max_response_bytes
        for spec in models:
            clients = [self._url_client(url, spec.api_key_env, spec.concurrency)
                       for url in spec.base_urls]
            self._pools[spec.name] = _Pool(spec, clients)

    def _tls(self) -> ssl.SSLContext:
        """The TLS context of every https:// URL (the CA bundle is loaded once, ~40 ms)."""
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    def _url_client(self, url: str, key_env: str, concurrency: int) -> HTTPPool:
        """The one client of a base URL; its pool holds ``concurrency`` connections."""
        headers = {"Authorization": f"Bearer {os.environ.get(key_env) or 'EMPTY'}",
                   "Content-Type": "application/json", "Accept": "application/json",
                   # only what the boundary decodes, in bounded steps (never br or zstd)
                   "Accept-Encoding": "gzip, deflate"}
        https = url.startswith("https://")
        client = HTTPPool(url, headers=headers, max_connections=concurrency,
                          ssl_context=self._tls() if https else None, trust_env=_proxied(url))
        self._clients.append(client)
        return client

    async def __aenter__(self) -> Endpoints:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every HTTP client."""
        for client in self._clients:
            await client.aclose()

    def stats(self) -> list[dict[str, Any]]:
        """Per base URL: model, url, requests, current limit, failures by kind."""
        return [{"model": name, "base_url": e.base_url, "requests": e.requests,
                 "limit": e.limit, "max_limit": e.max_limit, "failures": dict(e.failures)}
                for name, pool in self._pools.items() for e in pool.endpoints]

    def _pool(self, model: str) -> _Pool:
        try:
            return self._pools[model]
        except KeyError:
            raise KeyError(f"no endpoint configured for model {model!r}; configured: "
                           f"{sorted(self._pools)}") from None

    def _backoff(self, retry: int) -> float:
        delay = min(self.backoff_max, self.backoff_base * 2.0 ** retry)
        return delay * (1.0 + 0.25 * self._random.random())

    async def _post(self, client: HTTPPool, payload: bytes, deadline: float
                    ) -> tuple[int, dict[str, str], ParsedCompletion | None, str]:
        """POST one request; (status, headers, parsed body of a 200, error excerpt otherwise)."""
        response = await client.post(CHAT_PATH, payload)
        try:
            return await self._answer(response.status, response.headers,
                                      client.body(response), deadline)
        finally:
            client.release(response)

    async def _answer(self, status: int, headers: dict[str, str], chunks: AsyncIterator[bytes],
                      deadline: float
                      ) -> tuple[int, dict[str, str], ParsedCompletion | None, str]:
        """Read and check a response whose head arrived (``headers``: lower-case names)."""
        encoding = headers.get("content-encoding", "")
        if status != 200:
            if 200 <= status < 300:
                raise MalformedResponse(f"HTTP {status} where a 200 with a chat completion "
                                        "was expected")
            try:
                body = await read_body(chunks, encoding=encoding,
                                       cap=ERROR_BODY_READ_BYTES, deadline=deadline)
                excerpt = error_excerpt(body, headers.get("content-length"))
            except MalformedResponse as exc:
                excerpt = f"(unreadable body: {exc})"
            return status, headers, None, excerpt
        body = await read_body(chunks, encoding=encoding, cap=self.max_response_bytes,
                               deadline=deadline)
        if not body.complete:
            raise ResponseTooLarge(
                f"the body exceeds the cap of {self.max_response_bytes:,} bytes "
                f"({body.received:,} bytes received"
                f"{', compressed: ' + encoding if encoding else ''}); reading stopped there")
        return status, headers, parse_chat_completion(body.data, headers.get("content-type")), ""

    async def complete(self, model: str, messages: list[dict[str, Any]],
                       **params: Any) -> Completion:
        """One chat completion of ``model`` with retries.

        Parameters
        ----------
        model : str
            A configured model name.
        messages : list of dict
            Chat messages (``{"role": ..., "content": ...}``).
        **params
            Further request parameters (``temperature``, ``max_tokens``, ...), sent as given.

        Returns
        -------
        Completion

        Raises
        ------
        KeyError
            If ``model`` is not configured.
        EndpointError
            When every attempt failed (``kind`` names the last failure).
        EndpointFatalError
            On HTTP 401, 403 or 404 (not retried).
        """
        pool = self._pool(model)
        spec = pool.spec
        started = time.monotonic()
        failures = 0
        try:
            payload = orjson.dumps({"model": model, "messages": messages, **params})
        except TypeError as exc:  # also a lone surrogate in a message (not valid UTF-8)
            raise ValueError(f"the request to {model!r} cannot be encoded as JSON: {exc}"
                             ) from None
        while True:
            endpoint = await pool.acquire()
            epoch = endpoint.epoch
            endpoint.requests += 1
            t0 = time.monotonic()
            kind, message, wait = "", "", None
            try:
                # one total deadline over the request and the whole body (a per-read
                # timeout never trips on a body that trickles in)
                status, headers, parsed, excerpt = await _within(self.timeout, self._post(
                    endpoint.client, payload, t0 + self.timeout))
                latency = time.monotonic() - t0
                if status == 200 and parsed is not None and not parsed.n_choices:
                    kind, message = "empty_choices", "the response has no choices"
                elif (status == 200 and parsed is not None and parsed.content is None
                      and not parsed.tool_calls):
                    kind, message = "no_content", "the first choice has no message content"
                elif status == 200 and parsed is not None:
                    endpoint.on_success()
                    t_in, t_out = parsed.tokens_in, parsed.tokens_out
                    cost = spec.cost(t_in, t_out)
                    if cost is None and spec.name not in self._warned_price:
                        self._warned_price.add(spec.name)
                        warnings.warn(f"no price known for model {spec.name!r}: its costs are "
                                      "recorded as null", UnknownPriceWarning, stacklevel=2)
                    return Completion(
                        model=model, text=parsed.content or "", tokens_in=t_in,
                        tokens_out=t_out, cost_usd=cost, latency_s=latency,
                        elapsed_s=time.monotonic() - started, retries=failures,
                        base_url=endpoint.base_url, finish_reason=parsed.finish_reason,
                        params=dict(params), tool_calls=parsed.tool_calls)
                elif status == 429:
                    kind, message = "rate_limit", f"HTTP 429: {excerpt}"
                    wait = min(self.backoff_max, retry_after_seconds(
                        headers, self._backoff(failures)))
                    endpoint.on_rate_limit(epoch, wait)
                    wait = 0.0  # the pool waits for the URL to unblock (or uses another URL)
                else:
                    kind, message = f"http_{status}", f"HTTP {status}: {excerpt}"
                    if status in FATAL_STATUSES:
                        endpoint.failures[kind] += 1
                        raise EndpointFatalError(kind, message, model=model, retries=failures)
                    if not (status >= 500 or status in RETRIED_STATUSES):
                        endpoint.failures[kind] += 1
                        raise EndpointError(kind, message, model=model, retries=failures)
            except (TimeoutError, asyncio.TimeoutError):  # distinct on 3.10
                kind, message = "timeout", f"no complete response within {self.timeout:g} s"
            except ResponseTooLarge as exc:
                kind, message = "response_too_large", str(exc)
            except MalformedResponse as exc:
                kind, message = "malformed_response", str(exc)
            except HTTPTransportError as exc:  # refused, reset, broken framing, proxy
                kind, message = "connection", f"{type(exc).__name__}: {exc}"[:ERROR_EXCERPT_CHARS]
            finally:
                pool.release(endpoint)
            endpoint.failures[kind] += 1
            logger.info("%s at %s: %s (attempt %d)", model, endpoint.base_url, kind,
                        failures + 1)
            if failures >= self.max_retries:
                raise EndpointError(kind, message, model=model, retries=failures)
            delay = self._backoff(failures) if wait is None else wait
            failures += 1
            if delay > 0:
                await asyncio.sleep(delay)
