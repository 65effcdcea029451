"""Inter-rater agreement: Cohen's kappa, Fleiss' kappa and Krippendorff's alpha, with intervals.

Every estimator wraps a well-kept library for the arithmetic (statsmodels for the kappas, the
``krippendorff`` package for alpha) and adds what those libraries leave to the caller: an explicit
category order, input validation with messages that name the offending row, a bootstrap interval
over items with a local ``rng``, and an explicit ``reason`` when agreement is undefined.
Fleiss' kappa also carries the z-test of kappa = 0 with the standard error under that null
hypothesis (:mod:`noisefloor.stats.fleiss_se`); that standard error is for the test only, the
bootstrap gives the interval.

Ratings are always laid out **item x rater** (one row per rated item, one column per rater);
a missing rating is ``None`` or ``NaN``.

Undefined agreement (every rating in one category, so that chance agreement is 1 and the
coefficient is 0/0) is reported as ``value = NaN`` with ``reason`` filled in and the observed
agreement kept, never as 0 or 1.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import cohens_kappa as _sm_cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as _sm_fleiss_kappa

from noisefloor.stats import agreement_bootstrap as _boot
from noisefloor.stats.fleiss_se import (
    ALTERNATIVES,
    RawRatingsWarning,
    check_count_table,
    fleiss_null_test,
)

__all__ = [
    "LANDIS_KOCH_BANDS",
    "MIN_BOOTSTRAP_ITEMS",
    "RANDOLPH_NULL_REASON",
    "SE_PERFECT_AGREEMENT_REASON",
    "AgreementResult",
    "RawRatingsWarning",
    "cohen_kappa",
    "cohen_kappa_from_table",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "krippendorff_alpha",
    "landis_koch",
    "ordered_categories",
]

WEIGHTS = ("none", "linear", "quadratic")
LEVELS = ("nominal", "ordinal", "interval", "ratio")
FLEISS_METHODS = ("fleiss", "randolph")

#: ``se_reason`` of Cohen's kappa when the raters agree on every item.
SE_PERFECT_AGREEMENT_REASON = (
    "perfect agreement (observed agreement 1): the large-sample variance of Fleiss, Cohen & "
    "Everitt (1969) is 0 there, so the normal approximation gives no standard error and no "
    "asymptotic interval (a zero-width interval would claim a certainty the data do not have)"
)

#: ``null_reason`` of Randolph's kappa: the z-test of kappa = 0 is not computed for it.
RANDOLPH_NULL_REASON = (
    "no z-test: the null standard error of Fleiss, Nee and Landis (1979) is derived for Fleiss' "
    "kappa, whose chance agreement comes from the observed marginals; Randolph's free-marginal "
    "kappa fixes chance agreement at 1/k, so that SE does not apply"
)

#: Landis and Koch (1977), "The measurement of observer agreement for categorical data",
#: Biometrics 33(1):159-174, p. 165: (lower, upper, label); lower bound exclusive except for 0.
LANDIS_KOCH_BANDS: tuple[tuple[float, float, str], ...] = (
    (-1.0, 0.0, "poor"),
    (0.0, 0.20, "slight"),
    (0.20, 0.40, "fair"),
    (0.40, 0.60, "moderate"),
    (0.60, 0.80, "substantial"),
    (0.80, 1.0, "almost perfect"),
)


def landis_koch(value: float) -> str:
    """Landis and Koch (1977) verbal band of an agreement coefficient.

    The band is a reading aid shown *beside* the number, never instead of it.

    Parameters
    ----------
    value : float
        A kappa or alpha, at most 1.

    Returns
    -------
    str
        ``"poor"`` (< 0), ``"slight"`` (0-0.20), ``"fair"`` (0.21-0.40), ``"moderate"``
        (0.41-0.60), ``"substantial"`` (0.61-0.80), ``"almost perfect"`` (0.81-1.00), or
        ``"undefined"`` for NaN.

    References
    ----------
    Landis, J. R. and Koch, G. G. (1977). The measurement of observer agreement for categorical
    data. Biometrics 33(1), 159-174 (the table on p. 165).

    Examples
    --------
    >>> landis_koch(0.43), landis_koch(0.2), landis_koch(-0.1), landis_koch(float("nan"))
    ('moderate', 'slight', 'poor', 'undefined')
    """
    if value is None or not math.isfinite(float(value)):
        return "undefined"
    value = float(value)
    if value < 0:
        return "poor"
    for low, high, name in LANDIS_KOCH_BANDS[1:]:
        if value <= high + 1e-12:
            return name
    return "almost perfect"


@dataclass(frozen=True)
class AgreementResult:
    """One agreement coefficient with its intervals and the facts needed to read it.

    Attributes
    ----------
    metric : str
        ``"cohen"``, ``"fleiss"``, ``"randolph"`` (free-marginal multirater kappa) or
        ``"krippendorff"``.
    value : float
        The coefficient; NaN when undefined (see ``reason``).
    ci_low, ci_high : float
        Bootstrap percentile interval over items at level ``confidence``; NaN when
        ``n_boot == 0``, the estimate is undefined, or the bootstrap is degenerate (see
        ``ci_reason``).
    confidence : float
        Confidence level of both intervals, e.g. 0.95.
    n_items : int
        Items that entered the estimate.
    n_raters : int
        Raters (for Fleiss from counts: ratings per item).
    categories : tuple
        The category order used (it matters for weights and for ordinal alpha; see
        ``category_order`` for where it came from).
    observed_agreement : float
        Observed (weighted, for weighted kappa) proportion of agreement; for Krippendorff's
        alpha the share of pairable value pairs that are identical.
    expected_agreement : float
        Chance agreement under the coefficient's model; NaN where the library does not expose
        it (alpha at non-nominal levels).
    reason : str
        Empty when ``value`` is defined, otherwise why it is not.
    label : str
        Name of the annotation label this row describes (multi-label tables), else ``""``.
    comparison : str
        Who was compared, e.g. ``"rater_1 vs rater_2"`` or ``"judge vs majority of 4"``.
    weights : str
        Cohen only: ``"none"``, ``"linear"`` or ``"quadratic"``; ``""`` otherwise.
    level : str
        Krippendorff only: level of measurement; ``""`` otherwise.
    se : float
        Asymptotic standard error (Cohen, from statsmodels; Fleiss et al. 1969), else NaN.
    asymptotic_ci_low, asymptotic_ci_high : float
        ``value -/+ z * se`` (Cohen only), else NaN.
    se_null : float
        Fleiss only: large-sample standard error of kappa **under H0: kappa = 0** (Fleiss, Nee
        and Landis 1979), for the z-test of chance agreement. It is not the standard error of
        kappa when raters agree, so it gives no confidence interval (``ci_low``/``ci_high``,
        the bootstrap, is the interval). NaN for other metrics, Randolph's kappa included
        (see ``null_reason``).
    z : float
        Fleiss only: ``value / se_null``; NaN otherwise.
    p_value : float
        Fleiss only: p-value of ``z`` (standard normal) for ``alternative``; NaN otherwise.
    alternative : str
        Fleiss only: ``"two-sided"`` (as R ``irr::kappam.fleiss``), ``"greater"`` or
        ``"less"``; ``""`` otherwise.
    n_boot : int
        Bootstrap resamples drawn.
    n_boot_undefined : int
        Resamples on which the coefficient was undefined; they are left out of the percentile
        interval and counted here.
    per_category : tuple of (category, kappa)
        Fleiss only: the category-wise kappas of Fleiss (1971), NaN where a category is never
        or always used.
    per_category_null : tuple of (category, se_null, z, p_value)
        Fleiss only: each category-wise kappa's standard error under H0 (kappa_j = 0), z and
        p-value (Fleiss, Nee and Landis 1979); NaN where the category's kappa is.
    note : str
        Anything else the reader must know (items excluded and why, tie rule applied).
    category_order : str
        Where the order of ``categories`` came from, wherever the order enters the value
        (weighted kappa, ordinal/interval/ratio alpha): ``"declared"`` (the ``categories``
        argument), ``"numeric"`` (numeric labels in numeric order; interval and ratio alpha
        always use the values themselves) or ``"table"`` (the row order of a contingency table
        given to :func:`cohen_kappa_from_table`). ``""`` where the order plays no part
        (unweighted kappa, Fleiss' kappa, nominal alpha).
    ci_reason : str
        Why ``ci_low``/``ci_high`` are NaN although ``value`` is defined and a bootstrap was
        asked for; empty otherwise. A bootstrap over items cannot give an interval when there
        are fewer than :data:`MIN_BOOTSTRAP_ITEMS` items (every resample repeats the one item),
        when every resample gives the same value (a zero-width interval would claim a certainty
        the data do not have), or when the coefficient is undefined on every resample.
    null_reason : str
        Why ``se_null``, ``z`` and ``p_value`` are NaN although ``value`` is defined, for a
        multirater kappa: for Randolph's kappa :data:`RANDOLPH_NULL_REASON` (the Fleiss, Nee
        and Landis null SE is for Fleiss' kappa only). Empty otherwise (when ``value`` is
        undefined, ``reason`` says why).
    se_reason : str
        Cohen only: why ``se`` and ``asymptotic_ci_*`` are NaN although ``value`` is defined,
        e.g. :data:`SE_PERFECT_AGREEMENT_REASON` (at perfect agreement the large-sample
        variance is 0 and a zero-width interval would claim a certainty the data do not
        have). Empty otherwise.
    """

    metric: str
    value: float
    ci_low: float
    ci_high: float
    confidence: float
    n_items: int
    n_raters: int
    categories: tuple
    observed_agreement: float
    expected_agreement: float
    reason: str = ""
    label: str = ""
    comparison: str = ""
    weights: str = ""
    level: str = ""
    se: float = math.nan
    asymptotic_ci_low: float = math.nan
    asymptotic_ci_high: float = math.nan
    n_boot: int = 0
    n_boot_undefined: int = 0
    per_category: tuple = ()
    note: str = ""
    se_null: float = math.nan
    z: float = math.nan
    p_value: float = math.nan
    alternative: str = ""
    per_category_null: tuple = ()
    category_order: str = ""
    ci_reason: str = ""
    null_reason: str = ""
    se_reason: str = ""

    @property
    def landis_koch(self) -> str:
        """Landis and Koch (1977) band of ``value`` (see :func:`landis_koch`)."""
        return landis_koch(self.value)

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python values plus ``landis_koch``; NaN stays NaN."""
        out = asdict(self)
        out["categories"] = [_plain(c) for c in self.categories]
        out["per_category"] = {str(_plain(c)): float(k) for c, k in self.per_category}
        out["per_category_null"] = {
            str(_plain(c)): {"se_null": float(se), "z": float(z), "p_value": float(p)}
            for c, se, z, p in self.per_category_null
        }
        out["landis_koch"] = self.landis_koch
        return out

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame of the scalar fields (``categories`` joined by ``|``)."""
        row = self.to_dict()
        row["categories"] = "|".join(str(c) for c in row["categories"])
        row.pop("per_category")
        row.pop("per_category_null")
        return pd.DataFrame([row])

    def per_category_frame(self) -> pd.DataFrame:
        """Fleiss' category-wise kappas: columns ``category, kappa, se_null, z, p_value``.

        ``se_null`` is the standard error under H0 (kappa_j = 0), for the z-test only; the
        last three columns are NaN when no test was computed (e.g. Randolph's kappa).
        """
        frame = pd.DataFrame(list(self.per_category), columns=["category", "kappa"])
        null = pd.DataFrame(
            [row[1:] for row in self.per_category_null], columns=["se_null", "z", "p_value"]
        )
        if null.empty:
            null = pd.DataFrame(math.nan, index=frame.index, columns=["se_null", "z", "p_value"])
        return pd.concat([frame, null], axis=1)


# ----------------------------------------------------------------------------- helpers


def _plain(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _as_generator(rng: int | np.random.Generator | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be an int, a numpy.random.Generator or None; got {type(rng)!r}")


def _check_confidence(confidence: float) -> float:
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1; got {confidence!r}")
    return confidence


def _check_n_boot(n_boot: int) -> int:
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ValueError(f"n_boot must be a non-negative integer; got {n_boot!r}")
    return int(n_boot)


def _check_choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}")
    return value


def _undefined(reason: str, base: dict[str, Any]) -> AgreementResult:
    """A result whose coefficient is undefined: value and interval NaN, ``reason`` says why."""
    return AgreementResult(
        value=math.nan, ci_low=math.nan, ci_high=math.nan, reason=reason, **base
    )


def _is_missing(x: Any) -> bool:
    if x is None:
        return True
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def _sort_key(x: Any) -> tuple:
    return (0, float(x), "") if isinstance(x, (int, float, np.number)) else (1, 0.0, str(x))


def _resolve_categories(observed: Sequence[Any], categories: Sequence[Any] | None) -> tuple:
    """Declared categories (validated against the data) or the sorted observed ones."""
    seen = list(dict.fromkeys(observed))
    if categories is None:
        return tuple(sorted(seen, key=_sort_key))
    cats = tuple(categories)
    if len(set(cats)) != len(cats):
        raise ValueError(f"categories contains duplicates: {list(cats)!r}")
    unknown = [x for x in seen if x not in set(cats)]
    if unknown:
        raise ValueError(
            f"ratings contain values not among the declared categories {list(cats)!r}: "
            f"{unknown[:5]!r}"
        )
    return cats


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(
        x, (bool, np.bool_))


def ordered_categories(
    observed: Sequence[Any], categories: Sequence[Any] | None, what: str
) -> tuple[tuple, str]:
    """The category order for a coefficient whose value depends on it, and where it came from.

    Weighted kappa and ordinal alpha read distances off the categories' positions, so the order
    is never guessed: declared ``categories`` are used as given (validated against the data);
    without them, numeric labels are taken in numeric order, and labels that are not all numbers
    are an error, since their sorted (alphabetical) order is a fact of spelling, not of the scale.

    Parameters
    ----------
    observed : sequence
        The labels in the data (missing ones already removed).
    categories : sequence, optional
        The declared scale, lowest to highest.
    what : str
        The coefficient, for the error message (e.g. ``"weighted kappa"``).

    Returns
    -------
    categories : tuple
    order : {"declared", "numeric"}

    Raises
    ------
    ValueError
        No ``categories`` and a label that is not a number: the message lists the labels and
        shows how to declare the order; or a label outside the declared ``categories``.

    Examples
    --------
    >>> ordered_categories([3, 1, 2, 1], None, "weighted kappa")
    ((1, 2, 3), 'numeric')
    >>> ordered_categories(["mid", "low"], ["low", "mid", "high"], "weighted kappa")
    (('low', 'mid', 'high'), 'declared')
    >>> ordered_categories(["low", "mid", "high"], None, "weighted kappa")
    Traceback (most recent call last):
    ...
    ValueError: weighted kappa needs the category order declared: the labels 'low', 'mid', 'high' are not all numbers, so the order cannot be read off them (sorted, they would follow the alphabet: 'high', 'low', 'mid'). List the scale from lowest to highest: --categories low,mid,high on the command line, categories=['low', 'mid', 'high'] in Python (shown here in the order first seen; reorder as the scale runs, and add any point nobody used)
    """
    if categories is not None:
        return _resolve_categories(observed, categories), "declared"
    seen = list(dict.fromkeys(observed))
    if all(_is_number(x) for x in seen):
        return tuple(sorted(seen, key=float)), "numeric"
    shown, listed = seen[:10], seen[:20]
    more = f" and {len(seen) - 10} more" if len(seen) > 10 else ""
    alphabetical = sorted(seen, key=_sort_key)[:10]
    raise ValueError(
        f"{what} needs the category order declared: the labels "
        f"{', '.join(repr(_plain(x)) for x in shown)}{more} are not all numbers, so the order "
        f"cannot be read off them (sorted, they would follow the alphabet: "
        f"{', '.join(repr(_plain(x)) for x in alphabetical)}). List the scale from lowest to "
        f"highest: --categories {','.join(str(_plain(x)) for x in listed)} on the command "
        f"line, categories={[_plain(x) for x in listed]!r} in Python (shown here in the order first "
        "seen; reorder as the scale runs, and add any point nobody used)"
    )


def _ratings_matrix(ratings: Any, name: str = "ratings") -> np.ndarray:
    arr = ratings.to_numpy(dtype=object) if isinstance(ratings, pd.DataFrame) else None
    if arr is None:
        arr = np.asarray(ratings, dtype=object)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (item x rater); got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 2:
        raise ValueError(
            f"{name} needs at least 1 item and 2 raters (item x rater); got shape {arr.shape}"
        )
    return arr


#: Fewest items a bootstrap interval over items is computed from; with fewer, every resample
#: is the same item and ``ci_low``/``ci_high`` are NaN with a ``ci_reason``.
MIN_BOOTSTRAP_ITEMS = 2


def _percentile_ci(boot: np.ndarray, confidence: float) -> tuple[float, float, int]:
    finite = boot[np.isfinite(boot)]
    undefined = int(boot.size - finite.size)
    if finite.size == 0:
        return math.nan, math.nan, undefined
    alpha = 1.0 - confidence
    low, high = np.quantile(finite, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(low), float(high), undefined


def _bootstrap(
    n_items: int, n_boot: int, rng: np.random.Generator, statistic: _boot.Resampler
) -> np.ndarray:
    """The coefficient on ``n_boot`` resamples of the items (vectorised, see
    :mod:`noisefloor.stats.agreement_bootstrap`)."""
    if statistic.inverse.size != n_items:  # pragma: no cover - a wiring bug, not user input
        raise RuntimeError(f"resampler holds {statistic.inverse.size} items, expected {n_items}")
    return _boot.bootstrap(statistic, n_boot, rng)


# ----------------------------------------------------------------------------- Cohen


def _weight_matrix(k: int, weights: str) -> np.ndarray:
    """Agreement weights 1 - |i-j|/(k-1) (linear) or 1 - (i-j)^2/(k-1)^2 (quadratic)."""
    idx = np.arange(k)
    if weights == "none" or k == 1:
        return np.eye(k)
    d = np.abs(idx[:, None] - idx[None, :]) / (k - 1)
    return 1.0 - (d if weights == "linear" else d**2)


def _cohen_parts(table: np.ndarray, weights: str) -> tuple[float, float]:
    """Observed and chance agreement of a square table (Cohen 1968, weighted form)."""
    n = table.sum()
    p = table / n
    w = _weight_matrix(table.shape[0], weights)
    po = float((w * p).sum())
    pe = float((w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
    return po, pe


def _cohen_value(table: np.ndarray, weights: str) -> float:
    """Kappa by statsmodels; NaN when chance agreement is 1 (0/0)."""
    po, pe = _cohen_parts(table, weights)
    if pe >= 1.0 - 1e-12:
        return math.nan
    wt = None if weights == "none" else weights
    return float(_sm_cohens_kappa(table, wt=wt, return_results=False))


def cohen_kappa_from_table(
    table: Any,
    *,
    weights: str = "none",
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
) -> AgreementResult:
    """Cohen's kappa (unweighted, linear or quadratic) from a square contingency table.

    No bootstrap is possible from a table alone, so ``ci_low``/``ci_high`` are NaN; the
    asymptotic standard error and interval come from statsmodels.

    Parameters
    ----------
    table : array_like, shape (k, k)
        Counts; rows are rater A's categories, columns rater B's, both in the same order.
    weights : {"none", "linear", "quadratic"}, default "none"
        Disagreement weights by the categories' position in the order of the table.
    categories : sequence of length k, optional
        Names of the categories in table order; defaults to ``0 .. k-1``. The weights follow
        the table's row order (``category_order`` is ``"table"``), whatever the names.
    confidence : float, default 0.95
        Level of the asymptotic interval.

    Returns
    -------
    AgreementResult
        ``metric="cohen"``; ``se`` and ``asymptotic_ci_*`` filled in.

    Raises
    ------
    ValueError
        If the table is not square, has negative or non-integer entries, or is empty.

    Notes
    -----
    kappa = (p_o - p_e) / (1 - p_e) with p_o = sum w_ij p_ij and p_e = sum w_ij p_i. p_.j, where
    w_ij = 1 (none: i == j, else 0), 1 - |i-j|/(k-1) (linear), 1 - (i-j)^2/(k-1)^2 (quadratic).
    The standard error is statsmodels' large-sample (non-null) one, Fleiss, Cohen and Everitt
    (1969).

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educ. Psychol. Meas. 20.
    Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4), 213-220.

    Examples
    --------
    Fifty grant proposals read by two reviewers (20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no):

    >>> r = cohen_kappa_from_table([[20, 5], [10, 15]])
    >>> round(r.value, 2), r.observed_agreement, round(r.expected_agreement, 2)
    (0.4, 0.7, 0.5)
    """
    confidence = _check_confidence(confidence)
    _check_choice("weights", weights, WEIGHTS)
    tab = np.asarray(table, dtype=float)
    if tab.ndim != 2 or tab.shape[0] != tab.shape[1] or tab.shape[0] < 1:
        raise ValueError(f"table must be square (k x k, k >= 1); got shape {tab.shape}")
    if (tab < 0).any() or not np.allclose(tab, np.round(tab)):
        raise ValueError("table must hold non-negative integer counts")
    if tab.sum() <= 0:
        raise ValueError("table is empty (all counts are zero)")
    k = tab.shape[0]
    cats = tuple(range(k)) if categories is None else tuple(categories)
    if len(cats) != k:
        raise ValueError(f"categories has {len(cats)} names but the table is {k} x {k}")
    result = _cohen_result(tab, weights, cats, confidence, n_raters=2)
    return replace(result, category_order="" if weights == "none" else "table")


def _cohen_result(
    tab: np.ndarray, weights: str, cats: tuple, confidence: float, n_raters: int
) -> AgreementResult:
    po, pe = _cohen_parts(tab, weights)
    n = int(round(tab.sum()))
    base = dict(
        metric="cohen",
        confidence=confidence,
        n_items=n,
        n_raters=n_raters,
        categories=cats,
        observed_agreement=po,
        expected_agreement=pe,
        weights=weights,
    )
    if pe >= 1.0 - 1e-12:
        used = [c for c, m in zip(cats, tab.sum(axis=0) + tab.sum(axis=1)) if m > 0]
        return _undefined(
            f"undefined: both raters put every item in category {used[0]!r}, so chance "
            "agreement is 1 and kappa is 0/0",
            base,
        )
    wt = None if weights == "none" else weights
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = _sm_cohens_kappa(tab, wt=wt)
    se = float(res.std_kappa)
    z = stats.norm.ppf(0.5 + confidence / 2.0)
    value = float(res.kappa)
    se_reason = ""
    if po >= 1.0 - 1e-12:
        # the Fleiss-Cohen-Everitt variance is exactly 0 at p_o = 1; statsmodels' rounding makes
        # it 0, a tiny positive number or sqrt(negative) = NaN depending on the table
        se, se_reason = math.nan, SE_PERFECT_AGREEMENT_REASON
    elif not math.isfinite(se):
        se_reason = ("the large-sample variance of Fleiss, Cohen & Everitt (1969) is not a "
                     "positive number for this table, so there is no standard error or "
                     "asymptotic interval")
    return AgreementResult(
        value=value,
        ci_low=math.nan,
        ci_high=math.nan,
        se=se,
        asymptotic_ci_low=float(value - z * se),
        asymptotic_ci_high=float(value + z * se),
        se_reason=se_reason,
        **base,
    )


def cohen_kappa(
    rater_a: Sequence[Any],
    rater_b: Sequence[Any],
    *,
    weights: str = "none",
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    rng: int | np.random.Generator | None = None,
) -> AgreementResult:
    """Cohen's kappa between two raters, with asymptotic and bootstrap intervals.

    Parameters
    ----------
    rater_a, rater_b : sequence, length n_items
        Labels given to the same items in the same order. Missing labels are an error
        (Cohen's kappa needs paired ratings); drop unpaired items before calling.
    weights : {"none", "linear", "quadratic"}, default "none"
        Disagreement weights by the categories' **position** in ``categories``.
    categories : sequence, optional
        The category order, lowest to highest. Unweighted kappa needs none (default: the union
        of both raters' labels). Weighted kappa reads distances off it, so it is never
        guessed: without ``categories``, numeric labels are taken in numeric order (the
        result's ``category_order`` is ``"numeric"``) and text labels are an error. Declare it
        also when a scale point was used by neither rater: the weights depend on it.
    confidence : float, default 0.95
        Level of both intervals.
    n_boot : int, default 2000
        Bootstrap resamples of items (0 disables the bootstrap interval).
    rng : int or numpy.random.Generator, optional
        Source of randomness for the bootstrap; the same seed gives the same interval.

    Returns
    -------
    AgreementResult
        ``metric="cohen"``; ``ci_low``/``ci_high`` bootstrap percentile interval over items,
        ``se``/``asymptotic_ci_*`` from statsmodels.

    Raises
    ------
    ValueError
        Unequal lengths, no items, a missing label, a label outside ``categories``, weights
        with labels that are not all numbers and no ``categories`` (see
        :func:`ordered_categories`), or a bad ``weights``/``confidence``/``n_boot``.

    Notes
    -----
    The k x k table is built over ``categories`` (square even if a rater never used a label)
    and passed to :func:`statsmodels.stats.inter_rater.cohens_kappa`; see
    :func:`cohen_kappa_from_table` for the formula. R's ``irr::kappa2`` builds its scale from
    the labels observed in the data, so with ``categories`` left at its default the two agree.

    References
    ----------
    Cohen, J. (1960, 1968), see :func:`cohen_kappa_from_table`.

    Examples
    --------
    >>> a = ["yes", "yes", "no", "no", "yes", "no"]
    >>> b = ["yes", "no", "no", "no", "yes", "no"]
    >>> r = cohen_kappa(a, b, rng=0, n_boot=200)
    >>> round(r.value, 3), round(r.observed_agreement, 3)
    (0.667, 0.833)
    >>> r.ci_low <= r.value <= r.ci_high
    True

    Weighted kappa on ordered text labels needs their order:

    >>> a = ["low", "mid", "high", "low", "mid", "high", "mid"]
    >>> b = ["mid", "mid", "high", "low", "high", "high", "low"]
    >>> r = cohen_kappa(a, b, weights="linear", categories=["low", "mid", "high"], n_boot=0)
    >>> round(r.value, 3), r.category_order
    (0.512, 'declared')
    """
    confidence = _check_confidence(confidence)
    n_boot = _check_n_boot(n_boot)
    _check_choice("weights", weights, WEIGHTS)
    a = list(np.asarray(rater_a, dtype=object).ravel())
    b = list(np.asarray(rater_b, dtype=object).ravel())
    if len(a) != len(b):
        raise ValueError(f"rater_a has {len(a)} labels but rater_b has {len(b)}")
    if not a:
        raise ValueError("no items: rater_a and rater_b are empty")
    for name, seq in (("rater_a", a), ("rater_b", b)):
        for i, x in enumerate(seq):
            if _is_missing(x):
                raise ValueError(
                    f"{name}[{i}] is missing; Cohen's kappa needs both ratings of every item"
                )
    if weights == "none":
        cats, order = _resolve_categories(a + b, categories), ""
    else:
        cats, order = ordered_categories(a + b, categories, f"{weights}-weighted kappa")
    index = {c: i for i, c in enumerate(cats)}
    ia = np.array([index[x] for x in a])
    ib = np.array([index[x] for x in b])
    k = len(cats)

    def table_of(rows: np.ndarray) -> np.ndarray:
        return np.bincount(ia[rows] * k + ib[rows], minlength=k * k).reshape(k, k).astype(float)

    result = _cohen_result(table_of(np.arange(len(a))), weights, cats, confidence, n_raters=2)
    result = replace(result, category_order=order)
    return _with_bootstrap(
        result, len(a), n_boot, rng, _boot.cohen_resampler(ia, ib, k, _weight_matrix(k, weights))
    )


def _with_bootstrap(
    result: AgreementResult,
    n_items: int,
    n_boot: int,
    rng: int | np.random.Generator | None,
    statistic: Any,
) -> AgreementResult:
    """Add the percentile bootstrap interval over items, or NaN with ``ci_reason``.

    The interval is NaN (never zero-width) with a reason when fewer than
    :data:`MIN_BOOTSTRAP_ITEMS` items entered the estimate, when the coefficient is undefined
    on every resample, or when every resample on which it is defined gives the same value.
    """
    gen = _as_generator(rng)
    if n_boot == 0 or not math.isfinite(result.value):
        return result
    if n_items < MIN_BOOTSTRAP_ITEMS:
        return replace(result, ci_reason=(
            f"{'one item' if n_items == 1 else f'{n_items} items'}: a bootstrap over items "
            "resamples the same item every time, so it "
            f"cannot give an interval (at least {MIN_BOOTSTRAP_ITEMS} items are needed)"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        boot = _bootstrap(n_items, n_boot, gen, statistic)
    low, high, undefined = _percentile_ci(boot, result.confidence)
    done = replace(result, n_boot=n_boot, n_boot_undefined=undefined)
    if undefined == n_boot:
        return replace(done, ci_reason=(
            f"the coefficient is undefined on all {n_boot} bootstrap resamples (each holds a "
            "single category), so the bootstrap gives no interval"))
    finite = boot[np.isfinite(boot)]
    if np.ptp(finite) == 0.0:
        spread = f"; {undefined} undefined resamples left out" if undefined else ""
        return replace(done, ci_reason=(
            f"every bootstrap resample gave the same value ({float(finite[0]):.3f}{spread}): "
            "the items leave the bootstrap nothing to vary, and a zero-width interval would "
            "claim a certainty the data do not have, so no interval is given"))
    return replace(done, ci_low=low, ci_high=high)


# ----------------------------------------------------------------------------- Fleiss


def _fleiss_parts(counts: np.ndarray, method: str) -> tuple[float, float]:
    n_per = counts.sum(axis=1)[0]
    po = float(((counts * (counts - 1)).sum(axis=1) / (n_per * (n_per - 1))).mean())
    if method == "randolph":
        return po, 1.0 / counts.shape[1]
    p = counts.sum(axis=0) / counts.sum()
    return po, float((p**2).sum())


def _fleiss_value(counts: np.ndarray, method: str) -> float:
    po, pe = _fleiss_parts(counts, method)
    if pe >= 1.0 - 1e-12:
        return math.nan
    return float(_sm_fleiss_kappa(counts, method=method))


def _fleiss_per_category(counts: np.ndarray) -> np.ndarray:
    """Category-wise kappa of Fleiss (1971), eq. 10: 1 - sum_i n_ij(m-n_ij) / (N m (m-1) p_j q_j).

    statsmodels does not provide it, hence computed here.
    """
    n_items = counts.shape[0]
    m = counts.sum(axis=1)[0]
    p = counts.sum(axis=0) / (n_items * m)
    q = 1.0 - p
    num = (counts * (m - counts)).sum(axis=0)
    den = n_items * m * (m - 1) * p * q
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - num / den
    out[den == 0] = math.nan
    return out


def _fleiss_result(
    counts: np.ndarray,
    cats: tuple,
    method: str,
    confidence: float,
    n_boot: int,
    rng: int | np.random.Generator | None,
    alternative: str = "two-sided",
) -> AgreementResult:
    po, pe = _fleiss_parts(counts, method)
    m = int(counts.sum(axis=1)[0])
    per = tuple(zip(cats, (float(x) for x in _fleiss_per_category(counts))))
    test = None
    if method == "fleiss":
        test = fleiss_null_test(counts, categories=cats, alternative=alternative, n_raters=m)
    base = dict(
        metric="randolph" if method == "randolph" else "fleiss",
        confidence=confidence,
        n_items=int(counts.shape[0]),
        n_raters=m,
        categories=cats,
        observed_agreement=po,
        expected_agreement=pe,
        per_category=per if method == "fleiss" else (),
        per_category_null=(
            tuple((c, se, z, p) for c, _, se, z, p in test.per_category) if test else ()
        ),
        alternative=alternative if test else "",
    )
    if pe >= 1.0 - 1e-12:
        if method == "randolph":
            why = "undefined: only one category is declared, so chance agreement 1/k is 1"
        else:
            used = [c for c, s in zip(cats, counts.sum(axis=0)) if s > 0]
            why = (
                f"undefined: every rating is {used[0]!r}, so chance agreement is 1 and kappa "
                "is 0/0"
            )
        return _undefined(why, base)
    value = float(_sm_fleiss_kappa(counts, method=method))
    if test is not None:
        base.update(se_null=test.se_null, z=test.z, p_value=test.p_value)
    else:
        base.update(null_reason=RANDOLPH_NULL_REASON)
    result = AgreementResult(value=value, ci_low=math.nan, ci_high=math.nan, **base)
    return _with_bootstrap(
        result, counts.shape[0], n_boot, rng, _boot.fleiss_resampler(counts, method)
    )


def fleiss_kappa_from_counts(
    counts: Any,
    *,
    categories: Sequence[Any] | None = None,
    method: str = "fleiss",
    confidence: float = 0.95,
    n_boot: int = 2000,
    rng: int | np.random.Generator | None = None,
    alternative: str = "two-sided",
    n_raters: int | None = None,
) -> AgreementResult:
    """Fleiss' kappa (or Randolph's free-marginal kappa) from an item x category count table.

    Parameters
    ----------
    counts : array_like or DataFrame, shape (n_items, n_categories)
        ``counts[i, j]`` = number of raters who put item i in category j. Every row must sum
        to the same number of raters m >= 2. A DataFrame's column names become the categories.
    categories : sequence of length n_categories, optional
        Category names in column order (default: DataFrame columns, else ``0 .. k-1``).
    method : {"fleiss", "randolph"}, default "fleiss"
        ``"fleiss"``: chance agreement from the pooled category shares (Fleiss 1971).
        ``"randolph"``: chance agreement 1/k (Randolph 2005, free-marginal).
    confidence : float, default 0.95
        Level of the bootstrap interval.
    n_boot : int, default 2000
        Bootstrap resamples of items (rows); 0 disables it.
    rng : int or numpy.random.Generator, optional
        Randomness for the bootstrap.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Alternative hypothesis of the z-test of kappa = 0 (``p_value``); two-sided is what R
        ``irr::kappam.fleiss`` reports, ``"greater"`` tests agreement beyond chance.
    n_raters : int, optional
        Raters per item m, if known. Every row must then sum to it, and the check for raw
        ratings passed as counts (below) is off: the caller has confirmed a count table.

    Returns
    -------
    AgreementResult
        ``metric`` is ``"fleiss"`` or ``"randolph"``; ``note`` holds the raw-ratings
        suspicion, if any (see Warns). ``per_category`` holds Fleiss' (1971)
        category-wise kappas (method ``"fleiss"`` only). For method ``"fleiss"``,
        ``se_null``, ``z``, ``p_value`` (and ``per_category_null``) hold the z-test of
        kappa = 0; see :func:`noisefloor.stats.fleiss_se.fleiss_null_test`. ``se_null`` is
        valid under H0 only and gives no interval; ``ci_low``/``ci_high`` (bootstrap) do.
        For ``"randolph"`` they are NaN and ``null_reason`` says why (that SE is for Fleiss'
        kappa, not the free-marginal one).

    Raises
    ------
    ValueError
        Not 2-D; a cell that is not a number (text labels, a boolean, a missing value: named
        by row and column, with the DataFrame's index and column labels, and pointing to
        :func:`fleiss_kappa` for raw ratings); negative or non-integer entries; rows that do
        not all sum to the same number of raters (the message names the first such row and
        suggests :func:`fleiss_kappa` if the array holds raw ratings) or not to ``n_raters``;
        fewer than 2 raters per item; every column named like a rater (``rater_1``,
        ``coder2``, ``judge``, ...) unless ``n_raters`` is given; an unknown ``method`` or
        ``alternative``.

    Warns
    -----
    noisefloor.stats.fleiss_se.RawRatingsWarning
        Raw ratings whose rows happen to sum equally are valid counts as numbers, so they are
        caught by a heuristic, not proved: no cell is 0 and no cell exceeds the number of
        columns k (what codes 1..k from k raters look like; as counts it would mean every item
        was put in every category). The same text goes to ``note``. It misses codes starting
        at 0 and codes larger than the number of raters, and it flags a genuine table in
        which raters split over every category on every item; pass ``n_raters`` to confirm a
        count table. Details in :func:`noisefloor.stats.fleiss_se.check_count_table`.

    Notes
    -----
    P_i = sum_j n_ij (n_ij - 1) / (m (m - 1)), P_o = mean_i P_i, p_j = sum_i n_ij / (N m),
    P_e = sum_j p_j^2 (Fleiss) or 1/k (Randolph), kappa = (P_o - P_e) / (1 - P_e); computed by
    :func:`statsmodels.stats.inter_rater.fleiss_kappa`. Category-wise kappa (Fleiss 1971, not
    in statsmodels): kappa_j = 1 - sum_i n_ij (m - n_ij) / (N m (m - 1) p_j (1 - p_j)).

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin 76(5), 378-382.
    Fleiss, J. L., Nee, J. C. M. and Landis, J. R. (1979). Large sample variance of kappa in
    the case of different sets of raters. Psychological Bulletin 86(5), 974-977.
    Randolph, J. J. (2005). Free-marginal multirater kappa. Joensuu Learning and Instruction
    Symposium.

    Examples
    --------
    >>> r = fleiss_kappa_from_counts([[3, 0], [0, 3], [2, 1], [3, 0]], n_boot=0)
    >>> round(r.value, 3), round(r.observed_agreement, 3)
    (0.625, 0.833)
    >>> round(r.se_null, 3), round(r.z, 3), round(r.p_value, 3)
    (0.289, 2.165, 0.03)

    Raw ratings passed by mistake are caught: text labels are an error, and codes whose rows
    happen to sum equally raise a warning (they are valid counts as numbers):

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = fleiss_kappa_from_counts([[1, 2, 3], [3, 2, 1], [2, 2, 2]], n_boot=0)
    >>> caught[0].category.__name__, r.note[:35]
    ('RawRatingsWarning', 'these counts look like raw ratings:')
    """
    confidence = _check_confidence(confidence)
    n_boot = _check_n_boot(n_boot)
    _check_choice("method", method, FLEISS_METHODS)
    _check_choice("alternative", alternative, ALTERNATIVES)
    raw, cats, note = check_count_table(counts, categories=categories, n_raters=n_raters)
    result = _fleiss_result(
        raw.astype(np.int64), cats, method, confidence, n_boot, rng, alternative
    )
    return replace(result, note=note) if note else result


def fleiss_kappa(
    ratings: Any,
    *,
    categories: Sequence[Any] | None = None,
    method: str = "fleiss",
    confidence: float = 0.95,
    n_boot: int = 2000,
    rng: int | np.random.Generator | None = None,
    alternative: str = "two-sided",
) -> AgreementResult:
    """Fleiss' kappa from raw ratings (item x rater), aggregated for you.

    Parameters
    ----------
    ratings : array_like or DataFrame, shape (n_items, n_raters)
        The label each rater gave each item. Every item must be rated by every rater (Fleiss'
        kappa assumes the same number of ratings per item); use :func:`krippendorff_alpha`
        when ratings are missing.
    categories : sequence, optional
        All categories, so that a category nobody used still counts (it changes nothing for
        Fleiss' kappa but it does for Randolph's, whose chance agreement is 1/k).
        Default: the labels observed, sorted.
    method, confidence, n_boot, rng, alternative
        As in :func:`fleiss_kappa_from_counts`.

    Returns
    -------
    AgreementResult
        As in :func:`fleiss_kappa_from_counts`.

    Raises
    ------
    ValueError
        Not 2-D, fewer than 2 raters, a missing rating (named by row and column), a label
        outside ``categories``, an unknown ``method`` or ``alternative``.

    Notes
    -----
    Labels are coded by their position in ``categories`` and counted with
    :func:`statsmodels.stats.inter_rater.aggregate_raters`; see
    :func:`fleiss_kappa_from_counts` for the formula.

    References
    ----------
    Fleiss, J. L. (1971). Psychological Bulletin 76(5), 378-382.

    Examples
    --------
    >>> ratings = [["a", "a", "a"], ["b", "b", "b"], ["a", "a", "b"], ["a", "a", "a"]]
    >>> round(fleiss_kappa(ratings, n_boot=0).value, 3)
    0.625
    """
    arr = _ratings_matrix(ratings)
    for (i, j), x in np.ndenumerate(arr):
        if _is_missing(x):
            raise ValueError(
                f"ratings[{i}, {j}] is missing; Fleiss' kappa needs every item rated by every "
                "rater (use krippendorff_alpha for incomplete data)"
            )
    cats = _resolve_categories(list(arr.ravel()), categories)
    index = {c: i for i, c in enumerate(cats)}
    codes = np.vectorize(index.__getitem__, otypes=[np.int64])(arr)
    counts, _ = aggregate_raters(codes, n_cat=len(cats))
    return fleiss_kappa_from_counts(
        counts, categories=cats, method=method, confidence=confidence, n_boot=n_boot, rng=rng,
        alternative=alternative, n_raters=arr.shape[1],
    )


# ----------------------------------------------------------------------------- Krippendorff


def _pairable_agreement(codes: np.ndarray, k: int) -> tuple[float, float, int]:
    """Observed and nominal-expected exact agreement from the coincidence matrix.

    codes: item x rater float array of category codes with NaN for missing. Returns
    (observed, expected, n_pairable_values) following Krippendorff (2011), section on the
    coincidence matrix: o_ck = sum_u (number of c-k pairs in unit u) / (m_u - 1).
    """
    o = np.zeros((k, k))
    for row in codes:
        vals = row[np.isfinite(row)].astype(int)
        m = vals.size
        if m < 2:
            continue
        cnt = np.bincount(vals, minlength=k).astype(float)
        o += (np.outer(cnt, cnt) - np.diag(cnt)) / (m - 1)
    n = o.sum()
    if n == 0:
        return math.nan, math.nan, 0
    nc = o.sum(axis=1)
    observed = float(np.trace(o) / n)
    expected = float((nc * (nc - 1)).sum() / (n * (n - 1))) if n > 1 else math.nan
    return observed, expected, int(round(n))


def krippendorff_alpha(
    ratings: Any,
    *,
    level: str,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    rng: int | np.random.Generator | None = None,
) -> AgreementResult:
    """Krippendorff's alpha for any number of raters, missing ratings allowed.

    Parameters
    ----------
    ratings : array_like or DataFrame, shape (n_items, n_raters)
        Item x rater (note: the ``krippendorff`` package takes the transpose); missing ratings
        are ``None`` or NaN. Items with fewer than two ratings are not pairable and do not
        enter alpha (counted in ``note``).
    level : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement; required, there is no default.
    categories : sequence, optional
        Value order, lowest to highest. ``"ordinal"``: required when the labels are not all
        numbers (an error otherwise; numeric labels are taken in numeric order, recorded as
        ``category_order="numeric"``). ``"nominal"``: only names the values.
        ``"interval"``/``"ratio"``: need numeric ratings; the distances are the values' own,
        so the order is ignored (``category_order="numeric"``).
    confidence : float, default 0.95
        Level of the bootstrap interval.
    n_boot : int, default 2000
        Bootstrap resamples of items; 0 disables it.
    rng : int or numpy.random.Generator, optional
        Randomness for the bootstrap.

    Returns
    -------
    AgreementResult
        ``metric="krippendorff"``, ``level`` set; ``observed_agreement`` is the share of
        pairable value pairs that are identical and ``expected_agreement`` its nominal chance
        value (both descriptive; alpha itself uses the level's distance).

    Raises
    ------
    ValueError
        Bad ``level``; non-numeric ratings at the interval/ratio level, or at the ordinal level
        without ``categories`` (see :func:`ordered_categories`); no item with two ratings; a
        label outside ``categories``.

    Notes
    -----
    alpha = 1 - D_o / D_e, observed over expected disagreement under the level's distance;
    computed by ``krippendorff.alpha`` with ``level_of_measurement`` passed explicitly. When all
    pairable values are identical D_e = 0 and alpha is undefined (NaN with a reason). The
    bootstrap resamples items (units), not pairs as in Krippendorff's own algorithm.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
    Communication Departmental Papers 43, University of Pennsylvania.

    Examples
    --------
    >>> data = [[1, 1, None], [2, 2, 3], [3, 3, 3], [2, 2, 2]]
    >>> round(krippendorff_alpha(data, level="nominal", n_boot=0).value, 3)
    0.737
    """
    _check_choice("level", level, LEVELS)
    confidence = _check_confidence(confidence)
    n_boot = _check_n_boot(n_boot)
    arr = _ratings_matrix(ratings)
    missing = np.vectorize(_is_missing, otypes=[bool])(arr)
    present = list(arr[~missing])
    if level in ("interval", "ratio"):
        bad = [
            x for x in present
            if not isinstance(x, (int, float, np.number)) or isinstance(x, bool)
        ]
        if bad:
            raise ValueError(
                f"the {level} level of measurement needs numeric ratings; got {bad[0]!r}. "
                "Labels that are not numbers need the nominal or ordinal level"
            )
        values = np.where(missing, np.nan, arr).astype(float)
        cats = (
            tuple(sorted(set(present), key=_sort_key)) if categories is None
            else tuple(categories)
        )
        _resolve_categories(present, cats)
        codes_for_agreement = np.full(values.shape, np.nan)
        index = {c: i for i, c in enumerate(cats)}
        for (i, j), x in np.ndenumerate(arr):
            if not missing[i, j]:
                codes_for_agreement[i, j] = index[x]
        domain = None
        order = "numeric"
    else:
        if level == "ordinal":
            cats, order = ordered_categories(present, categories, "ordinal alpha")
        else:
            cats, order = _resolve_categories(present, categories), ""
        index = {c: i for i, c in enumerate(cats)}
        values = np.full(arr.shape, np.nan)
        for (i, j), x in np.ndenumerate(arr):
            if not missing[i, j]:
                values[i, j] = index[x]
        codes_for_agreement = values
        domain = list(range(len(cats)))
    pairable_rows = (np.isfinite(values).sum(axis=1) >= 2)
    if not pairable_rows.any():
        raise ValueError("no item has at least two ratings, so nothing is pairable")
    po, pe, _ = _pairable_agreement(codes_for_agreement, len(cats))
    n_unpairable = int((~pairable_rows).sum())
    note = (
        f"{n_unpairable} item(s) with fewer than two ratings are not pairable and do not enter "
        "alpha"
        if n_unpairable
        else ""
    )
    base = dict(
        metric="krippendorff",
        confidence=confidence,
        n_items=int(pairable_rows.sum()),
        n_raters=int(arr.shape[1]),
        categories=cats,
        observed_agreement=po,
        expected_agreement=pe,
        level=level,
        note=note,
        category_order=order,
    )

    def alpha_of(rows: np.ndarray) -> float:
        sub = values[rows]
        pair = np.isfinite(sub).sum(axis=1) >= 2
        vals = sub[pair]
        finite = vals[np.isfinite(vals)]
        if finite.size == 0 or np.unique(finite).size < 2:
            return math.nan
        kwargs = {"value_domain": domain} if domain is not None else {}
        return float(
            krippendorff.alpha(reliability_data=vals.T, level_of_measurement=level, **kwargs)
        )

    value = alpha_of(np.arange(arr.shape[0]))
    if not math.isfinite(value):
        only = cats[int(np.nanmin(codes_for_agreement[pairable_rows]))]
        return _undefined(
            f"undefined: every pairable rating is {only!r}, so expected disagreement is 0 "
            "and alpha is 0/0",
            base,
        )
    result = AgreementResult(value=value, ci_low=math.nan, ci_high=math.nan, **base)
    resampler = (_boot.krippendorff_resampler(values, level) if n_boot else None) or (
        _boot.loop_resampler(arr.shape[0], alpha_of))
    return _with_bootstrap(result, arr.shape[0], n_boot, rng, resampler)
