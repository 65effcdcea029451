"""Inter-rater agreement: Cohen's kappa, Fleiss' kappa and Krippendorff's alpha, with intervals.

Every estimator wraps a well-kept library for the arithmetic (statsmodels for the kappas, the
``krippendorff`` package for alpha) and adds what those libraries leave to the caller: an explicit
category order, input validation with messages that name the offending row, a bootstrap interval
over items with a local ``rng``, and an explicit ``reason`` when agreement is undefined.
Fleiss' kappa also carries the z-test of kappa = 0 with the standard error under that null
hypothesis (:mod:`noisefloor.stats.fleiss_se`); that standard error is for the test only, the
bootstrap gives the interval.

Each coefficient has its module -- :mod:`noisefloor.stats.agreement_cohen`,
:mod:`noisefloor.stats.agreement_fleiss`, :mod:`noisefloor.stats.agreement_alpha` -- sharing the
result record (:mod:`noisefloor.stats.agreement_result`), the input checks
(:mod:`noisefloor.stats.agreement_input`) and the bootstrap interval
(:mod:`noisefloor.stats.agreement_interval`); this module gathers the public names.

Ratings are always laid out **item x rater** (one row per rated item, one column per rater);
a missing rating is ``None`` or ``NaN``.

Undefined agreement (every rating in one category, so that chance agreement is 1 and the
coefficient is 0/0) is reported as ``value = NaN`` with ``reason`` filled in and the observed
agreement kept, never as 0 or 1.
"""

from noisefloor.stats.agreement_alpha import LEVELS, krippendorff_alpha
from noisefloor.stats.agreement_cohen import WEIGHTS, cohen_kappa, cohen_kappa_from_table
from noisefloor.stats.agreement_fleiss import (
    FLEISS_METHODS,
    fleiss_kappa,
    fleiss_kappa_from_counts,
)
from noisefloor.stats.agreement_icc import (
    ICC_FORMS,
    IccEstimate,
    IntraclassCorrelation,
    intraclass_correlation,
)
from noisefloor.stats.agreement_input import ordered_categories
from noisefloor.stats.agreement_interval import MIN_BOOTSTRAP_ITEMS
from noisefloor.stats.agreement_result import (
    LANDIS_KOCH_BANDS,
    RANDOLPH_NULL_REASON,
    SE_PERFECT_AGREEMENT_REASON,
    AgreementResult,
    landis_koch,
)
from noisefloor.stats.fleiss_se import RawRatingsWarning

__all__ = [
    "FLEISS_METHODS",
    "ICC_FORMS",
    "LANDIS_KOCH_BANDS",
    "LEVELS",
    "MIN_BOOTSTRAP_ITEMS",
    "RANDOLPH_NULL_REASON",
    "SE_PERFECT_AGREEMENT_REASON",
    "WEIGHTS",
    "AgreementResult",
    "IccEstimate",
    "IntraclassCorrelation",
    "RawRatingsWarning",
    "cohen_kappa",
    "cohen_kappa_from_table",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "intraclass_correlation",
    "krippendorff_alpha",
    "landis_koch",
    "ordered_categories",
]
