"""Relational tasks about order: event precedence, age comparisons, install order, dated timeline.

Each task hides a (partial) order, hands its facts to two agents in different wordings or date
formats, and asks for an order or for comparisons that need facts of both agents. Ground truth
by topological sort (networkx). See :mod:`harness.tasks.relational.common` for the answer
formats and the pair-concordance score of order answers.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

import networkx as nx

from harness.registry import register
from harness.tasks.relational.common import (
    GIVEN_NAMES,
    MAX_ATTEMPTS,
    NONE,
    SIDES,
    RelationalTask,
    balanced_owners,
    compact,
)
from harness.tasks.relational.structures import QUESTIONS_ANSWER_FORMAT, random_linear_extension

ORDER_FORMAT = "{what} separated by commas, {first} first, e.g. '{example}'"

EVENTS = (
    "Harbour Fire", "Bridge Opening", "Comet Sighting", "Grain Riot", "Royal Wedding",
    "Great Flood", "Mint Founding", "Plague Year", "Cathedral Collapse", "Salt Strike",
    "Lighthouse Lighting", "Silver Rush", "Printing Press Arrival", "Border Treaty",
    "Eclipse Festival", "Railway Strike", "Library Burning", "Tram Inauguration",
    "Dam Breach", "Clocktower Completion", "Fishermen's Revolt", "First Census",
    "Canal Dredging", "Spring Fair", "Tower Lottery", "Observatory Opening",
)


def order_of(nodes: list[str], edges: list[tuple[str, str]]) -> list[str]:
    """The order of a digraph's nodes: the lexicographically smallest topological order if it
    is acyclic; otherwise the strongly connected components in topological order, each sorted
    (what a solver can still write down from contradictory facts)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    if nx.is_directed_acyclic_graph(graph):
        return list(nx.lexicographical_topological_sort(graph))
    cond = nx.condensation(graph)
    members = cond.graph["mapping"]
    groups: dict[int, list[str]] = {}
    for node, comp in members.items():
        groups.setdefault(comp, []).append(node)
    order = nx.lexicographical_topological_sort(cond, key=lambda c: min(groups[c]))
    return [node for comp in order for node in sorted(groups[comp])]


def chain_facts(rng: random.Random, order: list[str], n_extra: int) -> list[tuple[str, str, str]]:
    """Facts (earlier, later, owner) fixing ``order`` uniquely: every consecutive pair (each one
    necessary) plus ``n_extra`` redundant non-consecutive pairs; both owners get a necessary one."""
    n = len(order)
    owners = balanced_owners(rng, n - 1)
    facts = [(order[i], order[i + 1], owners[i]) for i in range(n - 1)]
    extra = [(i, j) for i in range(n) for j in range(i + 2, n)]
    for i, j in rng.sample(extra, min(n_extra, len(extra))):
        facts.append((order[i], order[j], rng.choice(SIDES)))
    rng.shuffle(facts)
    return facts


def regenerate_chain(data: dict[str, Any], keep: str, rng: random.Random,
                     first: str, second: str) -> list[dict[str, Any]]:
    """Counterfactual of a chain-of-facts order: a new random order consistent with the kept
    facts; the other agent gets every consecutive pair of it that the kept facts do not state."""
    kept = [f for f in data["facts"] if f["owner"] == keep]
    other = "b" if keep == "a" else "a"
    order = random_linear_extension(rng, sorted(data["entities"]),
                                    [(f[first], f[second]) for f in kept])
    have = {(f[first], f[second]) for f in kept}
    new = [{"owner": other, first: u, second: v} for u, v in zip(order, order[1:])
           if (u, v) not in have]
    rng.shuffle(new)
    return list(kept) + new


def _swap_b(data: dict[str, Any], x: str, y: str) -> dict[str, Any]:
    out = dict(data)
    out["facts"] = [f if f["owner"] == "a" else {**f, x: f[y], y: f[x]} for f in data["facts"]]
    return out


class _ChainOrderTask(RelationalTask):
    """A strict order stated by (x, y) facts named by ``fact_fields`` (x before y): view ``a``
    writes x first, view ``b`` y first; the facts are a chain (see :func:`chain_facts`)."""

    def _encode(self, fact, agent, data):
        x, y = self.fact_fields
        if agent == "a":
            return [fact[x], fact[y]]
        return [fact[y], fact[x]]

    def _regenerate(self, data, keep, rng):
        out = dict(data)
        out["facts"] = regenerate_chain(data, keep, rng, *self.fact_fields)
        return out

    def _misread(self, data):
        return _swap_b(data, *self.fact_fields)


