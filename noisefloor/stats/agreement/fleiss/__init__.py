"""Fleiss' kappa among many raters: the estimate, its z-test against chance, its count table.

:mod:`~noisefloor.stats.agreement.fleiss.kappa` estimates Fleiss' (or Randolph's free-marginal)
kappa from raw ratings or an item x category count table, with category-wise kappas and a
bootstrap interval; :mod:`~noisefloor.stats.agreement.fleiss.null_test` holds the standard error
of kappa under H0 (kappa = 0) of Fleiss, Nee and Landis (1979) and its z-test, valid for the
test and not for an interval; :mod:`~noisefloor.stats.agreement.fleiss.counts` checks a count
table and catches raw ratings passed as counts. :mod:`noisefloor.stats.agreement` exports the
same names; those below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
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

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "ALTERNATIVES": "null_test",
    "FLEISS_METHODS": "kappa",
    "FleissNullTest": "null_test",
    "RawRatingsWarning": "counts",
    "check_count_table": "counts",
    "fleiss_kappa": "kappa",
    "fleiss_kappa_from_counts": "kappa",
    "fleiss_null_test": "null_test",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)

__all__ = [
    "ALTERNATIVES",
    "FLEISS_METHODS",
    "FleissNullTest",
    "RawRatingsWarning",
    "check_count_table",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "fleiss_null_test",
]
