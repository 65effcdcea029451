"""Published figures in: paired-count tables and tables of claimed gains (CSV).

These are the inputs of the audit when no per-trial log exists: a paper's W/L/T counts per
contrast and seed, and a list of headline deltas. Bad input raises :class:`TableError` naming
the file, the line and the field.

These tables have no comment syntax: every non-blank line of a user's file is the header or a
data row (a paper named ``#1 Agents`` is a paper, never a comment), so no row is ever dropped
without a word. Only the bundled tables open with a block of ``#`` lines naming their source;
that block is read as provenance by the bundled reader alone.
"""

from __future__ import annotations

import csv
import io
import math
import re
import warnings
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.logs.annotations.annotation_table import python_string_array
from noisefloor.stats.warning_classes import CountTotalsWarning

#: Accepted column names (first is canonical) of a paired-count table.
COUNT_COLUMNS = {
    "model": ("model",),
    "benchmark": ("benchmark", "domain"),
    "seed": ("seed",),
    "trial": ("trial",),
    "subset": ("subset",),
    "contrast": ("contrast",),
    "wins": ("wins",),
    "losses": ("losses",),
    "ties": ("ties",),
    "n": ("n",),
}
#: Accepted column names of a claims table.
CLAIM_COLUMNS = {
    "paper": ("paper",),
    "benchmark": ("benchmark",),
    "reported": ("reported", "reported_effect"),
    "effect_low": ("effect_low",),
    "effect_high": ("effect_high",),
    "unit": ("unit",),
}
REQUIRED_COUNT = ("seed", "trial", "contrast", "wins", "losses", "ties")
REQUIRED_CLAIM = ("paper", "effect_high", "unit")
#: How reports name the bundled claims table (:func:`read_claims` without a path).
BUNDLED_CLAIMS_SOURCE = ("bundled: the ten published claims listed by Kaliyev & Maryanskyy (2026), "
                         "section \"Where published gains sit relative to the floor\"")
#: How reports name the bundled paired-count table (:func:`read_paired_counts` without a path).
BUNDLED_COUNTS_SOURCE = "bundled figures of Kaliyev & Maryanskyy (2026), tau2-bench retail"
#: Units whose effects are already proportions (0..1); every other unit is read on a 0-100 scale.
PROPORTION_UNITS = ("proportion", "fraction")


#: An integer cell: optional sign, then ASCII digits only (``int()`` alone would also take
#: ``2_1`` as 21, ``\u0662`` as 2 and surrounding spaces).
_INTEGER = re.compile(r"[+-]?[0-9]+")


class TableError(ValueError):
    """A problem in an input table, located by file, line and field."""

    def __init__(self, path: str, line: int | None, field: str | None, message: str):
        self.path, self.line, self.field = path, line, field
        where = path if line is None else f"{path}:{line}"
        if field:
            where += f": field {field!r}"
        super().__init__(f"{where}: {message}")


