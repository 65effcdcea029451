"""Standard error of Fleiss' kappa under the null hypothesis of chance agreement, and its z-test.

Fleiss, Nee and Landis (1979) give the large-sample variance of Fleiss' kappa, overall and per
category, **when the true kappa is 0** (raters assign categories independently of the item, with
the pooled category shares). That variance is the right denominator for a z-test of "no agreement
beyond chance"; it is *not* the variance of kappa when raters do agree, so ``kappa -/+ 1.96 se``
is not a confidence interval. Use the bootstrap interval of
:func:`noisefloor.stats.agreement.fleiss_kappa` for that.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from noisefloor.results import FrozenResult
from noisefloor.stats.agreement.input import _type_mask
from noisefloor.stats.warning_classes import RawRatingsWarning

__all__ = ["ALTERNATIVES", "FleissNullTest", "RawRatingsWarning", "check_count_table",
           "fleiss_null_test"]

#: Alternative hypotheses of the z-test: kappa != 0 (R irr's choice), kappa > 0, kappa < 0.
ALTERNATIVES = ("two-sided", "greater", "less")

_PER_CATEGORY_COLUMNS = ["category", "kappa", "se_null", "z", "p_value"]


@dataclass(frozen=True)
class FleissNullTest(FrozenResult):
    """Fleiss' kappa with its standard error under H0 (kappa = 0), z and p-value.

    Attributes
    ----------
    kappa : float
        Fleiss' (1971) kappa; NaN when every rating falls in one category.
    se_null : float
        Large-sample standard error of kappa **under H0: kappa = 0** (Fleiss, Nee and Landis
        1979). Valid for the z-test only, not for a confidence interval.
    z : float
        ``kappa / se_null``.
    p_value : float
        p-value of ``z`` against the standard normal for ``alternative``.
    alternative : {"two-sided", "greater", "less"}
        Alternative hypothesis of ``p_value``.
    n_items, n_raters : int
        N items, each rated by the same m raters.
    categories : tuple
        Category names in column order.
    per_category : tuple of (category, kappa, se_null, z, p_value)
        Fleiss' (1971) category-wise kappa with its H0 standard error, z and p-value; all NaN
        for a category that nobody or everybody used.
    reason : str
        Empty when the overall test is defined, otherwise why it is not.
    """

    kappa: float
    se_null: float
    z: float
    p_value: float
    alternative: str
    n_items: int
    n_raters: int
    categories: tuple
    per_category: tuple
    reason: str = ""

    # hand-written: per_category as the records of per_category_frame()
    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python values; ``per_category`` as a list of row dicts."""
        out = super().to_dict()
        out["categories"] = list(self.categories)
        out["per_category"] = self.per_category_frame().to_dict(orient="records")
        return out

    # hand-written: scalar fields only, categories joined by '|'
    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of the scalar fields (``categories`` joined by ``|``)."""
        row = self.to_dict()
        row.pop("per_category")
        row["categories"] = "|".join(str(c) for c in self.categories)
        return pd.DataFrame([row])

    def per_category_frame(self) -> pd.DataFrame:
        """Columns ``category, kappa, se_null, z, p_value``, one row per category."""
        return pd.DataFrame(list(self.per_category), columns=_PER_CATEGORY_COLUMNS)


def _p_value(z: float, alternative: str) -> float:
    """Standard-normal p-value of ``z``; upper tails by ``sf`` so tiny p-values do not round to 0."""
    if not math.isfinite(z):
        return math.nan
    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    return float(min(1.0, 2.0 * stats.norm.sf(abs(z))))


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


def fleiss_null_test(
    counts: Any,
    *,
    categories: Sequence[Any] | None = None,
    alternative: str = "two-sided",
    n_raters: int | None = None,
) -> FleissNullTest:
    """z-test of Fleiss' kappa against chance agreement, overall and per category.

    The standard error is the large-sample one **under the null hypothesis kappa = 0**
    (Fleiss, Nee and Landis 1979). It tests whether raters agree beyond chance; it is not the
    standard error of kappa when they do, so it must not be used for a confidence interval
    (use the bootstrap interval of :func:`noisefloor.stats.agreement.fleiss_kappa`).

    Parameters
    ----------
    counts : array_like or DataFrame, shape (n_items, n_categories)
        ``counts[i, j]`` = number of raters who put item i in category j; every row sums to
        the same number of raters m >= 2. A DataFrame's columns become the categories.
    categories : sequence of length n_categories, optional
        Category names in column order (default: DataFrame columns, else ``0 .. k-1``).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"two-sided"``: H1 kappa != 0, as R ``irr::kappam.fleiss`` reports;
        ``"greater"``: H1 kappa > 0 (agreement beyond chance, one-sided);
        ``"less"``: H1 kappa < 0.
    n_raters : int, optional
        Raters per item, if known: every row must sum to it, and the raw-ratings heuristic of
        :func:`check_count_table` is off.

    Returns
    -------
    FleissNullTest
        ``kappa, se_null, z, p_value`` overall and per category (see the class).

    Raises
    ------
    ValueError
        ``counts`` not 2-D, a cell that is not a number, negative or non-integer entries, rows
        summing to different numbers of raters (the first such row is named), fewer than 2
        ratings per item, ``categories`` of the wrong length, columns named like raters, or
        an unknown ``alternative`` (see :func:`check_count_table`).

    Warns
    -----
    RawRatingsWarning
        The counts look like raw ratings (see :func:`check_count_table`).

    Notes
    -----
    With N items, m raters per item, n_ij raters putting item i in category j,
    p_j = sum_i n_ij / (N m) and q_j = 1 - p_j:

    * overall: Var0(kappa) = 2 / (N m (m - 1)) * [(sum_j p_j q_j)^2 - sum_j p_j q_j (q_j - p_j)]
      / (sum_j p_j q_j)^2
    * category j: Var0(kappa_j) = 2 / (N m (m - 1)), the same for every category

    and z = kappa / sqrt(Var0). These are the formulas of Fleiss, Nee and Landis (1979), also
    in Fleiss, Levin and Paik (2003, ch. 18), and the ones R ``irr::kappam.fleiss`` uses since
    irr 0.6 (earlier irr versions, like Fleiss 1971, used a variance that the 1979 paper
    corrected). Two-sided p = 2 P(Z > |z|), computed from the upper tail so that it stays
    positive where irr's ``2 * (1 - pnorm(|z|))`` prints 0.

    The category-wise kappa is kappa_j = 1 - sum_i n_ij (m - n_ij) / (N m (m - 1) p_j q_j)
    (Fleiss 1971); the overall kappa is their p_j q_j-weighted mean.

    References
    ----------
    Fleiss, J. L., Nee, J. C. M. and Landis, J. R. (1979). Large sample variance of kappa in
    the case of different sets of raters. Psychological Bulletin 86(5), 974-977.
    Fleiss, J. L., Levin, B. and Paik, M. C. (2003). Statistical Methods for Rates and
    Proportions, 3rd ed., chapter 18. Wiley.
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin 76(5), 378-382.

    Examples
    --------
    Five items, two raters, three categories:

    >>> t = fleiss_null_test([[2, 0, 0], [2, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 2]],
    ...                      categories=["a", "b", "c"])
    >>> round(t.kappa, 4), round(t.se_null, 4), round(t.z, 3), round(t.p_value, 4)
    (0.3548, 0.3261, 1.088, 0.2766)
    >>> [(c, round(kj, 3), round(se, 4), round(z, 2)) for c, kj, se, z, _ in t.per_category]
    [('a', 0.6, 0.4472, 1.34), ('b', -0.25, 0.4472, -0.56), ('c', 0.524, 0.4472, 1.17)]
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {list(ALTERNATIVES)}; got {alternative!r}")
    table, cats, _ = check_count_table(counts, categories=categories, n_raters=n_raters)
    n_items, k = table.shape
    m = float(table.sum(axis=1)[0])
    scale = n_items * m * (m - 1.0)  # N m (m - 1)
    p = table.sum(axis=0) / (n_items * m)
    q = 1.0 - p
    pq = p * q
    used = pq > 0  # 0 < p_j < 1

    kappa_j = np.full(k, math.nan)
    disagree = (table * (m - table)).sum(axis=0)
    kappa_j[used] = 1.0 - disagree[used] / (scale * pq[used])
    se_j = np.where(used, math.sqrt(2.0 / scale), math.nan)
    per = tuple(
        (cats[j], float(kappa_j[j]), float(se_j[j]), float(kappa_j[j] / se_j[j]),
         _p_value(float(kappa_j[j] / se_j[j]), alternative))
        for j in range(k)
    )
    base: dict[str, Any] = {"alternative": alternative, "n_items": int(n_items),
                            "n_raters": int(m), "categories": cats, "per_category": per}
    total = float(pq.sum())
    if total <= 0.0:
        only = cats[int(np.argmax(p))]
        return FleissNullTest(
            kappa=math.nan, se_null=math.nan, z=math.nan, p_value=math.nan,
            reason=f"undefined: every rating is {only!r}, so chance agreement is 1 and kappa "
            "is 0/0",
            **base,
        )
    kappa = float((pq * np.nan_to_num(kappa_j)).sum() / total)
    var0 = 2.0 / scale * (total**2 - float((pq * (q - p)).sum())) / total**2
    se0 = math.sqrt(var0) if var0 > 0 else math.nan
    z = kappa / se0
    return FleissNullTest(kappa=kappa, se_null=se0, z=z, p_value=_p_value(z, alternative), **base)
