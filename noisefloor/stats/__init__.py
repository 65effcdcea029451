"""Pure statistics: paired tests, intervals, multiplicity, pooling, pass^k, agreement, monitors.

No I/O and no plotting live in this package; every function returns a frozen result object.

The names below are imported on first use, so importing a light module of the package
(:mod:`noisefloor.stats.validation`, :mod:`noisefloor.stats.warning_classes`) does not load
scipy and statsmodels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.stats.multiplicity import (
        MultiplicityResult,
        adjust_families,
        adjust_pvalues,
        holm,
    )
    from noisefloor.stats.paired import (
        SignTest,
        sign_test,
        sign_test_pvalues,
        sign_tests,
        wilson_interval,
        wilson_mapped_ci,
    )
    from noisefloor.stats.passat import PassAtK, pass_at_k_estimate, pass_at_k_from_counts
    from noisefloor.stats.passk import (
        PassHatK,
        PassHatKInterval,
        TaskCounts,
        count_trials,
        pass_hat_k_from_counts,
        pass_hat_k_interval_from_counts,
        trial_outcomes,
    )
    from noisefloor.stats.pooling import RandomEffectsPool, pool_counts, pool_random_effects

#: Public name -> the module that defines it.
_HOMES = {
    "MultiplicityResult": "multiplicity",
    "adjust_pvalues": "multiplicity",
    "adjust_families": "multiplicity",
    "holm": "multiplicity",
    "SignTest": "paired",
    "sign_test": "paired",
    "sign_tests": "paired",
    "sign_test_pvalues": "paired",
    "wilson_interval": "paired",
    "wilson_mapped_ci": "paired",
    "PassAtK": "passat",
    "pass_at_k_estimate": "passat",
    "pass_at_k_from_counts": "passat",
    "PassHatK": "passk",
    "TaskCounts": "passk",
    "count_trials": "passk",
    "pass_hat_k_from_counts": "passk",
    "trial_outcomes": "passk",
    "PassHatKInterval": "passk",
    "pass_hat_k_interval_from_counts": "passk",
    "RandomEffectsPool": "pooling",
    "pool_counts": "pooling",
    "pool_random_effects": "pooling",
}

__all__ = sorted(_HOMES)


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