def _decode(raw: bytes, display: str) -> str:
    """The file's text (UTF-8, a byte-order mark dropped); else a TableError naming line and column."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise TableError(display, 1, None, "the file starts with a UTF-16 byte-order mark; save it "
                         "as UTF-8 (CSV UTF-8 in spreadsheet programs)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - raw.rfind(b"\n", 0, exc.start)
        raise TableError(display, line, None,
                         f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {column}); "
                         "save the file as UTF-8 (CSV UTF-8 in spreadsheet programs)") from None


def _split(line: str, no: int, lines, display: str) -> list[str]:
    """Parse one physical line as one CSV record; a quote left open is named at its line."""
    try:
        return next(csv.reader(io.StringIO(line), strict=True))
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):  # a field opened with a quote never closes
            closing = next((n for n, later in lines if n > no and later.count('"') % 2), None)
            hint = (f"; a quote is closed on line {closing}, so a quoted field probably spans "
                    "lines, which these tables do not allow" if closing is not None else "")
            raise TableError(display, no, None, "a quoted field is not closed on this line: an "
                             f"unclosed quote is the likely cause{hint}") from None
        raise TableError(display, no, None, f"malformed CSV ({exc}); a quote inside a quoted "
                         'field is written twice ("")') from None


def _read_rows(source, display: str, *, provenance: bool = False):
    """Return (header line number, header, [(line_number, row dict), ...]), skipping only blank
    lines: the row-by-row reader, for the bundled tables and files :func:`_read_frame` leaves.

    ``provenance=True`` (the bundled tables only) skips the block of ``#`` lines before the
    header; a user's table has no comment syntax, so a ``#`` line there is the header or data.

    One physical line is one record: a quoted field may hold commas but not a line break (a
    record spanning lines is an error naming the line where it starts). A column name given
    twice in the header is an error (one of the two columns would be dropped).
    """
    text = source
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
    if provenance:
        while lines and lines[0][1].lstrip().startswith("#"):
            lines.pop(0)
    if not lines:
        raise TableError(display, None, None, "no header row: the file is empty")
    header_no, header_line = lines[0]
    header = _header(_split(header_line, header_no, lines, display), header_no, display)
    out = []
    for no, line in lines[1:]:
        row = _split(line, no, lines, display)
        if len(row) != len(header):
            raise _field_count_error(display, no, header, len(row))
        out.append((no, dict(zip(header, (v.strip() for v in row)))))
    return header_no, header, out


def _header(cells: list[str], header_no: int, display: str) -> list[str]:
    """The header's column names; a name given twice is a TableError."""
    header = [h.strip() for h in cells]
    seen: dict[str, int] = {}
    for position, name in enumerate(header, start=1):
        if name in seen:
            raise TableError(display, header_no, name,
                             f"column given twice in the header (columns {seen[name]} and "
                             f"{position}); each column name must appear once")
        seen[name] = position
    return header


def _field_count_error(display: str, no: int, header: list[str], found: int) -> TableError:
    return TableError(display, no, None, f"expected {len(header)} fields "
                      f"({', '.join(header)}), found {found}{_comment_hint(header)}")


#: Bytes of the line breaks of :meth:`str.splitlines` other than \n and \r\n (VT, FF, FS, GS,
#: RS, NEL, LS, PS): a file holding one is left to the row reader, whose lines they end.
_OTHER_BREAKS = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\xc2\x85", b"\xe2\x80\xa8",
                 b"\xe2\x80\xa9")


