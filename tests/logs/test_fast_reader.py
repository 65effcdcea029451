"""The fast JSONL path: which lines it takes, and that it is as strict as the reference.

``PATH_COUNTS`` (noisefloor.logs.jsonl.pipeline) counts the lines each path decoded: ``arrow``
(a block parsed and validated by Arrow), ``typed`` (records with an ``extra`` object, decoded
and validated by msgspec, :mod:`noisefloor.logs.jsonl.typed`), ``orjson`` (decoded by orjson
and vouched for by the block's duplicate-key test), ``strict`` (decoded again by the reference parser) and
``line_by_line`` (a block holding a malformed or blank line). Each test below would fail if
colons in strings, nested objects or non-ASCII text sent lines to the slow reference parser
again, or if the block test let a duplicate key, a NaN or a wrong type through.
"""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.logs import LogValidationError, load_trials, validate_logs
from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_strict, unsure_lines
from noisefloor.logs.jsonl.pipeline import PATH_COUNTS


def tax_record(i: int, **changes):
    """A record shaped like the tax runner's (harness.runner.run.build_record)."""
    task = "spatial_key_door"
    rec = {
        "schema_version": "1", "benchmark": f"tax/{task}", "model": "model-00",
        "protocol": "pair", "seed": 7, "task_id": f"{task}:{i}", "trial": 0,
        "reward": 1.0, "termination_reason": "final_answer", "infrastructure_error": False,
        "extra": {"task": task, "family": "spatial", "instance_seed": i, "turns": 3,
                  "cost_usd": 0.0125, "latency_s": 0.5, "answer": "A:B",
                  "rollout_key": f"model-00|pair|{task}:{i}|0", "error": None,
                  "nested": {"a": [1, {"b": "x:y"}]}},
    }
    rec.update(changes)
    return rec


def write(path, recs):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))
                            + "\n" for r in recs), encoding="utf-8")
    return path


def counts_during(fn):
    before = dict(PATH_COUNTS)
    result = fn()
    return result, {k: PATH_COUNTS[k] - before.get(k, 0) for k in PATH_COUNTS}


def test_colon_bearing_task_ids_take_the_fast_path(tmp_path):
    path = write(tmp_path / "trials.jsonl", [tax_record(i) for i in range(50)])
    frame, used = counts_during(lambda: load_trials(path))
    assert used.get("typed") == 50
    assert used.get("strict", 0) == 0 and used.get("line_by_line", 0) == 0
    assert frame["task_id"].iloc[7] == "spatial_key_door:7"
    assert frame["extra"].iloc[7]["nested"] == {"a": [1, {"b": "x:y"}]}


def test_plain_records_take_the_arrow_path(tmp_path):
    recs = [{k: v for k, v in tax_record(i).items() if k != "extra"} for i in range(20)]
    path = write(tmp_path / "plain.jsonl", recs)
    frame, used = counts_during(lambda: load_trials(path))
    assert used.get("arrow") == 20 and used.get("orjson", 0) == 0
    assert frame["task_id"].tolist() == [f"spatial_key_door:{i}" for i in range(20)]


def test_unicode_and_escapes_take_the_fast_path_and_stay_exact(tmp_path):
    recs = [tax_record(0, task_id="tâche:ü 漢字 🙂", extra={"q": 'say "hi": \\ done',
                                                          "é:": "\u00e9", "tab": "a\tb"}),
            tax_record(1)]
    path = write(tmp_path / "u.jsonl", recs)
    frame, used = counts_during(lambda: load_trials(path))
    assert used.get("strict", 0) == 0 and used.get("typed") == 2
    assert frame["task_id"].iloc[0] == "tâche:ü 漢字 🙂"
    assert frame["extra"].iloc[0] == recs[0]["extra"]


def test_a_colon_escape_goes_to_the_reference_parser_only_on_its_line(tmp_path):
    lines = [json.dumps(tax_record(i)) for i in range(5)]
    lines[2] = lines[2].replace('"answer": "A:B"', '"answer": "A\\u003aB"')
    path = write(tmp_path / "esc.jsonl", lines)
    frame, used = counts_during(lambda: load_trials(path))
    assert used.get("strict") == 1 and used.get("orjson") == 4
    assert frame["extra"].iloc[2]["answer"] == "A:B"


