"""Relational tasks over records: ownership through transfers, club memberships.

See :mod:`harness.tasks.relational.common` for the shared answer format and scoring.
"""

from __future__ import annotations

import networkx as nx

from harness.registry import register
from harness.tasks.relational.common import (
    MAX_ATTEMPTS,
    SIDES,
    RelationalTask,
    balanced_owners,
    draw_people,
)
from harness.tasks.relational.structures import QUESTIONS_ANSWER_FORMAT

ITEMS = (
    "blue vase", "brass telescope", "oak chest", "silver locket", "old atlas", "jade figurine",
    "pocket watch", "oil painting", "violin", "chess set", "music box", "copper kettle",
    "ivory comb", "tin soldier", "globe",
)


# ----- ownership through transfers ------------------------------------------------------
def final_owner(origin: str, transfers: list[tuple[str, str]]) -> str:
    """Follow an item's transfers (seller, buyer) from its first owner; at a fork (only in
    inconsistent data) take the alphabetically first buyer; each transfer is used once."""
    graph = nx.MultiDiGraph()
    graph.add_edges_from(transfers)
    current, used = origin, set()
    while current in graph:
        options = sorted((buyer, key) for _, buyer, key in graph.out_edges(current, keys=True)
                         if (current, buyer, key) not in used)
        if not options:
            break
        buyer, key = options[0]
        used.add((current, buyer, key))
        current = buyer
    return current


@register
class OwnershipTransfers(RelationalTask):
    """Who owns each item at the end, when the record of sales is split between two agents.

    View ``a`` writes "X sold the item to Y" (seller first, names ``Given Surname``); view ``b``
    writes "Y bought the item from X" (buyer first, surnames only). Each item changed hands
    along a chain of distinct owners, with sales known to both agents. Score: fraction of items
    whose final owner is named correctly.

    Examples
    --------
    >>> task = OwnershipTransfers()
    >>> inst = task.generate(0)
    >>> task.grade(inst, task.oracle(inst))
    1.0
    """

    name = "relational_ownership_transfers"
    description = "Final owner of each item after sales recorded partly by each agent."
    answer_format = QUESTIONS_ANSWER_FORMAT.format(example="1: Anna Berg; 2: Hugo Dahl")
    conventions = {
        "a": {"name_format": "Given Surname", "relation_wording": "seller-first ('sold ... to')"},
        "b": {"name_format": "Surname", "relation_wording": "buyer-first ('bought ... from')"},
    }
    convention_text = {
        "a": "Names are written 'Given Surname'; each sale names the seller first.",
        "b": "People are written by surname only; each sale names the buyer first.",
    }
    setting = (
        "An auction house ledger. Each item had a known first owner and then changed hands "
        "one sale at a time; nobody owned the same item twice. Name each item's final owner."
    )
    templates = {"a": "{0} sold the {1} to {2}.", "b": "{0} bought the {1} from {2}."}
    fact_fields = ("seller", "item", "buyer")
    question_patterns = (
        (r"Who owns the (?P<item>.+) at the end\? \(Its first owner was (?P<origin>.+)\.\)",
         {"type": "name"}),
    )
    facts_heading = "Sales"
    sizes = {0: (7, 3, 3), 1: (9, 4, 4), 2: (12, 5, 5)}

    def _build(self, rng, difficulty):
        n_people, n_items, max_len = self.sizes[difficulty]
        people = draw_people(rng, n_people)
        ids = [f"{g} {s}" for g, s in people]
        items = rng.sample(ITEMS, n_items)
        facts, queries = [], []
        for item in items:
            length = rng.randint(2, max_len)
            chain = rng.sample(ids, length + 1)
            owners = balanced_owners(rng, length)
            facts += [{"owner": o, "item": item, "seller": u, "buyer": v}
                      for u, v, o in zip(chain, chain[1:], owners)]
            queries.append({"type": "name", "item": item, "origin": chain[0]})
        rng.shuffle(facts)
        return {
            "entities": {i: {"a": i, "b": s} for i, (g, s) in zip(ids, people)},
            "facts": facts,
            "queries": queries,
        }

    def _encode(self, fact, agent, data):
        ent = data["entities"]
        if agent == "a":
            return [ent[fact["seller"]]["a"], fact["item"], ent[fact["buyer"]]["a"]]
        return [ent[fact["buyer"]]["b"], fact["item"], ent[fact["seller"]]["b"]]

    def _ask(self, query, agent, data):
        origin = data["entities"][query["origin"]][agent]
        return f"Who owns the {query['item']} at the end? (Its first owner was {origin}.)"

    def _solve(self, data):
        out = []
        for q in data["queries"]:
            moves = [(f["seller"], f["buyer"]) for f in data["facts"] if f["item"] == q["item"]]
            out.append(final_owner(q["origin"], moves))
        return out

    def _regenerate(self, data, keep, rng):
        kept = [f for f in data["facts"] if f["owner"] == keep]
        other = "b" if keep == "a" else "a"
        everyone = sorted(data["entities"])
        new = []
        for q in data["queries"]:
            mine = [(f["seller"], f["buyer"]) for f in kept if f["item"] == q["item"]]
            nxt = dict(mine)
            starts = sorted(set(nxt) - set(nxt.values()))
            segments = []
            for s in starts:  # kept sales form disjoint runs of the chain
                seg = [s]
                while seg[-1] in nxt:
                    seg.append(nxt[seg[-1]])
                segments.append(seg)
            head = [seg for seg in segments if seg[0] == q["origin"]]
            rest = [seg for seg in segments if seg[0] != q["origin"]]
            rng.shuffle(rest)
            current, used = q["origin"], {q["origin"]}
            for seg in head + rest:
                used.update(seg)
            for seg in head + rest:
                if seg[0] != current:
                    new.append((q["item"], current, seg[0]))
                current = seg[-1]
            fresh = [p for p in everyone if p not in used]
            for _ in range(rng.randint(0 if segments else 1, 2)):
                if not fresh:
                    break
                buyer = fresh.pop(rng.randrange(len(fresh)))
                new.append((q["item"], current, buyer))
                current = buyer
        facts = list(kept) + [{"owner": other, "item": i, "seller": u, "buyer": v}
                              for i, u, v in new]
        out = dict(data)
        out["facts"] = facts
        return out

    def _misread(self, data):
        out = dict(data)
        out["facts"] = [f if f["owner"] == "a" else
                        {**f, "seller": f["buyer"], "buyer": f["seller"]} for f in data["facts"]]
        return out


