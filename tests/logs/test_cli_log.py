"""``noisefloor log schema`` and ``noisefloor log validate`` (through click's test runner)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from noisefloor.cli.log import log

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "logs"


def run(*args: str):
    return CliRunner().invoke(log, list(args))


def test_schema_prints_the_json_schema():
    result = run("schema")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert "task_id" in schema["properties"] and "reward" in schema["required"]


def test_validate_good_files(shared_data):
    airline = shared_data / "tau-bench" / "gpt-4o-airline.json"
    result = run("validate", str(FIX / "tau2_dir"), str(FIX / "trials.jsonl"), str(airline))
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("3 file(s), 212 valid record(s), 0 truncated line(s): ok")


def test_validate_reports_every_problem_and_exits_1(tmp_path):
    good = (FIX / "trials.jsonl").read_text().splitlines()
    assert '"task_id": "007"' in good[2]
    bad = [good[0], "{oops", good[2].replace('"task_id": "007"', '"task_id": 7'), good[0],
           good[3][:25]]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(bad))
    result = run("validate", str(path))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[0].startswith(f"{path}:2: malformed JSON")
    assert lines[1].startswith(f"{path}:3: task_id: Input should be a valid string")
    assert "received an integer 7" in lines[1]
    assert lines[2].startswith(f"{path}:4: duplicate trial") and f"{path}:1" in lines[2]
    assert lines[3].startswith(f"warning: {path}:5: final line is truncated")
    # The duplicate row is a problem, not a valid record.
    assert lines[4] == "1 file(s), 1 valid record(s), 1 truncated line(s): 3 problem(s)"
    assert "Traceback" not in result.output


def test_validate_json_output(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"schema_version": "1"}\n')
    result = run("validate", "--json", str(path))
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc["ok"] is False and doc["n_valid"] == 0
    assert {p["field"] for p in doc["problems"]} >= {"benchmark", "task_id", "reward"}


def test_validate_format_override_and_labels():
    result = run("validate", "--format", "paper", "--benchmark", "tau2/retail", "--model",
                 "claude-haiku-4-5", str(FIX / "paper"))
    assert result.exit_code == 0, result.output
    assert "24 valid record(s)" in result.output


def test_errors_are_one_line_without_traceback(tmp_path):
    result = run("validate", str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == f"{tmp_path / 'missing.jsonl'}: no such file or directory"
    assert "Traceback" not in result.output


def test_a_missing_path_does_not_hide_other_files_problems(tmp_path, fixtures_dir):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema_version": "1"}\n')
    (tmp_path / "empty").mkdir()
    result = run("validate", "--format", "jsonl", str(bad), str(tmp_path / "nope.jsonl"),
                 str(tmp_path / "empty"))
    assert result.exit_code == 1
    out = result.output
    assert "nope.jsonl: no such file or directory" in out
    assert "empty: directory holds no" in out
    assert f"{bad}:1:" in out
    result = run("validate", "--format", "csv", "x")
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_readme_bad_example_reports_every_problem(fixtures_dir):
    # fixtures/logs/bad_example.jsonl is the README's example: one problem of each kind.
    path = fixtures_dir / "logs" / "bad_example.jsonl"
    result = run("validate", str(path))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert [ln.split(":")[1] for ln in lines[:5]] == ["2", "3", "5", "6", "7"]
    assert "duplicate key 'reward'" in lines[0] and "integer 7" in lines[1]
    assert "required field is missing" in lines[2] and "1.5" in lines[3]
    assert "duplicate trial" in lines[4] and f"{path}:1" in lines[4]
    assert lines[5].startswith(f"warning: {path}:9: final line is truncated")
    assert lines[6] == "1 file(s), 2 valid record(s), 1 truncated line(s): 5 problem(s)"


def test_validate_unexpected_error_is_one_line(monkeypatch, tmp_path):
    import noisefloor.cli.log as log_cli

    def broken(*args, **kwargs):
        raise RuntimeError("reader bug")

    monkeypatch.setattr(log_cli, "validate_logs", broken)
    monkeypatch.delenv("NOISEFLOOR_TRACEBACK", raising=False)
    path = tmp_path / "t.jsonl"
    path.write_text("{}\n")
    from click.testing import CliRunner

    from noisefloor.cli.main import cli
    r = CliRunner().invoke(cli, ["log", "validate", str(path)])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit)
    assert "internal error (RuntimeError: reader bug)" in r.output
