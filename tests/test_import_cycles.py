"""No import cycles in noisefloor/ and harness/, at module or package level, and one direction:
harness depends on noisefloor, never the reverse (the command line aside).

The graph is built from the AST of every module. Imports under ``if TYPE_CHECKING:`` never run
and are no edges. The module- and package-level tests count the imports that run when a module
is imported: those at module level, including inside a module-level ``try``, ``if`` or
``with``. Imports inside functions, which run when the function is called, are counted
separately: a cycle through them is not an import-time failure but still two modules that need
each other, so those cycles are listed (:data:`FUNCTION_LEVEL_CYCLES`) and may only go away.
The direction test counts every import, inside functions too.

A package that exports its names lazily (``noisefloor.lazy.lazy_exports``: a module
``__getattr__`` over a name -> module table) imports nothing at the top of its ``__init__``;
``from noisefloor.floor import noise_floor`` runs that ``__getattr__``, which imports
``noisefloor.floor.estimate`` there and then. So such an import is an edge to the package and to the
name's home module, read from the same table the package passes to ``lazy_exports``
(:func:`lazy_homes`); otherwise a cycle closed through a lazy export would go unseen.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.source_tree import PACKAGES, ROOT, package_files, tree


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def _modules() -> dict[str, Path]:
    """Every module by name; ``__main__`` modules are left out (entry points that nothing
    imports: ``python -m noisefloor`` runs the command line)."""
    return {_module_name(p): p for pkg in PACKAGES for p in package_files(pkg)
            if p.name != "__main__.py"}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(body: list[ast.stmt], top_level_only: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """Import statements of a module body: the module-level ones (through if/try/with blocks,
    except ``if TYPE_CHECKING:``), or every one when ``top_level_only`` is False."""
    if not top_level_only:
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                yield stmt
            elif isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
                yield from _import_nodes(stmt.orelse, False)
            else:
                children = [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.stmt)]
                for handler in getattr(stmt, "handlers", ()):
                    children.extend(handler.body)
                for case in getattr(stmt, "cases", ()):
                    children.extend(case.body)
                yield from _import_nodes(children, False)
        return
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _import_nodes(node.body, True)
            yield from _import_nodes(node.orelse, True)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _import_nodes(block, True)
        elif isinstance(node, ast.With):
            yield from _import_nodes(node.body, True)


def _homes_table(body: list[ast.stmt]) -> ast.expr | None:
    """The table a package passes to ``lazy_exports(__name__, TABLE, ...)`` at module level: the
    dict literal itself or the one assigned to that name."""
    assigned: dict[str, ast.expr] = {}
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned[target.id] = stmt.value
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            if (getattr(func, "id", None) or getattr(func, "attr", None)) == "lazy_exports":
                table = stmt.value.args[1] if len(stmt.value.args) > 1 else None
                return assigned.get(table.id) if isinstance(table, ast.Name) else table
    return None


@functools.cache
def lazy_homes(package: str) -> dict[str, str]:
    """Name -> the module that defines it, for each name ``package`` exports lazily (empty for
    a package that does not, or a module)."""
    path = _modules().get(package)
    if path is None or path.name != "__init__.py":
        return {}
    table = _homes_table(tree(path).body)
    if table is None:
        return {}
    homes = ast.literal_eval(table)
    return {name: home if home.startswith(PACKAGES) else f"{package}.{home}"
            for name, home in homes.items()}


def _targets(name: str, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> set[str]:
    """The first-party modules one import statement of module ``name`` imports (a lazily
    exported name: its package and its home module)."""
    found: set[str] = set()
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in modules:
                found.add(alias.name)
        return found
    if node.level:  # relative: resolve against the importing module's package
        package = name if modules[name].name == "__init__.py" else name.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    for alias in node.names:  # `from pkg import module` imports the module itself
        if f"{base}.{alias.name}" in modules:
            found.add(f"{base}.{alias.name}")
        elif base in modules:
            found.add(base)
            home = lazy_homes(base).get(alias.name)
            if home in modules:
                found.add(home)
    return found


def import_graph(top_level_only: bool = True) -> dict[str, set[str]]:
    """Module -> the first-party modules it imports (self-imports left out); a fresh copy of
    the graph built once per process from the shared syntax trees."""
    return {name: set(edges) for name, edges in _import_graph(top_level_only).items()}


@functools.cache
def _import_graph(top_level_only: bool) -> dict[str, frozenset[str]]:
    modules = _modules()
    graph: dict[str, frozenset[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for node in _import_nodes(tree(path).body, top_level_only):
            edges |= _targets(name, node, modules)
        graph[name] = frozenset(edges - {name})
    return graph


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same graph between packages: a module belongs to the package that holds it (a
    package's ``__init__`` to the package itself). A leaf module, one that imports no
    first-party module (``noisefloor.lazy``, the lazy-export helper every package's
    ``__init__`` uses), stands for itself: nothing can lead out of it, so it closes no cycle,
    and counting it in its package would make every package that uses it and is used by a
    sibling module seem to import its own parent."""
    modules = _modules()

    def package(name: str) -> str:
        if modules[name].name == "__init__.py" or not graph.get(name):
            return name
        return name.rpartition(".")[0]

    out: dict[str, set[str]] = {}
    for name, targets in graph.items():
        out.setdefault(package(name), set()).update(package(t) for t in targets)
    return {k: v - {k} for k, v in out.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path ``[a, b, ..., a]``, or None (iterative depth-first)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for start in sorted(graph):
        if state.get(start):
            continue
        path = [start]
        stack = [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph.get(nxt, ()))))
    return None


