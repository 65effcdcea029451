"""Annotation CSVs read as tables give the row reader's rows and the row reader's errors.

The row-by-row reader (``_read_csv_rows``, the :mod:`csv` module) is the reference: for every
file the table reader takes, both must return the same frame or raise the same message (file,
line, field). A plausible bug each test catches: a line number off by the header or a blank
line, a short row read as an empty label, the first bad row not being the one reported, a
label parsed differently once per distinct value.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.logs.annotations import read as ann
from noisefloor.logs.annotations.annotation_table import read_csv_table


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return p


def _reference(path: Path, layout: str | None = "auto"):
    """read_annotations with the table reader switched off."""
    original = ann.read_csv_table
    ann.read_csv_table = lambda *a, **k: None
    try:
        return ann.read_annotations(path, layout=layout)
    finally:
        ann.read_csv_table = original


def _outcome(fn):
    try:
        return fn()
    except ann.AnnotationError as exc:
        return ("error", str(exc), exc.line, exc.field)


def _same(a, b):
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert a == b
    else:
        pd.testing.assert_frame_equal(a, b)
        assert [type(x) for x in a["label"]] == [type(x) for x in b["label"]]


def _long_rows(n: int) -> list[str]:
    return [f"{i // 3:04d},r{i % 3},{['yes', 'no', '2', '2.5'][i % 4]}" for i in range(n)]


@pytest.mark.parametrize("where", ["start", "middle", "end"])
@pytest.mark.parametrize("bad, field, message", [
    (",r0,yes", "item", "item is empty"),
    ("0001, ,yes", "rater", "rater is empty"),
    ("0001,r9,  ", "label", "label is empty"),
    ("0001,r9", "<row>", "2 fields but the header has 3"),
])
def test_long_errors_name_file_line_and_field(tmp_path, where, bad, field, message):
    rows = _long_rows(30)
    at = {"start": 0, "middle": 15, "end": 30}[where]
    rows.insert(at, bad)
    p = _write(tmp_path, "a.csv", "item,rater,label\n" + "\n".join(rows) + "\n")
    with pytest.raises(ann.AnnotationError) as info:
        ann.read_annotations(p)
    line = at + 2
    assert str(info.value) == f"{p}:{line}: field {field!r}: {message}"
    assert (info.value.line, info.value.field) == (line, field)


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_wide_errors_name_file_line_and_field(tmp_path, where):
    rows = [f"{i},a,b" for i in range(20)]
    at = {"start": 0, "middle": 10, "end": 20}[where]
    rows.insert(at, " ,x,")
    p = _write(tmp_path, "w.csv", "item,ann,bob\n" + "\n".join(rows) + "\n")
    with pytest.raises(ann.AnnotationError) as info:
        ann.read_annotations(p)
    assert str(info.value) == f"{p}:{at + 2}: field 'item': item is empty"


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_duplicate_and_unknown_rater_name_the_first_line_in_file_order(tmp_path, where):
    rows = _long_rows(30)
    at = {"start": 1, "middle": 15, "end": 30}[where]
    rows.insert(at, rows[at - 1])
    p = _write(tmp_path, "d.csv", "item,rater,label\n" + "\n".join(rows) + "\n")
    with pytest.raises(ann.AnnotationError) as info:
        ann.read_annotations(p)
    item, rater = rows[at].split(",")[:2]
    assert str(info.value) == (f"{p}:{at + 2}: field 'item': item {item!r} is rated twice by "
                               f"rater {rater!r} (first on line {at + 1})")
    with pytest.raises(ann.AnnotationError) as info:
        ann.read_annotations(p, raters=["r0", "r2"])
    first_r1 = 2 + [r.split(",")[1] for r in rows].index("r1")
    if first_r1 < at + 2:  # the unknown rater comes first in file order
        assert str(info.value) == (f"{p}:{first_r1}: field 'rater': unknown rater 'r1'; "
                                   "expected one of ['r0', 'r2']")
    else:
        assert f"{p}:{at + 2}: field 'item'" in str(info.value)


def test_the_table_reader_reads_plain_files_and_leaves_quoted_ones(tmp_path):
    plain = _write(tmp_path, "p.csv", "item,rater,label\r\n1,a,3\r\n\r\n2,a, 4 \r\n")
    frame = read_csv_table(plain, "long", ",", ann._record)
    assert frame is not None
    assert frame[["item", "label", "line"]].values.tolist() == [["1", 3, 2], ["2", 4, 4]]
    quoted = _write(tmp_path, "q.csv", 'item,rater,label\n1,a,"x\ny"\n')
    assert read_csv_table(quoted, "long", ",", ann._record) is None
    assert ann.read_annotations(quoted)["label"].tolist() == ["x\ny"]


_cell = st.sampled_from(["", " ", "a", "b", "1", "2", " 3 ", "2.5", "1e3", "nan", "007", "é"])


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(header=st.sampled_from(["item,rater,label", "item,rater,category,label", "item,ann,bob",
                               "item,category,ann,bob,cy"]),
       rows=st.lists(st.lists(_cell, min_size=0, max_size=6), max_size=12),
       crlf=st.booleans(), tab=st.booleans(), final_newline=st.booleans(), bom=st.booleans())
def test_table_reader_equals_the_row_reader(tmp_path, header, rows, crlf, tab, final_newline,
                                            bom):
    sep, name = ("\t", "t.tsv") if tab else (",", "t.csv")
    eol = "\r\n" if crlf else "\n"
    text = eol.join([header.replace(",", sep)] + [sep.join(r) for r in rows])
    if final_newline:
        text += eol
    p = _write(tmp_path, name, "\ufeff" * bom + text)
    _same(_outcome(lambda: ann.read_annotations(p)), _outcome(lambda: _reference(p)))
    layout = ann.detect_layout(p).layout if header.count(",") else None
    table = _outcome(lambda: read_csv_table(p, layout, sep, ann._record))
    if table is None:  # only a row with too many fields is left to the row reader
        assert any(len(r) > header.count(",") + 1 for r in rows)


def _first_repeat_reference(rows: list[tuple[str, ...]]) -> tuple[int, int]:
    """The first repeated key in file order, by a dict of keys seen: the loop the vectorised
    check replaces."""
    seen: dict[tuple[str, ...], int] = {}
    for i, key in enumerate(rows):
        if key in seen:
            return i, seen[key]
        seen[key] = i
    return len(rows), -1


_ids = st.sampled_from(["", "a", "b", "c", "é", "a b", "10", "9"])


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(_ids, _ids, _ids), max_size=25), order=st.sampled_from(
    ["as drawn", "sorted", "reversed"]))
def test_first_repeat_equals_a_loop_over_rows(rows, order):
    # sorted and reverse-sorted files take the run coding of the item column (no hashing);
    # a bug there (a run counted twice, a sorted check that lets an item come back) would
    # miss a repeat or report the wrong first line
    if order != "as drawn":
        rows = sorted(rows, key=lambda r: (r[1].encode(), r[0], r[2]), reverse=order == "reversed")
    frame = pd.DataFrame(rows, columns=["category", "item", "rater"], dtype=str)
    from noisefloor.logs.annotations.repeats import first_repeat
    assert first_repeat(frame) == _first_repeat_reference(rows)


def test_first_repeat_far_down_a_large_sorted_and_shuffled_file():
    import numpy as np

    from noisefloor.logs.annotations.repeats import first_repeat
    n = 30_000
    items = [f"item{i // 3:06d}" for i in range(n)]
    raters = [("ann", "bob", "cy")[i % 3] for i in range(n)]
    items.insert(n - 5, items[n - 10])  # a second rating of an item by bob, near the end
    raters.insert(n - 5, raters[n - 10])
    frame = pd.DataFrame({"category": "", "item": items, "rater": raters})
    assert first_repeat(frame) == (n - 5, n - 10)  # items not in order: hashed
    order = np.random.default_rng(0).permutation(len(items))
    shuffled = frame.iloc[order].reset_index(drop=True)
    keys = list(zip(shuffled["category"], shuffled["item"], shuffled["rater"]))
    assert first_repeat(shuffled) == _first_repeat_reference(keys)
    ordered = frame.sort_values(["item", "rater"], kind="stable").reset_index(drop=True)
    keys = list(zip(ordered["category"], ordered["item"], ordered["rater"]))
    assert first_repeat(ordered) == _first_repeat_reference(keys)


@pytest.mark.parametrize("layout_header", ["item,rater,label", "item,ann,bob"])
def test_a_bad_byte_far_down_is_named_before_any_later_check(tmp_path, layout_header):
    # the file is decoded once (ASCII skips the copy); a byte that is not UTF-8 on line 5,001
    # is named by line and column, although the reader never decodes the rows it passes on
    rows = [f"{i // 2},{'ab'[i % 2]},{i % 5}" for i in range(6000)] if "rater" in layout_header \
        else [f"{i},{i % 5},{i % 3}" for i in range(6000)]
    data = ("\n".join([layout_header, *rows]) + "\n").encode()
    lines = data.split(b"\n")
    lines[5000] = lines[5000][:2] + b"\xe9" + lines[5000][2:]
    lines[5500] = b"1"  # a short row later on: the encoding error comes first
    p = tmp_path / "bad.csv"
    p.write_bytes(b"\n".join(lines))
    with pytest.raises(ann.AnnotationError) as info:
        ann.read_annotations(p)
    assert str(info.value) == (f"{p}:5001: field '<encoding>': not valid UTF-8 (byte 0xe9 at "
                               "column 3); save the file as UTF-8")
