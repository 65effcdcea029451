"""pass@k (Chen et al. 2021): the unbiased estimator, its interval, and its relation to pass^k."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.passk import pass_at_k, pass_at_k_table, pass_hat_k
from noisefloor.stats.passat import pass_at_k_estimate


def _enumerate(outcomes: list[int], k: int) -> Fraction:
    """Share of the k-subsets of the attempts that hold at least one success (by hand)."""
    subsets = list(itertools.combinations(range(len(outcomes)), k))
    hits = sum(1 for s in subsets if any(outcomes[i] for i in s))
    return Fraction(hits, len(subsets))


@pytest.mark.parametrize("n, c, k, expected", [
    # Chen et al. (2021), eq. 1 and figure 3: 1 - C(n-c, k) / C(n, k), worked by hand
    (5, 2, 2, 1 - Fraction(3, 10)),       # C(3,2)=3, C(5,2)=10
    (10, 3, 5, 1 - Fraction(21, 252)),    # C(7,5)=21, C(10,5)=252
    (200, 10, 1, Fraction(10, 200)),      # k=1: c/n
    (4, 0, 2, Fraction(0)),
    (4, 3, 2, Fraction(1)),               # n - c < k: every draw holds a success
])
def test_pass_at_k_estimate_worked_values(n, c, k, expected):
    assert pass_at_k_estimate(n, c, k) == pytest.approx(float(expected), abs=1e-12)


def test_pass_at_k_estimate_matches_hand_enumeration():
    for outcomes in ([1, 0, 0, 1], [0, 0, 0, 1, 0], [1, 1, 0, 0, 0, 0], [0, 1, 0, 1, 0, 1, 0]):
        n, c = len(outcomes), sum(outcomes)
        for k in range(1, n + 1):
            assert pass_at_k_estimate(n, c, k) == pytest.approx(
                float(_enumerate(outcomes, k)), abs=1e-12), (outcomes, k)


def test_pass_at_k_estimate_is_stable_where_binomials_overflow():
    # C(1000, 500) is beyond a float; the exact rational value is the reference
    n, c, k = 1000, 3, 500
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert pass_at_k_estimate(n, c, k) == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("bad", [(0, 0, 1), (3, 4, 1), (3, 1, 4), (3, 1, 0), (3.0, 1, 1)])
def test_pass_at_k_estimate_refuses_bad_counts(bad):
    with pytest.raises(ValueError):
        pass_at_k_estimate(*bad)


def _trials(matrix: list[list[int]]) -> pd.DataFrame:
    rows = [{"task_id": f"t{i}", "trial": j, "reward": float(v)}
            for i, row in enumerate(matrix) for j, v in enumerate(row)]
    return pd.DataFrame(rows)


def test_pass_at_k_interval_at_two_levels():
    t = _trials([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]])
    v = np.array([5 / 6, 0.0, 1.0, 0.5])  # per task at k=2, by hand: 1 - C(n-c,2)/C(4,2)
    se = float(np.std(v, ddof=1) / 2)
    for conf, z in ((0.95, 1.959963984540054), (0.90, 1.6448536269514722)):  # normal quantiles
        r = pass_at_k(t, 2, confidence=conf)
        assert r.value == pytest.approx(v.mean())
        assert r.se == pytest.approx(se)
        assert r.ci_low == pytest.approx(max(0.0, v.mean() - z * se))
        assert r.ci_high == pytest.approx(min(1.0, v.mean() + z * se))


def test_pass_at_k_undefined_like_pass_hat_k():
    t = _trials([[1, 0], [1]])
    r = pass_at_k(t, 2)
    assert math.isnan(r.value) and "pass@2 is undefined" in r.reason
    r = pass_at_k(t, 2, k_exceeds_n="exclude")
    assert r.value == 1.0 and r.tasks_excluded == ("t1",) and math.isnan(r.se)


def test_pass_at_k_counts_infrastructure_errors_as_pass_hat_k_does():
    t = pd.DataFrame({"task_id": ["a", "a", "a", "b", "b", "b"], "trial": [0, 1, 2] * 2,
                      "reward": [1.0, None, 0.0, 0.0, 0.0, 1.0],
                      "infrastructure_error": [False, True, False] * 2})
    t.loc[4, "infrastructure_error"] = False
    # exclude: a has (n=2, c=1), b has (n=3, c=1)
    assert pass_at_k(t, 2).value == pytest.approx((1.0 + (1 - 1 / 3)) / 2)
    # fail: a (n=3, c=1)
    assert pass_at_k(t, 2, infrastructure_errors="fail").value == pytest.approx(
        ((1 - 1 / 3) + (1 - 1 / 3)) / 2)


def test_pass_at_k_table_per_configuration():
    t = _trials([[1, 0], [0, 0]])
    both = pd.concat([t.assign(protocol="a"), t.assign(protocol="b", reward=1.0)])
    table = pass_at_k_table(both, [1, 2])
    assert table[["protocol", "k", "value"]].values.tolist() == [
        ["a", 1, 0.25], ["a", 2, 0.5], ["b", 1, 1.0], ["b", 2, 1.0]]


matrices = st.lists(st.lists(st.integers(0, 1), min_size=4, max_size=4), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_properties_against_pass_hat_k(matrix):
    t = _trials(matrix)
    values = [pass_at_k(t, k).value for k in range(1, 5)]
    hats = [pass_hat_k(t, k).value for k in range(1, 5)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b + 1e-12 for a, b in zip(values, values[1:]))  # non-decreasing in k
    assert all(v >= h - 1e-12 for v, h in zip(values, hats))         # any >= all
    assert values[0] == pytest.approx(hats[0])                       # equal at k = 1
    r = pass_at_k(t, 2)
    if len(matrix) >= 2:
        assert r.ci_low <= r.value <= r.ci_high
