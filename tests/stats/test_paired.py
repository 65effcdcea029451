"""Sign test and Wilson-mapped interval, pinned to the noise-floor paper and to R."""

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.stats.multiplicity import adjust_pvalues
from noisefloor.stats.paired import sign_test, sign_test_table, wilson_mapped_ci


def test_seed1_trial0_pull_vs_intercept_matches_paper():
    # Kaliyev & Maryanskyy (2026), "The protocol caught its own artifact": seed 1, trial 0,
    # pull vs intercept, 27/9/64 -> +18 pp, Bonferroni-corrected (m = 3) p = 0.012.
    r = sign_test(27, 9, 64)
    assert r.gap == pytest.approx(0.18)
    p_corr = adjust_pvalues([r.p_value], method="bonferroni", family_size=3).p_adjusted[0]
    assert round(p_corr, 3) == 0.012


def test_seed2_pull_vs_intercept_matches_paper():
    # Same source: seed 2 gives -3 pp, p_corr = 1.0.
    r = sign_test(18, 21, 61)
    assert r.gap == pytest.approx(-0.03)
    assert adjust_pvalues([r.p_value], family_size=3).p_adjusted[0] == 1.0


def test_pooled_pull_vs_intercept_matches_paper():
    # Same source: pooled over both seeds (n = 200): +7.5 pp, p_corr = 0.316.
    r = sign_test(45, 30, 125)
    assert r.gap == pytest.approx(0.075)
    assert round(min(1.0, 3 * r.p_value), 3) == 0.316


@pytest.mark.parametrize("w,losses,t,p", [(5, 5, 19, 1.00), (2, 6, 20, 0.29), (6, 11, 18, 0.33)])
def test_coordination_active_sign_tests_match_paper(w, losses, t, p):
    # Same source, coordination-active table: sign p = 1.00, 0.29, 0.33 (uncorrected).
    assert round(sign_test(w, losses, t).p_value, 2) == p


def test_binomial_p_value_matches_r():
    # R: binom.test(7, 20)$p.value == 0.2631760
    assert sign_test(7, 13, 4).p_value == pytest.approx(0.2631760, abs=1e-7)


def test_wilson_interval_matches_closed_form():
    # Wilson (1927) score interval, closed form (Agresti & Coull 1998, eq. 2; the interval of
    # R's prop.test(x, n, correct = FALSE)): (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
    x, n, z = 34, 58, 1.959963984540054
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    lo, hi = wilson_mapped_ci(34, 24, 0)
    assert (lo + 1) / 2 == pytest.approx(centre - half, abs=1e-12)
    assert (hi + 1) / 2 == pytest.approx(centre + half, abs=1e-12)
    assert round((lo + 1) / 2, 4) == 0.4580  # printed to 4 places for a reader to check


def test_clean_contrast_pooled_upper_ci_is_about_12_pp():
    # Paper: the clean-contrast pooled upper CI is "about 12 pp" (no_coord-intercept 34/24/142).
    lo, hi = wilson_mapped_ci(34, 24, 142)
    assert round(hi, 3) == 0.118


def test_no_untied_pairs_is_nan_with_reason():
    r = sign_test(0, 0, 10)
    assert r.gap == 0.0
    assert math.isnan(r.p_value) and math.isnan(r.ci_low) and math.isnan(r.ci_high)
    assert "no untied pairs" in r.reason


def test_empty_contrast_is_nan():
    r = sign_test(0, 0, 0)
    assert math.isnan(r.gap) and r.reason


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_invalid_counts_raise_naming_parameter(bad):
    with pytest.raises((TypeError, ValueError), match="wins"):
        sign_test(bad, 1, 1)


def test_confidence_validated():
    with pytest.raises(ValueError, match="confidence"):
        sign_test(1, 2, 3, confidence=1.5)


def test_to_frame_has_one_row_of_every_field():
    f = sign_test(3, 1, 2).to_frame()
    assert list(f.columns) == ["wins", "losses", "ties", "n", "gap", "p_value", "ci_low",
                               "ci_high", "confidence", "reason"]
    assert len(f) == 1


