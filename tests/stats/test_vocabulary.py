"""One name per concept in the statistics and their analysis layer.

pass^k is ``pass_hat_k`` (class names ``PassHatK...``), never ``passk``/``pass_k``/``passhatk``;
pass@k, a different estimand, is ``pass_at_k`` (``PassAtK``);
the between-seed variance is ``tau_squared`` and its square root ``tau``, never ``tau2``. Every
name a module defines (functions, classes, their fields and parameters, module constants) is
read from the parsed source and checked.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.source_tree import ROOT, tree

MODULES = sorted(
    [*(ROOT / "noisefloor" / "stats").rglob("*.py"),
     *(ROOT / "noisefloor" / "monitoring").glob("*.py"),
     *(ROOT / "noisefloor" / "passk").glob("*.py"),
     ROOT / "noisefloor" / "agreement" / "study.py"]
)

#: Spellings of pass^k other than pass_hat_k / PassHatK.
_PASS_K = re.compile(r"pass_?k|passhatk", re.IGNORECASE)
_TAU = re.compile(r"(^|_)tau_?(2|sq)($|_)")


def defined_names(source: str | ast.Module) -> list[tuple[int, str]]:
    """``(line, name)`` of every name a module defines or takes as a parameter, read from its
    source (or its parsed tree)."""
    out = []
    for node in ast.walk(ast.parse(source) if isinstance(source, str) else source):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.lineno, node.name))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                out.append((a.lineno, a.arg))
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.append((node.lineno, node.target.id))
        if isinstance(node, ast.Assign):
            out.extend((t.lineno, t.id) for t in node.targets if isinstance(t, ast.Name))
    return sorted(out)


def off_vocabulary(source: str | ast.Module) -> list[tuple[int, str]]:
    bad = []
    for line, name in defined_names(source):
        spelled = name.replace("PassHatK", "").replace("pass_hat_k", "")
        if _PASS_K.search(spelled) or _TAU.search(name.lower()):
            bad.append((line, name))
    return bad


def test_the_check_catches_other_spellings():
    source = (
        "class PassKRounds:\n    tau2: float\n    tau_squared: float\n"
        "def passk_rounds(pass_at_k, tau, k): ...\n"
        "def coordination_active_pass_hat_k_rounds(): ...\n"
        "class PassHatK: ...\n"
        "PASSK_LIMIT = 3\n"
    )
    # pass_at_k is pass@k's own name (at least one of k succeeds), not a spelling of pass^k
    assert off_vocabulary(source) == [(1, "PassKRounds"), (2, "tau2"),
                                      (4, "passk_rounds"), (7, "PASSK_LIMIT")]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_module_uses_the_projects_names(path: Path):
    bad = off_vocabulary(tree(path))
    assert not bad, f"{path.name}: " + ", ".join(f"line {n}: {name}" for n, name in bad)
