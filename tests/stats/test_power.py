"""Power, sample size and MDE pinned to R (pwr 1.3-0, stats::power.prop.test, binom.test)
and to Connor's (1987) worked example; Hypothesis properties for monotonicity."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.stats.power.planning import (
    minimum_detectable_effect,
    power,
    power_curve,
    power_mcnemar,
    power_sign_test,
    power_two_proportion,
    sample_size,
)

# --- independent two-proportion z-test, arcsine effect size (R pwr::pwr.2p.test) -----------

@pytest.mark.parametrize("alpha, expected", [
    (0.05, 0.296285448079648),  # R: pwr.2p.test(h=ES.h(0.6, 0.5), n=100, sig.level=0.05)$power
    (0.01, 0.124689421922182),  # R: pwr.2p.test(h=ES.h(0.6, 0.5), n=100, sig.level=0.01)$power
])
def test_two_proportion_power_matches_pwr(alpha, expected):
    assert power_two_proportion(100, 0.5, 0.1, alpha=alpha) == pytest.approx(expected, abs=1e-10)


def test_two_proportion_power_matches_pwr_h03():
    # R value kept in statsmodels' test suite: pwr.2p.test(h=0.3, n=80, sig.level=0.05) -> 0.4751
    # h = 0.3 from baseline 0.5: p2 = sin(asin(sqrt(.5)) + .15)^2
    p2 = math.sin(math.asin(math.sqrt(0.5)) + 0.15) ** 2
    assert power_two_proportion(80, 0.5, p2 - 0.5) == pytest.approx(0.475100870572638, abs=1e-10)


@pytest.mark.parametrize("alpha, pw, expected", [
    (0.05, 0.8, 387.167746154315),  # R: pwr.2p.test(h=ES.h(0.6,0.5), power=0.8, sig.level=0.05)$n
    (0.01, 0.9, 733.968827044718),  # R: pwr.2p.test(h=ES.h(0.6,0.5), power=0.9, sig.level=0.01)$n
])
def test_two_proportion_sample_size_matches_pwr(alpha, pw, expected):
    plan = sample_size(0.1, test="two_proportion", baseline=0.5, alpha=alpha, power=pw)
    assert plan.n_exact == pytest.approx(expected, rel=1e-6)
    assert plan.n == math.ceil(expected)
    assert plan.achieved_power >= pw


@pytest.mark.parametrize("alpha, h", [
    # R: uniroot(function(h) pwr.2p.test(h=h, n=100, sig.level=0.05)$power - 0.8, c(.01, 1),
    #            tol=1e-12)$root   (pwr.2p.test(n=100, power=.8)$h itself: 0.396206, tol ~1e-4)
    (0.05, 0.396203495929206),
    # R: the same at sig.level=0.01 (pwr.2p.test(n=100, power=.8, sig.level=.01)$h: 0.483329)
    (0.01, 0.483300489314295),
])
def test_two_proportion_mde_matches_pwr(alpha, h):
    plan = minimum_detectable_effect(100, test="two_proportion", baseline=0.5, alpha=alpha)
    got_h = 2 * math.asin(math.sqrt(0.5 + plan.gap)) - 2 * math.asin(math.sqrt(0.5))
    assert got_h == pytest.approx(h, abs=1e-9)
    assert plan.achieved_power == pytest.approx(0.8, abs=1e-9)


# --- pooled normal approximation (R stats::power.prop.test) ----------------------------------

@pytest.mark.parametrize("alpha, expected", [
    (0.05, 0.294127326910698),  # R: power.prop.test(n=100, p1=.5, p2=.6, sig.level=.05)$power
    (0.01, 0.122949808834642),  # R: power.prop.test(n=100, p1=.5, p2=.6, sig.level=.01)$power
])
def test_pooled_power_matches_power_prop_test(alpha, expected):
    got = power_two_proportion(100, 0.5, 0.1, alpha=alpha, effect_size="pooled")
    assert got == pytest.approx(expected, abs=1e-10)


def test_pooled_power_matches_r_help_example():
    # R ?power.prop.test example: power.prop.test(n = 50, p1 = .50, p2 = .75)  => power = 0.740
    got = power_two_proportion(50, 0.5, 0.25, effect_size="pooled")
    assert got == pytest.approx(0.7401659, abs=1e-7)


@pytest.mark.parametrize("alpha, pw, expected", [
    (0.05, 0.8, 387.338516695594),  # R: power.prop.test(p1=.5, p2=.6, power=.8, sig.level=.05)$n
    (0.01, 0.9, 734.053759583779),  # R: power.prop.test(p1=.5, p2=.6, power=.9, sig.level=.01)$n
])
def test_pooled_sample_size_matches_power_prop_test(alpha, pw, expected):
    plan = sample_size(0.1, test="two_proportion", baseline=0.5, alpha=alpha, power=pw,
                       effect_size="pooled")
    # R solves with uniroot (tol ~1e-4 on n); the closed form is exact
    assert plan.n_exact == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize("alpha, p2", [
    (0.05, 0.69322171112167),   # R: power.prop.test(n=100, p1=.5, power=.8, sig.level=.05)$p2
    (0.01, 0.733301893100762),  # R: power.prop.test(n=100, p1=.5, power=.8, sig.level=.01)$p2
])
def test_pooled_mde_matches_power_prop_test(alpha, p2):
    plan = minimum_detectable_effect(100, test="two_proportion", baseline=0.5, alpha=alpha,
                                     effect_size="pooled")
    # R's uniroot stops at tol = .Machine$double.eps^0.25 (~1.2e-4): agree to that
    assert plan.gap + 0.5 == pytest.approx(p2, abs=2e-4)


# --- McNemar, Connor (1987) --------------------------------------------------------------------

def test_mcnemar_sample_size_connor_example():
    # Connor (1987), Biometrics 43:207-211, p. 209, as worked at powerandsamplesize.com
    # ("Compare Paired Proportions: McNemar's Z-test, 2-Sided"): p10 = 0.05, p01 = 0.45,
    # alpha = 0.05, power = 0.80 -> ceiling(n) = 23
    plan = sample_size(0.05 - 0.45, test="mcnemar", p_d=0.5, alpha=0.05, power=0.8)
    assert plan.n == 23


def test_mcnemar_sample_size_discordant_odds_ratio_two():
    # clinicaltrials-tools McNemar calculator (Connor 1987): p_d = 0.45, OR = 2 (p10 = .30,
    # p01 = .15), alpha = 0.05, power 0.8 -> 155 pairs, achieved power 80.1%
    plan = sample_size(0.15, test="mcnemar", p_d=0.45)
    assert plan.n == 155
    assert round(plan.achieved_power, 3) == 0.801


@pytest.mark.parametrize("alpha, expected", [
    # R, the Connor (1987) closed form as coded in the powerandsamplesize.com R snippet:
    # pd=.5; df=-.4; ((qnorm(1-alpha/2)*sqrt(pd)+qnorm(.8)*sqrt(pd-df^2))/df)^2
    (0.05, 22.0113244274358),
    (0.01, 33.4122050934048),
])
def test_mcnemar_n_exact_two_levels(alpha, expected):
    plan = sample_size(-0.4, test="mcnemar", p_d=0.5, alpha=alpha)
    assert plan.n_exact == pytest.approx(expected, rel=1e-9)


# --- exact sign test (R binom.test enumeration) ------------------------------------------------
# R: signpow <- function(n, gap, pd, alpha) { q <- (pd + gap)/(2*pd); tot <- 0
#      for (m in 1:n) { w <- 0:m; rej <- sapply(w, function(x) binom.test(x, m)$p.value <= alpha)
#        tot <- tot + dbinom(m, n, pd) * sum(dbinom(w, m, q)[rej]) }; tot }

@pytest.mark.parametrize("n, gap, pd, alpha, expected", [
    (100, 0.1, 0.3, 0.05, 0.373077084301821),     # signpow(100, 0.1, 0.3, 0.05)
    (100, 0.1, 0.3, 0.01, 0.175125645311025),     # signpow(100, 0.1, 0.3, 0.01)
    (50, 0.2, 0.4, 0.05, 0.546692329483476),      # signpow(50, 0.2, 0.4, 0.05)
    (100, 0.0, 0.36, 0.05 / 3, 0.010631292226171),  # size at Bonferroni m = 3
])
def test_sign_test_power_matches_r_enumeration(n, gap, pd, alpha, expected):
    assert power_sign_test(n, gap, pd, alpha=alpha) == pytest.approx(expected, abs=1e-12)


def test_sign_test_sample_size_reaches_power_and_previous_does_not():
    plan = sample_size(0.1, test="sign_test", p_d=0.3)
    assert plan.achieved_power >= 0.8
    assert power_sign_test(plan.n - 1, 0.1, 0.3) < 0.8
    assert plan.n_stable >= plan.n


def test_sign_test_mde_reaches_target():
    plan = minimum_detectable_effect(100, test="sign_test", p_d=0.3)
    assert plan.achieved_power == pytest.approx(0.8, abs=1e-8)
    # the exact test needs a larger gain than Connor's approximation at the same n
    assert plan.gap > minimum_detectable_effect(100, test="mcnemar", p_d=0.3).gap


# --- floor-aware ------------------------------------------------------------------------------

def test_floor_zero_is_the_plain_test():
    assert sample_size(0.1, test="mcnemar", p_d=0.3, floor=0.0).n == \
        sample_size(0.1, test="mcnemar", p_d=0.3).n


def test_floor_raises_n_and_gain_below_floor_never_clears():
    plain = sample_size(0.1, test="mcnemar", p_d=0.3).n
    floored = sample_size(0.1, test="mcnemar", p_d=0.3, floor=0.05)
    assert floored.n > plain
    assert power_mcnemar(floored.n, 0.1, 0.3, floor=0.05) >= 0.8
    below = sample_size(0.05, test="mcnemar", p_d=0.3, floor=0.12)
    assert below.n == -1 and "no larger than the floor" in below.reason
    # in JSON an impossible plan has no sample size (null), never -1
    assert below.to_dict()["n"] is None and below.to_dict()["n_stable"] is None


def test_floor_power_calibrated_by_simulation():
    # Monte Carlo check of the floor-aware formula: paired tasks with p10 = 0.2, p01 = 0.1,
    # test gap <= F = 0.02 with z = (gap_hat - F) / sqrt((p_d - F^2) / n) > z_{0.975}
    import numpy as np
    n, f = sample_size(0.1, test="mcnemar", p_d=0.3, floor=0.02).n, 0.02
    rng = np.random.default_rng(7)
    draws = rng.multinomial(n, [0.2, 0.1, 0.7], size=4000)
    gap_hat = (draws[:, 0] - draws[:, 1]) / n
    z = (gap_hat - f) / np.sqrt((0.3 - f * f) / n)
    assert abs(np.mean(z > 1.959964) - 0.8) < 0.03


# --- properties -------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 2000), extra=st.integers(1, 500),
       gap=st.floats(0.01, 0.3), pd=st.floats(0.31, 1.0))
def test_more_tasks_never_lower_mcnemar_power(n, extra, gap, pd):
    assert power_mcnemar(n + extra, gap, pd) >= power_mcnemar(n, gap, pd) - 1e-12


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 2000), extra=st.integers(1, 500), b=st.floats(0.05, 0.6),
       gap=st.floats(0.01, 0.3), es=st.sampled_from(["arcsine", "pooled"]))
def test_more_tasks_never_lower_two_proportion_power(n, extra, b, gap, es):
    lo = power_two_proportion(n, b, gap, effect_size=es)
    assert power_two_proportion(n + extra, b, gap, effect_size=es) >= lo - 1e-12


@settings(max_examples=25, deadline=None)
@given(n=st.integers(5, 800), extra=st.integers(1, 400), pd=st.floats(0.05, 1.0))
def test_mde_falls_as_n_grows(n, extra, pd):
    small = minimum_detectable_effect(n, test="mcnemar", p_d=pd)
    large = minimum_detectable_effect(n + extra, test="mcnemar", p_d=pd)
    if math.isnan(small.gap):
        return
    assert large.gap <= small.gap + 1e-9


def test_exact_power_is_saw_toothed_in_n():
    # the reason the exact sign test is excluded from the monotonicity properties: with no ties
    # (p_d = 1) its power drops from n = 9 to n = 10 at gap 0.5
    assert power_sign_test(10, 0.5, 1.0) < power_sign_test(9, 0.5, 1.0)
    # and so its MDE rises from n = 6 to n = 7: at alpha = 0.05 both reject only when every
    # discordant pair goes one way (two-sided p = 2 / 2^n: 0.031 at 6; at 7, 6-1 gives 0.125),
    # so power is about p^n with p = 0.5 + gap / 2 (plus (1 - p)^n, below 1e-8 here): 0.8 needs
    # p = 0.8^(1/6) at 6 pairs and the larger 0.8^(1/7) at 7
    six = minimum_detectable_effect(6, test="sign_test", p_d=1.0).gap
    seven = minimum_detectable_effect(7, test="sign_test", p_d=1.0).gap
    assert seven > six
    assert six == pytest.approx(2 * 0.8 ** (1 / 6) - 1, abs=1e-6)
    assert seven == pytest.approx(2 * 0.8 ** (1 / 7) - 1, abs=1e-6)


def test_power_curve_rows():
    curve = power_curve("sign_test", [10, 50, 100], 0.2, p_d=0.4)
    assert curve["n"].tolist() == [10, 50, 100]
    assert curve["power"].iloc[1] == pytest.approx(0.546692329483476, abs=1e-12)


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"power": 1.2}, "power= must lie strictly between 0 and 1"),
    ({"power": 0.0}, "power= must lie strictly between 0 and 1"),
    ({"alpha": 1.0}, "alpha= must lie strictly between 0 and 1"),
    ({"p_d": 1.5}, r"p_d= must lie in \[0, 1\]"),
    ({"p_d": -0.1}, r"p_d= must lie in \[0, 1\]"),
    ({"p_d": 0.05}, "cannot exceed p_d="),
])
def test_bad_input_names_the_parameter(kwargs, match):
    args = {"test": "mcnemar", "p_d": 0.3, **kwargs}
    with pytest.raises(ValueError, match=match):
        sample_size(0.1, **args)


def test_missing_baseline_and_unknown_test():
    with pytest.raises(ValueError, match="baseline="):
        sample_size(0.1, test="two_proportion")
    with pytest.raises(ValueError, match="test= must be one of"):
        power("z", 10, 0.1, p_d=0.3)


def test_zero_discordance_is_nan_with_reason():
    plan = sample_size(0.0, test="mcnemar", p_d=0.0)
    assert plan.n == -1 and plan.reason
    assert math.isnan(minimum_detectable_effect(50, test="mcnemar", p_d=0.0).gap)


@pytest.mark.parametrize("gap, pd, alpha", [(0.3, 0.5, 0.05), (0.2, 0.4, 0.01), (0.5, 1.0, 0.05)])
def test_exact_search_finds_first_crossing_of_brute_force_scan(gap, pd, alpha):
    plan = sample_size(gap, test="sign_test", p_d=pd, alpha=alpha)
    first = next(n for n in range(1, 2000) if power_sign_test(n, gap, pd, alpha=alpha) >= 0.8)
    assert plan.n == first
    assert plan.n_stable >= plan.n
    assert all(power_sign_test(n, gap, pd, alpha=alpha) >= 0.8
               for n in range(plan.n_stable, plan.n_stable + 20))


def test_two_proportion_floor_needs_a_gain():
    with pytest.raises(ValueError, match="plan for a gain"):
        sample_size(-0.1, test="two_proportion", baseline=0.5, floor=0.05)
    with pytest.raises(ValueError, match="effect_size='arcsine' only"):
        sample_size(0.1, test="two_proportion", baseline=0.5, floor=0.05, effect_size="pooled")
