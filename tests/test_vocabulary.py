"""One name per concept across the package and the harness.

The names, decided once:

* pass^k is ``pass_hat_k`` (classes ``PassHatK...``), never ``passk``, ``pass_k``,
  ``pass_at_k``;
* the between-seed variance is ``tau_squared`` (its root ``tau``), never ``tau2`` / ``tau_sq``
  (``tau2`` alone is tau2-bench, the benchmark and log format: ``iter_tau2_blocks``);
* an adjusted p-value column is ``p_adjusted`` with its method beside it (a ``method`` column),
  and no other spelling (``p_adj``, ``p_corr``, ``p_holm``, one name per method, ...) may appear.

What is checked, read from the parsed source (nothing is imported): every public name a module
defines (functions, classes, their parameters, dataclass fields, module and class constants)
and every column name of a result (a string in a list, tuple or dict that also holds one of
``ci_low``, ``estimate`` or ``p_value``, the columns every result table shares).
:mod:`noisefloor.stats`, :mod:`noisefloor.monitoring` and :mod:`noisefloor.passk` are checked by
``tests/stats/test_vocabulary.py`` instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.source_tree import ROOT, source_files, tree

#: noisefloor/stats (and noisefloor/monitoring and noisefloor/passk, the trial-frame layer above
#: it) are checked by tests/stats/test_vocabulary.py with the same rules for pass^k and tau^2.
_STATS_OWN_CHECK = ("noisefloor/stats/", "noisefloor/monitoring/", "noisefloor/passk/")
MODULES = sorted(p for p in source_files()
                 if not p.relative_to(ROOT).as_posix().startswith(_STATS_OWN_CHECK))

_PASS_K = re.compile(r"pass_?k|pass_at_k|passhatk", re.IGNORECASE)
#: tau^2 spelled other than tau_squared; a name *ending* in tau2 is the variance (``tau2``,
#: ``pool_tau2``), one where tau2 is followed by more words is tau2-bench (``tau2_paths``).
_TAU_SQUARED = re.compile(r"(^|_)tau_?(2|sq|squ)$|(^|_)tausq($|_)")
_ADJUSTED_P = re.compile(r"^p_?(adj|corr|bonf|holm|bh|fdr|sidak)[a-z_]*$")
ADJUSTED_P_COLUMNS = {"p_adjusted"}
#: Column contexts: a list/tuple/dict holding one of these is a result's column list or row.
_RESULT_COLUMNS = {"ci_low", "estimate", "p_value"}

#: Left as they are, with the reason (path relative to the repository, name).
LEFT = {
    # the ``noisefloor passk`` command: a documented command name (its function is the command)
    ("noisefloor/cli/passk.py", "passk"),
}


def public_names(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, name)`` of the names a module defines for its users (locals left out)."""
    out: list[tuple[int, str]] = []

    def scope(body, in_class: bool):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((node.lineno, node.name))
                a = node.args
                out.extend((x.lineno, x.arg) for x in [*a.posonlyargs, *a.args, *a.kwonlyargs])
            elif isinstance(node, ast.ClassDef):
                out.append((node.lineno, node.name))
                scope(node.body, True)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.append((node.lineno, node.target.id))
            elif isinstance(node, ast.Assign):
                out.extend((t.lineno, t.id) for t in node.targets if isinstance(t, ast.Name))

    scope(tree.body, False)  # type: ignore[attr-defined]
    return [(line, name) for line, name in out if not name.startswith("__")]


def column_names(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, name)`` of the strings in a result's column list or row dict."""
    out = []
    for node in ast.walk(tree):
        items = (node.keys if isinstance(node, ast.Dict) else
                 node.elts if isinstance(node, (ast.List, ast.Tuple)) else [])
        strings = [(k.lineno, k.value) for k in items
                   if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        if {s for _, s in strings} & _RESULT_COLUMNS:
            out.extend(strings)
    return out


def off_vocabulary(source: str | ast.Module) -> list[tuple[int, str]]:
    """The off-vocabulary names of a module's source (or its parsed tree)."""
    tree = ast.parse(source) if isinstance(source, str) else source
    bad = set()
    for line, name in public_names(tree) + column_names(tree):
        spelled = name.replace("PassHatK", "").replace("pass_hat_k", "")
        if (_PASS_K.search(spelled) or _TAU_SQUARED.search(name.lower())
                or (_ADJUSTED_P.match(name) and name not in ADJUSTED_P_COLUMNS)):
            bad.add((line, name))
    return sorted(bad)


def test_the_check_catches_other_spellings():
    source = (
        "class PassKTable:\n"
        "    tau2: float\n"
        "    tau_squared: float\n"
        "def passk_rounds(pass_at_k, tau, k, tau2_paths):\n"
        "    passk = 1  # a local: not a public name\n"
        "COLUMNS = ['estimate', 'ci_low', 'p_adj', 'tau_sq', 'p_adjusted']\n"
        "def iter_tau2_blocks(): ...\n"
        "row = {'p_value': 0.1, 'p_holm': 0.2}\n"
        "LABELS = ['p_adj']  # not a result's columns\n"
        "def coordination_active_pass_hat_k_rounds(): ...\n"
    )
    assert off_vocabulary(source) == [
        (1, "PassKTable"), (2, "tau2"), (4, "pass_at_k"), (4, "passk_rounds"),
        (6, "p_adj"), (6, "tau_sq"), (8, "p_holm")]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_module_uses_the_projects_names(path: Path):
    rel = path.relative_to(ROOT).as_posix()
    bad = [(line, name) for line, name in off_vocabulary(tree(path))
           if (rel, name) not in LEFT]
    assert not bad, f"{rel}: " + ", ".join(f"line {n}: {name}" for n, name in bad)


def test_the_left_names_are_still_there():
    # an entry of LEFT that no longer occurs is stale: remove it, so the list stays the truth
    for rel, name in sorted(LEFT):
        parsed = tree(ROOT / rel)
        names = {n for _, n in public_names(parsed) + column_names(parsed)}
        assert name in names, f"{rel}: {name} is gone; drop it from LEFT"
