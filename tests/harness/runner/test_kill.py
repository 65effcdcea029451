"""kill -9 of the runner at random points, then resume: every key exactly once.

The runner runs in forked children of this process (so each start costs no imports) against
a scripted server in a subprocess; each child is killed with SIGKILL at a random point (after
it has journalled a random 0 to 3 further rollouts, then a random 0 to 30 ms later).
After 24 kills a last run finishes the plan, and the journal must hold every key of the plan
exactly once, with every line a complete entry.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

from harness.runner import journal as jr
from harness.runner.run import RunSettings, plan_rollouts, run_tax
from noisefloor.endpoints import ModelEndpoint

KILLS = 24


@pytest.fixture()
def server_url():
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.runner.scripted", "--tasks", "csp_sudoku4,spatial_one_way",
         "--seeds", "0-5", "--difficulty", "0", "--latency", "0.01"],
        stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        yield url
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _lines(path):
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_kill_9_at_random_points_then_resume(server_url, tmp_path):
    settings = RunSettings(tasks=("csp_sudoku4", "spatial_one_way"), models=("solver",),
                           modes=("solo", "pair", "split_solo"), rollouts=6, difficulty=0,
                           turn_cap=3)
    endpoints = [ModelEndpoint("solver", (server_url,), concurrency=3)]
    plan = {s.key for s in plan_rollouts(settings)}
    # warm up once in this process (SDK and pydantic first-use costs), so that the forked
    # children start hot
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_tax(RunSettings(tasks=("csp_sudoku4",), models=("solver",), modes=("solo",),
                            difficulty=0), endpoints, tmp_path / "warm")
    rng = np.random.default_rng(20261201)
    journal = tmp_path / jr.JOURNAL
    sizes = []
    deadline = time.monotonic() + 120
    for _ in range(KILLS):
        assert time.monotonic() < deadline, "the kill loop is bounded to 120 s"
        pid = os.fork()
        if pid == 0:  # the child: run, never return into pytest
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    run_tax(settings, endpoints, tmp_path, backoff_base=0.01)
            finally:
                os._exit(0)
        # kill at a random point: after the child has journalled 0 to 3 more rollouts (however
        # loaded the machine is), then 0 to 30 ms later, mid-rollout or mid-write
        target = _lines(journal) + int(rng.integers(0, 4))
        wait_until = time.monotonic() + 5.0
        while (_lines(journal) < target and time.monotonic() < wait_until
               and os.waitpid(pid, os.WNOHANG) == (0, 0)):
            time.sleep(0.005)
        time.sleep(float(rng.uniform(0.0, 0.03)))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # the child had finished (and was reaped above)
            sizes.append(journal.stat().st_size if journal.exists() else 0)
            continue
        os.waitpid(pid, 0)
        sizes.append(journal.stat().st_size if journal.exists() else 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_tax(settings, endpoints, tmp_path)
    lines = journal.read_bytes().split(b"\n")
    assert lines[-1] == b""  # no torn line kept
    keys = [json.loads(line)["key"] for line in lines[:-1]]
    assert len(keys) == len(set(keys)) == len(plan)  # no doubling, no loss
    assert set(keys) == plan
    records = [json.loads(x) for x in (tmp_path / jr.TRIALS).read_text().splitlines()]
    assert sorted(r["extra"]["rollout_key"] for r in records) == sorted(plan)
    assert result.missing == 0 and result.infrastructure_errors == 0
    # the kills landed at different points: the journal grew over many of them
    assert len(set(sizes)) >= 3, sizes
    assert sum(size < journal.stat().st_size for size in sizes) >= 10, sizes
