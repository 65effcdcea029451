"""Annotation CSVs read as tables: one CSV-engine call (Arrow's, or pandas') and vectorised checks.

:func:`read_csv_table` gives the rows that the row-by-row reader of
:mod:`noisefloor.logs.annotations` gives, with the same errors: every check (a row with too
many or too few fields, an empty item, rater or label) runs over whole columns, and the first
bad row in file order is handed to that module's own record check, which raises the message
naming file, line and field. Labels are parsed once per distinct value
(:func:`noisefloor.logs.annotations.parse_label`), so a million ratings on a five-point scale
cost five parses. A long file whose every line has the header's field count is read by
Arrow's CSV reader without a copy of the file or a Python object per cell; any other file by
:func:`pandas.read_csv` after counting each line's fields. :func:`check_utf8` checks the
encoding once for the whole file, and :func:`first_repeat` finds an item rated twice by one
rater over whole columns.

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

__all__ = ["check_utf8", "python_string_array", "read_csv_table"]

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
# ASCII bytes that are never (part of) whitespace: deleting them from a file leaves nothing
# when no cell can start or end with whitespace (line ends are not part of any cell)
_PLAIN = bytes(c for c in range(0x80)
               if c in (0x0A, 0x0D) or not chr(c).isspace())


#: What pandas makes of a column of Python strings: ``object`` on pandas 2, ``str`` on pandas 3.
PYTHON_STRING_DTYPE: Any = pd.Series(["a"]).dtype


def python_string_array(strings: Any) -> Any:
    """An Arrow string column as pandas stores a column of Python strings
    (:data:`PYTHON_STRING_DTYPE`): a numpy object array on pandas 2, a ``str`` array on
    pandas 3. Used by the CSV readers, whose frames hold what ``pd.read_csv`` would give."""
    if pd.api.types.is_object_dtype(PYTHON_STRING_DTYPE):  # pandas 2: Python objects
        return strings.to_numpy(zero_copy_only=False)
    # pandas takes any dtype object; pandas-stubs 2.x has no overload for a dtype held in a
    # variable (pandas-stubs 3.x has)
    return pd.array(strings, dtype=PYTHON_STRING_DTYPE)  # type: ignore[call-overload, unused-ignore]


def _offsets(chunk: Any) -> np.ndarray:
    """The offsets of an Arrow (large) string array's cells, a view of its buffer."""
    width = np.int64 if chunk.type.equals("large_string") else np.int32
    return np.frombuffer(chunk.buffers()[1], dtype=width)[chunk.offset:chunk.offset + len(chunk) + 1]


def _empty_cells(strings: Any) -> np.ndarray:
    """Which cells of an Arrow string chunked array (no nulls) are empty, from its offsets."""
    parts = [o[1:] == o[:-1] for o in map(_offsets, strings.chunks)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def _total_bytes(strings: Any) -> int:
    """Bytes in all cells of an Arrow string chunked array."""
    return sum(int(o[-1] - o[0]) for o in map(_offsets, strings.chunks))



def _empty_strings(n: int) -> Any:
    """An Arrow string array of ``n`` empty cells (offsets all zero, no data)."""
    import pyarrow as pa

    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(np.zeros(n + 1, dtype=np.int64)),
                                            pa.py_buffer(b""))


