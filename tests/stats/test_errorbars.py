"""Error bars pinned to R (sandwich::vcovCL, t.test), to inspect_ai's own stderr metric run
here, and to statsmodels' cluster-robust OLS; pass^k intervals pinned to R on tau-bench's log."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.passk import pass_hat_k_interval, task_counts
from noisefloor.stats.errorbars import clt_se, clustered_se, paired_difference_se
from noisefloor.stats.passk import per_task_pass_hat_k

# A small fixture of our own: 20 scores in 8 clusters of unequal size.
S = [1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1]
G = [1, 1, 1, 2, 2, 3, 3, 3, 3, 4, 5, 5, 6, 6, 6, 7, 8, 8, 8, 8]


def test_clt_se_matches_r():
    # R: sd(s) / sqrt(length(s))
    assert clt_se(S).se == pytest.approx(0.109424330980483, abs=1e-12)


@pytest.mark.parametrize("confidence, z", [(0.95, 1.959963984540054), (0.90, 1.644853626951472)])
def test_clt_interval_at_two_levels(confidence, z):
    # R: qnorm(0.975), qnorm(0.95)
    r = clt_se(S, confidence=confidence)
    assert r.ci_high - r.estimate == pytest.approx(z * 0.109424330980483, abs=1e-12)
    assert r.ci_low <= r.estimate <= r.ci_high


def test_inspect_ai_correction_matches_inspect_ai_run_here():
    from inspect_ai.scorer import SampleScore, Score, stderr

    scores = [SampleScore(score=Score(value=v), sample_id=i, sample_metadata={"doc": c})
              for i, (v, c) in enumerate(zip(S, G))]
    expected = stderr(cluster="doc")(scores)
    assert clustered_se(S, G, correction="inspect_ai").se == pytest.approx(expected, abs=1e-14)
    assert clt_se(S).se == pytest.approx(stderr()(scores), abs=1e-14)


def test_inspect_ai_correction_matches_r_sandwich_and_statsmodels():
    # R: sqrt(sandwich::vcovCL(lm(s ~ 1), cluster = g, type = "HC0", cadjust = TRUE)[1, 1])
    assert clustered_se(S, G, correction="inspect_ai").se == pytest.approx(0.0819407451411428,
                                                                           abs=1e-12)
    import statsmodels.api as sm
    fit = sm.OLS(np.asarray(S, float), np.ones((len(S), 1))).fit(
        cov_type="cluster", cov_kwds={"groups": np.asarray(G)})
    assert clustered_se(S, G, correction="inspect_ai").se == pytest.approx(fit.bse[0], abs=1e-12)


def test_miller_formula_matches_r():
    # Miller (2024) eq. 4: SE^2 = SE_CLT^2 + (1/n^2) sum_c sum_i sum_{j != i} d_ic d_jc.
    # R: v0 <- sandwich::vcovCL(lm(s ~ 1), cluster = g, type = "HC0", cadjust = FALSE)[1, 1]
    #    d <- s - mean(s); sqrt(var(s) / n + v0 - sum(d^2) / n^2)
    # (v0 = sum_c (sum_i d_ic)^2 / n^2 holds every pair in a cluster, i = j included.)
    assert clustered_se(S, G).se == pytest.approx(0.0804592083637809, abs=1e-12)


def test_paired_difference_matches_r_t_test():
    a = [1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1]
    b = [1, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1]
    r = paired_difference_se(a, b)
    assert r.se == pytest.approx(0.166666666666667, abs=1e-12)            # t.test(a, b, paired=TRUE)$stderr
    assert r.se_unpaired == pytest.approx(0.207193853502687, abs=1e-12)   # t.test(a, b)$stderr (Welch)
    assert r.correlation == pytest.approx(0.353553390593274, abs=1e-12)   # cor(a, b)
    assert r.estimate == pytest.approx(1 / 6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=60))
def test_clustered_equals_clt_with_singleton_clusters(scores):
    clt = clt_se(scores).se
    ids = list(range(len(scores)))
    assert clustered_se(scores, ids).se == pytest.approx(clt, rel=1e-9, abs=1e-12)
    assert clustered_se(scores, ids, correction="inspect_ai").se == pytest.approx(
        clt, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 6)), min_size=2, max_size=50),
       st.floats(0.5, 0.99))
def test_interval_contains_estimate_and_permutation_invariance(rows, conf):
    s = [r[0] for r in rows]
    g = [r[1] for r in rows]
    r = clustered_se(s, g, confidence=conf)
    assert r.ci_low <= r.estimate <= r.ci_high
    order = np.random.default_rng(0).permutation(len(s))
    r2 = clustered_se([s[i] for i in order], [g[i] for i in order], confidence=conf)
    assert r2.se == pytest.approx(r.se, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=3, max_size=60))
def test_paired_se_formula_with_correlation(rows):
    a = np.array([r[0] for r in rows], float)
    b = np.array([r[1] for r in rows], float)
    r = paired_difference_se(a, b)
    n = len(a)
    cov = np.cov(a, b, ddof=1)
    expected = math.sqrt((cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]) / n)
    assert r.se == pytest.approx(expected, abs=1e-12)


def test_undefined_is_nan_with_reason():
    assert math.isnan(clt_se([1]).se) and clt_se([1]).reason
    one = clustered_se([1, 0, 1], ["x", "x", "x"], correction="inspect_ai")
    assert math.isnan(one.se) and "two clusters" in one.reason
    with pytest.raises(ValueError, match="same length"):
        clustered_se([1, 0], ["a"])
    with pytest.raises(ValueError, match="correction must be one of"):
        clustered_se([1, 0], ["a", "b"], correction="cr2")
    with pytest.raises(ValueError, match=r"scores\[1\] is not a finite number"):
        clt_se([1, float("nan")])
    with pytest.raises(ValueError, match="missing"):
        clustered_se([1, 0], ["a", None])


# --- pass^k intervals ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def airline(shared_data):
    items = json.loads((shared_data / "tau-bench" / "gpt-4o-airline.json").read_text())
    return pd.DataFrame({"task_id": [str(i["task_id"]) for i in items],
                         "trial": [i["trial"] for i in items],
                         "reward": [float(i["reward"]) for i in items]})


# R: c <- <per-task successes of the 50 tasks>; v <- choose(c, k) / choose(4, k)
#    se <- sd(v) / sqrt(50); mean(v) + c(-1, 1) * qnorm(0.975) * se; mean(v) - qnorm(0.95) * se
@pytest.mark.parametrize("k, value, se, lo95, hi95, lo90", [
    (1, 0.42, 0.0522161910928488, 0.317658146048155, 0.522341853951845, 0.334112008695337),
    (2, 0.273333333333333, 0.0554838539566838, 0.164586977854753, 0.382079688811914,
     0.182070514915436),
    (4, 0.2, 0.0571428571428571, 0.0880020580262827, 0.311997941973717, 0.106008364174202),
])
def test_passk_analytic_interval_matches_r(airline, k, value, se, lo95, hi95, lo90):
    r = pass_hat_k_interval(airline, k)
    assert r.value == pytest.approx(value, abs=1e-12)  # tau-bench published 0.420/0.273/0.200
    assert r.se == pytest.approx(se, abs=1e-12)
    assert (r.ci_low, r.ci_high) == pytest.approx((lo95, hi95), abs=1e-12)
    assert pass_hat_k_interval(airline, k, confidence=0.90).ci_low == pytest.approx(lo90, abs=1e-12)


def test_passk_bootstrap_se_tends_to_plug_in_se(airline):
    # Efron & Tibshirani (1993), sec. 5.2: the bootstrap SE of a mean -> sqrt((T-1)/T) * s / sqrt(T)
    r = pass_hat_k_interval(airline, 1, method="percentile", n_boot=8000, rng=11)
    plug_in = math.sqrt(49 / 50) * 0.0522161910928488
    assert r.se == pytest.approx(plug_in, rel=0.04)
    assert r.ci_low < r.value < r.ci_high


def test_passk_bootstrap_is_reproducible_with_seed(airline):
    a = pass_hat_k_interval(airline, 2, method="bca", n_boot=500, rng=3)
    b = pass_hat_k_interval(airline, 2, method="bca", n_boot=500, rng=np.random.default_rng(3))
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)


def test_per_task_values_average_to_pass_hat_k(airline):
    v = per_task_pass_hat_k(task_counts(airline), 3)
    assert len(v) == 50 and v.mean() == pytest.approx(0.22, abs=1e-12)


def test_passk_degenerate_and_too_few_tasks():
    t = pd.DataFrame({"task_id": list("aabb"), "trial": [0, 1, 0, 1], "reward": [1.0] * 4})
    r = pass_hat_k_interval(t, 1, method="bca", n_boot=200, rng=0)
    assert math.isnan(r.ci_low) and "degenerate" in r.reason
    one = pd.DataFrame({"task_id": ["a", "a"], "trial": [0, 1], "reward": [1.0, 0.0]})
    assert math.isnan(pass_hat_k_interval(one, 1).se)
    short = pd.DataFrame({"task_id": ["a", "b", "b"], "trial": [0, 0, 1], "reward": [1.0] * 3})
    assert math.isnan(pass_hat_k_interval(short, 2).value)
    assert pass_hat_k_interval(short, 2, k_exceeds_n="exclude").n_tasks == 1
