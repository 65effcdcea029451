"""Grouped-fold ridge, R^2 conventions and Spearman's exact test, pinned to external values."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from noisefloor.tax.grouped import (
    _Fold,
    _Nested,
    grouped_ridge,
    pooled_and_mean_r2,
    spearman_test,
)


def test_r2_trap_minus_13_but_squared_correlation_1():
    # The R^2 trap of the issue: y = [1, 2, 3, 4], predictions [8, 6, 4, 2].
    # By hand: SS_res = 49 + 16 + 1 + 4 = 70, SS_tot = 5, R^2 = 1 - 70/5 = -13 (the definition
    # scikit-learn's r2_score documents); Pearson r = -1, so r^2 = 1.
    y, p = [1, 2, 3, 4], [8, 6, 4, 2]
    pooled, mean_fold, _ = pooled_and_mean_r2(y, p, [0, 0, 0, 0])
    assert pooled == pytest.approx(-13.0)
    assert np.corrcoef(y, p)[0, 1] ** 2 == pytest.approx(1.0)
    assert r2_score(y, p) == pytest.approx(-13.0)


def test_pooled_oof_r2_differs_from_mean_per_fold_r2():
    # Constructed case: fold 0 has y = [0, 1], pred = [0.5, 1.5]; fold 1 y = [10, 11],
    # pred = [9.5, 10.5]. Within each fold, SS_res = 0.25 + 0.25 = 0.5, SS_tot = 0.5, R^2 = 0;
    # mean per-fold R^2 = 0. Pooled: ybar = 5.5, SS_tot = 2 * (5.5^2 + 4.5^2) = 101,
    # SS_res = 4 * 0.25 = 1, pooled R^2 = 1 - 1/101 = 0.990099...
    y = [0, 1, 10, 11]
    p = [0.5, 1.5, 9.5, 10.5]
    pooled, mean_fold, per = pooled_and_mean_r2(y, p, [0, 0, 1, 1])
    assert per == pytest.approx((0.0, 0.0))
    assert mean_fold == pytest.approx(0.0)
    assert pooled == pytest.approx(1 - 1 / 101)


def test_constant_fold_gives_nan_not_zero():
    pooled, mean_fold, per = pooled_and_mean_r2([1, 1, 2, 3], [1, 1, 2, 3], [0, 0, 1, 1])
    assert math.isnan(per[0]) and math.isnan(mean_fold) and pooled == 1.0


def test_spearman_exact_small_n():
    # R: cor.test(1:5, c(2, 1, 4, 3, 5), method = "spearman")  ->  S = 4, rho = 0.8,
    # p-value = 0.1333 (exact for n < 10). By enumeration (Kendall & Gibbons 1990, ch. 5):
    # of the 120 permutations, 8 have sum d^2 <= 4 (identity, 4 adjacent swaps, 3 pairs of
    # disjoint adjacent swaps), so the two-sided p is 2 * 8 / 120 = 0.13333.
    r = spearman_test([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert r.method == "exact" and r.n_resamples == 120
    assert r.rho == pytest.approx(0.8)
    assert r.p_value == pytest.approx(16 / 120, abs=1e-12)
    # R: cor.test(1:4, c(1, 2, 3, 4), method = "spearman") -> rho = 1, p-value = 0.08333
    # (only the identity and its reverse reach |rho| = 1: 2 / 24)
    r4 = spearman_test([1, 2, 3, 4], [1, 2, 3, 4])
    assert r4.p_value == pytest.approx(2 / 24, abs=1e-12)


def test_spearman_exact_differs_from_t_approximation():
    # scipy.stats.spearmanr's p for this case is the t approximation (0.1041...), not the
    # exact 0.1333: the module must not report it
    from scipy.stats import spearmanr
    t_p = spearmanr([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).pvalue
    assert abs(t_p - 16 / 120) > 0.02
    assert spearman_test([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).p_value != pytest.approx(t_p)


def test_spearman_undefined_cases():
    assert "at least 3" in spearman_test([1, 2], [2, 1]).reason
    r = spearman_test([1, 1, 1, 1], [1, 2, 3, 4])
    assert math.isnan(r.rho) and "constant" in r.reason


def test_spearman_permutation_large_n_seeded():
    rng = np.random.default_rng(3)
    x = rng.normal(size=40)
    y = x + rng.normal(size=40)
    a = spearman_test(x, y, n_resamples=999, rng=7)
    b = spearman_test(x, y, n_resamples=999, rng=7)
    assert a.method == "permutation" and a.p_value == b.p_value and a.p_value <= 0.01


def _data(seed=0, n_groups=10, per=6, p=3, signal=1.0):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(n_groups), per)
    X = rng.normal(size=(g.size, p))
    y = signal * X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 1, g.size)
    return X, y, g


def test_closed_form_fold_matches_sklearn_ridge():
    # the permutation null's closed form against scikit-learn's StandardScaler + Ridge
    X, y, g = _data()
    train, test = next(GroupKFold(n_splits=5).split(X, groups=g))
    for alpha in (1e-3, 1.0, 100.0):
        ref = make_pipeline(StandardScaler(), Ridge(alpha=alpha)).fit(X[train], y[train])
        mine = _Fold(X, train, test).predict(y[:, None], alpha)[:, 0]
        np.testing.assert_allclose(mine, ref.predict(X[test]), rtol=1e-9, atol=1e-10)


def test_nested_closed_form_reproduces_reported_fit():
    X, y, g = _data(1)
    r = grouped_ridge(X, y, g, n_permutations=0)
    pred, chosen = _Nested(X, g, "group_kfold", 5, 4, r.alphas).run(y[:, None])
    np.testing.assert_allclose(pred[:, 0], r.oof_pred, rtol=1e-8, atol=1e-10)
    assert tuple(r.alphas[i] for i in chosen[:, 0]) == r.fold_alphas


def test_groups_never_split_and_signal_found():
    X, y, g = _data(2, signal=2.0)
    r = grouped_ridge(X, y, g, n_permutations=99, rng=0)
    for k in range(r.n_folds):
        held = set(g[r.fold_of == k])
        assert held.isdisjoint(set(g[r.fold_of != k]))
    assert r.r2_pooled_oof > 0.5 and r.r2_perm_p <= 0.02
    assert r.spearman.rho > 0.6
    assert r.r2_pooled_oof != r.r2_mean_fold


def test_no_signal_permutation_p_not_small():
    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(8), 5)
    X = rng.normal(size=(40, 2))
    y = rng.normal(size=40)
    r = grouped_ridge(X, y, g, n_permutations=99, rng=1)
    assert r.r2_perm_p > 0.05
    assert r.r2_pooled_oof < 0.2


def test_leave_one_group_out_has_one_fold_per_group():
    X, y, g = _data(3, n_groups=6)
    r = grouped_ridge(X, y, g, scheme="leave_one_group_out", n_permutations=0)
    assert r.n_folds == 6 and math.isnan(r.r2_perm_p)


def test_bad_input():
    X, y, g = _data()
    with pytest.raises(ValueError, match="at least 3 groups"):
        grouped_ridge(X, y, np.repeat([0, 1], 30))
    y2 = y.copy()
    y2[0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        grouped_ridge(X, y2, g)
    with pytest.raises(ValueError, match="scheme"):
        grouped_ridge(X, y, g, scheme="kfold")


@settings(max_examples=5, deadline=None)
@given(st.permutations(list(range(12))))
def test_r2_invariant_to_row_order(perm):
    # GroupKFold breaks ties between equal-sized groups by order, so compare leave-one-out
    X, y, g = _data(4, n_groups=4, per=3)
    idx = np.array(perm)
    kw = dict(n_permutations=0, scheme="leave_one_group_out", alphas=(0.1, 10.0))
    a = grouped_ridge(X, y, g, **kw)
    b = grouped_ridge(X[idx], y[idx], g[idx], **kw)
    assert a.r2_pooled_oof == pytest.approx(b.r2_pooled_oof, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=3, max_size=7, unique=True))
def test_spearman_p_in_unit_interval_and_rho_bounded(xs):
    ys = list(reversed(xs))
    r = spearman_test(xs, ys)
    assert 0 < r.p_value <= 1 and -1 - 1e-12 <= r.rho <= 1 + 1e-12


def test_inner_alpha_choice_matches_sklearn_refits():
    # the inner loop's closed form picks the same penalty as refitting scikit-learn's
    # StandardScaler + Ridge on every inner grouped fold
    from noisefloor.tax.grouped import _choose_alpha
    X, y, g = _data(6, n_groups=8, per=4, signal=0.3)
    alphas = (0.01, 1.0, 30.0, 1000.0)
    sse = []
    for a in alphas:
        tot = 0.0
        for tr, te in GroupKFold(n_splits=4).split(X, groups=g):
            p = make_pipeline(StandardScaler(), Ridge(alpha=a)).fit(X[tr], y[tr]).predict(X[te])
            tot += ((p - y[te]) ** 2).sum()
        sse.append(tot)
    assert _choose_alpha(X, y, g, 4, alphas) == alphas[int(np.argmin(sse))]
