"""The count table in array operations: exact sign test, Wilson intervals, multiplicity.

Pinned three ways: to R (values quoted with the call that gives them), to the per-row
computation the table used before (scipy ``binomtest``, statsmodels ``proportion_confint`` and
``multipletests``, one call per row or family) over Hypothesis-generated tables, and by
property tests of the Holm step-down.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from noisefloor.stats.multiplicity import adjust_families, adjust_pvalues, holm
from noisefloor.stats.paired import (
    sign_test,
    sign_test_pvalues,
    sign_test_table,
    sign_tests,
    wilson_interval,
    wilson_mapped_ci,
)

# ---------------------------------------------------------------- R reference values


def test_sign_test_pvalue_matches_r_binom_test():
    # R: binom.test(7, 10)$p.value = 0.34375 (= 352/1024, exact)
    # R: binom.test(27, 36)$p.value = 0.003933173 (= 2 * sum(choose(36, 0:9)) / 2^36)
    # R: binom.test(0, 5)$p.value = 0.0625; binom.test(5, 10)$p.value = 1
    p = sign_test_pvalues([7, 27, 0, 5], [3, 9, 5, 5])
    assert p[0] == pytest.approx(352 / 1024, abs=1e-15)
    assert p[1] == pytest.approx(0.003933173022232950, rel=1e-12)
    assert p[2] == pytest.approx(0.0625, abs=1e-15)
    assert p[3] == 1.0


@pytest.mark.parametrize("confidence,low,high", [
    # R: prop.test(7, 10, correct = FALSE)$conf.int = 0.3967781 0.8922087
    (0.95, 0.3967781, 0.8922087),
    # Wilson closed form at 90% and 99% (evaluated with mpmath at 40 digits; R's
    # prop.test(7, 10, conf.level = 0.90, correct = FALSE) evaluates the same closed form):
    # 0.44169979587 0.873123416097 and 0.320024679201 0.920433683477
    (0.90, 0.4416998, 0.8731234),
    (0.99, 0.3200247, 0.9204337),
])
def test_wilson_matches_r_prop_test(confidence, low, high):
    lo, hi = wilson_interval([7], [10], confidence)
    assert lo[0] == pytest.approx(low, abs=5e-8)
    assert hi[0] == pytest.approx(high, abs=5e-8)


def test_wilson_mapped_onto_the_gap_at_two_levels():
    # 7 wins, 3 losses, 10 ties: (2 lo - 1) * 10 / 20 from the R interval above
    for conf, lo, hi in [(0.95, 0.3967781475, 0.8922087326), (0.90, 0.4416997959, 0.8731234161)]:
        f = sign_tests([7], [3], [10], confidence=conf)
        assert f["ci_low"].iloc[0] == pytest.approx((2 * lo - 1) / 2, abs=1e-9)
        assert f["ci_high"].iloc[0] == pytest.approx((2 * hi - 1) / 2, abs=1e-9)


def test_holm_matches_r_p_adjust():
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") = 0.05 0.08 0.09 0.09 0.09
    assert holm([0.01, 0.02, 0.03, 0.04, 0.05]) == pytest.approx(
        [0.05, 0.08, 0.09, 0.09, 0.09], abs=1e-15)
    # the same values in another input order come back in that order
    assert holm([0.05, 0.01, 0.04, 0.02, 0.03]) == pytest.approx(
        [0.09, 0.05, 0.09, 0.08, 0.09], abs=1e-15)


def test_families_match_r_p_adjust_per_family():
    # two families interleaved; each is R's p.adjust of its own members:
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "BH") = 0.05 0.05 0.05 0.05 0.05
    # R: p.adjust(c(0.2, 0.6), "BH") = 0.4 0.6; p.adjust(c(0.2, 0.6), "holm") = 0.4 0.6
    p = [0.01, 0.2, 0.02, 0.03, 0.6, 0.04, 0.05]
    fam = ["a", "b", "a", "a", "b", "a", "a"]
    adj, m = adjust_families(p, fam, method="fdr_bh")
    assert adj == pytest.approx([0.05, 0.4, 0.05, 0.05, 0.6, 0.05, 0.05], abs=1e-15)
    assert m.tolist() == [5, 2, 5, 5, 2, 5, 5]
    adj, _ = adjust_families(p, fam, method="holm")
    assert adj == pytest.approx([0.05, 0.4, 0.08, 0.09, 0.6, 0.09, 0.09], abs=1e-15)


# ---------------------------------------------------------------- undefined rows and bad input


def test_undefined_rows_are_nan_with_a_reason():
    f = sign_tests([0, 0, 4], [0, 0, 1], [0, 3, 0])
    assert math.isnan(f["gap"][0]) and f["reason"][0].startswith("no paired tasks")
    assert f["gap"][1] == 0.0 and math.isnan(f["p_value"][1])
    assert math.isnan(f["ci_low"][1]) and f["reason"][1].startswith("no untied pairs")
    assert f["reason"][2] == "" and not math.isnan(f["ci_low"][2])


def test_bad_counts_name_the_field():
    with pytest.raises(ValueError, match="losses must be a non-negative integer count, got -2"):
        sign_tests([1, 2], [3, -2], [0, 0])
    with pytest.raises(TypeError, match="wins"):
        sign_tests([1.5], [1], [0])
    with pytest.raises(ValueError, match="successes must not exceed trials"):
        wilson_interval([5], [4])
    with pytest.raises(ValueError, match="confidence"):
        sign_tests([1], [1], [0], confidence=95)
    with pytest.raises(ValueError, match="families has 1 labels for 2"):
        adjust_families([0.1, 0.2], [1])


# ---------------------------------------------------------------- equal to the per-row computation

counts = st.integers(0, 3000)
rows = st.lists(st.tuples(counts, counts, counts, st.integers(0, 4)), min_size=1, max_size=40)


def _per_row(w: int, lo: int, t: int, conf: float) -> tuple[float, float, float]:
    """The computation the table used before, one row at a time."""
    m, n = w + lo, w + lo + t
    if m == 0:
        return math.nan, math.nan, math.nan
    p = min(1.0, binomtest(w, m, 0.5, alternative="two-sided").pvalue)
    a, b = proportion_confint(w, m, alpha=1 - conf, method="wilson")
    return p, (2 * a - 1) * m / n, (2 * b - 1) * m / n


@settings(max_examples=30, deadline=None)
@given(rows, st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_sign_tests_equal_the_per_row_results(table, conf):
    w, lo, t, _ = (np.array(c) for c in zip(*table))
    f = sign_tests(w, lo, t, confidence=conf)
    expected = np.array([_per_row(*r[:3], conf) for r in table])
    np.testing.assert_allclose(f[["p_value", "ci_low", "ci_high"]].to_numpy(), expected,
                               rtol=0, atol=1e-12, equal_nan=True)
    for i, r in enumerate(table):  # the one-contrast form is the same code
        one = sign_test(*r[:3], confidence=conf)
        assert (one.p_value, one.ci_low) == pytest.approx(tuple(expected[i, :2]), abs=1e-12,
                                                          nan_ok=True)
        if r[0] + r[1]:
            assert wilson_mapped_ci(*r[:3], conf) == pytest.approx(tuple(expected[i, 1:]),
                                                                  abs=1e-12)


def _multipletests(p: np.ndarray, method: str) -> np.ndarray:
    """statsmodels' adjusted p-values, without the ``gc.collect()`` its Holm branch runs on
    every call (a full collection of this process's heap, a second or more in a test process
    that has imported the packages; it changes no value)."""
    with mock.patch("gc.collect", lambda *args: 0):
        return multipletests(p, method=method)[1]


@settings(max_examples=15, deadline=None)
@given(rows, st.sampled_from(["bonferroni", "holm", "fdr_bh"]))
def test_table_equals_per_family_multipletests(table, method):
    w, lo, t, fam = (list(c) for c in zip(*table))
    frame = pd.DataFrame({"seed": fam, "wins": w, "losses": lo, "ties": t})
    out = sign_test_table(frame, family=("seed",), method=method)
    for _, g in out.groupby("seed"):
        p = g["p_value"].to_numpy()
        ok = ~np.isnan(p)
        want = np.full(len(p), np.nan)
        if ok.any():
            want[ok] = _multipletests(p[ok], method)
        np.testing.assert_allclose(g["p_adjusted"].to_numpy(), want, rtol=0, atol=1e-12,
                                   equal_nan=True)
        assert set(g["m"]) == {int(ok.sum())}


def test_missing_family_key_is_its_own_family():
    # a row without a seed is tested and corrected within the rows without a seed, not left NaN
    frame = pd.DataFrame({"seed": [1.0, 1.0, np.nan], "wins": [20, 3, 20], "losses": [2, 3, 2],
                          "ties": [0, 0, 0]})
    out = sign_test_table(frame, family=("seed",))
    assert out["m"].tolist() == [2, 2, 1]
    assert out["p_adjusted"].iloc[2] == pytest.approx(out["p_value"].iloc[2])


# ---------------------------------------------------------------- Holm's invariants

pvals = st.lists(st.floats(0, 1), min_size=1, max_size=60)


@settings(max_examples=200, deadline=None)
@given(pvals)
def test_holm_invariants(ps):
    p = np.array(ps)
    adj = holm(p)
    bonf = np.minimum(1.0, len(p) * p)
    assert np.all(adj >= p)  # never below the raw p
    assert np.all(adj <= bonf)  # never above Bonferroni
    assert np.all(adj <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= 0)  # monotone in the order of the raw p-values
    assert np.all(adj[p == p.min()] == adj.min())  # the smallest gets m p, clipped
    assert adj.min() == min(1.0, len(p) * p.min())
    bh = adjust_pvalues(p, method="fdr_bh").p_adjusted
    assert np.all(np.array(bh) <= adj + 1e-15)  # BH is never stricter than Holm


@settings(max_examples=100, deadline=None)
@given(pvals, st.randoms())
def test_holm_ignores_input_order(ps, rnd):
    p = np.array(ps)
    perm = np.array(rnd.sample(range(len(p)), len(p)))
    assert holm(p[perm]).tolist() == holm(p)[perm].tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 5)), min_size=1, max_size=60),
       st.sampled_from(["bonferroni", "holm", "fdr_bh"]))
def test_families_at_once_equal_one_at_a_time(items, method):
    p, fam = (np.array(c) for c in zip(*items))
    adj, m = adjust_families(p, fam, method=method)
    for label in set(fam.tolist()):
        sel = fam == label
        one = adjust_pvalues(p[sel], method=method)
        assert adj[sel].tolist() == list(one.p_adjusted)
        assert set(m[sel].tolist()) == {one.m}


def test_holm_rejects_nan_and_out_of_range():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.1, float("nan")])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([1.5])
