"""Canonical coordination keys: formatting-insensitive, value-sensitive, hostile-input safe."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.store.keys import call_fingerprint, canonical_arguments, canonical_key

json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.floats(
    allow_nan=False, allow_infinity=False
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=15,
)
arguments = st.dictionaries(st.text(max_size=8), json_values, max_size=5)


def _shuffled(value, rnd):
    if isinstance(value, dict):
        items = list(value.items())
        rnd.shuffle(items)
        return {k: _shuffled(v, rnd) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rnd) for v in value]
    return value


@settings(max_examples=150, deadline=None)
@given(arguments, st.integers(0, 2**16), st.sampled_from([None, 0, 2, 4]))
def test_key_ignores_key_order_and_whitespace(args, seed, indent):
    reordered = _shuffled(args, random.Random(seed))
    text = json.dumps(reordered, indent=indent, separators=None if indent else (" ,", " :  "))
    assert canonical_key("tool", args) == canonical_key("tool", reordered)
    assert canonical_key("tool", args) == canonical_key("tool", text)
    assert call_fingerprint("tool", args) == call_fingerprint("tool", reordered)


@settings(max_examples=100, deadline=None)
@given(st.integers(-(2**53), 2**53))
def test_integral_numbers_key_by_value(n):
    assert canonical_key("t", {"n": n}) == canonical_key("t", {"n": float(n)})
    assert canonical_key("t", {"n": n}) == canonical_key("t", f'{{"n": {float(n)!r}}}')
    # ... but they are distinct literal calls for the collision-rate alarm
    assert call_fingerprint("t", {"n": n}) != call_fingerprint("t", {"n": float(n)})


@pytest.mark.parametrize(
    "a, b",
    [
        ('{"x": 1e2}', '{"x": 100}'),
        ('{"x": 2.50}', '{"x": 2.5}'),
        ('{"x": 0.10}', '{"x": 1e-1}'),
        ('{"x": -0.0}', '{"x": 0}'),
    ],
)
def test_number_formatting_does_not_change_key(a, b):
    assert canonical_key("t", a) == canonical_key("t", b)


@pytest.mark.parametrize(
    "a, b",
    [
        ({"x": True}, {"x": 1}),
        ({"x": "1"}, {"x": 1}),
        ({"x": "W1"}, {"x": " W1"}),
        ({"x": None}, {}),
        ({"x": b"abc"}, {"x": "abc"}),
        ({"x": [1, 2]}, {"x": [2, 1]}),
        ({"x": 0.1}, {"x": 0.1000000000000001}),
    ],
)
def test_distinct_values_give_distinct_keys(a, b):
    assert canonical_key("t", a) != canonical_key("t", b)


def test_tool_name_is_part_of_key():
    assert canonical_key("a", {}) != canonical_key("b", {})
    # the separator cannot be forged by a tool name that ends in the argument text
    assert canonical_key("a", {"x": 1}) != canonical_key('a\x00{"x":1}', None)


def test_hostile_arguments_are_keyed_not_rejected():
    nasty = {
        "sql": "'; DROP TABLE events; --",
        "long": "x" * 200_000,
        "raw": b"\xff\xfe\x00\x80",
        "surrogate": b"\xff\xc3".decode("utf-8", "surrogateescape"),
        "nan": float("nan"),
    }
    key = canonical_key("t", nasty)
    assert key.isascii() and len(key) == 2 + 32
    assert canonical_arguments(nasty).isascii()


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match=r"\$\.a\[1\]"):
        canonical_arguments({"a": [1, object()]})
    with pytest.raises(TypeError, match="keys must be strings"):
        canonical_arguments({1: "x"})
    with pytest.raises(ValueError, match="must be JSON"):
        canonical_arguments("{not json")
    with pytest.raises(ValueError, match="tool_name"):
        canonical_key("", {})
