"""CSP tasks across timezones: a meeting between two calendars and a van's delivery windows.

Each view's times are written in its own timezone, date style and clock (see
:mod:`harness.tasks.csp.time`); instants are stored canonically as minutes after 00:00 UTC of
the instance's ``date``. Every instance has exactly one solution (see
:mod:`harness.tasks.csp.common`).
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any

import numpy as np

from harness.base import UNPARSED, Instance
from harness.registry import register
from harness.tasks.csp.common import (
    EliminationTask,
    OrderAnswer,
    permutations_array,
    read_only_array,
    word_list,
)
from harness.tasks.csp.notebooks import need, unreadable
from harness.tasks.csp.time import (
    UTC,
    local_stamp,
    offset_minutes,
    parse_instant,
    random_date,
    read_stamp,
    read_zone,
    tz_conventions,
    utc_instant,
    utc_offset_text,
)
from harness.tasks.csp.vocabulary import GUEST_NAMES


# =========================================================================================
@register
class MeetingTimezones(EliminationTask):
    """Find the one meeting start that fits two colleagues' calendars kept in two timezones.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_meeting_timezones")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    '2026-05-13 16:00 UTC'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_meeting_timezones"
    description = (
        "Schedule a call between two colleagues whose calendars are in different "
        "timezones (one 24-hour, one 12-hour clock)."
    )
    answer_format = (
        "the meeting START as date and time in UTC, 'YYYY-MM-DD HH:MM UTC', e.g. "
        "'2026-03-10 14:30 UTC' (an explicit offset such as '+09:00' is also read)"
    )
    title = "Meeting across timezones"

    _DURATION = {0: 60, 1: 60, 2: 90}

    def _build(self, rng, difficulty):
        conv = tz_conventions(rng, difficulty)
        a, b = rng.sample(GUEST_NAMES, 2)
        return (
            {
                "date": random_date(rng).isoformat(),
                "duration": self._DURATION[difficulty],
                "people": {"a": a, "b": b},
            },
            conv,
        )

    def _candidates(self, setup):
        return _slot_array(setup["duration"])

    def _propose(self, rng, setup, target, side):
        start, dur = int(target[0]) * 30, setup["duration"]
        end, day = start + dur, 24 * 60
        kind = rng.choice(["busy", "busy", "busy", "from", "until"])
        if kind == "from" and start > 0:
            return {"t": "from", "side": side, "m": 30 * rng.randrange(0, start // 30 + 1)}
        if kind == "until" and end < day:
            return {"t": "until", "side": side, "m": 30 * rng.randrange(end // 30, day // 30 + 1)}
        length = 30 * rng.randint(1, 6)
        options = [s for s in range(0, day - length + 1, 30) if s + length <= start or s >= end]
        s = rng.choice(options)
        return {"t": "busy", "side": side, "s": s, "e": s + length}

    def _mask(self, setup, cands, c):
        start = cands[:, 0] * 30
        end = start + setup["duration"]
        if c["t"] == "busy":
            return (end <= c["s"]) | (start >= c["e"])
        if c["t"] == "from":
            return start >= c["m"]
        if c["t"] == "until":
            return end <= c["m"]
        raise ValueError(f"unknown meeting constraint {c!r}")

    def _view_lines(self, setup, conv, constraints):
        date, dur = setup["date"], setup["duration"]
        side = "a" if conv["clock"] == "24h" else "b"
        me = setup["people"][side]
        other = setup["people"]["b" if side == "a" else "a"]
        zone = conv["timezone"]
        intro = [
            f"{me} and {other} need a {dur}-minute call. It must start and end within the UTC "
            f"day {date}, that is between {local_stamp(date, 0, conv)} and "
            f"{local_stamp(date, 24 * 60, conv)} in your time.",
            "Calls start on the hour or at half past the hour (in UTC).",
            f"You keep {me}'s calendar. All times in your notes are local time in {zone} "
            f"({utc_offset_text(date, 0, zone)} at the start of that UTC day) on a "
            f"{'24-hour' if conv['clock'] == '24h' else '12-hour'} clock.",
        ]
        facts = []
        for c in sorted(constraints, key=lambda c: c.get("s", c.get("m", 0))):
            if c["t"] == "busy":
                facts.append(
                    f"{me} is busy from {local_stamp(date, c['s'], conv)} to "
                    f"{local_stamp(date, c['e'], conv)}."
                )
            elif c["t"] == "from":
                facts.append(f"{me} cannot start before {local_stamp(date, c['m'], conv)}.")
            else:
                facts.append(f"{me} must be finished by {local_stamp(date, c['m'], conv)}.")
        return {"intro": intro, "facts": facts}

    def _answer_of(self, setup, vector):
        t = utc_instant(setup["date"], int(vector[0]) * 30)
        return f"{t:%Y-%m-%d %H:%M} UTC"

    def _minutes(self, setup, answer) -> int | None:
        t = parse_instant(answer) if isinstance(answer, str) else None
        if t is None:
            return None
        return int((t - utc_instant(setup["date"], 0)).total_seconds() // 60)

    def _vector_of(self, setup, answer):
        m = self._minutes(setup, answer)
        if m is None or m % 30:
            return np.array([-1])
        return np.array([m // 30])

    def grade(self, instance: Instance, answer: Any) -> float:
        """Fraction of rules the proposed start satisfies: every calendar constraint of both
        notebooks, plus "inside the UTC day" and "on the half-hour grid". Only the unique
        solution satisfies all of them."""
        if answer is None or answer is UNPARSED:
            return 0.0
        setup = instance.data["setup"]
        m = self._minutes(setup, answer)
        if m is None:
            return 0.0
        cons = instance.data["constraints"]["a"] + instance.data["constraints"]["b"]
        start, end = m, m + setup["duration"]
        ok = int(0 <= start and end <= 24 * 60) + int(m % 30 == 0)
        for c in cons:
            if c["t"] == "busy":
                ok += int(end <= c["s"] or start >= c["e"])
            elif c["t"] == "from":
                ok += int(start >= c["m"])
            else:
                ok += int(end <= c["m"])
        return ok / (len(cons) + 2)

    def format_answer(self, answer: Any) -> str:
        return str(answer)

    def corrupt(self, instance: Instance, answer: Any) -> Any:
        """The proposed start moved 30 minutes later (another slot, which the unique solution
        rules out)."""
        t = parse_instant(answer)
        if t is None:
            return UNPARSED
        return f"{t + dt.timedelta(minutes=30):%Y-%m-%d %H:%M} UTC"

    def _misread(self, setup, conventions, c):
        # view b's local clock readings taken as view a's local time
        shift = offset_minutes(setup["date"], 0, conventions["b"]["timezone"]) - offset_minutes(
            setup["date"], 0, conventions["a"]["timezone"]
        )
        return {k: (v + shift if k in ("s", "e", "m") else v) for k, v in c.items()}

    def parse(self, text: str) -> Any:
        """Canonical ``'YYYY-MM-DD HH:MM UTC'`` string of the instant read by
        :func:`parse_instant`, or UNPARSED."""
        t = parse_instant(text)
        return UNPARSED if t is None else f"{t:%Y-%m-%d %H:%M} UTC"


    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        intro = books[0]["intro"]
        date = need(r"within the UTC day (\d{4}-\d{2}-\d{2})", intro, "UTC day")[1]
        duration = int(need(r"need a (\d+)-minute call", intro, "duration")[1])
        day0 = dt.datetime.fromisoformat(date).replace(tzinfo=UTC)
        year = day0.year
        cons = []
        for book in books:
            zone = read_zone(book["intro"])

            def mins(s, zone=zone):
                return int((read_stamp(s, zone, year) - day0).total_seconds() // 60)

            for line in book["facts"]:
                if m := re.fullmatch(r"\w+ is busy from (.+) to (.+)\.", line):
                    cons.append({"t": "busy", "s": mins(m[1]), "e": mins(m[2])})
                elif m := re.fullmatch(r"\w+ cannot start before (.+)\.", line):
                    cons.append({"t": "from", "m": mins(m[1])})
                elif m := re.fullmatch(r"\w+ must be finished by (.+)\.", line):
                    cons.append({"t": "until", "m": mins(m[1])})
                else:
                    raise unreadable(line)
        setup = {"date": date, "duration": duration}
        return self._unique(setup, cons)


@lru_cache(maxsize=8)
def _slot_array(duration: int) -> np.ndarray:
    n = (24 * 60 - duration) // 30 + 1
    return read_only_array(np.arange(n, dtype=np.int64).reshape(n, 1))


# =========================================================================================
@register
class DeliveryWindows(OrderAnswer, EliminationTask):
    """Order a van's hourly drop-offs; two dispatchers in different timezones took the
    customers' time windows.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_delivery_windows")
    >>> inst = task.generate(0)
    >>> task.format_answer(task.oracle(inst))
    'Mateo, Quinn, Ines, Jonas, Priya'
    >>> text = "FINAL ANSWER: " + task.format_answer(task.oracle(inst))
    >>> task.grade(inst, task.extract_answer(text))
    1.0
    >>> task.grade(inst, task.solve_text(task.render(inst)))  # solvable from the text alone
    1.0
    """

    name = "csp_delivery_windows"
    entity_key = "customers"
    description = (
        "Order a van's hourly deliveries from customer time windows noted by two "
        "dispatchers in different timezones."
    )
    answer_format = (
        "the customers' names in delivery order, first delivery first, comma "
        "separated, e.g. 'Ada, Bruno, Chiara, Dmitri, Elif'"
    )
    title = "Delivery windows"

    _SIZES = {0: 4, 1: 5, 2: 6}

    def _build(self, rng, difficulty):
        conv = tz_conventions(rng, difficulty)
        n = self._SIZES[difficulty]
        return (
            {
                "date": random_date(rng).isoformat(),
                "first": 60 * rng.randrange(0, 24 - n),
                "customers": sorted(rng.sample(GUEST_NAMES, n)),
            },
            conv,
        )

    def _candidates(self, setup):
        return permutations_array(len(setup["customers"]))

    def _propose(self, rng, setup, target, side):
        n = len(setup["customers"])
        c = rng.randrange(n)
        j = int(target[c])
        kind = rng.choice(["earliest", "latest", "not_slot", "before"])
        if kind == "earliest":
            return {"t": "earliest", "c": c, "j": rng.randint(0, j)}
        if kind == "latest":
            return {"t": "latest", "c": c, "j": rng.randint(j, n - 1)}
        if kind == "not_slot":
            return {"t": "not_slot", "c": c, "j": rng.choice([k for k in range(n) if k != j])}
        d = rng.choice([k for k in range(n) if k != c])
        return {"t": "before", "c": c, "d": d} if j < target[d] else {"t": "before", "c": d, "d": c}

    def _mask(self, setup, cands, c):
        col = cands[:, c["c"]]
        if c["t"] == "earliest":
            return col >= c["j"]
        if c["t"] == "latest":
            return col <= c["j"]
        if c["t"] == "not_slot":
            return col != c["j"]
        if c["t"] == "before":
            return col < cands[:, c["d"]]
        raise ValueError(f"unknown delivery constraint {c!r}")

    def _view_lines(self, setup, conv, constraints):
        date, first, names = setup["date"], setup["first"], setup["customers"]
        n = len(names)
        zone = conv["timezone"]

        def at(j):
            return local_stamp(date, first + 60 * j, conv)

        intro = [
            f"A van makes {n} deliveries on the UTC date {date}, one per hour, to: "
            f"{', '.join(names)}. The first "
            f"delivery is at {at(0)} and the last at {at(n - 1)} (your time); each customer "
            "gets exactly one of these hourly slots.",
            f"Your notes are in local time in {zone} ({utc_offset_text(date, first, zone)} that "
            f"day), {'24-hour' if conv['clock'] == '24h' else '12-hour'} clock. The other "
            "dispatcher works in another timezone.",
        ]
        facts = []
        for c in constraints:
            who = names[c["c"]]
            if c["t"] == "earliest":
                facts.append(f"{who} cannot take a delivery before {at(c['j'])}.")
            elif c["t"] == "latest":
                facts.append(f"{who} needs the delivery no later than {at(c['j'])}.")
            elif c["t"] == "not_slot":
                facts.append(f"{who} is out for the slot at {at(c['j'])}.")
            else:
                facts.append(f"{who} must be delivered before {names[c['d']]}.")
        return {"intro": intro, "facts": facts}

    def _misread(self, setup, conventions, c):
        # view b's clock readings taken as view a's local time: slot index shifts by the
        # offset difference in hours (a fractional slot matches no real slot)
        first = setup["first"]
        shift = (
            offset_minutes(setup["date"], first, conventions["b"]["timezone"])
            - offset_minutes(setup["date"], first, conventions["a"]["timezone"])
        ) / 60
        return dict(c, j=c["j"] + shift) if "j" in c else c

    def parse(self, text: str) -> Any:
        """A list of single-word names (at least two), first delivery first; else UNPARSED."""
        items = word_list(text, min_items=2)
        return UNPARSED if items is None else [i.capitalize() for i in items]

    def _solve_notebooks(self, books: list[dict]) -> Any:
        """Solve from the two notebooks of the full rendering alone (see
        :meth:`EliminationTask._solve_notebooks`)."""
        listed = need(r"one per hour, to: ([^.]+)\.", books[0]["intro"], "customer list")[1]
        names = [c.strip() for c in listed.split(",")]
        cons = []
        for book in books:
            zone = read_zone(book["intro"])
            first_text = need(
                r"The first delivery is at (.+?) and the last at", book["intro"], "first slot"
            )[1]
            year = int(need(r"on the UTC date (\d{4})-", book["intro"], "date")[1])
            first = read_stamp(first_text, zone, year)

            def slot(s, zone=zone, first=first):
                return int(round((read_stamp(s, zone, first.year) - first).total_seconds() / 3600))

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
                    raise unreadable(line)
        setup = {"customers": names}
        return self._unique(setup, cons)
