"""The msgspec path for records with an ``extra`` object, and the ``extra`` column itself.

:func:`noisefloor.logs.typed.typed_block` may only vouch for a block whose every line the
reference (``parse_strict`` plus the pydantic model and the reader's rules) accepts, and must
then give exactly the values the reference gives. The property test below writes blocks with
duplicate keys (top level and nested), colon escapes, wrong types, out-of-range numbers,
missing and unknown fields, non-object ``extra`` values, lone surrogates and NaN, and checks
both halves on every block the fast path accepts.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.logs import LogValidationError, load_trials
from noisefloor.logs.extra import ExtraArray, decode_extra, extra_texts
from noisefloor.logs.jsonparse import JSONProblem, parse_strict
from noisefloor.logs.schema import TrialRecord
from noisefloor.logs.typed import typed_block
from noisefloor.logs.validation import validate_record

SHA = "a" * 64

_BASE = {
    "schema_version": "1", "benchmark": "tax/x", "model": "m", "protocol": "pair", "seed": 7,
    "task_id": "t:1", "trial": 0, "reward": 1.0, "termination_reason": "final_answer",
    "infrastructure_error": False,
}

# valid and invalid values of each top-level field (strings are JSON texts)
_FIELD_TEXTS = {
    "schema_version": ['"1"', '"2"', "1", "null"],
    "benchmark": ['"b"', '""', '"a:b"', "3", '"\\u003a"'],
    "seed": ["7", "null", "-9223372036854775808", "9223372036854775808", "1.0", "true"],
    "task_id": ['"t:1"', '"7"', "7", '""', '"\\ud800"', '"\\ud83d\\ude42"', '"é:ü"'],
    "trial": ["0", "3", "-1", "1.0", "false", "9223372036854775807", "18446744073709551616"],
    "reward": ["1.0", "0", "1", "null", "0.5", "1.5", "-0.0", "true", "1e400", '"1"'],
    "termination_reason": ['"x"', "null", '"a:b:c"', "0"],
    "infrastructure_error": ["false", "true", "0", "null"],
    "store_events_at_start": ["0", "null", "-1", "5"],
    "injections": ["2", "null", "2.5"],
    "first_request_sha256": [f'"{SHA}"', "null", '"abc"', f'"{SHA.upper()}"', f'"{SHA}\\n"'],
}

_key = st.text(alphabet='ab:"\\é', max_size=3)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.text(alphabet='x:"\\\u00e9', max_size=4),
                    st.sampled_from(["NaN", "1e400", '"\\ud800"', '"\\u003a"', "-0"]).map(
                        lambda t: ("raw", t)))
_value = st.recursive(_scalar, lambda inner: st.lists(inner, max_size=3)
                      | st.lists(st.tuples(_key, inner), max_size=3).map(lambda p: ("obj", p)),
                      max_leaves=8)


def _text(value) -> str:
    """JSON text of a value: ("obj", pairs) is an object that may repeat keys, ("raw", t) is
    the text t as written (a literal the strict reader may refuse)."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "obj":
        return "{" + ", ".join(f"{json.dumps(k)}: {_text(v)}" for k, v in value[1]) + "}"
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "raw":
        return value[1]
    if isinstance(value, list):
        return "[" + ", ".join(map(_text, value)) + "]"
    return json.dumps(value, ensure_ascii=False)


@st.composite
def _line(draw) -> str:
    pairs = [(k, json.dumps(v)) for k, v in _BASE.items()]
    for _ in range(draw(st.integers(0, 2))):  # change some fields
        name = draw(st.sampled_from(sorted(_FIELD_TEXTS)))
        text = draw(st.sampled_from(_FIELD_TEXTS[name]))
        pairs = [(k, v) for k, v in pairs if k != name] + [(name, text)]
    if draw(st.booleans()):
        extra = draw(st.one_of(
            _value.filter(lambda v: isinstance(v, tuple) and v[0] == "obj"),
            st.sampled_from([None, 1, "x", [1]])))
        pairs.append(("extra", _text(extra)))
    edit = draw(st.sampled_from(["none"] * 6 + ["drop", "duplicate", "unknown"]))
    if edit == "drop":
        pairs.pop(draw(st.integers(0, len(pairs) - 1)))
    elif edit == "duplicate":
        pairs.append(pairs[draw(st.integers(0, len(pairs) - 1))])
    elif edit == "unknown":
        pairs.append(("other", "1"))
    pairs = draw(st.permutations(pairs))
    sep = draw(st.sampled_from([":", ": "]))
    return "{" + ", ".join(f"{json.dumps(k)}{sep}{v}" for k, v in pairs) + "}"


