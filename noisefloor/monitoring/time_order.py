"""Time order of trial records: by their ISO 8601 time stamps when every record has one.

:func:`order_trials` is the first step of :func:`noisefloor.monitoring.monitor_trials`; the
helpers :func:`where` and :func:`require_trial_frame` name a record by its file and line and
check a frame's columns for the other steps.
"""

from __future__ import annotations

import datetime as _dt
import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.stats.warning_classes import NaiveTimestampWarning

__all__ = ["TIMESTAMP_FIELD", "NaiveTimestampWarning", "order_trials", "require_trial_frame",
           "where"]

#: Field of a trial record's ``extra`` read as its time stamp, when every record has one.
TIMESTAMP_FIELD = "timestamp"


def where(frame: pd.DataFrame, label: Any) -> str:
    """``file:line`` of a row when the frame carries provenance, else its row label.

    Examples
    --------
    >>> where(pd.DataFrame({"source": ["a.jsonl"], "line": [3]}), 0)
    'a.jsonl:3'
    >>> where(pd.DataFrame({"x": [1]}), 0)
    'row 0'
    """
    for src, line in (("source", "line"), ("source_file", "source_line"), ("file", "line")):
        if src in frame.columns and line in frame.columns:
            return f"{frame.at[label, src]!s}:{frame.at[label, line]!s}"
    return f"row {label!r}"


def require_trial_frame(frame: object, name: str, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` if it is a DataFrame with unique row labels and ``columns``; else raise.

    Raises
    ------
    TypeError
        If ``frame`` is not a DataFrame.
    ValueError
        If a column is missing (named) or a row label repeats.

    Examples
    --------
    >>> require_trial_frame(pd.DataFrame({"task_id": ["a"]}), "frame", ["reward"])
    Traceback (most recent call last):
    ...
    ValueError: frame lacks column(s) 'reward'; expected the trial frame of ...
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame of trials, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} lacks column(s) {', '.join(map(repr, missing))}; expected the trial frame of "
            "noisefloor.logs.load_trials"
        )
    if not frame.index.is_unique:
        raise ValueError(f"{name} has duplicate row labels; reset its index first")
    return frame


def order_trials(frame: pd.DataFrame, *, time_field: str = TIMESTAMP_FIELD) -> pd.DataFrame:
    """Put trial records in time order.

    Parameters
    ----------
    frame : pandas.DataFrame
        Trial frame of :func:`noisefloor.logs.load_trials` (an ``extra`` column is optional).
    time_field : str, default "timestamp"
        Key of ``extra`` holding an ISO 8601 time stamp.

    Returns
    -------
    pandas.DataFrame
        The same rows (labels kept). If *every* record has ``extra[time_field]``, rows are sorted
        by it (stable: equal stamps keep file order). A stamp is an ISO 8601 string
        (``datetime.fromisoformat``: ``2026-01-01T12:00:00Z``, ``...+02:00``, a date alone is
        midnight); a stamp without a UTC offset is read as UTC, and a
        :class:`NaiveTimestampWarning` says how many were.
        If *no* record has one, the frame order is kept: the order of the files as given, then
        line order within each file, which is what ``load_trials`` returns.

    Raises
    ------
    ValueError
        If only some records carry a time stamp (the first one without it is named), or a
        time stamp is not an ISO 8601 string: a number (epoch seconds would otherwise be read
        as nanoseconds), a word such as ``"now"``, a malformed date (its file, line and field
        are named).

    Warns
    -----
    NaiveTimestampWarning
        When some stamps carry no UTC offset (read as UTC).

    Examples
    --------
    >>> df = pd.DataFrame({"trial": [0, 1], "extra": [{"timestamp": "2026-01-02T00:00:00Z"},
    ...                                               {"timestamp": "2026-01-01T00:00:00Z"}]})
    >>> order_trials(df)["trial"].tolist()
    [1, 0]
    """
    require_trial_frame(frame, "frame", [])
    if "extra" not in frame.columns or frame.empty:
        return frame
    has = pd.Series([isinstance(e, dict) and e.get(time_field) is not None
                     for e in frame["extra"].tolist()], index=frame.index, dtype=bool)
    if not has.any():
        return frame
    if not has.all():
        label = frame.index[~has.to_numpy()][0]
        raise ValueError(
            f"{where(frame, label)}: extra.{time_field} is missing, but other records carry one; "
            "time order needs it on every record or on none (then file order is used)"
        )
    stamps, naive = [], []
    for label, extra in frame["extra"].items():
        place = f"{where(frame, label)}: extra.{time_field}"
        stamp, is_naive = _parse_stamp(extra[time_field], place)
        stamps.append(stamp)
        if is_naive:
            naive.append(label)
    if naive:
        warnings.warn(
            f"{len(naive)} of {len(stamps)} records carry extra.{time_field} without a UTC offset "
            f"(first: {where(frame, naive[0])}); they are read as UTC. Write the offset "
            "(2026-01-01T12:00:00Z or +02:00) if they were local times",
            NaiveTimestampWarning, stacklevel=2)
    order = np.argsort(np.asarray(stamps, dtype=np.int64), kind="stable")
    return frame.iloc[order]


_FRACTION = re.compile(r"(\d\d:\d\d:\d\d)[.,](\d+)")


def _parse_stamp(value: Any, place: str) -> tuple[int, bool]:
    """``(nanoseconds since the epoch in UTC, had no offset)`` of one ISO 8601 string.

    Only strings are time stamps: a number (epoch seconds? milliseconds?) is ambiguous and is
    refused, and so are words such as ``"now"`` that a general parser would accept.
    """
    if not isinstance(value, str):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        kind = "a number" if number else type(value).__name__
        raise ValueError(
            f"{place} = {value!r:.60} is {kind}, not an ISO 8601 string; epoch numbers are not "
            "read (seconds and nanoseconds cannot be told apart): write e.g. "
            "'2026-01-01T12:00:00Z'")
    # Python 3.10's fromisoformat reads no "Z" and only 3 or 6 fraction digits (3.11 reads both)
    text = value.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    text = _FRACTION.sub(lambda m: m[1] + "." + m[2][:6].ljust(6, "0"), text, count=1)
    try:
        parsed = _dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{place} = {value!r:.60} is not an ISO 8601 time stamp (expected e.g. "
            "'2026-01-01T12:00:00Z' or '2026-01-01T14:00:00+02:00')") from None
    is_naive = parsed.tzinfo is None
    utc = _dt.timezone.utc
    aware = parsed.replace(tzinfo=utc) if is_naive else parsed.astimezone(utc)
    return pd.Timestamp(aware).value, is_naive