# ----- precedence of events ---------------------------------------------------------------
@register
class EventPrecedence(_ChainOrderTask):
    """Chronological order of events from 'before' facts (one agent) and 'after' facts (other).

    View ``a`` writes "X happened before Y"; view ``b`` writes "Y happened after X". The facts
    fix one order; every consecutive pair is stated exactly once, so each agent's facts are
    necessary. Score: fraction of event pairs put in the right relative order (1 exactly for
    the true order; see :func:`~harness.tasks.relational.common.pair_concordance`).

    Examples
    --------
    >>> task = EventPrecedence()
    >>> inst = task.generate(0)
    >>> task.grade(inst, task.oracle(inst)), task.grade(inst, task.oracle(inst)[::-1])
    (1.0, 0.0)
    """

    name = "relational_event_precedence"
    kind = "order"
    description = "Order events from 'before' facts and 'after' facts held by different agents."
    answer_format = ORDER_FORMAT.format(what="every event", first="earliest",
                                        example="Great Flood, Spring Fair, Harbour Fire")
    conventions = {
        "a": {"relation_wording": "earlier-first ('happened before')"},
        "b": {"relation_wording": "later-first ('happened after')"},
    }
    convention_text = {
        "a": "Each fact names the earlier event first ('X happened before Y').",
        "b": "Each fact names the later event first ('X happened after Y').",
    }
    setting = (
        "A town chronicle. No two events happened at the same time, and the facts below fix "
        "one chronological order of all the events. Put every event in order."
    )
    templates = {"a": "{0} happened before {1}.", "b": "{0} happened after {1}."}
    fact_fields = ("earlier", "later")

    def _text_queries(self, lines):
        return [], {}
    roster_heading = "Events"
    facts_heading = "Facts"
    questions_heading = "Task"
    sizes = {0: 6, 1: 8, 2: 11}
    extras = {0: 1, 1: 2, 2: 3}

    def _build(self, rng, difficulty):
        events = rng.sample(EVENTS, self.sizes[difficulty])
        order = list(events)
        rng.shuffle(order)
        facts = chain_facts(rng, order, self.extras[difficulty])
        return {
            "entities": {e: {"a": e, "b": e} for e in events},
            "facts": [{"owner": o, "earlier": u, "later": v} for u, v, o in facts],
            "queries": [],
        }

    def _questions(self, data, agent):
        return ["List all the events in chronological order, earliest first."]

    def _solve(self, data):
        return order_of(list(data["entities"]), [(f["earlier"], f["later"]) for f in data["facts"]])


