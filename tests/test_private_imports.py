"""No module imports a private name of another package.

A leading underscore (``_p``, ``_common``) says a name is its package's own business: the
modules of that package may share it, nothing else may lean on it. What another package needs
is made public, with a name and a docstring (``noisefloor.report.text.p_cell``). The check
reads the syntax trees of ``noisefloor/`` and ``harness/`` (every import, inside functions
too; nothing is imported) and fails on

* ``from M import _x`` where the package that owns ``_x`` (``M`` if it is a package, else
  ``M``'s package) is not the importing module's package;
* an import of a module path with a private part (``from pkg._mod import x``,
  ``import pkg._mod``, ``scipy.special._ufuncs``) from outside the package that holds that
  part.

Imports inside the owning package stay allowed, its sub-packages included:
``noisefloor/floor/count_table.py`` may import ``_reversals`` from
``noisefloor/floor/contrast_table.py``, every command module may import
``noisefloor.cli._common``, and ``noisefloor/stats/agreement/fleiss/kappa.py`` the input
helpers of ``noisefloor.stats.agreement``. Dunder names (``__version__``) are public.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.source_tree import PACKAGES, ROOT, source_files, tree


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _package_of(path: Path) -> str:
    """The dotted package a file belongs to (its directory)."""
    return ".".join(path.relative_to(ROOT).parent.parts)


def _home(module: str) -> str:
    """The package that owns the names ``module`` defines: ``module`` itself if it is a
    package of the repository or outside it (``scipy.special``), else its parent package."""
    if module.split(".")[0] not in PACKAGES:
        return module
    if (ROOT.joinpath(*module.split(".")) / "__init__.py").is_file():
        return module
    return module.rpartition(".")[0]


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The absolute module of a ``from ... import``, relative levels resolved."""
    if not node.level:
        return node.module or ""
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _private_path_owner(module: str) -> str | None:
    """The package that holds the first private part of ``module`` (None if it has none)."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if _private(part):
            return ".".join(parts[:i])
    return None


def _inside(package: str, owner: str) -> bool:
    """Whether ``package`` is ``owner`` or one of its sub-packages."""
    return package == owner or package.startswith(owner + ".")


def violations(path: Path, syntax: ast.Module) -> Iterator[str]:
    """``file:line: what`` for each private import of another package in one file."""
    package = _package_of(path)
    where = path.relative_to(ROOT).as_posix()
    for node in ast.walk(syntax):
        if isinstance(node, ast.Import):
            for alias in node.names:
                owner = _private_path_owner(alias.name)
                if owner is not None and not _inside(package, owner):
                    yield f"{where}:{node.lineno}: import {alias.name} (private to {owner})"
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, package)
            owner = _private_path_owner(module)
            if owner is not None and not _inside(package, owner):
                yield f"{where}:{node.lineno}: from {module} import ... (private to {owner})"
                continue
            home = _home(module)
            for alias in node.names:
                if _private(alias.name) and not _inside(package, home):
                    yield (f"{where}:{node.lineno}: from {module} import {alias.name} "
                           f"(private to {home or module})")


def test_the_check_sees_a_private_import_of_another_package():
    fake = ROOT / "noisefloor" / "cli" / "contrast.py"
    code = ("from noisefloor.report.text import _p, pp\n"
            "from noisefloor.cli._common import HELP_OPTIONS\n"
            "from . import _common\n"
            "def f():\n    from scipy.special import _ufuncs\n")
    found = list(violations(fake, ast.parse(code)))
    assert found == [
        "noisefloor/cli/contrast.py:1: from noisefloor.report.text import _p "
        "(private to noisefloor.report)",
        "noisefloor/cli/contrast.py:5: from scipy.special import _ufuncs (private to scipy.special)",
    ]
    harness_file = ROOT / "harness" / "runner" / "run.py"
    assert list(violations(harness_file, ast.parse("from noisefloor.cli._common import x\n"))) == [
        "harness/runner/run.py:1: from noisefloor.cli._common import ... "
        "(private to noisefloor.cli)"]
    # a sub-package may use its parent's private names; the parent may not use a child's
    child = ROOT / "noisefloor" / "stats" / "agreement" / "fleiss" / "kappa.py"
    assert list(violations(child, ast.parse(
        "from noisefloor.stats.agreement.input import _codes\n"))) == []
    parent = ROOT / "noisefloor" / "stats" / "agreement" / "cohen.py"
    assert list(violations(parent, ast.parse(
        "from noisefloor.stats.agreement.fleiss.kappa import _x\n"))) == [
        "noisefloor/stats/agreement/cohen.py:1: from noisefloor.stats.agreement.fleiss.kappa "
        "import _x (private to noisefloor.stats.agreement.fleiss)"]


def test_no_module_imports_a_private_name_of_another_package():
    found = [v for path in source_files() for v in violations(path, tree(path))]
    assert not found, "private names imported across packages:\n" + "\n".join(found)
