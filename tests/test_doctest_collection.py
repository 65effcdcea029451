"""Doctests pass whatever order their modules are collected in.

``noisefloor.store``'s ``__init__`` imports ``noisefloor.store.events``; collecting that file for
its doctests first used to make pytest execute it a second time (``--import-mode=importlib``), so
two ``FailedTrialAction`` classes existed and the ``ToolSpec`` doctest of
``noisefloor.protocols.reader_interface`` failed on an ``isinstance`` check. The root conftest.py
imports each package module by its name before pytest collects it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_a_module_collected_first_is_imported_once():
    # events.py is collected before reader_interface.py, in a process of its own (the suite's
    # process has imported both long ago); only the doctests named run, without the plugins
    # that no doctest uses (Hypothesis's alone is half of the process's start-up)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:hypothesispytest", "-p", "no:platformdirs",
         "noisefloor/store/events.py::noisefloor.store.events.FailedTrialAction",
         "noisefloor/protocols/reader_interface.py::noisefloor.protocols.reader_interface.ToolSpec"],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout, done.stdout[-3000:]