# ----- transitive comparisons -------------------------------------------------------------
@register
class TransitiveComparison(_ChainOrderTask):
    """Who is older, from 'older than' facts (one agent) and 'younger than' facts (the other).

    View ``a`` writes "X is older than Y"; view ``b`` writes "Y is younger than X". Every
    question compares two people whose comparison needs a chain of facts from both agents.
    Score: fraction of questions answered with the right person.

    Examples
    --------
    >>> task = TransitiveComparison()
    >>> inst = task.generate(0)
    >>> task.grade(inst, task.oracle(inst))
    1.0
    """

    name = "relational_transitive_comparison"
    description = "Who is older: chain 'older than' and 'younger than' facts split in two."
    answer_format = QUESTIONS_ANSWER_FORMAT.format(example="1: Anna; 2: Hugo")
    conventions = {
        "a": {"relation_wording": "older-first ('is older than')"},
        "b": {"relation_wording": "younger-first ('is younger than')"},
    }
    convention_text = {
        "a": "Each fact names the older person first ('X is older than Y').",
        "b": "Each fact names the younger person first ('X is younger than Y').",
    }
    setting = (
        "A group of friends, no two of the same age. Comparisons chain: if X is older than Y "
        "and Y is older than Z, then X is older than Z. Answer each question with one name."
    )
    templates = {"a": "{0} is older than {1}.", "b": "{0} is younger than {1}."}
    fact_fields = ("older", "younger")
    question_patterns = ((r"Who is older, (?P<x>.+) or (?P<y>.+)\?", {"type": "name"}),)
    facts_heading = "Comparisons"
    sizes = {0: 7, 1: 9, 2: 12}
    n_queries = {0: 3, 1: 4, 2: 5}
    extras = {0: 1, 1: 1, 2: 2}

    def _build(self, rng, difficulty):
        n, k = self.sizes[difficulty], self.n_queries[difficulty]
        for _ in range(MAX_ATTEMPTS):
            people = rng.sample(GIVEN_NAMES, n)
            order = list(people)
            rng.shuffle(order)  # oldest first
            facts = chain_facts(rng, order, self.extras[difficulty])
            below = {}
            for side in SIDES:  # who each person is known to be older than, per view alone
                graph = nx.DiGraph()
                graph.add_nodes_from(people)
                graph.add_edges_from((u, v) for u, v, o in facts if o == side)
                below[side] = {p: nx.descendants(graph, p) for p in people}
            cands = [(order[i], order[j]) for i in range(n) for j in range(i + 2, n)
                     if all(order[j] not in below[s][order[i]] for s in SIDES)]
            if len(cands) < k:
                continue
            chosen = rng.sample(cands, k)
            queries = []
            for x, y in chosen:
                if rng.random() < 0.5:
                    x, y = y, x
                queries.append({"type": "name", "x": x, "y": y})
            return {
                "entities": {p: {"a": p, "b": p} for p in people},
                "facts": [{"owner": o, "older": u, "younger": v} for u, v, o in facts],
                "queries": queries,
            }
        raise RuntimeError(f"{self.name}: no admissible instance after {MAX_ATTEMPTS} attempts")

    def _ask(self, query, agent, data):
        return f"Who is older, {query['x']} or {query['y']}?"

    def _solve(self, data):
        graph = nx.DiGraph()
        graph.add_nodes_from(data["entities"])
        graph.add_edges_from((f["older"], f["younger"]) for f in data["facts"])
        out = []
        for q in data["queries"]:
            xy, yx = nx.has_path(graph, q["x"], q["y"]), nx.has_path(graph, q["y"], q["x"])
            out.append(q["x"] if xy and not yx else q["y"] if yx and not xy else NONE)
        return out

    def _wrong_value(self, data, qi, value):
        q = data["queries"][qi]
        return q["y"] if compact(value) == compact(q["x"]) else q["x"]


# ----- package install order --------------------------------------------------------------
PKG_HEADS = ("data", "net", "auth", "log", "json", "http", "cache", "image", "text", "math",
             "plot", "crypto", "task", "sql", "xml", "yaml", "time", "graph", "mail", "geo")
PKG_TAILS = ("core", "utils", "kit", "io", "lite", "base", "tools", "api", "engine", "parse")


def closure(edges: list[tuple[str, str]], target: str) -> set[str]:
    """``target`` and everything it needs, following (package, dependency) edges."""
    graph = nx.DiGraph()
    graph.add_node(target)
    graph.add_edges_from(edges)
    return nx.descendants(graph, target) | {target}


