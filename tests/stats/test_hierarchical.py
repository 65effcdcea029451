"""Paired and two-stage bootstrap: coverage on simulated data, weighting, reproducibility."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.stats.hierarchical import (
    percentile_interval,
    task_weighted_means,
    two_stage_bootstrap,
)


def test_task_weighted_means_weights_tasks_equally():
    # task a: instances (1, 0), (1, 1) -> means (1, 0.5); task b: (0, 0) -> (0, 0); equal task
    # weights give (0.5, 0.25), not the instance-weighted (2/3, 1/3)
    m = task_weighted_means([[1, 0], [1, 1], [0, 0]], ["a", "a", "b"])
    assert m.tolist() == [0.5, 0.25]


def test_same_seed_same_replicates():
    v = np.random.default_rng(0).random((30, 2))
    g = np.repeat(np.arange(5), 6)
    a = two_stage_bootstrap(v, g, n_boot=50, rng=4)
    b = two_stage_bootstrap(v, g, n_boot=50, rng=np.random.default_rng(4))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, two_stage_bootstrap(v, g, n_boot=50, rng=5))


def test_one_task_is_the_paired_bootstrap():
    # with a single task the replicate mean of the differences has the paired-bootstrap SD,
    # sd(d) / sqrt(n) (Efron & Tibshirani 1993, ch. 6: the bootstrap SE of a mean is
    # sqrt((n-1)/n) * s / sqrt(n))
    rng = np.random.default_rng(1)
    d = rng.normal(0.2, 1.0, 200)
    v = np.column_stack([d, np.zeros_like(d)])
    reps = two_stage_bootstrap(v, None, n_boot=4000, rng=2)
    expect = np.std(d, ddof=0) / math.sqrt(d.size)
    assert np.std(reps[:, 0]) == pytest.approx(expect, rel=0.06)


def test_coverage_on_simulated_two_level_data():
    # Simulation: 12 tasks with task effects N(0, 0.15^2) around a true tax of 0.2, 25 paired
    # instances per task with Bernoulli outcomes; the two-stage 95% percentile interval of the
    # task-weighted tax should cover the population tax 0.2 (tasks are a sample of a population
    # of tasks, which is why tasks are resampled) in roughly 95% of datasets.
    rng = np.random.default_rng(12)
    hits, reps = 0, 120
    for _ in range(reps):
        eff = rng.normal(0.0, 0.15, 12)
        p_solo = np.clip(0.8 + rng.normal(0, 0.05, 12), 0, 1)
        p_pair = np.clip(p_solo - (0.2 + eff), 0, 1)
        g = np.repeat(np.arange(12), 25)
        solo = rng.random(g.size) < p_solo[g]
        pair = rng.random(g.size) < p_pair[g]
        v = np.column_stack([solo, pair]).astype(float)
        b = two_stage_bootstrap(v, g, n_boot=400, rng=rng)
        lo, hi = percentile_interval(b[:, 0] - b[:, 1], 0.95)
        hits += lo <= 0.2 <= hi
    assert 0.86 <= hits / reps <= 1.0


def test_percentile_interval_undefined_when_mostly_nan():
    r = np.array([np.nan] * 6 + [1.0] * 4)
    assert all(math.isnan(x) for x in percentile_interval(r))
    with pytest.raises(ValueError, match="confidence"):
        percentile_interval([1.0, 2.0], 1.5)


def test_bad_input():
    with pytest.raises(ValueError, match="finite"):
        two_stage_bootstrap([[1.0, np.nan]])
    with pytest.raises(ValueError, match="n_boot"):
        two_stage_bootstrap([[1.0, 0.0]], n_boot=0)
    with pytest.raises(ValueError, match="one label per instance"):
        two_stage_bootstrap([[1.0, 0.0]], ["a", "b"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.integers(0, 3)), min_size=1,
                max_size=30), st.floats(0.5, 0.99))
def test_interval_ordered_and_inside_data_range(rows, conf):
    v = np.array([(a, b) for a, b, _ in rows])
    g = np.array([t for _, _, t in rows])
    reps = two_stage_bootstrap(v, g, n_boot=60, rng=0)
    lo, hi = percentile_interval(reps[:, 0], conf)
    assert lo <= hi
    assert v[:, 0].min() - 1e-12 <= lo and hi <= v[:, 0].max() + 1e-12
