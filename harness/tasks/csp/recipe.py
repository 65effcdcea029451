"""CSP task over quantities: a recipe whose limits are noted in metric and US customary units.

Every threshold is placed at least half a step away from any value the answer can take, so
the two decimals shown in the imperial view never change which answers satisfy it. Every
instance has exactly one solution (see :mod:`harness.tasks.csp.common`).
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import Any

import numpy as np

from harness.base import UNPARSED
from harness.registry import register
from harness.tasks.csp.common import (
    WORD,
    EliminationTask,
    canonical_name,
    parse_pairs,
    read_only_array,
)
from harness.tasks.csp.notebooks import unreadable
from harness.tasks.csp.units import imperial_text, metric_text, parse_quantity

#: ingredient -> (canonical unit, the pack sizes a baker can use, in that unit)
INGREDIENTS = {
    "flour": ("g", (200, 250, 300, 350, 400)),
    "sugar": ("g", (50, 100, 150, 200, 250)),
    "butter": ("g", (50, 75, 100, 125, 150)),
    "milk": ("ml", (100, 150, 200, 250, 300)),
    "cocoa": ("g", (20, 30, 40, 50, 60)),
    "cream": ("ml", (50, 100, 150, 200, 250)),
}


@lru_cache(maxsize=8)
def _index_grid(k: int, levels: int) -> np.ndarray:
    return read_only_array(
        np.array(list(itertools.product(range(levels), repeat=k)), dtype=np.int64)
    )


@register
class RecipeUnits(EliminationTask):
    """Fix a recipe's amounts from two cooks' notes, one metric and one US customary.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_recipe_units")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    'flour=400 g; sugar=50 g; butter=150 g; cocoa=50 g'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_recipe_units"
    description = (
        "Fix a cake's ingredient amounts; one cook's limits are metric (g, ml), the "
        "other's US customary (oz, lb, fl oz, cups)."
    )
    answer_format = (
        "every ingredient with its amount in grams or millilitres, separated by "
        "semicolons, e.g. 'flour=250 g; sugar=100 g; milk=200 ml'"
    )
    title = "Recipe amounts"

    _SIZES = {0: 3, 1: 4, 2: 5}

    def _build(self, rng, difficulty):
        names = rng.sample(sorted(INGREDIENTS), self._SIZES[difficulty])
        conv = {
            "a": {"units": "metric (g, ml)"},
            "b": {"units": "US customary (oz, lb, fl oz, cups)"},
        }
        return {"ingredients": names}, conv

    def _candidates(self, setup):
        return _index_grid(len(setup["ingredients"]), 5)

    def _values(self, setup, i):
        return INGREDIENTS[setup["ingredients"][i]][1]

    def _propose(self, rng, setup, target, side):
        k = len(setup["ingredients"])
        i = rng.randrange(k)
        vals = self._values(setup, i)
        x = int(target[i])
        kind = rng.choice(["min", "max", "min", "max", "sum"])
        if kind == "min" and x > 0:
            lo = rng.randrange(0, x)
            return {"t": "min", "i": i, "v": (vals[lo] + vals[lo + 1]) / 2}
        if kind == "max" and x < 4:
            hi = rng.randrange(x, 4)
            return {"t": "max", "i": i, "v": (vals[hi] + vals[hi + 1]) / 2}
        unit = INGREDIENTS[setup["ingredients"][i]][0]
        same = [j for j in range(k) if j != i and INGREDIENTS[setup["ingredients"][j]][0] == unit]
        if kind == "sum" and same:
            j = rng.choice(same)
            sums = sorted({a + b for a in vals for b in self._values(setup, j)})
            total = vals[x] + self._values(setup, j)[int(target[j])]
            pos = sums.index(total)
            if rng.random() < 0.5 and pos + 1 < len(sums):
                return {
                    "t": "sum_max",
                    "i": min(i, j),
                    "j": max(i, j),
                    "v": (sums[pos] + sums[pos + 1]) / 2,
                }
            if pos > 0:
                return {
                    "t": "sum_min",
                    "i": min(i, j),
                    "j": max(i, j),
                    "v": (sums[pos - 1] + sums[pos]) / 2,
                }
        if x > 0:
            return {"t": "min", "i": i, "v": (vals[x - 1] + vals[x]) / 2}
        return {"t": "max", "i": i, "v": (vals[x] + vals[x + 1]) / 2}

    def _amounts(self, setup, cands, i):
        return np.asarray(self._values(setup, i), dtype=float)[cands[:, i]]

    def _mask(self, setup, cands, c):
        a = self._amounts(setup, cands, c["i"])
        if c["t"] == "min":
            return a >= c["v"]
        if c["t"] == "max":
            return a <= c["v"]
        b = self._amounts(setup, cands, c["j"])
        if c["t"] == "sum_max":
            return a + b <= c["v"]
        if c["t"] == "sum_min":
            return a + b >= c["v"]
        raise ValueError(f"unknown recipe constraint {c!r}")

    def _view_lines(self, setup, conv, constraints):
        metric = conv["units"].startswith("metric")
        names = setup["ingredients"]
        intro = [
            "A cake recipe uses these ingredients; each amount must be one of the listed "
            "pack sizes (the shop sells metric packs):"
        ]
        for n in names:
            unit, vals = INGREDIENTS[n]
            intro.append(f"  - {n}: {', '.join(str(v) for v in vals)} {unit}")
        intro.append(
            "Your notes use "
            + (
                "metric units (grams, millilitres)."
                if metric
                else "US customary units (ounces, pounds, US fluid ounces, US cups)."
            )
        )
        facts = []
        for c in constraints:
            unit = INGREDIENTS[names[c["i"]]][0]
            amount = metric_text(c["v"], unit) if metric else imperial_text(c["v"], unit)
            if c["t"] in ("min", "max"):
                word = "at least" if c["t"] == "min" else "at most"
                facts.append(f"Use {word} {amount} of {names[c['i']]}.")
            else:
                word = "at most" if c["t"] == "sum_max" else "at least"
                facts.append(
                    f"{names[c['i']].capitalize()} and {names[c['j']]} together come to "
                    f"{word} {amount}."
                )
        return {"intro": intro, "facts": facts}

    def _answer_of(self, setup, vector):
        out = {}
        for i, n in enumerate(setup["ingredients"]):
            unit, vals = INGREDIENTS[n]
            out[n] = f"{vals[int(vector[i])]} {unit}"
        return out

    def _vector_of(self, setup, answer):
        if not isinstance(answer, dict):
            return None
        names = setup["ingredients"]
        vec = np.full(len(names), -1)
        for k, v in answer.items():
            n = canonical_name(str(k), names)
            if n is None:
                continue
            q = parse_quantity(str(v))
            if q is None:
                continue
            unit, vals = INGREDIENTS[n]
            if q[1] != unit:
                continue
            for idx, val in enumerate(vals):
                if abs(q[0] - val) <= 0.01 * val:  # 1% tolerance for converted answers
                    vec[names.index(n)] = idx
        return vec

    def format_answer(self, answer: Any) -> str:
        return "; ".join(f"{k}={v}" for k, v in answer.items())

    def parse(self, text: str) -> Any:
        """``ingredient=amount unit`` pairs (``:`` also accepted); any mass or volume unit pint
        knows is read and normalised to grams or millilitres (any case). UNPARSED unless every
        pair reads."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        out = {}
        for k, v in pairs:
            q = parse_quantity(v.lower())  # 'ML' is megalitres to pint; units here are lower case
            if not (WORD.match(k) and q is not None):
                return UNPARSED  # every pair must read, or the answer is not read at all
            out[k.lower()] = f"{q[0]:g} {q[1]}"
        return out

    def _misread(self, setup, conventions, c):
        # the imperial number read as if it were grams / millilitres
        unit = INGREDIENTS[setup["ingredients"][c["i"]]][0]
        shown = float(imperial_text(c["v"], unit).split()[0])
        return dict(c, v=shown)

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        intro = books[0]["intro"]
        names: list[str] = []
        domains: dict[str, tuple[str, list[float]]] = {}
        for row in re.finditer(r"^\s*- (\w+): ([\d, ]+) (g|ml)$", intro, flags=re.MULTILINE):
            names.append(row[1])
            domains[row[1]] = (row[3], [float(v) for v in row[2].split(",")])
        grid = np.array(list(itertools.product(range(5), repeat=len(names))))
        amounts = np.stack(
            [np.asarray(domains[n][1])[grid[:, i]] for i, n in enumerate(names)], axis=1
        )
        keep = np.ones(len(grid), dtype=bool)
        for book in books:
            for line in book["facts"]:
                if m := re.fullmatch(r"Use (at least|at most) (.+) of (\w+)\.", line):
                    total = amounts[:, names.index(m[3])]
                    bound, amount = m[1], m[2]
                elif m := re.fullmatch(
                    r"(\w+) and (\w+) together come to (at least|at most) (.+)\.", line
                ):
                    cols = [names.index(m[1].lower()), names.index(m[2])]
                    total = amounts[:, cols].sum(axis=1)
                    bound, amount = m[3], m[4]
                else:
                    raise unreadable(line)
                q = parse_quantity(amount)
                if q is None:
                    raise unreadable(line)
                keep &= total >= q[0] if bound == "at least" else total <= q[0]
        if keep.sum() != 1:
            raise ValueError(f"text describes {int(keep.sum())} recipes, expected 1")
        row = amounts[np.flatnonzero(keep)[0]]
        return {n: f"{row[i]:g} {domains[n][0]}" for i, n in enumerate(names)}