def test_sign_test_table_corrects_within_family():
    t = pd.DataFrame({"seed": [1, 1, 1, 2], "contrast": ["a", "b", "c", "a"],
                      "wins": [21, 18, 27, 13], "losses": [11, 10, 9, 13], "ties": [68, 72, 64, 74]})
    out = sign_test_table(t, family=("seed",))
    assert list(out["m"]) == [3, 3, 3, 1]
    assert round(out["p_adjusted"].iloc[2], 3) == 0.012


counts = st.integers(min_value=0, max_value=300)


@settings(max_examples=200, deadline=None)
@given(counts, counts, counts)
def test_interval_contains_gap(w, losses, t):
    r = sign_test(w, losses, t)
    if w + losses == 0:
        assert math.isnan(r.ci_low)
    else:
        assert r.ci_low <= r.gap + 1e-12 <= r.ci_high + 2e-12
        assert -1 <= r.ci_low and r.ci_high <= 1
        assert 0 <= r.p_value <= 1


@settings(max_examples=200, deadline=None)
@given(counts, counts, counts)
def test_swapping_arms_mirrors_everything(w, losses, t):
    a, b = sign_test(w, losses, t), sign_test(losses, w, t)
    if w + losses + t:
        assert a.gap == pytest.approx(-b.gap)
    if w + losses:
        assert a.p_value == pytest.approx(b.p_value)
        assert a.ci_low == pytest.approx(-b.ci_high)
        assert a.ci_high == pytest.approx(-b.ci_low)


# --- every level, not only 95%: the Wilson interval pinned to R at 0.90, 0.95 and 0.99. R's
# prop.test(x, n, conf.level = L, correct = FALSE)$conf.int is the Wilson score interval without
# continuity correction (Newcombe 1998, Statistics in Medicine 17, method 3).
R_WILSON = [
    # (x, n, level, lower, upper), printed by R 4.2.2 with sprintf("%.10f")
    (34, 58, 0.90, 0.4783185422, 0.6864110596),
    (34, 58, 0.95, 0.4579840817, 0.7037197363),
    (34, 58, 0.99, 0.4193119645, 0.7354032207),
    (27, 36, 0.90, 0.6167156907, 0.8483339739),
    (27, 36, 0.99, 0.5359016153, 0.8862877515),
    (7, 20, 0.90, 0.2022600401, 0.5334873112),
    (7, 20, 0.99, 0.1463934414, 0.6283381790),
    (0, 5, 0.90, 0.0, 0.3511165008),
    (0, 5, 0.99, 0.0, 0.5702583210),
    (5, 5, 0.90, 0.6488834992, 1.0),
    (5, 5, 0.99, 0.4297416790, 1.0),
]


@pytest.mark.parametrize("x, n, level, lo, hi", R_WILSON)
def test_wilson_mapped_interval_matches_r_prop_test(x, n, level, lo, hi):
    # with no ties the mapped interval is (2 lo - 1, 2 hi - 1)
    got_lo, got_hi = wilson_mapped_ci(x, n - x, 0, level)
    assert (got_lo + 1) / 2 == pytest.approx(lo, abs=1e-9)
    assert (got_hi + 1) / 2 == pytest.approx(hi, abs=1e-9)


@pytest.mark.parametrize("level, lo, hi", [
    # R: prop.test(27, 36, conf.level = L, correct = FALSE)$conf.int; 36 untied of n = 100
    (0.90, 0.6167156907, 0.8483339739),
    (0.99, 0.5359016153, 0.8862877515),
])
def test_sign_test_interval_at_90_and_99_matches_r(level, lo, hi):
    r = sign_test(27, 9, 64, confidence=level)
    assert r.ci_low == pytest.approx((2 * lo - 1) * 36 / 100, abs=1e-9)
    assert r.ci_high == pytest.approx((2 * hi - 1) * 36 / 100, abs=1e-9)
    assert r.confidence == level