def _outside_quotes(data: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """Which bytes of ``data`` (the rows, lines ending at ``ends``) lie outside quoted fields,
    when every quote is one that :func:`csv.reader` and Arrow's reader (``double_quote``) both
    read as quoting: an opening quote starts a field, a closing quote ends one (or is the
    first of a doubled ``""``), and no quoted field spans a line; None otherwise (a quote
    inside an unquoted field, text after a closing quote, a quote left open), for the row
    reader to read or to name."""
    quote = data == 34
    seen = np.cumsum(quote)  # quotes up to and including each byte
    inside = (seen & 1).astype(bool)  # after this byte, inside a quoted field
    line_ends = ends[ends < len(data)]
    if inside[line_ends].any() or (len(data) and inside[-1]):  # open at a line's end
        return None
    at = np.flatnonzero(quote)
    before = np.where(at > 0, data[np.maximum(at - 1, 0)], 10)  # line start: as after \n
    after = np.where(at + 1 < len(data), data[np.minimum(at + 1, len(data) - 1)], 10)
    opening = inside[at]
    # an opening quote follows a delimiter, a line start or (doubled) a closing quote; a
    # closing quote comes before a delimiter, a line end or (doubled) an opening quote
    good = np.where(opening, np.isin(before, (44, 10, 34)), np.isin(after, (44, 10, 13, 34)))
    if not good.all():
        return None
    return ~inside & ~quote


def _read_frame(raw: bytes, display: str):
    """A plain table read by :func:`pandas.read_csv`: ``(header line, header, cells, lines)``
    with ``cells`` the stripped string cells (one column per header name) and ``lines`` their
    line numbers; None for a file with a quote that is not plainly quoting (see
    :func:`_outside_quotes`) or a line break other than \n and \r\n, which the row reader
    reads (other breaks end lines there). Quoted fields are read by Arrow's reader too, with
    the delimiters inside them left out of the field counts.

    Blank lines are skipped as by the row reader; a line with another number of fields than
    the header is the same error, at the first such line (delimiters counted per line)."""
    if any(b in raw for b in _OTHER_BREAKS) or raw.count(b"\r") != raw.count(b"\r\n"):
        return None
    data = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    start, header_no = 0, 1
    while True:  # the header: the first line that is not blank
        end = data.find(b"\n", start)
        first = data[start:end if end >= 0 else len(data)].decode("utf-8")
        if first.strip():
            break
        if end < 0:
            raise TableError(display, None, None, "no header row: the file is empty")
        start, header_no = end + 1, header_no + 1
    header = _header(_split(first, header_no, [], display), header_no, display)
    body = data[end + 1:] if end >= 0 else b""
    bytes_ = np.frombuffer(body, dtype=np.uint8)
    ends = np.flatnonzero(bytes_ == 10)
    if body and not body.endswith(b"\n"):
        ends = np.append(ends, len(body))
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
    commas = bytes_ == 44
    quoted = b'"' in body
    if quoted:
        outside = _outside_quotes(bytes_, ends)
        if outside is None:  # a quote the csv module reads otherwise, or refuses: row reader
            return None
        commas &= outside
    counts = np.diff(np.searchsorted(np.flatnonzero(commas), ends), prepend=0) + 1
    blank = np.zeros(len(ends), dtype=bool)
    for one in np.flatnonzero(counts == 1):  # no comma: blank when only whitespace
        blank[one] = not body[starts[one]:ends[one]].decode("utf-8").strip()
    wrong = np.flatnonzero((counts != len(header)) & ~blank)
    if len(wrong):
        at = int(wrong[0])
        raise _field_count_error(display, header_no + 1 + at, header, int(counts[at]))
    keep = np.flatnonzero(~blank)
    lines = header_no + 1 + keep
    if not len(keep):
        return header_no, header, pd.DataFrame({h: pd.Series([], dtype=str) for h in header}), lines
    if len(keep) < len(ends):
        body = b"\n".join(body[starts[i]:ends[i]] for i in keep)
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(len(header))]
    table = pacsv.read_csv(
        pa.BufferReader(body), read_options=pacsv.ReadOptions(column_names=names,
                                                              use_threads=False),
        parse_options=pacsv.ParseOptions(quote_char='"' if quoted else False,
                                         double_quote=True, newlines_in_values=False,
                                         ignore_empty_lines=False),
        convert_options=pacsv.ConvertOptions(
            column_types={c: pa.large_string() for c in names}, strings_can_be_null=False,
            quoted_strings_can_be_null=False, check_utf8=False))  # decoded once already
    if table.num_rows != len(keep):
        return None
    columns = {h: pd.Series(python_string_array(table.column(c))) for h, c in zip(header, names)}
    if body.translate(None, _PLAIN):  # some cell may start or end with whitespace
        columns = {h: v.str.strip(_PY_WHITESPACE) for h, v in columns.items()}
    cells = pd.DataFrame(columns)
    return header_no, header, cells, lines


# the characters str.strip() removes (str.isspace)
_PY_WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
# ASCII bytes that are never whitespace (line ends are no part of a cell): deleting them from
# the rows leaves nothing when no cell can start or end with whitespace
_PLAIN = bytes(c for c in range(0x80) if c in (0x0A, 0x0D) or not chr(c).isspace())


def _comment_hint(header) -> str:
    """The hint for a header that a user meant as a comment line (empty otherwise)."""
    if header and header[0].startswith("#"):
        return ("; a line starting with '#' is not a comment in these tables (they have no "
                "comment syntax), so it was read as the header")
    return ""


def _resolve(header, spec, required, display, header_no):
    mapping = {}
    for canon, names in spec.items():
        present = [name for name in names if name in header]
        if len(present) > 1:
            raise TableError(display, header_no, present[1],
                             f"columns {' and '.join(map(repr, present))} both name the {canon!r} "
                             "column; keep one (the other's values would be ignored)")
        if present:
            mapping[canon] = present[0]
    missing = [c for c in required if c not in mapping]
    if missing:
        hint = _comment_hint(header)
        raise TableError(display, header_no, missing[0],
                         f"missing column; expected columns {', '.join(required)} (found "
                         f"{', '.join(header)}){hint}")
    return mapping