@register
class InstallOrder(RelationalTask):
    """Install order of a package and everything it needs, with dependencies split in two.

    View ``a`` writes "x-core depends on y-utils" (kebab-case names, dependent first); view ``b``
    writes "YUtils is required by XCore" (CamelCase names, dependency first). The answer lists
    the target and everything it needs, directly or indirectly, each after its dependencies;
    any valid order is correct. Score: Jaccard index of the listed set against the required set,
    times the fraction of dependency links inside the required set whose two packages are both
    listed in the right order. Unknown names count against the Jaccard index.

    Examples
    --------
    >>> task = InstallOrder()
    >>> inst = task.generate(0)
    >>> answer = task.oracle(inst)
    >>> task.grade(inst, answer), task.grade(inst, answer[:-1]) < 1
    (1.0, True)
    """

    name = "relational_install_order"
    kind = "order"
    description = "Install order for a package whose dependency list is split between agents."
    answer_format = ORDER_FORMAT.format(what="every package to install", first="first installed",
                                        example="json-lite, net-core, http-api")
    conventions = {
        "a": {"package_names": "kebab-case (net-core)", "relation_wording": "dependent-first"},
        "b": {"package_names": "CamelCase (NetCore)", "relation_wording": "dependency-first"},
    }
    convention_text = {
        "a": "Packages are written in kebab-case (net-core); each line names the dependent first.",
        "b": "Packages are written in CamelCase (NetCore); each line names the dependency first.",
    }
    setting = (
        "A package index. A package can be installed only after every package it depends on "
        "is installed; dependencies chain. Nothing is installed yet."
    )
    templates = {"a": "{0} depends on {1}.", "b": "{0} is required by {1}."}
    fact_fields = ("package", "dependency")

    def _text_queries(self, lines):
        m = re.match(r"List every package that must be installed to install (\S+) \(", lines[0])
        if m is None:
            raise ValueError(f"unreadable task line: {lines[0]!r}")
        return [], {"target": m.group(1)}
    roster_heading = "Packages"
    facts_heading = "Dependencies"
    questions_heading = "Task"
    sizes = {0: 8, 1: 11, 2: 15}

    def _build(self, rng, difficulty):
        n = self.sizes[difficulty]
        for _ in range(MAX_ATTEMPTS):
            heads = rng.sample(PKG_HEADS, n)
            pkgs = [(h, rng.choice(PKG_TAILS)) for h in heads]
            ids = [f"{h}-{t}" for h, t in pkgs]
            pairs = [(ids[i], ids[j]) for i in range(1, n)
                     for j in rng.sample(range(i), min(i, rng.choice((0, 1, 1, 2))))]
            edges = [(u, v, o) for (u, v), o in zip(pairs, balanced_owners(rng, len(pairs)))]
            full = [(u, v) for u, v, _ in edges]
            part = {s: [(u, v) for u, v, o in edges if o == s] for s in SIDES}
            cands = []
            for t in ids:
                need = closure(full, t)
                if len(need) >= 4 and all(closure(part[s], t) != need for s in SIDES):
                    cands.append(t)
            if not cands:
                continue
            target = rng.choice(cands)
            facts = [{"owner": o, "package": u, "dependency": v} for u, v, o in edges]
            rng.shuffle(facts)
            order = list(range(n))
            rng.shuffle(order)
            return {
                "entities": {ids[i]: {"a": ids[i], "b": pkgs[i][0].capitalize()
                                      + pkgs[i][1].capitalize()} for i in order},
                "facts": facts,
                "queries": [],
                "target": target,
            }
        raise RuntimeError(f"{self.name}: no admissible instance after {MAX_ATTEMPTS} attempts")

    def _questions(self, data, agent):
        target = data["entities"][data["target"]][agent]
        return [f"List every package that must be installed to install {target} (including "
                f"{target} itself), in an order in which they can be installed."]

    def _encode(self, fact, agent, data):
        ent = data["entities"]
        if agent == "a":
            return [ent[fact["package"]]["a"], ent[fact["dependency"]]["a"]]
        return [ent[fact["dependency"]]["b"], ent[fact["package"]]["b"]]

    def _solve(self, data):
        edges = [(f["package"], f["dependency"]) for f in data["facts"]]
        need = closure(edges, data["target"])
        return order_of(sorted(need), [(v, u) for u, v in edges if u in need and v in need])

    def _score_order(self, data, truth, ids):
        need = closure([(f["package"], f["dependency"]) for f in data["facts"]], data["target"])
        pos: dict[str, int] = {}
        unknown = 0
        for item in ids:
            if item is None:
                unknown += 1
            elif item not in pos:
                pos[item] = len(pos)
        listed = set(pos)
        jac = len(need & listed) / (len(need | listed) + unknown)
        links = [(f["package"], f["dependency"]) for f in data["facts"]
                 if f["package"] in need and f["dependency"] in need]
        if not links:
            return jac
        good = sum(1 for p, d in links if p in pos and d in pos and pos[d] < pos[p])
        return jac * good / len(links)

    def corrupt(self, instance, answer):
        """The correct order without its last package (the target)."""
        return list(answer)[:-1]

    def _regenerate(self, data, keep, rng):
        kept = [f for f in data["facts"] if f["owner"] == keep]
        other = "b" if keep == "a" else "a"
        n_other = sum(f["owner"] == other for f in data["facts"])
        order = random_linear_extension(rng, sorted(data["entities"]),
                                        [(f["dependency"], f["package"]) for f in kept])
        have = {(f["package"], f["dependency"]) for f in kept}
        new: list[dict[str, Any]] = []
        while len(new) < n_other:
            i, j = sorted(rng.sample(range(len(order)), 2))
            if (order[j], order[i]) not in have:
                have.add((order[j], order[i]))
                new.append({"owner": other, "package": order[j], "dependency": order[i]})
        out = dict(data)
        out["facts"] = list(kept) + new
        return out

    def _misread(self, data):
        return _swap_b(data, "package", "dependency")


