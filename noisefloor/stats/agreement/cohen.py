"""Cohen's kappa between two raters (unweighted, linear or quadratic), with intervals.

statsmodels computes kappa and its large-sample standard error; this module adds the category
order, the checks, the bootstrap interval over items and a ``reason`` where kappa is undefined.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa as _sm_cohens_kappa

from noisefloor.stats.agreement import resampling as _boot
from noisefloor.stats.agreement.input import (
    _codes,
    _first_seen,
    _integer_array,
    _missing_mask,
    check_choice,
    check_confidence,
    check_n_boot,
    ordered_categories,
    resolve_categories,
)
from noisefloor.stats.agreement.interval import _with_bootstrap
from noisefloor.stats.agreement.result import (
    SE_PERFECT_AGREEMENT_REASON,
    AgreementResult,
    _undefined,
)

__all__ = ["WEIGHTS", "cohen_kappa", "cohen_kappa_from_table"]

WEIGHTS = ("none", "linear", "quadratic")


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
    confidence = check_confidence(confidence)
    check_choice("weights", weights, WEIGHTS)
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
    base: dict[str, Any] = dict(
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
    confidence = check_confidence(confidence)
    n_boot = check_n_boot(n_boot)
    check_choice("weights", weights, WEIGHTS)
    int_a, int_b = _integer_array(rater_a), _integer_array(rater_b)
    integers = int_a is not None and int_b is not None and int_a.dtype == int_b.dtype
    if integers:  # integer arrays: no label is missing, the distinct labels come from np.unique
        a, b = np.ravel(rater_a), np.ravel(rater_b)
    else:
        a = np.asarray(rater_a, dtype=object).ravel()
        b = np.asarray(rater_b, dtype=object).ravel()
    if a.size != b.size:
        raise ValueError(f"rater_a has {a.size} labels but rater_b has {b.size}")
    if not a.size:
        raise ValueError("no items: rater_a and rater_b are empty")
    for name, seq in (() if integers else (("rater_a", a), ("rater_b", b))):
        missing = _missing_mask(seq)
        if missing.any():
            raise ValueError(
                f"{name}[{int(np.argmax(missing))}] is missing; Cohen's kappa needs both "
                "ratings of every item"
            )
    both = _first_seen(np.concatenate([a, b])) if integers else np.concatenate([a, b]).tolist()
    if weights == "none":
        cats, order = resolve_categories(both, categories), ""
    else:
        cats, order = ordered_categories(both, categories, f"{weights}-weighted kappa")
    index = {c: i for i, c in enumerate(cats)}
    ia = _codes(a, index)
    ib = _codes(b, index)
    k = len(cats)

    def table_of(rows: np.ndarray) -> np.ndarray:
        return np.bincount(ia[rows] * k + ib[rows], minlength=k * k).reshape(k, k).astype(float)

    result = _cohen_result(table_of(np.arange(a.size)), weights, cats, confidence, n_raters=2)
    result = replace(result, category_order=order)
    return _with_bootstrap(
        result, a.size, n_boot, rng,
        lambda: _boot.cohen_resampler(ia, ib, k, _weight_matrix(k, weights))
    )
