"""Relational tasks over graphs: a rail network, identity links between aliases, courses.

Each task hides a graph, hands each edge to one agent, and asks questions whose answer needs
edges of both agents (checked at generation). Ground truth by networkx graph search. See
:mod:`harness.tasks.relational.common` for the shared answer format and scoring.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from harness.registry import register
from harness.tasks.relational.common import (
    MAX_ATTEMPTS,
    NONE,
    SIDES,
    RelationalTask,
    balanced_owners,
    draw_people,
)
from harness.tasks.relational.structures import (
    QUESTIONS_ANSWER_FORMAT,
    pick_queries,
    random_linear_extension,
)

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
            edge_set: set[tuple[str, str]] = set()
            for i in range(1, n):
                j = rng.randrange(i)
                edge_set.add((ids[j], ids[i]))
            while len(edge_set) < n - 1 + n // 3:
                u, v = rng.sample(ids, 2)
                if (v, u) not in edge_set:
                    edge_set.add((u, v))
            edges = sorted(edge_set)
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
            # prerequisites only point to earlier courses, so every graph here is acyclic
            sem = {s: self._semesters(codes, [(u, v) for u, v, o in edges if o in s]) or {}
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
        new: list[dict[str, Any]] = []
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
