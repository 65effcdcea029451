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

import pandas as pd

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


def _decode(path: Path, display: str) -> str:
    """The file's text (UTF-8, a byte-order mark dropped); else a TableError naming line and column."""
    raw = path.read_bytes()
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
    """Yield (line_number, header, row) for each data row, skipping only blank lines.

    ``provenance=True`` (the bundled tables only) skips the block of ``#`` lines before the
    header; a user's table has no comment syntax, so a ``#`` line there is the header or data.

    One physical line is one record: a quoted field may hold commas but not a line break (a
    record spanning lines is an error naming the line where it starts). A column name given
    twice in the header is an error (one of the two columns would be dropped).
    """
    text = _decode(source, display) if isinstance(source, Path) else source
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
    if provenance:
        while lines and lines[0][1].lstrip().startswith("#"):
            lines.pop(0)
    if not lines:
        raise TableError(display, None, None, "no header row: the file is empty")
    header_no, header_line = lines[0]
    header = [h.strip() for h in _split(header_line, header_no, lines, display)]
    seen: dict[str, int] = {}
    for position, name in enumerate(header, start=1):
        if name in seen:
            raise TableError(display, header_no, name,
                             f"column given twice in the header (columns {seen[name]} and "
                             f"{position}); each column name must appear once")
        seen[name] = position
    out = []
    for no, line in lines[1:]:
        row = _split(line, no, lines, display)
        if len(row) != len(header):
            raise TableError(display, no, None, f"expected {len(header)} fields "
                             f"({', '.join(header)}), found {len(row)}"
                             f"{_comment_hint(header)}")
        out.append((no, dict(zip(header, (v.strip() for v in row)))))
    return header_no, header, out


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

    Returns ``(display name, [(line, row dict), ...], canonical -> header column)``.
    """
    if path is None:
        text = resources.files("noisefloor.data").joinpath(bundled).read_text(encoding="utf-8")
        display = f"<bundled {bundled}>"
        header_no, header, rows = _read_rows(text, display, provenance=True)
        return display, rows, _resolve(header, spec, required, display, header_no)
    else:
        source = Path(path)
        if not source.is_file():
            raise FileNotFoundError(f"{source}: no such file")
        display = str(source)
        from noisefloor.logs.detect import describe_file  # a log or JSON given as a table

        what = describe_file(source)
        if what is not None:
            raise TableError(display, None, None, f"not a CSV table: the file is {what}; this "
                             "option reads a CSV with a header row (trial logs are LOG arguments)")
    header_no, header, rows = _read_rows(source, display)
    return display, rows, _resolve(header, spec, required, display, header_no)


def _warn_unequal_totals(records: list[dict], display: str) -> None:
    """Warn (:class:`CountTotalsWarning`) once per seed and trial whose ``all`` rows differ in n."""
    groups: dict[tuple, list[dict]] = {}
    for rec in records:
        if rec["subset"] == "all":
            key = (rec["model"], rec["benchmark"], rec["seed"], rec["trial"])
            groups.setdefault(key, []).append(rec)
    for (model, benchmark, seed, trial), recs in groups.items():
        totals = {r["line"]: r["wins"] + r["losses"] + r["ties"] for r in recs}
        if len(set(totals.values())) > 1:
            first = recs[0]["line"]
            odd = [f"line {line}: {n}" for line, n in totals.items() if n != totals[first]]
            what = " ".join(x for x in (model, benchmark) if x)
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
    display, rows, cols = _open_table(path, "paper_paired_counts.csv", COUNT_COLUMNS, REQUIRED_COUNT)
    records: list[dict[str, Any]] = []
    seen: dict[tuple[Any, ...], int] = {}
    for no, row in rows:
        rec = {
            "model": row.get(cols.get("model", ""), "") or "",
            "benchmark": row.get(cols.get("benchmark", ""), "") or "",
            "seed": _int(row[cols["seed"]], display, no, "seed", minimum=-(2**63)),
            "trial": _int(row[cols["trial"]], display, no, "trial"),
            "subset": (row.get(cols.get("subset", ""), "") or "all"),
            "contrast": row[cols["contrast"]],
        }
        if rec["contrast"].count("-") < 1 or rec["contrast"].startswith("-") or rec["contrast"].endswith("-"):
            raise TableError(display, no, "contrast", f"expected 'a-b', got {rec['contrast']!r}")
        for f in ("wins", "losses", "ties"):
            rec[f] = _int(row[cols[f]], display, no, f)
        if "n" in cols:
            n = _int(row[cols["n"]], display, no, "n")
            if n != rec["wins"] + rec["losses"] + rec["ties"]:
                raise TableError(display, no, "n", f"n = {n} but wins + losses + ties = "
                                 f"{rec['wins']} + {rec['losses']} + {rec['ties']} = "
                                 f"{rec['wins'] + rec['losses'] + rec['ties']}; the row "
                                 "contradicts itself (n counts every paired task, ties included)")
        key = tuple(rec[k] for k in ("model", "benchmark", "seed", "trial", "subset", "contrast"))
        if key in seen:
            raise TableError(display, no, "contrast", f"duplicate row: same model, benchmark, seed, "
                             f"trial, subset and contrast as line {seen[key]}")
        seen[key] = no
        rec["line"] = no
        records.append(rec)
    if not records:
        raise TableError(display, None, None, "no data rows")
    _warn_unequal_totals(records, display)
    frame = pd.DataFrame(records)
    frame.attrs["source"] = str(display)  # later checks name file:line (with the line column)
    return frame


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
    display, rows, cols = _open_table(path, "paper_published_claims.csv", CLAIM_COLUMNS, REQUIRED_CLAIM)
    records = []
    for no, row in rows:
        paper = row[cols["paper"]]
        if not paper:
            raise TableError(display, no, "paper", "expected a non-empty paper name")
        high = _float(row[cols["effect_high"]], display, no, "effect_high")
        if math.isnan(high):
            raise TableError(display, no, "effect_high", "expected a number (the claim's upper end)")
        low = _float(row.get(cols.get("effect_low", ""), ""), display, no, "effect_low")
        if not math.isnan(low) and low > high:
            raise TableError(display, no, "effect_low",
                             f"effect_low ({low}) is greater than effect_high ({high})")
        unit = row[cols["unit"]]
        if not unit:
            raise TableError(display, no, "unit", "expected a unit such as 'pp'")
        # pp (and any other unit, flagged by the audit) are on a 0-100 scale; a proportion is not
        divisor = 1.0 if unit.strip().lower() in PROPORTION_UNITS else 100.0
        records.append({
            "paper": paper,
            "benchmark": row.get(cols.get("benchmark", ""), "") or "",
            "reported": row.get(cols.get("reported", ""), "") or "",
            "effect_low": round(low / divisor, 12) if not math.isnan(low) else math.nan,
            "effect_high": round(high / divisor, 12),
            "unit": unit,
            "line": no,
        })
    if not records:
        raise TableError(display, None, None, "no data rows")
    return pd.DataFrame(records)
