"""Intraclass correlations: agreement of continuous scores (e.g. judge scores on a 1-10 scale).

Kappa and alpha treat labels as categories; a score from several raters (humans or LLM judges)
on a numeric scale is read by the intraclass correlation instead: the share of the score
variance that lies between the rated items. The six forms of Shrout and Fleiss (1979) come from
one two-way analysis of variance of the complete items x raters table; the F tests and
confidence intervals follow McGraw and Wong (1996). The arithmetic is that of pingouin's
``intraclass_corr`` (the tests check every column against it), with the interval at any
confidence level rather than 95% only.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from noisefloor.results import FrozenResult

__all__ = ["ICC_FORMS", "IccEstimate", "IntraclassCorrelation", "intraclass_correlation"]

#: The six forms: (name, Shrout-Fleiss notation with k raters, what it measures).
ICC_FORMS: tuple[tuple[str, str, str], ...] = (
    ("ICC1", "ICC(1,1)", "one-way random, single rater"),
    ("ICC2", "ICC(2,1)", "two-way random, absolute agreement, single rater"),
    ("ICC3", "ICC(3,1)", "two-way mixed, consistency, single rater"),
    ("ICC1k", "ICC(1,k)", "one-way random, mean of k raters"),
    ("ICC2k", "ICC(2,k)", "two-way random, absolute agreement, mean of k raters"),
    ("ICC3k", "ICC(3,k)", "two-way mixed, consistency, mean of k raters"),
)


@dataclass(frozen=True)
class IccEstimate:
    """One intraclass correlation form.

    Attributes
    ----------
    form : str
        ``"ICC1"``, ``"ICC2"``, ``"ICC3"``, ``"ICC1k"``, ``"ICC2k"`` or ``"ICC3k"`` (the names
        of R's ``psych::ICC``; ``notation`` gives Shrout and Fleiss's).
    notation : str
        ``"ICC(1,1)"`` ... ``"ICC(3,k)"``.
    description : str
        The model and what is averaged.
    value : float
        The coefficient (at most 1; can be negative); NaN when undefined.
    f, df1, df2, p_value : float
        The F test of H0: ICC = 0 (one-sided): between-items mean square over the within-items
        (form 1) or residual (forms 2 and 3) mean square.
    ci_low, ci_high : float
        Confidence interval at the result's ``confidence`` (McGraw and Wong 1996, Table 7).
    """

    form: str
    notation: str
    description: str
    value: float
    f: float
    df1: float
    df2: float
    p_value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class IntraclassCorrelation(FrozenResult):
    """The six intraclass correlations of one items x raters table of scores.

    Attributes
    ----------
    estimates : tuple of IccEstimate
        In the order of :data:`ICC_FORMS`.
    n_items : int
        Items rated by every rater (the ones that entered).
    n_raters : int
    n_left_out : int
        Items left out because a rater did not score them (the analysis of variance needs the
        complete table).
    confidence : float
    reason : str
        Empty when the values are defined, otherwise why they are not.
    """

    estimates: tuple[IccEstimate, ...]
    n_items: int
    n_raters: int
    n_left_out: int
    confidence: float
    reason: str = ""

    def __getitem__(self, form: str) -> IccEstimate:
        """The estimate of one form, by name (``"ICC2"``) or notation (``"ICC(2,1)"``)."""
        for est in self.estimates:
            if form in (est.form, est.notation):
                return est
        raise KeyError(f"unknown ICC form {form!r}; forms: {[e.form for e in self.estimates]}")

    # hand-written: one row per form, the common fields repeated
    def to_frame(self) -> pd.DataFrame:
        """One row per form: the :class:`IccEstimate` fields, then ``n_items``, ``n_raters``,
        ``n_left_out``, ``confidence`` and ``reason``."""
        common = {"n_items": self.n_items, "n_raters": self.n_raters,
                  "n_left_out": self.n_left_out, "confidence": self.confidence,
                  "reason": self.reason}
        return pd.DataFrame([asdict(e) | common for e in self.estimates])


def _undefined(n: int, k: int, left_out: int, confidence: float, reason: str
               ) -> IntraclassCorrelation:
    nan = math.nan
    return IntraclassCorrelation(
        estimates=tuple(IccEstimate(f, s, d, nan, nan, nan, nan, nan, nan, nan)
                        for f, s, d in ICC_FORMS),
        n_items=n, n_raters=k, n_left_out=left_out, confidence=confidence, reason=reason)


def intraclass_correlation(ratings: Any, *, confidence: float = 0.95) -> IntraclassCorrelation:
    """The six intraclass correlations of Shrout and Fleiss (1979) with F tests and intervals.

    Parameters
    ----------
    ratings : array_like, shape (n_items, n_raters)
        Numeric scores; NaN is a score not given. Items without a score from every rater are
        left out (counted in ``n_left_out``).
    confidence : float, default 0.95
        Level of the intervals, strictly between 0 and 1.

    Returns
    -------
    IntraclassCorrelation
        NaN values with a ``reason`` when fewer than two complete items or two raters remain,
        or when the scores do not vary.

    Raises
    ------
    ValueError
        ``ratings`` not two-dimensional or not numeric, or ``confidence`` outside (0, 1).

    Notes
    -----
    With n items, k raters and the mean squares of a two-way analysis of variance -- between
    items BMS, within items WMS, between raters JMS, residual EMS --

    - ICC(1,1) = (BMS - WMS) / (BMS + (k-1) WMS), ICC(1,k) = (BMS - WMS) / BMS;
    - ICC(2,1) = (BMS - EMS) / (BMS + (k-1) EMS + k (JMS - EMS) / n),
      ICC(2,k) = (BMS - EMS) / (BMS + (JMS - EMS) / n);
    - ICC(3,1) = (BMS - EMS) / (BMS + (k-1) EMS), ICC(3,k) = (BMS - EMS) / BMS.

    Form 1 treats raters as interchangeable (each item may have its own raters); form 2 adds
    raters as a random effect, so a rater who scores everything higher lowers agreement
    (absolute agreement, for judges meant to stand in for others); form 3 holds the raters
    fixed and asks only for consistency. The intervals are those of McGraw and Wong (1996),
    Table 7 (for form 2 with Satterthwaite's degrees of freedom), as in pingouin and R's
    ``psych::ICC``.

    References
    ----------
    Shrout, P. E. and Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
    reliability. Psychological Bulletin 86(2), 420-428.
    McGraw, K. O. and Wong, S. P. (1996). Forming inferences about some intraclass correlation
    coefficients. Psychological Methods 1(1), 30-46.

    Examples
    --------
    Shrout and Fleiss (1979), Table 2: six targets scored by four judges, for which the paper
    reports ICC(1,1) = .17, ICC(2,1) = .29, ICC(3,1) = .71, ICC(1,4) = .44, ICC(2,4) = .62,
    ICC(3,4) = .91.

    >>> sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> res = intraclass_correlation(sf)
    >>> [(e.notation, round(e.value, 2)) for e in res.estimates]  # doctest: +NORMALIZE_WHITESPACE
    [('ICC(1,1)', 0.17), ('ICC(2,1)', 0.29), ('ICC(3,1)', 0.71), ('ICC(1,k)', 0.44),
     ('ICC(2,k)', 0.62), ('ICC(3,k)', 0.91)]
    >>> e = res["ICC(3,1)"]
    >>> round(e.f, 2), e.df1, e.df2, round(e.ci_low, 3), round(e.ci_high, 3)
    (11.03, 5.0, 15.0, 0.342, 0.946)
    """
    if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence!r}")
    try:
        y = np.asarray(ratings, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("ratings must be numeric scores (an items x raters table of numbers); "
                         "use Cohen's or Fleiss' kappa or Krippendorff's alpha for categories"
                         ) from None
    if y.ndim != 2:
        raise ValueError(f"ratings must be a 2-D items x raters table; got shape {y.shape}")
    complete = ~np.isnan(y).any(axis=1)
    left_out = int((~complete).sum())
    y = y[complete]
    n, k = y.shape
    if n < 2 or k < 2:
        return _undefined(n, k, left_out, confidence,
                          f"not computed: needs at least two items scored by every rater and "
                          f"two raters; there are {n} complete item(s) and {k} rater(s)")
    grand = y.mean()
    ss_total = float(((y - grand) ** 2).sum())
    ss_items = float(k * ((y.mean(axis=1) - grand) ** 2).sum())
    ss_raters = float(n * ((y.mean(axis=0) - grand) ** 2).sum())
    bms = ss_items / (n - 1)
    wms = (ss_total - ss_items) / (n * (k - 1))
    jms = ss_raters / (k - 1)
    ems = (ss_total - ss_items - ss_raters) / ((n - 1) * (k - 1))
    if bms <= 0 or wms <= 0 or ems <= 0:
        return _undefined(n, k, left_out, confidence,
                          "not computed: the scores do not vary between items, or every rater "
                          "gives every item the same score as the others (a mean square is 0)")
    icc1 = (bms - wms) / (bms + (k - 1) * wms)
    icc2 = (bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n)
    icc3 = (bms - ems) / (bms + (k - 1) * ems)
    icc1k = (bms - wms) / bms
    icc2k = (bms - ems) / (bms + (jms - ems) / n)
    icc3k = (bms - ems) / bms
    df_items, df_within, df_error = n - 1, n * (k - 1), (n - 1) * (k - 1)
    f1, f3 = bms / wms, bms / ems
    p1, p3 = float(sps.f.sf(f1, df_items, df_within)), float(sps.f.sf(f3, df_items, df_error))
    q = 1 - (1 - confidence) / 2
    # forms 1 and 3 (McGraw and Wong 1996, Table 7, cases 1 and 3)
    f1l = f1 / sps.f.ppf(q, df_items, df_within)
    f1u = f1 * sps.f.ppf(q, df_within, df_items)
    f3l = f3 / sps.f.ppf(q, df_items, df_error)
    f3u = f3 * sps.f.ppf(q, df_error, df_items)
    ci1 = ((f1l - 1) / (f1l + k - 1), (f1u - 1) / (f1u + k - 1))
    ci3 = ((f3l - 1) / (f3l + k - 1), (f3u - 1) / (f3u + k - 1))
    ci1k = (1 - 1 / f1l, 1 - 1 / f1u)
    ci3k = (1 - 1 / f3l, 1 - 1 / f3u)
    # form 2: Satterthwaite's degrees of freedom for the denominator
    fj = jms / ems
    spread = n * (1 + (k - 1) * icc2) - k * icc2
    v = (df_error * (k * icc2 * fj + spread) ** 2
         / (df_items * k**2 * icc2**2 * fj**2 + spread**2))
    fu = sps.f.ppf(q, n - 1, v)
    fl = sps.f.ppf(q, v, n - 1)
    mid = k * jms + (k * n - k - n) * ems
    low2 = n * (bms - fu * ems) / (fu * mid + n * bms)
    high2 = n * (fl * bms - ems) / (mid + n * fl * bms)
    ci2 = (low2, high2)
    ci2k = (low2 * k / (1 + low2 * (k - 1)), high2 * k / (1 + high2 * (k - 1)))
    rows = [(icc1, f1, df_items, df_within, p1, ci1), (icc2, f3, df_items, df_error, p3, ci2),
            (icc3, f3, df_items, df_error, p3, ci3), (icc1k, f1, df_items, df_within, p1, ci1k),
            (icc2k, f3, df_items, df_error, p3, ci2k), (icc3k, f3, df_items, df_error, p3, ci3k)]
    estimates = tuple(
        IccEstimate(form, notation, description, float(value), float(f), float(d1), float(d2),
                    p, float(ci[0]), float(ci[1]))
        for (form, notation, description), (value, f, d1, d2, p, ci) in zip(ICC_FORMS, rows))
    return IntraclassCorrelation(estimates=estimates, n_items=n, n_raters=k, n_left_out=left_out,
                                 confidence=float(confidence))