def _reference(line: bytes):
    """The record the strict reader makes of one line, or None if it refuses it."""
    try:
        obj = parse_strict(line)
    except JSONProblem:
        return None
    result = validate_record(obj, "f", 1)
    if not isinstance(result, TrialRecord):
        return None
    row = dict(result)
    for name in ("trial", "seed", "store_events_at_start", "injections"):
        if row[name] is not None and not -(2**63) <= row[name] < 2**63:
            return None
    return row


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line(), min_size=1, max_size=5))
def test_the_typed_path_vouches_only_for_what_the_reference_accepts_and_agrees(lines):
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    arrays = typed_block(data)
    if arrays is None:
        return  # the exact path reads the block
    for pos, line in enumerate(data.split(b"\n")):
        expected = _reference(line)
        assert expected is not None, f"vouched for a line the reference refuses: {line!r}"
        for name in ("schema_version", "benchmark", "model", "protocol", "task_id",
                     "termination_reason", "first_request_sha256", "seed",
                     "store_events_at_start", "injections"):
            assert arrays[name][pos].as_py() == expected[name], name
        assert arrays["trial"][pos] == expected["trial"]
        assert bool(arrays["infrastructure_error"][pos]) is expected["infrastructure_error"]
        reward = arrays["reward"][pos]
        assert (math.isnan(reward) and expected["reward"] is None) or reward == expected["reward"]
        got = arrays["extra"][pos]
        assert got == expected["extra"] and repr(got) == repr(expected["extra"])


def _tax_line(i: int, **extra) -> str:
    rec = {**_BASE, "task_id": f"spatial_key_door:{i}",
           "extra": {"task": "spatial_key_door", "answer": "A:B", "turns": i, **extra}}
    return json.dumps(rec)


def test_a_duplicate_key_in_extra_is_refused_with_file_and_line(tmp_path):
    lines = [_tax_line(i) for i in range(4)]
    lines[2] = lines[2].replace('"turns": 2', '"turns": 2, "turns": 3')
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(LogValidationError) as info:
        load_trials(path)
    assert str(info.value) == f"{path}:3: duplicate key 'turns' in one object"


def test_a_top_level_key_given_twice_with_the_same_value_is_refused(tmp_path):
    # the colons balance only if the second "trial" key is counted
    lines = [_tax_line(i) for i in range(3)]
    lines[1] = lines[1].replace('"trial": 0', '"trial": 0, "trial": 0')
    path = tmp_path / "top.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(LogValidationError) as info:
        load_trials(path)
    assert str(info.value) == f"{path}:2: duplicate key 'trial' in one object"


def test_the_extra_column_keeps_the_text_and_reads_as_dicts(tmp_path):
    lines = [_tax_line(0, note="é:ü"), _tax_line(1).replace(
        '"extra": {"task": "spatial_key_door", "answer": "A:B", "turns": 1}', '"extra": null')]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    frame = load_trials(path)
    assert str(frame["extra"].dtype) == "extra_json"
    assert frame["extra"].iloc[0] == {"task": "spatial_key_door", "answer": "A:B", "turns": 0,
                                      "note": "é:ü"}
    assert frame["extra"].iloc[1] is None
    assert extra_texts(frame["extra"]) == [
        '{"task": "spatial_key_door", "answer": "A:B", "turns": 0, "note": "\\u00e9:\\u00fc"}',
        None]
    # what a column of dicts gave: map, iteration, tolist, a boolean filter, concat, a row
    assert frame["extra"].map(lambda e: e is not None).tolist() == [True, False]
    assert [e["turns"] for e in frame["extra"] if e] == [0]
    assert frame.loc[frame["trial"] == 0, "extra"].tolist()[1] is None
    both = pd.concat([frame, frame], ignore_index=True)
    assert str(both["extra"].dtype) == "extra_json" and len(both) == 4
    assert both.iloc[2]["extra"]["note"] == "é:ü"
    # a dict taken out is a copy: the frame keeps what the log said
    frame["extra"].iloc[0]["turns"] = 99
    assert frame["extra"].iloc[0]["turns"] == 0


def test_extra_array_take_fill_and_equality():
    arr = ExtraArray.from_values([{"a": 1}, None, {"b": [2, 2**70]}])
    assert arr.take([2, -1], allow_fill=True).tolist() == [{"b": [2, 2**70]}, None]
    assert arr.take([-1, 0]).tolist() == [{"b": [2, 2**70]}, {"a": 1}]
    assert list(arr.isna()) == [False, True, False]
    assert list(arr == ExtraArray.from_values([{"a": 1}, None, {}])) == [True, True, False]
    assert np.asarray(arr)[2] == {"b": [2, 2**70]}
    assert decode_extra('{"x": NaN}')["x"] != decode_extra('{"x": NaN}')["x"]  # NaN kept