def _int(value: str, display: str, line: int, field: str, minimum: int = 0) -> int:
    if value == "":
        raise TableError(display, line, field, "expected an integer, got an empty field")
    if not _INTEGER.fullmatch(value):
        what = "an integer" if minimum < 0 else f"an integer >= {minimum}"
        raise TableError(display, line, field, f"expected {what} written with the digits 0-9 "
                         f"only (no '_' or other separators), got {value!r}")
    number = int(value)
    if number < minimum:
        raise TableError(display, line, field, f"expected an integer >= {minimum}, got {number}")
    return number


#: A number cell: decimal digits with an optional point and exponent (``float()`` alone would
#: also take ``2_1`` as 21.0); ``inf``/``nan`` pass here to be refused as not finite below.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity|nan)")


def _float(value: str, display: str, line: int, field: str) -> float:
    if value == "":
        return math.nan
    if not _NUMBER.fullmatch(value):
        raise TableError(display, line, field, "expected a number in percentage points written "
                         f"with the digits 0-9 and '.' only (no '_' or other separators), got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise TableError(display, line, field, f"expected a number in percentage points, got {value!r}") from None
    if not math.isfinite(number):
        raise TableError(display, line, field, f"expected a finite number, got {value!r}")
    return number


def _open_table(path, bundled: str, spec: dict, required: tuple):
    """Read a user table (or the bundled one when ``path`` is None) and resolve its columns.

    Returns ``(display name, cells, lines, canonical -> header column)``: ``cells`` a
    DataFrame of the stripped string cells, one column per header name, ``lines`` the line
    number of each row.
    """
    if path is None:
        text = resources.files("noisefloor.data").joinpath(bundled).read_text(encoding="utf-8")
        display = f"<bundled {bundled}>"
        header_no, header, rows = _read_rows(text, display, provenance=True)
        cells, lines = _rows_frame(header, rows)
        return display, cells, lines, _resolve(header, spec, required, display, header_no)
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"{source}: no such file")
    display = str(source)
    from noisefloor.logs.formats.detect import describe_file  # a log or JSON given as a table

    what = describe_file(source)
    if what is not None:
        raise TableError(display, None, None, f"not a CSV table: the file is {what}; this "
                         "option reads a CSV with a header row (trial logs are LOG arguments)")
    raw = source.read_bytes()
    text = _decode(raw, display)
    read = _read_frame(raw, display)
    if read is None:
        header_no, header, rows = _read_rows(text, display)
        cells, lines = _rows_frame(header, rows)
    else:
        header_no, header, cells, lines = read
    return display, cells, lines, _resolve(header, spec, required, display, header_no)


def _rows_frame(header: list[str], rows: list) -> tuple[pd.DataFrame, np.ndarray]:
    """The row reader's rows as :func:`_read_frame` gives them."""
    cells = pd.DataFrame({h: pd.Series([r[h] for _, r in rows], dtype=str) for h in header})
    return cells, np.array([no for no, _ in rows], dtype=np.int64)





def _first_bad(masks: list[np.ndarray], n: int) -> int | None:
    """The first row (in file order) where any mask is True, or None."""
    bad = np.zeros(n, dtype=bool)
    for mask in masks:
        bad |= mask
    hits = np.flatnonzero(bad)
    return int(hits[0]) if len(hits) else None


def _int_cells(values: pd.Series, minimum: int = 0) -> tuple[np.ndarray, Any]:
    """Which cells :func:`_int` refuses, and the integers of the others (int64, or Python
    ints when one does not fit; 0 where refused)."""
    digits = values.str.fullmatch(_INTEGER.pattern).to_numpy(dtype=bool)
    kept = values if digits.all() else values.where(digits, "0")
    try:
        numbers: Any = _int64(kept)
    except OverflowError:  # beyond 64 bits: Python ints (a later check names the count)
        numbers = np.array([int(v) for v in kept], dtype=object)
    return ~digits | (numbers < minimum).astype(bool), numbers


