"""Doctests pass whatever order their modules are collected in, and the root conftest.py finds
the doctests pytest's ``--doctest-modules`` would, without importing the modules.

``noisefloor.store``'s ``__init__`` imports ``noisefloor.store.events``; collecting that file for
its doctests first used to make pytest execute it a second time (``--import-mode=importlib``), so
two ``FailedTrialAction`` classes existed and the ``ToolSpec`` doctest of
``noisefloor.protocols.reader_interface`` failed on an ``isinstance`` check. The root conftest.py
imports a module by its name: when one of its doctests runs, and before pytest collects a file
named on the command line.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

from _pytest.doctest import DoctestModule

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


def _root_conftest():
    spec = importlib.util.spec_from_file_location("_root_conftest_doctests", REPO / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _examples(test: doctest.DocTest) -> list[tuple]:
    return [(e.source, e.want, e.exc_msg, e.lineno, e.options) for e in test.examples]


def test_the_doctests_found_in_the_source_are_those_pytest_finds(request):
    # pytest's own collector (--doctest-modules) on every module, imported by name first, against
    # the root conftest's, which reads the source: same names, line numbers and examples. The one
    # kind of doctest the source misses is an instance of a documented class in a class body (a
    # descriptor, RolloutSpec.key): doctest.DocTestFinder runs the class's docstring a second
    # time under the attribute's name; it must be the docstring of a doctest found already.
    conftest = _root_conftest()
    checked = 0
    for package in conftest.PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            if path.name == "__main__.py":
                continue
            name = conftest._dotted(path)
            importlib.import_module(name)
            pytests = {item.name: item.dtest
                       for item in DoctestModule.from_parent(request.session, path=path).collect()}
            ours = {test.name: test for test in conftest.source_doctests(path, name)}
            assert [t.name for t in ours.values()] == sorted(ours), path
            for test_name, test in pytests.items():
                if test_name in ours:
                    assert ours[test_name].lineno == test.lineno, test_name
                    assert _examples(ours[test_name]) == _examples(test), test_name
                else:
                    assert test.docstring in {t.docstring for t in ours.values()}, test_name
            assert set(ours) <= set(pytests), path
            checked += len(ours)
    assert checked > 500  # 519 doctests in 163 modules when this was written
