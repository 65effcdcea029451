"""CSP tasks over quantities: a recipe in metric and US customary units, a knapsack in
kilograms and pounds, and an event budget in two currencies.

Unit conversion uses pint's default registry (US customary ounce, pound, fluid ounce and cup:
1 oz = 28.349523125 g, 1 lb = 0.45359237 kg, 1 US fl oz = 29.5735295625 ml, 1 US cup = 8 US fl
oz, all exact by definition, NIST Handbook 44 appendix C). Every threshold is placed at least
half a step away from any value the answer can take, so the two decimals shown in the imperial
view never change which answers satisfy it.
"""

from __future__ import annotations

import itertools
import random
import re
from functools import lru_cache
from typing import Any

import numpy as np

from harness.base import UNPARSED, Instance, Task, View
from harness.registry import register
from harness.tasks.csp_common import (
    SIDES,
    WORD,
    EliminationTask,
    canonical_name,
    check_keep,
    check_seed_difficulty,
    first_line_block,
    parse_pairs,
    read_only_array,
    word_list,
)

#: Redraws before generation gives up (a bug guard; a few dozen suffice in practice).
_MAX_DRAWS = 10_000


@lru_cache(maxsize=1)
def ureg():
    """The shared pint ``UnitRegistry`` (built once, on first use)."""
    import pint

    return pint.UnitRegistry()


def convert(value: float, src: str, dst: str) -> float:
    """``value`` in unit ``src`` expressed in unit ``dst`` (pint unit names).

    Examples
    --------
    >>> round(convert(1, "pound", "gram"), 5)
    453.59237
    """
    return float(ureg().Quantity(value, src).to(dst).magnitude)


def parse_quantity(text: str) -> tuple[float, str] | None:
    """Read ``'250 g'``, ``'8.8 oz'``, ``'1.5 cups'``, ``'8 fl oz'`` into (grams, "g") for a mass
    or (millilitres, "ml") for a volume; ``None`` if it is not a mass or a volume.

    Examples
    --------
    >>> parse_quantity("8 fl oz")
    (236.5882365, 'ml')
    >>> parse_quantity("3 metres") is None
    True
    """
    import pint

    t = re.sub(r"\bfl\.?\s*oz\b", "floz", text.strip(), flags=re.IGNORECASE)
    if not re.fullmatch(r"\s*\d+(?:\.\d+)?\s*[A-Za-z][A-Za-z ._]*", t):
        return None
    try:
        q = ureg().Quantity(t)
        if q.check("[mass]"):
            return float(q.to("gram").magnitude), "g"
        if q.check("[volume]"):
            return float(q.to("milliliter").magnitude), "ml"
    except (pint.errors.PintError, ValueError, TypeError, AttributeError, AssertionError):
        return None
    return None


# =========================================================================================
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


def imperial_text(value: float, unit: str) -> str:
    """A canonical g/ml amount in US customary units, two decimals: oz or lb for a mass,
    fl oz or cups for a volume."""
    if unit == "g":
        oz = convert(value, "gram", "ounce")
        return f"{oz:.2f} oz" if oz < 16 else f"{convert(value, 'gram', 'pound'):.2f} lb"
    floz = convert(value, "milliliter", "fluid_ounce")
    return f"{floz:.2f} fl oz" if floz < 8 else f"{convert(value, 'milliliter', 'cup'):.2f} cups"


def metric_text(value: float, unit: str) -> str:
    return f"{value:g} {unit}"


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

    def _setup(self, rng, difficulty):
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
            q = parse_quantity(str(v)) if n is not None else None
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
        knows is read and normalised to grams or millilitres. UNPARSED if no pair reads."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        out = {}
        for k, v in pairs:
            q = parse_quantity(v)
            if WORD.match(k) and q is not None:
                out[k.lower()] = f"{q[0]:g} {q[1]}"
        return out or UNPARSED

    def _naive_constraint(self, setup, conventions, c):
        # the imperial number read as if it were grams / millilitres
        unit = INGREDIENTS[setup["ingredients"][c["i"]]][0]
        shown = float(imperial_text(c["v"], unit).split()[0])
        return dict(c, v=shown)


