"""Random structures the Relational generators draw: trees, shuffles, chains, linear orders.

Shared by the tasks of :mod:`harness.tasks.relational.graphs`,
:mod:`harness.tasks.relational.networks`, :mod:`harness.tasks.relational.orders` and
:mod:`harness.tasks.relational.records`; no task lives here.
"""

from __future__ import annotations

import random
from typing import Any

import networkx as nx

#: Answer format of every question task (``{example}`` is the task's example answer).
QUESTIONS_ANSWER_FORMAT = (
    "one entry per question, 'number: answer', separated by semicolons, e.g. '{example}'"
)


def random_tree(rng: random.Random, n: int, max_children: int, max_depth: int) -> dict[int, int]:
    """A random rooted tree on nodes 0..n-1 (root 0) as ``{child: parent}``; node ``i`` hangs
    under an earlier node with fewer than ``max_children`` children and depth < ``max_depth``."""
    parent: dict[int, int] = {}
    depth = {0: 0}
    children = {0: 0}
    for i in range(1, n):
        options = [j for j in range(i) if children[j] < max_children and depth[j] < max_depth]
        p = rng.choice(options)
        parent[i] = p
        depth[i] = depth[p] + 1
        children[p] += 1
        children[i] = 0
    return parent


def shuffled(rng: random.Random, items: list) -> list[tuple[int, Any]]:
    """``enumerate(items)`` in a random order (so a roster does not reveal the tree's root)."""
    pairs = list(enumerate(items))
    rng.shuffle(pairs)
    return pairs


def chain_up(parent: dict[int, int], x: int) -> list[int]:
    """``x`` and its ancestors, nearest first."""
    out = [x]
    while out[-1] in parent:
        out.append(parent[out[-1]])
    return out


def up_distances(graph: nx.DiGraph, x: str) -> dict[str, int]:
    """Distance from ``x`` to each of its ancestors (``x`` itself at 0) along parent -> child
    edges walked backwards; works on any digraph (several parents, cycles)."""
    if x not in graph:
        return {x: 0}
    return nx.single_source_shortest_path_length(graph.reverse(copy=False), x)


def random_linear_extension(rng: random.Random, nodes: list[str],
                            edges: list[tuple[str, str]]) -> list[str]:
    """A random topological order of the DAG ``(nodes, edges)`` (u before v for each edge)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    indeg = {v: graph.in_degree(v) for v in nodes}
    ready = sorted(v for v in nodes if indeg[v] == 0)
    order = []
    while ready:
        v = ready.pop(rng.randrange(len(ready)))
        order.append(v)
        for w in sorted(graph.successors(v)):
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    return order


def pick_queries(rng: random.Random, candidates: list[tuple], k: int, key: int = -1) -> list[tuple]:
    """``k`` candidates, preferring distinct values of ``candidate[key]`` (varied answers)."""
    pool = list(candidates)
    rng.shuffle(pool)
    chosen: list[tuple] = []
    seen: set = set()
    for cand in pool:
        if cand[key] not in seen and len(chosen) < k:
            chosen.append(cand)
            seen.add(cand[key])
    for cand in pool:
        if len(chosen) >= k:
            break
        if cand not in chosen:
            chosen.append(cand)
    return chosen


def reattach_tree_edges(data: dict[str, Any], keep: str, rng: random.Random,
                        up: str, down: str) -> list[dict[str, Any]]:
    """Counterfactual of a rooted tree: every edge not owned by ``keep`` gets a new random upper
    end (never a descendant of its lower end, so the result stays a tree)."""
    facts = [dict(f) for f in data["facts"]]
    graph = nx.DiGraph()
    graph.add_nodes_from(data["entities"])
    graph.add_edges_from((f[up], f[down]) for f in facts)
    everyone = sorted(data["entities"])
    for fact in facts:
        if fact["owner"] == keep:
            continue
        graph.remove_edge(fact[up], fact[down])
        banned = nx.descendants(graph, fact[down]) | {fact[down]}
        fact[up] = rng.choice([p for p in everyone if p not in banned])
        graph.add_edge(fact[up], fact[down])
    return facts
