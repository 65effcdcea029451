"""Benchmarks that cannot rot: every script under benchmarks/ runs at its ``--tiny`` size.

The test is parametrised over the files found in benchmarks/, so a new script is tested as
soon as it exists, and a script without a ``--tiny`` option fails (argparse exits 2). Each run
checks only that the script exits 0 and prints figures; speed itself is what the scripts
print at their full size, never asserted here. Scripts that need more than about 5 s at their
tiny size are marked ``slow``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))

#: Scripts whose tiny run takes more than about 5 s on an idle 2-core machine (child
#: processes, a server, synthetic runs written to disk).
SLOW = {"agreement_bootstrap", "audit_counts", "cli_startup", "compare", "floor", "formats",
        "ingest", "limits", "protocols", "runner", "tax_report", "viewer_speed"}

#: A figure: a number with a decimal point or a thousands separator, or a ratio like 2.5x.
FIGURE = re.compile(r"\d+[.,]\d+|\d+(\.\d+)?x\b")


def _param(path: Path):
    marks = [pytest.mark.slow] if path.stem in SLOW else []
    return pytest.param(path, id=path.stem, marks=marks)


def test_benchmarks_are_found():
    assert len(SCRIPTS) >= 10, SCRIPTS


@pytest.mark.parametrize("script", [_param(p) for p in SCRIPTS])
def test_benchmark_runs_at_its_tiny_size(script: Path, tmp_path: Path):
    # this checkout's noisefloor and harness, whatever is installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, str(script), "--tiny"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (
        f"{script.name} --tiny exited {done.returncode}\n{done.stdout[-2000:]}\n"
        f"{done.stderr[-3000:]}")
    assert FIGURE.search(done.stdout), f"{script.name} printed no figure:\n{done.stdout[-2000:]}"
