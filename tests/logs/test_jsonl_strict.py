"""The strict JSONL reader: every bad-input kind, each with a small file."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import noisefloor.logs.jsonl.lines as lines_module
from noisefloor.logs import (
    COLUMNS,
    LogValidationError,
    TruncatedLineWarning,
    load_trials,
    read_records,
    validate_logs,
)


def record(**changes):
    rec = {
        "schema_version": "1", "benchmark": "tau2/retail", "model": "claude-haiku-4-5",
        "protocol": "pull", "seed": 1, "task_id": "007", "trial": 0, "reward": 1.0,
        "termination_reason": "user_stop", "infrastructure_error": False,
    }
    rec.update(changes)
    return {k: v for k, v in rec.items() if v is not _DROP}


_DROP = object()


def write_lines(path, lines, newline_at_end=True, encoding_prefix=b""):
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines)
    if newline_at_end:
        text += "\n"
    path.write_bytes(encoding_prefix + text.encode("utf-8"))
    return path


def load_error(path, **kwargs) -> LogValidationError:
    with pytest.raises(LogValidationError) as info:
        load_trials(path, **kwargs)
    return info.value


# ---------------------------------------------------------------- reading that must succeed


def test_columns_and_dtypes_in_order(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [
        record(), record(task_id="8", trial=1, reward=None, seed=None, infrastructure_error=True,
                         termination_reason=None, extra={"k": [1, 2]}, injections=3,
                         store_events_at_start=0, first_request_sha256="ab" * 32)])
    df = load_trials(path)
    assert tuple(df.columns) == COLUMNS
    assert str(df["seed"].dtype) == "Int64"
    assert df["trial"].dtype == np.int64
    assert df["reward"].dtype == np.float64
    assert df["infrastructure_error"].dtype == bool
    assert df["line"].tolist() == [1, 2]
    assert df["source"].tolist() == [str(path)] * 2
    assert pd.isna(df["seed"].iloc[1]) and df["seed"].iloc[0] == 1
    assert math.isnan(df["reward"].iloc[1])
    assert df["extra"].iloc[1] == {"k": [1, 2]} and df["extra"].iloc[0] is None
    assert df["injections"].iloc[1] == 3 and pd.isna(df["injections"].iloc[0])
    assert df.attrs["truncated"] == []


def test_utf8_bom_is_accepted(tmp_path):
    path = write_lines(tmp_path / "bom.jsonl", [record(), record(trial=1)],
                       encoding_prefix=b"\xef\xbb\xbf")
    assert load_trials(path)["trial"].tolist() == [0, 1]


def test_blank_lines_skipped_and_numbering_kept(tmp_path):
    path = write_lines(tmp_path / "blank.jsonl", ["", record(), "   ", "\t", record(trial=1), ""])
    df = load_trials(path)
    assert df["line"].tolist() == [2, 5]


def test_crlf_line_endings(tmp_path):
    path = tmp_path / "crlf.jsonl"
    path.write_bytes((json.dumps(record()) + "\r\n" + json.dumps(record(trial=1)) + "\r\n")
                     .encode())
    assert len(load_trials(path)) == 2


def test_task_ids_never_coerced(tmp_path):
    ids = ["007", "7", "0", "1e3", "00", " 7"]
    path = write_lines(tmp_path / "ids.jsonl", [record(task_id=t) for t in ids])
    df = load_trials(path)
    assert df["task_id"].tolist() == ids
    assert [r.task_id for r in read_records(path)] == ids


def test_complete_last_line_without_newline_is_kept(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [record(), record(trial=1)], newline_at_end=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = load_trials(path)
    assert df["trial"].tolist() == [0, 1] and df.attrs["truncated"] == []


def test_explicit_null_differs_from_missing(tmp_path):
    ok = write_lines(tmp_path / "null.jsonl", [record(reward=None)])
    assert math.isnan(load_trials(ok)["reward"].iloc[0])
    missing = write_lines(tmp_path / "missing.jsonl", [record(), record(trial=1, reward=_DROP)])
    err = load_error(missing)
    assert str(err).startswith(f"{missing}:2: reward: required field is missing")
    assert "a missing field is not null" in str(err)


# ---------------------------------------------------------------- truncated last line


def test_truncated_final_line_is_reported_not_fatal(tmp_path):
    path = tmp_path / "cut.jsonl"
    good = json.dumps(record()) + "\n" + json.dumps(record(trial=1)) + "\n"
    path.write_text(good + json.dumps(record(trial=2))[:40], encoding="utf-8")
    with pytest.warns(TruncatedLineWarning, match=r"cut\.jsonl:3: final line is truncated"):
        df = load_trials(path)
    assert df["trial"].tolist() == [0, 1]
    (cut,) = df.attrs["truncated"]
    assert cut["source"] == str(path) and cut["line"] == 3 and cut["n_bytes"] == 40
    with pytest.warns(TruncatedLineWarning):
        report = validate_logs(path)
    assert report.ok and len(report.truncated) == 1


def test_cut_line_in_the_middle_is_an_error(tmp_path):
    path = write_lines(tmp_path / "mid.jsonl",
                       [record(), json.dumps(record(trial=1))[:30], record(trial=2)])
    err = load_error(path)
    assert str(err).startswith(f"{path}:2: malformed JSON")


# ---------------------------------------------------------------- JSON-level errors


def test_malformed_line_names_file_and_line(tmp_path):
    path = write_lines(tmp_path / "bad.jsonl", [record(), record(trial=1), '{"trial": 2,,}'])
    err = load_error(path)
    assert str(err).startswith(f"{path}:3: malformed JSON")
    assert err.problems[0].line == 3 and err.problems[0].kind == "json"


def test_two_objects_on_one_line(tmp_path):
    two = json.dumps(record(trial=1)) + json.dumps(record(trial=2))
    path = write_lines(tmp_path / "two.jsonl", [record(), two, record(trial=3)])
    err = load_error(path)
    assert str(err).startswith(f"{path}:2: malformed JSON: Extra data")


def test_object_split_over_two_lines(tmp_path):
    text = json.dumps(record(trial=1))
    cut = text.index('"trial"')
    path = write_lines(tmp_path / "split.jsonl", [record(), text[:cut], text[cut:]])
    report = validate_logs(path)
    assert [(p.line, p.kind) for p in report.problems] == [(2, "json"), (3, "json")]


def test_line_that_is_not_an_object(tmp_path):
    path = write_lines(tmp_path / "arr.jsonl", [record(), "[1, 2]"])
    err = load_error(path)
    assert f"{path}:2: record is not a JSON object" in str(err)


def test_invalid_utf8(tmp_path):
    path = tmp_path / "latin1.jsonl"
    line = json.dumps(record(termination_reason="caf\u00e9"), ensure_ascii=False)
    path.write_bytes((json.dumps(record()) + "\n").encode() + line.encode("latin-1") + b"\n")
    err = load_error(path)
    assert str(err).startswith(f"{path}:2: not valid UTF-8")
    assert err.problems[0].kind == "encoding"


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_rejected(tmp_path, literal):
    text = json.dumps(record(extra={"x": 0})).replace('"x": 0', f'"x": {literal}')
    path = write_lines(tmp_path / "nan.jsonl", [record(trial=1), text])
    err = load_error(path)
    assert str(err).startswith(f"{path}:2: ")
    assert err.problems[0].kind == "non_finite"


def test_allow_nan_lets_nan_through_in_extra_but_not_in_reward(tmp_path):
    text = json.dumps(record(extra={"x": 0})).replace('"x": 0', '"x": NaN')
    path = write_lines(tmp_path / "nan.jsonl", [text])
    df = load_trials(path, allow_nan=True)
    assert math.isnan(df["extra"].iloc[0]["x"])
    bad = write_lines(tmp_path / "nanreward.jsonl",
                      [json.dumps(record()).replace('"reward": 1.0', '"reward": NaN')])
    err = load_error(bad, allow_nan=True)
    assert str(err).startswith(f"{bad}:1: reward: reward must be a finite number")


@pytest.mark.parametrize("text", [
    '{"schema_version": "1", "schema_version": "1"}',
    '{"a": {"b": 1, "b": 2}}',
])
def test_duplicate_keys_rejected(tmp_path, text):
    rec = json.dumps(record(extra={"z": 1}))
    # put the duplicate inside an otherwise valid record
    dup = rec[:-1] + ", " + text[1:-1] + "}" if text.startswith('{"schema') else \
        rec.replace('"extra": {"z": 1}', '"extra": ' + text)
    path = write_lines(tmp_path / "dup.jsonl", [record(trial=1), dup])
    err = load_error(path)
    assert err.problems[0].kind == "duplicate_key"
    assert str(err).startswith(f"{path}:2: duplicate key")


# ---------------------------------------------------------------- schema errors


@pytest.mark.parametrize("changes, field, expected, received", [
    ({"task_id": 7}, "task_id", "a non-empty string", "an integer 7"),
    ({"task_id": ""}, "task_id", "a non-empty string", "a string ''"),
    ({"trial": -1}, "trial", "an integer >= 0", "an integer -1"),
    ({"trial": 1.0}, "trial", "an integer >= 0", "a number 1.0"),
    ({"trial": True}, "trial", "an integer >= 0", "a boolean True"),
    ({"reward": 1.5}, "reward", "a number in [0, 1] or null", "a number 1.5"),
    ({"reward": True}, "reward", "a number in [0, 1] or null", "a boolean True"),
    ({"reward": "1"}, "reward", "a number in [0, 1] or null", "a string '1'"),
    ({"infrastructure_error": 0}, "infrastructure_error", "true or false", "an integer 0"),
    ({"seed": "1"}, "seed", "an integer or null", "a string '1'"),
    ({"schema_version": "2"}, "schema_version", 'the string "1"', "a string '2'"),
    ({"first_request_sha256": "AB" * 32}, "first_request_sha256", "64 lowercase hex digits",
     "a string"),
    ({"injections": -2}, "injections", "an integer >= 0 or null", "an integer -2"),
    ({"extra": [1]}, "extra", "an object or null", "an array [1]"),
    ({"colour": "red"}, "colour", "one of: schema_version", "a string 'red'"),
    ({"protocol": _DROP}, "protocol", "a non-empty string", "no such key"),
])
def test_validation_error_names_file_line_field_expected_received(
        tmp_path, changes, field, expected, received):
    path = write_lines(tmp_path / "v.jsonl", [record(trial=5), record(**changes)])
    err = load_error(path)
    problem = err.problems[0]
    assert (problem.source, problem.line, problem.field) == (str(path), 2, field)
    assert expected in problem.expected
    assert problem.received.startswith(received)
    assert str(err).startswith(f"{path}:2: {field}: ")


def test_integer_beyond_64_bits(tmp_path):
    path = write_lines(tmp_path / "big.jsonl", [record(trial=2**70)])
    err = load_error(path)
    assert str(err).startswith(f"{path}:1: trial: integer outside the signed 64-bit range")


def test_duplicate_trial_names_both_lines(tmp_path):
    path = write_lines(tmp_path / "dup.jsonl", [record(), record(trial=1), record()])
    err = load_error(path)
    assert str(err).startswith(f"{path}:3: duplicate trial")
    assert f"first seen at {path}:1" in str(err)
    assert err.problems[0].kind == "duplicate_row"


def test_duplicate_trial_across_files_of_one_run(tmp_path):
    # a folder given once is one run: one trial key in two of its files is a repeat
    (tmp_path / "run").mkdir()
    a = write_lines(tmp_path / "run" / "a.jsonl", [record()])
    b = write_lines(tmp_path / "run" / "b.jsonl", [record(trial=1), record()])
    err = load_error(tmp_path / "run")
    assert str(err).startswith(f"{b}:2: duplicate trial") and f"{a}:1" in str(err)
    # each file given on its own is a run of its own: the same key in two runs is no repeat
    frame = load_trials([a, b])
    assert frame["run"].tolist() == ["a", "b", "b"]


def test_null_seeds_are_equal_for_duplicates(tmp_path):
    path = write_lines(tmp_path / "dup.jsonl", [record(seed=None), record(seed=None)])
    assert "duplicate trial" in str(load_error(path))


def test_label_disagreeing_with_caller(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [record(), record(trial=1, model="other")])
    err = load_error(path, model="claude-haiku-4-5")
    assert str(err).startswith(f"{path}:2: model: the record disagrees with model=")
    assert len(load_trials(path, protocol="pull")) == 2


# ---------------------------------------------------------------- collect-all and streaming


def test_validate_reports_every_problem(tmp_path):
    path = write_lines(tmp_path / "many.jsonl", [
        record(), "{oops", record(trial=1, task_id=7), "", record(trial=2, reward=2.0, seed="x"),
        '{"a": 1, "a": 1}', record(), json.dumps(record(trial=9))[:20],
    ], newline_at_end=False)
    with pytest.warns(TruncatedLineWarning):
        report = validate_logs(path)
    got = [(p.line, p.field, p.kind) for p in report.problems]
    assert got == [
        (2, None, "json"),
        (3, "task_id", "validation"),
        (5, "seed", "validation"),
        (5, "reward", "validation"),
        (6, None, "duplicate_key"),
        (7, None, "duplicate_row"),
    ]
    assert report.n_valid == 1 and not report.ok  # the duplicate row (line 7) is not valid
    assert [t.line for t in report.truncated] == [8]
    frame = report.to_frame()
    assert list(frame.columns)[:3] == ["source", "line", "field"] and len(frame) == 6


def test_fail_fast_reports_the_earliest_problem_first(tmp_path):
    # a JSON error and a schema error in one block: the message leads with the earlier line
    path = write_lines(tmp_path / "two.jsonl", [record(), record(trial=1, task_id=7), "{oops"])
    err = load_error(path)
    assert [p.line for p in err.problems] == [2, 3]
    assert str(err).startswith(f"{path}:2: task_id") and "(and 1 more problem(s))" in str(err)


def test_many_blocks_keep_line_numbers(tmp_path, monkeypatch):
    monkeypatch.setattr(lines_module, "BLOCK_BYTES", 1000)  # ~4 records per block
    recs = [record(task_id=f"{i:03d}") for i in range(300)]
    path = write_lines(tmp_path / "long.jsonl", recs[:250] + [""] + recs[250:])
    df = load_trials(path)
    assert len(df) == 300 and df["line"].iloc[-1] == 301
    assert df["task_id"].tolist() == [f"{i:03d}" for i in range(300)]
    bad = write_lines(tmp_path / "late.jsonl", recs[:200] + [record(task_id=7)] + recs[200:])
    assert str(load_error(bad)).startswith(f"{bad}:201: task_id")


def test_read_records_streams_and_checks_duplicates(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [record(), record(trial=1, reward=None)])
    recs = list(read_records(path))
    assert [(r.trial, r.reward) for r in recs] == [(0, 1.0), (1, None)]
    dup = write_lines(tmp_path / "d.jsonl", [record(), record()])
    with pytest.raises(LogValidationError, match=r"d\.jsonl:2: duplicate trial"):
        list(read_records(dup))


def test_missing_path_and_bad_options(tmp_path):
    with pytest.raises(LogValidationError, match="no such file"):
        load_trials(tmp_path / "nope.jsonl")
    path = write_lines(tmp_path / "t.jsonl", [record()])
    with pytest.raises(ValueError, match="format must be one of"):
        load_trials(path, format="csv")
    with pytest.raises(ValueError, match="model must be a non-empty string"):
        load_trials(path, model="")
    with pytest.raises(ValueError, match="logs must name at least one path"):
        load_trials([])


def test_wide_integers_in_extra_stay_exact(tmp_path):
    # orjson would widen 2**64 to a float; the loader must return the integer as written
    big = 2**64
    path = write_lines(tmp_path / "wide.jsonl", [
        record(extra={"big": big, "cost": 0.5}), record(trial=1, extra={"cost": 0.25}),
        record(trial=2, extra={"neg": -(2**63) - 1, "x": [1.5]})])
    df = load_trials(path)
    assert df["extra"].iloc[0] == {"big": big, "cost": 0.5}
    assert type(df["extra"].iloc[0]["big"]) is int
    assert df["extra"].iloc[2]["neg"] == -(2**63) - 1


def test_line_longer_than_a_read_block(tmp_path, monkeypatch):
    monkeypatch.setattr(lines_module, "BLOCK_BYTES", 4096)
    long_reason = "x" * (3 * 1024 * 1024)  # longer than Arrow's 1 MiB parse block, too
    path = write_lines(tmp_path / "long.jsonl",
                       [record(), record(trial=1, termination_reason=long_reason), record(trial=2)])
    df = load_trials(path)
    assert df["termination_reason"].str.len().tolist() == [9, len(long_reason), 9]
    assert df["line"].tolist() == [1, 2, 3]


def test_duplicates_found_across_blocks_by_every_entry_point(tmp_path, monkeypatch):
    monkeypatch.setattr(lines_module, "BLOCK_BYTES", 1000)
    recs = [record(task_id=f"{i:03d}", seed=None) for i in range(120)]
    path = write_lines(tmp_path / "far.jsonl", recs + [record(task_id="005", seed=None)])
    report = validate_logs(path)
    assert [(p.line, p.kind) for p in report.problems] == [(121, "duplicate_row")]
    assert f"first seen at {path}:6" in report.problems[0].message
    with pytest.raises(LogValidationError, match=r"far\.jsonl:121: duplicate trial .*task_id '005'"
                                                 r".* first seen at .*far\.jsonl:6"):
        list(read_records(path))
    assert str(load_error(path)).startswith(f"{path}:121: duplicate trial")
