"""Text-only solvers of the CSP tasks: the solo-tractability probe.

Each solver reads nothing but ``task.render(instance)`` (the text the solo control sees),
re-derives the puzzle from the sentences of both notebooks, each in its own declared
conventions (chair numbering, cell frame, timezone, clock, units, currency), and solves it by
brute force. When it scores 1.0 the rendering provably contains everything needed. A sentence
it cannot read raises ``ValueError`` naming the line, so a rendering change that loses
information fails loudly instead of silently.

Entry point: :func:`solve` (called by each task's ``solve_text``).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

UTC = dt.timezone.utc
_MONTHS = {
    m: i
    for i, m in enumerate(
        (
            "january february march april may june july august september october november december"
        ).split(),
        1,
    )
}
_MON3 = {m[:3]: i for m, i in _MONTHS.items()}


def solve(task: Any, text: str) -> Any:
    """Solve ``task``'s puzzle from its rendered text alone (see the module docstring)."""
    books = _notebooks(text)
    return _SOLVERS[task.name](task, books)


def _notebooks(text: str) -> list[dict]:
    parts = re.split(r"^--- Notebook \d ---$", text, flags=re.MULTILINE)[1:]
    if len(parts) != 2:
        raise ValueError("rendering does not contain two notebooks")
    books = []
    for part in parts:
        intro, _, facts = part.partition("\nYour constraints:\n")
        if not facts:
            intro, _, facts = part.partition("\nYour notes:\n")
        lines = [re.sub(r"^\s*(?:\d+\.|-)\s*", "", ln).strip() for ln in facts.splitlines()]
        books.append({"intro": intro, "facts": [ln for ln in lines if ln]})
    return books


def _need(pattern: str, text: str, what: str) -> re.Match:
    m = re.search(pattern, text)
    if m is None:
        raise ValueError(f"cannot find {what} in: {text[:200]!r}")
    return m


def _unread(line: str) -> ValueError:
    return ValueError(f"unreadable constraint line: {line!r}")


def _unique(task, setup, cands, constraints):
    keep = np.ones(len(cands), dtype=bool)
    for c in constraints:
        keep &= task._mask(setup, cands, c)
    if keep.sum() != 1:
        raise ValueError(f"text describes {int(keep.sum())} solutions, expected 1")
    return task._answer_of(setup, cands[np.flatnonzero(keep)[0]])


# ----- seating ---------------------------------------------------------------------------
def _seating(task, books):
    guests = [
        g.strip()
        for g in _need(r"one guest per chair: ([^.]+)\.", books[0]["intro"], "guest list")[1].split(
            ","
        )
    ]
    n = len(guests)
    setup = {"guests": guests, "n": n}
    cons = []
    for book in books:
        m = _need(
            r"numbered (\d+) to (\d+) starting at the (window|door) end", book["intro"], "numbering"
        )
        base, window = int(m[1]), m[3] == "window"

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
                r"Between (\w+) and (\w+) (nobody sits|exactly (\d+) (?:person|people) sits?)\.",
                line,
            ):
                cons.append({"t": "gap", "g": g(m[1]), "h": g(m[2]), "k": int(m[4] or 0)})
            elif m := re.fullmatch(r"(\w+) has a lower chair number than (\w+)\.", line):
                lo, hi = (m[1], m[2]) if window else (m[2], m[1])
                cons.append({"t": "lower", "g": g(lo), "h": g(hi)})
            else:
                raise _unread(line)
    return _unique(task, setup, task._candidates(setup), cons)


# ----- sudoku ----------------------------------------------------------------------------
def _sudoku(task, books):
    cons = []
    for book in books:
        for line in book["facts"]:
            if m := re.fullmatch(r"\(row (\d), column (\d)\) = (\d)", line):
                cell = (int(m[1]) - 1) * 4 + int(m[2]) - 1
            elif m := re.fullmatch(r"\(x=(\d), y=(\d)\) = (\d)", line):
                cell = (3 - int(m[2])) * 4 + int(m[1])
            else:
                raise _unread(line)
            cons.append({"t": "given", "cell": cell, "d": int(m[3])})
    setup = {"size": 4}
    return _unique(task, setup, task._candidates(setup), cons)


