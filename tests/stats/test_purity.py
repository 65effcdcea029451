"""noisefloor.stats is pure statistics: none of its modules imports another part of noisefloor,
and none reads the columns of a trial log.

Statistics work on arrays and counts; reading logs (:mod:`noisefloor.logs`), the store
(:mod:`noisefloor.store`) and anything else of the package sit above them. Every module of
``noisefloor/stats`` is parsed (never imported, so a function-local import is caught too) and
each ``import`` / ``from ... import`` is checked. So is every string literal outside a
docstring: one that names a column of the trial frame (:data:`noisefloor.logs.records.frame.COLUMNS`:
``task_id``, ``reward``, ``seed``, ``trial``, ...) or a column the layer above derives from it
(``success``, ``arm``) means the module reads a log, which belongs to :mod:`noisefloor.floor`,
:mod:`noisefloor.passk` and the other analysis packages.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from noisefloor.logs.records.frame import COLUMNS
from tests.source_tree import tree as parsed

STATS = Path(__file__).resolve().parents[2] / "noisefloor" / "stats"
PACKAGE = "noisefloor.stats"
# two leaf modules sit below every layer and import nothing of noisefloor (checked below): the
# lazy-export helper (a stats package's __init__ uses it) and the frozen-result base (every
# result class of stats derives from it)
BELOW_EVERYTHING = {"noisefloor.lazy", "noisefloor.results"}


def _absolute(module: str | None, level: int, here: str) -> str:
    """The absolute module name of ``from <level dots><module> import ...`` in module ``here``."""
    if level == 0:
        return module or ""
    base = here.split(".")[:-level]  # the package a relative import starts from
    return ".".join(base + ([module] if module else []))


def upward_imports(source: str | ast.Module, module_name: str) -> list[tuple[int, str]]:
    """``(line, imported module)`` of every import of noisefloor outside noisefloor.stats, in a
    module's source (or its parsed tree)."""
    found = []
    for node in ast.walk(ast.parse(source) if isinstance(source, str) else source):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [_absolute(node.module, node.level, module_name)]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            inside = name == PACKAGE or name.startswith(PACKAGE + ".")
            if top == "noisefloor" and not inside and name not in BELOW_EVERYTHING:
                found.append((node.lineno, name))
    return sorted(found)


#: Names that, written as a string in code, read a trial log's column.
LOG_COLUMNS = frozenset(COLUMNS) | {"success", "arm"}


def log_column_literals(source: str | ast.Module) -> list[tuple[int, str]]:
    """``(line, text)`` of every string literal outside a docstring that names a log column, in
    a module's source (or its parsed tree)."""
    tree = ast.parse(source) if isinstance(source, str) else source
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                docstrings.add(id(first.value))
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and node.value in LOG_COLUMNS and id(node) not in docstrings)


def test_the_column_rule_catches_log_columns_and_spares_prose():
    source = (
        'def f(trials):\n'
        '    """Reads ``task_id`` and "seed" (prose, not code)."""\n'
        '    x = trials["task_id"]\n'
        '    y = trials.groupby("seed")\n'
        '    z = {"success": 1, "wins": 2}\n'
        '    return f"task {x}", "task_ids", ("arm",)\n'
    )
    assert log_column_literals(source) == [(3, "task_id"), (4, "seed"), (5, "success"),
                                           (6, "arm")]


def test_the_column_list_is_the_trial_frames():
    assert {"task_id", "reward", "seed", "trial", "protocol", "infrastructure_error"} <= LOG_COLUMNS


@pytest.mark.parametrize("path", sorted(STATS.rglob("*.py")), ids=lambda p: p.name)
def test_stats_module_reads_no_log_column(path: Path):
    found = log_column_literals(parsed(path))
    assert not found, (f"{path.relative_to(STATS.parents[1])} reads trial-log columns ("
                       + ", ".join(f"line {line}: {text!r}" for line, text in found)
                       + "): column handling belongs above noisefloor.stats")


def test_the_rule_catches_upward_imports():
    # a module that reaches the store, the logs or the package root in any spelling
    source = (
        "import numpy as np\n"
        "from noisefloor.stats import _validate\n"
        "from . import passk\n"
        "def f():\n"
        "    from noisefloor.store.keys import call_fingerprint\n"
        "import noisefloor.logs\n"
        "from .. import floor\n"
        "from ..store import keys\n"
        "import noisefloor\n"
    )
    assert upward_imports(source, "noisefloor.stats.example") == [
        (5, "noisefloor.store.keys"),
        (6, "noisefloor.logs"),
        (7, "noisefloor"),
        (8, "noisefloor.store"),
        (9, "noisefloor"),
    ]


@pytest.mark.parametrize("path", sorted(STATS.rglob("*.py")), ids=lambda p: p.name)
def test_stats_module_imports_nothing_above_stats(path: Path):
    rel = path.relative_to(STATS.parents[1]).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1] + ["__init__"]  # relative imports start from the package itself
    bad = upward_imports(parsed(path), ".".join(parts))
    assert not bad, f"{path.name} imports outside noisefloor.stats: " + ", ".join(
        f"line {line}: {name}" for line, name in bad)


@pytest.mark.parametrize("module", sorted(BELOW_EVERYTHING))
def test_the_leaf_modules_import_nothing_of_noisefloor(module: str):
    path = STATS.parent.joinpath(*module.split(".")[1:])
    path = path.with_suffix(".py") if path.with_suffix(".py").exists() else path / "__init__.py"
    source = path.read_text(encoding="utf-8")
    found = [name for line, name in upward_imports(source, module)]
    assert found == []
    # upward_imports lets the leaves themselves through; a leaf importing the other leaf (or
    # noisefloor.stats) would not be a leaf
    inner = [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in inner if isinstance(n, ast.Import) for a in n.names]
    names += [_absolute(n.module, n.level, module) for n in inner if isinstance(n, ast.ImportFrom)]
    assert not [n for n in names if n.split(".")[0] == "noisefloor"], names


def test_no_stats_module_needs_an_optional_package():
    # a core install (pip install -e .) has every statistic: no module of noisefloor/stats
    # imports a package that only an extra installs (scikit-learn went with the grouped-fold
    # ridge to noisefloor.tax, its one user)
    from noisefloor.extras import OPTIONAL_MODULES

    found = [f"{path.relative_to(STATS.parents[1]).as_posix()}:{node.lineno}: {name}"
             for path in sorted(STATS.rglob("*.py")) for node in ast.walk(parsed(path))
             if isinstance(node, (ast.Import, ast.ImportFrom))
             for name in ([a.name for a in node.names] if isinstance(node, ast.Import)
                          else [node.module or ""] if not node.level else [])
             if name.split(".")[0] in OPTIONAL_MODULES]
    assert not found, found
