"""The harness's imports form no cycle, and none hides inside a function.

Imports of ``harness.*`` modules (wherever they sit) are read with :mod:`ast` and must form a
directed acyclic graph; an import of a ``harness`` module inside a function (the old way of dodging the
CSP cycle) fails the test. Imports of third-party libraries inside functions (deferred for import
time) are allowed. The graph includes imports inside functions, so an import that a function
defers to dodge a cycle still shows up as the cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from tests.source_tree import ROOT, nodes, package_files, tree


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _harness_targets(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "harness"]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        if node.module.split(".")[0] == "harness":
            return [node.module]
    return []


def _graph() -> tuple[nx.DiGraph, list[str]]:
    graph = nx.DiGraph()
    local = []
    for path in package_files("harness"):
        name = _module_name(path)
        graph.add_node(name)
        body = tree(path).body
        top = set(map(id, body))
        for stmt in body:  # ``if TYPE_CHECKING:`` imports are module-level too
            if isinstance(stmt, ast.If) and ast.unparse(stmt.test).endswith("TYPE_CHECKING"):
                top.update(id(node) for part in stmt.body for node in ast.walk(part))
        for node in nodes(path):
            for target in _harness_targets(node):
                graph.add_edge(name, target)  # every import, wherever it sits, is a dependency
                if id(node) not in top:
                    local.append(f"{name}:{node.lineno} imports {target} inside a function")
    return graph, local


#: Packages whose deferred imports of harness modules are not checked here (the runner defers
#: ``harness.registry`` for start-up time; its owner decides). Cycles are checked everywhere.
UNCHECKED_LOCAL_IMPORTS = ("harness.runner",)


def test_no_function_local_harness_imports():
    _, local = _graph()
    local = [entry for entry in local if not entry.startswith(UNCHECKED_LOCAL_IMPORTS)]
    assert not local, local


def test_module_imports_are_acyclic():
    graph, _ = _graph()
    assert nx.is_directed_acyclic_graph(graph), list(nx.simple_cycles(graph))


def test_leaf_modules_import_no_task_module():
    graph, _ = _graph()
    for leaf in ("harness.vocabulary", "harness.manifest", "harness.tasks.csp.vocabulary",
                 "harness.tasks.csp.answers", "harness.tasks.csp.notebooks"):
        reached = nx.descendants(graph, leaf)
        assert not {m for m in reached if m.startswith("harness.tasks.")} - {
            "harness.tasks.csp", "harness.tasks.relational", "harness.tasks.spatial",
            "harness.tasks.csp.answers", "harness.tasks.csp.notebooks"}, (leaf, reached)