def _int64(digits: pd.Series) -> np.ndarray:
    """Cells ``[+-]?[0-9]+`` as int64 (Arrow's cast when pandas keeps them in Arrow);
    OverflowError beyond 64 bits."""
    if isinstance(digits.array, pd.arrays.ArrowStringArray):
        import pyarrow as pa
        import pyarrow.compute as pc

        try:
            return pc.cast(pa.array(digits.str.removeprefix("+")), pa.int64()).to_numpy()
        except pa.ArrowInvalid:  # the digits are checked: only a number beyond 64 bits
            raise OverflowError("beyond 64 bits") from None
    return digits.astype("int64").to_numpy()


def _column(cells: pd.DataFrame, cols: dict, name: str) -> pd.Series:
    """The string cells of an optional column (``""`` where the table has none)."""
    if name in cols:
        return cells[cols[name]]
    return pd.Series([""] * len(cells), dtype=str, index=cells.index)


def _warn_unequal_totals(frame: pd.DataFrame, display: str) -> None:
    """Warn (:class:`CountTotalsWarning`) once per seed and trial whose ``all`` rows differ in n."""
    rows = frame[frame["subset"] == "all"]
    total = _sum(*(rows[f].to_numpy() for f in ("wins", "losses", "ties")))
    keys = ["model", "benchmark", "seed", "trial"]
    spread = pd.Series(total, index=rows.index).groupby(
        [rows[k] for k in keys], sort=False).transform("nunique")
    uneven = rows[spread.to_numpy() > 1]
    if uneven.empty:
        return
    for (model, benchmark, seed, trial), recs in uneven.groupby(keys, sort=False):
        n_pairs = _sum(*(recs[f].to_numpy() for f in ("wins", "losses", "ties")))
        lines: list[int] = recs["line"].to_numpy(dtype=np.int64).tolist()
        totals: dict[int, int] = dict(zip(lines, np.asarray(n_pairs).tolist()))
        first = lines[0]
        odd = [f"line {line}: {n}" for line, n in totals.items() if n != totals[first]]
        what = " ".join(str(x) for x in (model, benchmark) if x)
        warnings.warn(
            f"{display}:{first}: the contrasts of {what + ' ' if what else ''}seed {seed}, "
            f"trial {trial} (subset all) count different numbers of paired tasks "
            f"(wins + losses + ties = {totals[first]} on line {first}; {'; '.join(odd)}); "
            "they should compare one task set, so their signed gaps have different "
            + ("denominators and the floor pools unlike rows" if trial == 0 else
               "denominators and are not comparable row to row")
            + ". Kept as written; check the table",
            CountTotalsWarning, stacklevel=3)


