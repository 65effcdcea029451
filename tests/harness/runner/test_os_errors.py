"""OS errors and encodings name the file: disk full (ENOSPC), file too large (EFBIG), a config
file that is not UTF-8, a run with no records."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.runner import journal as jr
from noisefloor.cli.main import cli

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_names_the_journal(tmp_path):
    os.symlink("/dev/full", tmp_path / jr.JOURNAL)  # every write: ENOSPC
    with pytest.raises(OSError, match=r"\[Errno 28\] No space left on device \(appending a "
                                      r"journal entry\): '.*journal.ndjson'"):
        with jr.JournalWriter(tmp_path / jr.JOURNAL) as writer:
            writer.append({"key": "k", "settings": "s", "record": {}})


def test_a_file_too_large_names_the_file(server, tmp_path):
    """Under a file-size limit of 2 KB (RLIMIT_FSIZE) the journal (or a transcript) cannot
    grow: the run stops with EFBIG naming the file, not a bare errno."""
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    done = subprocess.run(
        [sys.executable, "-m", "noisefloor", "tax", "run", "--tasks", "csp_sudoku4",
         "--models", "solver", "--modes", "solo", "--difficulty", "0", "--rollouts", "4",
         "--base-url", server.base_url, "--out", str(tmp_path / "run")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, preexec_fn=limit)
    assert done.returncode == 1
    assert f"Error: {tmp_path / 'run'}/" in done.stderr
    assert ": File too large (" in done.stderr, done.stderr


def test_a_config_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "run.toml"
    path.write_bytes(b'[run]\ntasks = ["\xff"]\n')
    res = CliRunner().invoke(cli, ["tax", "run", "--config", str(path)])
    assert res.exit_code == 1
    assert f"{path}: not UTF-8 text (invalid start byte at byte 16)" in res.output


def test_tax_report_on_an_empty_run_says_so(tmp_path):
    (tmp_path / "trials.jsonl").write_text("")
    res = CliRunner().invoke(cli, ["tax", "report", str(tmp_path), "--out",
                                   str(tmp_path / "rep")])
    assert res.exit_code == 1
    assert "trials.jsonl: field 'trials': the run holds no records" in res.output