def _long_arrow(path: Path, raw: bytes, start: int, header: list[str], delimiter: str,
                record: Any) -> pd.DataFrame | None:
    """The long layout of the rows in ``raw[start:]``, read by Arrow's CSV reader and Arrow
    compute kernels, no Python object per cell (nor a copy of the file); None when a line is
    blank or has another field count than the header (the caller then counts fields line by
    line to name the first bad one)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(len(header))]
    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(raw).slice(start)),
            # one thread: less CPU, and on a busy machine less wall time too
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                             ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.large_string() for n in names}, strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                check_utf8=False))  # the caller has decoded the whole file once
    except pa.ArrowInvalid:  # a row with another field count than the header
        return None
    raw_cells = {h: table.column(n) for h, n in zip(header, names)}  # chunked: no copy
    # Arrow skips empty lines, which would shift line numbers: every line is a row when the
    # cells, the delimiters between them and one end of line per row add up to the file
    rows = table.num_rows
    ends = (raw.count(b"\r", start) if raw.find(b"\r", start) >= 0 else 0) + rows \
        - (not raw.endswith(b"\n"))
    if sum(map(_total_bytes, raw_cells.values())) + rows * (len(header) - 1) + ends \
            != len(raw) - start:
        return None
    # some cell may start or end with whitespace when a byte of the rows is not plain ASCII
    # (bytes.translate keeps order: what the header leaves comes first)
    if len(raw.translate(None, _PLAIN)) > len(raw[:start].translate(None, _PLAIN)):
        cells = {h: pc.utf8_trim(a, characters=_PY_WHITESPACE) for h, a in raw_cells.items()}
    else:
        cells = raw_cells
    empty = {h: _empty_cells(a) for h, a in cells.items()}
    blank = np.logical_and.reduce(list(empty.values()))
    bad = (empty["item"] | empty["rater"] | empty["label"]) & ~blank
    line = np.arange(2, len(blank) + 2)
    category = cells.get("category")
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        record(path, int(line[row]), cells["item"][row].as_py(), cells["rater"][row].as_py(),
               raw_cells["label"][row].as_py(),
               None if category is None else category[row].as_py())
        raise AssertionError("the record check accepted a row the table check refused")
    if blank.any():
        keep = pa.array(~blank)
        cells = {h: a.filter(keep) for h, a in cells.items()}
        line = line[~blank]
    encoded = pc.dictionary_encode(cells["label"]).combine_chunks()
    labels = pd.Series([parse_label(u) for u in encoded.dictionary.to_pylist()]).to_numpy()
    n = len(line)
    return pd.DataFrame({
        "item": python_string_array(cells["item"]),
        "rater": python_string_array(cells["rater"]),
        "label": labels[encoded.indices.to_numpy(zero_copy_only=False)],
        "category": python_string_array(_empty_strings(n) if category is None
                                        else cells["category"]),
        "line": line}, columns=_COLUMNS, copy=False)


def check_utf8(path: Path, raw: bytes) -> None:
    """Raise an AnnotationError naming the line and column of the first byte of ``raw`` (the
    bytes of ``path``) that is not UTF-8."""
    if raw.isascii():  # no decoded copy of a file that is plain ASCII
        return
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - raw.rfind(b"\n", 0, exc.start)
        raise AnnotationError(
            path, line, "<encoding>",
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {column}); save the file "
            "as UTF-8") from None


def read_csv_table(path: Path, layout: str, delimiter: str, record: Any,
                   raw: bytes | None = None) -> pd.DataFrame | None:
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
    raw : bytes, optional
        The file's bytes, already checked to be UTF-8 (:func:`check_utf8`); read and checked
        here when not given.

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
        empty item, rater or (long layout) label; a byte that is not UTF-8 (field
        ``<encoding>``) when ``raw`` is not given.
    """
    if raw is None:
        raw = path.read_bytes()
        check_utf8(path, raw)
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    if b'"' in raw or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")):
        return None
    first_end = raw.find(b"\n")
    if first_end < 0 or first_end + 1 == len(raw):
        return pd.DataFrame({c: [] for c in _COLUMNS})
    header = [h.strip()
              for h in raw[bom:first_end].decode("utf-8").rstrip("\r").split(delimiter)]
    if layout == "long":
        frame = _long_arrow(path, raw, first_end + 1, header, delimiter, record)
        if frame is not None:
            return frame
    body = raw[first_end + 1:]
    counts = _field_counts(raw[bom:], delimiter)[1:]
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
