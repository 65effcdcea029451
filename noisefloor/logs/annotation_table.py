"""Annotation CSVs read as tables: one :func:`pandas.read_csv` call and vectorised checks.

:func:`read_csv_table` gives the rows that the row-by-row reader of
:mod:`noisefloor.logs.annotations` gives, with the same errors: every check (a row with too
many or too few fields, an empty item, rater or label) runs over whole columns, and the first
bad row in file order is handed to that module's own record check, which raises the message
naming file, line and field. Labels are parsed once per distinct value
(:func:`noisefloor.logs.annotations.parse_label`), so a million ratings on a five-point scale
cost five parses.

Line numbers come from the file's physical lines, so the table reader takes only files where
every row is one line: no ``"`` (a quoted field may span lines) and no carriage return that is
not part of ``\\r\\n``. It returns None for any other file, which the row-by-row reader then
reads.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

__all__ = ["read_csv_table"]

_COLUMNS = ["item", "rater", "label", "category", "line"]


def _field_counts(raw: bytes, delimiter: str) -> np.ndarray:
    """Fields on each physical line, the header's first (the text after a final newline is
    not a line)."""
    data = np.frombuffer(raw, dtype=np.uint8)
    ends = np.flatnonzero(data == 10)
    if not raw.endswith(b"\n"):
        ends = np.append(ends, len(raw))
    cuts = np.searchsorted(np.flatnonzero(data == ord(delimiter)), ends)
    return np.diff(cuts, prepend=0) + 1  # delimiters before each line's end, per line


class AnnotationError(ValueError):
    """A bad annotation record; the message names the file, line and field."""

    def __init__(self, path: Path | str, line: int, field: str, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        super().__init__(f"{path}:{line}: field {field!r}: {message}")


def parse_label(text: Any) -> Any:
    """A label as written: integers become ``int``, other numbers ``float``, the rest ``str``.

    Examples
    --------
    >>> parse_label("3"), parse_label("2.5"), parse_label(" yes "), parse_label(True)
    (3, 2.5, 'yes', 1)
    """
    if isinstance(text, bool):
        return int(text)
    if isinstance(text, int):
        return text
    if isinstance(text, float):
        return int(text) if text.is_integer() else text
    s = str(text).strip()
    try:
        return int(s)
    except ValueError:
        pass
    try:
        x = float(s)
    except ValueError:
        return s
    if not math.isfinite(x):
        return s
    return int(x) if x.is_integer() else x


def _stripped(values: pd.Series) -> pd.Series:
    return values.str.strip()


def _parsed_labels(cells: pd.Series) -> list[Any]:
    """:func:`parse_label` of each cell, computed once per distinct cell."""
    codes, uniques = pd.factorize(cells.to_numpy(dtype=object))
    parsed = np.empty(len(uniques), dtype=object)
    parsed[:] = [parse_label(u) for u in uniques]
    return parsed[codes].tolist()


# the characters Python's str.strip() removes (str.isspace), for Arrow's utf8_trim
_PY_WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
# bytes that may be (part of) whitespace inside a line: ASCII space and controls, any non-ASCII
_MAY_STRIP = np.zeros(256, dtype=bool)
_MAY_STRIP[[0x20, 0x09, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F, 0x0D]] = True
_MAY_STRIP[0x80:] = True
_STR_DTYPE = pd.Series(["a"]).dtype  # what a column of Python strings becomes


def _long_arrow(path: Path, body: bytes, header: list[str], delimiter: str,
                record: Any) -> pd.DataFrame:
    """The long layout when every line has the header's field count: Arrow's CSV reader and
    Arrow compute kernels, no Python object per cell."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(len(header))]
    table = pacsv.read_csv(
        pa.BufferReader(body),
        read_options=pacsv.ReadOptions(column_names=names),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                         ignore_empty_lines=False),
        convert_options=pacsv.ConvertOptions(
            column_types={n: pa.string() for n in names}, strings_can_be_null=False,
            quoted_strings_can_be_null=False))
    raw = {h: table.column(n).combine_chunks() for h, n in zip(header, names)}
    data = np.frombuffer(body, dtype=np.uint8)
    if _MAY_STRIP[data].any():  # some cell may start or end with whitespace
        cells = {h: pc.utf8_trim(a, characters=_PY_WHITESPACE) for h, a in raw.items()}
    else:
        cells = raw
    empty = {h: pc.equal(pc.utf8_length(a), 0).to_numpy(zero_copy_only=False)
             for h, a in cells.items()}
    blank = np.logical_and.reduce(list(empty.values()))
    bad = (empty["item"] | empty["rater"] | empty["label"]) & ~blank
    line = np.arange(2, len(blank) + 2)
    category = cells.get("category")
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        record(path, int(line[row]), cells["item"][row].as_py(), cells["rater"][row].as_py(),
               raw["label"][row].as_py(), None if category is None else category[row].as_py())
        raise AssertionError("the record check accepted a row the table check refused")
    if blank.any():
        keep = pa.array(~blank)
        cells = {h: a.filter(keep) for h, a in cells.items()}
        line = line[~blank]
    encoded = pc.dictionary_encode(cells["label"])
    labels = pd.Series([parse_label(u) for u in encoded.dictionary.to_pylist()])
    n = len(line)
    return pd.DataFrame({
        "item": _text_array(cells["item"]),
        "rater": _text_array(cells["rater"]),
        "label": labels.take(encoded.indices.to_numpy(zero_copy_only=False)).to_numpy(),
        "category": (_text_array(pa.repeat(pa.scalar("", pa.string()), n))
                     if category is None else _text_array(cells["category"])),
        "line": line}, columns=_COLUMNS)


