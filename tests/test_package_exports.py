"""A public name that code outside its package imports is in that package's exports.

A package's ``__init__.py`` lists its public names (the lazy table ``_HOMES`` and ``__all__``).
A name that another package, a test or a page of ``docs/`` imports from one of the package's
modules is, by that use, part of the package's interface, so the list must name it. The check
reads syntax trees only (nothing is imported): every ``from M import name`` (inside functions
too, relative imports resolved) in ``noisefloor/``, ``harness/``, ``tests/`` and the
``python`` code blocks of ``docs/*.md`` and ``README.md``, where ``M`` is a module (not a
package) of ``noisefloor`` or ``harness``, ``name`` is public and defined at the top of ``M``
(a ``def``, ``class`` or assignment, not an import), and the importing file is outside ``M``'s
package (its sub-packages count as inside). The failure names ``file:line`` of each such
import whose name the package does not export.

Not checked: :mod:`noisefloor.cli` (the command package: its modules are commands, not an API)
and :mod:`noisefloor.pipelines` (its ``__init__.py`` is being rewritten; to be added then).

Run as a script (``python tests/test_package_exports.py``) it prints every missing name, by
package.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.source_tree import PACKAGES, ROOT, source_files, tree

#: Packages whose exports are not checked (see the module docstring).
UNCHECKED = ("noisefloor.cli", "noisefloor.pipelines")

_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(module: str) -> bool:
    return (ROOT.joinpath(*module.split(".")) / "__init__.py").is_file()


def _module_path(module: str) -> Path | None:
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    return path if path.is_file() else None


def _defined(module: str) -> frozenset[str]:
    """The names bound at the top of a module by ``def``, ``class`` or assignment."""
    path = _module_path(module)
    if path is None:
        return frozenset()
    names: set[str] = set()
    for stmt in tree(path).body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
    return frozenset(names)


def _imported(module: str) -> dict[str, str]:
    """Name -> absolute source module of each top-level ``from M import name`` of a module."""
    path = _module_path(module)
    if path is None:
        return {}
    return {alias.asname or alias.name: _absolute(stmt, module, False)
            for stmt in tree(path).body if isinstance(stmt, ast.ImportFrom)
            for alias in stmt.names if (alias.asname or alias.name) == alias.name}


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


def exports(package: str) -> frozenset[str]:
    """The names a package's ``__init__.py`` lists: the keys of ``_HOMES`` and ``__all__``."""
    syntax = tree(ROOT.joinpath(*package.split(".")) / "__init__.py")
    names: set[str] = set()
    for stmt in syntax.body:
        if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        ids = {t.id for t in targets if isinstance(t, ast.Name)}
        if "_HOMES" in ids and isinstance(stmt.value, ast.Dict):
            names.update(k.value for k in stmt.value.keys if isinstance(k, ast.Constant))
        if "__all__" in ids and isinstance(stmt.value, ast.List | ast.Tuple):
            names.update(e.value for e in stmt.value.elts if isinstance(e, ast.Constant))
    return frozenset(names)


def _sources() -> Iterator[tuple[str, str, ast.AST]]:
    """(where, importing module, syntax tree) of every file and docs code block checked."""
    for path in source_files():
        yield path.relative_to(ROOT).as_posix(), _module_of(path), tree(path)
    for path in [p for folder in ("tests", "benchmarks") for p in sorted((ROOT / folder).rglob("*.py"))]:
        yield path.relative_to(ROOT).as_posix(), _module_of(path), ast.parse(
            path.read_text(encoding="utf-8"))
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for match in _PYTHON_BLOCK.finditer(text):
            try:
                block = ast.parse(match.group(1))
            except SyntaxError:
                continue
            first = text.count("\n", 0, match.start(1))
            ast.increment_lineno(block, first)
            yield path.relative_to(ROOT).as_posix(), "docs", block


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
    for where, importer, syntax in _sources():
        importer_is_package = where.endswith("__init__.py")
        for node in ast.walk(syntax):
            if not isinstance(node, ast.ImportFrom):
                continue
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
                found[package][name, defining].append(f"{where}:{node.lineno}")
    return found


def test_names_imported_across_packages_are_exported():
    problems = [f"{site}: {name} ({defining}) is not exported by {package}"
                for package, names in sorted(missing().items())
                for (name, defining), sites in sorted(names.items()) for site in sites]
    assert not problems, "\n".join(problems)


def test_the_check_sees_an_import_across_packages():
    # noisefloor.floor.estimate's noise_floor is exported; a name it does not export is found
    assert "noise_floor" in exports("noisefloor.floor")
    assert "noise_floor" in _defined("noisefloor.floor.estimate")
    assert not _is_package("noisefloor.floor.estimate") and _is_package("noisefloor.floor")


if __name__ == "__main__":
    for package, names in sorted(missing().items()):
        print(package)
        for (name, defining), sites in sorted(names.items()):
            print(f"    {name} ({defining}): {', '.join(sites[:3])}{' ...' if len(sites) > 3 else ''}")
