"""The result of every agreement coefficient, and its Landis and Koch (1977) reading.

:class:`AgreementResult` is what :func:`noisefloor.stats.agreement.cohen_kappa`,
:func:`~noisefloor.stats.agreement.fleiss_kappa` and
:func:`~noisefloor.stats.agreement.krippendorff_alpha` return: the coefficient, its intervals,
and the facts needed to read it, with a ``reason`` wherever a value is undefined.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.results import FrozenResult

__all__ = [
    "LANDIS_KOCH_BANDS",
    "RANDOLPH_NULL_REASON",
    "SE_PERFECT_AGREEMENT_REASON",
    "AgreementResult",
    "landis_koch",
]

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
    for _low, high, name in LANDIS_KOCH_BANDS[1:]:
        if value <= high + 1e-12:
            return name
    return "almost perfect"


@dataclass(frozen=True)
class AgreementResult(FrozenResult):
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

    # hand-written: per-category tuples as dicts keyed by category, plus landis_koch
    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python values plus ``landis_koch``; NaN stays NaN."""
        out = super().to_dict()
        out["categories"] = [_plain(c) for c in self.categories]
        out["per_category"] = {str(_plain(c)): float(k) for c, k in self.per_category}
        out["per_category_null"] = {
            str(_plain(c)): {"se_null": float(se), "z": float(z), "p_value": float(p)}
            for c, se, z, p in self.per_category_null
        }
        out["landis_koch"] = self.landis_koch
        return out

    # hand-written: scalar fields only, categories joined by '|'
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


def _plain(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _undefined(reason: str, base: dict[str, Any]) -> AgreementResult:
    """A result whose coefficient is undefined: value and interval NaN, ``reason`` says why."""
    return AgreementResult(
        value=math.nan, ci_low=math.nan, ci_high=math.nan, reason=reason, **base
    )