def _text_array(values: Any) -> ExtensionArray:
    """A pyarrow string array as a pandas array of the dtype a column of Python strings gets."""
    # pandas takes any dtype object; pandas-stubs 2.x has no overload for a dtype held in a
    # variable (pandas-stubs 3.x has)
    return pd.array(values, dtype=_STR_DTYPE)  # type: ignore[call-overload, unused-ignore]


def read_csv_table(path: Path, layout: str, delimiter: str, record: Any) -> pd.DataFrame | None:
    """Read an annotation CSV (header checked for ``layout`` already) as a long DataFrame.

    Parameters
    ----------
    path : Path
        A UTF-8 CSV (or TSV) file; a byte-order mark is skipped.
    layout : {"long", "wide"}
        The layout :func:`noisefloor.logs.annotations.detect_layout` chose.
    delimiter : str
        ``","`` or ``"\\t"``.
    record : callable
        ``record(path, line, item, rater, label, category)``: the row-by-row reader's check of
        one rating; it is called on the first bad rating only, to raise its error.

    Returns
    -------
    pandas.DataFrame or None
        Columns ``item``, ``rater``, ``label``, ``category``, ``line``, one row per rating in
        file order; None for a file this reader leaves to the row-by-row one (see the module
        notes).

    Raises
    ------
    AnnotationError
        The first bad row in file order: too many or too few fields (field ``<row>``), an
        empty item, rater or (long layout) label.
    """
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if b'"' in raw or raw.count(b"\r") != raw.count(b"\r\n"):
        return None
    first_end = raw.find(b"\n")
    if first_end < 0:
        return pd.DataFrame({c: [] for c in _COLUMNS})
    header = [h.strip() for h in raw[:first_end].decode("utf-8").rstrip("\r").split(delimiter)]
    counts = _field_counts(raw, delimiter)[1:]
    body = raw[first_end + 1:]
    if not body:
        return pd.DataFrame({c: [] for c in _COLUMNS})
    if layout == "long" and (counts == len(header)).all():
        return _long_arrow(path, body, header, delimiter, record)
    if (counts > len(header)).any():
        # pandas refuses such a row outright, while the row reader first reports any earlier
        # bad row: leave the file to it
        return None
    table = pd.read_csv(
        io.BytesIO(body), header=None, names=list(range(len(header))), dtype=str,
        keep_default_na=False, na_filter=False, skip_blank_lines=False, engine="c",
        sep=delimiter, quoting=csv.QUOTE_NONE, encoding="utf-8")
    if len(table) != len(counts):
        return None
    cells = {h: _stripped(table[i]) for i, h in enumerate(header)}
    blank = np.ones(len(counts), dtype=bool)
    for values in cells.values():
        blank &= (values == "").to_numpy()
    bad_count = (counts != len(header)) & ~blank
    line = np.arange(2, len(counts) + 2)
    category = cells.get("category")
    if layout == "long":
        item, rater = cells["item"], cells["rater"]
        label_cells = table[header.index("label")]
        bad = bad_count | ((item == "") | (rater == "") | (cells["label"] == "")).to_numpy()
        bad &= ~blank
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            if bad_count[row]:
                raise AnnotationError(path, int(line[row]), "<row>",
                                      f"{counts[row]} fields but the header has {len(header)}")
            record(path, int(line[row]), item.iat[row], rater.iat[row], label_cells.iat[row],
                   None if category is None else category.iat[row])
            raise AssertionError("the record check accepted a row the table check refused")
        keep = ~blank
        return pd.DataFrame({
            "item": item[keep].tolist(), "rater": rater[keep].tolist(),
            "label": _parsed_labels(label_cells[keep]),
            "category": [""] * int(keep.sum()) if category is None else category[keep].tolist(),
            "line": line[keep].tolist()}, columns=_COLUMNS)
    raters = [h for h in header if h not in ("item", "category")]
    rated = np.stack([(cells[r] != "").to_numpy() for r in raters], axis=1)  # rows x raters
    rated &= ~blank[:, None]
    rows, cols = np.nonzero(rated)  # row-major: file order, raters in header order
    empty_item = (cells["item"] == "").to_numpy()[rows]
    empty_rater = np.array([r == "" for r in raters], dtype=bool)[cols]
    bad_at = np.flatnonzero(empty_item | empty_rater)
    first_count = int(np.flatnonzero(bad_count)[0]) if bad_count.any() else len(counts)
    if len(bad_at) and int(rows[bad_at[0]]) < first_count:
        k = int(bad_at[0])
        record(path, int(line[rows[k]]), cells["item"].iat[rows[k]], raters[cols[k]],
               table[header.index(raters[cols[k]])].iat[rows[k]],
               None if category is None else category.iat[rows[k]])
        raise AssertionError("the record check accepted a row the table check refused")
    if first_count < len(counts):
        raise AnnotationError(path, int(line[first_count]), "<row>",
                              f"{counts[first_count]} fields but the header has {len(header)}")
    stacked = pd.Series(np.stack([table[header.index(r)].to_numpy(dtype=object)
                                  for r in raters], axis=1)[rows, cols])
    return pd.DataFrame({
        "item": cells["item"].to_numpy(dtype=object)[rows].tolist(),
        "rater": np.array(raters, dtype=object)[cols].tolist(),
        "label": _parsed_labels(stacked),
        "category": ([""] * len(rows) if category is None
                     else category.to_numpy(dtype=object)[rows].tolist()),
        "line": line[rows].tolist()}, columns=_COLUMNS)
