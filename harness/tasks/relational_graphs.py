"""Relational tasks over trees and graphs: family tree, org chart, rail network, aliases, courses.

Each task hides a graph, hands each edge to one agent, and asks questions whose answer needs
edges of both agents (checked at generation: every question's answer differs from what either
agent's edges alone give). Ground truth by networkx graph search. See
:mod:`harness.tasks.relational_common` for the shared answer format and scoring.
"""

from __future__ import annotations

import random
from typing import Any

import networkx as nx

from harness.registry import register
from harness.tasks.relational_common import (
    MAX_ATTEMPTS,
    NONE,
    SIDES,
    RelationalTask,
    balanced_owners,
    compact,
    draw_people,
)

QUESTIONS_ANSWER_FORMAT = (
    "one entry per question, 'number: answer', separated by semicolons, e.g. '{example}'"
)


# ----- helpers ----------------------------------------------------------------------------
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
    chosen, seen = [], set()
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


# ----- family tree ------------------------------------------------------------------------
KINSHIP = {
    (1, 0): "parent", (0, 1): "child", (2, 0): "grandparent", (0, 2): "grandchild",
    (3, 0): "great-grandparent", (0, 3): "great-grandchild", (1, 1): "sibling",
    (2, 2): "cousin", (2, 1): "aunt or uncle", (1, 2): "niece or nephew",
}
OTHER_RELATIVE = "distant relative"
UNRELATED = "unrelated"
KINSHIP_TERMS = tuple(KINSHIP.values()) + (OTHER_RELATIVE, UNRELATED)
_TERM_SYNONYMS = {
    "aunt": "auntoruncle", "uncle": "auntoruncle", "parentssibling": "auntoruncle",
    "niece": "nieceornephew", "nephew": "nieceornephew", "siblingschild": "nieceornephew",
    "firstcousin": "cousin", "mother": "parent", "father": "parent", "son": "child",
    "daughter": "child", "brother": "sibling", "sister": "sibling",
    "grandmother": "grandparent", "grandfather": "grandparent",
}


def kinship(graph: nx.DiGraph, x: str, y: str) -> str:
    """How ``y`` is related to ``x`` in a parent -> child digraph (nearest common ancestor)."""
    ux, uy = up_distances(graph, x), up_distances(graph, y)
    common = [a for a in ux if a in uy]
    if not common:
        return UNRELATED
    best = min(common, key=lambda a: (ux[a] + uy[a], ux[a], a))
    return KINSHIP.get((ux[best], uy[best]), OTHER_RELATIVE)


