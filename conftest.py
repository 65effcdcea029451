"""The whole suite's collection and distribution: doctests, and the workers of ``-n auto``.

Doctests: found in the source, run in the module imported once, by its own name.

pytest's ``--doctest-modules`` imports every module to find its doctests, so each process
(every xdist worker) imported all of noisefloor/ and harness/ and what they import (tau2-bench
and LiteLLM, LangChain, the MCP SDK, scikit-learn, Matplotlib, ...) before running a test. This
file collects the packages' doctests instead (``--doctest-modules`` is not in addopts): it
parses each module's source and finds the docstrings pytest's finder (:class:`doctest.DocTestFinder`)
would, with the same names and line numbers (``tests/test_doctest_collection.py`` compares the
two on every module), and a doctest imports its module, by its dotted name, when it runs. The
checker, option flags and ``--doctest-continue-on-failure`` are pytest's own.

Importing by name also keeps every module single: ``--import-mode=importlib`` (pyproject.toml)
executes a file it collects under the module's dotted name, and when the package's
``__init__`` had already loaded it (``noisefloor.store`` imports ``noisefloor.store.events``),
pytest executed the file a second time, so two ``FailedTrialAction`` classes existed and
``isinstance`` checks in code imported later failed. pytest still imports a package module
itself when the file is named on the command line (it collects a named file as a test module)
and, given ``--doctest-modules`` (then pytest's collector runs instead of this one), every
module: this file imports such a module by its name before pytest collects it, which leaves
pytest the module in ``sys.modules`` to use as is.

Workers (pytest-xdist; ``-n auto --dist loadgroup`` in pyproject.toml): ``python -m pytest`` with
no paths runs on one worker per core (at most four; ``PYTEST_XDIST_AUTO_NUM_WORKERS`` overrides),
and a run of named files, folders or tests runs in one process as before, since starting workers
costs more than it saves there (``-n 2`` asks for workers anyway). Tests that share expensive
set-up stay together on one worker: a file's tests (its module-scoped fixtures), and the tests of
a folder that use one of its conftest's session-scoped fixtures (one simulated run, one set of
pages); so do the tests that import a library whose import alone takes seconds (tau2-bench and
LiteLLM: ``IMPORT_GROUPS``), so that one process pays it. Doctests and the two files whose tests
each run on their own (every benchmark script, every page of examples) are spread one test at
a time.

Garbage collection: collecting the suite leaves about a million objects alive in each process
(every module of the packages and of the libraries they import, their classes, the tests). The
cyclic garbage collector traverses all of them in each full collection: during collection (a
few dozen, triggered by the allocations of imports), in every ``gc.collect()`` a test or a library
makes, and five times at the end of the session (pytest's check for unraisable exceptions).
That was a third of the CPU of collecting the suite. What exists when a file has been collected
lives to the end of the process, so it is moved to the collector's permanent generation
(``gc.freeze``), which no collection traverses; objects a test creates are collected as usual.
"""

from __future__ import annotations

import ast
import doctest
import gc
import importlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.doctest import _get_checker, _get_continue_on_failure, _get_runner, get_optionflags

ROOT = Path(__file__).resolve().parent
PACKAGES = ("noisefloor", "harness")

gc.freeze()  # pytest and its plugins, imported before this file


def _dotted(path: Path) -> str | None:
    """``noisefloor/store/events.py`` -> ``noisefloor.store.events``; None outside the packages."""
    try:
        parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    except ValueError:
        return None
    if not parts or parts[0] not in PACKAGES:
        return None
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


#: Decorators after which :class:`doctest.DocTestFinder` no longer sees a function or class
#: (the object it finds is a click command, a cached property, ...).
HIDING_DECORATORS = re.compile(r"(^|\.)(command|group|cached_property)$")
#: ``doctest.DocTestFinder._find_lineno``'s pattern for the line a docstring starts on.
DOCSTRING_LINE = re.compile(r"(^|.*:)\s*\w*(\"|')")


