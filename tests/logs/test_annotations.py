"""Reading long/wide annotation tables: file, line and field in every error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noisefloor.logs.annotations import (
    AnnotationError,
    detect_layout,
    parse_label,
    read_annotations,
)

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "agreement"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_long_csv_with_category(tmp_path):
    p = _write(tmp_path, "a.csv", "item,rater,category,label\n007,ann,L1,1\n007,bob,L1,0\n")
    df = read_annotations(p)
    assert df.to_dict(orient="records") == [
        {"item": "007", "rater": "ann", "label": 1, "category": "L1", "line": 2},
        {"item": "007", "rater": "bob", "label": 0, "category": "L1", "line": 3},
    ]


def test_tax_fixture_reads_completely():
    df = read_annotations(FIX / "tax_annotations.csv")
    assert len(df) == 100 * 5 * 4
    assert set(df["label"]) == {0, 1}
    assert df["line"].min() == 2 and df["line"].max() == 2001


def test_wide_csv_empty_cell_is_missing(tmp_path):
    p = _write(tmp_path, "w.csv", "item,ann,bob,cy\n1,a,a,\n2,b,,b\n")
    df = read_annotations(p)
    assert len(df) == 4
    assert df[["item", "rater", "label", "line"]].values.tolist() == [
        ["1", "ann", "a", 2], ["1", "bob", "a", 2], ["2", "ann", "b", 3], ["2", "cy", "b", 3],
    ]


def test_jsonl_long(tmp_path):
    lines = [{"item": 1, "rater": "a", "label": "yes"}, {"item": 1, "rater": "b", "label": 2.5}]
    p = _write(tmp_path, "a.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    df = read_annotations(p)
    assert df["label"].tolist() == ["yes", 2.5]
    assert df["item"].tolist() == ["1", "1"]


def test_duplicate_rating_names_both_lines(tmp_path):
    p = _write(tmp_path, "d.csv", "item,rater,label\n1,a,x\n1,b,x\n1,a,y\n")
    with pytest.raises(AnnotationError) as exc:
        read_annotations(p)
    msg = str(exc.value)
    assert str(p) in msg and ":4: field" in msg and "first on line 2" in msg and "'item'" in msg
    assert exc.value.line == 4 and exc.value.field == "item"


def test_duplicate_item_row_in_wide_table(tmp_path):
    p = _write(tmp_path, "w.csv", "item,a,b\n1,x,x\n1,y,y\n")
    with pytest.raises(AnnotationError, match=":3: field .item.: .*rated twice by rater 'a'"):
        read_annotations(p)


def test_unknown_rater(tmp_path):
    p = _write(tmp_path, "u.csv", "item,rater,label\n1,a,x\n1,bb,x\n")
    with pytest.raises(AnnotationError, match=r":3: field 'rater': unknown rater 'bb'"):
        read_annotations(p, raters=["a", "b"])


@pytest.mark.parametrize(
    "text, line, field",
    [
        ("item,rater,label\n1,a,\n", 2, "label"),
        ("item,rater,label\n1,,x\n", 2, "rater"),
        ("item,rater,label\n1,a,x\n2,a\n", 3, "<row>"),
        ("rater,label\na,x\n", 1, "item"),
        ("item,rater,item\n1,a,1\n", 1, "item"),
    ],
)
def test_bad_csv_lines(tmp_path, text, line, field):
    p = _write(tmp_path, "b.csv", text)
    with pytest.raises(AnnotationError) as exc:
        read_annotations(p)
    assert (exc.value.line, exc.value.field) == (line, field)
    assert str(p) in str(exc.value)


@pytest.mark.parametrize(
    "text, line, field",
    [
        ('{"item": 1, "rater": "a", "label": "x"}\n{"item": 2, "rater": "a"\n', 2, "<json>"),
        ('{"item": 1, "rater": "a"}\n', 1, "label"),
        ('{"item": 1, "rater": "a", "label": ""}\n', 1, "label"),
        ('{"item": 1, "rater": "a", "label": [1]}\n', 1, "label"),
        ("[1, 2]\n", 1, "<json>"),
    ],
)
def test_bad_jsonl_lines(tmp_path, text, line, field):
    p = _write(tmp_path, "b.jsonl", text)
    with pytest.raises(AnnotationError) as exc:
        read_annotations(p)
    assert (exc.value.line, exc.value.field) == (line, field)


def test_unsupported_and_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_annotations(tmp_path / "nope.csv")
    with pytest.raises(ValueError, match="unsupported annotation file type '.xlsx'"):
        read_annotations(_write(tmp_path, "a.xlsx", "x"))
    with pytest.raises(AnnotationError, match="holds no ratings"):
        read_annotations(_write(tmp_path, "e.csv", "item,rater,label\n"))


def test_parse_label_keeps_strings():
    assert parse_label("007") == 7  # numbers are numbers ...
    assert parse_label("L1") == "L1"  # ... labels stay labels
    assert parse_label("nan") == "nan"


# --- layout detection (user test 2, item 11): explicit, with the reason, and no silent guess ---


@pytest.mark.parametrize(
    "header, missing, as_wide",
    [
        ("item,rater", "label", "one rater column 'rater'"),
        ("item,label", "rater", "one rater column 'label'"),
        ("item,category,rater,extra", "label", "2 rater columns 'rater', 'extra'"),
    ],
)
def test_long_file_missing_a_column_is_named_not_read_as_wide(tmp_path, header, missing, as_wide):
    # item,rater / 1,a used to be read as a wide table with one rater called 'rater', and failed
    # later with "agreement needs at least two human raters; got ['rater']" and no file name.
    p = _write(tmp_path, "x.csv", header + "\n" + ",".join("1" for _ in header.split(",")) + "\n")
    for call in (detect_layout, read_annotations):
        with pytest.raises(AnnotationError) as exc:
            call(p)
        assert (exc.value.line, exc.value.field) == (1, missing)
        msg = str(exc.value)
        assert msg.startswith(f"{p}:1: field {missing!r}: no {missing!r} column: "
                              "a long-layout file needs item, rater, label[, category]")
        assert f"read as wide layout it has {as_wide}" in msg
        assert "set the layout to 'wide'" in msg


def test_layout_given_explicitly_is_obeyed_and_checked(tmp_path):
    p = _write(tmp_path, "x.csv", "item,rater\n1,a\n2,b\n")
    lay = detect_layout(p, "wide")
    assert (lay.layout, lay.reason, lay.columns) == ("wide", "as asked", ("item", "rater"))
    df = read_annotations(p, layout="wide")
    assert df["rater"].tolist() == ["rater", "rater"] and df["label"].tolist() == ["a", "b"]
    w = _write(tmp_path, "w.csv", "item,ann,bob\n1,x,y\n")
    with pytest.raises(AnnotationError, match=r"w.csv:1: field 'rater': no 'rater' column: "
                       r"a long-layout file needs item, rater, label\[, category\]; the header"):
        read_annotations(w, layout="long")
    with pytest.raises(ValueError, match=r"layout must be one of \['auto', 'long', 'wide'\]"):
        detect_layout(w, "tall")


def test_detected_layout_says_why(tmp_path):
    long_ = detect_layout(FIX / "tax_annotations.csv")
    assert long_.describe() == "long layout, since the header has item, rater, label"
    wide = detect_layout(_write(tmp_path, "w.csv", "item,category,ann,bob\n1,L1,x,y\n"))
    assert wide.layout == "wide"
    assert wide.reason == "since the header has no rater or label column, so each other column " \
                          "is a rater"
    assert detect_layout(_write(tmp_path, "a.jsonl", "{}\n")).describe() == \
        "long layout, since JSONL is always long"
    assert detect_layout(w := _write(tmp_path, "v.csv", "item,ann\n1,x\n"), None).layout == "wide"
    assert read_annotations(w, layout=None)["rater"].tolist() == ["ann"]
    with pytest.raises(ValueError, match="JSONL annotation file is always long"):
        detect_layout(tmp_path / "a.jsonl", "wide")


def test_header_without_item_names_both_layouts(tmp_path):
    p = _write(tmp_path, "n.csv", "id,rater,label\n1,a,x\n")
    with pytest.raises(AnnotationError, match=r"n.csv:1: field 'item': no 'item' column .* both "
                       r"layouts need one"):
        read_annotations(p)
    with pytest.raises(AnnotationError, match=r"e.csv:1: field '<header>': the file is empty"):
        detect_layout(_write(tmp_path, "e.csv", ""))


def test_byte_order_mark_and_crlf_are_read(tmp_path):
    # Excel's "CSV UTF-8" starts with a byte-order mark; it is not part of the 'item' column
    csv_path = tmp_path / "bom.csv"
    csv_path.write_bytes(b"\xef\xbb\xbfitem,a,b\r\n1,x,y\r\n2,y,y\r\n")
    df = read_annotations(csv_path)
    assert sorted(df["rater"].unique()) == ["a", "b"] and len(df) == 4
    jsonl = tmp_path / "bom.jsonl"
    jsonl.write_bytes(b'\xef\xbb\xbf{"item": 1, "rater": "a", "label": "x"}\n'
                      b'{"item": 1, "rater": "b", "label": "y"}\n')
    assert read_annotations(jsonl)["line"].tolist() == [1, 2]


@pytest.mark.parametrize("name", ["latin1.csv", "latin1.jsonl"])
def test_non_utf8_names_file_and_line(tmp_path, name):
    path = tmp_path / name
    if name.endswith(".csv"):
        path.write_bytes(b"item,a,b\n1,x,y\n2,\xe9,x\n")
    else:
        path.write_bytes(b'{"item": 1, "rater": "a", "label": "x"}\n'
                         b'{"item": 1, "rater": "b", "label": "\xe9"}\n')
    with pytest.raises(AnnotationError,
                       match=rf"{name}:\d: field '<encoding>': not valid UTF-8 \(byte 0xe9"):
        read_annotations(path)
