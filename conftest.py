"""The whole suite's collection and distribution: doctests, and the workers of ``-n auto``.

Doctests: each package module is imported once, by its own name.

``--import-mode=importlib`` (pyproject.toml) imports a module it collects for doctests by
executing its file under the module's dotted name. When the module's package is not imported
yet, pytest first imports the package, and a package ``__init__`` that imports the module
eagerly (``noisefloor.store`` imports ``noisefloor.store.events``) has then already loaded it;
pytest executes the file a second time and replaces the entry in ``sys.modules``. Two copies of
every class in it exist from then on (``noisefloor.store.FailedTrialAction`` is not the class
that ``noisefloor.store.events`` holds), and ``isinstance`` checks in code imported later fail,
so a doctest passed or failed depending on which file was collected first. Importing each
package module by its dotted name before pytest collects it leaves pytest the module in
``sys.modules``, which it uses as is.

Workers (pytest-xdist; ``-n auto --dist loadgroup`` in pyproject.toml): ``python -m pytest`` with
no paths runs on one worker per core (at most four; ``PYTEST_XDIST_AUTO_NUM_WORKERS`` overrides),
and a run of named files, folders or tests runs in one process as before, since starting workers
costs more than it saves there (``-n 2`` asks for workers anyway). Tests that share expensive
set-up stay together on one worker: a file's tests (its module-scoped fixtures), and the tests of
a folder that use one of its conftest's session-scoped fixtures (one simulated run, one set of
pages). Doctests and the two files whose tests each run on their own (every benchmark script,
every page of examples) are spread one test at a time.

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

import gc
import importlib
import os
from pathlib import Path

import pytest

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


def pytest_collect_file(file_path: Path, parent: object) -> None:
    if file_path.suffix != ".py" or file_path.name == "conftest.py":
        return
    name = _dotted(file_path)
    if name is None:
        return
    try:
        importlib.import_module(name)
    except Exception:
        # pytest's own import of the file reports the error as a collection error
        pass


def pytest_collectreport(report: pytest.CollectReport) -> None:
    gc.freeze()  # the modules a file imported, its tests and their parameters


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()


#: Files whose tests share no set-up and each take seconds: spread one test at a time.
SPREAD = {"tests/test_benchmarks.py", "tests/test_docs_examples.py"}
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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # a file's group is the file, or the folder whose session fixture one of its tests uses
    group: dict[str, str] = {}
    for item in items:
        rel = _file(item)
        if rel is not None:
            folder = _folder_session_fixture(item)
            group[rel] = folder or group.get(rel, rel)
    for item in items:
        rel = _file(item)
        if rel is not None:
            item.add_marker(pytest.mark.xdist_group(group[rel]))
