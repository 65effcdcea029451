"""The packages that load their names on first use keep their two lists of names in step.

Such a package (a module ``__getattr__`` over a ``_HOMES`` table: name -> defining module) also
imports every name under ``if TYPE_CHECKING:`` so that type checkers and editors see it. Nothing
at run time reads those imports, and ruff cannot tell them from unused ones (pyproject.toml
exempts these files from F401), so this test is what notices a name added to one list and not
the other, or a name whose two homes disagree.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAZY = sorted(p for pkg in ("noisefloor", "harness") for p in (ROOT / pkg).rglob("__init__.py")
              if "_HOMES" in p.read_text(encoding="utf-8"))


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).parent.parts)


def _type_checking_imports(tree: ast.Module) -> dict[str, str]:
    """Name -> module of every ``from module import name`` under ``if TYPE_CHECKING:``."""
    names = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and ast.unparse(stmt.test).endswith("TYPE_CHECKING"):
            for node in stmt.body:
                assert isinstance(node, ast.ImportFrom) and node.module and not node.level
                for alias in node.names:
                    names[alias.asname or alias.name] = node.module
    return names


def test_the_lazy_packages_are_found():
    found = {_module_name(p) for p in LAZY}
    assert {"noisefloor", "noisefloor.stats", "noisefloor.floor", "harness.tasks.csp"} <= found


@pytest.mark.parametrize("path", LAZY, ids=_module_name)
def test_type_checking_imports_match_the_lazy_table(path):
    package = _module_name(path)
    module = importlib.import_module(package)
    homes = {name: home if home.startswith(("noisefloor.", "harness.")) else f"{package}.{home}"
             for name, home in module._HOMES.items()}
    seen = _type_checking_imports(ast.parse(path.read_text(encoding="utf-8")))
    assert seen == homes
    assert set(homes) <= set(module.__all__)


def test_the_commands_one_call_functions_are_exported_from_the_top():
    # compare_runs, contrast_counts, reruns_sim_run (and its result) and passk's one call were
    # exported by their packages only; each is the package's own object, loaded on first use
    import noisefloor
    from noisefloor import compare as compare_package
    from noisefloor import passk, pipelines

    for package, names in ((compare_package, ["compare_runs"]),
                           (pipelines, ["contrast_counts", "reruns_sim_run", "RerunsSimRun"]),
                           (passk, ["pass_hat_k_report_from_logs", "PassHatKReport"])):
        for name in names:
            assert name in noisefloor.__all__, name
            assert getattr(noisefloor, name) is getattr(package, name), name


def test_passk_help_names_its_one_call_function():
    from click.testing import CliRunner

    from noisefloor.cli.passk import passk

    help_text = " ".join(CliRunner().invoke(passk, ["--help"]).output.split())
    assert "Python: noisefloor.pass_hat_k_report_from_logs(LOGS, ks)" in help_text


def test_no_top_level_export_is_also_a_package_or_module_name():
    # ``from noisefloor import compare`` gave the function compare() or the package
    # noisefloor.compare depending on whether the package had been imported before (importing a
    # submodule binds it as the package's attribute, over the lazy export): a name is one thing
    import noisefloor

    root = Path(noisefloor.__file__).parent
    submodules = {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}
    submodules |= {p.stem for p in root.glob("*.py") if not p.stem.startswith("_")}
    clashes = sorted(set(noisefloor.__all__) & submodules)
    assert not clashes, f"exported names that are also submodules of noisefloor: {clashes}"
