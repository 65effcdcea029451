"""CSP optimisation tasks: a knapsack weighed in kilograms and pounds, a budget in two currencies.

Items are split between the views, a limit is held by one view, and the best selection is
unique. :class:`SelectionTask` holds what the two share (rendering, reading the notebooks);
each task implements the :class:`~harness.base.Task` methods itself.
"""

from __future__ import annotations

import itertools
import random
import re
from abc import abstractmethod
from functools import lru_cache
from typing import Any

import numpy as np

from harness.base import UNPARSED, Instance, Task, View
from harness.registry import register
from harness.tasks.csp.common import (
    SIDES,
    WORD,
    canonical_name,
    check_keep,
    check_seed_difficulty,
    first_line_block,
    parse_pairs,
    read_only_array,
    word_list,
)
from harness.tasks.csp.notebooks import need, read_notebooks, unreadable
from harness.tasks.csp.units import convert, parse_quantity

#: Redraws before generation gives up (a bug guard; a few dozen suffice in practice).
_MAX_DRAWS = 10_000


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


class SelectionTask(Task):
    """Shared shape of the two optimisation tasks: items split between the views, a limit
    held by one view, a unique best selection."""

    family = "csp"
    #: Title line of the rendered puzzle.
    title: str

    def _finish(self, seed, difficulty, data, conventions):
        return Instance(self.name, int(seed), difficulty, data, conventions)

    def solve_text(self, text: str) -> Any:
        """Solve from the full rendering alone (:meth:`_solve_notebooks`); raises
        ``ValueError`` naming a line it cannot read."""
        return self._solve_notebooks(read_notebooks(text))

    @abstractmethod
    def _solve_notebooks(self, books: list[dict]) -> Any:
        """The best selection, re-derived from the two notebooks of ``render(instance)``."""

    def render_view(self, view: View) -> str:
        return (
            "\n".join(view.data["intro"])
            + "\nYour notes:\n"
            + "\n".join(f"  - {f}" for f in view.data["facts"])
        )

    def render(self, instance: Instance) -> str:
        """The full instance in one canonical form: both notebooks in view a's units or
        currency (as the Spatial and Relational solo controls read theirs);
        :meth:`render_both` keeps each view's own."""
        same = Instance(instance.task, instance.seed, instance.difficulty, instance.data,
                        {s: dict(instance.conventions["a"]) for s in SIDES})
        a, b = self.split(same)
        return (
            f"{self.title}\n\nThe information comes from two notebooks, both in the same "
            "units and currency, stated in each.\n\n"
            f"--- Notebook 1 ---\n{self.render_view(a)}\n\n"
            f"--- Notebook 2 ---\n{self.render_view(b)}"
        )

    def render_both(self, instance: Instance) -> str:
        """The full instance with each view in its own units or currency (``both``)."""
        a, b = self.split(instance)
        return (
            f"{self.title}\n\nThe information comes from two notebooks that use different "
            "units or currencies; each notebook states its own.\n\n"
            f"--- Notebook 1 ---\n{self.render_view(a)}\n\n"
            f"--- Notebook 2 ---\n{self.render_view(b)}"
        )


@register


@register
class KnapsackUnits(SelectionTask):
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

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        cap = None
        items = []
        for book in books:
            if m := re.search(r"may weigh at most (.+?)\.$", book["intro"], flags=re.MULTILINE):
                limit = parse_quantity(m[1])
                if limit is None:
                    raise unreadable(m[0])
                cap = limit[0]
            for line in book["facts"]:
                m = re.fullmatch(r"(\w+): (.+), value (\d+)", line)
                weight = parse_quantity(m[2]) if m else None
                if m is None or weight is None:
                    raise unreadable(line)
                items.append((m[1], weight[0], int(m[3])))
        if cap is None:
            raise ValueError("no weight limit in the text")
        best: tuple[tuple[str, float, int], ...] = ()
        best_value = -1
        for r in range(len(items) + 1):
            for combo in itertools.combinations(items, r):
                if sum(i[1] for i in combo) <= cap and sum(i[2] for i in combo) > best_value:
                    best, best_value = combo, sum(i[2] for i in combo)
        return sorted(i[0] for i in best)


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


_MONEY = r"(€|\$|£|¥|SEK |CHF )([\d,]+(?:\.\d+)?)"


@register
class BudgetCurrency(SelectionTask):
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
        out: dict[str, list] = {}
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
            data: dict[str, Any] = {
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
    def _money(amount: float, currency: str) -> str:
        sym = "€" if currency == "EUR" else CURRENCIES[currency][1]
        return f"{sym}{int(amount):,}" if float(amount).is_integer() else f"{sym}{amount:,.2f}"

    def render(self, instance: Instance) -> str:
        """The full instance in one canonical form: every amount in the budget's currency
        (notebook 1's euro quotes times the two-decimal exchange rate, exact to the cent),
        both notebooks in the same currency; :meth:`render_both` keeps each view's own."""
        rate = instance.data["rate"]
        data = dict(instance.data)
        data["a"] = {**data["a"], "options": {
            cat: [{**o, "price": round(o["price"] * rate, 2)} for o in ops]
            for cat, ops in data["a"]["options"].items()}}
        cur_b = dict(instance.conventions["b"])
        same = Instance(instance.task, instance.seed, instance.difficulty, data,
                        {s: cur_b for s in SIDES})
        a, b = self.split(same)
        return (
            f"{self.title}\n\nThe information comes from two notebooks, both in the same "
            "units and currency, stated in each.\n\n"
            f"--- Notebook 1 ---\n{self.render_view(a)}\n\n"
            f"--- Notebook 2 ---\n{self.render_view(b)}"
        )

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
        """``category=option`` pairs of single words (``:`` also accepted); UNPARSED unless
        every pair reads."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        if not all(WORD.match(k) and WORD.match(v) for k, v in pairs):
            return UNPARSED
        return {k.lower(): v.capitalize() for k, v in pairs}

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

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        m = need(r"1 EUR = ([\d.]+) (\w+)", books[0]["intro"], "exchange rate")
        rate = float(m[1])
        budget = None
        options = {}
        for book in books:
            if bm := re.search(rf"may cost at most {_MONEY}", book["intro"]):
                budget = float(bm[2].replace(",", "")) / (1.0 if bm[1] == "€" else rate)
            for line in book["facts"]:
                cat, _, rest = line.partition(": ")
                opts = []
                for part in rest.split("; "):
                    om = re.fullmatch(rf"(\w+) {_MONEY} \(rating (\d+)\)", part)
                    if not om:
                        raise unreadable(line)
                    eur = float(om[3].replace(",", "")) / (1.0 if om[2] == "€" else rate)
                    opts.append((om[1], eur, int(om[4])))
                options[cat] = opts
        if budget is None:
            raise ValueError("no budget in the text")
        cats = list(options)
        plans = []
        for combo in itertools.product(*[options[c] for c in cats]):
            cost = sum(o[1] for o in combo)
            if cost <= budget:
                plans.append((-sum(o[2] for o in combo), cost, combo))
        plans.sort(key=lambda p: (p[0], p[1]))
        return {c: o[0] for c, o in zip(cats, plans[0][2])}
