"""Power, sample size and minimum detectable effect for a gain in success rate.

:mod:`~noisefloor.stats.power.functions` gives the power of each design (two independent
proportions, McNemar's paired test, the exact sign test) at a given n;
:mod:`~noisefloor.stats.power.planning` solves for n and for the minimum detectable effect and
plans several designs at once; :mod:`~noisefloor.stats.power.shrinking_floor` solves for n
against a measured noise floor that narrows as n grows. The names below are imported on first
use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.stats.power.functions import (
        EFFECT_SIZES,
        MAX_EXACT_N,
        TESTS,
        power,
        power_curve,
        power_mcnemar,
        power_sign_test,
        power_two_proportion,
    )
    from noisefloor.stats.power.planning import (
        MAX_PLAN_N,
        PlanSet,
        PowerPlan,
        minimum_detectable_effect,
        plan,
        sample_size,
    )
    from noisefloor.stats.power.shrinking_floor import (
        ShrinkingFloorPlan,
        sample_size_shrinking_floor,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "EFFECT_SIZES": "functions",
    "MAX_EXACT_N": "functions",
    "MAX_PLAN_N": "planning",
    "PlanSet": "planning",
    "PowerPlan": "planning",
    "ShrinkingFloorPlan": "shrinking_floor",
    "TESTS": "functions",
    "minimum_detectable_effect": "planning",
    "plan": "planning",
    "power": "functions",
    "power_curve": "functions",
    "power_mcnemar": "functions",
    "power_sign_test": "functions",
    "power_two_proportion": "functions",
    "sample_size": "planning",
    "sample_size_shrinking_floor": "shrinking_floor",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