# ----- club memberships -----------------------------------------------------------------
CLUBS = (
    ("Chess Club", "chess"), ("Choir", "choir"), ("Hiking Club", "hiking"),
    ("Book Circle", "books"), ("Rowing Club", "rowing"), ("Astronomy Society", "astronomy"),
    ("Drama Group", "drama"), ("Photography Club", "photo"), ("Garden Club", "garden"),
)


@register
class ClubMemberships(RelationalTask):
    """Shared memberships across clubs, with one agent holding club rosters and the other
    holding members' own lists.

    View ``a`` lists memberships club by club ("Chess Club: Anna, Bruno") with clubs by full
    name; view ``b`` lists them person by person ("Anna: chess, choir") with short club tags.
    Questions ask who belongs to both of two clubs, or which clubs a person belongs to; every
    answer differs from what either agent's lists alone give. Score: mean over questions of the
    Jaccard index between the named set and the true set ('none' is the empty set).

    Examples
    --------
    >>> task = ClubMemberships()
    >>> inst = task.generate(0)
    >>> task.grade(inst, task.oracle(inst))
    1.0
    """

    name = "relational_club_memberships"
    description = "Shared club memberships: rosters with one agent, members' lists with the other."
    answer_format = QUESTIONS_ANSWER_FORMAT.format(
        example="1: Anna, Bruno; 2: Chess Club, Choir; 3: none") + (
        " (names within one answer separated by commas; 'none' for nobody)")
    conventions = {
        "a": {"listing": "by club", "club_names": "full names (Chess Club)"},
        "b": {"listing": "by member", "club_names": "short tags (chess)"},
    }
    convention_text = {
        "a": "Your records are listed club by club; clubs go by their full names.",
        "b": "Your records are listed person by person; clubs go by short tags.",
    }
    setting = (
        "A community centre's membership records. A person may belong to several clubs. "
        "Membership records are partial: each record below is one true membership, and every "
        "membership appears in exactly one record (yours or your partner's)."
    )
    templates = {"a": "", "b": ""}
    question_patterns = (
        (r"Who belongs to both (?P<c1>.+) and (?P<c2>.+)\?", {"type": "set", "kind": "both"}),
        (r"Which clubs does (?P<person>.+) belong to\?", {"type": "set", "kind": "clubs"}),
    )

    def _text_entities(self, items):
        people = items[0].removeprefix("people: ").split(", ")
        clubs = items[1].removeprefix("clubs: ").split(", ")
        entities = {x: {"a": x, "b": x} for x in people + clubs}
        return entities, {"people": people}

    def _text_facts(self, lines):
        facts = []
        for line in lines:
            club, _, members = line.rstrip(".").partition(" members on record: ")
            facts += [{"owner": "a", "person": p, "club": club} for p in members.split(", ")]
        return facts
    roster_heading = "People and clubs"
    facts_heading = "Membership records"
    sizes = {0: (7, 4), 1: (9, 5), 2: (12, 6)}
    n_queries = {0: 3, 1: 4, 2: 5}

    @staticmethod
    def _members(pairs) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        by_club: dict[str, set[str]] = {}
        by_person: dict[str, set[str]] = {}
        for person, club in pairs:
            by_club.setdefault(club, set()).add(person)
            by_person.setdefault(person, set()).add(club)
        return by_club, by_person

    @classmethod
    def _answers(cls, pairs, queries) -> list[list[str]]:
        by_club, by_person = cls._members(pairs)
        out = []
        for q in queries:
            if q["kind"] == "both":
                got = by_club.get(q["c1"], set()) & by_club.get(q["c2"], set())
            else:
                got = by_person.get(q["person"], set())
            out.append(sorted(got))
        return out

    def _build(self, rng, difficulty):
        n_people, n_clubs = self.sizes[difficulty]
        k = self.n_queries[difficulty]
        for _ in range(MAX_ATTEMPTS):
            people = [g for g, _ in draw_people(rng, n_people)]
            clubs = rng.sample(CLUBS, n_clubs)
            cids = [c for c, _ in clubs]
            links = [(p, c) for p in people for c in rng.sample(cids, rng.randint(1, 3))]
            pairs = [(p, c, o) for (p, c), o in zip(links, balanced_owners(rng, len(links)))]
            full = [(p, c) for p, c, _ in pairs]
            part = {s: [(p, c) for p, c, o in pairs if o == s] for s in SIDES}
            cands = [{"type": "set", "kind": "both", "c1": c1, "c2": c2}
                     for i, c1 in enumerate(cids) for c2 in cids[i + 1:]]
            cands += [{"type": "set", "kind": "clubs", "person": p} for p in people]
            truth = self._answers(full, cands)
            alone = {s: self._answers(part[s], cands) for s in SIDES}
            good = [i for i, t in enumerate(truth)
                    if t and all(alone[s][i] != t for s in SIDES)]
            both = [i for i in good if cands[i]["kind"] == "both"]
            if len(good) < k or not both:
                continue
            first = rng.choice(both)
            chosen = [first] + rng.sample([i for i in good if i != first], k - 1)
            rng.shuffle(chosen)
            facts = [{"owner": o, "person": p, "club": c} for p, c, o in pairs]
            rng.shuffle(facts)
            entities = {p: {"a": p, "b": p} for p in people}
            entities.update({c: {"a": c, "b": tag} for c, tag in clubs})
            return {
                "entities": entities,
                "people": people,
                "facts": facts,
                "queries": [cands[i] for i in chosen],
            }
        raise RuntimeError(f"{self.name}: no admissible instance after {MAX_ATTEMPTS} attempts")

    def _roster(self, data, agent):
        people = set(data["people"])
        return ["people: " + ", ".join(data["people"]),
                "clubs: " + ", ".join(f[agent] for e, f in data["entities"].items()
                                      if e not in people)]

    def _encode(self, fact, agent, data):
        club = data["entities"][fact["club"]][agent]
        return [club, fact["person"]] if agent == "a" else [fact["person"], club]

    def _fact_lines(self, facts, agent):
        groups: dict[str, list[str]] = {}
        for key, value in facts:
            groups.setdefault(key, []).append(value)
        if agent == "a":
            return [f"{club} members on record: {', '.join(sorted(v))}."
                    for club, v in groups.items()]
        return [f"{person} belongs to: {', '.join(sorted(v))}." for person, v in groups.items()]

    def _ask(self, query, agent, data):
        ent = data["entities"]
        if query["kind"] == "both":
            return (f"Who belongs to both {ent[query['c1']][agent]} and "
                    f"{ent[query['c2']][agent]}?")
        return f"Which clubs does {query['person']} belong to?"

    def _solve(self, data):
        return self._answers([(f["person"], f["club"]) for f in data["facts"]], data["queries"])

    def _regenerate(self, data, keep, rng):
        kept = [f for f in data["facts"] if f["owner"] == keep]
        other = "b" if keep == "a" else "a"
        n_other = sum(f["owner"] == other for f in data["facts"])
        clubs = sorted(set(data["entities"]) - set(data["people"]))
        have = {(f["person"], f["club"]) for f in kept}
        free = [(p, c) for p in data["people"] for c in clubs if (p, c) not in have]
        new = rng.sample(free, min(n_other, len(free)))
        out = dict(data)
        out["facts"] = list(kept) + [{"owner": other, "person": p, "club": c} for p, c in new]
        return out

    def _misread(self, data):
        # b's person-by-person lines read as a's club-by-club lines: the person's name is taken
        # for a club and the club tags for members, so none of b's records reaches a real club.
        out = dict(data)
        ent = data["entities"]
        out["facts"] = [f if f["owner"] == "a" else
                        {**f, "person": ent[f["club"]]["b"], "club": f["person"]}
                        for f in data["facts"]]
        return out