# ----- map colouring ---------------------------------------------------------------------
def _colouring(task, books):
    from harness.tasks.csp_grid import COLOURS

    towns = [
        t.strip()
        for t in _need(
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
                raise _unread(line)
    setup = {"towns": towns}
    return _unique(task, setup, task._candidates(setup), cons)


# ----- clock readings --------------------------------------------------------------------
def _hm(text: str) -> int:
    """Minutes after midnight of ``13:30`` or ``1:30 PM``."""
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?:\s*([AP])M)?", text.strip())
    if not m:
        raise ValueError(f"unreadable clock time {text!r}")
    h, mi = int(m[1]), int(m[2])
    if m[3]:
        h = h % 12 + (12 if m[3] == "P" else 0)
    return h * 60 + mi


def _stamp(text: str, zone: str, year: int) -> dt.datetime:
    """``Fri 6 Nov 09:30`` or ``Friday, November 6, 3:00 AM`` (optionally ``(UTC-07:00)``)
    in ``zone`` -> aware UTC datetime; of ``year`` and its neighbours, the year whose calendar
    puts that date on the stated weekday."""
    text = text.strip()
    off = re.search(r"\(UTC([+-])(\d{2}):(\d{2})\)$", text)
    text = re.sub(r"\s*\(UTC[^)]*\)$", "", text)
    weekday = text[:3].lower()
    if m := re.fullmatch(r"\w{3} (\d{1,2}) (\w{3}) (\d{2}:\d{2})", text):
        day, month, minutes = int(m[1]), _MON3[m[2].lower()], _hm(m[3])
    elif m := re.fullmatch(r"\w+, (\w+) (\d{1,2}), (\d{1,2}:\d{2} [AP]M)", text):
        day, month, minutes = int(m[2]), _MONTHS[m[1].lower()], _hm(m[3])
    else:
        raise ValueError(f"unreadable date and time {text!r}")
    for y in (year, year - 1, year + 1):
        try:
            naive = dt.datetime(y, month, day, minutes // 60, minutes % 60)
        except ValueError:
            continue
        if naive.strftime("%a").lower() != weekday:
            continue
        if off:
            delta = dt.timedelta(hours=int(off[2]), minutes=int(off[3]))
            tz = dt.timezone(delta if off[1] == "+" else -delta)
            t = naive.replace(tzinfo=tz).astimezone(UTC)
        else:
            t = naive.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
        return t
    raise ValueError(f"no year near {year} puts {text!r} on that weekday")


def _zone(intro: str) -> str:
    return _need(r"local time in ([A-Za-z_]+/[A-Za-z_]+)", intro, "timezone")[1]


# ----- meeting ---------------------------------------------------------------------------
def _meeting(task, books):
    intro = books[0]["intro"]
    date = _need(r"within the UTC day (\d{4}-\d{2}-\d{2})", intro, "UTC day")[1]
    duration = int(_need(r"need a (\d+)-minute call", intro, "duration")[1])
    day0 = dt.datetime.fromisoformat(date).replace(tzinfo=UTC)
    year = day0.year
    cons = []
    for book in books:
        zone = _zone(book["intro"])

        def mins(s, zone=zone):
            return int((_stamp(s, zone, year) - day0).total_seconds() // 60)

        for line in book["facts"]:
            if m := re.fullmatch(r"\w+ is busy from (.+) to (.+)\.", line):
                cons.append({"t": "busy", "s": mins(m[1]), "e": mins(m[2])})
            elif m := re.fullmatch(r"\w+ cannot start before (.+)\.", line):
                cons.append({"t": "from", "m": mins(m[1])})
            elif m := re.fullmatch(r"\w+ must be finished by (.+)\.", line):
                cons.append({"t": "until", "m": mins(m[1])})
            else:
                raise _unread(line)
    setup = {"date": date, "duration": duration}
    return _unique(task, setup, task._candidates(setup), cons)


# ----- delivery --------------------------------------------------------------------------
def _delivery(task, books):
    listed = _need(r"one per hour, to: ([^.]+)\.", books[0]["intro"], "customer list")[1]
    names = [c.strip() for c in listed.split(",")]
    cons = []
    for book in books:
        zone = _zone(book["intro"])
        first_text = _need(
            r"The first delivery is at (.+?) and the last at", book["intro"], "first slot"
        )[1]
        year = int(_need(r"on the UTC date (\d{4})-", book["intro"], "date")[1])
        first = _stamp(first_text, zone, year)

        def slot(s, zone=zone, first=first):
            return int(round((_stamp(s, zone, first.year) - first).total_seconds() / 3600))

        for line in book["facts"]:
            if m := re.fullmatch(r"(\w+) cannot take a delivery before (.+)\.", line):
                cons.append({"t": "earliest", "c": names.index(m[1]), "j": slot(m[2])})
            elif m := re.fullmatch(r"(\w+) needs the delivery no later than (.+)\.", line):
                cons.append({"t": "latest", "c": names.index(m[1]), "j": slot(m[2])})
            elif m := re.fullmatch(r"(\w+) is out for the slot at (.+)\.", line):
                cons.append({"t": "not_slot", "c": names.index(m[1]), "j": slot(m[2])})
            elif m := re.fullmatch(r"(\w+) must be delivered before (\w+)\.", line):
                cons.append({"t": "before", "c": names.index(m[1]), "d": names.index(m[2])})
            else:
                raise _unread(line)
    setup = {"customers": names}
    return _unique(task, setup, task._candidates(setup), cons)


# ----- room booking ----------------------------------------------------------------------
def _rooms(task, books):
    intro = books[0]["intro"]
    rooms = [
        r.strip() for r in _need(r"one of the rooms ([^.]+)\. Two", intro, "rooms")[1].split(",")
    ]
    meetings = []
    for m in re.finditer(r"^\s*- (\w+): (.+?) to (.+?), (\d+) people$", intro, flags=re.MULTILINE):
        meetings.append({"name": m[1], "s": _hm(m[2]), "e": _hm(m[3]), "people": int(m[4])})
    setup = {"meetings": meetings, "rooms": rooms}
    cons = []
    for book in books:
        for line in book["facts"]:
            if m := re.fullmatch(r"(\w+) is already booked from (.+) to (.+)\.", line):
                cons.append({"t": "booked", "r": rooms.index(m[1]), "s": _hm(m[2]), "e": _hm(m[3])})
            elif m := re.fullmatch(r"(\w+) seats at most (\d+) people\.", line):
                cons.append({"t": "cap", "r": rooms.index(m[1]), "cap": int(m[2])})
            else:
                raise _unread(line)
    return _unique(task, setup, task._candidates(setup), cons)


# ----- roster ----------------------------------------------------------------------------
def _roster(task, books):
    from harness.tasks.csp_time import SHIFT_STARTS

    intro = books[0]["intro"]
    m = _need(r"Roster (\d+) workers \(([^)]+)\) over (\d+) consecutive days", intro, "roster size")
    workers = [w.strip() for w in m[2].split(",")]
    days = int(m[3])
    shifts = int(_need(r"Every day has (\d+) shifts", intro, "shift count")[1])
    setup = {"days": days, "shifts": shifts, "workers": workers}

    def shift(span):
        return SHIFT_STARTS.index(_hm(span.split("-")[0]))

    cons = []
    for book in books:
        base = int(_need(r"number the days from (\d)", book["intro"], "day numbering")[1])
        w = workers.index
        for line in book["facts"]:
            if m := re.fullmatch(
                r"(\w+) (works|does not work) the (.+?) shift on day (\d+)\.", line
            ):
                k = (int(m[4]) - base) * shifts + shift(m[3])
                cons.append(
                    {"t": "works" if m[2] == "works" else "not_works", "w": w(m[1]), "k": k}
                )
            elif m := re.fullmatch(r"(\w+) is off on day (\d+)\.", line):
                cons.append({"t": "off", "w": w(m[1]), "d": int(m[2]) - base})
            elif m := re.fullmatch(r"(\w+) never works the (.+?) shift\.", line):
                cons.append({"t": "never_shift", "w": w(m[1]), "s": shift(m[2])})
            else:
                raise _unread(line)
    return _unique(task, setup, task._candidates(setup), cons)


# ----- recipe ----------------------------------------------------------------------------
def _recipe(task, books):
    from harness.tasks.csp_units import parse_quantity

    intro = books[0]["intro"]
    names, domains = [], {}
    for m in re.finditer(r"^\s*- (\w+): ([\d, ]+) (g|ml)$", intro, flags=re.MULTILINE):
        names.append(m[1])
        domains[m[1]] = (m[3], [float(v) for v in m[2].split(",")])
    grid = np.array(list(itertools.product(range(5), repeat=len(names))))
    amounts = np.stack([np.asarray(domains[n][1])[grid[:, i]] for i, n in enumerate(names)], axis=1)
    keep = np.ones(len(grid), dtype=bool)
    for book in books:
        for line in book["facts"]:
            if m := re.fullmatch(r"Use (at least|at most) (.+) of (\w+)\.", line):
                total, cols = amounts[:, names.index(m[3])], None
            elif m := re.fullmatch(
                r"(\w+) and (\w+) together come to (at least|at most) (.+)\.", line
            ):
                cols = [names.index(m[1].lower()), names.index(m[2])]
                total = amounts[:, cols].sum(axis=1)
                m = (None, m[3], m[4])
            else:
                raise _unread(line)
            q = parse_quantity(m[2])
            if q is None:
                raise _unread(line)
            keep &= total >= q[0] if m[1] == "at least" else total <= q[0]
    if keep.sum() != 1:
        raise ValueError(f"text describes {int(keep.sum())} recipes, expected 1")
    row = amounts[np.flatnonzero(keep)[0]]
    return {n: f"{row[i]:g} {domains[n][0]}" for i, n in enumerate(names)}


# ----- knapsack --------------------------------------------------------------------------
def _knapsack(task, books):
    from harness.tasks.csp_units import parse_quantity

    cap = None
    items = []
    for book in books:
        if m := re.search(r"may weigh at most (.+?)\.$", book["intro"], flags=re.MULTILINE):
            cap = parse_quantity(m[1])[0]
        for line in book["facts"]:
            m = re.fullmatch(r"(\w+): (.+), value (\d+)", line)
            if not m or parse_quantity(m[2]) is None:
                raise _unread(line)
            items.append((m[1], parse_quantity(m[2])[0], int(m[3])))
    if cap is None:
        raise ValueError("no weight limit in the text")
    best, best_value = None, -1
    for r in range(len(items) + 1):
        for combo in itertools.combinations(items, r):
            if sum(i[1] for i in combo) <= cap and sum(i[2] for i in combo) > best_value:
                best, best_value = combo, sum(i[2] for i in combo)
    return sorted(i[0] for i in best)


# ----- budget ----------------------------------------------------------------------------
_MONEY = r"(€|\$|£|¥|SEK |CHF )([\d,]+)"


def _budget(task, books):
    m = _need(r"1 EUR = ([\d.]+) (\w+)", books[0]["intro"], "exchange rate")
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
                    raise _unread(line)
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


_SOLVERS = {
    "csp_seating": _seating,
    "csp_sudoku4": _sudoku,
    "csp_graph_colouring": _colouring,
    "csp_meeting_timezones": _meeting,
    "csp_delivery_windows": _delivery,
    "csp_room_booking": _rooms,
    "csp_shift_roster": _roster,
    "csp_recipe_units": _recipe,
    "csp_knapsack_units": _knapsack,
    "csp_budget_currency": _budget,
}
