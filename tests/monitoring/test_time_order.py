"""Issue 13: ``extra.timestamp`` is an ISO 8601 string; numbers and words are refused."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from noisefloor.monitoring import NaiveTimestampWarning, order_trials


def _frame(stamps):
    return pd.DataFrame({"trial": list(range(len(stamps))),
                         "extra": [{"timestamp": t} for t in stamps],
                         "source": "run.jsonl", "line": list(range(1, len(stamps) + 1))})


@pytest.mark.parametrize("bad,match", [
    (1767225600, "is a number, not an ISO 8601 string; epoch numbers are not read"),
    (1767225600.5, "is a number"),
    ("now", "'now' is not an ISO 8601 time stamp"),
    ("today", "is not an ISO 8601"),
    ("1767225600", "is not an ISO 8601"),   # epoch seconds written as a string
    ("2026-13-01T00:00:00Z", "is not an ISO 8601"),
    (True, "is bool, not an ISO 8601 string"),
    ({"t": 1}, "is dict"),
])
def test_bad_stamps_name_file_line_and_field(bad, match):
    df = _frame(["2026-01-01T00:00:00Z", bad])
    with pytest.raises(ValueError, match=match) as info:
        order_trials(df)
    assert str(info.value).startswith("run.jsonl:2: extra.timestamp = ")


def test_epoch_seconds_are_not_read_as_nanoseconds():
    # before: pd.Timestamp(1767225600) was 1970-01-01T00:00:01.767 and sorted first
    with pytest.raises(ValueError, match="epoch"):
        order_trials(_frame(["2026-01-01T00:00:00Z", 1767225600]))


def test_offsets_are_honoured():
    # 12:00+02:00 is 10:00Z, before 11:00Z; 'z' lower case and a date alone are ISO 8601
    df = _frame(["2026-01-01T11:00:00Z", "2026-01-01T12:00:00+02:00", "2025-12-31",
                 "2026-01-01T10:30:00.5z"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", NaiveTimestampWarning)
        with pytest.raises(NaiveTimestampWarning):
            order_trials(df)  # the date alone has no offset
    with pytest.warns(NaiveTimestampWarning, match=r"1 of 4 records .* \(first: run.jsonl:3\); they are read as UTC"):
        out = order_trials(df)
    assert out["trial"].tolist() == [2, 1, 3, 0]


def test_aware_stamps_raise_no_warning(recwarn):
    order_trials(_frame(["2026-01-01T11:00:00Z", "2026-01-01T10:00:00+00:00"]))
    assert not [w for w in recwarn if issubclass(w.category, NaiveTimestampWarning)]


def test_naive_stamps_are_read_as_utc():
    # 12:00 naive = 12:00Z, which is after 13:00+02:00 = 11:00Z
    with pytest.warns(NaiveTimestampWarning):
        out = order_trials(_frame(["2026-01-01T12:00:00", "2026-01-01T13:00:00+02:00"]))
    assert out["trial"].tolist() == [1, 0]


def test_monitor_command_names_the_line_of_an_epoch_stamp(tmp_path):
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from noisefloor.cli.monitor import monitor

    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "monitor"
    records = [json.loads(line) for line in (fixtures / "monitored.jsonl").read_text().splitlines()]
    for i, rec in enumerate(records):
        rec["extra"]["timestamp"] = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z"
    records[3]["extra"]["timestamp"] = 1767225600
    log = tmp_path / "run.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    res = CliRunner().invoke(monitor, [str(log), "--baseline", str(fixtures / "baseline.jsonl")])
    assert res.exit_code == 1 and "internal error" not in res.output
    assert f"{log}:4: extra.timestamp = 1767225600 is a number" in res.output
