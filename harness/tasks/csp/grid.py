"""CSP tasks over positions and labels: seating, 4x4 Sudoku, map colouring.

Each view numbers things differently (index base, which end or corner is the origin, names
versus indices), so pasting the two halves together without re-aligning them gives a different
(usually contradictory) puzzle. Every instance has exactly one solution (see
:mod:`harness.tasks.csp.common`).
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import Any

import numpy as np

from harness.base import UNPARSED, Instance
from harness.registry import register
from harness.tasks.csp.common import (
    WORD,
    EliminationTask,
    OrderAnswer,
    canonical_name,
    first_line_block,
    parse_pairs,
    permutations_array,
    read_only_array,
    solutions_array,
    word_list,
)
from harness.tasks.csp.notebooks import need, unreadable
from harness.tasks.csp.vocabulary import COLOURS, GUEST_NAMES, TOWN_NAMES


# =========================================================================================
@register
class Seating(OrderAnswer, EliminationTask):
    """Seat n guests in a row of chairs; the two planners number the chairs from opposite ends
    and in different index bases.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_seating")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    'Ines, Priya, Bruno, Mateo, Nadia'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_seating"
    entity_key = "guests"
    description = (
        "Seat guests along one side of a table; one planner numbers chairs 1..n from "
        "the window, the other 0..n-1 from the door."
    )
    answer_format = (
        "the guests' names in chair order starting at the WINDOW end, comma "
        "separated, e.g. 'Ada, Bruno, Chiara, Dmitri, Elif'"
    )
    title = "Seating plan"

    _SIZES = {0: 4, 1: 5, 2: 6}

    def _build(self, rng, difficulty):
        n = self._SIZES[difficulty]
        guests = sorted(rng.sample(GUEST_NAMES, n))
        conv = {
            "a": {
                "index_base": 1,
                "origin": "window end",
                "numbering": "chairs 1..n from the window end",
            },
            "b": {
                "index_base": 0,
                "origin": "door end",
                "numbering": "chairs 0..n-1 from the door end",
            },
        }
        return {"guests": guests, "n": n}, conv

    def _candidates(self, setup):
        return permutations_array(setup["n"])

    def _propose(self, rng, setup, target, side):
        n = setup["n"]
        pos = [int(p) for p in target]
        g, h = rng.sample(range(n), 2)
        kind = rng.choice(["seat", "not_seat", "adj", "not_adj", "lower", "gap", "end"])
        if kind == "seat":
            return {"t": "seat", "g": g, "p": pos[g]}
        if kind == "not_seat":
            return {"t": "not_seat", "g": g, "p": rng.choice([p for p in range(n) if p != pos[g]])}
        if kind == "adj" or kind == "not_adj":
            t = "adj" if abs(pos[g] - pos[h]) == 1 else "not_adj"
            return {"t": t, "g": min(g, h), "h": max(g, h)}
        if kind == "lower":
            return (
                {"t": "lower", "g": g, "h": h}
                if pos[g] < pos[h]
                else {"t": "lower", "g": h, "h": g}
            )
        if kind == "gap":
            return {"t": "gap", "g": min(g, h), "h": max(g, h), "k": abs(pos[g] - pos[h]) - 1}
        return {"t": "end", "g": g, "yes": pos[g] in (0, n - 1)}

    def _mask(self, setup, cands, c):
        n = setup["n"]
        t = c["t"]
        pg = cands[:, c["g"]]
        if t == "seat":
            return pg == c["p"]
        if t == "not_seat":
            return pg != c["p"]
        if t == "end":
            at_end = (pg == 0) | (pg == n - 1)
            return at_end if c["yes"] else ~at_end
        ph = cands[:, c["h"]]
        if t == "adj":
            return np.abs(pg - ph) == 1
        if t == "not_adj":
            return np.abs(pg - ph) != 1
        if t == "lower":
            return pg < ph
        if t == "gap":
            return np.abs(pg - ph) - 1 == c["k"]
        raise ValueError(f"unknown seating constraint {c!r}")

    @staticmethod
    def _chair(conv, n, p):
        return p + 1 if conv["origin"] == "window end" else n - 1 - p

    def _sentence(self, setup, conv, c):
        guests, n = setup["guests"], setup["n"]
        g = guests[c["g"]]
        t = c["t"]
        if t in ("seat", "not_seat"):
            chair = self._chair(conv, n, c["p"])
            return (
                f"{g} sits in chair {chair}."
                if t == "seat"
                else f"{g} does not sit in chair {chair}."
            )
        if t == "end":
            return (
                f"{g} sits in an end chair." if c["yes"] else f"{g} does not sit in an end chair."
            )
        h = guests[c["h"]]
        if t == "adj":
            return f"{g} and {h} sit next to each other."
        if t == "not_adj":
            return f"{g} and {h} do not sit next to each other."
        if t == "gap":
            k = c["k"]
            who = (
                "nobody sits"
                if k == 0
                else ("exactly 1 person sits" if k == 1 else f"exactly {k} people sit")
            )
            return f"Between {g} and {h} {who}."
        # lower: canonical position of g < h; in the door-end numbering that reverses
        if conv["origin"] == "window end":
            return f"{g} has a lower chair number than {h}."
        return f"{h} has a lower chair number than {g}."

    def _view_lines(self, setup, conv, constraints):
        n = setup["n"]
        first, last = (1, n) if conv["index_base"] == 1 else (0, n - 1)
        intro = [
            f"{n} guests sit along one side of a long table that runs from the window to the "
            f"door, one guest per chair: {', '.join(setup['guests'])}.",
            f"In your notes the chairs are numbered {first} to {last} starting at the "
            f"{conv['origin']} (chair {first} is at the {conv['origin']}).",
            "Find the seating that satisfies every constraint of both notebooks.",
        ]
        return {"intro": intro, "facts": [self._sentence(setup, conv, c) for c in constraints]}

    def _misread(self, setup, conventions, c):
        # view b's chair numbers (0-based from the door) read as view a's (1-based from the
        # window); "lower chair number" then points the other way
        n = setup["n"]
        if c["t"] in ("seat", "not_seat"):
            return dict(c, p=(n - 1 - c["p"]) - 1)
        if c["t"] == "lower":
            return {"t": "lower", "g": c["h"], "h": c["g"]}
        return c

    def parse(self, text: str) -> Any:
        """A list of single-word names (at least two), window end first; else UNPARSED."""
        items = word_list(text, min_items=2)
        return UNPARSED if items is None else [i.capitalize() for i in items]

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        listed = need(r"one guest per chair: ([^.]+)\.", books[0]["intro"], "guest list")[1]
        guests = [g.strip() for g in listed.split(",")]
        n = len(guests)
        setup = {"guests": guests, "n": n}
        cons = []
        for book in books:
            numbering = need(
                r"numbered (\d+) to (\d+) starting at the (window|door) end",
                book["intro"],
                "numbering",
            )
            base, window = int(numbering[1]), numbering[3] == "window"

            def pos(k, base=base, window=window):
                return k - base if window else n - 1 - (k - base)

            g = guests.index
            for line in book["facts"]:
                if m := re.fullmatch(r"(\w+) sits in chair (\d+)\.", line):
                    cons.append({"t": "seat", "g": g(m[1]), "p": pos(int(m[2]))})
                elif m := re.fullmatch(r"(\w+) does not sit in chair (\d+)\.", line):
                    cons.append({"t": "not_seat", "g": g(m[1]), "p": pos(int(m[2]))})
                elif m := re.fullmatch(r"(\w+) (sits|does not sit) in an end chair\.", line):
                    cons.append({"t": "end", "g": g(m[1]), "yes": m[2] == "sits"})
                elif m := re.fullmatch(r"(\w+) and (\w+) sit next to each other\.", line):
                    cons.append({"t": "adj", "g": g(m[1]), "h": g(m[2])})
                elif m := re.fullmatch(r"(\w+) and (\w+) do not sit next to each other\.", line):
                    cons.append({"t": "not_adj", "g": g(m[1]), "h": g(m[2])})
                elif m := re.fullmatch(
                    r"Between (\w+) and (\w+) "
                    r"(nobody sits|exactly (\d+) (?:person|people) sits?)\.",
                    line,
                ):
                    cons.append({"t": "gap", "g": g(m[1]), "h": g(m[2]), "k": int(m[4] or 0)})
                elif m := re.fullmatch(r"(\w+) has a lower chair number than (\w+)\.", line):
                    lo, hi = (m[1], m[2]) if window else (m[2], m[1])
                    cons.append({"t": "lower", "g": g(lo), "h": g(hi)})
                else:
                    raise unreadable(line)
        return self._unique(setup, cons)