@register
class FamilyTree(RelationalTask):
    """Kinship questions over a family tree whose parent links are split between two agents.

    View ``a`` writes "X is a parent of Y" with names as ``Given Surname``; view ``b`` writes
    "Y is a child of X" with names as ``SURNAME, Given``. Each question asks how one person is
    related to another; the path between them crosses both agents' links. Score: fraction of
    questions answered with the right kinship term.

    Examples
    --------
    >>> task = FamilyTree()
    >>> inst = task.generate(0)
    >>> task.grade(inst, task.parse(task.format_answer(task.oracle(inst))))
    1.0
    """

    name = "relational_family_tree"
    description = "Kinship questions over a family tree whose parent links are split in two."
    answer_format = (
        "one entry per question, 'number: kinship term', separated by semicolons, using the terms "
        + ", ".join(KINSHIP_TERMS) + "; e.g. '1: cousin; 2: grandparent'"
    )
    conventions = {
        "a": {"name_format": "Given Surname",
              "relation_wording": "parent-first ('is a parent of')"},
        "b": {"name_format": "SURNAME, Given", "relation_wording": "child-first ('is a child of')"},
    }
    convention_text = {
        "a": "Names are written 'Given Surname'; each fact names the parent first.",
        "b": "Names are written 'SURNAME, Given'; each fact names the child first.",
    }
    setting = (
        "A family tree. Every person has at most one recorded parent, and everyone below "
        "descends from one common ancestor. Work out how people are related. Kinship terms: "
        + ", ".join(KINSHIP_TERMS) + " (cousin means first cousin)."
    )
    templates = {"a": "{0} is a parent of {1}.", "b": "{0} is a child of {1}."}
    fact_fields = ("parent", "child")
    question_patterns = ((r"How is (?P<y>.+) related to (?P<x>.+)\? \(.*\)", {"type": "term"}),)
    facts_heading = "Parent links"
    sizes = {0: 8, 1: 11, 2: 15}
    n_queries = {0: 3, 1: 4, 2: 5}

    def _build(self, rng: random.Random, difficulty: int) -> dict[str, Any]:
        n, k = self.sizes[difficulty], self.n_queries[difficulty]
        for _ in range(MAX_ATTEMPTS):
            people = draw_people(rng, n)
            ids = [f"{g} {s}" for g, s in people]
            parent = random_tree(rng, n, max_children=3, max_depth=4)
            owner = dict(zip(parent, balanced_owners(rng, len(parent))))
            if len(set(owner.values())) < 2:
                continue
            chains = {x: chain_up(parent, x) for x in range(n)}
            cands = []
            for x in range(n):
                for y in range(n):
                    if x == y:
                        continue
                    above_y = set(chains[y])
                    dx = next(i for i, a in enumerate(chains[x]) if a in above_y)
                    lca = chains[x][dx]
                    dy = chains[y].index(lca)
                    term = KINSHIP.get((dx, dy))
                    path = chains[x][:dx] + chains[y][:dy]
                    if term and len({owner[c] for c in path}) == 2:
                        cands.append((x, y, term))
            if len(cands) < k:
                continue
            chosen = pick_queries(rng, cands, k)
            facts = [{"owner": owner[c], "parent": ids[parent[c]], "child": ids[c]}
                     for c in parent]
            rng.shuffle(facts)
            return {
                "entities": {ids[i]: {"a": f"{g} {s}", "b": f"{s.upper()}, {g}"}
                             for i, (g, s) in shuffled(rng, people)},
                "facts": facts,
                "queries": [{"type": "term", "x": ids[x], "y": ids[y]} for x, y, _ in chosen],
            }
        raise RuntimeError(f"{self.name}: no admissible instance after {MAX_ATTEMPTS} attempts")

    def _encode(self, fact, agent, data):
        ent = data["entities"]
        if agent == "a":
            return [ent[fact["parent"]]["a"], ent[fact["child"]]["a"]]
        return [ent[fact["child"]]["b"], ent[fact["parent"]]["b"]]

    def _ask(self, query, agent, data):
        x, y = (data["entities"][query[k]][agent] for k in ("x", "y"))
        return f"How is {y} related to {x}? ({y} is {x}'s ...)"

    def _solve(self, data):
        graph = nx.DiGraph()
        graph.add_nodes_from(data["entities"])
        graph.add_edges_from((f["parent"], f["child"]) for f in data["facts"])
        return [kinship(graph, q["x"], q["y"]) for q in data["queries"]]

    def _term_key(self, value):
        key = compact(value)
        return _TERM_SYNONYMS.get(key, key)

    def _regenerate(self, data, keep, rng):
        out = dict(data)
        out["facts"] = reattach_tree_edges(data, keep, rng, "parent", "child")
        return out

    def _misread(self, data):
        out = dict(data)
        out["facts"] = [f if f["owner"] == "a" else
                        {**f, "parent": f["child"], "child": f["parent"]} for f in data["facts"]]
        return out

    def _wrong_value(self, data, qi, value):
        return "sibling" if self._term_key(value) != "sibling" else "cousin"


# ----- org chart --------------------------------------------------------------------------
def _proper_up(graph: nx.DiGraph, x: str) -> dict[str, int]:
    dist = up_distances(graph, x)
    dist.pop(x, None)
    return dist


