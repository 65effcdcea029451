"""Multiplicity corrections, pinned to R's p.adjust.

The array forms (holm, adjust_families) and their equality to statsmodels' multipletests are
tested in test_vectorised_counts.py.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.stats.multiplicity import adjust_pvalues

P = [0.01, 0.02, 0.03, 0.04, 0.05]


@pytest.mark.parametrize("method,expected", [
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "bonferroni")
    ("bonferroni", [0.05, 0.10, 0.15, 0.20, 0.25]),
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm")
    ("holm", [0.05, 0.08, 0.09, 0.09, 0.09]),
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "BH")
    ("fdr_bh", [0.05, 0.05, 0.05, 0.05, 0.05]),
])
def test_matches_r_p_adjust(method, expected):
    assert adjust_pvalues(P, method=method).p_adjusted == pytest.approx(expected)


def test_nan_left_out_of_family_and_reported():
    r = adjust_pvalues([0.01, float("nan"), 0.04], method="bonferroni")
    assert r.m == 2
    assert r.excluded == (1,)
    assert math.isnan(r.p_adjusted[1])
    assert r.p_adjusted[0] == pytest.approx(0.02)
    assert "left out" in r.reason


def test_default_is_not_holm_sidak():
    # statsmodels' own default is Holm-Sidak; ours must be Bonferroni.
    assert adjust_pvalues([0.01, 0.02]).method == "bonferroni"


def test_family_size_bonferroni_only():
    assert adjust_pvalues([0.004], family_size=3).p_adjusted[0] == pytest.approx(0.012)
    with pytest.raises(ValueError, match="family_size"):
        adjust_pvalues([0.01], method="holm", family_size=3)
    with pytest.raises(ValueError, match="family_size"):
        adjust_pvalues([0.01, 0.02], family_size=1)


def test_bad_input():
    with pytest.raises(ValueError, match="method"):
        adjust_pvalues([0.1], method="sidak")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        adjust_pvalues([1.2])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12),
       st.sampled_from(["bonferroni", "holm", "fdr_bh"]))
def test_corrected_never_below_raw(ps, method):
    r = adjust_pvalues(ps, method=method)
    adj = np.array(r.p_adjusted)
    assert np.all(adj >= np.array(ps) - 1e-12)
    assert np.all(adj <= 1.0)


@st.composite
def shuffled(draw):
    ps = draw(st.lists(st.floats(0, 1), min_size=2, max_size=10))
    return ps, draw(st.permutations(range(len(ps))))


@settings(max_examples=100, deadline=None)
@given(shuffled())
def test_permutation_invariant(case):
    ps, order = case
    a = adjust_pvalues(ps, method="holm").p_adjusted
    b = adjust_pvalues([ps[i] for i in order], method="holm").p_adjusted
    assert [a[i] for i in order] == pytest.approx(list(b))
