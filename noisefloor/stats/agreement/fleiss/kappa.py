"""Fleiss' kappa (and Randolph's free-marginal kappa) among many raters, with intervals.

statsmodels computes kappa from the item x category count table; this module adds the
category-wise kappas of Fleiss (1971), the z-test of kappa = 0
(:mod:`noisefloor.stats.agreement.fleiss.null_test`), the bootstrap interval over items and a
``reason`` where kappa is undefined; the count table is checked by
:mod:`noisefloor.stats.agreement.fleiss.counts`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as _sm_fleiss_kappa

from noisefloor.stats.agreement import resampling as _boot
from noisefloor.stats.agreement.fleiss.counts import check_count_table
from noisefloor.stats.agreement.fleiss.null_test import ALTERNATIVES, fleiss_null_test
from noisefloor.stats.agreement.input import (
    _codes,
    _first_seen,
    _integer_array,
    _missing_mask,
    _ratings_matrix,
    check_choice,
    check_confidence,
    check_n_boot,
    resolve_categories,
)
from noisefloor.stats.agreement.interval import _with_bootstrap
from noisefloor.stats.agreement.result import RANDOLPH_NULL_REASON, AgreementResult, _undefined

__all__ = ["FLEISS_METHODS", "fleiss_kappa", "fleiss_kappa_from_counts"]

FLEISS_METHODS = ("fleiss", "randolph")


def _fleiss_parts(counts: np.ndarray, method: str) -> tuple[float, float]:
    n_per = counts.sum(axis=1)[0]
    po = float(((counts * (counts - 1)).sum(axis=1) / (n_per * (n_per - 1))).mean())
    if method == "randolph":
        return po, 1.0 / counts.shape[1]
    p = counts.sum(axis=0) / counts.sum()
    return po, float((p**2).sum())


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
    base: dict[str, Any] = dict(
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
        result, counts.shape[0], n_boot, rng, lambda: _boot.fleiss_resampler(counts, method)
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
        kappa = 0; see :func:`noisefloor.stats.agreement.fleiss.null_test.fleiss_null_test`.
        ``se_null`` is valid under H0 only and gives no interval; ``ci_low``/``ci_high``
        (bootstrap) do. For ``"randolph"`` they are NaN and ``null_reason`` says why (that SE
        is for Fleiss' kappa, not the free-marginal one).

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
    noisefloor.stats.warning_classes.RawRatingsWarning
        Raw ratings whose rows happen to sum equally are valid counts as numbers, so they are
        caught by a heuristic, not proved: no cell is 0 and no cell exceeds the number of
        columns k (what codes 1..k from k raters look like; as counts it would mean every item
        was put in every category). The same text goes to ``note``. It misses codes starting
        at 0 and codes larger than the number of raters, and it flags a genuine table in
        which raters split over every category on every item; pass ``n_raters`` to confirm a
        count table. Details in
        :func:`noisefloor.stats.agreement.fleiss.counts.check_count_table`.

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
    confidence = check_confidence(confidence)
    n_boot = check_n_boot(n_boot)
    check_choice("method", method, FLEISS_METHODS)
    check_choice("alternative", alternative, ALTERNATIVES)
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
    ints = _integer_array(ratings)  # an integer array: nothing missing, labels by np.unique
    missing = _missing_mask(arr) if ints is None else np.zeros(arr.shape, dtype=bool)
    if missing.any():
        i, j = (int(v) for v in np.argwhere(missing)[0])
        raise ValueError(
            f"ratings[{i}, {j}] is missing; Fleiss' kappa needs every item rated by every "
            "rater (use krippendorff_alpha for incomplete data)"
        )
    cats = resolve_categories(
        arr.ravel().tolist() if ints is None else _first_seen(ints), categories)
    codes = _codes(arr if ints is None else ints, {c: i for i, c in enumerate(cats)})
    counts, _ = aggregate_raters(codes, n_cat=len(cats))
    return fleiss_kappa_from_counts(
        counts, categories=cats, method=method, confidence=confidence, n_boot=n_boot, rng=rng,
        alternative=alternative, n_raters=arr.shape[1],
    )
