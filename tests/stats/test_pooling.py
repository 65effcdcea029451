"""Seed pooling: summed counts (paper) and DerSimonian-Laird random effects (textbook formula)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.stats.pooling import gap_variance, pool_counts, pool_random_effects


def test_pool_counts_matches_paper():
    # Kaliyev & Maryanskyy (2026): pull vs intercept pooled over seeds 1 and 2: 45/30/125,
    # +7.5 pp, Bonferroni (m = 3) p = 0.316.
    r = pool_counts([(27, 9, 64), (18, 21, 61)])
    assert (r.wins, r.losses, r.ties, r.n) == (45, 30, 125, 200)
    assert r.gap == pytest.approx(0.075)
    assert round(3 * r.p_value, 3) == 0.316


def _dl_by_hand(y, v):
    # DerSimonian & Laird (1986), eq. (8)-(9); Borenstein et al. (2009), Introduction to
    # Meta-Analysis, ch. 12: Q, C = sum w - sum w^2 / sum w, tau^2 = max(0, (Q - df) / C).
    y, v = np.asarray(y), np.asarray(v)
    w = 1 / v
    ybar = np.sum(w * y) / np.sum(w)
    q = np.sum(w * (y - ybar) ** 2)
    c = np.sum(w) - np.sum(w ** 2) / np.sum(w)
    tau2 = max(0.0, (q - (len(y) - 1)) / c)
    wr = 1 / (v + tau2)
    est = np.sum(wr * y) / np.sum(wr)
    se = math.sqrt(1 / np.sum(wr))
    return est, tau2, est - 1.959963984540054 * se, est + 1.959963984540054 * se


def test_random_effects_matches_dersimonian_laird_formula():
    y, v = [0.18, -0.03, 0.05, 0.10], [0.0033, 0.0039, 0.0029, 0.0031]
    est, tau2, lo, hi = _dl_by_hand(y, v)
    r = pool_random_effects(y, v)
    assert r.estimate == pytest.approx(est)
    assert r.tau_squared == pytest.approx(tau2)
    assert r.tau == pytest.approx(math.sqrt(tau2))
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi))


# The BCG vaccine trials (Colditz et al. 1994; metafor's ``dat.bcg``): tpos, tneg, cpos, cneg.
BCG = [(4, 119, 11, 128), (6, 300, 29, 274), (3, 228, 11, 209), (62, 13536, 248, 12619),
       (33, 5036, 47, 5761), (180, 1361, 372, 1079), (8, 2537, 10, 619), (505, 87886, 499, 87892),
       (29, 7470, 45, 7232), (17, 1699, 65, 1600), (186, 50448, 141, 27197), (5, 2493, 3, 2338),
       (27, 16886, 29, 17825)]


def _bcg_log_risk_ratios():
    y = [math.log((a / (a + b)) / (c / (c + d))) for a, b, c, d in BCG]
    v = [1 / a - 1 / (a + b) + 1 / c - 1 / (c + d) for a, b, c, d in BCG]
    return y, v


def test_random_effects_matches_metafor_bcg_dersimonian_laird():
    # R metafor, rma(ai=tpos, bi=tneg, ci=cpos, di=cneg, data=dat.bcg, measure="RR",
    # method="DL") (Viechtbauer 2010, J. Stat. Softw. 36(3), and the package's examples):
    # estimate -0.7141, 95% CI [-1.0644, -0.3638], tau^2 = 0.3088, I^2 = 92.12%,
    # Q(df = 12) = 152.2330.
    y, v = _bcg_log_risk_ratios()
    r = pool_random_effects(y, v, method="dl")
    assert round(r.estimate, 4) == -0.7141
    assert (round(r.ci_low, 4), round(r.ci_high, 4)) == (-1.0644, -0.3638)
    assert round(r.tau_squared, 4) == 0.3088
    assert round(100 * r.i2, 2) == 92.12
    assert round(r.q, 4) == 152.2330
    assert r.k == 13


def test_paule_mandel_solves_its_estimating_equation():
    # Paule & Mandel (1982): tau^2 is the root of the generalised Q statistic
    # sum w_i (y_i - mu_w)^2 = k - 1 with w_i = 1 / (v_i + tau^2) (when Q(0) > k - 1).
    y, v = map(np.asarray, _bcg_log_risk_ratios())
    r = pool_random_effects(y, v, method="pm")
    w = 1 / (v + r.tau_squared)
    mu = np.sum(w * y) / np.sum(w)
    assert np.sum(w * (y - mu) ** 2) == pytest.approx(len(y) - 1, rel=1e-4)
    assert r.estimate == pytest.approx(mu, abs=1e-8)


def test_homogeneous_seeds_give_zero_tau():
    r = pool_random_effects([0.05, 0.05, 0.05], [0.002, 0.003, 0.004])
    assert r.tau_squared == 0.0 and r.estimate == pytest.approx(0.05)


def test_gap_variance_by_hand():
    # d in {+1, -1, 0} with p_w = .27, p_l = .09: Var = (.36 - .18^2) / 100
    assert gap_variance(27, 9, 64) == pytest.approx((0.36 - 0.18 ** 2) / 100)
    assert math.isnan(gap_variance(0, 0, 0))


def test_undefined_cases_are_nan_with_reason():
    one = pool_random_effects([0.1], [0.01])
    assert math.isnan(one.estimate) and "two seeds" in one.reason
    zero = pool_random_effects([0.0, 0.1], [0.0, 0.01])
    assert math.isnan(zero.tau) and "zero sampling variance" in zero.reason


def test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        pool_random_effects([0.1, 0.2], [0.01])
    with pytest.raises(ValueError, match="triple"):
        pool_counts([(1, 2)])
    with pytest.raises(ValueError, match="at least one"):
        pool_counts([])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-0.5, 0.5), st.floats(1e-4, 0.05)), min_size=2, max_size=8))
def test_estimate_inside_interval_and_tau_nonnegative(rows):
    y, v = zip(*rows)
    r = pool_random_effects(y, v)
    assert r.tau_squared >= 0
    assert r.ci_low <= r.estimate <= r.ci_high
    assert min(y) - 1e-9 <= r.estimate <= max(y) + 1e-9


# --- the interval follows ``confidence`` (statsmodels' summary_frame has its own alpha, 0.05 by
# default: before the fix every level returned the 95% interval)


@pytest.mark.parametrize("level, lo, hi", [
    # R metafor 3.8: rma(c(.18, -.03), c(.0036, .0031), method = "DL", level = L); c(ci.lb, ci.ub)
    (0.90, -0.098889006, 0.246508054),
    (0.95, -0.131973467, 0.279592514),
    (0.99, -0.196635169, 0.344254217),
])
def test_random_effects_interval_matches_metafor_at_each_level(level, lo, hi):
    r = pool_random_effects([0.18, -0.03], [0.0036, 0.0031], confidence=level)
    assert round(r.estimate, 8) == 0.07380952  # metafor: b = 0.07380952381
    assert r.ci_low == pytest.approx(lo, abs=1e-8)
    assert r.ci_high == pytest.approx(hi, abs=1e-8)
    assert r.confidence == level


def test_random_effects_99_interval_by_the_dersimonian_laird_formula():
    # By hand: tau^2 = (Q - 1) / C = 0.0187 (metafor prints tau^2 = 0.0187), weights
    # 1 / (v_i + tau^2) = 1/0.0223, 1/0.0218 -> se = sqrt(1 / sum w) = 0.1049933 (metafor se);
    # z_.995 = 2.5758293 -> 0.0738095 -/+ 0.2704447 = [-0.196635, 0.344254].
    se = math.sqrt(1 / (1 / 0.0223 + 1 / 0.0218))
    assert round(se, 7) == 0.1049933
    r = pool_random_effects([0.18, -0.03], [0.0036, 0.0031], confidence=0.99)
    assert r.ci_high - r.estimate == pytest.approx(2.5758293035489 * se, rel=1e-6)


@pytest.mark.parametrize("level, method, lo, hi", [
    # R metafor: dat <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg,
    #   data = dat.bcg); rma(yi, vi, data = dat, method = M, level = L)
    (0.90, "dl", -1.0081, -0.4201),
    (0.99, "dl", -1.1745, -0.2537),
    (0.90, "pm", -1.0125, -0.4174),
    (0.99, "pm", -1.1809, -0.2490),
])
def test_bcg_interval_matches_metafor_at_90_and_99(level, method, lo, hi):
    y, v = _bcg_log_risk_ratios()
    r = pool_random_effects(y, v, method=method, confidence=level)
    assert (round(r.ci_low, 4), round(r.ci_high, 4)) == (lo, hi)


@pytest.mark.parametrize("level, lo, hi", [
    # R metafor: rma(c(.05, .05, .05), c(.002, .003, .004), method = "DL", level = L):
    # tau^2 = 0, so the fixed-effect interval
    (0.90, 0.000026, 0.099974),
    (0.99, -0.028259, 0.128259),
])
def test_homogeneous_interval_matches_metafor_at_90_and_99(level, lo, hi):
    r = pool_random_effects([0.05, 0.05, 0.05], [0.002, 0.003, 0.004], confidence=level)
    assert r.tau_squared == 0.0
    assert (round(r.ci_low, 6), round(r.ci_high, 6)) == (lo, hi)


def test_pool_counts_interval_follows_confidence():
    # pooled pull-intercept 45/30/125: Wilson on 45 of 75 untied pairs. R:
    # prop.test(45, 75, conf.level = .90, correct = FALSE)$conf.int = 0.5050391546 0.6879972664
    # prop.test(45, 75, conf.level = .99, correct = FALSE)$conf.int = 0.4519720941 0.7317728559
    # mapped to the gap: (2 p - 1) * 75 / 200
    for level, lo, hi in ((0.90, 0.5050391546, 0.6879972664), (0.99, 0.4519720941, 0.7317728559)):
        r = pool_counts([(27, 9, 64), (18, 21, 61)], confidence=level)
        assert r.ci_low == pytest.approx((2 * lo - 1) * 75 / 200, abs=1e-9)
        assert r.ci_high == pytest.approx((2 * hi - 1) * 75 / 200, abs=1e-9)
