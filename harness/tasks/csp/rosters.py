"""CSP tasks over clock times without timezones: room booking and a shift roster.

One view writes 24-hour times, the other AM/PM (and the roster's days are numbered from 1 in
one view, from 0 in the other). Every instance has exactly one solution (see
:mod:`harness.tasks.csp.common`).
"""

from __future__ import annotations

import datetime as dt
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
from harness.tasks.csp.notebooks import need, unreadable
from harness.tasks.csp.time import clock, read_clock
from harness.tasks.csp.vocabulary import (
    GUEST_NAMES,
    MEETING_NAMES,
    ROOM_NAMES,
    SHIFT_NAMES,
    SHIFT_STARTS,
)


@lru_cache(maxsize=256)
def _room_assignments(times: tuple[tuple[int, int], ...], rooms: int) -> np.ndarray:
    """All room assignments (M, meetings) in which no two overlapping meetings share a room."""
    n = len(times)
    arr = np.array(list(itertools.product(range(rooms), repeat=n)), dtype=np.int64)
    ok = np.ones(len(arr), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            (si, ei), (sj, ej) = times[i], times[j]
            if si < ej and sj < ei:
                ok &= arr[:, i] != arr[:, j]
    return read_only_array(arr[ok])


@register
class RoomBooking(EliminationTask):
    """Assign meetings to rooms given existing bookings; one office writes 24-hour times, the
    other 12-hour times.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_room_booking")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    'Gemini: Birch; Horizon: Cedar; Delta: Cedar; Apollo: Aspen'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_room_booking"
    description = (
        "Put meetings into rooms around existing bookings; one notebook uses the "
        "24-hour clock, the other AM/PM."
    )
    answer_format = (
        "each meeting with its room, separated by semicolons, e.g. "
        "'Apollo: Cedar; Borealis: Aspen; Comet: Cedar'"
    )
    title = "Room booking"

    _SIZES = {0: (3, 3), 1: (4, 3), 2: (5, 4)}

    def _build(self, rng, difficulty):
        n, r = self._SIZES[difficulty]
        meetings = []
        for name in rng.sample(MEETING_NAMES, n):
            length = 30 * rng.randint(1, 4)
            start = 30 * rng.randrange(18, 38 - length // 30 + 1)  # 09:00 .. 19:00
            meetings.append(
                {"name": name, "s": start, "e": start + length, "people": rng.randint(2, 12)}
            )
        conv = {"a": {"clock": "24h"}, "b": {"clock": "12h"}}
        return {"meetings": meetings, "rooms": sorted(rng.sample(ROOM_NAMES, r))}, conv

    def _candidates(self, setup):
        times = tuple((m["s"], m["e"]) for m in setup["meetings"])
        return _room_assignments(times, len(setup["rooms"]))

    def _propose(self, rng, setup, target, side):
        meetings = setup["meetings"]
        r = rng.randrange(len(setup["rooms"]))
        mine = [m for i, m in enumerate(meetings) if target[i] == r]
        others = [m for i, m in enumerate(meetings) if target[i] != r]
        if rng.random() < 0.3:
            need = max([m["people"] for m in mine], default=2)
            return {"t": "cap", "r": r, "cap": rng.randint(need, max(need, 12))}
        if not others:
            return {"t": "cap", "r": r, "cap": max([m["people"] for m in mine], default=2)}
        victim = rng.choice(others)
        # a booking inside a free gap of room r that overlaps the victim meeting
        lo = max([m["e"] for m in mine if m["e"] <= victim["s"]], default=7 * 60)
        hi = min([m["s"] for m in mine if m["s"] >= victim["e"]], default=20 * 60)
        if any(m["s"] < victim["e"] and victim["s"] < m["e"] for m in mine):
            return {"t": "cap", "r": r, "cap": max(m["people"] for m in mine)}
        s = 15 * rng.randint(max(lo, victim["s"] - 60) // 15, victim["s"] // 15)
        e = 15 * rng.randint(-(-victim["e"] // 15), min(hi, victim["e"] + 60) // 15)
        if rng.random() < 0.5:  # sometimes overlap only part of the meeting
            mid = 15 * rng.randint(
                victim["s"] // 15 + 1, max(victim["s"] // 15 + 1, victim["e"] // 15 - 1)
            )
            s, e = (s, mid) if rng.random() < 0.5 else (mid, e)
            if not (s < victim["e"] and victim["s"] < e):
                s, e = victim["s"], victim["e"]
        return {"t": "booked", "r": r, "s": s, "e": e}

    def _mask(self, setup, cands, c):
        meetings = setup["meetings"]
        ok = np.ones(len(cands), dtype=bool)
        for i, m in enumerate(meetings):
            if c["t"] == "booked":
                clash = m["s"] < c["e"] and c["s"] < m["e"]
            elif c["t"] == "cap":
                clash = m["people"] > c["cap"]
            else:
                raise ValueError(f"unknown room constraint {c!r}")
            if clash:
                ok &= cands[:, i] != c["r"]
        return ok

    @staticmethod
    def _hm(minutes: int, style: str) -> str:
        return clock(dt.time((minutes // 60) % 24, minutes % 60), style)

    def _view_lines(self, setup, conv, constraints):
        style = conv["clock"]
        rooms = setup["rooms"]
        intro = [
            f"Today's meetings must each get one of the rooms {', '.join(rooms)}. Two meetings "
            "whose times overlap cannot share a room; a meeting ending exactly when another "
            "starts does not overlap it.",
            "All times in your notes use the "
            + ("24-hour clock." if style == "24h" else "12-hour clock with AM/PM."),
            "Meetings:",
        ]
        for m in setup["meetings"]:
            intro.append(
                f"  - {m['name']}: {self._hm(m['s'], style)} to {self._hm(m['e'], style)}, "
                f"{m['people']} people"
            )
        intro.append(
            "Your notebook lists some facts about the rooms; the other notebook lists the rest."
        )
        facts = []
        for c in constraints:
            room = rooms[c["r"]]
            if c["t"] == "booked":
                facts.append(
                    f"{room} is already booked from {self._hm(c['s'], style)} to "
                    f"{self._hm(c['e'], style)}."
                )
            else:
                facts.append(f"{room} seats at most {c['cap']} people.")
        return {"intro": intro, "facts": facts}

    def _answer_of(self, setup, vector):
        return {m["name"]: setup["rooms"][int(vector[i])] for i, m in enumerate(setup["meetings"])}

    def _vector_of(self, setup, answer):
        if not isinstance(answer, dict):
            return None
        names = [m["name"] for m in setup["meetings"]]
        vec = np.full(len(names), -1)
        for k, v in answer.items():
            mk, rv = canonical_name(str(k), names), canonical_name(str(v), setup["rooms"])
            if mk is not None and rv is not None:
                vec[names.index(mk)] = setup["rooms"].index(rv)
        return vec

    def format_answer(self, answer: Any) -> str:
        return "; ".join(f"{k}: {v}" for k, v in answer.items())

    def _misread(self, setup, conventions, c):
        # view b's "1:30 PM" read on view a's 24-hour clock as 01:30 (the AM/PM suffix lost)
        if c["t"] != "booked":
            return c
        f = lambda m: m - 12 * 60 if m >= 13 * 60 else m  # noqa: E731
        return dict(c, s=f(c["s"]), e=f(c["e"]))

    def parse(self, text: str) -> Any:
        """``Meeting: Room`` pairs (``=`` also accepted) of single words; UNPARSED unless every
        pair reads."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        if not all(WORD.match(k) and WORD.match(v) for k, v in pairs):
            return UNPARSED
        return {k.capitalize(): v.capitalize() for k, v in pairs}

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        intro = books[0]["intro"]
        rooms = [
            r.strip() for r in need(r"one of the rooms ([^.]+)\. Two", intro, "rooms")[1].split(",")
        ]
        meetings = []
        for row in re.finditer(r"^\s*- (\w+): (.+?) to (.+?), (\d+) people$", intro, flags=re.M):
            meetings.append(
                {"name": row[1], "s": read_clock(row[2]), "e": read_clock(row[3]),
                 "people": int(row[4])}
            )
        setup = {"meetings": meetings, "rooms": rooms}
        cons = []
        for book in books:
            for line in book["facts"]:
                if m := re.fullmatch(r"(\w+) is already booked from (.+) to (.+)\.", line):
                    cons.append(
                        {"t": "booked", "r": rooms.index(m[1]), "s": read_clock(m[2]),
                         "e": read_clock(m[3])}
                    )
                elif m := re.fullmatch(r"(\w+) seats at most (\d+) people\.", line):
                    cons.append({"t": "cap", "r": rooms.index(m[1]), "cap": int(m[2])})
                else:
                    raise unreadable(line)
        return self._unique(setup, cons)



@lru_cache(maxsize=8)
def _rosters(days: int, shifts: int, workers: int) -> np.ndarray:
    """All rosters (M, days*shifts): slot ``day*shifts + shift`` -> worker, with distinct
    workers within a day and every worker on exactly days*shifts/workers shifts."""
    per_day = list(itertools.permutations(range(workers), shifts))
    arr = np.array([sum(p, ()) for p in itertools.product(per_day, repeat=days)], dtype=np.int8)
    k = days * shifts // workers
    ok = np.ones(len(arr), dtype=bool)
    for w in range(workers):
        ok &= (arr == w).sum(axis=1) == k
    return read_only_array(arr[ok].astype(np.int64))


@register
class ShiftRoster(EliminationTask):
    """Fill a shift roster; one manager numbers the days from 1 and writes 24-hour shift times,
    the other numbers them from 0 and writes 12-hour shift times.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_shift_roster")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    'Day 1 early: Mateo; Day 1 late: Nadia; Day 2 early: Mateo; ... Day 4 late: Bruno'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_shift_roster"
    description = (
        "Fill a shift roster; one manager numbers days from 1 with 24-hour times, "
        "the other from 0 with AM/PM times."
    )
    answer_format = (
        "one entry per shift, 'Day <n> <early|late|night>: <name>' separated by "
        "semicolons, days numbered FROM 1 (early starts 06:00, late 14:00, night "
        "22:00), e.g. 'Day 1 early: Ada; Day 1 late: Bruno; Day 2 early: Bruno'"
    )
    title = "Shift roster"

    _SIZES = {0: (3, 2, 3), 1: (4, 2, 4), 2: (4, 3, 4)}  # days, shifts per day, workers

    def _build(self, rng, difficulty):
        days, shifts, workers = self._SIZES[difficulty]
        conv = {"a": {"index_base": 1, "clock": "24h"}, "b": {"index_base": 0, "clock": "12h"}}
        return (
            {"days": days, "shifts": shifts, "workers": sorted(rng.sample(GUEST_NAMES, workers))},
            conv,
        )

    def _candidates(self, setup):
        return _rosters(setup["days"], setup["shifts"], len(setup["workers"]))

    def _propose(self, rng, setup, target, side):
        days, shifts, nw = setup["days"], setup["shifts"], len(setup["workers"])
        w = rng.randrange(nw)
        kind = rng.choice(["works", "not_works", "not_works", "off", "never_shift"])
        mine = [k for k in range(days * shifts) if target[k] == w]
        if kind == "works":
            return {"t": "works", "w": w, "k": rng.choice(mine)}
        if kind == "off":
            free = [
                d for d in range(days) if all(target[d * shifts + s] != w for s in range(shifts))
            ]
            if free:
                return {"t": "off", "w": w, "d": rng.choice(free)}
        if kind == "never_shift":
            unused = [
                s for s in range(shifts) if all(target[d * shifts + s] != w for d in range(days))
            ]
            if unused:
                return {"t": "never_shift", "w": w, "s": rng.choice(unused)}
        other = [k for k in range(days * shifts) if target[k] != w]
        return {"t": "not_works", "w": w, "k": rng.choice(other)}

    def _mask(self, setup, cands, c):
        if c["t"] == "const":  # only produced by the naive reading (a day that does not exist)
            return np.full(len(cands), bool(c["v"]))
        shifts, w = setup["shifts"], c["w"]
        if c["t"] == "works":
            return cands[:, c["k"]] == w
        if c["t"] == "not_works":
            return cands[:, c["k"]] != w
        if c["t"] == "off":
            return (cands[:, c["d"] * shifts : (c["d"] + 1) * shifts] != w).all(axis=1)
        if c["t"] == "never_shift":
            return (cands[:, c["s"] :: shifts] != w).all(axis=1)
        raise ValueError(f"unknown roster constraint {c!r}")

    @staticmethod
    def _day(setup, conv, d):
        return f"day {d + conv['index_base']}"

    @staticmethod
    def _shift(conv, s):
        a, b = SHIFT_STARTS[s], SHIFT_STARTS[s] + 8 * 60
        f = lambda m: clock(dt.time((m // 60) % 24, m % 60), conv["clock"])  # noqa: E731
        return f"{f(a)}-{f(b)}"

    def _view_lines(self, setup, conv, constraints):
        days, shifts = setup["days"], setup["shifts"]
        first, last = self._day(setup, conv, 0), self._day(setup, conv, days - 1)
        k = days * shifts // len(setup["workers"])
        shift_list = ", ".join(self._shift(conv, s) for s in range(shifts))
        intro = [
            f"Roster {len(setup['workers'])} workers ({', '.join(setup['workers'])}) over "
            f"{days} consecutive days, {first} to {last}. Every day has {shifts} shifts: "
            f"{shift_list}. Each shift needs exactly one worker.",
            f"Everyone works exactly {k} shifts, and nobody works two shifts on the same day.",
            (
                f"Your notes number the days from {conv['index_base']} (the first day is "
                f"{self._day(setup, conv, 0)}) and use the "
                f"{'24-hour clock' if conv['clock'] == '24h' else '12-hour clock with AM/PM'}."
            ),
        ]
        facts = []
        for c in constraints:
            who = setup["workers"][c["w"]]
            if c["t"] in ("works", "not_works"):
                d, s = divmod(c["k"], shifts)
                verb = "works" if c["t"] == "works" else "does not work"
                facts.append(
                    f"{who} {verb} the {self._shift(conv, s)} shift on {self._day(setup, conv, d)}."
                )
            elif c["t"] == "off":
                facts.append(f"{who} is off on {self._day(setup, conv, c['d'])}.")
            else:
                facts.append(f"{who} never works the {self._shift(conv, c['s'])} shift.")
        return {"intro": intro, "facts": facts}

    def _slot_key(self, setup, k):
        d, s = divmod(k, setup["shifts"])
        return f"Day {d + 1} {SHIFT_NAMES[s]}"

    def _answer_of(self, setup, vector):
        return {self._slot_key(setup, k): setup["workers"][int(w)] for k, w in enumerate(vector)}

    def _vector_of(self, setup, answer):
        if not isinstance(answer, dict):
            return None
        keys = [self._slot_key(setup, k) for k in range(setup["days"] * setup["shifts"])]
        vec = np.full(len(keys), -1)
        for key, who in answer.items():
            if key in keys:
                canon = canonical_name(str(who), setup["workers"])
                if canon is not None:
                    vec[keys.index(key)] = setup["workers"].index(canon)
        return vec

    def format_answer(self, answer: Any) -> str:
        return "; ".join(f"{k}: {v}" for k, v in answer.items())

    def _misread(self, setup, conventions, c):
        # view b's 0-based "day k" read as view a's 1-based "day k" (one day earlier); a fact
        # about "day 0" then names no day at all
        shifts = setup["shifts"]
        if c["t"] in ("works", "not_works"):
            d, s = divmod(c["k"], shifts)
            if d == 0:
                return {"t": "const", "v": c["t"] == "not_works"}
            return dict(c, k=(d - 1) * shifts + s)
        if c["t"] == "off":
            return {"t": "const", "v": True} if c["d"] == 0 else dict(c, d=c["d"] - 1)
        return c

    def parse(self, text: str) -> Any:
        """``Day <n> <early|late|night>: <name>`` pairs, any case. Returns
        ``{"Day 1 early": "Ada", ...}``, or UNPARSED unless every pair reads."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        out = {}
        for k, v in pairs:
            m = re.fullmatch(r"day\s*(\d{1,2})\s+(early|late|night)(?:\s+shift)?", k.strip(), re.I)
            if not (m and WORD.match(v)):
                return UNPARSED
            out[f"Day {int(m[1])} {m[2].lower()}"] = v.capitalize()
        return out

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        intro = books[0]["intro"]
        size = need(
            r"Roster (\d+) workers \(([^)]+)\) over (\d+) consecutive days", intro, "roster size"
        )
        workers = [w.strip() for w in size[2].split(",")]
        days = int(size[3])
        shifts = int(need(r"Every day has (\d+) shifts", intro, "shift count")[1])
        setup = {"days": days, "shifts": shifts, "workers": workers}

        def shift(span):
            return SHIFT_STARTS.index(read_clock(span.split("-")[0]))

        cons = []
        for book in books:
            base = int(need(r"number the days from (\d)", book["intro"], "day numbering")[1])
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
                    raise unreadable(line)
        return self._unique(setup, cons)
