"""Fixtures of the log tests: real inspect_ai logs, written once per session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def shared_inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder in which ``make_inspect_logs.py`` writes its logs once per test session
    (its ``MAKE_INSPECT_LOGS_SHARED``): under the session's temporary folder, which the
    xdist workers of one run share (each worker's own folder is a child of it)."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "inspect-logs"


@pytest.fixture(scope="session")
def inspect_logs(tmp_path_factory) -> dict:
    """Run ``make_inspect_logs.py`` (tiny evals with inspect's mock model, offline) in a
    subprocess, so that the evals' global state (event loop, logging, inspect's zipfile
    patches) stays out of the test process; return its ``expected.json`` (see that script).
    Takes about 7 s of CPU (inspect's start-up), once per session: the run of the example
    in ``docs/logs.md`` copies the same logs (see :func:`shared_inspect_logs`)."""
    pytest.importorskip("inspect_ai", reason="inspect-ai is a test extra (pip install .[test])")
    out = tmp_path_factory.mktemp("inspect") / "logs"
    env = {**os.environ, "INSPECT_DISPLAY": "none", "INSPECT_LOG_LEVEL": "error",
           "MAKE_INSPECT_LOGS_SHARED": str(shared_inspect_logs(tmp_path_factory))}
    done = subprocess.run([sys.executable, str(HERE / "make_inspect_logs.py"), str(out)],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    if done.returncode != 0:
        pytest.fail(f"make_inspect_logs.py failed:\n{done.stdout}\n{done.stderr}")
    return json.loads((out / "expected.json").read_text())