def read_paired_counts(path=None) -> pd.DataFrame:
    """Read a paired-count table (CSV).

    Parameters
    ----------
    path : str or Path, optional
        CSV with columns ``seed, trial, contrast, wins, losses, ties`` and optionally
        ``model, benchmark`` (or ``domain``), ``subset`` (default ``"all"``), ``n`` (paired
        tasks, ties included; checked against ``wins + losses + ties``, not kept). Without a
        path the bundled table of the noise-floor paper is read. There is no comment syntax:
        every non-blank line is the header or a data row.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, benchmark, seed, trial, subset, contrast, wins, losses, ties, line``.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    TableError
        On a missing column, a column named twice in the header (or under two accepted
        names, e.g. ``benchmark`` and ``domain``), a file that is not UTF-8 (line and column of
        the first bad byte), a quote left open on a line (a quoted field may not span lines; the
        error names the line where the record starts), a wrong number of fields, a non-integer
        or negative count (or one not written with the digits 0-9 alone: ``2_1`` is refused,
        not read as 21), an ``n`` that differs from ``wins + losses + ties`` on its row, a
        contrast not written ``a-b``, or a duplicate (model, benchmark, seed, trial, subset,
        contrast), naming file, line and field.

    Warns
    -----
    CountTotalsWarning
        When rows of one model, benchmark, seed and trial on the ``all`` subset have different
        ``wins + losses + ties`` (they should compare one task set; the rows are kept). A
        warning rather than an error because a paper may have dropped different infrastructure
        errors per contrast; the audit still computes, and the warning says its floor pools
        rows with different denominators.

    Examples
    --------
    >>> t = read_paired_counts()
    >>> len(t), int(t["wins"].sum())
    (12, 177)
    """
    display, cells, lines, cols = _open_table(path, "paper_paired_counts.csv", COUNT_COLUMNS,
                                              REQUIRED_COUNT)
    n = len(cells)
    if not n:
        raise TableError(display, None, None, "no data rows")
    # every check over whole columns; the first row that fails one is checked again by
    # _count_record, which raises the message of its first bad field
    contrast = cells[cols["contrast"]]
    bad_seed, seed = _int_cells(cells[cols["seed"]], minimum=-(2**63))
    bad_trial, trial = _int_cells(cells[cols["trial"]])
    masks = [bad_seed, bad_trial, (~contrast.str.contains("-", regex=False)
                                   | contrast.str.startswith("-")
                                   | contrast.str.endswith("-")).to_numpy(dtype=bool)]
    counts = {}
    for f in ("wins", "losses", "ties"):
        bad, counts[f] = _int_cells(cells[cols[f]])
        masks.append(bad)
    if "n" in cols:
        bad, total = _int_cells(cells[cols["n"]])
        masks += [bad, np.asarray(total != _sum(counts["wins"], counts["losses"], counts["ties"]),
                                  dtype=bool)]
    first = _first_bad(masks, n)
    if first is not None:
        _count_record(cells.iloc[first].to_dict(), int(lines[first]), display, cols)
        raise AssertionError("the row check accepted a row the column checks refused")
    subset = _column(cells, cols, "subset")
    frame = pd.DataFrame({
        "model": _column(cells, cols, "model").array,
        "benchmark": _column(cells, cols, "benchmark").array,
        "seed": _ints(seed), "trial": _ints(trial),
        "subset": subset.where(subset != "", "all").array,
        "contrast": contrast.array,
        **{f: _ints(counts[f]) for f in ("wins", "losses", "ties")},
        "line": lines})
    from noisefloor.logs.annotations.repeats import first_repeat

    row, earlier = first_repeat(frame, ("model", "benchmark", "seed", "trial", "subset",
                                        "contrast"))
    if row < n:
        raise TableError(display, int(lines[row]), "contrast", "duplicate row: same model, "
                         "benchmark, seed, trial, subset and contrast as line "
                         f"{int(lines[earlier])}")
    _warn_unequal_totals(frame, display)
    frame.attrs["source"] = str(display)  # later checks name file:line (with the line column)
    return frame


def _sum(*columns: Any) -> Any:
    """The sum of count columns, in Python ints when int64 could overflow."""
    if any(c.dtype == object or (len(c) and int(c.max()) >= 2**61) for c in columns):
        return sum(np.asarray(c, dtype=object) for c in columns)
    return sum(columns)


def _ints(numbers: Any) -> Any:
    """A column of integers as a DataFrame of records makes it (int64 when all fit)."""
    return numbers if numbers.dtype != object else pd.Series(list(numbers)).to_numpy()


def _count_record(row: dict, no: int, display: str, cols: dict) -> None:
    """Check one row of a count table cell by cell, raising the first problem's TableError."""
    _int(row[cols["seed"]], display, no, "seed", minimum=-(2**63))
    _int(row[cols["trial"]], display, no, "trial")
    contrast = row[cols["contrast"]]
    if contrast.count("-") < 1 or contrast.startswith("-") or contrast.endswith("-"):
        raise TableError(display, no, "contrast", f"expected 'a-b', got {contrast!r}")
    wins, losses, ties = (_int(row[cols[f]], display, no, f) for f in ("wins", "losses", "ties"))
    if "n" in cols:
        n = _int(row[cols["n"]], display, no, "n")
        if n != wins + losses + ties:
            raise TableError(display, no, "n", f"n = {n} but wins + losses + ties = "
                             f"{wins} + {losses} + {ties} = {wins + losses + ties}; the row "
                             "contradicts itself (n counts every paired task, ties included)")


