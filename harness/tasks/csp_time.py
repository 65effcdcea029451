"""CSP tasks over clock times: a meeting across timezones, delivery windows across timezones,
room booking in 12-hour and 24-hour time, and a shift roster with weekday names versus ISO dates.

Instants are stored canonically as minutes after 00:00 UTC of the instance's ``date`` (or,
where no timezone is involved, minutes after local midnight). Timezone conversion uses
:mod:`zoneinfo` with the ``tzdata`` package, so results never depend on the machine's local
timezone or on the system's zone database.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from harness.base import UNPARSED, Instance
from harness.registry import register
from harness.tasks.csp_common import (
    WORD,
    EliminationTask,
    OrderAnswer,
    canonical_name,
    first_line_block,
    parse_pairs,
    permutations_array,
    read_only_array,
    word_list,
)
from harness.tasks.csp_grid import GUEST_NAMES

UTC = dt.timezone.utc

#: Timezone pairs by difficulty: whole-hour offsets, then pairs whose offset difference changes
#: with daylight saving, then half-hour offsets.
ZONE_PAIRS = {
    0: (
        ("Europe/London", "Europe/Berlin"),
        ("America/New_York", "America/Chicago"),
        ("Europe/Lisbon", "Europe/Madrid"),
        ("America/Denver", "America/Los_Angeles"),
    ),
    1: (
        ("Asia/Tokyo", "America/New_York"),
        ("Europe/Paris", "America/Los_Angeles"),
        ("Australia/Sydney", "Europe/London"),
        ("America/Sao_Paulo", "Europe/Berlin"),
        ("Asia/Singapore", "America/Chicago"),
        ("Europe/Madrid", "America/Denver"),
    ),
    2: (
        ("Asia/Kolkata", "America/New_York"),
        ("Australia/Adelaide", "Europe/Paris"),
        ("America/St_Johns", "Asia/Tokyo"),
        ("Asia/Tehran", "America/Los_Angeles"),
        ("Asia/Kolkata", "Australia/Sydney"),
    ),
}


def random_date(rng: random.Random, year: int = 2026) -> dt.date:
    """A uniformly drawn calendar date of ``year``."""
    start = dt.date(year, 1, 1)
    return start + dt.timedelta(days=rng.randrange((dt.date(year + 1, 1, 1) - start).days))


def utc_instant(date_iso: str, minutes: int) -> dt.datetime:
    """The aware UTC datetime ``minutes`` after 00:00 UTC of ``date_iso``."""
    d = dt.date.fromisoformat(date_iso)
    return dt.datetime(d.year, d.month, d.day, tzinfo=UTC) + dt.timedelta(minutes=int(minutes))


def clock(t: dt.datetime | dt.time, style: str) -> str:
    """``"18:30"`` for style ``"24h"``, ``"6:30 PM"`` for ``"12h"`` (noon is 12:00 PM,
    midnight 12:00 AM).

    Examples
    --------
    >>> clock(dt.time(0, 30), "12h"), clock(dt.time(12, 0), "12h"), clock(dt.time(18, 30), "24h")
    ('12:30 AM', '12:00 PM', '18:30')
    """
    h, m = t.hour, t.minute
    if style == "24h":
        return f"{h:02d}:{m:02d}"
    return f"{(h % 12) or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"


def local_stamp(date_iso: str, minutes: int, conv: dict) -> str:
    """The instant in the view's timezone, date style and clock style.

    ``conv`` needs ``timezone`` and ``clock``; 24-hour views write ``Tue 10 Mar 18:30``,
    12-hour views write ``Tuesday, March 10, 6:30 PM``.
    """
    t = utc_instant(date_iso, minutes).astimezone(ZoneInfo(conv["timezone"]))
    if conv["clock"] == "24h":
        text = f"{t:%a} {t.day} {t:%b} {clock(t, '24h')}"
    else:
        text = f"{t:%A}, {t:%B} {t.day}, {clock(t, '12h')}"
    if _ambiguous(t):  # the repeated hour when clocks go back: name the offset
        text += f" ({utc_offset_text(date_iso, minutes, conv['timezone'])})"
    return text


def _ambiguous(t: dt.datetime) -> bool:
    """Whether the wall-clock reading of aware ``t`` occurs twice in its zone (DST fall-back)."""
    naive = t.replace(tzinfo=None)
    z = t.tzinfo
    return (
        naive.replace(tzinfo=z, fold=0).utcoffset() != naive.replace(tzinfo=z, fold=1).utcoffset()
    )


def utc_offset_text(date_iso: str, minutes: int, zone: str) -> str:
    t = utc_instant(date_iso, minutes).astimezone(ZoneInfo(zone))
    off = t.utcoffset()
    total = int(off.total_seconds() // 60)
    sign = "+" if total >= 0 else "-"
    return f"UTC{sign}{abs(total) // 60:02d}:{abs(total) % 60:02d}"


_TIME_RE = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[ T]+(?P<h>\d{1,2}):(?P<m>\d{2})(?::00)?"
    r"\s*(?P<ampm>[AaPp]\.?[Mm]\.?)?"
    r"\s*(?P<zone>(?:UTC|GMT)\s*[+-]\d{1,2}(?::?\d{2})?|Z|UTC|GMT|[+-]\d{2}:?\d{2}|[A-Za-z]+/[A-Za-z_]+)?"
)


def parse_instant(text: Any) -> dt.datetime | None:
    """Read ``YYYY-MM-DD HH:MM`` with an explicit zone (``UTC``, ``Z``, ``+05:30``,
    ``UTC-4``, or an IANA name such as ``Asia/Tokyo``) and an optional AM/PM; return an aware
    UTC datetime, or ``None``. A time without a zone is read as UTC, as the format asks.

    Examples
    --------
    >>> parse_instant("2026-03-10 09:30 Asia/Tokyo")
    datetime.datetime(2026, 3, 10, 0, 30, tzinfo=datetime.timezone.utc)
    >>> parse_instant("sometime tomorrow") is None
    True
    """
    t = first_line_block(text)
    if t is None:
        return None
    m = _TIME_RE.search(t)
    if not m:
        return None
    try:
        d = dt.date.fromisoformat(m["date"])
        h, mi = int(m["h"]), int(m["m"])
        if m["ampm"]:
            if not 1 <= h <= 12:
                return None
            h = h % 12 + (12 if m["ampm"][0].lower() == "p" else 0)
        if not (0 <= h <= 23 and 0 <= mi <= 59):
            return None
        naive = dt.datetime(d.year, d.month, d.day, h, mi)
        zone = (m["zone"] or "UTC").strip()
        if zone.upper() in ("Z", "UTC", "GMT"):
            return naive.replace(tzinfo=UTC)
        if "/" in zone:
            return naive.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
        om = re.fullmatch(r"(?:UTC|GMT)?\s*([+-])(\d{1,2}):?(\d{2})?", zone, flags=re.IGNORECASE)
        if not om:
            return None
        off = dt.timedelta(hours=int(om[2]), minutes=int(om[3] or 0))
        off = off if om[1] == "+" else -off
        return naive.replace(tzinfo=dt.timezone(off)).astimezone(UTC)
    except (ValueError, KeyError, OverflowError):
        return None


def _offset_minutes(date_iso: str, minutes: int, zone: str) -> int:
    t = utc_instant(date_iso, minutes).astimezone(ZoneInfo(zone))
    return int(t.utcoffset().total_seconds() // 60)


def _tz_conventions(rng: random.Random, difficulty: int) -> dict:
    za, zb = rng.choice(ZONE_PAIRS[difficulty])
    if rng.random() < 0.5:
        za, zb = zb, za
    return {
        "a": {"timezone": za, "clock": "24h", "date_format": "Tue 10 Mar"},
        "b": {"timezone": zb, "clock": "12h", "date_format": "Tuesday, March 10"},
    }


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

    def _setup(self, rng, difficulty):
        conv = _tz_conventions(rng, difficulty)
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
        return f"{t + dt.timedelta(minutes=30):%Y-%m-%d %H:%M} UTC"

    def _naive_constraint(self, setup, conventions, c):
        # view b's local clock readings taken as view a's local time
        shift = _offset_minutes(setup["date"], 0, conventions["b"]["timezone"]) - _offset_minutes(
            setup["date"], 0, conventions["a"]["timezone"]
        )
        return {k: (v + shift if k in ("s", "e", "m") else v) for k, v in c.items()}

    def parse(self, text: str) -> Any:
        """Canonical ``'YYYY-MM-DD HH:MM UTC'`` string of the instant read by
        :func:`parse_instant`, or UNPARSED."""
        t = parse_instant(text)
        return UNPARSED if t is None else f"{t:%Y-%m-%d %H:%M} UTC"


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

    def _setup(self, rng, difficulty):
        conv = _tz_conventions(rng, difficulty)
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

    def _naive_constraint(self, setup, conventions, c):
        # view b's clock readings taken as view a's local time: slot index shifts by the
        # offset difference in hours (a fractional slot matches no real slot)
        first = setup["first"]
        shift = (
            _offset_minutes(setup["date"], first, conventions["b"]["timezone"])
            - _offset_minutes(setup["date"], first, conventions["a"]["timezone"])
        ) / 60
        return dict(c, j=c["j"] + shift) if "j" in c else c

    def parse(self, text: str) -> Any:
        """A list of single-word names (at least two), first delivery first; else UNPARSED."""
        items = word_list(text, min_items=2)
        return UNPARSED if items is None else [i.capitalize() for i in items]


# =========================================================================================
MEETING_NAMES = ("Apollo", "Borealis", "Comet", "Delta", "Echo", "Falcon", "Gemini", "Horizon")
ROOM_NAMES = ("Aspen", "Birch", "Cedar", "Maple")


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

    def _setup(self, rng, difficulty):
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

    def _naive_constraint(self, setup, conventions, c):
        # view b's "1:30 PM" read on view a's 24-hour clock as 01:30 (the AM/PM suffix lost)
        if c["t"] != "booked":
            return c
        f = lambda m: m - 12 * 60 if m >= 13 * 60 else m  # noqa: E731
        return dict(c, s=f(c["s"]), e=f(c["e"]))

    def parse(self, text: str) -> Any:
        """``Meeting: Room`` pairs (``=`` also accepted) of single words; UNPARSED if none."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        out = {
            k.capitalize(): v.capitalize() for k, v in pairs if WORD.match(k) and WORD.match(v)
        }
        return out or UNPARSED


# =========================================================================================
SHIFT_NAMES = ("early", "late", "night")
SHIFT_STARTS = (6 * 60, 14 * 60, 22 * 60)


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

    def _setup(self, rng, difficulty):
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

    def _naive_constraint(self, setup, conventions, c):
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
        ``{"Day 1 early": "Ada", ...}`` or UNPARSED if no pair reads."""
        pairs = parse_pairs(text)
        if not pairs:
            return UNPARSED
        out = {}
        for k, v in pairs:
            m = re.fullmatch(r"day\s*(\d{1,2})\s+(early|late|night)(?:\s+shift)?", k.strip(), re.I)
            if m and WORD.match(v):
                out[f"Day {int(m[1])} {m[2].lower()}"] = v.capitalize()
        return out or UNPARSED
