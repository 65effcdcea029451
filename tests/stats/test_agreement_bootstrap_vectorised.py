"""Issue 13: the vectorised bootstrap computes, on each resample, what the libraries compute.

Each resample is given as pattern counts; expanding the counts back into items and handing them
to statsmodels (kappas) or the ``krippendorff`` package (alpha) must give the same coefficient.
A bug in a closed form (a wrong marginal, the ordinal distance, the interval sums, the
Randolph chance term) makes these fail.
"""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

from noisefloor.stats.agreement import cohen_kappa, fleiss_kappa_from_counts, krippendorff_alpha
from noisefloor.stats.agreement import resampling as boot


def _expand(resampler, counts):
    """Item indices of a resample given by pattern counts (one item per pattern draw)."""
    first = {int(p): i for i, p in reversed(list(enumerate(resampler.inverse)))}
    return np.concatenate([np.full(int(c), first[p]) for p, c in enumerate(counts) if c])


def _random_counts(rng, resampler, size=5):
    n = resampler.inverse.size
    return np.stack([np.bincount(resampler.inverse[rng.integers(0, n, n)],
                                 minlength=resampler.n_patterns) for _ in range(size)]).astype(float)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(2, 5), n=st.integers(3, 40),
       weights=st.sampled_from(["none", "linear", "quadratic"]))
def test_cohen_resamples_match_statsmodels(seed, k, n, weights):
    rng = np.random.default_rng(seed)
    ia, ib = rng.integers(0, k, n), rng.integers(0, k, n)
    idx = np.arange(k)
    d = np.abs(idx[:, None] - idx[None, :]) / (k - 1)
    agree = {"none": np.eye(k), "linear": 1 - d, "quadratic": 1 - d**2}[weights]
    r = boot.cohen_resampler(ia, ib, k, agree)
    counts = _random_counts(rng, r)
    got = r.statistic(counts)
    for row, value in zip(counts, got):
        items = _expand(r, row)
        table = np.bincount(ia[items] * k + ib[items], minlength=k * k).reshape(k, k)
        wt = None if weights == "none" else weights
        with np.errstate(all="ignore"):
            ref = float(cohens_kappa(table, wt=wt, return_results=False))
        if math.isnan(value):
            p = table / table.sum()
            assert (agree * np.outer(p.sum(1), p.sum(0))).sum() >= 1 - 1e-12
        else:
            assert value == pytest.approx(ref, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(2, 4), m=st.integers(2, 5),
       n=st.integers(2, 30), method=st.sampled_from(["fleiss", "randolph"]))
def test_fleiss_resamples_match_statsmodels(seed, k, m, n, method):
    rng = np.random.default_rng(seed)
    counts = np.stack([np.bincount(rng.integers(0, k, m), minlength=k) for _ in range(n)])
    r = boot.fleiss_resampler(counts, method)
    sample = _random_counts(rng, r)
    for row, value in zip(sample, r.statistic(sample)):
        table = counts[_expand(r, row)]
        p = table.sum(0) / table.sum()
        if method == "fleiss" and (p**2).sum() >= 1 - 1e-12:
            assert math.isnan(value)
            continue
        assert value == pytest.approx(float(fleiss_kappa(table, method=method)), abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), level=st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
       n=st.integers(3, 25), raters=st.integers(2, 4), k=st.integers(2, 5))
def test_krippendorff_resamples_match_the_package(seed, level, n, raters, k):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, k, (n, raters)).astype(float)
    codes[rng.random((n, raters)) < 0.2] = np.nan
    values = codes if level in ("nominal", "ordinal") else codes * 1.5 + 1.0
    r = boot.krippendorff_resampler(values, level)
    sample = _random_counts(rng, r)
    for row, value in zip(sample, r.statistic(sample)):
        sub = values[_expand(r, row)]
        pair = np.isfinite(sub).sum(1) >= 2
        finite = sub[pair][np.isfinite(sub[pair])]
        if finite.size == 0 or np.unique(finite).size < 2:
            assert math.isnan(value)
            continue
        kwargs = {"value_domain": list(range(k))} if level in ("nominal", "ordinal") else {}
        ref = krippendorff.alpha(reliability_data=sub[pair].T, level_of_measurement=level, **kwargs)
        assert value == pytest.approx(float(ref), abs=1e-9)


def test_many_patterns_take_the_index_draw_path():
    # more distinct interval values than MULTINOMIAL_MAX_PATTERNS: items drawn as indices
    rng = np.random.default_rng(1)
    values = rng.normal(size=(boot.MULTINOMIAL_MAX_PATTERNS + 500, 2))
    r = boot.krippendorff_resampler(values, "interval")
    assert r.n_patterns > boot.MULTINOMIAL_MAX_PATTERNS
    out = boot.bootstrap(r, 30, np.random.default_rng(0))
    again = boot.bootstrap(r, 30, np.random.default_rng(0))
    assert np.array_equal(out, again) and np.isfinite(out).all()
    # (the krippendorff package itself needs a values x values matrix per unit here, 2.8 TiB;
    # the closed form was checked against it above on small data)
    full = r.statistic(np.bincount(r.inverse, minlength=r.n_patterns)[None].astype(float))[0]
    assert abs(np.mean(out) - full) < 0.05


def test_bootstrap_counts_are_a_resample_of_the_items():
    # the multinomial draw over patterns has the distribution of a resample of items: each
    # pattern's count has mean n * freq / n and the rows sum to n
    r = boot.fleiss_resampler(np.array([[3, 0]] * 6 + [[0, 3]] * 3 + [[2, 1]]), "fleiss")
    seen = []
    r2 = boot.Resampler(r.inverse, r.n_patterns, lambda c: (seen.append(c), c[:, 0])[1])
    boot.bootstrap(r2, 4000, np.random.default_rng(0))
    counts = np.concatenate(seen)
    assert (counts.sum(1) == 10).all()
    freq = np.bincount(r.inverse) / 10
    assert np.allclose(counts.mean(0) / 10, freq, atol=0.01)
    # variance of a multinomial count: n p (1 - p)
    assert np.allclose(counts.var(0), 10 * freq * (1 - freq), rtol=0.08)


def test_large_input_gets_an_interval():
    # 50,000 items x 3 raters, 2,000 resamples per coefficient (the loop took minutes)
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, 50_000)
    ratings = np.where(rng.random((50_000, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (50_000, 3)))
    counts = np.stack([(ratings == c).sum(1) for c in range(3)], axis=1)
    f = fleiss_kappa_from_counts(counts, n_boot=2000, rng=0)
    c = cohen_kappa(ratings[:, 0], ratings[:, 1], n_boot=2000, rng=0)
    a = krippendorff_alpha(ratings[:5000], level="ordinal", n_boot=2000, rng=0)
    # (its speed is measured by benchmarks/agreement_bootstrap.py, not here)
    for r in (f, c, a):
        assert r.ci_low < r.value < r.ci_high and r.ci_high - r.ci_low < 0.1
