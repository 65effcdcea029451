"""A public name that code outside its package imports is in that package's exports.

A package's ``__init__.py`` lists its public names (the lazy table ``_HOMES`` and ``__all__``).
A name that another package, a test, a benchmark or a page of the docs imports from one of the
package's modules is, by that use, part of the package's interface, so the list must name it.
The check imports nothing and parses no whole module, so it stays cheap: it finds every
``from M import name`` statement (indented ones too, relative imports resolved) in
``noisefloor/``, ``harness/``, ``tests/``, ``benchmarks/`` and the ``python`` code blocks of
``docs/`` and ``README.md``, and parses each statement alone. A statement counts when ``M`` is a
module (not a package) of ``noisefloor`` or ``harness``, ``name`` is public and bound at the top
of ``M`` (a ``def``, ``class`` or assignment at column 0; a name ``M`` re-exports with a
top-level ``from ... import`` is followed to the module that defines it), and the importing file
is not in the package of the defining module (a sub-package or the parent package is another
package). The failure names ``file:line`` of each import whose name the package does not export.

Not checked: the modules directly under ``noisefloor/`` (``lazy``, ``journal``, ``extras``: the
top-level table is the curated API, not plumbing), :mod:`noisefloor.cli` (a command package, not
an API).

Run as a script (``python tests/test_package_exports.py``), it prints every missing name by
package, with its defining module and where it is imported.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.source_tree import PACKAGES, ROOT, source_files, tree

#: Packages whose exports are not checked (see the module docstring).
UNCHECKED = ("noisefloor.cli",)

_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_DEFINITION = re.compile(r"^(?:(?:async[ \t]+)?def|class)[ \t]+(\w+)|^(\w+)[ \t]*(?::[^=\n]*)?=(?!=)",
                         re.M)
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)", re.M)


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _is_package(module: str) -> bool:
    return (ROOT.joinpath(*module.split(".")) / "__init__.py").is_file()


@functools.cache
def _module_path(module: str) -> Path | None:
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    return path if path.is_file() else None


@functools.cache
def _defined(module: str) -> frozenset[str]:
    """The names bound at the top of a module (a line of its own at column 0) by ``def``,
    ``class`` or assignment; reading lines, not parsing the module, keeps the check fast."""
    path = _module_path(module)
    if path is None:
        return frozenset()
    return frozenset(m.group(1) or m.group(2)
                     for m in _DEFINITION.finditer(path.read_text(encoding="utf-8")))


@functools.cache
def _imported(module: str) -> dict[str, str]:
    """Name -> absolute source module of each top-level ``from M import name`` of a module."""
    path = _module_path(module)
    if path is None:
        return {}
    text = path.read_text(encoding="utf-8")
    return {alias.name: _absolute(node, module, False) for node, _ in _imports(text)
            if node.col_offset == 0 for alias in node.names if alias.asname is None}


@functools.cache
def home(module: str, name: str) -> str | None:
    """The module of the repository that defines ``name`` read from ``module`` (following
    re-exports such as :mod:`harness.base`'s), or None if it is not defined there."""
    for _ in range(5):
        if _is_package(module) or module.split(".")[0] not in PACKAGES:
            return None
        if name in _defined(module):
            return module
        source = _imported(module).get(name)
        if source is None:
            return None
        module = source
    return None


@functools.cache
def exports(package: str) -> frozenset[str]:
    """The names a package's ``__init__.py`` lists (the keys of ``_HOMES`` and ``__all__``)
    or imports at its top."""
    syntax = tree(ROOT.joinpath(*package.split(".")) / "__init__.py")
    names: set[str] = set()
    for stmt in syntax.body:
        if isinstance(stmt, ast.ImportFrom):  # a name the package imports when it is imported
            names.update(alias.asname or alias.name for alias in stmt.names)
        if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        ids = {t.id for t in targets if isinstance(t, ast.Name)}
        if "_HOMES" in ids and isinstance(stmt.value, ast.Dict):
            names.update(str(k.value) for k in stmt.value.keys if isinstance(k, ast.Constant))
        if "__all__" in ids and isinstance(stmt.value, ast.List | ast.Tuple):
            names.update(str(e.value) for e in stmt.value.elts if isinstance(e, ast.Constant))
    return frozenset(names)


def _imports(text: str, first_line: int = 0) -> Iterator[tuple[ast.ImportFrom, int]]:
    """Every ``from ... import`` statement of a text (indented ones too), parsed alone, with
    its line number; reading only these statements keeps the check fast."""
    for match in _FROM_IMPORT.finditer(text):
        statement = match.group(0).strip()
        try:
            node = ast.parse(statement).body[0]
        except SyntaxError:  # a docstring's or a string's text, not code
            continue
        if isinstance(node, ast.ImportFrom):
            node.col_offset = len(match.group(0)) - len(match.group(0).lstrip())
            yield node, first_line + text.count("\n", 0, match.start()) + 1


def _sources() -> Iterator[tuple[str, str, Iterator[tuple[ast.ImportFrom, int]]]]:
    """(where, importing module, its imports) of every file and docs code block checked."""
    for path in [*source_files(), *sorted((ROOT / "tests").rglob("*.py")),
                 *sorted((ROOT / "benchmarks").rglob("*.py"))]:
        yield (path.relative_to(ROOT).as_posix(), _module_of(path),
               _imports(path.read_text(encoding="utf-8")))
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for match in _PYTHON_BLOCK.finditer(text):
            yield (path.relative_to(ROOT).as_posix(), "docs",
                   _imports(match.group(1), text.count("\n", 0, match.start(1))))


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = importer.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def missing() -> dict[str, dict[tuple[str, str], list[str]]]:
    """Package -> (missing name, its defining module) -> the ``file:line`` of each import of
    it from outside the package."""
    found: dict[str, dict[tuple[str, str], list[str]]] = defaultdict(lambda: defaultdict(list))
    for where, importer, imports in _sources():
        importer_is_package = where.endswith("__init__.py")
        for node, line in imports:
            module = _absolute(node, importer, importer_is_package)
            if module.split(".")[0] not in PACKAGES or _is_package(module):
                continue
            own = importer if importer_is_package else importer.rpartition(".")[0]
            for alias in node.names:
                name = alias.name
                defining = None if name.startswith("_") else home(module, name)
                if defining is None:
                    continue
                package = defining.rpartition(".")[0]
                if (package.startswith(UNCHECKED) or package == "noisefloor" or own == package
                        or name in exports(package)):
                    continue
                found[package][name, defining].append(f"{where}:{line}")
    return found


def test_names_imported_across_packages_are_exported():
    problems = [f"{site}: {name} ({defining}) is not exported by {package}"
                for package, names in sorted(missing().items())
                for (name, defining), sites in sorted(names.items()) for site in sites]
    assert not problems, "\n".join(problems)


def test_the_check_reads_definitions_re_exports_and_tables():
    assert "noise_floor" in exports("noisefloor.floor")
    assert "noise_floor" in _defined("noisefloor.floor.estimate")
    assert not _is_package("noisefloor.floor.estimate") and _is_package("noisefloor.floor")
    # harness.base re-exports the task vocabulary: the name's package is that of its definition
    assert home("harness.base", "FAMILIES") == "harness.vocabulary"
    assert home("harness.base", "no_such_name") is None
    node, line = next(_imports("x = 1\n\ndef f():\n    from .a import (b,\n        c)\n"))
    assert (line, node.level, node.module, [a.name for a in node.names]) == (4, 1, "a", ["b", "c"])


if __name__ == "__main__":
    for package, names in sorted(missing().items()):
        print(package)
        for (name, defining), sites in sorted(names.items()):
            print(f"    {name} ({defining}): {', '.join(sites[:3])}{' ...' if len(sites) > 3 else ''}")
