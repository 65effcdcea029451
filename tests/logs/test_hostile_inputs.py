"""Issue 13, the log-reading classes: nothing lost, nothing hangs, every error names the place.

Special files and huge tails are made in tmp_path; every test is bounded in time (files that
could block are read in a daemon thread with a timeout, so a regression fails instead of
hanging).
"""

from __future__ import annotations

import json
import os
import re
import threading
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.cli.main import cli
from noisefloor.logs import LogValidationError, detect_format, load_trials, validate_logs
from noisefloor.logs.jsonl.lines import iter_line_blocks

REC = {"schema_version": "1", "benchmark": "b", "model": "m", "protocol": "p", "seed": 1,
       "task_id": "t", "trial": 0, "reward": 1.0, "termination_reason": None,
       "infrastructure_error": False}


def _line(**changes) -> str:
    return json.dumps({**REC, **changes}) + "\n"


def _cli(*args: str, timeout: float = 30):
    """``noisefloor ARGS`` in a daemon thread: a file that blocks makes the test fail at the
    timeout instead of hanging the suite."""
    box = []
    worker = threading.Thread(target=lambda: box.append(CliRunner().invoke(cli, list(args))),
                              daemon=True)
    worker.start()
    worker.join(timeout)
    if not box:
        pytest.fail(f"noisefloor {' '.join(args)} did not return within {timeout} s")
    return box[0]


# ------------------------------------------------------------------ directory walk, any depth

def test_logs_ten_levels_down_are_read(tmp_path):
    deep = tmp_path.joinpath(*[f"d{i}" for i in range(10)])
    deep.mkdir(parents=True)
    (deep / "t.jsonl").write_text(_line(protocol="deep"))
    (tmp_path / "top.jsonl").write_text(_line(protocol="top"))
    df = load_trials(tmp_path)
    assert sorted(df["protocol"]) == ["deep", "top"]  # the old walk stopped at 4 levels
    assert validate_logs(tmp_path).n_valid == 2


def test_a_link_back_up_the_tree_is_walked_once(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "t.jsonl").write_text(_line())
    os.symlink("../..", tmp_path / "a" / "b" / "up")  # a loop: b/up -> tmp_path
    df = load_trials(tmp_path)
    assert len(df) == 1


# ------------------------------------------------------------------ special files, symlinks

def test_a_named_pipe_among_the_logs_is_refused_not_opened(tmp_path):
    (tmp_path / "ok.jsonl").write_text(_line())
    os.mkfifo(tmp_path / "pipe.jsonl")
    for target in (tmp_path, tmp_path / "pipe.jsonl"):
        done = _cli("log", "validate", str(target))  # blocked forever before
        assert done.exit_code == 1
        assert f"{tmp_path / 'pipe.jsonl'}: a named pipe (FIFO), not a regular file" in done.output
    with pytest.raises(LogValidationError, match="named pipe"):
        load_trials(tmp_path)


def test_a_character_device_is_refused(tmp_path):
    with pytest.raises(LogValidationError, match="/dev/zero: a character device"):
        load_trials("/dev/zero")  # reading it would never end


@pytest.mark.parametrize("target", ["self.jsonl", "."])
def test_a_self_referential_symlink_is_named(tmp_path, target):
    os.symlink("self.jsonl", tmp_path / "self.jsonl")
    done = _cli("log", "validate", str(tmp_path / target))
    assert done.exit_code == 1
    assert "internal error" not in done.output.lower()
    assert f"{tmp_path / 'self.jsonl'}: a symbolic link that points to itself" in done.output
    with pytest.raises(LogValidationError, match="points to itself"):
        detect_format(tmp_path / "self.jsonl")


def test_a_dangling_symlink_is_named(tmp_path):
    (tmp_path / "ok.jsonl").write_text(_line())
    os.symlink("gone.jsonl", tmp_path / "run.jsonl")
    with pytest.raises(LogValidationError, match="a symbolic link to 'gone.jsonl', which does not"):
        load_trials(tmp_path)


# ------------------------------------------------------------------ long lines and tails

def _sparse(path: Path, head: bytes, size: int) -> None:
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)  # a hole: zero bytes that take no disk