@pytest.mark.parametrize("where", [0, 2, 4])  # first, middle and last line of the block
def test_duplicate_key_inside_nested_extra_names_file_and_line(tmp_path, where):
    lines = [json.dumps(tax_record(i)) for i in range(5)]
    lines[where] = lines[where].replace('"nested": {"a"', '"nested": {"a": 0, "a"')
    path = write(tmp_path / "dup.jsonl", lines)
    with pytest.raises(LogValidationError) as info:
        load_trials(path)
    assert str(info.value) == f"{path}:{where + 1}: duplicate key 'a' in one object"
    report = validate_logs(path)
    assert [(p.line, p.kind) for p in report.problems] == [(where + 1, "duplicate_key")]
    assert report.n_valid == 4


def test_a_duplicate_hidden_by_a_colon_escape_is_found(tmp_path):
    # the escape adds a decoded colon that the dropped key would otherwise balance
    line = json.dumps(tax_record(0)).replace(
        '"answer": "A:B"', '"answer": "A\\u003aB", "turns": 4')
    path = write(tmp_path / "hidden.jsonl", [tax_record(1), line])
    with pytest.raises(LogValidationError) as info:
        load_trials(path)
    assert str(info.value) == f"{path}:2: duplicate key 'turns' in one object"


def test_a_top_level_duplicate_with_colons_in_its_values_is_found(tmp_path):
    line = json.dumps(tax_record(0))[:-1] + ', "task_id": "other:1"}'
    path = write(tmp_path / "top.jsonl", [tax_record(1), line])
    with pytest.raises(LogValidationError) as info:
        load_trials(path)
    assert str(info.value) == f"{path}:2: duplicate key 'task_id' in one object"


def test_nan_in_extra_is_refused_with_the_reference_message(tmp_path):
    line = json.dumps(tax_record(3)).replace('"latency_s": 0.5', '"latency_s": NaN')
    path = write(tmp_path / "nan.jsonl", [tax_record(1), tax_record(2), line])
    with pytest.raises(LogValidationError) as info:
        load_trials(path)
    assert str(info.value) == (
        f"{path}:3: non-finite number literal NaN (pass allow_nan=True to accept it where a "
        "field may hold it, e.g. extra; a reward must be finite)")


@pytest.mark.parametrize("changes, field, received", [
    ({"task_id": 7}, "task_id", "an integer 7"),
    ({"trial": 1.0}, "trial", "a number 1.0"),
    ({"infrastructure_error": "no"}, "infrastructure_error", "a string 'no'"),
    ({"extra": [1, 2]}, "extra", "an array [1, 2]"),
])
def test_wrong_types_name_file_line_and_field(tmp_path, changes, field, received):
    path = write(tmp_path / "types.jsonl", [tax_record(0), tax_record(1, **changes)])
    with pytest.raises(LogValidationError) as info:
        load_trials(path)
    problem = info.value.problems[0]
    assert (problem.source, problem.line, problem.field) == (str(path), 2, field)
    assert problem.received.startswith(received)
    assert str(info.value).startswith(f"{path}:2: {field}: ")


def test_wide_integer_in_extra_is_decoded_exactly(tmp_path):
    path = write(tmp_path / "wide.jsonl",
                 [tax_record(0, extra={"big": 2**70, "neg": -2**63 - 1}), tax_record(1)])
    frame, used = counts_during(lambda: load_trials(path))
    assert frame["extra"].iloc[0] == {"big": 2**70, "neg": -2**63 - 1}
    assert type(frame["extra"].iloc[0]["big"]) is int
    assert used.get("typed") == 2  # msgspec keeps integers of any size exact


# ------------------------------------------------------------------ the block test is sound

