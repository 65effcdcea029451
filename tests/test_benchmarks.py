"""Benchmarks that cannot rot: every script under benchmarks/ runs at its ``--tiny`` size.

The test is parametrised over the files found in benchmarks/, so a new script is tested as
soon as it exists, and a script without a ``--tiny`` option fails (argparse exits 2). Each run
checks only that the script exits 0 and prints figures, among them its ratio to the peer it
is measured against (a line naming the peer, with a ratio such as ``1.27x``); speed itself is
what the scripts
print at their full size, never asserted here. Scripts that need more than about 5 s at their
tiny size are marked ``slow``.

A script runs in the test's own process (:func:`runpy.run_path` as ``__main__``, with
``sys.argv``, ``sys.path``, the working folder and ``PYTHONPATH`` as ``python SCRIPT --tiny``
would have them, and its standard output captured), so numpy, pandas, scipy and noisefloor are
imported once per test process rather than once per script. The child processes a script
starts itself (a cold start, a peer, a server, a process whose peak memory is the figure) stay
child processes. After the run the test checks that the script left no trace in the process:
the cyclic collector's state, signal handlers, the environment, ``sys.path``, the working
folder, resource limits and threads (a library's own process-long worker thread, listed in
:data:`LIBRARY_THREADS`, aside).
"""

from __future__ import annotations

import gc
import os
import re
import resource
import runpy
import signal
import sys
import threading
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))

#: Scripts whose tiny run takes more than about 5 s on an idle 2-core machine (fresh
#: interpreters that import the scientific stack, servers, a browser).
SLOW = {"audit_counts", "cli_startup", "ingest", "limits", "protocols", "runner", "tax_report",
        "viewer_speed"}

#: Threads a library starts once for the life of the process, by name prefix (not the script's
#: to stop): LiteLLM's logging worker, started by its first completion call.
LIBRARY_THREADS = ("litellm-logging",)

#: A figure: a number with a decimal point or a thousands separator, or a ratio like 2.5x.
FIGURE = re.compile(r"\d+[.,]\d+|\d+(\.\d+)?x\b")
#: The ratio to the peer the script is measured against: a line naming the peer and giving a
#: ratio like 1.27x (every script prints one at every size).
PEER_RATIO = re.compile(r"(?im)^(?=.*\bpeer\b).*\b\d+(\.\d+)?x\b")

#: Signals whose handlers a script must leave as it found them.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE, signal.SIGALRM)
#: Resource limits a script must leave as it found them.
LIMITS = (resource.RLIMIT_AS, resource.RLIMIT_DATA, resource.RLIMIT_NOFILE,
          resource.RLIMIT_CPU)


def _param(path: Path):
    marks = [pytest.mark.slow] if path.stem in SLOW else []
    return pytest.param(path, id=path.stem, marks=marks)


def _pythonpath() -> str:
    """``PYTHONPATH`` with this checkout first: its noisefloor and harness, whatever is
    installed."""
    return os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])


#: pandas options a script must leave as it found them (they change printed tables).
PANDAS_OPTIONS = ("display.max_rows", "display.max_columns", "display.width",
                  "display.precision")
#: matplotlib settings left out: the backend is chosen once per process (the first figure
#: made through pyplot, or ``matplotlib.use``, resolves it), whoever makes that figure.
BACKEND = ("backend", "backend_fallback")


def _state() -> dict:
    """What a script run in this process could change and must leave as it found it."""
    state = {"gc enabled": gc.isenabled(), "gc thresholds": gc.get_threshold(),
             "signal handlers": {s.name: signal.getsignal(s) for s in SIGNALS},
             "environment": dict(os.environ), "sys.path": list(sys.path),
             "working folder": os.getcwd(),
             "resource limits": {r: resource.getrlimit(r) for r in LIMITS},
             "recursion limit": sys.getrecursionlimit(),
             "switch interval": sys.getswitchinterval()}
    # libraries already imported (one a script imports first starts from its defaults)
    if "numpy" in sys.modules:
        np = sys.modules["numpy"]
        state["numpy error handling"] = np.geterr()
        state["numpy print options"] = np.get_printoptions()
    if "pandas" in sys.modules:
        state["pandas options"] = {o: sys.modules["pandas"].get_option(o)
                                   for o in PANDAS_OPTIONS}
    if "matplotlib" in sys.modules:  # the stored values: reading "backend" would resolve it
        state["matplotlib rcParams"] = {k: v for k, v in dict.items(
            sys.modules["matplotlib"].rcParams) if k not in BACKEND}
    return state


def _run_here(script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``script --tiny`` as ``__main__`` in this process; its standard output."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", _pythonpath())
    monkeypatch.setattr(sys, "argv", [str(script), "--tiny"])
    before = _state()
    threads = set(threading.enumerate())
    path = list(sys.path)
    # as `python SCRIPT` with PYTHONPATH set: the script's folder, then this checkout
    sys.path[:0] = [str(script.parent), str(REPO)]
    capsys.readouterr()
    try:
        with warnings.catch_warnings():
            runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exit:  # sys.exit(0) and raise SystemExit(main()) returning 0 are fine
        assert exit.code in (None, 0), (
            f"{script.name} --tiny exited {exit.code!r}\n{capsys.readouterr().out[-2000:]}")
    finally:
        sys.path[:] = path
    out = capsys.readouterr().out
    new = {t for t in set(threading.enumerate()) - threads
           if not t.name.startswith(LIBRARY_THREADS)}
    for thread in new:
        thread.join(timeout=10)  # a server thread told to stop may still be on its way out
    left = [t.name for t in new if t.is_alive()]
    assert not left, f"{script.name} left threads running: {left}"
    after = _state()
    changed: dict[str, object] = {}
    for key in sorted(before.keys() & after.keys()):
        old, new = before[key], after[key]
        if old == new:
            continue
        if key == "environment":  # the names only: values may be secrets
            changed[key] = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
        elif isinstance(old, dict):  # of a mapping, the entries that changed
            changed[key] = {k: (old.get(k), new.get(k)) for k in old.keys() | new.keys()
                            if old.get(k) != new.get(k)}
        else:
            changed[key] = (old, new)
    # undo what can be undone, so that the tests after this one run in the process they expect
    if "environment" in changed:
        os.environ.clear()
        os.environ.update(before["environment"])
    if "gc enabled" in changed:
        (gc.enable if before["gc enabled"] else gc.disable)()
    if "gc thresholds" in changed:
        gc.set_threshold(*before["gc thresholds"])
    assert not changed, f"{script.name} changed the process: {changed}"
    return out


def test_benchmarks_are_found():
    assert len(SCRIPTS) >= 10, SCRIPTS


@pytest.mark.parametrize("script", [_param(p) for p in SCRIPTS])
def test_benchmark_runs_at_its_tiny_size(script: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]):
    out = _run_here(script, tmp_path, monkeypatch, capsys)
    assert FIGURE.search(out), f"{script.name} printed no figure:\n{out[-2000:]}"
    assert PEER_RATIO.search(out), (
        f"{script.name} printed no ratio to its peer (a line naming the peer with a ratio "
        f"such as 1.27x):\n{out[-2000:]}")
