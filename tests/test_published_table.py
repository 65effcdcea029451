"""Count and claim tables read as tables give the row reader's frames and messages.

The row-by-row reader (``_read_rows``: one :mod:`csv` record per line, every cell checked in
order) is the reference: a plain file is read by :func:`pandas.read_csv` and checked over
whole columns, and for every file both must return the same frame or raise the same message
(file, line, field). Each bad-input kind is tested far down a long file, where a check that
reports the wrong row (the header counted twice, a blank line not counted, the first bad row
of one column taken before an earlier bad row of another) names the wrong line.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.audit import published
from noisefloor.audit.published import TableError, read_claims, read_paired_counts
from noisefloor.floor import count_table
from noisefloor.floor.contrast_table import _reversals
from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.stats.warning_classes import CountTotalsWarning

COUNTS = "model,seed,trial,subset,contrast,wins,losses,ties,n"
CLAIMS = "paper,benchmark,reported,effect_low,effect_high,unit"


def _rows(n: int) -> list[str]:
    return [f"m,{s},{t},all,{c},{5 + s % 7},{3 + s % 5},10,{18 + s % 7 + s % 5}"
            for s in range(n // 6 + 1) for t in (0, 1) for c in ("a-b", "c-a", "b-c")][:n]


def _outcome(fn):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("ignore")
            warnings.simplefilter("always", CountTotalsWarning)
            frame = fn()
        return frame, [str(w.message) for w in caught]
    except TableError as exc:
        return ("error", str(exc), exc.line, exc.field)


def _by_rows(fn, path):
    """The same read with the table path switched off: the row reader's outcome."""
    original = published._read_frame
    published._read_frame = lambda raw, display: None
    try:
        return _outcome(lambda: fn(path))
    finally:
        published._read_frame = original


def _same(a, b):
    if isinstance(a[0], str) or isinstance(b[0], str):  # an error
        assert a == b
    else:
        pd.testing.assert_frame_equal(a[0], b[0])
        assert a[1] == b[1]


FAR = 4000  # the row index a bad row replaces; line = FAR + 2 (after the header)


@pytest.mark.parametrize("bad, field, message", [
    ("m,x,1,all,a-b,1,1,1,3", "seed", "expected an integer written with the digits 0-9 only "
     "(no '_' or other separators), got 'x'"),
    ("m,1,,all,a-b,1,1,1,3", "trial", "expected an integer, got an empty field"),
    ("m,1,-1,all,a-b,1,1,1,3", "trial", "expected an integer >= 0, got -1"),
    ("m,1,1,all,ab,1,1,1,3", "contrast", "expected 'a-b', got 'ab'"),
    ("m,1,1,all,-ab,1,1,1,3", "contrast", "expected 'a-b', got '-ab'"),
    ("m,1,1,all,a-b,2_1,1,1,3", "wins", "expected an integer >= 0 written with the digits 0-9 "
     "only (no '_' or other separators), got '2_1'"),
    ("m,1,1,all,a-b,1,-2,1,3", "losses", "expected an integer >= 0, got -2"),
    ("m,1,1,all,a-b,1,1,\u0662,3", "ties", "expected an integer >= 0 written with the digits "
     "0-9 only (no '_' or other separators), got '\u0662'"),
    ("m,1,1,all,a-b,1,1,1,4", "n", "n = 4 but wins + losses + ties = 1 + 1 + 1 = 3; the row "
     "contradicts itself (n counts every paired task, ties included)"),
    ("m,1,1,all,a-b,1,1,1", None, "expected 9 fields (model, seed, trial, subset, contrast, "
     "wins, losses, ties, n), found 8"),
    ("m,1,1,all,a-b,1,1,1,3,4", None, "expected 9 fields (model, seed, trial, subset, "
     "contrast, wins, losses, ties, n), found 10"),
])
def test_each_count_message_names_a_line_far_down(tmp_path, bad, field, message):
    rows = _rows(6000)
    rows[FAR] = bad
    rows[FAR + 500] = "m,y,1,all,a-b,1,1,1,3"  # a later bad row of another column is not named
    p = tmp_path / "counts.csv"
    p.write_text("\n".join([COUNTS, *rows]) + "\n", encoding="utf-8")
    with pytest.raises(TableError) as info:
        read_paired_counts(p)
    where = f"{p}:{FAR + 2}" + (f": field {field!r}" if field else "")
    assert str(info.value) == f"{where}: {message}"
    assert (info.value.line, info.value.field) == (FAR + 2, field)
    assert _by_rows(read_paired_counts, p)[1] == str(info.value)