def _hidden(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if HIDING_DECORATORS.search(ast.unparse(target)):
            return True
    return False


def _docstring_line(lines: list[str], start: int) -> int | None:
    """The first line from ``start`` (0-based) that begins a docstring, as doctest finds it."""
    for lineno in range(start, len(lines)):
        if DOCSTRING_LINE.match(lines[lineno]):
            return lineno
    return None


def source_doctests(path: Path, module: str) -> list[doctest.DocTest]:
    """The doctests :class:`doctest.DocTestFinder` finds in the module, read from its source.

    The module's docstring, and those of the functions and classes it defines, of their methods
    and properties and of nested classes, named ``module.Class.method`` and sorted by name; only
    docstrings with examples. Their ``globs`` are empty until the module is imported.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text, filename=str(path))
    parser = doctest.DocTestParser()
    found: dict[str, doctest.DocTest] = {}

    def add(name: str, docstring: str | None, lineno: int | None) -> None:
        if docstring:
            test = parser.get_doctest(docstring, {}, name, str(path), lineno)
            if test.examples:
                found[name] = test

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            name = f"{prefix}.{node.name}"
            found.pop(name, None)  # a later definition of the name replaces an earlier one
            if _hidden(node):
                continue
            if isinstance(node, ast.ClassDef):
                # doctest finds the first line of the file defining a class of that name
                header = re.compile(rf"^\s*class\s*{re.escape(node.name)}\b")
                start = next((i for i, line in enumerate(lines) if header.match(line)), None)
                add(name, ast.get_docstring(node, clean=False),
                    None if start is None else _docstring_line(lines, start))
                walk(node.body, name)
            else:
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                add(name, ast.get_docstring(node, clean=False), _docstring_line(lines, first - 1))

    add(module, ast.get_docstring(tree, clean=False), _docstring_line(lines, 0))
    walk(tree.body, module)
    return sorted(found.values())


class SourceDoctests(pytest.File):
    """A package module's doctests, found in its source without importing it."""

    def collect(self) -> Iterator[ModuleDoctest]:
        module = _dotted(self.path)
        assert module is not None
        runner = _get_runner(verbose=False, optionflags=get_optionflags(self.config),
                             checker=_get_checker(),
                             continue_on_failure=_get_continue_on_failure(self.config))
        for test in source_doctests(self.path, module):
            yield ModuleDoctest.from_parent(self, name=test.name, runner=runner, dtest=test)


class ModuleDoctest(pytest.DoctestItem):
    """One doctest; it runs in a copy of its module's namespace, the module imported by name."""

    def setup(self) -> None:
        module = _dotted(self.path)
        assert module is not None
        self.dtest.globs.update(vars(importlib.import_module(module)))
        super().setup()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> SourceDoctests | None:
    if file_path.suffix != ".py" or file_path.name in ("conftest.py", "__main__.py"):
        return None
    name = _dotted(file_path)
    if name is None:
        return None
    if parent.session.isinitpath(file_path) or parent.config.option.doctestmodules:
        # pytest imports the file itself (a file named on the command line is collected as a
        # test module, and --doctest-modules imports every module): by its name first
        try:
            importlib.import_module(name)
        except Exception:
            # pytest's own import of the file reports the error as a collection error
            pass
    if parent.config.option.doctestmodules:
        return None
    return SourceDoctests.from_parent(parent, path=file_path)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    gc.freeze()  # the modules a file imported, its tests and their parameters


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()


#: Files whose tests share no set-up and each take seconds: spread one test at a time.
SPREAD = {"tests/test_benchmarks.py", "tests/test_docs_examples.py"}
#: Tests that import a library whose import alone costs seconds of CPU, by the start of their
#: node id, and the group they join: they share one worker, so that one process pays the
#: import. tau2-bench with LiteLLM (about 5 s): the files that run simulations, the doctests of
#: the modules that import tau2 at their top, the benchmark of the protocols, and the check of
#: the doctest collector (pytest's finder imports every module); inspect_ai (about 3 s): the
#: test comparing its standard error joins the log tests, which write and read its logs; the
#: MCP SDK: the server's tests.
IMPORT_GROUPS = {
    "tau2-bench": ("tests/protocols/test_tau2_", "noisefloor/protocols/tau2/agent.py::",
                   "noisefloor/protocols/tau2/llm.py::",
                   "noisefloor/protocols/tau2/registration.py::",
                   "tests/test_benchmarks.py::test_benchmark_runs_at_its_tiny_size[protocols]",
                   "tests/test_doctest_collection.py::"),
    "tests/logs": ("tests/stats/test_errorbars.py::test_inspect_ai_",),
    "mcp": ("tests/store/test_mcp_",),
}
MAX_WORKERS = 4


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    if config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return 0  # named paths: one process
    return min(len(os.sched_getaffinity(0)), MAX_WORKERS)


def _file(item: pytest.Item) -> str | None:
    """The test's file relative to the root; None for the packages' doctests and spread files."""
    try:
        rel = item.path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    return rel if rel.startswith("tests/") and rel not in SPREAD else None


def _folder_session_fixture(item: pytest.Item) -> str | None:
    """The folder of a session-scoped fixture the test uses from a folder's conftest
    (tests/conftest.py's fixtures are paths: cheap, not counted), or None."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for defs in info.name2fixturedefs.values():
        fixturedef = defs[-1]
        if fixturedef.scope == "session" and fixturedef.baseid not in ("", "tests"):
            return fixturedef.baseid
    return None


def _import_group(item: pytest.Item) -> str | None:
    """The :data:`IMPORT_GROUPS` group whose node ids the test's starts with, or None."""
    for name, starts in IMPORT_GROUPS.items():
        if item.nodeid.startswith(starts):
            return name
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # a file's group is the file, or the folder whose session fixture one of its tests uses;
    # a test of an import group goes with that group
    group: dict[str, str] = {}
    for item in items:
        rel = _file(item)
        if rel is not None:
            folder = _folder_session_fixture(item)
            group[rel] = folder or group.get(rel, rel)
    for item in items:
        shared = _import_group(item)
        rel = _file(item)
        if shared is not None:
            item.add_marker(pytest.mark.xdist_group(shared))
        elif rel is not None:
            item.add_marker(pytest.mark.xdist_group(group[rel]))
