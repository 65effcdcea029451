"""Pure statistics: paired tests, intervals, multiplicity, pooling, pass^k, agreement, monitors.

No I/O and no plotting live in this package; every function returns a frozen result object.
"""

from noisefloor.stats.multiplicity import MultiplicityResult, adjust_pvalues
from noisefloor.stats.paired import SignTest, sign_test, wilson_mapped_ci
from noisefloor.stats.passk import PassHatK, pass_hat_k, pass_hat_k_table
from noisefloor.stats.pooling import RandomEffectsPool, pool_counts, pool_random_effects

__all__ = [
    "MultiplicityResult",
    "PassHatK",
    "RandomEffectsPool",
    "SignTest",
    "adjust_pvalues",
    "pass_hat_k",
    "pass_hat_k_table",
    "pool_counts",
    "pool_random_effects",
    "sign_test",
    "wilson_mapped_ci",
]
