"""The endpoint layer against a real loopback HTTP server with injected faults.

Every test starts :class:`harness.runner.scripted.ScriptedServer` on 127.0.0.1 and talks to
it through the official ``openai`` SDK; nothing of the SDK is mocked.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.runner.scripted import ScriptedServer
from noisefloor.endpoints.client import (
    EndpointError,
    EndpointFatalError,
    Endpoints,
    ModelEndpoint,
    _Endpoint,
    retry_after_seconds,
)

MSG = [{"role": "user", "content": "hello there"}]  # 11 characters -> 1 + 11 // 4 = 3 tokens


@pytest.fixture()
def server():
    with ScriptedServer({"m": "silent"}, hang_s=3.0, retry_after_s=0.2) as srv:
        yield srv


def _run(coro):
    return asyncio.run(coro)


async def _complete(urls, n=1, *, concurrency=4, **kw):
    kw.setdefault("backoff_base", 0.01)
    spec = ModelEndpoint("m", tuple(urls), concurrency=concurrency,
                         price_input_per_mtok=3.0, price_output_per_mtok=15.0)
    async with Endpoints([spec], **kw) as endpoints:
        results = await asyncio.gather(*(endpoints.complete("m", MSG, temperature=0.5)
                                         for _ in range(n)), return_exceptions=True)
        return results, endpoints.stats()


@pytest.mark.parametrize("fault", ["429", "500", "hang", "malformed", "drop", "empty"])
def test_one_fault_is_retried_then_succeeds(server, fault):
    (done,), stats = _run(_complete([server.base_url], timeout=0.5))
    assert not isinstance(done, Exception)
    server.inject(fault)
    (done,), stats = _run(_complete([server.base_url], timeout=0.5))
    assert not isinstance(done, Exception), done
    assert done.retries == 1
    assert server.faults_served[fault] == 1
    assert done.text == "I need to think about this some more."
    assert done.params == {"temperature": 0.5}
    kind = {"429": "rate_limit", "500": "http_500", "hang": "timeout",
            "malformed": "malformed_response", "drop": "connection", "empty": "empty_choices"}
    assert stats[0]["failures"] == {kind[fault]: 1}


@pytest.mark.parametrize("fault, kind", [("500", "http_500"), ("empty", "empty_choices"),
                                         ("malformed", "malformed_response")])
def test_retries_spent_raise_an_infrastructure_error(server, fault, kind):
    server.fail_always("m", fault)
    (err,), _ = _run(_complete([server.base_url], max_retries=2))
    assert isinstance(err, EndpointError) and not isinstance(err, EndpointFatalError)
    assert (err.kind, err.retries, err.model) == (kind, 2, "m")
    assert server.requests == 3  # max_retries + 1 attempts, never more


def test_bad_request_is_not_retried_and_auth_is_fatal(server):
    server.inject("400")
    (err,), _ = _run(_complete([server.base_url], max_retries=5))
    assert isinstance(err, EndpointError) and err.kind == "http_400" and err.retries == 0
    assert server.requests == 1
    server.inject("401")
    (err,), _ = _run(_complete([server.base_url], max_retries=5))
    assert isinstance(err, EndpointFatalError) and err.kind == "http_401"
    assert server.requests == 2


def test_429_honours_retry_after_and_the_limit_adapts(server):
    server.inject("429")
    t0 = time.monotonic()
    (done,), stats = _run(_complete([server.base_url], concurrency=8, backoff_base=5.0))
    elapsed = time.monotonic() - t0
    # the server said Retry-After: 0.2; the 5 s exponential backoff was not used instead
    assert 0.2 <= elapsed < 2.0 and done.retries == 1
    # halved from 8 to 4 by the 429, then one success adds 1/4
    assert stats[0]["limit"] == pytest.approx(4.25)


def test_concurrency_is_bounded_per_base_url():
    with ScriptedServer({"m": "silent"}, latency_s=0.1) as one, \
            ScriptedServer({"m": "silent"}, latency_s=0.1) as two:
        results, stats = _run(_complete([one.base_url, two.base_url], n=12, concurrency=2))
        assert all(not isinstance(r, Exception) for r in results)
        assert one.max_in_flight == 2 and two.max_in_flight == 2
        assert one.requests + two.requests == 12 and one.requests >= 4 and two.requests >= 4
        assert {r.base_url for r in results} == {one.base_url, two.base_url}


def test_tokens_and_cost_add_up(server):
    results, _ = _run(_complete([server.base_url], n=5))
    for r in results:
        # usage as the server defines it: 1 + chars // 4 (see harness.runner.scripted)
        assert (r.tokens_in, r.tokens_out) == (3, 1 + len(r.text) // 4)
        assert r.cost_usd == pytest.approx((3 * 3.0 + r.tokens_out * 15.0) / 1e6)


def test_unknown_price_gives_null_cost_and_one_warning(server):
    async def go():
        async with Endpoints([ModelEndpoint("m", (server.base_url,))]) as endpoints:
            return [await endpoints.complete("m", MSG) for _ in range(3)]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = _run(go())
    assert [r.cost_usd for r in results] == [None] * 3
    price_warnings = [w for w in caught if "no price known for model 'm'" in str(w.message)]
    assert len(price_warnings) == 1


def test_unknown_model_and_bad_settings():
    with pytest.raises(ValueError, match="base_urls"):
        ModelEndpoint("m", ("ftp://x",))
    with pytest.raises(ValueError, match="concurrency must be an int >= 1"):
        ModelEndpoint("m", ("http://x/v1",), concurrency=0)
    with pytest.raises(ValueError, match="max_retries"):
        Endpoints([], max_retries=-1)

    async def go():
        async with Endpoints([ModelEndpoint("m", ("http://127.0.0.1:9/v1",))]) as e:
            await e.complete("other", MSG)

    with pytest.raises(KeyError, match="no endpoint configured for model 'other'"):
        _run(go())


def test_retry_after_forms():
    # RFC 7231 section 7.1.3: delay-seconds or an HTTP-date
    date = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < retry_after_seconds({"Retry-After": date}, 1.0) <= 30
    assert retry_after_seconds({"Retry-After": "0.5"}, 1.0) == 0.5
    assert retry_after_seconds({"Retry-After": "soon"}, 1.0) == 1.0


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 64), st.lists(st.sampled_from(["ok", "429", "429-stale"]), max_size=300))
def test_adaptive_limit_stays_between_one_and_the_maximum(maximum, events):
    ep = _Endpoint("http://x/v1", [], maximum)
    for event in events:
        before = ep.limit
        if event == "ok":
            ep.on_success()
            assert ep.limit >= before
        else:
            ep.on_rate_limit(ep.epoch if event == "429" else ep.epoch - 1, 0.0)
            assert ep.limit <= before
        assert 1.0 <= ep.limit <= maximum
