"""Inter-rater agreement: Cohen's kappa, Fleiss' kappa and Krippendorff's alpha, with intervals.

Every estimator wraps a well-kept library for the arithmetic (statsmodels for the kappas, the
``krippendorff`` package for alpha) and adds an explicit category order, input checks whose
messages name the offending row (:mod:`~noisefloor.stats.agreement.input`), a percentile
bootstrap interval over items with a local ``rng`` (:mod:`~noisefloor.stats.agreement.interval`,
:mod:`~noisefloor.stats.agreement.resampling`) and an explicit ``reason`` when agreement is
undefined (:mod:`~noisefloor.stats.agreement.result`). One module per coefficient:
:mod:`~noisefloor.stats.agreement.cohen`, :mod:`~noisefloor.stats.agreement.fleiss` (a package:
the kappa, its z-test and its count-table checks), :mod:`~noisefloor.stats.agreement.alpha`.
Ratings are laid out item x rater; a missing rating is ``None`` or ``NaN``. Continuous scores
are read by the intraclass correlations of :mod:`~noisefloor.stats.agreement.icc`. The names
below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.stats.agreement.alpha import LEVELS, krippendorff_alpha
    from noisefloor.stats.agreement.cohen import WEIGHTS, cohen_kappa, cohen_kappa_from_table
    from noisefloor.stats.agreement.fleiss.counts import RawRatingsWarning, check_count_table
    from noisefloor.stats.agreement.fleiss.kappa import (
        FLEISS_METHODS,
        fleiss_kappa,
        fleiss_kappa_from_counts,
    )
    from noisefloor.stats.agreement.fleiss.null_test import (
        ALTERNATIVES,
        FleissNullTest,
        fleiss_null_test,
    )
    from noisefloor.stats.agreement.icc import (
        ICC_FORMS,
        IccEstimate,
        IntraclassCorrelation,
        intraclass_correlation,
    )
    from noisefloor.stats.agreement.input import (
        check_choice,
        check_confidence,
        check_n_boot,
        ordered_categories,
        resolve_categories,
    )
    from noisefloor.stats.agreement.interval import (
        MIN_BOOTSTRAP_ITEMS,
        NO_RESAMPLES_REASON,
        as_generator,
    )
    from noisefloor.stats.agreement.resampling import (
        CHUNK_CELLS,
        MULTINOMIAL_MAX_PATTERNS,
        Resampler,
        bootstrap,
        cohen_resampler,
        fleiss_resampler,
        krippendorff_resampler,
        loop_resampler,
    )
    from noisefloor.stats.agreement.result import (
        LANDIS_KOCH_BANDS,
        RANDOLPH_NULL_REASON,
        SE_PERFECT_AGREEMENT_REASON,
        AgreementResult,
        landis_koch,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "ALTERNATIVES": "fleiss.null_test",
    "AgreementResult": "result",
    "CHUNK_CELLS": "resampling",
    "FLEISS_METHODS": "fleiss.kappa",
    "FleissNullTest": "fleiss.null_test",
    "ICC_FORMS": "icc",
    "IccEstimate": "icc",
    "IntraclassCorrelation": "icc",
    "LANDIS_KOCH_BANDS": "result",
    "LEVELS": "alpha",
    "MIN_BOOTSTRAP_ITEMS": "interval",
    "NO_RESAMPLES_REASON": "interval",
    "MULTINOMIAL_MAX_PATTERNS": "resampling",
    "RANDOLPH_NULL_REASON": "result",
    "RawRatingsWarning": "fleiss.counts",
    "Resampler": "resampling",
    "SE_PERFECT_AGREEMENT_REASON": "result",
    "WEIGHTS": "cohen",
    "as_generator": "interval",
    "bootstrap": "resampling",
    "check_choice": "input",
    "check_confidence": "input",
    "check_count_table": "fleiss.counts",
    "check_n_boot": "input",
    "cohen_kappa": "cohen",
    "cohen_kappa_from_table": "cohen",
    "cohen_resampler": "resampling",
    "fleiss_kappa": "fleiss.kappa",
    "fleiss_kappa_from_counts": "fleiss.kappa",
    "fleiss_null_test": "fleiss.null_test",
    "fleiss_resampler": "resampling",
    "intraclass_correlation": "icc",
    "krippendorff_alpha": "alpha",
    "krippendorff_resampler": "resampling",
    "landis_koch": "result",
    "loop_resampler": "resampling",
    "ordered_categories": "input",
    "resolve_categories": "input",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
