"""How ``python -m pytest`` spreads the suite over pytest-xdist workers (the root conftest.py).

The whole suite (no paths given) runs on one worker per core, at most four; named paths run in
one process. A file's tests stay on one worker (its module-scoped fixtures run once), and so do
the files that use a session-scoped fixture of their folder's conftest; the packages' doctests
and the files listed in ``SPREAD`` go one test at a time.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[1]


def _conftest():
    spec = importlib.util.spec_from_file_location("_root_conftest", REPO / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_workers_only_for_the_whole_suite(monkeypatch):
    conftest = _conftest()
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    whole = SimpleNamespace(args_source=pytest.Config.ArgsSource.TESTPATHS)
    named = SimpleNamespace(args_source=pytest.Config.ArgsSource.ARGS)
    monkeypatch.setattr(conftest.os, "sched_getaffinity", lambda pid: {0, 1})
    assert conftest.pytest_xdist_auto_num_workers(whole) == 2
    assert conftest.pytest_xdist_auto_num_workers(named) == 0
    monkeypatch.setattr(conftest.os, "sched_getaffinity", lambda pid: set(range(64)))
    assert conftest.pytest_xdist_auto_num_workers(whole) == conftest.MAX_WORKERS == 4
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "3")
    assert conftest.pytest_xdist_auto_num_workers(named) == 3


class _Item:
    def __init__(self, rel: str, session_fixtures: dict[str, str] | None = None,
                 name: str = "test_x"):
        self.path = REPO / rel
        self.nodeid = f"{rel}::{name}"
        defs = {name: [SimpleNamespace(scope="session", baseid=baseid)]
                for name, baseid in (session_fixtures or {}).items()}
        defs["tmp_path"] = [SimpleNamespace(scope="function", baseid="")]
        self._fixtureinfo = SimpleNamespace(name2fixturedefs=defs)
        self.marks: list = []

    def add_marker(self, mark) -> None:
        self.marks.append(mark)

    @property
    def group(self) -> str | None:
        names = [m.args[0] for m in self.marks if m.name == "xdist_group"]
        assert len(names) <= 1
        return names[0] if names else None


def test_groups_keep_shared_set_up_on_one_worker():
    conftest = _conftest()
    items = [
        _Item("tests/protocols/test_tau2_run.py"),
        _Item("tests/protocols/test_tau2_run.py"),
        # a file with one test on a folder's session fixture joins the folder's group whole
        _Item("tests/logs/test_score_everywhere.py"),
        _Item("tests/logs/test_score_everywhere.py", {"inspect_logs": "tests/logs"}),
        _Item("tests/logs/test_inspect.py", {"inspect_logs": "tests/logs"}),
        # tests/conftest.py's session fixtures are paths: no reason to group
        _Item("tests/test_floor.py", {"shared_data": "tests"}),
        _Item("tests/test_benchmarks.py"),
        _Item("noisefloor/store/events.py"),
    ]
    conftest.pytest_collection_modifyitems(None, items)
    assert [i.group for i in items] == [
        "tau2-bench", "tau2-bench",
        "tests/logs", "tests/logs", "tests/logs", "tests/test_floor.py", None, None]


def test_the_tests_that_import_tau2_share_one_worker():
    conftest = _conftest()
    items = [
        _Item("tests/protocols/test_tau2_state.py"),
        _Item("tests/protocols/test_langchain.py"),  # no tau2: its own file's group
        _Item("noisefloor/protocols/tau2/llm.py", name="noisefloor.protocols.tau2.llm.f"),
        _Item("noisefloor/protocols/tau2/retail_cut.py",
              name="noisefloor.protocols.tau2.retail_cut.f"),  # imports tau2 only when run
        _Item("tests/test_benchmarks.py", name="test_benchmark_runs_at_its_tiny_size[protocols]"),
        _Item("tests/test_benchmarks.py", name="test_benchmark_runs_at_its_tiny_size[floor]"),
    ]
    conftest.pytest_collection_modifyitems(None, items)
    assert [i.group for i in items] == [
        "tau2-bench", "tests/protocols/test_langchain.py", "tau2-bench", None, "tau2-bench", None]


def test_the_other_slow_imports_are_paid_once():
    conftest = _conftest()
    items = [
        _Item("tests/test_doctest_collection.py"),  # pytest's finder imports every module
        _Item("tests/stats/test_errorbars.py", name="test_inspect_ai_correction_x"),
        _Item("tests/stats/test_errorbars.py", name="test_other"),
        _Item("tests/store/test_mcp_server.py"),
        _Item("tests/store/test_mcp_hostile.py"),
    ]
    conftest.pytest_collection_modifyitems(None, items)
    assert [i.group for i in items] == [
        "tau2-bench", "tests/logs", "tests/stats/test_errorbars.py", "mcp", "mcp"]


def _imports_tau2_at_top(tree: ast.Module) -> bool:
    for node in tree.body:
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(n == "tau2" or n.startswith("tau2.") for n in names):
            return True
    return False


def test_every_doctested_module_that_imports_tau2_is_in_its_group():
    # a new module of the package that imports tau2 at its top and has doctests would make a
    # second worker import tau2-bench and LiteLLM: it must join the group
    starts = _conftest().IMPORT_GROUPS["tau2-bench"]
    for path in sorted((REPO / "noisefloor" / "protocols" / "tau2").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if ">>>" in text and _imports_tau2_at_top(ast.parse(text)):
            rel = path.relative_to(REPO).as_posix()
            assert f"{rel}::" in starts, f"{rel} imports tau2 and has doctests"