def test_the_cycle_finder_finds_a_cycle_and_its_path():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a", "c"}}) is None


def test_a_leaf_module_stands_for_itself_in_the_package_graph():
    # p.helper imports nothing: p.q using it while p.mod uses p.q is no package cycle
    graph = {"noisefloor.lazy": set(), "noisefloor.journal": {"noisefloor.stats.warning_classes"},
             "noisefloor.stats": {"noisefloor.lazy"}, "noisefloor.stats.warning_classes": set()}
    packages = package_graph(graph)
    assert find_cycle(packages) is None
    assert packages["noisefloor.stats"] == {"noisefloor.lazy"}


def test_the_graph_sees_relative_imports_and_skips_function_level_ones(tmp_path):
    graph = import_graph()
    # noisefloor.cli.main imports its commands with importlib when they run: no edge to them
    assert "noisefloor.cli.tax" not in graph["noisefloor.cli.main"]
    assert "noisefloor.extras" in graph["noisefloor.cli.main"]
    assert "noisefloor.compare.result" in graph["noisefloor.compare.render"]
    # a lazy package's __init__ imports only the helper at run time
    assert graph["noisefloor.compare"] == {"noisefloor.lazy"}


def test_a_lazily_exported_name_is_an_edge_to_its_home_module():
    assert lazy_homes("noisefloor.floor")["noise_floor"] == "noisefloor.floor.estimate"
    assert lazy_homes("noisefloor")["cohen_kappa"] == "noisefloor.stats.agreement.cohen"
    assert lazy_homes("noisefloor.floor.estimate") == {}  # a module, not a package
    node = ast.parse("from noisefloor.floor import noise_floor, POOLED").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _targets("noisefloor.compare.result", node, _modules()) == {
        "noisefloor.floor", "noisefloor.floor.estimate", "noisefloor.floor.contrast_table"}


@pytest.mark.parametrize("level", ["module", "package"])
def test_no_import_cycle(level):
    graph = import_graph()
    if level == "package":
        graph = package_graph(graph)
    cycle = find_cycle(graph)
    assert cycle is None, f"{level}-level import cycle: {' -> '.join(cycle)}"


def cyclic_groups(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (each holds a cycle)."""
    def reach(start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reachable = {n: reach(n) for n in graph}
    return {frozenset(m for m in reachable[n] if n in reachable.get(m, ()))
            for n in graph} - {frozenset({n}) for n in graph}


#: Cycles that only close through an import inside a function. The HTML pages register their
#: builders with ``noisefloor.report.html.render.page_for`` and ``html_report`` imports the page modules
#: to fill that registry (the registry would have to live below the pages to break it).
FUNCTION_LEVEL_CYCLES = {
    frozenset({"noisefloor.report.html.render", "noisefloor.report.html.compare",
               "noisefloor.report.html.floor", "noisefloor.report.html.pass_hat_k",
               "noisefloor.report.html.report_doc", "noisefloor.report.html.tax"}),
}


def test_the_component_finder():
    graph = {"a": {"b"}, "b": {"a", "c"}, "c": set(), "d": {"d"}}
    assert cyclic_groups(graph) == {frozenset({"a", "b"})}


def test_function_level_cycles_only_shrink():
    groups = cyclic_groups(import_graph(top_level_only=False))
    new = groups - FUNCTION_LEVEL_CYCLES
    assert not new, "import cycles through function-level imports: " + "; ".join(
        " -> ".join(find_cycle({n: import_graph(False)[n] & g for n in g}) or sorted(g))
        for g in new)
    gone = FUNCTION_LEVEL_CYCLES - groups
    assert not gone, f"no longer a cycle, remove from FUNCTION_LEVEL_CYCLES: {gone}"


def test_noisefloor_never_imports_harness_outside_the_command_line():
    # the tax analysis reads what it needs of the suite from noisefloor (the dialogue markers,
    # noisefloor.tax.markers) or takes it from its caller (the tasks of a synthetic run)
    graph = import_graph(top_level_only=False)
    found = {(name, t) for name, targets in graph.items()
             if name.startswith("noisefloor.") and not name.startswith("noisefloor.cli.")
             for t in targets if t.split(".")[0] == "harness"}
    assert not found, sorted(found)


def test_the_analysis_packages_never_import_the_pipelines_or_the_command_line():
    # docs/architecture.md: cli -> report -> pipelines -> the analysis packages -> logs -> stats
    # (inside functions too: compare once read its logs through noisefloor.pipelines)
    below = {"floor", "audit", "compare", "leaderboard", "agreement", "monitoring", "passk",
             "tax", "logs", "stats"}

    def layer(module: str) -> str:
        parts = module.split(".")
        return parts[1] if parts[0] == "noisefloor" and len(parts) > 1 else ""

    graph = import_graph(top_level_only=False)
    found = {(name, t) for name, targets in graph.items() if layer(name) in below
             for t in targets if layer(t) in {"pipelines", "cli"}}
    assert not found, sorted(found)