def test_a_zero_filled_tail_is_one_line_length_problem_in_bounded_memory(tmp_path):
    path = tmp_path / "crashed.jsonl"
    _sparse(path, _line().encode(), 48 << 20)  # one record, then 48 MiB of zeros
    tracemalloc.start()
    try:
        report = validate_logs(path, format="jsonl", max_line_bytes=4 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.n_valid == 1
    problem, = report.problems
    assert (problem.line, problem.kind) == (2, "line_length")
    assert "no newline ends it" in problem.message
    # the old reader held the whole tail (and copied it once per block): here the limit
    # plus a block or two
    assert peak < 40 << 20


def test_a_long_line_in_the_middle_is_reported_and_reading_goes_on(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(_line() + _line(trial=1, extra={"blob": "x" * 5000}) + _line(trial=2))
    report = validate_logs(path, max_line_bytes=1000)
    assert report.n_valid == 2
    assert [(p.line, p.kind) for p in report.problems] == [(2, "line_length")]
    with pytest.raises(LogValidationError, match=r"t.jsonl:2: line is 5,.* bytes long"):
        load_trials(path, max_line_bytes=1000)
    result = CliRunner().invoke(cli, ["log", "validate", "--max-line-bytes", "1000", str(path)])
    assert result.exit_code == 1 and "t.jsonl:2: line is" in result.output


def test_a_valid_50_mb_first_line_is_detected(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text(_line(extra={"blob": "x" * 50_000_000}) + _line(trial=1))
    assert detect_format(path) == "jsonl"  # was: "no decodable line among the first 50"
    assert len(load_trials(path)) == 2


def test_a_tau2_document_with_a_huge_garbage_tail_fails_without_reading_it(tmp_path):
    run = tmp_path / "results.json"
    _sparse(run, b'{"info": {"seed": 300}, "tasks": [], "simulations": [', 200 << 20)
    assert detect_format(run) == "tau2"
    tracemalloc.start()
    try:
        problem, = validate_logs(run).problems
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "does not end with '}' or ']'" in problem.message and "zero bytes" in problem.message
    assert peak < 8 << 20  # the 200 MiB document was never read into memory


# ------------------------------------------------------------------ lone surrogates

@pytest.mark.parametrize(("changes", "field"), [
    ({"task_id": "t\ud800"}, "task_id"),
    ({"termination_reason": "x\udfff"}, "termination_reason"),
    ({"extra": {"notes": ["ok", {"why": "\udc00"}]}}, "extra.notes[1].why"),
])
def test_a_lone_surrogate_is_named_by_file_line_and_field(tmp_path, changes, field):
    path = tmp_path / "t.jsonl"
    path.write_text(_line(task_id="a") + _line(**{"task_id": "b", **changes}))  # dumps escapes
    problem, = validate_logs(path).problems
    assert (problem.source, problem.line, problem.field) == (str(path), 2, field)
    assert "lone UTF-16 surrogate" in problem.message
    result = CliRunner().invoke(cli, ["log", "validate", str(path)])
    assert result.exit_code == 1
    assert f"t.jsonl:2: {field}: lone UTF-16 surrogate" in result.output
    assert "1 valid record(s)" in result.output  # the report is printed
    with pytest.raises(LogValidationError, match=re.escape(f":2: {field}: lone")):
        load_trials(path)


def test_a_surrogate_pair_is_a_character_not_a_problem(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(_line(task_id="smile \U0001f600"))
    assert load_trials(path)["task_id"].iloc[0] == "smile \U0001f600"


# ------------------------------------------------------------------ the line reader's contract

def _reference(data: bytes, limit: int) -> list[tuple[int, int | None, bytes, bool]]:
    """``(line, too_long, text, is_tail)`` per line: str.split semantics, the BOM dropped."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    *lines, tail = data.split(b"\n")
    out = [(i, len(t) if len(t) > limit else None, b"" if len(t) > limit else t, False)
           for i, t in enumerate(lines, 1)]
    if len(tail) > limit:
        out.append((len(lines) + 1, len(tail), b"", True))
    elif tail.strip():
        out.append((len(lines) + 1, None, tail, True))
    return out


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80).map(lambda b: b.replace(b"\x00", b"\n")),
       st.booleans(), st.integers(1, 16), st.integers(1, 20))
def test_line_reader_splits_like_bytes_split(tmp_path_factory, data, bom, block, limit):
    path = tmp_path_factory.mktemp("lines") / "x.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    got = []
    for b in iter_line_blocks(path, block_bytes=block, max_line_bytes=limit):
        if b.too_long is not None:
            got.append((b.first_line, b.too_long, b"", b.is_tail))
        else:
            got.extend((b.first_line + i, None, t, b.is_tail) for i, t in enumerate(b.lines))
    assert got == _reference((b"\xef\xbb\xbf" if bom else b"") + data, limit)


def test_log_validate_reads_the_good_files_and_names_every_bad_path(tmp_path):
    (tmp_path / "runs" / "pull").mkdir(parents=True)
    (tmp_path / "runs" / "pull" / "t.jsonl").write_text(_line() + _line(trial=1))
    os.mkfifo(tmp_path / "runs" / "pull" / "live.jsonl")
    os.symlink("self.jsonl", tmp_path / "runs" / "self.jsonl")
    done = _cli("log", "validate", str(tmp_path / "runs"), str(tmp_path / "missing"))
    assert done.exit_code == 1
    lines = done.output.splitlines()
    assert any("live.jsonl: a named pipe" in line for line in lines)
    assert any("self.jsonl: a symbolic link that points to itself" in line for line in lines)
    assert any("missing: no such file or directory" in line for line in lines)
    assert lines[-1] == "1 file(s), 2 valid record(s), 0 truncated line(s): 3 problem(s)"
