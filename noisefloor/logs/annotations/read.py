"""Annotation tables in, one tidy long DataFrame out: ``item, rater, label[, category]``.

Two layouts are read, from CSV or JSONL:

* **long**: one rating per line with fields ``item``, ``rater``, ``label`` and, for multi-label
  annotation (e.g. one binary judgement per failure stage), ``category`` naming the question the
  label answers (``L1`` ... ``L4``);
* **wide** (CSV only): one item per line, column ``item`` (optionally ``category``), then one
  column per rater; an empty cell means the rater did not rate that item.

The layout of a CSV is read from its header unless it is given (:func:`detect_layout` says which
layout was taken and why): ``item``, ``rater`` and ``label`` columns make it long; no ``rater``
and no ``label`` column make it wide. A header with only one of ``rater`` and ``label`` is
refused rather than guessed: it is most likely a long file missing a column, and read as wide it
would turn that column into a rater.

Every returned row keeps the ``line`` of the file it came from. Bad input raises
:class:`AnnotationError` naming the file, the line and the field: an item rated twice by one
rater (both lines named), an empty label in the long layout, a rater outside the expected
raters, a missing column, a line that is not JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.logs.annotations.annotation_table import (
    AnnotationError,
    check_utf8,
    parse_label,
    read_csv_table,
)
from noisefloor.logs.annotations.repeats import first_repeat
from noisefloor.results import FrozenResult

__all__ = ["LAYOUTS", "AnnotationError", "Layout", "detect_layout", "parse_label",
           "read_annotations"]

LONG_FIELDS = ("item", "rater", "label")
#: Accepted values of ``layout``; ``"auto"`` reads the layout from the CSV header.
LAYOUTS = ("auto", "long", "wide")
_LONG_NEEDS = "a long-layout file needs item, rater, label[, category]"


@dataclass(frozen=True)
class Layout(FrozenResult):
    """The layout an annotation file is read in, and why.

    Attributes
    ----------
    layout : {"long", "wide"}
    reason : str
        Why, as a clause: ``"as asked"`` when the layout was given, otherwise what in the file
        decided it (e.g. ``"since the header has item, rater, label"``).
    columns : tuple of str
        The header as read (empty for JSONL).
    """

    layout: str
    reason: str
    columns: tuple = ()

    def describe(self) -> str:
        """``"long layout, since the header has item, rater, label"`` and the like."""
        return f"{self.layout} layout, {self.reason}"


def _check_layout(layout: str | None) -> str:
    if layout is None:
        return "auto"
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {list(LAYOUTS)}; got {layout!r}")
    return layout


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".ndjson", ".csv", ".tsv"):
        raise ValueError(
            f"{path}: unsupported annotation file type {suffix!r}; expected .csv, .tsv or .jsonl"
        )
    return suffix


def detect_layout(path: str | Path, layout: str | None = "auto") -> Layout:
    """Which layout ``path`` is read in, and why; refuses a header that fits neither.

    Parameters
    ----------
    path : str or Path
        ``.csv``/``.tsv`` (long or wide) or ``.jsonl``/``.ndjson`` (always long).
    layout : {"auto", "long", "wide"}, default "auto"
        ``"auto"`` (or None) reads the layout from the header: long when it has ``item``,
        ``rater`` and ``label`` columns, wide when it has ``item`` and neither ``rater`` nor
        ``label``. ``"long"``/``"wide"`` are taken as given and the header is checked against
        them.

    Returns
    -------
    Layout

    Raises
    ------
    AnnotationError
        (line 1) No ``item`` column; a header with ``rater`` but no ``label`` column or the
        reverse (a long file missing a column; as wide it would have a rater called ``rater``
        or ``label``, so set the layout to ``"wide"`` if that is meant); a long layout missing
        a column; a wide layout with no rater column; an empty file.
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        A bad ``layout``, a wide layout asked of a JSONL file, an unsupported extension.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "w.csv")
    >>> _ = open(p, "w").write("item,ann,bob\\n1,yes,no\\n")
    >>> detect_layout(p).describe()
    'wide layout, since the header has no rater or label column, so each other column is a rater'
    >>> _ = open(p, "w").write("item,rater\\n1,ann\\n")
    >>> try:
    ...     detect_layout(p)
    ... except AnnotationError as exc:
    ...     print(exc.field, "|", str(exc).split(": ", 2)[2])
    label | no 'label' column: a long-layout file needs item, rater, label[, category];
    read as wide layout it has one rater column 'rater' (set the layout to 'wide' if
    'rater' is a rater's name)
    """
    return _detect(Path(path), layout)[0]


def _detect(path: Path, layout: str | None) -> tuple[Layout, bytes | None]:
    """:func:`detect_layout`, and the bytes of a CSV (read once, checked to be UTF-8)."""
    layout = _check_layout(layout)
    if not path.exists():
        raise FileNotFoundError(f"annotation file not found: {path}")
    suffix = _suffix(path)
    if suffix in (".jsonl", ".ndjson"):
        if layout == "wide":
            raise ValueError(
                f"{path}: a JSONL annotation file is always long (one rating per line with "
                "item, rater, label); the wide layout is for CSV"
            )
        return Layout("long", "as asked" if layout == "long" else "since JSONL is always long"), None
    raw = path.read_bytes()
    header = _read_header(path, "\t" if suffix == ".tsv" else ",", raw)
    return _choose_layout(path, header, layout), raw


def _check_utf8(path: Path) -> None:
    """Raise an AnnotationError naming the line of the first byte that is not UTF-8."""
    check_utf8(path, path.read_bytes())


def _read_header(path: Path, delimiter: str, raw: bytes) -> list[str]:
    """The header row of a CSV whose bytes are ``raw`` (all of them checked to be UTF-8)."""
    check_utf8(path, raw)
    end = raw.find(b"\n") + 1
    first = (raw[:end] if end else raw).decode("utf-8-sig")
    if not first:
        raise AnnotationError(path, 1, "<header>", "the file is empty")
    # one line without quotes or bare carriage returns is the whole header; otherwise let the
    # csv module find where a quoted header ends
    simple = '"' not in first and "\r" not in first.removesuffix("\r\n")
    try:
        return [h.strip() for h in next(csv.reader(
            [first] if simple else io.StringIO(raw.decode("utf-8-sig"), newline=""),
            delimiter=delimiter))]
    except StopIteration:
        raise AnnotationError(path, 1, "<header>", "the file is empty") from None


def _rater_columns(header: Sequence[str]) -> list[str]:
    return [h for h in header if h not in ("item", "category")]


def _one_or_many(cols: Sequence[str]) -> str:
    if len(cols) == 1:
        return f"one rater column {cols[0]!r}"
    return f"{len(cols)} rater columns " + ", ".join(repr(c) for c in cols)


def _choose_layout(path: Path, header: list[str], layout: str) -> Layout:
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise AnnotationError(path, 1, dup[0], "column name appears more than once")
    if "item" not in header:
        raise AnnotationError(
            path, 1, "item",
            f"no 'item' column in header {header}: both layouts need one ({_LONG_NEEDS}; "
            "a wide-layout file needs item[, category], then one column per rater)",
        )
    cols = tuple(header)
    has = [f for f in ("rater", "label") if f in header]
    if layout == "long":
        for field in LONG_FIELDS:
            if field not in header:
                raise AnnotationError(
                    path, 1, field, f"no {field!r} column: {_LONG_NEEDS}; the header is {header}"
                )
        return Layout("long", "as asked", cols)
    if layout == "auto":
        if len(has) == 2:
            return Layout("long", "since the header has item, rater, label", cols)
        if len(has) == 1:
            missing = "label" if has[0] == "rater" else "rater"
            raise AnnotationError(
                path, 1, missing,
                f"no {missing!r} column: {_LONG_NEEDS}; read as wide layout it has "
                f"{_one_or_many(_rater_columns(header))} (set the layout to 'wide' if "
                f"{has[0]!r} is a rater's name)",
            )
    if not _rater_columns(header):
        raise AnnotationError(
            path, 1, "<header>",
            f"a wide-layout file needs item[, category], then one column per rater; the header "
            f"is {header}",
        )
    if layout == "wide":
        return Layout("wide", "as asked", cols)
    return Layout(
        "wide", "since the header has no rater or label column, so each other column is a rater",
        cols,
    )


def _norm_id(value: Any) -> str:
    """Item and rater ids are strings ("007" stays "007")."""
    return str(value).strip()


def read_annotations(
    path: str | Path,
    *,
    layout: str | None = "auto",
    raters: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Read a long or wide annotation table into a long DataFrame.

    Parameters
    ----------
    path : str or Path
        ``.csv`` (long or wide) or ``.jsonl`` (long: one JSON object per line).
    layout : {"auto", "long", "wide"}, default "auto"
        ``"auto"`` (or None): long if the CSV header has ``item``, ``rater`` and ``label``,
        wide if it has ``item`` and neither ``rater`` nor ``label``; a header with only one of
        the two is an error (see :func:`detect_layout`, which also says why a layout was
        taken). JSONL is always long.
    raters : sequence of str, optional
        A check, not a selection: the raters expected in the file. A rating by anyone else is
        an error (a typo in a rater name would otherwise create a new rater silently). To
        compute agreement among some of the raters, read everything and pass ``raters`` to
        :func:`noisefloor.agreement.study.agreement_by_label`.

    Returns
    -------
    pandas.DataFrame
        Columns ``item`` (str), ``rater`` (str), ``label`` (int, float or str, see
        :func:`parse_label`), ``category`` (str; ``""`` when the file has none) and ``line``
        (int, 1-based line of the file). One row per rating, in file order.

    Raises
    ------
    AnnotationError
        An unreadable line, a missing field, a header that fits neither layout (see
        :func:`detect_layout`), an empty label (long layout), an item rated twice by one rater
        for the same category, an unknown rater; the message names file, line and field.
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        For a bad ``layout`` or an unsupported file extension.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "a.csv")
    >>> _ = open(p, "w").write("item,rater,label\\n1,ann,yes\\n1,bob,no\\n")
    >>> read_annotations(p)[["item", "rater", "label"]].values.tolist()
    [['1', 'ann', 'yes'], ['1', 'bob', 'no']]
    """
    path = Path(path)
    chosen, raw = _detect(path, layout)  # a CSV's bytes: read once, checked once
    suffix = _suffix(path)
    if suffix in (".jsonl", ".ndjson"):
        frame = _frame(_read_jsonl(path))
    else:
        delimiter = "\t" if suffix == ".tsv" else ","
        table = read_csv_table(path, chosen.layout, delimiter, _record, raw=raw)
        # None: a file the table reader leaves to the csv module
        frame = (_frame(_read_csv_rows(path, chosen.layout, delimiter)) if table is None
                 else table)
    _check_ratings(path, frame, raters)
    if frame.empty:
        raise AnnotationError(path, 1, "item", "the file holds no ratings")
    return frame


def _frame(records: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(records, columns=["item", "rater", "label", "category", "line"])


def _check_ratings(path: Path, frame: pd.DataFrame, raters: Sequence[str] | None) -> None:
    """Refuse, at the first line in file order, a rater outside ``raters`` or an item rated
    twice by one rater for one category (vectorised; the messages name file, line, field)."""
    if frame.empty:
        return
    n = len(frame)
    unknown = n
    if raters is not None:
        allowed = {_norm_id(r) for r in raters}
        bad = np.flatnonzero(~frame["rater"].isin(list(allowed)).to_numpy())
        unknown = int(bad[0]) if len(bad) else n
    twice, first_at = first_repeat(frame, ("category", "item", "rater"))
    lines = frame["line"].to_numpy()
    if unknown < n and unknown <= twice:
        rater = frame["rater"].iat[unknown]
        raise AnnotationError(
            path, int(lines[unknown]), "rater",
            f"unknown rater {rater!r}; expected one of {sorted(allowed)}")
    if twice < n:
        row = frame.iloc[twice]
        first = int(lines[first_at])
        what = f"item {row['item']!r}" + (
            f" (category {row['category']!r})" if row["category"] else "")
        raise AnnotationError(
            path, int(row["line"]), "item",
            f"{what} is rated twice by rater {row['rater']!r} (first on line {first})")


def _record(path: Path, line: int, item: Any, rater: Any, label: Any, category: Any) -> dict:
    for field, value in (("item", item), ("rater", rater)):
        if value is None or _norm_id(value) == "":
            raise AnnotationError(path, line, field, f"{field} is empty")
    if label is None or (isinstance(label, str) and label.strip() == ""):
        raise AnnotationError(path, line, "label", "label is empty")
    if isinstance(label, (dict, list)):
        raise AnnotationError(
            path, line, "label", f"label must be a string or a number; got {label!r}"
        )
    if isinstance(label, float) and not math.isfinite(label):
        raise AnnotationError(path, line, "label", f"label must be finite; got {label!r}")
    return {
        "item": _norm_id(item),
        "rater": _norm_id(rater),
        "label": parse_label(label),
        "category": "" if category is None else _norm_id(category),
        "line": line,
    }


def _read_jsonl(path: Path) -> list[dict]:
    out = []
    _check_utf8(path)
    with path.open(encoding="utf-8-sig") as fh:  # a byte-order mark is not part of line 1
        for line_no, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise AnnotationError(
                    path, line_no, "<json>", f"not valid JSON ({exc.msg})"
                ) from None
            if not isinstance(obj, dict):
                raise AnnotationError(path, line_no, "<json>", "expected a JSON object")
            for field in LONG_FIELDS:
                if field not in obj:
                    raise AnnotationError(
                        path, line_no, field, "missing (expected item, rater, label)"
                    )
            out.append(
                _record(path, line_no, obj["item"], obj["rater"], obj["label"], obj.get("category"))
            )
    return out


def _read_csv_rows(path: Path, layout: str, delimiter: str) -> list[dict]:
    """Rows of a CSV whose header :func:`detect_layout` has already checked for ``layout``,
    read row by row with :mod:`csv`: the reference for
    :func:`noisefloor.logs.annotations.annotation_table.read_csv_table`, and the reader of files
    it leaves alone (quoted fields, bare carriage returns)."""
    _check_utf8(path)
    with path.open(encoding="utf-8-sig", newline="") as fh:  # Excel writes a byte-order mark
        reader = csv.reader(fh, delimiter=delimiter)
        header = [h.strip() for h in next(reader)]
        rater_cols = _rater_columns(header)
        col = {h: i for i, h in enumerate(header)}
        out = []
        line_no = 1
        for row in reader:
            line_no = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise AnnotationError(
                    path, line_no, "<row>",
                    f"{len(row)} fields but the header has {len(header)}",
                )
            cat = row[col["category"]] if "category" in col else None
            if layout == "long":
                out.append(
                    _record(
                        path, line_no, row[col["item"]], row[col["rater"]], row[col["label"]], cat
                    )
                )
            else:
                for rater in rater_cols:
                    cell = row[col[rater]]
                    if cell.strip() == "":
                        continue  # wide layout: an empty cell is a rating not given
                    out.append(_record(path, line_no, row[col["item"]], rater, cell, cat))
    return out
