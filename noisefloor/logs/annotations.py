"""Annotation tables in, one tidy long DataFrame out: ``item, rater, label[, category]``.

Two layouts are read, from CSV or JSONL:

* **long**: one rating per line with fields ``item``, ``rater``, ``label`` and, for multi-label
  annotation (e.g. one binary judgement per failure stage), ``category`` naming the question the
  label answers (``L1`` ... ``L4``);
* **wide** (CSV only): one item per line, column ``item`` (optionally ``category``), then one
  column per rater; an empty cell means the rater did not rate that item.

Every returned row keeps the ``line`` of the file it came from. Bad input raises
:class:`AnnotationError` naming the file, the line and the field: an item rated twice by one
rater (both lines named), an empty label in the long layout, a rater outside ``raters=``, a
missing column, a line that is not JSON.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["AnnotationError", "read_annotations", "parse_label"]

LONG_FIELDS = ("item", "rater", "label")


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


def _norm_id(value: Any) -> str:
    """Item and rater ids are strings ("007" stays "007")."""
    return str(value).strip()


def read_annotations(
    path: str | Path,
    *,
    layout: str | None = None,
    raters: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Read a long or wide annotation table into a long DataFrame.

    Parameters
    ----------
    path : str or Path
        ``.csv`` (long or wide) or ``.jsonl`` (long: one JSON object per line).
    layout : {"long", "wide"}, optional
        Default: long if the CSV header has ``item``, ``rater`` and ``label``, wide if it has
        ``item`` but no ``rater``; JSONL is always long.
    raters : sequence of str, optional
        The raters expected. A rating by anyone else is an error (a typo in a rater name would
        otherwise create a new rater silently).

    Returns
    -------
    pandas.DataFrame
        Columns ``item`` (str), ``rater`` (str), ``label`` (int, float or str, see
        :func:`parse_label`), ``category`` (str; ``""`` when the file has none) and ``line``
        (int, 1-based line of the file). One row per rating, in file order.

    Raises
    ------
    AnnotationError
        An unreadable line, a missing field, an empty label (long layout), an item rated twice
        by one rater for the same category, an unknown rater; the message names file, line
        and field.
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
    if layout not in (None, "long", "wide"):
        raise ValueError(f"layout must be 'long', 'wide' or None; got {layout!r}")
    if not path.exists():
        raise FileNotFoundError(f"annotation file not found: {path}")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        if layout == "wide":
            raise ValueError("JSONL annotation files are long (one rating per line)")
        records = _read_jsonl(path)
    elif suffix in (".csv", ".tsv"):
        records = _read_csv(path, layout, delimiter="\t" if suffix == ".tsv" else ",")
    else:
        raise ValueError(
            f"{path}: unsupported annotation file type {suffix!r}; expected .csv, .tsv or .jsonl"
        )
    allowed = None if raters is None else {_norm_id(r) for r in raters}
    seen: dict[tuple[str, str, str], int] = {}
    for rec in records:
        if allowed is not None and rec["rater"] not in allowed:
            raise AnnotationError(
                path, rec["line"], "rater",
                f"unknown rater {rec['rater']!r}; expected one of {sorted(allowed)}",
            )
        key = (rec["category"], rec["item"], rec["rater"])
        if key in seen:
            what = f"item {rec['item']!r}" + (
                f" (category {rec['category']!r})" if rec["category"] else ""
            )
            raise AnnotationError(
                path, rec["line"], "item",
                f"{what} is rated twice by rater {rec['rater']!r} (first on line {seen[key]})",
            )
        seen[key] = rec["line"]
    frame = pd.DataFrame(records, columns=["item", "rater", "label", "category", "line"])
    if frame.empty:
        raise AnnotationError(path, 1, "item", "the file holds no ratings")
    return frame


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
    with path.open(encoding="utf-8") as fh:
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


def _read_csv(path: Path, layout: str | None, delimiter: str) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise AnnotationError(path, 1, "<header>", "the file is empty") from None
        if len(set(header)) != len(header):
            dup = sorted({h for h in header if header.count(h) > 1})
            raise AnnotationError(path, 1, dup[0], "column name appears more than once")
        if "item" not in header:
            raise AnnotationError(path, 1, "item", f"no 'item' column in header {header}")
        if layout is None:
            layout = "long" if {"rater", "label"} <= set(header) else "wide"
        if layout == "long":
            for field in LONG_FIELDS:
                if field not in header:
                    raise AnnotationError(path, 1, field, f"no {field!r} column in header {header}")
        rater_cols = [h for h in header if h not in ("item", "category")]
        if layout == "wide" and not rater_cols:
            raise AnnotationError(path, 1, "<header>", "a wide table needs one column per rater")
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
