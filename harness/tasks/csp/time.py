"""Time vocabulary of the CSP tasks: timezone pairs, clock and date writing, and reading them back.

Instants are stored canonically as minutes after 00:00 UTC of the instance's ``date`` (or,
where no timezone is involved, minutes after local midnight). Timezone conversion uses
:mod:`zoneinfo` with the ``tzdata`` package, so results never depend on the machine's local
timezone or on the system's zone database. The tasks live in :mod:`harness.tasks.csp.timezones`
(meeting, deliveries) and :mod:`harness.tasks.csp.rosters` (room booking, shift roster).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any
from zoneinfo import ZoneInfo

from harness.tasks.csp.answers import first_line_block
from harness.tasks.csp.notebooks import need

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
    off = t.utcoffset() or dt.timedelta(0)  # never None: t carries a ZoneInfo
    total = int(off.total_seconds() // 60)
    sign = "+" if total >= 0 else "-"
    return f"UTC{sign}{abs(total) // 60:02d}:{abs(total) % 60:02d}"


_TIME_RE = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[ T]+(?P<h>\d{1,2}):(?P<m>\d{2})(?::00)?"
    r"\s*(?P<ampm>[AaPp]\.?[Mm]\.?)?"
    r"\s*(?P<zone>(?:UTC|GMT)\s*[+-]\d{1,2}(?::?\d{2})?|Z|UTC|GMT|[+-]\d{2}:?\d{2}|[A-Za-z]+/[A-Za-z_]+)?",
    re.IGNORECASE,
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
    >>> parse_instant("2026-03-10 09:30 UTC, if that suits") is None   # read completely or not
    True
    """
    t = first_line_block(text)
    if t is None:
        return None
    m = _TIME_RE.fullmatch(t.strip())
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
        if "/" in zone:  # an IANA name: its case matters (ZoneInfo refuses another)
            return naive.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
        om = re.fullmatch(r"(?:UTC|GMT)?\s*([+-])(\d{1,2}):?(\d{2})?", zone, flags=re.IGNORECASE)
        if not om:
            return None
        off = dt.timedelta(hours=int(om[2]), minutes=int(om[3] or 0))
        off = off if om[1] == "+" else -off
        return naive.replace(tzinfo=dt.timezone(off)).astimezone(UTC)
    except (ValueError, KeyError, OverflowError):
        return None


def offset_minutes(date_iso: str, minutes: int, zone: str) -> int:
    """The UTC offset of ``zone``, in minutes, at ``minutes`` past UTC midnight of ``date_iso``.

    Examples
    --------
    >>> offset_minutes("2026-03-10", 0, "America/New_York"), offset_minutes("2026-03-10", 0, "UTC")
    (-240, 0)
    """
    t = utc_instant(date_iso, minutes).astimezone(ZoneInfo(zone))
    return int((t.utcoffset() or dt.timedelta(0)).total_seconds() // 60)


def tz_conventions(rng: random.Random, difficulty: int) -> dict:
    """The two views' conventions for a timezone task: a pair of :data:`ZONE_PAIRS` at
    ``difficulty`` in random order, view a on a 24-hour clock, view b on a 12-hour one."""
    za, zb = rng.choice(ZONE_PAIRS[difficulty])
    if rng.random() < 0.5:
        za, zb = zb, za
    return {
        "a": {"timezone": za, "clock": "24h", "date_format": "Tue 10 Mar"},
        "b": {"timezone": zb, "clock": "12h", "date_format": "Tuesday, March 10"},
    }


# ----- reading clock times and dates back from a rendering ---------------------------------
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


def read_clock(text: str) -> int:
    """Minutes after midnight of ``13:30`` or ``1:30 PM``."""
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?:\s*([AP])M)?", text.strip())
    if not m:
        raise ValueError(f"unreadable clock time {text!r}")
    h, mi = int(m[1]), int(m[2])
    if m[3]:
        h = h % 12 + (12 if m[3] == "P" else 0)
    return h * 60 + mi


def read_stamp(text: str, zone: str, year: int) -> dt.datetime:
    """``Fri 6 Nov 09:30`` or ``Friday, November 6, 3:00 AM`` (optionally ``(UTC-07:00)``)
    in ``zone`` -> aware UTC datetime; of ``year`` and its neighbours, the year whose calendar
    puts that date on the stated weekday."""
    text = text.strip()
    off = re.search(r"\(UTC([+-])(\d{2}):(\d{2})\)$", text)
    text = re.sub(r"\s*\(UTC[^)]*\)$", "", text)
    weekday = text[:3].lower()
    if m := re.fullmatch(r"\w{3} (\d{1,2}) (\w{3}) (\d{2}:\d{2})", text):
        day, month, minutes = int(m[1]), _MON3[m[2].lower()], read_clock(m[3])
    elif m := re.fullmatch(r"\w+, (\w+) (\d{1,2}), (\d{1,2}:\d{2} [AP]M)", text):
        day, month, minutes = int(m[2]), _MONTHS[m[1].lower()], read_clock(m[3])
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


def read_zone(intro: str) -> str:
    return need(r"local time in ([A-Za-z_]+/[A-Za-z_]+)", intro, "timezone")[1]
