"""Property tests (Hypothesis) for the agreement estimators: invariances and interval order."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from noisefloor.stats.agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def ratings_matrix(draw, min_raters=2, max_raters=5, min_items=3, max_items=25, k_max=4):
    n_items = draw(st.integers(min_items, max_items))
    n_raters = draw(st.integers(min_raters, max_raters))
    k = draw(st.integers(2, k_max))
    cells = draw(
        st.lists(st.integers(0, k - 1), min_size=n_items * n_raters, max_size=n_items * n_raters)
    )
    return np.array(cells, dtype=object).reshape(n_items, n_raters), k


@st.composite
def identical_raters(draw):
    n_items = draw(st.integers(2, 30))
    n_raters = draw(st.integers(2, 5))
    k = draw(st.integers(2, 5))
    col = draw(st.lists(st.integers(0, k - 1), min_size=n_items, max_size=n_items))
    if len(set(col)) < 2:  # at least two categories in use
        col[0], col[-1] = 0, 1
    return np.array([[x] * n_raters for x in col], dtype=object)


@SETTINGS
@given(identical_raters(), st.sampled_from(["none", "linear", "quadratic"]))
def test_identical_raters_agree_perfectly(data, weights):
    cohen = cohen_kappa(data[:, 0], data[:, 1], weights=weights, n_boot=0)
    assert cohen.value == pytest.approx(1.0)
    assert fleiss_kappa(data, n_boot=0).value == pytest.approx(1.0)
    for level in ("nominal", "ordinal", "interval"):
        assert krippendorff_alpha(data, level=level, n_boot=0).value == pytest.approx(1.0)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-9)


@SETTINGS
@given(ratings_matrix(), st.randoms(use_true_random=False))
def test_relabelling_categories_changes_nothing_unweighted(mk, rnd):
    data, k = mk
    names = [f"c{i}" for i in range(k)]
    rnd.shuffle(names)
    relabelled = np.vectorize(lambda x: names[x], otypes=[object])(data)
    c1 = cohen_kappa(data[:, 0], data[:, 1], n_boot=0).value
    c2 = cohen_kappa(relabelled[:, 0], relabelled[:, 1], n_boot=0).value
    assert _same(c1, c2)
    assert _same(fleiss_kappa(data, n_boot=0).value, fleiss_kappa(relabelled, n_boot=0).value)
    assert _same(
        krippendorff_alpha(data, level="nominal", n_boot=0).value,
        krippendorff_alpha(relabelled, level="nominal", n_boot=0).value,
    )


@SETTINGS
@given(ratings_matrix(), st.randoms(use_true_random=False),
       st.sampled_from(["none", "linear", "quadratic"]))
def test_permuting_items_and_raters_changes_nothing(mk, rnd, weights):
    data, k = mk
    rows = list(range(data.shape[0]))
    cols = list(range(data.shape[1]))
    rnd.shuffle(rows)
    rnd.shuffle(cols)
    perm = data[rows][:, cols]
    cats = list(range(k))
    # Cohen: permute items, and swap the two raters
    c1 = cohen_kappa(data[:, 0], data[:, 1], weights=weights, categories=cats, n_boot=0).value
    c2 = cohen_kappa(data[rows, 1], data[rows, 0], weights=weights, categories=cats, n_boot=0).value
    assert _same(c1, c2)
    assert _same(fleiss_kappa(data, n_boot=0).value, fleiss_kappa(perm, n_boot=0).value)
    for level in ("nominal", "ordinal", "interval"):
        assert _same(
            krippendorff_alpha(data, level=level, n_boot=0).value,
            krippendorff_alpha(perm, level=level, n_boot=0).value,
        )


# found by Hypothesis: every resample of these items gives the estimate, summed in another
# order (ci_high -0.33333333333333337 against the estimate -0.33333333333333326)
@example(mk=(np.array([[0, 0, 1]] * 5 + [[0, 1, 1]] * 5, dtype=object), 2), seed=0)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ratings_matrix(min_items=8, max_items=40), st.integers(0, 2**32 - 1))
def test_interval_brackets_estimate(mk, seed):
    data, k = mk
    results = [
        cohen_kappa(data[:, 0], data[:, 1], n_boot=100, rng=seed),
        cohen_kappa(data[:, 0], data[:, 1], weights="quadratic", categories=list(range(k)),
                    n_boot=100, rng=seed),
        fleiss_kappa(data, n_boot=100, rng=seed),
        krippendorff_alpha(data, level="nominal", n_boot=100, rng=seed),
    ]
    for r in results:
        if math.isnan(r.value):
            assert r.reason
            assert math.isnan(r.ci_low) and math.isnan(r.ci_high)
            continue
        if r.ci_reason:  # degenerate bootstrap (e.g. 7 of 8 items tied): no interval, a reason
            assert math.isnan(r.ci_low) and math.isnan(r.ci_high)
        else:
            # the replicates and the estimate are the same sums in different orders: a few ulps
            ulps = 8 * math.ulp(abs(r.value))
            assert r.ci_low - ulps <= r.value <= r.ci_high + ulps, r
        if r.metric == "cohen":
            if r.se_reason:  # perfect agreement: no asymptotic SE, a reason
                assert math.isnan(r.se) and math.isnan(r.asymptotic_ci_low)
            else:
                assert r.asymptotic_ci_low <= r.value <= r.asymptotic_ci_high


@SETTINGS
@given(st.integers(2, 30), st.integers(2, 5), st.sampled_from(["x", 3, "yes"]))
def test_single_category_is_undefined_not_zero(n_items, n_raters, label):
    data = np.full((n_items, n_raters), label, dtype=object)
    for r in (
        cohen_kappa(data[:, 0], data[:, 1]),
        fleiss_kappa(data),
        krippendorff_alpha(data, level="nominal"),
    ):
        assert math.isnan(r.value)
        assert "undefined" in r.reason
        assert r.observed_agreement == 1.0
        assert r.landis_koch == "undefined"


@SETTINGS
@given(ratings_matrix(max_raters=3), st.randoms(use_true_random=False),
       st.sampled_from(["linear", "quadratic"]))
def test_declared_text_scale_equals_its_numeric_codes(mk, rnd, weights):
    # Issue 3: the order of a weighted scale is explicit. Text labels in a declared order give
    # the same weighted kappa / ordinal alpha as their numeric codes 0..k-1 (numeric order),
    # whatever the spelling; without the declaration they are refused, never sorted.
    data, k = mk
    names = [f"s{i}" for i in range(k)]
    rnd.shuffle(names)  # the names' alphabetical order is unrelated to the scale
    text = np.vectorize(lambda x: names[x], otypes=[object])(data)
    a = cohen_kappa(data[:, 0], data[:, 1], weights=weights, categories=range(k), n_boot=0)
    b = cohen_kappa(text[:, 0], text[:, 1], weights=weights, categories=names, n_boot=0)
    assert _same(a.value, b.value) and b.category_order == "declared"
    x = krippendorff_alpha(data, level="ordinal", n_boot=0)
    y = krippendorff_alpha(text, level="ordinal", categories=names, n_boot=0)
    assert _same(x.value, y.value) and x.category_order == "numeric"
    with pytest.raises(ValueError, match="needs the category order declared"):
        cohen_kappa(text[:, 0], text[:, 1], weights=weights, n_boot=0)


@SETTINGS
@given(ratings_matrix())
def test_counts_aggregated_from_ratings_are_never_suspected(mk):
    # Counts that fleiss_kappa builds itself are confirmed (n_raters), so no RawRatingsWarning,
    # and the same counts passed back with n_raters give the same kappa.
    import warnings

    from statsmodels.stats.inter_rater import aggregate_raters

    from noisefloor.stats.agreement import RawRatingsWarning, fleiss_kappa_from_counts

    data, k = mk
    with warnings.catch_warnings():
        warnings.simplefilter("error", RawRatingsWarning)
        r = fleiss_kappa(data, categories=range(k), n_boot=0)
        counts, _ = aggregate_raters(data.astype(int), n_cat=k)
        again = fleiss_kappa_from_counts(counts, n_raters=data.shape[1], n_boot=0)
    assert _same(r.value, again.value)
