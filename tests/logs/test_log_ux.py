"""Regressions found by a new-user test in noisefloor.logs."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.logs import LogValidationError, detect_format, validate_logs

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "logs"


def test_duplicate_rows_are_not_counted_as_valid(tmp_path):
    # 30 records plus a copy of line 2 gave "31 valid record(s)".
    lines = (FIX / "trials.jsonl").read_text().splitlines()
    log = tmp_path / "dup.jsonl"
    log.write_text("\n".join(lines + [lines[1], lines[1]]) + "\n")
    report = validate_logs(log)
    assert report.n_valid == len(lines)
    assert [p.kind for p in report.problems] == ["duplicate_row", "duplicate_row"]
    out = CliRunner().invoke(cli, ["log", "validate", str(log)]).output
    assert out.splitlines()[-1] == (f"1 file(s), {len(lines)} valid record(s), "
                                    "0 truncated line(s): 2 problem(s)")


SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


@pytest.mark.parametrize("name, text, received", [
    ("empty.json", "{}", "an empty JSON object"),
    ("obj.json", '{"foo": 1}', "a JSON object with keys 'foo'"),
    ("info_only.json", '{"info": {}}', "a JSON object with keys 'info'"),
    ("list.json", '[{"foo": 1}]', "a JSON array whose first element is a JSON object with keys "
                                  "'foo'"),
    ("lines.jsonl", '{"a": 1}\n', "lines holding JSON objects with keys 'a'"),
])
def test_a_non_log_is_not_taken_for_a_tau2_run(tmp_path, name, text, received):
    # any JSON object was read as tau2 ("cannot name the benchmark").
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(LogValidationError) as err:
        detect_format(path)
    problem, = err.value.problems
    assert problem.message == "not a recognised trial log" and problem.received == received
    assert "schema_version" in problem.expected and "'info' and 'simulations'" in problem.expected
    r = CliRunner().invoke(cli, ["floor", str(path)])
    assert r.exit_code == 1
    assert r.output.startswith(f"Error: {path}: not a recognised trial log (expected one of")
    assert "--format" in r.output and "format=" not in r.output and "domain_name" not in r.output


def test_tau2_results_are_recognised_by_their_keys(tmp_path):
    for keys in ('{"info": {}, "simulations": []}', '{"timestamp": "x", "info": {}, "tasks": []}'):
        path = tmp_path / "results.json"
        path.write_text(keys)
        assert detect_format(path) == "tau2"
    assert detect_format(FIX / "tau2_json" / "results.json") == "tau2"
    # A large document is judged by the keys in its first MiB (info comes before simulations).
    big = tmp_path / "big.json"
    big.write_text('{"timestamp": "x", "info": {"a": 1}, "simulations": ['
                   + ",".join(['{"task_id": "1", "pad": "' + "x" * 1000 + '"}'] * 1200) + "]}")
    assert big.stat().st_size > 1 << 20 and detect_format(big) == "tau2"
    big.write_text('{"pad": "' + "x" * (1 << 20) + '"}')
    with pytest.raises(LogValidationError, match="not a recognised trial log"):
        detect_format(big)


def test_validate_shared_data_names_each_non_log_file():
    # ``log validate ../shared/data``: the tau-bench log is valid, the two tau2-bench tables
    # (leaderboard, task split) are named as not trial logs, nothing else is said about them.
    r = CliRunner().invoke(cli, ["log", "validate", str(SHARED)])
    assert r.exit_code == 1
    lines = r.output.splitlines()
    assert len(lines) == 3, r.output
    for line, name in zip(lines, ["leaderboard_submissions.json", "retail_split_tasks.json"]):
        assert line.startswith(str(SHARED / "tau2-bench" / name) + ": not a recognised trial log")
    assert lines[2] == "3 file(s), 200 valid record(s), 0 truncated line(s): 2 problem(s)"


def test_schema_states_the_reward_range_and_plain_description():
    # external validators accepted reward 1.5; the description was numpydoc.
    jsonschema = pytest.importorskip("jsonschema")
    from noisefloor.logs import TrialRecord, trial_record_json_schema

    schema = trial_record_json_schema()
    assert schema["properties"]["reward"]["anyOf"] == [
        {"type": "number", "minimum": 0, "maximum": 1}, {"type": "null"}]
    assert "reward" in schema["required"]
    assert "``" not in schema["description"] and "Attributes" not in schema["description"]
    rec = {"schema_version": "1", "benchmark": "b", "model": "m", "protocol": "p", "seed": 1,
           "task_id": "1", "trial": 0, "reward": 1.0, "termination_reason": None,
           "infrastructure_error": False}
    validator = jsonschema.Draft202012Validator(schema)
    for reward, ok in ((1.0, True), (0, True), (None, True), (1.5, False), (-0.1, False)):
        assert validator.is_valid({**rec, "reward": reward}) is ok, reward
    # noisefloor's own validation and its message are unchanged
    from pydantic import ValidationError
    with pytest.raises(ValidationError, match=r"reward must lie in \[0, 1\], got 1.5"):
        TrialRecord.model_validate({**rec, "reward": 1.5})


def test_forced_tau2_reader_applies_the_same_key_test(tmp_path):
    # With format="tau2" an object holding only 'info' is not a run either (it got the
    # info.environment_info complaints); the message no longer claims it was auto-detected.
    path = tmp_path / "results.json"
    path.write_text('{"info": {}}')
    problem, = validate_logs(path, format="tau2").problems
    assert problem.message.startswith("not a tau2-bench results.json;")
    assert "because it is a JSON object" not in problem.message
    assert problem.received == "an object with keys 'info'"


def test_json_lines_saved_as_dot_json_are_read_by_their_lines(tmp_path):
    lines = tmp_path / "trials.json"
    lines.write_bytes((FIX / "trials.jsonl").read_bytes())
    assert detect_format(lines) == "jsonl"
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}\n{"a": 2}\n')
    with pytest.raises(LogValidationError, match="not a recognised trial log"):
        detect_format(other)
    broken = tmp_path / "results.json"  # a cut-off tau2 run still goes to the tau2 reader
    broken.write_text('{"info": {}, "simulations": [')
    assert detect_format(broken) == "tau2"
    problem, = validate_logs(broken).problems
    assert problem.message.startswith("malformed JSON")