@register
class OrgChart(RelationalTask):
    """Chain-of-command questions over an org chart whose reporting lines are split in two.

    View ``a`` writes "X reports to Y" (subordinate first) with names as ``Given Surname``; view
    ``b`` writes "Y manages X" (manager first) with names as ``G. Surname``. Questions ask for
    the closest common manager of two employees, or an employee's manager's manager. Score:
    fraction of questions answered with the right person (either name form is accepted).

    Examples
    --------
    >>> task = OrgChart()
    >>> inst = task.generate(1)
    >>> task.grade(inst, task.oracle(inst))
    1.0
    """

    name = "relational_org_chart"
    description = "Chain-of-command questions over an org chart split between two agents."
    answer_format = QUESTIONS_ANSWER_FORMAT.format(example="1: Anna Berg; 2: Hugo Dahl")
    conventions = {
        "a": {"name_format": "Given Surname",
              "relation_wording": "subordinate-first ('reports to')"},
        "b": {"name_format": "G. Surname", "relation_wording": "manager-first ('manages')"},
    }
    convention_text = {
        "a": "Names are written 'Given Surname'; each line names the subordinate first.",
        "b": "Names are written 'G. Surname' (initial); each line names the manager first.",
    }
    setting = (
        "An organisation chart. Everyone except the head of the organisation has exactly one "
        "direct manager. A person's managers are their direct manager, that person's manager, "
        "and so on up to the head."
    )
    templates = {"a": "{0} reports to {1}.", "b": "{0} manages {1}."}
    fact_fields = ("report", "manager")
    question_patterns = (
        (r"Who is (?P<x>.+)'s manager's manager\?", {"type": "name", "kind": "skip"}),
        (r"Who is the lowest-ranked person who is a manager of both (?P<x>.+) and (?P<y>.+)\?",
         {"type": "name", "kind": "common"}),
    )
    facts_heading = "Reporting lines"
    sizes = {0: 9, 1: 13, 2: 18}
    n_queries = {0: 3, 1: 4, 2: 5}

    def _build(self, rng, difficulty):
        n, k = self.sizes[difficulty], self.n_queries[difficulty]
        for _ in range(MAX_ATTEMPTS):
            people = draw_people(rng, n)
            ids = [f"{g} {s}" for g, s in people]
            parent = random_tree(rng, n, max_children=4, max_depth=4)
            owner = dict(zip(parent, balanced_owners(rng, len(parent))))
            chains = {x: chain_up(parent, x) for x in range(n)}
            cands = []
            for x in range(1, n):
                if len(chains[x]) >= 3 and owner[x] != owner[parent[x]]:
                    cands.append(("skip", x, None, ids[chains[x][2]]))
                for y in range(x + 1, n):
                    if x in chains[y] or y in chains[x]:
                        continue
                    above_y = set(chains[y])
                    dx = next(i for i, a in enumerate(chains[x]) if a in above_y)
                    lca = chains[x][dx]
                    path = chains[x][:dx] + chains[y][:chains[y].index(lca)]
                    if len({owner[c] for c in path}) == 2:
                        cands.append(("common", x, y, ids[lca]))
            if len(cands) < k or not any(c[0] == "skip" for c in cands):
                continue
            skips = [c for c in cands if c[0] == "skip"]
            first = pick_queries(rng, skips, 1)
            chosen = first + pick_queries(rng, [c for c in cands if c not in first], k - 1)
            rng.shuffle(chosen)
            facts = [{"owner": owner[c], "manager": ids[parent[c]], "report": ids[c]}
                     for c in parent]
            rng.shuffle(facts)
            queries = [{"type": "name", "kind": kind, "x": ids[x]} if kind == "skip" else
                       {"type": "name", "kind": kind, "x": ids[x], "y": ids[y]}
                       for kind, x, y, _ in chosen]
            return {
                "entities": {ids[i]: {"a": f"{g} {s}", "b": f"{g[0]}. {s}"}
                             for i, (g, s) in shuffled(rng, people)},
                "facts": facts,
                "queries": queries,
            }
        raise RuntimeError(f"{self.name}: no admissible instance after {MAX_ATTEMPTS} attempts")

    def _encode(self, fact, agent, data):
        ent = data["entities"]
        if agent == "a":
            return [ent[fact["report"]]["a"], ent[fact["manager"]]["a"]]
        return [ent[fact["manager"]]["b"], ent[fact["report"]]["b"]]

    def _ask(self, query, agent, data):
        ent = data["entities"]
        if query["kind"] == "skip":
            return f"Who is {ent[query['x']][agent]}'s manager's manager?"
        x, y = ent[query["x"]][agent], ent[query["y"]][agent]
        return f"Who is the lowest-ranked person who is a manager of both {x} and {y}?"

    def _solve(self, data):
        graph = nx.DiGraph()
        graph.add_nodes_from(data["entities"])
        graph.add_edges_from((f["manager"], f["report"]) for f in data["facts"])
        out = []
        for q in data["queries"]:
            ux = _proper_up(graph, q["x"])
            if q["kind"] == "skip":
                two = sorted(a for a, d in ux.items() if d == 2)
                out.append(two[0] if two else NONE)
                continue
            uy = _proper_up(graph, q["y"])
            common = [a for a in ux if a in uy]
            out.append(min(common, key=lambda a: (ux[a] + uy[a], max(ux[a], uy[a]), a))
                       if common else NONE)
        return out

    def _regenerate(self, data, keep, rng):
        out = dict(data)
        out["facts"] = reattach_tree_edges(data, keep, rng, "manager", "report")
        return out

    def _misread(self, data):
        out = dict(data)
        out["facts"] = [f if f["owner"] == "a" else
                        {**f, "manager": f["report"], "report": f["manager"]}
                        for f in data["facts"]]
        return out


