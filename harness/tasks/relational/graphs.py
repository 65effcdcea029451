"""Relational tasks over trees: a family tree and an org chart.

Each task hides a tree, hands each edge to one agent, and asks questions whose answer needs
edges of both agents (checked at generation: every question's answer differs from what either
agent's edges alone give). Ground truth by networkx graph search. See
:mod:`harness.tasks.relational.common` for the shared answer format and scoring; the random
structures come from :mod:`harness.tasks.relational.structures` (re-exported here).
"""

from __future__ import annotations

import random
from typing import Any

import networkx as nx

from harness.registry import register
from harness.tasks.relational.common import (
    MAX_ATTEMPTS,
    NONE,
    RelationalTask,
    balanced_owners,
    compact,
    draw_people,
)
from harness.tasks.relational.structures import (
    QUESTIONS_ANSWER_FORMAT,
    chain_up,
    pick_queries,
    random_linear_extension,
    random_tree,
    reattach_tree_edges,
    shuffled,
    up_distances,
)

__all__ = [  # the random structures are re-exported from their old home
    "QUESTIONS_ANSWER_FORMAT",
    "random_tree",
    "shuffled",
    "chain_up",
    "up_distances",
    "random_linear_extension",
    "pick_queries",
    "reattach_tree_edges",
    "FamilyTree",
    "OrgChart",
]


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
            cands: list[tuple[str, int, int | None, str]] = []
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
