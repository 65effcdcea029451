"""Claim SNR and the simulated re-runs false-positive rate, pinned to R and to the exact size of the
sign test (R binom.test enumeration)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.passk import task_counts
from noisefloor.stats.passk import per_task_pass_hat_k
from noisefloor.stats.snr import claim_snr, flip_rate_to_success_prob, simulate_reruns
from noisefloor.stats.validation import ParameterError

# The noise-floor paper's trial-0 per-seed gaps (shared/data/noise-floor-paper/paired_counts.csv):
# no_coord-intercept +10, 0; pull-no_coord +8, -3; pull-intercept +18, -3 pp.
NULL_GAPS = [0.10, 0.0, 0.08, -0.03, 0.18, -0.03]


@pytest.mark.parametrize("effect, snr, pct", [
    (0.06, 0.711068194709966, 50.0),   # R: g <- c(.10,0,.08,-.03,.18,-.03); .06/sd(g); ecdf(abs(g))(.06)
    (0.18, 2.1332045841299, 100.0),    # R: .18/sd(g); ecdf(abs(g))(.18)
])
def test_claim_snr_matches_r(effect, snr, pct):
    r = claim_snr(effect, NULL_GAPS)
    assert r.snr == pytest.approx(snr, abs=1e-12)
    assert r.percentile == pct


def test_claim_snr_undefined_cases():
    assert math.isnan(claim_snr(0.1, [0.05]).snr)
    assert "do not vary" in claim_snr(0.1, [0.02, 0.02]).reason
    assert math.isnan(claim_snr(0.1, []).percentile)


@settings(max_examples=50, deadline=None)
@given(st.floats(-0.5, 0.5), st.lists(st.floats(-0.3, 0.3), min_size=2, max_size=30))
def test_snr_sign_free_and_percentile_in_range(effect, gaps):
    a, b = claim_snr(effect, gaps), claim_snr(-effect, [-g for g in gaps])
    assert 0 <= a.percentile <= 100 and a.percentile == b.percentile
    if not math.isnan(a.snr):
        assert a.snr == pytest.approx(b.snr)


def test_flip_rate_inverse():
    p = flip_rate_to_success_prob(0.36)
    assert 2 * p * (1 - p) == pytest.approx(0.36, abs=1e-14)
    with pytest.raises(ValueError, match=r"flip_rate must be in \[0, 0.5\]"):
        flip_rate_to_success_prob(0.6)


def test_simulated_rates_match_exact_sign_test_size():
    # exact size of the Bonferroni (m = 3) sign test with ties, flip rate 0.36:
    # R: signpow(100, 0, 0.36, 0.05/3) = 0.010631292226171 (one seed, n = 100)
    #    signpow(200, 0, 0.36, 0.05/3) = 0.0118070728390863 (two seeds summed, n = 200)
    # (signpow as in tests/stats/test_power.py)
    r = simulate_reruns([flip_rate_to_success_prob(0.36)] * 100, n_sim=20000, rng=1)
    assert r.single_seed_rate == pytest.approx(0.010631292226171, abs=0.0015)
    assert r.pooled_rate == pytest.approx(0.0118070728390863, abs=0.0015)
    assert r.single_seed_rate <= r.single_seed_any_rate <= r.experiment_any_rate
    assert r.flip_rate == pytest.approx(0.36)


def test_simulation_reproducible_and_from_a_log(shared_data):
    import json

    import pandas as pd
    items = json.loads((shared_data / "tau-bench" / "gpt-4o-airline.json").read_text())
    t = pd.DataFrame({"task_id": [str(i["task_id"]) for i in items],
                      "trial": [i["trial"] for i in items],
                      "reward": [float(i["reward"]) for i in items]})
    p = per_task_pass_hat_k(task_counts(t), 1)
    a = simulate_reruns(p, n_sim=300, rng=4)
    b = simulate_reruns(p, n_sim=300, rng=np.random.default_rng(4))
    assert a == b and a.n_tasks == 50
    # per-task shares over 4 trials: flip rate = mean 2 p (1 - p) of the log
    assert a.flip_rate == pytest.approx(float(np.mean(2 * p * (1 - p))))


def test_simulation_bad_input():
    with pytest.raises(ValueError, match=r"success_prob\[1\] must lie in \[0, 1\]"):
        simulate_reruns([0.5, 1.2])
    # each bound is its own ParameterError naming the parameter (was one "need ..." sentence)
    with pytest.raises(ParameterError, match="n_arms must be at least 2, got 1") as err:
        simulate_reruns([0.5], n_arms=1)
    assert err.value.parameter == "n_arms"
    with pytest.raises(ParameterError, match=r"n_sim must be in 1\.\.200000, got 0"):
        simulate_reruns([0.5], n_sim=0)
