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
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["read_csv_table"]

_COLUMNS = ["item", "rater", "label", "category", "line"]


def _field_counts(raw: bytes, delimiter: str) -> np.ndarray:
    """Fields on each physical line after the header (the text after a final newline is not
    a line)."""
    data = np.frombuffer(raw, dtype=np.uint8)
    ends = np.flatnonzero(data == 10)
    if not raw.endswith(b"\n"):
        ends = np.append(ends, len(raw))
    cuts = np.searchsorted(np.flatnonzero(data == ord(delimiter)), ends)
    return np.diff(cuts, prepend=0) + 1  # delimiters on each line, plus one


def _stripped(values: pd.Series) -> pd.Series:
    return values.str.strip()


def _parsed_labels(cells: pd.Series) -> list[Any]:
    """:func:`parse_label` of each cell, computed once per distinct cell."""
    from noisefloor.logs.annotations import parse_label

    codes, uniques = pd.factorize(cells.to_numpy(dtype=object))
    parsed = np.empty(len(uniques), dtype=object)
    parsed[:] = [parse_label(u) for u in uniques]
    return parsed[codes].tolist()


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
    from noisefloor.logs.annotations import AnnotationError

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
    if bad_count.any():
        row = int(np.flatnonzero(bad_count)[0])
        raise AnnotationError(path, int(line[row]), "<row>",
                              f"{counts[row]} fields but the header has {len(header)}")
    rated = np.stack([(cells[r] != "").to_numpy() for r in raters], axis=1)  # rows x raters
    rated &= ~blank[:, None]
    rows, cols = np.nonzero(rated)  # row-major: file order, raters in header order
    empty_item = (cells["item"] == "").to_numpy()[rows]
    empty_rater = np.array([r == "" for r in raters], dtype=bool)[cols]
    bad_at = np.flatnonzero(empty_item | empty_rater)
    if len(bad_at):
        k = int(bad_at[0])
        record(path, int(line[rows[k]]), cells["item"].iat[rows[k]], raters[cols[k]],
               table[header.index(raters[cols[k]])].iat[rows[k]],
               None if category is None else category.iat[rows[k]])
        raise AssertionError("the record check accepted a row the table check refused")
    stacked = pd.Series(np.stack([table[header.index(r)].to_numpy(dtype=object)
                                  for r in raters], axis=1)[rows, cols])
    return pd.DataFrame({
        "item": cells["item"].to_numpy(dtype=object)[rows].tolist(),
        "rater": np.array(raters, dtype=object)[cols].tolist(),
        "label": _parsed_labels(stacked),
        "category": ([""] * len(rows) if category is None
                     else category.to_numpy(dtype=object)[rows].tolist()),
        "line": line[rows].tolist()}, columns=_COLUMNS)