# ----- rail connections -------------------------------------------------------------------
STATIONS = (
    ("North Harbour", "NHB"), ("Old Mill", "OML"), ("Castle Gate", "CGT"),
    ("Riverside", "RVS"), ("Elm Park", "EPK"), ("Market Square", "MSQ"),
    ("Foxholes", "FXH"), ("Saltmarsh", "SLM"), ("Kingsbridge", "KBR"),
    ("Lantern Hill", "LTH"), ("Copper Wharf", "CPW"), ("Weavers Row", "WVR"),
    ("Ashford Cross", "AFX"), ("Bellmoor", "BLM"), ("Greyfriars", "GRF"),
    ("Hollow Oak", "HOK"), ("Juniper Vale", "JNV"), ("Moss End", "MSE"),
    ("Pilgrims Way", "PGW"), ("Quarry Lane", "QRL"), ("Stonebay", "STB"),
    ("Tidewater", "TDW"), ("Upper Fenwick", "UFN"), ("Windle Heath", "WDH"),
)


@register
class RailConnections(RelationalTask):
    """Fewest train rides between stations, with the direct lines split between two agents.

    View ``a`` names stations in full ("North Harbour"); view ``b`` uses three-letter station
    codes ("NHB") and holds the code table. Each question asks for the fewest rides between two
    stations; at generation the answer is checked to be shorter than either agent's own lines
    allow. Score: fraction of questions answered with the right number.

    Examples
    --------
    >>> task = RailConnections()
    >>> inst = task.generate(2)
    >>> task.grade(inst, task.oracle(inst))
    1.0
    """

    name = "relational_rail_connections"
    description = "Fewest train rides between stations; the direct lines are split in two."
    answer_format = QUESTIONS_ANSWER_FORMAT.format(example="1: 3; 2: 2") + (
        " (a whole number of rides, or 'none' if the trip is impossible)"
    )
    conventions = {
        "a": {"station_names": "full names", "line_wording": "'direct train between X and Y'"},
        "b": {"station_names": "three-letter codes", "line_wording": "'X <-> Y' timetable rows"},
    }
    convention_text = {
        "a": "Stations are written by their full names.",
        "b": "Stations are written by their three-letter codes (code table below).",
    }
    setting = (
        "A regional rail network. Every direct line runs in both directions, and one ride "
        "takes you along one direct line. Find the smallest number of rides for each trip."
    )
    templates = {"a": "There is a direct train between {0} and {1}.", "b": "{0} <-> {1}"}
    fact_fields = ("u", "v")
    question_patterns = ((r"What is the smallest number of rides from (?P<x>.+) to (?P<y>.+)\?",
                          {"type": "int"}),)
    roster_heading = "Stations"
    facts_heading = "Direct lines"
    sizes = {0: 9, 1: 12, 2: 16}
    n_queries = {0: 3, 1: 4, 2: 5}

    def _build(self, rng, difficulty):
        n, k = self.sizes[difficulty], self.n_queries[difficulty]
        for _ in range(MAX_ATTEMPTS):
            stations = rng.sample(STATIONS, n)
            ids = [s for s, _ in stations]
            edges = set()
            for i in range(1, n):
                j = rng.randrange(i)
                edges.add((ids[j], ids[i]))
            while len(edges) < n - 1 + n // 3:
                u, v = rng.sample(ids, 2)
                if (v, u) not in edges:
                    edges.add((u, v))
            edges = sorted(edges)
            owner = dict(zip(edges, balanced_owners(rng, len(edges))))
            dist = {}
            for side in ("a", "b", "ab"):
                g = nx.Graph()
                g.add_nodes_from(ids)
                g.add_edges_from(e for e in edges if owner[e] in side)
                dist[side] = dict(nx.all_pairs_shortest_path_length(g))
            cands = []
            for i, x in enumerate(ids):
                for y in ids[i + 1:]:
                    d = dist["ab"][x][y]
                    if d >= 2 and all(dist[s][x].get(y, 99) > d for s in SIDES):
                        cands.append((x, y, d))
            if len(cands) < k:
                continue
            chosen = pick_queries(rng, cands, k)
            facts = [{"owner": owner[e], "u": e[0], "v": e[1]} for e in edges]
            rng.shuffle(facts)
            return {
                "entities": {name: {"a": name, "b": code} for name, code in stations},
                "facts": facts,
                "queries": [{"type": "int", "x": x, "y": y} for x, y, _ in chosen],
            }
        raise RuntimeError(f"{self.name}: no admissible instance after {MAX_ATTEMPTS} attempts")

    def _roster(self, data, agent):
        if agent == "a":
            return list(data["entities"])
        return [f"{forms['b']} = {name}" for name, forms in data["entities"].items()]

    def _encode(self, fact, agent, data):
        ent = data["entities"]
        return [ent[fact["u"]][agent], ent[fact["v"]][agent]]

    def _ask(self, query, agent, data):
        ent = data["entities"]
        return (f"What is the smallest number of rides from {ent[query['x']][agent]} "
                f"to {ent[query['y']][agent]}?")

    def _solve(self, data):
        graph = nx.Graph()
        graph.add_nodes_from(data["entities"])
        graph.add_edges_from((f["u"], f["v"]) for f in data["facts"])
        out = []
        for q in data["queries"]:
            try:
                out.append(nx.shortest_path_length(graph, q["x"], q["y"]))
            except (nx.NetworkXNoPath, nx.NodeNotFound):
                out.append(NONE)
        return out

    def _regenerate(self, data, keep, rng):
        kept = [f for f in data["facts"] if f["owner"] == keep]
        other = "b" if keep == "a" else "a"
        n_other = sum(f["owner"] == other for f in data["facts"])
        ids = sorted(data["entities"])
        graph = nx.Graph()
        graph.add_nodes_from(ids)
        graph.add_edges_from((f["u"], f["v"]) for f in kept)
        comps = [sorted(c) for c in nx.connected_components(graph)]
        comps.sort()
        rng.shuffle(comps)
        new = []
        for i in range(1, len(comps)):  # connect every component (all trips stay possible)
            u, v = rng.choice(comps[rng.randrange(i)]), rng.choice(comps[i])
            new.append((u, v))
            graph.add_edge(u, v)
        while len(new) < n_other:
            u, v = rng.sample(ids, 2)
            if not graph.has_edge(u, v):
                new.append((u, v))
                graph.add_edge(u, v)
        out = dict(data)
        out["facts"] = list(kept) + [{"owner": other, "u": u, "v": v} for u, v in new]
        return out

    def _misread(self, data):
        # Pasted verbatim, b's codes name no station of a's: b's lines join unknown stations.
        out = dict(data)
        ent = data["entities"]
        out["facts"] = [f if f["owner"] == "a" else
                        {**f, "u": "code " + ent[f["u"]]["b"], "v": "code " + ent[f["v"]]["b"]}
                        for f in data["facts"]]
        return out


