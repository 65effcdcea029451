"""DerSimonian-Laird pooling in closed form equals statsmodels' combine_effects.

The floor's default pooling computes DerSimonian-Laird itself (statsmodels would cost the
command a second of start-up); these tests pin it to ``combine_effects(method_re="dl")``
(truncated at tau^2 = 0, where the fixed-effect row applies) over generated inputs. The
metafor reference values are in test_pooling.py.
"""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from statsmodels.stats.meta_analysis import combine_effects

from noisefloor.stats.pooling import pool_random_effects

gaps = st.floats(-1, 1)
variances = st.floats(1e-4, 0.05)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(gaps, variances), min_size=2, max_size=12),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))
@example([(0.8984375, 0.03125), (0.9, 0.0001)], 0.8)  # Q ~ 8e-5 from terms ~ 8e3
def test_dl_equals_statsmodels(rows, conf):
    y, v = (np.array(c) for c in zip(*rows))
    r = pool_random_effects(y, v, method="dl", confidence=conf)
    res = combine_effects(y, v, method_re="dl", alpha=1 - conf)
    frame = res.summary_frame(alpha=1 - conf)
    fixed = res.tau2 <= 0
    row = frame.loc["fixed effect" if fixed else "random effect"]
    est = res.mean_effect_fe if fixed else res.mean_effect_re
    assert r.estimate == pytest.approx(est, abs=1e-12)
    assert (r.ci_low, r.ci_high) == pytest.approx((row["ci_low"], row["ci_upp"]), abs=1e-12)
    assert r.tau_squared == pytest.approx(max(0.0, res.tau2), abs=1e-12)
    # Q = sum w (y - ybar)^2 is a difference of terms of size sum w y^2; two correct
    # orders of summation differ by a few ulps of that size, so the tolerance scales with
    # it (a wrong weight or mean is off by far more)
    q_scale = float(np.sum(y * y / v))
    assert r.q == pytest.approx(res.q, rel=1e-10, abs=1e-13 * q_scale + 1e-12)
    assert r.i2 == pytest.approx(0.0 if fixed else max(0.0, res.i2), abs=1e-12)
    assert r.tau == pytest.approx(math.sqrt(r.tau_squared))


def test_reference_metafor_at_two_levels():
    # R metafor: rma(c(.18, -.03), c(.0036, .0031), method = "DL", level = 90): CI
    # -0.098889 0.246508; at 95% the same estimate and a half-width larger by z ratio
    r90 = pool_random_effects([0.18, -0.03], [0.0036, 0.0031], confidence=0.90)
    r95 = pool_random_effects([0.18, -0.03], [0.0036, 0.0031], confidence=0.95)
    assert (round(r90.ci_low, 6), round(r90.ci_high, 6)) == (-0.098889, 0.246508)
    assert r95.estimate == r90.estimate and r95.ci_low < r90.ci_low
    assert r95.ci_high - r95.estimate == pytest.approx(
        (r90.ci_high - r90.estimate) * 1.959963984540054 / 1.6448536269514722)