def read_claims(path=None) -> pd.DataFrame:
    """Read a table of claimed gains (CSV), effects in percentage points.

    Parameters
    ----------
    path : str or Path, optional
        CSV with columns ``paper, effect_high, unit`` and optionally ``benchmark``,
        ``reported`` (or ``reported_effect``, the text as published), ``effect_low``. A range
        gives both ends; an upper bound only (``<10 pp``) leaves ``effect_low`` empty. Without
        a path the bundled table of the noise-floor paper's ten claims is read.

    Returns
    -------
    pandas.DataFrame
        Columns ``paper, benchmark, reported, effect_low, effect_high, unit, line`` with effects
        converted to proportions: pp / 100; a ``proportion`` (or ``fraction``) unit as given;
        any other unit (BERTScore points, ...) divided by 100 too and flagged by the audit.

    Raises
    ------
    FileNotFoundError, TableError
        As for :func:`read_paired_counts`; also when ``effect_low > effect_high`` or the unit
        is empty.

    Examples
    --------
    >>> c = read_claims()
    >>> len(c), float(c["effect_high"].max())
    (10, 0.22)
    """
    display, cells, lines, cols = _open_table(path, "paper_published_claims.csv", CLAIM_COLUMNS,
                                              REQUIRED_CLAIM)
    n = len(cells)
    if not n:
        raise TableError(display, None, None, "no data rows")
    paper, unit = cells[cols["paper"]], cells[cols["unit"]]
    bad_high, high = _float_cells(cells[cols["effect_high"]])
    bad_low, low = _float_cells(_column(cells, cols, "effect_low"))
    masks = [(paper == "").to_numpy(dtype=bool), bad_high | np.isnan(high), bad_low,
             ~np.isnan(low) & (low > high), (unit == "").to_numpy(dtype=bool)]
    first = _first_bad(masks, n)
    if first is not None:
        _claim_record(cells.iloc[first].to_dict(), int(lines[first]), display, cols)
        raise AssertionError("the row check accepted a row the column checks refused")
    # pp (and any other unit, flagged by the audit) are on a 0-100 scale; a proportion is not
    proportion = unit.str.strip().str.lower().isin(PROPORTION_UNITS).to_numpy(dtype=bool)
    divisor = np.where(proportion, 1.0, 100.0)
    return pd.DataFrame({
        "paper": paper.array,
        "benchmark": _column(cells, cols, "benchmark").array,
        "reported": _column(cells, cols, "reported").array,
        "effect_low": [round(v, 12) if not math.isnan(v) else math.nan
                       for v in (low / divisor).tolist()],
        "effect_high": [round(v, 12) for v in (high / divisor).tolist()],
        "unit": unit.array,
        "line": lines})


def _float_cells(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Which cells :func:`_float` refuses, and the numbers of the others (NaN where empty or
    refused)."""
    number = values.str.fullmatch(_NUMBER.pattern).to_numpy(dtype=bool)
    x = np.full(len(values), math.nan)
    x[number] = values.to_numpy(dtype=object)[number].astype(float)
    return ~number & (values != "").to_numpy(dtype=bool) | (number & ~np.isfinite(x)), x


def _claim_record(row: dict, no: int, display: str, cols: dict) -> None:
    """Check one row of a claims table cell by cell, raising the first problem's TableError."""
    if not row[cols["paper"]]:
        raise TableError(display, no, "paper", "expected a non-empty paper name")
    high = _float(row[cols["effect_high"]], display, no, "effect_high")
    if math.isnan(high):
        raise TableError(display, no, "effect_high", "expected a number (the claim's upper end)")
    low = _float(row.get(cols.get("effect_low", ""), ""), display, no, "effect_low")
    if not math.isnan(low) and low > high:
        raise TableError(display, no, "effect_low",
                         f"effect_low ({low}) is greater than effect_high ({high})")
    if not row[cols["unit"]]:
        raise TableError(display, no, "unit", "expected a unit such as 'pp'")