# ----- aliases ----------------------------------------------------------------------------
CODENAMES = (
    "Red Fox", "the Tailor", "Nightjar", "Blue Heron", "Copperhead", "the Cartographer",
    "Lantern", "Silver Birch", "the Ferryman", "Kestrel", "Old Salt", "Mockingbird",
    "the Clockmaker", "Juniper", "Black Swan", "Tinker", "Driftwood", "the Organist",
    "Marigold", "Stormcrow", "the Beekeeper", "Quicksilver", "Hawthorn", "Pale Moth",
    "the Locksmith", "Sandpiper", "Ember", "the Archivist", "Thistle", "Grey Wolf",
)


@register
class AliasResolution(RelationalTask):
    """Who is behind each alias, when the links between names are split between two agents.

    Each person uses several aliases; a fact links two names of the same person. View ``a``
    writes real names ``Given Surname``; view ``b`` writes them ``SURNAME, Given``. Each question
    gives an alias whose chain of links to a real name runs through both agents' facts.
    Score: fraction of questions answered with the right real name (either form).

    Examples
    --------
    >>> task = AliasResolution()
    >>> inst = task.generate(3)
    >>> task.grade(inst, task.oracle(inst))
    1.0
    """

    name = "relational_alias_resolution"
    description = "Resolve aliases to real people through identity links split in two."
    answer_format = QUESTIONS_ANSWER_FORMAT.format(example="1: Anna Berg; 2: Hugo Dahl")
    conventions = {
        "a": {"name_format": "Given Surname", "link_wording": "'X also goes by Y'"},
        "b": {"name_format": "SURNAME, Given", "link_wording": "'X and Y are the same person'"},
    }
    convention_text = {
        "a": "Real names are written 'Given Surname'.",
        "b": "Real names are written 'SURNAME, Given'.",
    }
    setting = (
        "An intelligence file. Each real person uses several aliases, and no alias is shared "
        "by two people. Every link below says that two names belong to the same person; links "
        "chain (if X is Y and Y is Z, then X is Z). Name the real person behind each alias."
    )
    templates = {"a": "{0} also goes by {1}.", "b": "{0} and {1} are the same person."}
    fact_fields = ("u", "v")
    question_patterns = ((r"Who is really behind the alias (?P<alias>.+)\?", {"type": "name"}),)

    def _text_entities(self, items):
        entities, persons = {}, []
        for item in items:
            name, _, role = item.rpartition(" (")
            entities[name] = {"a": name, "b": name}
            if role == "real name)":
                persons.append(name)
        return entities, {"persons": persons}
    roster_heading = "Names on file"
    facts_heading = "Identity links"
    sizes = {0: (3, 2), 1: (4, 3), 2: (5, 4)}
    n_queries = {0: 3, 1: 4, 2: 5}

    def _build(self, rng, difficulty):
        n_people, max_alias = self.sizes[difficulty]
        k = self.n_queries[difficulty]
        for _ in range(MAX_ATTEMPTS):
            people = draw_people(rng, n_people)
            persons = [f"{g} {s}" for g, s in people]
            n_alias = [rng.randint(2, max_alias) for _ in persons]
            names = rng.sample(CODENAMES, sum(n_alias))
            pool = balanced_owners(rng, sum(n_alias))
            edges, cands = [], []
            for p, m in zip(persons, n_alias):
                nodes = [p] + [names.pop() for _ in range(m)]
                up = {}
                for i in range(1, len(nodes)):
                    j = rng.randrange(i)
                    up[i] = j
                    edges.append([nodes[j], nodes[i], pool.pop()])
                owner = {nodes[i]: e[2] for i, e in zip(range(1, len(nodes)), edges[-m:])}
                for i in range(1, len(nodes)):
                    seen, c = set(), i
                    while c != 0:
                        seen.add(owner[nodes[c]])
                        c = up[c]
                    if len(seen) == 2:
                        cands.append((nodes[i], p))
            if len(cands) < k:
                continue
            chosen = pick_queries(rng, cands, k)
            rng.shuffle(edges)
            facts = [{"owner": o, "u": u, "v": v} if rng.random() < 0.5 else
                     {"owner": o, "u": v, "v": u} for u, v, o in edges]
            entities = {p: {"a": p, "b": f"{s.upper()}, {g}"} for p, (g, s) in zip(persons, people)}
            aliases = sorted({n for f in facts for n in (f["u"], f["v"])} - set(persons))
            entities.update({a: {"a": a, "b": a} for a in aliases})
            return {
                "entities": entities,
                "persons": persons,
                "facts": facts,
                "queries": [{"type": "name", "alias": a} for a, _ in chosen],
            }
        raise RuntimeError(f"{self.name}: no admissible instance after {MAX_ATTEMPTS} attempts")

    def _roster(self, data, agent):
        persons = set(data["persons"])
        return [f"{forms[agent]} ({'real name' if ent in persons else 'alias'})"
                for ent, forms in data["entities"].items()]

    def _encode(self, fact, agent, data):
        ent = data["entities"]
        return [ent[fact["u"]][agent], ent[fact["v"]][agent]]

    def _ask(self, query, agent, data):
        return f"Who is really behind the alias {query['alias']}?"

    def _solve(self, data):
        graph = nx.Graph()
        graph.add_nodes_from(data["entities"])
        graph.add_edges_from((f["u"], f["v"]) for f in data["facts"])
        persons = set(data["persons"])
        out = []
        for q in data["queries"]:
            real = sorted(nx.node_connected_component(graph, q["alias"]) & persons)
            out.append(real[0] if real else NONE)
        return out

    def _regenerate(self, data, keep, rng):
        kept = [f for f in data["facts"] if f["owner"] == keep]
        other = "b" if keep == "a" else "a"
        graph = nx.Graph()
        graph.add_nodes_from(data["entities"])
        graph.add_edges_from((f["u"], f["v"]) for f in kept)
        persons = set(data["persons"])
        comps = sorted(sorted(c) for c in nx.connected_components(graph))
        with_person = [c for c in comps if persons & set(c)]
        new = []
        for comp in comps:
            if persons & set(comp):
                continue
            target = rng.choice(with_person)
            u, v = rng.choice(comp), rng.choice(target)
            new.append({"owner": other, "u": u, "v": v})
        rng.shuffle(new)
        out = dict(data)
        out["facts"] = list(kept) + new
        return out

    def _misread(self, data):
        # Pasted verbatim, b's 'SURNAME, Given' names no real person on a's list.
        out = dict(data)
        persons, ent = set(data["persons"]), data["entities"]

        def rename(x: str) -> str:
            return "written " + ent[x]["b"] if x in persons else x

        out["facts"] = [f if f["owner"] == "a" else {**f, "u": rename(f["u"]), "v": rename(f["v"])}
                        for f in data["facts"]]
        return out


