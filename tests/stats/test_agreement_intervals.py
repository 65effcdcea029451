"""Agreement intervals at several levels against external values: Cohen's asymptotic SE and
interval against R vcd, the bootstrap intervals against scipy's percentile bootstrap, and the
bootstrap's coverage on simulated raters of known kappa.

Each of these fails on a plausible bug the rest of the suite let through: an SE off by a
factor (1.5x), a bootstrap interval of the wrong width (2x), an interval that ignores
``confidence``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from noisefloor.stats.agreement import (
    SE_PERFECT_AGREEMENT_REASON,
    cohen_kappa,
    cohen_kappa_from_table,
    fleiss_kappa_from_counts,
)

# vcd's SexualFun (Hout, Duncan & Sobel 1987; Agresti 1990, Table 10.5): husbands' (rows) and
# wives' (columns) ratings "Never Fun", "Fairly Often", "Very Often", "Always fun".
SEXUAL_FUN = [[7, 7, 2, 3], [2, 8, 3, 7], [1, 5, 4, 9], [2, 8, 9, 14]]


@pytest.mark.parametrize("weights, value, ase", [
    # R vcd 1.4-11: k <- Kappa(SexualFun); k$Unweighted, k$Weighted ("Equal-Spacing" = linear)
    #   Unweighted value 0.12933025 ASE 0.06859853; Weighted value 0.23738063 ASE 0.07831633
    ("none", 0.12933025, 0.06859853),
    ("linear", 0.23738063, 0.07831633),
    # Kappa(SexualFun, weights = "Fleiss-Cohen") (quadratic): Weighted 0.3320 ASE 0.0973
    ("quadratic", 0.3320, 0.0973),
])
def test_cohen_se_matches_r_vcd(weights, value, ase):
    r = cohen_kappa_from_table(SEXUAL_FUN, weights=weights)
    digits = 8 if weights != "quadratic" else 4
    assert round(r.value, digits) == value
    assert round(r.se, digits) == ase
    assert r.se_reason == ""


@pytest.mark.parametrize("weights, level, lo, hi", [
    # R vcd: confint(Kappa(SexualFun), level = L) -> rows Unweighted, Weighted (lwr, upr)
    ("none", 0.90, 0.01649571, 0.2421648),
    ("linear", 0.90, 0.10856172, 0.3661995),
    ("none", 0.99, -0.04736786, 0.3060284),
    ("linear", 0.99, 0.03565112, 0.4391101),
])
def test_cohen_asymptotic_interval_matches_r_vcd_at_90_and_99(weights, level, lo, hi):
    r = cohen_kappa_from_table(SEXUAL_FUN, weights=weights, confidence=level)
    assert r.asymptotic_ci_low == pytest.approx(lo, abs=1e-7)
    assert r.asymptotic_ci_high == pytest.approx(hi, abs=1e-7)


def test_cohen_se_at_perfect_agreement_is_nan_with_a_reason():
    # Fleiss, Cohen & Everitt (1969): at p_o = 1 the large-sample variance
    # [sum p_ii ((1-p_e) - (p_i. + p_.i)(1-p_o))^2 + ... - (p_o p_e - 2 p_e + p_o)^2] / (n (1-p_e)^4)
    # is (1-p_e)^2 - (1-p_e)^2 = 0 (R vcd/psych print ASE 0 and a zero-width interval).
    # statsmodels rounds it to 0, to 1e-9 or to sqrt(negative) = NaN depending on the table;
    # [152, 78, 65] on the diagonal gave NaN with no reason before.
    for diag in ([152, 78, 65], [10, 5], [71, 134, 114, 50]):
        for weights in ("none", "linear", "quadratic"):
            r = cohen_kappa_from_table(np.diag(diag), weights=weights)
            assert r.value == 1.0
            assert math.isnan(r.se) and math.isnan(r.asymptotic_ci_low), (diag, weights)
            assert r.se_reason == SE_PERFECT_AGREEMENT_REASON
            assert "perfect agreement" in r.to_dict()["se_reason"]


# --- bootstrap intervals: scipy.stats.bootstrap(method="percentile") on the same items, with the
# coefficient computed by the textbook formula, must give the same interval up to Monte Carlo
# error (both draw 4000 resamples of items)


def _kappa_formula(x, y, k, axis=-1):
    # Cohen (1960): (p_o - p_e) / (1 - p_e), p_e = sum_c p_c(x) p_c(y)
    po = np.mean(x == y, axis=axis)
    pe = sum(np.mean(x == c, axis=axis) * np.mean(y == c, axis=axis) for c in range(k))
    return (po - pe) / (1 - pe)


def _raters(n=100, k=3, agree=0.7, seed=11):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < agree, a, rng.integers(0, k, n))
    return a, b


@pytest.mark.parametrize("level, tol", [(0.90, 0.02), (0.99, 0.035)])
def test_cohen_bootstrap_interval_matches_scipy_percentile_bootstrap(level, tol):
    a, b = _raters()
    ours = cohen_kappa(a, b, n_boot=4000, rng=5, confidence=level)
    ref = stats.bootstrap((a, b), lambda x, y, axis=-1: _kappa_formula(x, y, 3, axis), paired=True,
                          vectorized=True, method="percentile", n_resamples=4000,
                          confidence_level=level, rng=np.random.default_rng(6))
    assert ours.value == pytest.approx(_kappa_formula(a, b, 3))
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=tol)


def _fleiss_formula(counts, axis=0):
    # Fleiss (1971): P_i = (sum_j n_ij^2 - m) / (m (m - 1)), P-bar over items, P_e = sum_j p_j^2
    m = counts.sum(axis=-1)
    p_i = ((counts ** 2).sum(axis=-1) - m) / (m * (m - 1))
    p_j = counts.sum(axis=-2) / counts.sum(axis=(-2, -1))[..., None]
    pe = (p_j ** 2).sum(axis=-1)
    return (p_i.mean(axis=-1) - pe) / (1 - pe)


@pytest.mark.parametrize("level, tol", [(0.90, 0.02), (0.99, 0.035)])
def test_fleiss_bootstrap_interval_matches_scipy_percentile_bootstrap(level, tol):
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 60)
    ratings = np.where(rng.random((60, 4)) < 0.65, truth[:, None], rng.integers(0, 3, (60, 4)))
    counts = np.stack([(ratings == c).sum(axis=1) for c in range(3)], axis=1)
    ours = fleiss_kappa_from_counts(counts, n_boot=4000, rng=2, confidence=level)

    def statistic(idx, axis=-1):
        return _fleiss_formula(counts[np.asarray(idx, dtype=int)])

    ref = stats.bootstrap((np.arange(60),), statistic, vectorized=True, method="percentile",
                          n_resamples=4000, confidence_level=level, rng=np.random.default_rng(4))
    assert ours.value == pytest.approx(float(_fleiss_formula(counts)))
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=tol)


def test_cohen_bootstrap_interval_covers_the_true_kappa_at_its_level():
    # Two raters of 80 items, two balanced categories, agreeing with probability 0.8 (else the
    # other category): population kappa = (0.8 - 0.5) / (1 - 0.5) = 0.6. Over 100 simulated
    # studies the 90% percentile interval (150 resamples each) must cover 0.6 about 90% of the
    # time (binomial SE 0.03; this seed gives 90/100); a twice-too-wide interval covers ~100%,
    # a half-width one about 60%. The level itself is pinned by the scipy comparisons above.
    # (~2 s.)
    rng = np.random.default_rng(2026)
    covered, reps = 0, 100
    for _ in range(reps):
        a = rng.integers(0, 2, 80)
        b = np.where(rng.random(80) < 0.8, a, 1 - a)
        r = cohen_kappa(a, b, n_boot=150, rng=rng, confidence=0.90)
        covered += r.ci_low <= 0.6 <= r.ci_high
    assert 0.80 <= covered / reps <= 0.96, covered / reps


def _alpha_nominal_formula(counts):
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", nominal data, every unit
    # rated by m coders: coincidences o_ck = sum_u n_uc n_uk / (m - 1), alpha = 1 - (n - 1)
    # sum_{c != k} o_ck / sum_{c != k} n_c n_k, with n_c the pairable values of category c
    m = counts.sum(axis=-1)
    mismatched = ((m ** 2 - (counts ** 2).sum(axis=-1)) / (m - 1)).sum(axis=-1)
    n_c = counts.sum(axis=-2)
    n = n_c.sum(axis=-1)
    return 1 - (n - 1) * mismatched / (n ** 2 - (n_c ** 2).sum(axis=-1))


@pytest.mark.parametrize("level, tol", [(0.90, 0.02), (0.99, 0.035)])
def test_krippendorff_bootstrap_interval_matches_scipy_percentile_bootstrap(level, tol):
    from noisefloor.stats.agreement import krippendorff_alpha

    rng = np.random.default_rng(8)
    truth = rng.integers(0, 3, 60)
    ratings = np.where(rng.random((60, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (60, 3)))
    counts = np.stack([(ratings == c).sum(axis=1) for c in range(3)], axis=1)
    ours = krippendorff_alpha(ratings, level="nominal", n_boot=4000, rng=3, confidence=level)

    def statistic(idx, axis=-1):
        return _alpha_nominal_formula(counts[np.asarray(idx, dtype=int)])

    ref = stats.bootstrap((np.arange(60),), statistic, vectorized=True, method="percentile",
                          n_resamples=4000, confidence_level=level, rng=np.random.default_rng(5))
    assert ours.value == pytest.approx(float(_alpha_nominal_formula(counts)))
    # the formula agrees with the krippendorff package (Castro 2017) on these ratings
    import krippendorff

    assert float(_alpha_nominal_formula(counts)) == pytest.approx(
        krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="nominal"))
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=tol)
