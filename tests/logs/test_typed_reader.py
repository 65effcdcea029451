"""The msgspec path for records with an ``extra`` object, and the ``extra`` column itself.

:func:`noisefloor.logs.jsonl.typed.typed_block` may only vouch for a block whose every line the
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
from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_strict
from noisefloor.logs.jsonl.typed import typed_block
from noisefloor.logs.jsonl.validation import validate_record
from noisefloor.logs.records.extra import ExtraArray, decode_extra, extra_texts
from noisefloor.logs.schema import TrialRecord

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


# -- the struct test: objects that all write the keys of the first one ------------------------

# keys msgspec can name a field by and keys it cannot (a quote, a backslash), a key with a
# colon, one with a space, non-ASCII
_TEMPLATE_KEYS = ["a", "b:c", "d e", "é", 'q"', "s\\"]
_PLAIN = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                   st.floats(allow_nan=False, allow_infinity=False),
                   st.text(alphabet='x: "{}[]\\é', max_size=4))
# value texts the reference refuses, or that decode to a colon the line does not spell out
_BAD_VALUES = ["NaN", "1e400", '"\\ud800"', '"\\u003a"', '"\\udc00x"', '"\udcff"', "-Infinity"]  # \udcff: a raw 0xff byte
_EDITS = ["none", "duplicate", "duplicate_escaped", "nested_duplicate", "nested", "nested_list", "reorder",
    "drop", "unknown", "null", "missing", "space_before_colon", "bad_value",
    "string_starts_with_colon", "top_duplicate", "duplicate_spaced"]


def _escaped(key: str) -> str:
    """The JSON text of ``key`` with its first character written as a \\u escape."""
    return f'"\\u{ord(key[0]):04x}' + json.dumps(key, ensure_ascii=False)[2:]


@st.composite
def _template_block(draw) -> bytes:
    """Lines whose ``extra`` objects write the same keys; one line (or none) edited."""
    keys = draw(st.lists(st.sampled_from(_TEMPLATE_KEYS), unique=True, max_size=4))
    colon = draw(st.sampled_from([":", ": "]))
    comma = draw(st.sampled_from([",", ", "]))
    n = draw(st.integers(1, 5))
    edited, chosen = draw(st.integers(0, n - 1)), draw(st.sampled_from(_EDITS))
    lines = []
    for i in range(n):
        pairs = [(json.dumps(k, ensure_ascii=False), json.dumps(draw(_PLAIN), ensure_ascii=False))
                 for k in keys]
        edit = chosen if i == edited else "none"
        key_sep = colon
        if edit == "duplicate" and pairs:
            pairs.append(pairs[draw(st.integers(0, len(pairs) - 1))])
        elif edit == "duplicate_spaced" and pairs:  # the second one: white space, then colon
            key, value = pairs[draw(st.integers(0, len(pairs) - 1))]
            pairs.append((key + draw(st.sampled_from([" ", "\t", "\r"])), value))
        elif edit == "duplicate_escaped" and keys:
            pairs.append((_escaped(keys[0]), "1"))
        elif edit == "nested_duplicate" and pairs:
            pairs[-1] = (pairs[-1][0], '{"k"' + colon + '1' + comma + '"k"' + colon + '2}')
        elif edit == "nested" and pairs:
            pairs[-1] = (pairs[-1][0], '{"k"' + colon + '"v:w"}')
        elif edit == "nested_list" and pairs:
            pairs[-1] = (pairs[-1][0], '[{"k"' + colon + '1}' + comma + '{"k"' + colon + '2}]')
        elif edit == "reorder":
            pairs = draw(st.permutations(pairs))
        elif edit == "drop" and pairs:
            pairs.pop(draw(st.integers(0, len(pairs) - 1)))
        elif edit == "unknown":
            pairs.append(('"other"', "0"))
        elif edit == "space_before_colon":
            key_sep = " " + colon
        elif edit == "bad_value" and pairs:
            pairs[0] = (pairs[0][0], draw(st.sampled_from(_BAD_VALUES)))
        elif edit == "string_starts_with_colon" and pairs:
            pairs[0] = (pairs[0][0], '":x"')
        extra = "{" + comma.join(k + key_sep + v for k, v in pairs) + "}"
        record = {**_BASE, "task_id": f"t:{i}"}
        top = [(json.dumps(k), json.dumps(v)) for k, v in record.items()]
        if edit == "null":
            top.append(('"extra"', "null"))
        elif edit != "missing":
            top.append(('"extra"', extra))
        if edit == "top_duplicate":
            top.append(('"trial"', "0"))
        lines.append("{" + comma.join(k + colon + v for k, v in top) + "}")
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def _check_against_reference(data: bytes, arrays) -> None:
    for pos, line in enumerate(data.split(b"\n")):
        expected = _reference(line)
        assert expected is not None, f"vouched for a line the reference refuses: {line!r}"
        assert arrays["task_id"][pos].as_py() == expected["task_id"]
        got = arrays["extra"][pos]
        assert got == expected["extra"] and repr(got) == repr(expected["extra"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_template_block())
def test_the_struct_test_vouches_only_for_objects_the_reference_accepts(data):
    arrays = typed_block(data)
    if arrays is not None:
        _check_against_reference(data, arrays)


def _uniform_lines(n: int) -> list[str]:
    return [json.dumps({**_BASE, "task_id": f"t:{i}",
                        "extra": {"task": "k:d", "turns": i, "cost_usd": 0.5 + i, "note": None}},
                       separators=(",", ":")) for i in range(n)]


def test_a_block_of_one_key_sequence_is_vouched_for_by_the_struct_test(monkeypatch):
    from noisefloor.logs.jsonl import typed

    # the general test would accept this block too: forbid it, so the struct test must
    monkeypatch.setattr(typed, "_no_key_dropped", lambda *args: pytest.fail("general test"))
    data = "\n".join(_uniform_lines(6)).encode()
    arrays = typed_block(data)
    assert arrays is not None
    _check_against_reference(data, arrays)
    # the texts as the lines wrote them
    assert extra_texts(pd.Series(arrays["extra"])) == [
        line[line.index('{"task"'):-1] for line in _uniform_lines(6)]


@pytest.mark.parametrize("edit", [
    ('"turns":3,', '"turns":3,"turns":3,'),            # a key given twice, same value
    ('"turns":3,', '"turns":3,"\\u0074urns":4,'),      # twice, once spelled with an escape
    ('"note":null', '"note":{"x":1,"x":1}'),           # twice inside a nested object
    ('"note":null', '"note":[{"x":1,"x":2}]'),          # twice inside an object in a list
    ('"cost_usd":3.5', '"cost_usd":1e400'),            # overflows to infinity
    ('"task":"k:d"', '"task":"\\ud800"'),               # a lone surrogate
])
def test_the_struct_test_refuses_each_hard_case(edit):
    lines = _uniform_lines(6)
    assert edit[0] in lines[3]
    lines[3] = lines[3].replace(edit[0], edit[1])
    assert typed_block("\n".join(lines).encode()) is None
    assert _reference(lines[3].encode()) is None  # and the reference refuses the line


def test_null_and_missing_extras_among_objects_keep_each_row_its_own_text():
    lines = _uniform_lines(6)
    lines[1] = lines[1].replace(lines[1][lines[1].index('{"task"'):-1], "null")
    lines[4] = lines[4][:lines[4].index(',"extra"')] + "}"
    arrays = typed_block("\n".join(lines).encode())
    assert arrays is not None
    texts = extra_texts(pd.Series(arrays["extra"]))
    assert texts[1] is None and texts[4] is None
    assert [json.loads(t)["turns"] for t in texts if t is not None] == [0, 2, 3, 5]
    assert texts[3] == lines[3][lines[3].index('{"task"'):-1]