# ----- course prerequisites ---------------------------------------------------------------
COURSE_TITLES = (
    "Intro to Programming", "Discrete Mathematics", "Data Structures", "Algorithms",
    "Linear Algebra", "Calculus I", "Calculus II", "Probability", "Statistics",
    "Operating Systems", "Computer Networks", "Databases", "Compilers", "Machine Learning",
    "Computer Graphics", "Cryptography", "Numerical Methods", "Logic", "Signal Processing",
    "Robotics", "Distributed Systems", "Software Engineering", "Computer Architecture",
    "Optimisation", "Information Theory",
)
DEPARTMENTS = ("CS", "MATH", "STAT", "ENG")


@register
class CoursePrerequisites(RelationalTask):
    """Earliest semester for courses whose prerequisite rules are split between two agents.

    View ``a`` writes courses by code ("CS 210") and "X is a prerequisite for Y"; view ``b``
    writes them by title ("Data Structures") and "Y requires X". Only view ``a`` holds the
    catalogue that maps codes to titles. A course can be taken in the first semester after all
    its prerequisites were passed; the answer is the longest prerequisite chain plus one, checked
    at generation to be longer than either agent's rules alone give. Score: fraction of
    questions answered with the right semester number.

    Examples
    --------
    >>> task = CoursePrerequisites()
    >>> inst = task.generate(4)
    >>> task.grade(inst, task.oracle(inst))
    1.0
    """

    name = "relational_course_prerequisites"
    description = "Earliest semester for courses whose prerequisite rules are split in two."
    answer_format = QUESTIONS_ANSWER_FORMAT.format(example="1: 3; 2: 4") + (
        " (semesters are numbered from 1; 'none' if the course can never be taken)"
    )
    conventions = {
        "a": {"course_names": "codes (catalogue held)", "relation_wording": "prerequisite-first"},
        "b": {"course_names": "titles", "relation_wording": "course-first ('requires')"},
    }
    convention_text = {
        "a": ("Courses are written by code (catalogue below); each rule names the "
              "prerequisite first."),
        "b": "Courses are written by title; each rule names the course first.",
    }
    setting = (
        "A degree programme. A student may take any number of courses in a semester, but only "
        "courses whose prerequisites were all passed in earlier semesters. The first semester "
        "is semester 1. For each question give the earliest semester in which the course can "
        "be taken."
    )
    templates = {"a": "{0} is a prerequisite for {1}.", "b": "{0} requires {1}."}
    fact_fields = ("pre", "course")
    question_patterns = ((r"What is the earliest semester in which (?P<course>.+) can be taken\?",
                          {"type": "int"}),)

    def _text_entities(self, items):
        pairs = [item.split(" = ", 1) for item in items]
        return {code: {"a": code, "b": title} for code, title in pairs}, {}
    roster_heading = "Courses"
    facts_heading = "Prerequisite rules"
    sizes = {0: 8, 1: 11, 2: 15}
    n_queries = {0: 2, 1: 3, 2: 4}

    @staticmethod
    def _semesters(nodes, edges) -> dict[str, int] | None:
        graph = nx.DiGraph()
        graph.add_nodes_from(nodes)
        graph.add_edges_from(edges)
        if not nx.is_directed_acyclic_graph(graph):
            return None
        sem: dict[str, int] = {}
        for c in nx.topological_sort(graph):
            sem[c] = 1 + max((sem[p] for p in graph.predecessors(c)), default=0)
        return sem

    def _build(self, rng, difficulty):
        n, k = self.sizes[difficulty], self.n_queries[difficulty]
        for _ in range(MAX_ATTEMPTS):
            titles = rng.sample(COURSE_TITLES, n)
            numbers = rng.sample(range(100, 500), n)
            codes = [f"{rng.choice(DEPARTMENTS)} {num}" for num in numbers]
            if len(set(codes)) < n:
                continue
            pairs = [(codes[j], codes[i]) for i in range(1, n)
                     for j in rng.sample(range(i), min(i, rng.choice((1, 1, 2))))]
            edges = [(u, v, o) for (u, v), o in zip(pairs, balanced_owners(rng, len(pairs)))]
            sem = {s: self._semesters(codes, [(u, v) for u, v, o in edges if o in s])
                   for s in ("a", "b", "ab")}
            cands = [(c, sem["ab"][c]) for c in codes
                     if sem["ab"][c] >= 3 and all(sem[s][c] < sem["ab"][c] for s in SIDES)]
            if len(cands) < k:
                continue
            chosen = pick_queries(rng, cands, k)
            facts = [{"owner": o, "pre": u, "course": v} for u, v, o in edges]
            rng.shuffle(facts)
            return {
                "entities": {c: {"a": c, "b": t} for c, t in zip(codes, titles)},
                "facts": facts,
                "queries": [{"type": "int", "course": c} for c, _ in chosen],
            }
        raise RuntimeError(f"{self.name}: no admissible instance after {MAX_ATTEMPTS} attempts")

    def _roster(self, data, agent):
        if agent == "a":
            return [f"{code} = {forms['b']}" for code, forms in data["entities"].items()]
        return [forms["b"] for forms in data["entities"].values()]

    def _encode(self, fact, agent, data):
        ent = data["entities"]
        if agent == "a":
            return [ent[fact["pre"]]["a"], ent[fact["course"]]["a"]]
        return [ent[fact["course"]]["b"], ent[fact["pre"]]["b"]]

    def _ask(self, query, agent, data):
        return (f"What is the earliest semester in which "
                f"{data['entities'][query['course']][agent]} can be taken?")

    def _solve(self, data):
        sem = self._semesters(data["entities"], [(f["pre"], f["course"]) for f in data["facts"]])
        if sem is None:
            return [NONE for _ in data["queries"]]
        return [sem.get(q["course"], 1) for q in data["queries"]]

    def _regenerate(self, data, keep, rng):
        kept = [f for f in data["facts"] if f["owner"] == keep]
        other = "b" if keep == "a" else "a"
        n_other = sum(f["owner"] == other for f in data["facts"])
        order = random_linear_extension(rng, sorted(data["entities"]),
                                        [(f["pre"], f["course"]) for f in kept])
        have = {(f["pre"], f["course"]) for f in kept}
        new = []
        while len(new) < n_other:
            i, j = sorted(rng.sample(range(len(order)), 2))
            if (order[i], order[j]) not in have:
                have.add((order[i], order[j]))
                new.append({"owner": other, "pre": order[i], "course": order[j]})
        out = dict(data)
        out["facts"] = list(kept) + new
        return out

    def _misread(self, data):
        out = dict(data)
        out["facts"] = [f if f["owner"] == "a" else
                        {**f, "pre": f["course"], "course": f["pre"]} for f in data["facts"]]
        return out