def test_a_duplicate_far_down_names_both_lines_and_blank_lines_count(tmp_path):
    rows = _rows(6000)
    rows[FAR] = rows[10]  # the same key (and counts) again
    rows.insert(20, "   ")  # a blank line (spaces only) before both: skipped, but counted
    p = tmp_path / "dup.csv"
    p.write_text("\r\n".join([COUNTS, *rows]) + "\r\n", encoding="utf-8")
    with pytest.raises(TableError) as info:
        read_paired_counts(p)
    assert str(info.value) == (f"{p}:{FAR + 3}: field 'contrast': duplicate row: same model, "
                               "benchmark, seed, trial, subset and contrast as line 12")
    assert _by_rows(read_paired_counts, p)[1] == str(info.value)


def test_the_first_bad_row_wins_over_an_earlier_column(tmp_path):
    # row 100 has a bad 'ties', row 200 a bad 'seed': the column order must not decide
    rows = _rows(300)
    rows[100] = rows[100].rsplit(",", 2)[0] + ",x," + rows[100].rsplit(",", 1)[1]
    rows[200] = "m,q" + rows[200][rows[200].index(",", 2):]
    p = tmp_path / "two.csv"
    p.write_text("\n".join([COUNTS, *rows]) + "\n", encoding="utf-8")
    with pytest.raises(TableError, match=r":102: field 'ties'"):
        read_paired_counts(p)


@pytest.mark.parametrize("bad, field, message", [
    (",b,r,1,2,pp", "paper", "expected a non-empty paper name"),
    ("p,b,r,1,,pp", "effect_high", "expected a number (the claim's upper end)"),
    ("p,b,r,1,1_0,pp", "effect_high", "expected a number in percentage points written with "
     "the digits 0-9 and '.' only (no '_' or other separators), got '1_0'"),
    ("p,b,r,1,inf,pp", "effect_high", "expected a finite number, got 'inf'"),
    ("p,b,r,nan,2,pp", "effect_low", "expected a finite number, got 'nan'"),
    ("p,b,r,3,2,pp", "effect_low", "effect_low (3.0) is greater than effect_high (2.0)"),
    ("p,b,r,1,2,", "unit", "expected a unit such as 'pp'"),
    ("p,b,r,1,2", None, "expected 6 fields (paper, benchmark, reported, effect_low, "
     "effect_high, unit), found 5"),
])
def test_each_claim_message_names_a_line_far_down(tmp_path, bad, field, message):
    rows = [f"paper {i},bench,+{i % 9} pp,{i % 3},{3 + i % 5}.5,pp" for i in range(6000)]
    rows[FAR] = bad
    p = tmp_path / "claims.csv"
    p.write_text("\n".join([CLAIMS, *rows]) + "\n", encoding="utf-8")
    with pytest.raises(TableError) as info:
        read_claims(p)
    where = f"{p}:{FAR + 2}" + (f": field {field!r}" if field else "")
    assert str(info.value) == f"{where}: {message}"
    assert _by_rows(read_claims, p)[1] == str(info.value)


_count_cell = st.sampled_from(["0", "1", "7", " 3 ", "+2", "-1", "007", "", "x", "2_1",
                               "99999999999999999999"])
_label = st.sampled_from(["a-b", "b-a", "a-b-c", "c-a-b", "ab", "-a", "x-y"])
_text = st.sampled_from(["", "m", " m ", "all", "coordination_active", "é", "#1"])


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(_text, _count_cell, st.sampled_from(["0", "1", "01"]), _text,
                               _label, _count_cell, _count_cell, _count_cell), max_size=10),
       blank=st.lists(st.integers(0, 10), max_size=2), crlf=st.booleans(),
       short=st.booleans())