# =========================================================================================
GEAR = (
    "tent",
    "stove",
    "rope",
    "lamp",
    "camera",
    "tripod",
    "kettle",
    "radio",
    "blanket",
    "compass",
    "shovel",
    "hammock",
    "cooler",
    "easel",
    "guitar",
    "drone",
    "telescope",
    "kayak",
)


def _subsets(n: int) -> np.ndarray:
    return _subset_cache(n)


@lru_cache(maxsize=8)
def _subset_cache(n: int) -> np.ndarray:
    return read_only_array(((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool))


class _SplitItemsTask(Task):
    """Shared shape of the two optimisation tasks: items split between the views, a limit
    held by one view, a unique best selection."""

    family = "csp"

    def _finish(self, seed, difficulty, data, conventions):
        return Instance(self.name, int(seed), difficulty, data, conventions)

    def solve_text(self, text: str) -> Any:
        """Solve from the full rendering alone (:mod:`harness.tasks.csp_text`); raises
        ``ValueError`` naming a line it cannot read."""
        from harness.tasks.csp_text import solve

        return solve(self, text)

    def render_view(self, view: View) -> str:
        return (
            "\n".join(view.data["intro"])
            + "\nYour notes:\n"
            + "\n".join(f"  - {f}" for f in view.data["facts"])
        )

    def render(self, instance: Instance) -> str:
        a, b = self.split(instance)
        return (
            f"{self.title}\n\nThe information comes from two notebooks that use different "
            "units or currencies; each notebook states its own.\n\n"
            f"--- Notebook 1 ---\n{self.render_view(a)}\n\n"
            f"--- Notebook 2 ---\n{self.render_view(b)}"
        )


@register
class KnapsackUnits(_SplitItemsTask):
    """Pack the most valuable load under a weight limit; one list is in kilograms, the other in
    pounds.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_knapsack_units")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    'cooler, guitar, kettle'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_knapsack_units"
    description = (
        "Choose the most valuable gear under a weight limit; half the items are "
        "weighed in kilograms, half in pounds."
    )
    answer_format = (
        "the names of the items to pack, comma separated, in any order, e.g. 'tent, rope, lamp'"
    )
    title = "Packing under a weight limit"

    _SIZES = {0: 6, 1: 8, 2: 10}

    def _draw_items(self, rng, names):
        return [
            {"name": n, "grams": 100 * rng.randint(5, 60), "value": rng.randint(1, 40)}
            for n in names
        ]

    @staticmethod
    def _capacity(rng, total):
        # a multiple of 100 g plus 50 g: every load (a multiple of 100 g) is at least 50 g away
        # from the limit, far more than the rounding of the pound figures (< 3 g per item)
        return 100 * round(total * rng.uniform(0.35, 0.6) / 100) + 50

    def _ok(self, data) -> bool:
        items = data["a"]["items"] + data["b"]["items"]
        w = np.array([it["grams"] for it in items])
        v = np.array([it["value"] for it in items])
        subs = _subsets(len(items))
        tw, tv = subs @ w, subs @ v
        cap = data["a"]["capacity_grams"]
        feasible = tv[tw <= cap]
        best = feasible.max()
        if (feasible == best).sum() != 1:
            return False
        choice = subs[np.flatnonzero((tw <= cap) & (tv == best))[0]]
        na = len(data["a"]["items"])
        return bool(choice[:na].any() and choice[na:].any() and (~choice).any())

    def generate(self, seed: int, difficulty: int = 1) -> Instance:
        check_seed_difficulty(seed, difficulty)
        rng = random.Random(int(seed))
        n = self._SIZES[difficulty]
        for _ in range(_MAX_DRAWS):
            names = rng.sample(GEAR, n)
            items = self._draw_items(rng, names)
            total = sum(it["grams"] for it in items)
            cap = self._capacity(rng, total)
            data = {
                "a": {"items": items[: n // 2], "capacity_grams": cap},
                "b": {"items": items[n // 2 :]},
            }
            if self._ok(data):
                return self._finish(
                    seed, difficulty, data, {"a": {"mass_unit": "kg"}, "b": {"mass_unit": "lb"}}
                )
        raise RuntimeError(f"{self.name}: no instance with a unique best load for seed {seed}")

    def counterfactual(self, instance: Instance, keep: str, seed: int) -> Instance:
        """Keep one view (its items, and for view a the capacity) and redraw the other view's
        items (names, weights, values) until the best load is again unique."""
        check_keep(keep)
        rng = random.Random(f"{self.name}:counterfactual:{keep}:{int(seed)}")
        other = "b" if keep == "a" else "a"
        kept = instance.data[keep]
        used = {it["name"] for it in kept["items"]}
        k = len(instance.data[other]["items"])
        total_kept = sum(it["grams"] for it in kept["items"])
        for _ in range(_MAX_DRAWS):
            items = self._draw_items(rng, rng.sample([g for g in GEAR if g not in used], k))
            part = {"items": items}
            if other == "a":
                total = total_kept + sum(it["grams"] for it in items)
                part["capacity_grams"] = self._capacity(rng, total)
            data = {keep: kept, other: part}
            data = {"a": data["a"], "b": data["b"]}
            if self._ok(data):
                return self._finish(instance.seed, instance.difficulty, data, instance.conventions)
        raise RuntimeError(f"{self.name}: no counterfactual completion for seed {seed}")

    def split(self, instance: Instance) -> tuple[View, View]:
        views = []
        for s in SIDES:
            part = instance.data[s]
            unit = instance.conventions[s]["mass_unit"]
            intro = [
                "You are packing for an expedition. Choose items so the total weight does "
                "not exceed the limit and the total value is as large as possible. Each "
                "item is taken whole or left behind; the other notebook lists more items.",
                "Your notes give weights in "
                + ("kilograms (kg)." if unit == "kg" else "pounds (lb)."),
            ]
            if "capacity_grams" in part:
                intro.append(
                    f"The load may weigh at most {self._mass(part['capacity_grams'], unit)}."
                )
            facts = [
                f"{it['name']}: {self._mass(it['grams'], unit)}, value {it['value']}"
                for it in part["items"]
            ]
            views.append(View(s, {"intro": intro, "facts": facts}, dict(instance.conventions[s])))
        return views[0], views[1]

    @staticmethod
    def _mass(grams: int, unit: str) -> str:
        if unit == "kg":
            return f"{grams / 1000:g} kg"
        return f"{convert(grams, 'gram', 'pound'):.2f} lb"

    def _items(self, instance):
        return instance.data["a"]["items"] + instance.data["b"]["items"]

    def oracle(self, instance: Instance) -> list[str]:
        items = self._items(instance)
        w = np.array([it["grams"] for it in items])
        v = np.array([it["value"] for it in items])
        subs = _subsets(len(items))
        tw, tv = subs @ w, subs @ v
        ok = tw <= instance.data["a"]["capacity_grams"]
        best = np.flatnonzero(ok & (tv == tv[ok].max()))
        if len(best) != 1:
            raise ValueError(f"{self.name}: the best load is not unique")
        return sorted(it["name"] for it, take in zip(items, subs[best[0]]) if take)

    def grade(self, instance: Instance, answer: Any) -> float:
        """Total value of the chosen items over the best achievable value, if the load is within
        the limit and names only listed items (each once); 0 for an overweight or unreadable
        load. The best load is unique, so only it scores 1."""
        if not isinstance(answer, (list, tuple)) or answer is UNPARSED:
            return 0.0
        items = {it["name"]: it for it in self._items(instance)}
        chosen = [canonical_name(str(a), list(items)) for a in answer]
        if any(c is None for c in chosen) or len(set(chosen)) != len(chosen):
            return 0.0
        weight = sum(items[c]["grams"] for c in chosen)
        if weight > instance.data["a"]["capacity_grams"]:
            return 0.0
        best = sum(items[c]["value"] for c in self.oracle(instance))
        return sum(items[c]["value"] for c in chosen) / best

    def corrupt(self, instance: Instance, answer: Any) -> Any:
        return list(answer)[:-1]

    def format_answer(self, answer: Any) -> str:
        return ", ".join(answer)

    def parse(self, text: str) -> Any:
        """A comma-separated list of single-word item names ('none' or '[]' = empty load);
        UNPARSED if any item is not a single word."""
        t = first_line_block(text)
        if t is not None and t.strip().lower() in ("none", "[]", "nothing"):
            return []
        items = word_list(text)
        if items is None:
            return UNPARSED
        return sorted(i.lower() for i in items)

    def naive_answer(self, instance: Instance) -> Any:
        """Pounds read as kilograms: view b's numbers taken as kg, then the best load."""
        items = []
        for it in instance.data["b"]["items"]:
            shown = float(self._mass(it["grams"], "lb").split()[0])
            items.append(dict(it, grams=round(shown * 1000)))
        all_items = instance.data["a"]["items"] + items
        w = np.array([it["grams"] for it in all_items])
        v = np.array([it["value"] for it in all_items])
        subs = _subsets(len(all_items))
        tw, tv = subs @ w, subs @ v
        ok = tw <= instance.data["a"]["capacity_grams"]
        if not ok.any():
            return None
        pick = subs[np.flatnonzero(ok & (tv == tv[ok].max()))[0]]
        return sorted(it["name"] for it, take in zip(all_items, pick) if take)


# =========================================================================================
CATEGORIES = {
    "venue": ("Boathouse", "Loft", "Orangery", "Barn", "Gallery"),
    "catering": ("Tapas", "Buffet", "Banquet", "Picnic", "Bistro"),
    "music": ("Trio", "Deejay", "Choir", "Quartet", "Busker"),
    "photos": ("Polaroid", "Studio", "Drone", "Candid", "Booth"),
}
#: view b's currency -> (name, symbol, range of EUR->currency rates, rounding unit of quotes)
CURRENCIES = {
    "USD": ("US dollars", "$", (1.02, 1.25), 10),
    "GBP": ("pounds sterling", "£", (0.82, 0.90), 10),
    "JPY": ("Japanese yen", "¥", (150.0, 175.0), 1000),
    "SEK": ("Swedish kronor", "SEK ", (10.8, 11.8), 100),
}


@register
class BudgetCurrency(_SplitItemsTask):
    """Pick one supplier per category for the best total rating within a budget; one planner's
    quotes are in euros, the other's (and the budget) in another currency.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_budget_currency")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    'venue=Orangery; photos=Candid; catering=Buffet'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_budget_currency"
    description = (
        "Plan an event within budget; one planner's quotes are in euros, the other's "
        "and the budget in US dollars, pounds, yen or Swedish kronor."
    )
    answer_format = (
        "one option per category, separated by semicolons, e.g. "
        "'venue=Loft; catering=Tapas; music=Trio'"
    )
    title = "Event budget"

    _SIZES = {0: (3, 2), 1: (3, 3), 2: (4, 3)}  # categories, options per category

    def _draw_side(self, rng, cats, k, currency, rate):
        """Quotes drawn as 200..3000 EUR and written in ``currency`` (rounded to its unit)."""
        unit = 50 if currency == "EUR" else CURRENCIES[currency][3]
        out = {}
        for cat in cats:
            names = rng.sample(CATEGORIES[cat], k)
            out[cat] = []
            for n in names:
                eur = 50 * rng.randint(4, 60)
                price = eur if currency == "EUR" else int(unit * round(eur * rate / unit))
                out[cat].append({"name": n, "price": price, "rating": rng.randint(1, 10)})
        return out

    def _table(self, data, rate=None):
        """(categories, combos (M, C) option indices, EUR totals (M,), ratings (M,))."""
        rate = data["rate"] if rate is None else rate
        cats = list(data["a"]["options"]) + list(data["b"]["options"])
        na = len(data["a"]["options"])
        opts = [data["a"]["options"][c] for c in data["a"]["options"]] + [
            data["b"]["options"][c] for c in data["b"]["options"]
        ]
        eur = [
            np.array([o["price"] for o in ops], dtype=float) / (1.0 if i < na else rate)
            for i, ops in enumerate(opts)
        ]
        rat = [np.array([o["rating"] for o in ops]) for ops in opts]
        combos = np.array(list(itertools.product(*[range(len(o)) for o in opts])))
        total = sum(eur[i][combos[:, i]] for i in range(len(opts)))
        rating = sum(rat[i][combos[:, i]] for i in range(len(opts)))
        return cats, combos, total, rating

    @staticmethod
    def _best(total, rating, budget):
        """Index of the best plan: within budget, highest total rating, ties broken by the lower
        cost; ``None`` if no plan fits or the tie-break is closer than 1% of the budget."""
        ok = np.flatnonzero(total <= budget)
        if len(ok) == 0:
            return None
        top = ok[rating[ok] == rating[ok].max()]
        order = top[np.argsort(total[top], kind="stable")]
        if len(order) > 1 and total[order[1]] - total[order[0]] < 0.01 * budget:
            return None
        return int(order[0])

    def _ok(self, data) -> bool:
        _, _, total, rating = self._table(data)
        budget = data["b"]["budget"] / data["rate"]
        if np.any(np.abs(total - budget) < 0.003 * budget):  # no plan costs about the budget
            return False
        ok = total <= budget
        if ok.sum() < 2 or ok.all() or self._best(total, rating, budget) is None:
            return False
        return bool(rating[ok].max() < rating.max())  # the budget binds

    def _budget(self, rng, data, currency):
        _, _, total, _ = self._table(data)
        eur = float(np.quantile(total, rng.uniform(0.3, 0.7)))
        unit = CURRENCIES[currency][3]
        return int(unit * round(eur * data["rate"] / unit))

    def generate(self, seed: int, difficulty: int = 1) -> Instance:
        check_seed_difficulty(seed, difficulty)
        rng = random.Random(int(seed))
        ncat, k = self._SIZES[difficulty]
        for _ in range(_MAX_DRAWS):
            cats = rng.sample(sorted(CATEGORIES), ncat)
            split = ncat // 2 if rng.random() < 0.5 else ncat - ncat // 2
            cur = rng.choice(sorted(CURRENCIES))
            lo, hi = CURRENCIES[cur][2]
            rate = round(rng.uniform(lo, hi), 2)
            data = {
                "rate": rate,
                "a": {"options": self._draw_side(rng, cats[:split], k, "EUR", 1.0)},
                "b": {"options": self._draw_side(rng, cats[split:], k, cur, rate)},
            }
            data["b"]["budget"] = self._budget(rng, data, cur)
            if self._ok(data):
                return self._finish(
                    seed, difficulty, data, {"a": {"currency": "EUR"}, "b": {"currency": cur}}
                )
        raise RuntimeError(f"{self.name}: no instance with a unique best plan for seed {seed}")

    def counterfactual(self, instance: Instance, keep: str, seed: int) -> Instance:
        """Keep one view (its quotes, and for view b the budget) and redraw the other view's
        quotes (and the budget when view a is kept) until the best plan is again unique."""
        check_keep(keep)
        rng = random.Random(f"{self.name}:counterfactual:{keep}:{int(seed)}")
        data0, cur = instance.data, instance.conventions["b"]["currency"]
        k = len(next(iter(data0["a"]["options"].values())))
        for _ in range(10_000):
            if keep == "a":
                part = {
                    "options": self._draw_side(
                        rng, list(data0["b"]["options"]), k, cur, data0["rate"]
                    )
                }
                data = {"rate": data0["rate"], "a": data0["a"], "b": part}
                data["b"]["budget"] = self._budget(rng, data, cur)
            else:
                part = {"options": self._draw_side(rng, list(data0["a"]["options"]), k, "EUR", 1.0)}
                data = {"rate": data0["rate"], "a": part, "b": data0["b"]}
            if self._ok(data):
                return self._finish(instance.seed, instance.difficulty, data, instance.conventions)
        raise RuntimeError(f"{self.name}: no counterfactual completion for seed {seed}")

    @staticmethod
    def _money(amount: int, currency: str) -> str:
        sym = "€" if currency == "EUR" else CURRENCIES[currency][1]
        return f"{sym}{amount:,}"

    def split(self, instance: Instance) -> tuple[View, View]:
        rate = instance.data["rate"]
        cur_b = instance.conventions["b"]["currency"]
        views = []
        for s in SIDES:
            part = instance.data[s]
            cur = instance.conventions[s]["currency"]
            cur_name = "euros (EUR)" if cur == "EUR" else f"{CURRENCIES[cur][0]} ({cur})"
            intro = [
                "You are planning a party. Pick exactly one option in every category so that "
                "the total cost stays within the budget and the sum of the ratings (1-10) is "
                "as high as possible; if several plans tie on rating, take the cheapest. "
                "The other notebook covers the other categories.",
                f"Your quotes are in {cur_name}. Exchange rate: 1 EUR = {rate:.2f} {cur_b}.",
            ]
            if "budget" in part:
                intro.append(
                    f"The whole party may cost at most {self._money(part['budget'], cur)}."
                )
            facts = []
            for cat, ops in part["options"].items():
                line = "; ".join(
                    f"{o['name']} {self._money(o['price'], cur)} (rating {o['rating']})"
                    for o in ops
                )
                facts.append(f"{cat}: {line}")
            views.append(View(s, {"intro": intro, "facts": facts}, dict(instance.conventions[s])))
        return views[0], views[1]

    def oracle(self, instance: Instance) -> dict[str, str]:
        data = instance.data
        cats, combos, total, rating = self._table(data)
        best = self._best(total, rating, data["b"]["budget"] / data["rate"])
        if best is None:
            raise ValueError(f"{self.name}: the best plan is not unique")
        opts = {**data["a"]["options"], **data["b"]["options"]}
        return {c: opts[c][int(combos[best, i])]["name"] for i, c in enumerate(cats)}

    def grade(self, instance: Instance, answer: Any) -> float:
        """Fraction of categories whose chosen option is the one in the unique best plan
        (within budget, highest total rating, cheapest on a tie); 0 for an unreadable answer."""
        if not isinstance(answer, dict):
            return 0.0
        truth = self.oracle(instance)
        hits = 0
        for cat, name in truth.items():
            given = next((v for k, v in answer.items() if str(k).lower() == cat), None)
            hits += int(given is not None and str(given).lower() == name.lower())
        return hits / len(truth)

    def format_answer(self, answer: Any) -> str:
        return "; ".join(f"{k}={v}" for k, v in answer.items())

    def parse(self, text: str) -> Any:
        """``category=option`` pairs of single words (``:`` also accepted); UNPARSED if none."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        out = {k.lower(): v.capitalize() for k, v in pairs if WORD.match(k) and WORD.match(v)}
        return out or UNPARSED

    def naive_answer(self, instance: Instance) -> Any:
        """Foreign quotes read as euros: the rate ignored, every quote and the budget taken at
        face value; the best plan of that pasted problem (``None`` if nothing fits)."""
        data = instance.data
        cats, combos, total, rating = self._table(data, rate=1.0)
        ok = np.flatnonzero(total <= data["b"]["budget"])
        if len(ok) == 0:
            return None
        top = ok[rating[ok] == rating[ok].max()]
        pick = top[np.argmin(total[top])]
        opts = {**data["a"]["options"], **data["b"]["options"]}
        return {c: opts[c][int(combos[pick, i])]["name"] for i, c in enumerate(cats)}
