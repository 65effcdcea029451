"""R3: coordination-key collision rate (distinct calls that map to one key), alarm above 0.5 %."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.stats.monitor import collision_rate_monitor
from noisefloor.store.keys import call_fingerprint, canonical_key


def _naive_rates(trials):
    """Recompute the rate from scratch after every trial (reference for the incremental count)."""
    rates = []
    seen = {}
    for calls in trials:
        for cid, key in calls:
            seen.setdefault(cid, key)
        by_key = defaultdict(set)
        for cid, key in seen.items():
            by_key[key].add(cid)
        colliding = sum(len(v) for v in by_key.values() if len(v) >= 2)
        rates.append(colliding / len(seen) if seen else float("nan"))
    return rates


def _distinct_calls(n, start=0):
    return [("get_order", {"order_id": f"#W{i:06d}"}) for i in range(start, start + n)]


def test_hand_computed_example():
    trials = [[("a", "k1"), ("b", "k2")], [("a", "k1")], [("c", "k2"), ("d", "k2")], []]
    res = collision_rate_monitor(trials)
    # after trial 2: calls a, b, c, d; key k2 holds b, c, d -> 3 of 4 distinct calls collide
    assert res.n_distinct_calls == (2, 2, 4, 4)
    assert res.n_colliding_calls == (0, 0, 3, 3)
    assert res.rate == (0.0, 0.0, 0.75, 0.75)
    assert [(a.index, a.statistic) for a in res.alarms] == [(2, 0.75)]
    assert res.collisions == (("k2", 3),)


def test_canonical_keys_are_quiet_on_distinct_calls():
    # 2,000 distinct literal calls, each in its own trial, some repeated with reordered keys and
    # reformatted JSON: the store's canonical key maps each literal call to its own key.
    calls = _distinct_calls(2000)
    trials = [[c] for c in calls]
    trials += [
        [("get_order", '{ "order_id" : "#W000007" }')],
        [("get_order", {"order_id": "#W000008"})],
    ]
    res = collision_rate_monitor(trials, key_function=canonical_key,
                                 identity_function=call_fingerprint)
    assert res.alarms == () and res.n_colliding_calls[-1] == 0
    assert res.n_distinct_calls[-1] == 2000  # reformatted repeats are the same call


def test_number_formatting_is_a_collision_of_literal_calls():
    # {"n": 1} and {"n": 1.0} are two literal calls (call_fingerprint) with one canonical key
    # (store_api.md). After 1,000 distinct calls a pair adds 2 colliding calls of 1,002: 0.2 %,
    # under the 0.5 % threshold; three more such pairs make 8 of 1,008 = 0.79 % -> alarm on the
    # trial that brings the count above 0.5 % (6 of 1,006 = 0.596 %, the third pair, index 1002).
    base = [[c] for c in _distinct_calls(1000)]
    pairs = [
        [("refund", {"amount": v}), ("refund", {"amount": float(v)})] for v in (10, 20, 30, 40)
    ]
    res = collision_rate_monitor(base + pairs, key_function=canonical_key,
                                 identity_function=call_fingerprint)
    assert res.rate[1000] == pytest.approx(2 / 1002)
    assert res.rate[1001] == pytest.approx(4 / 1004)
    assert [a.index for a in res.alarms] == [1002]
    assert res.alarms[0].statistic == pytest.approx(6 / 1006)
    assert res.alarms[0].threshold == 0.005


def test_fires_at_expected_trial_with_a_truncated_key():
    # A lossy key scheme: tool name plus 2 hex digits (256 buckets). The alarm must fire on the
    # first trial whose cumulative rate exceeds 0.5 %, computed here from scratch.
    def short_key(tool, args):
        return canonical_key(tool, args)[: len(tool) + 3]

    calls = _distinct_calls(300)
    trials = [[c] for c in calls]
    res = collision_rate_monitor(trials, key_function=short_key, identity_function=call_fingerprint)
    pairs = [[(call_fingerprint(*c), short_key(*c))] for c in calls]
    naive = np.array(_naive_rates(pairs))
    expected = int(np.flatnonzero(naive > 0.005)[0])
    assert res.alarms[0].index == expected
    np.testing.assert_allclose(res.rate, naive)


def test_one_call_under_two_keys_is_an_error():
    with pytest.raises(
        ValueError, match="logged with key 'k1' at trial 0 and with key 'k2' at trial 1"
    ):
        collision_rate_monitor([[("a", "k1")], [("a", "k2")]])


@pytest.mark.parametrize(
    "trials, kwargs, exc, match",
    [
        ([[("a",)]], {}, TypeError, "trial 0, call 0: expected a pair"),
        ([[(["a"], "k")]], {}, TypeError, "must be hashable"),
        ("abc", {}, TypeError, "one iterable of calls per trial"),
        ([], {"threshold": 1.0}, ValueError, r"threshold must lie in \[0, 1\)"),
        ([], {"key_function": 3}, TypeError, "key_function must be callable"),
        ([], {"identity_function": call_fingerprint}, ValueError, "only used together"),
        # the monitor knows no key scheme: the caller passes the literal-call identity too
        ([], {"key_function": canonical_key}, ValueError, "key_function needs identity_function"),
        ([], {"key_function": canonical_key, "identity_function": 3}, TypeError,
         "identity_function must be callable"),
    ],
)
def test_bad_input_raises(trials, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        collision_rate_monitor(trials, **kwargs)


def test_empty_prefix_is_nan_not_zero():
    res = collision_rate_monitor([[], [("a", "k")]])
    assert np.isnan(res.rate[0]) and res.rate[1] == 0.0
    frame = res.to_frame()
    assert list(frame.columns) == [
        "index",
        "n_distinct_calls",
        "n_colliding_calls",
        "rate",
        "alarm",
    ]
    assert res.to_dict()["collisions"] == []


pairs = st.tuples(st.integers(0, 30), st.integers(0, 8))


@settings(max_examples=100, deadline=None)
@given(trials=st.lists(st.lists(pairs, max_size=5), max_size=25))
def test_incremental_rate_equals_recount(trials):
    # call id i always maps to key i % 9 -> a key is a function of the call, as required
    trials = [[(cid, cid % 9) for cid, _ in calls] for calls in trials]
    res = collision_rate_monitor(trials)
    np.testing.assert_allclose(res.rate, _naive_rates(trials))
    assert all(0 <= c <= d for c, d in zip(res.n_colliding_calls, res.n_distinct_calls))
    # the order of calls within a trial does not change the per-trial rate
    rev = collision_rate_monitor([list(reversed(c)) for c in trials])
    np.testing.assert_allclose(rev.rate, res.rate)