def test_count_table_read_equals_the_row_reader(tmp_path, rows, blank, crlf, short):
    lines = [",".join(r) for r in rows]
    for at in blank:
        lines.insert(min(at, len(lines)), " \t")
    if short and lines:
        lines[-1] = lines[-1].rsplit(",", 1)[0]
    eol = "\r\n" if crlf else "\n"
    p = tmp_path / "c.csv"
    p.write_bytes((eol.join(["model,seed,trial,subset,contrast,wins,losses,ties", *lines])
                   + eol).encode())
    _same(_outcome(lambda: read_paired_counts(p)), _by_rows(read_paired_counts, p))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(_text, st.sampled_from(["", "1", " 2.5", "1e1", "nan", "-3",
                                                       ".5", "1_0"]),
                               st.sampled_from(["", "2", "10", "inf", "0.5", "x"]),
                               st.sampled_from(["pp", "", " Proportion ", "points"])),
                     max_size=8))
def test_claims_read_equals_the_row_reader(tmp_path, rows):
    p = tmp_path / "k.csv"
    p.write_text("\n".join(["paper,effect_low,effect_high,unit", *map(",".join, rows)]) + "\n",
                 encoding="utf-8")
    _same(_outcome(lambda: read_claims(p)), _by_rows(read_claims, p))


def _twin_reference(rows: pd.DataFrame) -> str | None:
    """The row loop the vectorised check replaced: the first row whose label reversed was
    already seen under the same keys."""
    keys = [c for c in ("model", "benchmark", "seed", "trial", "subset") if c in rows.columns]
    first: dict = {}
    labels = rows["contrast"].astype(str).tolist()
    for i, key in enumerate(map(tuple, rows[keys].astype(str).to_numpy().tolist())):
        first.setdefault((key, labels[i]), i)
        twins = [first[(key, r)] for r in sorted(_reversals(labels[i])) if (key, r) in first]
        twin = next((t for t in twins if t != i), None)
        if twin is not None:
            return f"{i}:{twin}"
    return None


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from([0, 1]), st.sampled_from([0, 1]),
                               st.sampled_from(["a-b", "b-a", "a-a", "a-b-c", "c-a-b",
                                                "b-c-a", "x-y"])), max_size=12))
def test_reversed_twins_equal_the_row_loop(rows):
    frame = pd.DataFrame(rows, columns=["seed", "trial", "contrast"])
    frame["line"] = np.arange(2, len(frame) + 2)
    expected = _twin_reference(frame)
    try:
        count_table._check_no_reversed_twins(frame)
        got = None
    except ValueError as exc:
        lines = [int(s.split(" ")[-1].rstrip(")")) for s in str(exc).split(":")[0:1]]
        twin_line = int(str(exc).split("(count table line ")[1].split(")")[0])
        got = f"{lines[0] - 2}:{twin_line - 2}"
    assert got == expected
    # small tables take the row walk; the column operations (large tables) must agree too
    labels = frame["contrast"].astype(str).to_numpy(dtype=object)
    for by in (count_table._first_twin_by_rows, count_table._first_twin_by_columns):
        found = by(frame, ["seed", "trial"], labels)
        assert (None if found is None else f"{found[0]}:{found[1]}") == expected, by.__name__


def test_a_twin_far_down_names_both_lines(tmp_path):
    rows = _rows(6000)
    seed = 3
    rows[FAR] = f"m,{seed},1,all,a-c,1,1,1,3"  # c-a is on the row of seed 3, trial 1
    p = tmp_path / "twin.csv"
    p.write_text("\n".join([COUNTS, *rows]) + "\n", encoding="utf-8")
    table = read_paired_counts(p)
    c_a = 2 + rows.index(f"m,{seed},1,all,c-a,{5 + seed},{3 + seed},10,{18 + 2 * seed}")
    with pytest.raises(ValueError) as info:
        null_contrasts_from_counts(table)
    assert str(info.value) == (
        f"{p}:{FAR + 2}: field 'contrast': 'a-c' is 'c-a' ({p}:{c_a}) written the other way "
        "round for the same seed, trial and subset; give each pair of arms once (wins and "
        "losses swap with the order)")
