"""The pass^k bootstrap honours its level: pinned to scipy.stats.bootstrap at 0.90 and 0.95.

A bootstrap run at a fixed level (whatever ``confidence`` asks) returns the same interval at
both levels; this test fails on that, and on a percentile interval computed at the wrong tail.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from noisefloor.passk import pass_hat_k_interval


def _trials():
    rng = np.random.default_rng(0)
    rows = []
    for task in range(30):
        p = rng.uniform(0.2, 0.95)
        rows += [{"task_id": f"t{task}", "trial": i, "reward": float(rng.random() < p)}
                 for i in range(4)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("method", ["percentile", "bca", "basic"])
def test_bootstrap_interval_is_at_the_requested_level(method):
    trials = _trials()
    # pass^2 of a task with c successes in n trials: C(c, 2) / C(n, 2) (tau-bench)
    per_task = trials.groupby("task_id")["reward"].apply(
        lambda r: r.sum() * (r.sum() - 1) / (len(r) * (len(r) - 1)))
    got = {}
    for level in (0.90, 0.95):
        r = pass_hat_k_interval(trials, 2, confidence=level, method=method, n_boot=999, rng=5)
        ref = stats.bootstrap((per_task.to_numpy(),), np.mean, n_resamples=999,
                              confidence_level=level, method=method,
                              random_state=np.random.default_rng(5), vectorized=True)
        assert (r.ci_low, r.ci_high) == pytest.approx(
            (ref.confidence_interval.low, ref.confidence_interval.high), rel=1e-9), level
        assert r.confidence == level
        got[level] = (r.ci_low, r.ci_high)
    assert got[0.95][0] < got[0.90][0] < got[0.90][1] < got[0.95][1]
