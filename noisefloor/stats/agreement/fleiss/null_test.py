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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from noisefloor.results import FrozenResult
from noisefloor.stats.agreement.fleiss.counts import check_count_table

__all__ = ["ALTERNATIVES", "FleissNullTest", "fleiss_null_test"]

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