_key = st.text(alphabet='ab:"\\é', max_size=3)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.text(alphabet='x:"\\\u00e9\u003a', max_size=4))
_value = st.recursive(_scalar, lambda inner: st.lists(inner, max_size=3)
                      | st.lists(st.tuples(_key, inner), max_size=3).map(lambda p: ("obj", p)),
                      max_leaves=8)


def _text(value) -> str:
    """JSON text of a value where ("obj", pairs) is an object that may repeat keys, and a
    string may spell a colon as the \\u003a escape."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "obj":
        return "{" + ", ".join(f"{json.dumps(k)}: {_text(v)}" for k, v in value[1]) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(_text, value)) + "]"
    text = json.dumps(value, ensure_ascii=False)
    return text.replace(":", "\\u003a", 1) if isinstance(value, str) and text.count(":") > 1 \
        else text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.tuples(_key, _value), max_size=4), min_size=1, max_size=6))
def test_every_line_the_block_test_vouches_for_decodes_as_the_reference(objects):
    lines = [("{" + ", ".join(f"{json.dumps(k)}: {_text(v)}" for k, v in pairs) + "}").encode()
             for pairs in objects]
    decoded = []
    for line in lines:
        try:
            decoded.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            return  # the block path gives such a block to the line-by-line reader
    unsure = set(unsure_lines(lines, decoded))
    for i, line in enumerate(lines):
        if i in unsure:
            continue
        try:
            expected = parse_strict(line)
        except JSONProblem as exc:
            raise AssertionError(f"vouched for a line the reference refuses: {line!r}") from exc
        assert decoded[i] == expected and repr(decoded[i]) == repr(expected)


# ------------------------------------------------------------------ the Arrow path's extra checks


def plain_record(i: int, **changes):
    rec = {k: v for k, v in tax_record(i).items() if k != "extra"}
    rec.update(changes)
    return rec


@pytest.mark.parametrize("n_null", [1, 3, 12])  # few nulls: their lines are searched; many: all
def test_a_missing_reward_among_written_nulls_is_named(tmp_path, n_null):
    recs = [plain_record(i) for i in range(40)]
    for i in range(n_null):  # written nulls (an infrastructure error carries no reward)
        recs[2 * i] = plain_record(2 * i, reward=None, infrastructure_error=True)
    good = write(tmp_path / "nulls.jsonl", recs)
    frame, used = counts_during(lambda: load_trials(good))
    assert used.get("arrow") == 40 and int(frame["reward"].isna().sum()) == n_null
    missing = dict(recs[31])
    del missing["reward"]
    recs[31] = missing
    bad = write(tmp_path / "missing.jsonl", recs)
    with pytest.raises(LogValidationError) as info:
        load_trials(bad)
    assert str(info.value).startswith(f"{bad}:32: reward: required field is missing")


# ------------------------------------------------------------------ repeated trial keys


_key_rows = st.lists(st.tuples(st.sampled_from(["b", "c"]), st.just("m"), st.sampled_from("pq"),
                               st.none() | st.integers(-1, 1),
                               st.sampled_from(["0", "00", "7", "a:b"]), st.integers(0, 2)),
                     max_size=40)


@settings(max_examples=200, deadline=None)
@given(_key_rows)
def test_duplicate_rows_pairs_each_repeat_with_the_first_row_of_its_key(rows):
    import pandas as pd

    from noisefloor.logs.records.frame import STRING_DTYPE, duplicate_rows

    frame = pd.DataFrame({
        "benchmark": pd.array([r[0] for r in rows], dtype=STRING_DTYPE),
        "model": pd.array([r[1] for r in rows], dtype=STRING_DTYPE),
        "protocol": pd.array([r[2] for r in rows], dtype=STRING_DTYPE),
        "seed": pd.array([r[3] for r in rows], dtype="Int64"),
        "task_id": pd.array([r[4] for r in rows], dtype=STRING_DTYPE),
        "trial": pd.array([r[5] for r in rows], dtype="int64"),
    })
    first: dict[tuple, int] = {}
    expected = []
    for pos, key in enumerate(rows):  # None == None, as the reader's key rule says
        if key in first:
            expected.append((first[key], pos))
        else:
            first[key] = pos
    assert duplicate_rows(frame) == expected
