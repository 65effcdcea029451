"""Coverage of the tax intervals at their stated level, from both sides.

Simulated runs (vectorised): T tasks (10 or 32) with n paired instances each (5 to 50). Each
task has its own solo and pair success probability (solo 0.55-0.98, tax 0-0.4) and its own
scoring: binary (m = 1 item) or partial credit over m = 4 or 16 items, as the suite's tasks
score. An instance has a latent difficulty shared by its solo and pair rollout (paired
correlation); the scores are Binomial(m, q) / m. The truth of a task cell is its expected
difference ``E solo - E pair`` (computed exactly from the latent model by quadrature), of a
family the equally weighted mean over its fixed tasks. Coverage is counted over the cells
whose interval is defined (an all-equal cell is NaN with a reason, the project's rule) and
must be within 2 points of nominal at 0.90 and 0.95: too wide fails as well as too narrow.
One measured exception is stated where it is asserted: task cells of 5 instances over-cover
by up to 3 points (discrete scores).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from noisefloor.stats.stratified import stratified_t_bounds, stratified_t_interval

RHO = 0.5          # share of the latent variance common to an instance's solo and pair
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(60)   # E over the shared latent N(0, 1)


def _design(rng, t):
    m = rng.choice([1, 4, 16], size=t)
    p_solo = rng.uniform(0.55, 0.98, t)
    p_pair = np.clip(p_solo - rng.uniform(0.0, 0.4, t), 0.02, 0.98)
    return m, p_solo, p_pair


def _thresholds(p):
    # q = Phi(sqrt(RHO) z + c) has mean p when c = Phi^-1(p) sqrt(1 + RHO) ... with the
    # instance noise integrated out: E q = Phi(c / sqrt(1 + RHO)); solve for c.
    return stats.norm.ppf(p) * np.sqrt(1 + RHO)


def _truth(p_solo, p_pair):
    def mean(p):
        c = _thresholds(p)
        q = stats.norm.cdf(np.sqrt(RHO) * NODES[:, None] + c[None, :])
        return (WEIGHTS[:, None] * q).sum(0) / WEIGHTS.sum()
    return mean(p_solo) - mean(p_pair)


def _simulate(rng, reps, t, n, design):
    m, p_solo, p_pair = design
    z = rng.standard_normal((reps, t, n))
    q_s = stats.norm.cdf(np.sqrt(RHO) * z + _thresholds(p_solo)[None, :, None])
    q_p = stats.norm.cdf(np.sqrt(RHO) * z + _thresholds(p_pair)[None, :, None])
    solo = rng.binomial(m[None, :, None], q_s) / m[None, :, None]
    pair = rng.binomial(m[None, :, None], q_p) / m[None, :, None]
    return solo - pair


def _coverage(d, truth, confidence, inflate=1.0, z=False):
    reps, t, n = d.shape
    means, var = d.mean(-1), d.var(-1, ddof=1) * inflate
    counts = np.full((reps, t), n)
    # task cells: one stratum each
    _, se, lo, hi = stratified_t_bounds(means[..., None], var[..., None], counts[..., None],
                                        confidence)
    if z:  # the bug of a normal quantile at small n
        q = stats.norm.ppf(0.5 + confidence / 2)
        lo, hi = means - q * se, means + q * se
        lo = np.where(var > 0, lo, np.nan)
    ok = np.isfinite(lo)
    cell = ((lo <= truth) & (truth <= hi))[ok].mean()
    est, se_f, lo_f, hi_f = stratified_t_bounds(means, var, counts, confidence)
    fam = ((lo_f <= truth.mean()) & (truth.mean() <= hi_f))[np.isfinite(lo_f)].mean()
    return float(cell), float(fam)


CASES = [(t, n) for t in (10, 32) for n in (5, 10, 20, 50)]


@pytest.mark.parametrize("t, n", CASES)
def test_cells_and_families_cover_at_their_level(t, n):
    rng = np.random.default_rng(1000 * t + n)
    design = _design(rng, t)
    truth = _truth(design[1], design[2])
    d = _simulate(rng, 1500, t, n, design)
    for confidence in (0.90, 0.95):
        cell, fam = _coverage(d, truth, confidence)
        # at n = 5 a binary cell is coarse (its t interval over-covers a little: 0.921 at
        # 0.90 for T = 10 in this design); the band above nominal is 3 points there, not 2
        upper = 0.03 if n == 5 else 0.02
        assert -0.02 <= cell - confidence <= upper, ("task cells", t, n, confidence, cell)
        assert abs(fam - confidence) <= 0.02, ("family means", t, n, confidence, fam)


def test_the_coverage_test_fails_on_plausible_bugs():
    """Counting the within-task noise twice (the two-stage bootstrap's fault) over-covers;
    a normal quantile at n = 5 under-covers: both must fall outside the 2-point band."""
    rng = np.random.default_rng(7)
    design = _design(rng, 10)
    truth = _truth(design[1], design[2])
    d = _simulate(rng, 1500, 10, 5, design)
    cell, fam = _coverage(d, truth, 0.90, inflate=2.0)
    assert cell > 0.92 and fam > 0.92
    cell, _ = _coverage(d, truth, 0.95, z=True)
    assert cell < 0.93


def test_library_interval_matches_the_vectorised_core():
    rng = np.random.default_rng(3)
    d = rng.normal(0.1, 0.3, 40)
    g = np.repeat(np.arange(4), 10)
    for confidence in (0.9, 0.95):
        r = stratified_t_interval(d, g, confidence=confidence)
        means = np.array([d[g == k].mean() for k in range(4)])
        var = np.array([d[g == k].var(ddof=1) for k in range(4)])
        _, se, lo, hi = stratified_t_bounds(means, var, np.full(4, 10), confidence)
        assert (r.ci_low, r.ci_high) == pytest.approx((float(lo), float(hi)))
    narrow = stratified_t_interval(d, g, confidence=0.9)
    wide = stratified_t_interval(d, g, confidence=0.95)
    assert wide.ci_low < narrow.ci_low < narrow.ci_high < wide.ci_high
