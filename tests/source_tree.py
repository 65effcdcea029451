"""The packages' source files, read and parsed once per test process.

Several test files walk the syntax trees of ``noisefloor/`` and ``harness/`` (import cycles,
result classes, warning classes, requirements, vocabulary); parsing every module takes a second
or more, so they share the trees parsed here. The trees are shared: a test reads them and never
changes them.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("noisefloor", "harness")


@functools.cache
def package_files(package: str) -> tuple[Path, ...]:
    """Every ``.py`` file under ``ROOT / package``, sorted."""
    return tuple(sorted((ROOT / package).rglob("*.py")))


def source_files() -> tuple[Path, ...]:
    """Every ``.py`` file of the packages, sorted within each package."""
    return tuple(p for package in PACKAGES for p in package_files(package))


@functools.cache
def source(path: Path) -> str:
    """The text of one file."""
    return path.read_text(encoding="utf-8")


@functools.cache
def tree(path: Path) -> ast.Module:
    """The syntax tree of one file (shared: never change it)."""
    return ast.parse(source(path))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's tree, in :func:`ast.walk` order."""
    return tuple(ast.walk(tree(path)))