# =========================================================================================
@lru_cache(maxsize=1)
def sudoku4_grids() -> np.ndarray:
    """All 288 valid 4x4 Sudoku grids, shape (288, 16), row-major digits 1..4.

    Enumerated with python-constraint (all-different rows, columns and 2x2 boxes).
    """
    import constraint  # deferred third-party import (only generation needs it), not a cycle

    problem = constraint.Problem()
    cells = [f"r{r}c{c}" for r in range(4) for c in range(4)]
    problem.addVariables(cells, [1, 2, 3, 4])
    groups = [[f"r{r}c{c}" for c in range(4)] for r in range(4)]
    groups += [[f"r{r}c{c}" for r in range(4)] for c in range(4)]
    groups += [
        [f"r{r}c{c}" for r in range(br, br + 2) for c in range(bc, bc + 2)]
        for br in (0, 2)
        for bc in (0, 2)
    ]
    for g in groups:
        problem.addConstraint(constraint.AllDifferentConstraint(), g)
    return read_only_array(solutions_array(problem, cells))


@register
class Sudoku4(EliminationTask):
    """4x4 Sudoku whose givens are split; the notebooks address cells in different frames.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    '3412/1243/4321/2134'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_sudoku4"
    description = (
        "4x4 Sudoku with the givens split; one notebook uses (row, column) from the "
        "top-left 1-based, the other (x, y) from the bottom-left 0-based."
    )
    answer_format = (
        "the four rows of the solved grid from TOP to BOTTOM, each row left to right "
        "as four digits, rows separated by '/', e.g. '1234/3412/2143/4321'"
    )
    title = "4x4 Sudoku"

    _PROPOSALS = {0: 1, 1: 3, 2: 16}

    def _proposals_per_step(self, difficulty):
        return self._PROPOSALS[difficulty]

    def _keep_redundant(self, difficulty):
        return difficulty == 0  # easy: extra givens that the others already imply

    def _build(self, rng, difficulty):
        conv = {
            "a": {"index_base": 1, "origin": "top-left", "axis_order": "row, column"},
            "b": {"index_base": 0, "origin": "bottom-left", "axis_order": "x (column), y (row)"},
        }
        return {"size": 4}, conv

    def _candidates(self, setup):
        return sudoku4_grids()

    def _propose(self, rng, setup, target, side):
        k = rng.randrange(16)
        return {"t": "given", "cell": k, "d": int(target[k])}

    def _mask(self, setup, cands, c):
        return cands[:, c["cell"]] == c["d"]

    def _view_lines(self, setup, conv, constraints):
        intro = [
            "Fill a 4x4 grid with the digits 1-4 so that every row, every column and each of "
            "the four 2x2 boxes contains each digit exactly once.",
        ]
        if conv["origin"] == "top-left":
            intro.append(
                "Your notes give cells as (row, column): rows 1-4 counted from the TOP, "
                "columns 1-4 counted from the LEFT."
            )
            facts = []
            for c in sorted(constraints, key=lambda c: c["cell"]):
                r, col = divmod(c["cell"], 4)
                facts.append(f"(row {r + 1}, column {col + 1}) = {c['d']}")
        else:
            intro.append(
                "Your notes give cells as (x, y): x = column 0-3 counted from the LEFT, "
                "y = row 0-3 counted from the BOTTOM."
            )
            facts = []
            for c in sorted(constraints, key=lambda c: (3 - c["cell"] // 4, c["cell"] % 4)):
                r, col = divmod(c["cell"], 4)
                facts.append(f"(x={col}, y={3 - r}) = {c['d']}")
        intro.append("Each notebook holds only some of the given digits.")
        return {"intro": intro, "facts": facts}

    def _answer_of(self, setup, vector):
        return "/".join("".join(str(int(d)) for d in vector[r * 4 : (r + 1) * 4]) for r in range(4))

    def _vector_of(self, setup, answer):
        if not isinstance(answer, str):
            return None
        digits = answer.replace("/", "")
        if len(digits) != 16 or not digits.isdigit():
            return None
        return np.array([int(d) for d in digits])

    def format_answer(self, answer: Any) -> str:
        return str(answer)

    def _misread(self, setup, conventions, c):
        # view b's "(x=X, y=Y)" read as view a's "(row X, column Y)", 1-based from the top-left
        r, col = divmod(c["cell"], 4)
        x, y = col, 3 - r
        if not (1 <= x <= 4 and 1 <= y <= 4):
            return None  # no such cell in view a's frame: the pasted puzzle is broken
        return dict(c, cell=(x - 1) * 4 + (y - 1))

    def parse(self, text: str) -> Any:
        """Sixteen digits 1-4 (rows top to bottom) with any of ``/ , ; | space newline`` and
        brackets between them; anything else is UNPARSED."""
        t = first_line_block(text)
        if t is None or not re.fullmatch(r"[\s/,;|\[\]()'\"1-4]+", t):
            return UNPARSED
        digits = re.sub(r"[^1-4]", "", t)
        if len(digits) != 16:
            return UNPARSED
        return "/".join(digits[i : i + 4] for i in range(0, 16, 4))

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        cons = []
        for book in books:
            for line in book["facts"]:
                if m := re.fullmatch(r"\(row (\d), column (\d)\) = (\d)", line):
                    cell = (int(m[1]) - 1) * 4 + int(m[2]) - 1
                elif m := re.fullmatch(r"\(x=(\d), y=(\d)\) = (\d)", line):
                    cell = (3 - int(m[2])) * 4 + int(m[1])
                else:
                    raise unreadable(line)
                cons.append({"t": "given", "cell": cell, "d": int(m[3])})
        setup = {"size": 4}
        return self._unique(setup, cons)


# =========================================================================================
@lru_cache(maxsize=8)
def _colourings(n: int) -> np.ndarray:
    return read_only_array(
        np.array(list(itertools.product(range(len(COLOURS)), repeat=n)), dtype=np.int64)
    )


@register
class MapColouring(EliminationTask):
    """Three-colour a map whose borders are split between two surveyors; one names towns, the
    other numbers them 0-based in alphabetical order.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_graph_colouring")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    'Marlow=blue; Penrith=red; Garford=red; Ashby=green; Elstow=red; Ilkley=blue'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_graph_colouring"
    description = (
        "Three-colour a map of towns with the borders split; one notebook names "
        "towns, the other numbers them 0-based in alphabetical order."
    )
    answer_format = (
        "every town NAME with its colour (red, green or blue), separated by "
        "semicolons, e.g. 'Ashby=red; Bexley=green; Carlow=blue'"
    )
    title = "Map colouring"

    _SIZES = {0: 5, 1: 6, 2: 7}

    def _build(self, rng, difficulty):
        n = self._SIZES[difficulty]
        towns = rng.sample(TOWN_NAMES, n)  # listed in A's notes in this (non-alphabetical) order
        conv = {
            "a": {"naming": "town names"},
            "b": {"naming": "0-based index in alphabetical order of the town names"},
        }
        return {"towns": towns}, conv

    def _candidates(self, setup):
        return _colourings(len(setup["towns"]))

    def _priority(self, c):
        return 1 if c["t"] == "border" else 0

    def _target_ok(self, setup, row):
        return len(set(row.tolist())) == len(COLOURS)

    def _proposals_per_step(self, difficulty):
        return 6

    def _propose(self, rng, setup, target, side):
        n = len(setup["towns"])
        kind = rng.random()
        if kind < 0.8:
            pairs = [(u, v) for u in range(n) for v in range(u + 1, n) if target[u] != target[v]]
            u, v = rng.choice(pairs)
            return {"t": "border", "u": u, "v": v}
        u = rng.randrange(n)
        if kind < 0.9:
            return {"t": "colour", "u": u, "c": int(target[u])}
        return {
            "t": "not_colour",
            "u": u,
            "c": rng.choice([k for k in range(len(COLOURS)) if k != target[u]]),
        }

    def _mask(self, setup, cands, c):
        if c["t"] == "border":
            return cands[:, c["u"]] != cands[:, c["v"]]
        if c["t"] == "colour":
            return cands[:, c["u"]] == c["c"]
        if c["t"] == "not_colour":
            return cands[:, c["u"]] != c["c"]
        raise ValueError(f"unknown colouring constraint {c!r}")

    @staticmethod
    def _label(setup, conv, u):
        towns = setup["towns"]
        if conv["naming"] == "town names":
            return towns[u]
        return f"town {sorted(towns).index(towns[u])}"

    def _view_lines(self, setup, conv, constraints):
        n = len(setup["towns"])
        intro = [
            f"A map has {n} towns. Colour every town red, green or blue so that two towns that "
            "share a border never have the same colour.",
        ]
        if conv["naming"] == "town names":
            intro.append(f"The towns are: {', '.join(setup['towns'])}.")
        else:
            intro.append(
                f"Your notes refer to the towns by number, 0 to {n - 1}: town 0 is the "
                "town whose name comes first in alphabetical order, town 1 the second, "
                "and so on. You do not know the names."
            )
        facts = []
        for c in constraints:
            u = self._label(setup, conv, c["u"])
            if c["t"] == "border":
                facts.append(f"{u} borders {self._label(setup, conv, c['v'])}.")
            elif c["t"] == "colour":
                facts.append(f"{u} must be {COLOURS[c['c']]}.")
            else:
                facts.append(f"{u} must not be {COLOURS[c['c']]}.")
        intro.append("Each notebook lists only some of the borders and colour rules.")
        return {"intro": intro, "facts": [f[0].upper() + f[1:] for f in facts]}

    def _answer_of(self, setup, vector):
        return {t: COLOURS[int(vector[i])] for i, t in enumerate(setup["towns"])}

    def _vector_of(self, setup, answer):
        if not isinstance(answer, dict):
            return None
        vec = np.full(len(setup["towns"]), -1)
        for key, colour in answer.items():
            canon = canonical_name(str(key), setup["towns"])
            if canon is not None and str(colour).lower() in COLOURS:
                vec[setup["towns"].index(canon)] = COLOURS.index(str(colour).lower())
        return vec

    def grade(self, instance: Instance, answer: Any) -> float:
        """Fraction of all constraints (borders, colour rules of both notebooks) the answer
        satisfies; a town missing from the answer fails every constraint it appears in. The
        solution is unique, so only the oracle colouring scores 1."""
        if answer is None or answer is UNPARSED:
            return 0.0
        setup = instance.data["setup"]
        vec = self._vector_of(setup, answer)
        if vec is None:
            return 0.0
        row = vec[None, :]
        cons = instance.data["constraints"]["a"] + instance.data["constraints"]["b"]
        ok = 0
        for c in cons:
            involved = [c["u"]] + ([c["v"]] if "v" in c else [])
            if all(vec[i] >= 0 for i in involved) and bool(self._mask(setup, row, c)[0]):
                ok += 1
        return ok / len(cons)

    def format_answer(self, answer: Any) -> str:
        return "; ".join(f"{k}={v}" for k, v in answer.items())

    def _misread(self, setup, conventions, c):
        # view b's "town i" (alphabetical, 0-based) taken as the i-th town of view a's list
        towns = setup["towns"]
        order = sorted(towns)
        fix = lambda i: order.index(towns[i])  # noqa: E731  (b's number of town i)
        out = dict(c, u=fix(c["u"]))
        if "v" in c:
            out["v"] = fix(c["v"])
        return out

    def parse(self, text: str) -> Any:
        """``Town=colour`` pairs (``:`` also accepted); colours red/green/blue. UNPARSED unless
        every pair has a single-word town and one of the three colours."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        out = {}
        for k, v in pairs:
            if not (WORD.match(k) and v.lower() in COLOURS):
                return UNPARSED
            out[k.capitalize()] = v.lower()
        return out

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        towns = [
            t.strip()
            for t in need(
                r"The towns are: ([^.]+)\.", books[0]["intro"] + books[1]["intro"], "town list"
            )[1].split(",")
        ]
        alpha = sorted(towns)

        def idx(label):
            if m := re.fullmatch(r"[Tt]own (\d+)", label):
                return towns.index(alpha[int(m[1])])
            return towns.index(label)

        town = r"([Tt]own \d+|[A-Z][a-z]+)"
        cons = []
        for book in books:
            for line in book["facts"]:
                if m := re.fullmatch(rf"{town} borders {town}\.", line):
                    cons.append({"t": "border", "u": idx(m[1]), "v": idx(m[2])})
                elif m := re.fullmatch(rf"{town} must (not )?be (\w+)\.", line):
                    cons.append(
                        {
                            "t": "not_colour" if m[2] else "colour",
                            "u": idx(m[1]),
                            "c": COLOURS.index(m[3]),
                        }
                    )
                else:
                    raise unreadable(line)
        setup = {"towns": towns}
        return self._unique(setup, cons)
