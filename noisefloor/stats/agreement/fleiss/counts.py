"""The item x category count table of Fleiss' kappa: its checks, and raw ratings caught.

A count table holds, for each item, how many raters put it in each category; every row sums to
the same number of raters. :func:`check_count_table` validates one (naming the offending row and
column) and catches the common mistake of passing raw ratings (item x rater labels) as counts:
text labels and unequal row sums are errors, rater-like column names an error, and small
codes with no zero a :class:`RawRatingsWarning`. Both
:func:`~noisefloor.stats.agreement.fleiss.kappa.fleiss_kappa_from_counts` and
:func:`~noisefloor.stats.agreement.fleiss.null_test.fleiss_null_test` read their table
through it.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.stats.agreement.input import _type_mask
from noisefloor.stats.warning_classes import RawRatingsWarning

__all__ = ["RawRatingsWarning", "check_count_table"]

#: Column names that name a rater rather than a category (``rater_1``, ``coder B``, ``judge``,
#: ``expert3``, ``r1``): a count table whose every column is named like this holds raw ratings.
_RATER_NAME = re.compile(
    r"^(?:rater|coder|annotator|annotater|labell?er|judge|expert|observer|reviewer|grader"
    r"|assessor)[\s_.-]*(?:\d+|[a-z])?$|^r[\s_.-]*\d+$",
    re.IGNORECASE,
)

_RAW_HINT = ("If the table holds the label each rater gave each item (item x rater), call "
             "fleiss_kappa(ratings) instead, which counts them for you")


def _is_count_type(t: type) -> bool:
    """Whether a cell of type ``t`` is a number (a boolean is not)."""
    return issubclass(t, (int, float, np.integer, np.floating)) and not issubclass(
        t, (bool, np.bool_))


def check_count_table(
    counts: Any,
    *,
    categories: Sequence[Any] | None = None,
    n_raters: int | None = None,
) -> tuple[np.ndarray, tuple, str]:
    """Validate an item x category count table for Fleiss' kappa, and catch raw ratings.

    Parameters
    ----------
    counts : array_like or DataFrame, shape (n_items, n_categories)
        ``counts[i, j]`` = number of raters who put item i in category j. A DataFrame's
        columns become the categories and its index names the items in error messages.
    categories : sequence of length n_categories, optional
        Category names in column order (default: DataFrame columns, else ``0 .. k-1``).
    n_raters : int, optional
        The number of raters m per item, if known. Every row must then sum to it, and the
        raw-ratings checks below are skipped: the caller has said that this is a count table.

    Returns
    -------
    table : numpy.ndarray of float, shape (n_items, n_categories)
        The counts, integer-valued.
    categories : tuple
        The category names.
    note : str
        Empty, or the raw-ratings suspicion below (also raised as a :class:`RawRatingsWarning`).

    Raises
    ------
    ValueError
        Not 2-D; a cell that is not a number (text, a boolean, a missing value), named by row
        and column (and by the DataFrame's index and column labels) with a hint to use
        ``fleiss_kappa(ratings)`` for raw ratings, or to make a text item column the index;
        a negative, non-integer or infinite count; rows that do not all sum to the same
        number of raters (the first such row is named; if the rows sum equally without the
        first column, the message says it may hold item ids), or not to ``n_raters``; fewer than 2
        ratings per item; ``categories`` of the wrong length; every category named like a
        rater (``rater_1``, ``coder2``, ``judge``, ...), unless ``n_raters`` is given.

    Warns
    -----
    RawRatingsWarning
        When ``n_raters`` is not given and the numbers look like category codes rather than
        counts: no cell is 0 and no cell exceeds the number of columns.

    Notes
    -----
    Raw ratings (item x rater, the label each rater gave) passed as counts are caught by
    three checks, from certain to suspicious:

    1. A cell that is not a number: labels written as text. Always an error.
    2. Rows that sum to different numbers: counts of m raters always sum to m, codes rarely
       do. Always an error.
    3. Raw ratings whose rows happen to sum equally, e.g. codes 1..3 from three raters
       ``[[1, 2, 3], [3, 2, 1], [2, 2, 2]]``, are valid counts as numbers: nothing in the
       table can prove them wrong, so the remaining checks are a heuristic:

       * every column is named like a rater (``rater_1``, ``coder B``, ``judge``, ``expert3``,
         ``r2``): a count table has one column per *category*. An error;
       * no cell is 0 and every cell is at most the number of columns k. Read as counts, such
         a table says that every item was put in every category by at least one rater and no
         category got more than k raters; with that little agreement kappa is near or below 0.
         Read as ratings, it is what codes 1..k from raters who used every code look like
         (as many columns as raters, each cell a small code). A warning, and the ``note``.

       Limits: codes starting at 0 (e.g. 0/1 labels) produce zeros and pass the second test,
       codes larger than the number of raters (a 1-5 scale rated by three raters) pass it too,
       and a genuine table of near-random ratings (e.g. three raters who split 1-1-1 on every
       item) triggers it. Passing ``n_raters`` confirms a count table and turns the
       heuristic off.

    Examples
    --------
    >>> table, cats, note = check_count_table([[3, 0], [1, 2]])
    >>> table.tolist(), cats, note
    ([[3.0, 0.0], [1.0, 2.0]], (0, 1), '')
    >>> check_count_table([["a", "b"], ["b", "b"]])
    Traceback (most recent call last):
    ...
    ValueError: counts must hold numbers (how many raters put the item in the category); row 0, column 0 holds the text 'a'. If the table holds the label each rater gave each item (item x rater), call fleiss_kappa(ratings) instead, which counts them for you
    """
    frame = counts if isinstance(counts, pd.DataFrame) else None
    # numbers by construction (a numeric array, a frame of numeric columns): no cell to check
    # one by one; otherwise the cells as they were given, so that a boolean or a text among
    # numbers is not converted to a number by numpy
    numeric = (
        all(isinstance(dt, np.dtype) and dt.kind in "iuf" for dt in frame.dtypes)
        if frame is not None
        else isinstance(counts, np.ndarray) and counts.dtype.kind in "iuf"
    )
    if frame is not None:
        cells = frame.to_numpy(dtype=float if numeric else object)
    else:
        cells = np.asarray(counts) if numeric else np.asarray(counts, dtype=object)
    if cells.ndim != 2 or cells.shape[0] < 1 or cells.shape[1] < 1:
        raise ValueError(f"counts must be 2-D (item x category); got shape {cells.shape}")
    if categories is None and frame is not None:
        categories = list(frame.columns)
    k = cells.shape[1]
    cats = tuple(range(k)) if categories is None else tuple(categories)
    if len(cats) != k:
        raise ValueError(f"categories has {len(cats)} names but counts has {k} columns")

    def where(i: int, j: int) -> str:
        if frame is None:
            return f"row {i}, column {j}"
        return f"row {i} (item {frame.index[i]!r}), column {j} ({frame.columns[j]!r})"

    bad = np.zeros(cells.shape, dtype=bool) if numeric else _type_mask(cells, _is_count_type)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])  # the first bad cell, row by row
        x = cells[i, j]
        if x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA:
            what = "is missing; write 0 for a category nobody chose"
        elif isinstance(x, (str, bytes)):
            what = f"holds the text {x!r}"
        else:
            what = f"holds {x!r}, which is not a number"
        hint = "" if what.startswith("is missing") else _RAW_HINT
        if frame is not None and not bad[:, 1:].any() and k > 1:
            hint = ("If the first column names the items, make it the index (e.g. "
                    "pandas.read_csv(path, index_col=0)). " + _RAW_HINT)
        raise ValueError(
            f"counts must hold numbers (how many raters put the item in the category); "
            f"{where(i, j)} {what}" + (f". {hint}" if hint else "")
        )
    raw = np.array(cells, dtype=float)
    bad_num = np.argwhere((raw < 0) | ~np.isfinite(raw) | (raw != np.round(raw)))
    if bad_num.size:
        i, j = (int(v) for v in bad_num[0])
        raise ValueError(
            f"counts must be non-negative integers; {where(i, j)} holds {float(raw[i, j])!r}"
        )
    sums = raw.sum(axis=1)
    if n_raters is not None:
        if isinstance(n_raters, bool) or not isinstance(n_raters, (int, np.integer)) \
                or n_raters < 2:
            raise ValueError(f"n_raters must be an integer of at least 2; got {n_raters!r}")
        off = np.flatnonzero(sums != n_raters)
        if off.size:
            i = int(off[0])
            raise ValueError(
                f"every row of counts must sum to n_raters={int(n_raters)}; row {i} sums to "
                f"{sums[i]:g}" + ("" if frame is None else f" (item {frame.index[i]!r})")
            )
    if (sums != sums[0]).any():
        i = int(np.argmax(sums != sums[0]))
        rest = raw[:, 1:].sum(axis=1)
        first = ""
        if k > 2 and (rest == rest[0]).all() and rest[0] >= 2:
            name = "" if frame is None else f" ({frame.columns[0]!r})"
            first = (f"Without the first column{name} every row sums to {rest[0]:g}: if it holds "
                     "item ids, make it the index (e.g. pandas.read_csv(path, index_col=0)). ")
        raise ValueError(
            f"every row of counts must sum to the same number of raters: row 0 sums to "
            f"{sums[0]:g} but row {i} sums to {sums[i]:g}. {first}{_RAW_HINT}; for unequal "
            "numbers of raters use krippendorff_alpha"
        )
    if sums[0] < 2:
        raise ValueError(f"each item needs at least 2 ratings; rows sum to {sums[0]:g}")
    note = ""
    if n_raters is None:
        names = [str(c).strip() for c in cats]
        if categories is not None and all(_RATER_NAME.match(n) for n in names):
            raise ValueError(
                f"the columns of counts are named like raters ({', '.join(names[:6])}), but a "
                f"count table has one column per category. {_RAW_HINT}. If these really are "
                "category names, pass n_raters (the number of raters per item) to confirm"
            )
        if k >= 2 and (raw >= 1).all() and raw.max() <= k:
            note = (
                f"these counts look like raw ratings: no cell is 0 and none exceeds the "
                f"number of columns ({k}), as category codes 1..{k} from {k} raters would. "
                f"{_RAW_HINT}; pass n_raters={int(sums[0])} to confirm a count table"
            )
            warnings.warn(note, RawRatingsWarning, stacklevel=3)
    return raw, cats, note