# ----- timeline with two date formats -----------------------------------------------------
def _draw_date(rng: random.Random, year: int) -> dt.date:
    month = rng.randint(1, 12)
    day = rng.randint(1, 12) if rng.random() < 0.85 else rng.randint(13, 28)
    return dt.date(year, month, day)


@register
class TimelineDates(RelationalTask):
    """Chronological order of events whose dates the two agents write in different formats.

    View ``a`` writes dates day first (DD/MM/YYYY); view ``b`` month first (MM/DD/YYYY). Each
    agent knows the dates of only some events, so neither can place its events among the
    other's. Most days are 12 or less, so a date read in the wrong format is still a valid,
    wrong date. Score: fraction of event pairs in the right relative order.

    Examples
    --------
    >>> task = TimelineDates()
    >>> inst = task.generate(0)
    >>> task.grade(inst, task.oracle(inst))
    1.0
    """

    name = "relational_timeline_dates"
    kind = "order"
    description = "Order events dated DD/MM/YYYY by one agent and MM/DD/YYYY by the other."
    answer_format = ORDER_FORMAT.format(what="every event", first="earliest",
                                        example="Great Flood, Spring Fair, Harbour Fire")
    conventions = {
        "a": {"date_format": "DD/MM/YYYY"},
        "b": {"date_format": "MM/DD/YYYY"},
    }
    convention_text = {
        "a": "Dates are written day/month/year (DD/MM/YYYY).",
        "b": "Dates are written month/day/year (MM/DD/YYYY).",
    }
    setting = (
        "A city archive. Each event below happened on one day; no two on the same day. "
        "Put all the events in chronological order."
    )
    templates = {"a": "{0} took place on {1}.", "b": "{0} took place on {1}."}
    fact_fields = ("event", "date")

    def _text_fact(self, args):
        day = dt.datetime.strptime(args[1], "%d/%m/%Y").date()
        return {"owner": "a", "event": args[0], "date": day.isoformat()}

    def _text_queries(self, lines):
        return [], {}
    roster_heading = "Events"
    facts_heading = "Dated records"
    questions_heading = "Task"
    sizes = {0: 6, 1: 8, 2: 11}

    def _build(self, rng, difficulty):
        n = self.sizes[difficulty]
        events = rng.sample(EVENTS, n)
        year = rng.randint(1890, 2020)
        dates: set[dt.date] = set()
        while len(dates) < n:
            dates.add(_draw_date(rng, year + rng.randint(0, 1)))
        dated = sorted(dates)
        rng.shuffle(dated)
        owners = balanced_owners(rng, n)
        facts = [{"owner": o, "event": e, "date": d.isoformat()}
                 for e, d, o in zip(events, dated, owners)]
        rng.shuffle(facts)
        return {"entities": {e: {"a": e, "b": e} for e in events}, "facts": facts, "queries": []}

    def _questions(self, data, agent):
        return ["List all the events in chronological order, earliest first."]

    def _encode(self, fact, agent, data):
        day = dt.date.fromisoformat(fact["date"])
        text = day.strftime("%d/%m/%Y") if agent == "a" else day.strftime("%m/%d/%Y")
        return [fact["event"], text]

    def _solve(self, data):
        return [f["event"] for f in sorted(data["facts"], key=lambda f: (f["date"], f["event"]))]

    def _regenerate(self, data, keep, rng):
        kept = [f for f in data["facts"] if f["owner"] == keep]
        taken = {f["date"] for f in kept}
        year = min(dt.date.fromisoformat(f["date"]).year for f in data["facts"])
        new = []
        for f in data["facts"]:
            if f["owner"] == keep:
                continue
            while True:
                day = _draw_date(rng, year + rng.randint(0, 1)).isoformat()
                if day not in taken:
                    break
            taken.add(day)
            new.append({**f, "date": day})
        out = dict(data)
        out["facts"] = list(kept) + new
        return out

    def _misread(self, data):
        out = dict(data)
        facts = []
        for f in data["facts"]:
            day = dt.date.fromisoformat(f["date"])
            if f["owner"] == "b" and day.day <= 12:
                day = dt.date(day.year, day.day, day.month)  # MM/DD read as DD/MM
            facts.append({**f, "date": day.isoformat()})
        out["facts"] = facts
        return out


__all__ = ["EventPrecedence", "InstallOrder", "TimelineDates", "TransitiveComparison", "order_of"]
