"""Fleiss' kappa z-test: standard error under H0 (Fleiss, Nee & Landis 1979), pinned to published
output, checked by hand on a tiny table, by simulation under H0, and by Hypothesis properties."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from noisefloor.agreement.study import agreement_by_label
from noisefloor.stats.agreement import fleiss_kappa, fleiss_kappa_from_counts
from noisefloor.stats.agreement.fleiss.null_test import fleiss_null_test

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "agreement"


def _diagnoses_counts() -> pd.DataFrame:
    return pd.read_csv(FIX / "fleiss1971_diagnoses_counts.csv", index_col="patient")


# --- R irr, the diagnoses data of Fleiss (1971): 30 patients, 6 raters, 5 diagnoses.


def test_irr_kappam_fleiss_diagnoses_z():
    # R irr documentation, kappam.fleiss(diagnoses) prints
    #   "Subjects = 30, Raters = 6, Kappa = 0.43, z = 17.7, p-value = 0".
    r = fleiss_kappa_from_counts(_diagnoses_counts(), n_boot=0)
    assert round(r.value, 2) == 0.43
    assert round(r.z, 1) == 17.7
    # irr computes 2 * (1 - pnorm(|z|)), which is exactly 0 in double precision once the upper
    # tail is below ~1.1e-16; we report the tail itself (positive, far below that).
    assert 0.0 < r.p_value < 1.1e-16
    assert r.alternative == "two-sided"
    assert r.se_null == pytest.approx(r.value / r.z)
    # the null SE is no interval: the asymptotic CI fields stay NaN, the bootstrap is the CI
    assert math.isnan(r.asymptotic_ci_low) and math.isnan(r.se)


def test_irr_diagnoses_from_raw_ratings_same_test():
    counts = _diagnoses_counts()
    ratings = [[c for c in counts.columns for _ in range(int(row[c]))]
               for _, row in counts.iterrows()]
    raw = fleiss_kappa(ratings, categories=list(counts.columns), n_boot=0)
    assert round(raw.z, 1) == 17.7  # R irr: kappam.fleiss(diagnoses), z = 17.7


def test_irr_diagnoses_per_category_se():
    # R irr 0.84.1 source, kappam.fleiss.R (detail = TRUE): varkappaK <- 2/(ns*nr*(nr-1)), the
    # same for every category (Fleiss, Nee & Landis 1979). With ns = 30, nr = 6:
    # 2 / (30 * 6 * 5) = 1/450. No published per-category z for this table was found, so the
    # z values are checked against the kappas irr prints (0.245 ... 0.566, pinned in
    # test_agreement_reference.py) divided by sqrt(1/450).
    r = fleiss_kappa_from_counts(_diagnoses_counts(), n_boot=0)
    frame = r.per_category_frame()
    assert list(frame.columns) == ["category", "kappa", "se_null", "z", "p_value"]
    assert frame["se_null"].to_numpy() == pytest.approx(np.full(5, math.sqrt(1 / 450)))
    assert frame["kappa"].to_numpy() == pytest.approx([0.245, 0.245, 0.520, 0.471, 0.566],
                                                      abs=5e-4)
    assert frame["z"].to_numpy() == pytest.approx(frame["kappa"] / math.sqrt(1 / 450))
    assert (frame["p_value"] < 1e-6).all()


# --- Cardillo, G. (2007). Fleiss'es kappa. MATLAB Central File Exchange 15426, fleiss.m: the
# help text's worked example, the 10 patients x 14 psychiatrists x 5 diagnoses table (also the
# worked example of Wikipedia's "Fleiss' kappa" article, kappa = 0.210). fleiss.m uses the
# Fleiss, Nee & Landis (1979) variances and prints, to four decimals:
#   kj: 0.2013 0.0797 0.1716 0.0304 0.5077;  s.e.: 0.0331
#   z:  6.0719 2.4034 5.1764 0.9165 15.3141; p: 0.0000 0.0162 0.0000 0.3594 0
#   Fleiss'es (overall) kappa = 0.2099, kappa error = 0.0170, z = 12.3743, p = 0.0000

CARDILLO = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def test_cardillo_fleiss_m_overall():
    r = fleiss_kappa_from_counts(CARDILLO, n_boot=0)
    assert r.value == pytest.approx(0.2099, abs=5e-5)  # Cardillo (2007): kappa = 0.2099
    assert r.se_null == pytest.approx(0.0170, abs=5e-5)  # Cardillo (2007): kappa error = 0.0170
    assert r.z == pytest.approx(12.3743, abs=5e-5)  # Cardillo (2007): z = 12.3743
    assert r.p_value < 5e-5  # Cardillo (2007): p = 0.0000


def test_cardillo_fleiss_m_per_category():
    frame = fleiss_kappa_from_counts(CARDILLO, n_boot=0).per_category_frame()
    # Cardillo (2007), fleiss.m example output
    assert frame["kappa"].to_numpy() == pytest.approx(
        [0.2013, 0.0797, 0.1716, 0.0304, 0.5077], abs=5e-5)
    assert frame["se_null"].to_numpy() == pytest.approx(np.full(5, 0.0331), abs=5e-5)
    assert frame["z"].to_numpy() == pytest.approx(
        [6.0719, 2.4034, 5.1764, 0.9165, 15.3141], abs=5e-5)
    assert frame["p_value"].to_numpy() == pytest.approx(
        [0.0000, 0.0162, 0.0000, 0.3594, 0.0], abs=5e-5)


# --- An independent hand computation on a table small enough to do on paper.


def test_hand_computed_tiny_table():
    # 5 items, m = 2 raters, 3 categories a, b, c:
    #   item 1: a a   item 2: a a   item 3: a b   item 4: b c   item 5: c c
    # column totals 5, 2, 3 of N m = 10 ratings -> p = (.5, .2, .3), q = (.5, .8, .7)
    # p q = (.25, .16, .21), sum = .62;  p q (q - p) = (0, .096, .084), sum = .18
    # P_i = (1, 1, 0, 0, 1) -> P-bar = 3/5;  P_e = .25 + .04 + .09 = .38
    # kappa = (.6 - .38) / (1 - .38) = 11/31
    # Var0 = 2 / (N m (m-1)) * ((sum pq)^2 - sum pq(q-p)) / (sum pq)^2
    #      = 2/10 * (.3844 - .18) / .3844 = 511/4805
    # category-wise: kappa_j = 1 - sum_i n_ij (m - n_ij) / (N m (m-1) p_j q_j)
    #   a: 1 - 1/2.5 = 0.6;  b: 1 - 2/1.6 = -0.25;  c: 1 - 1/2.1 = 11/21
    #   Var0(kappa_j) = 2 / (N m (m-1)) = 1/5 for every j
    counts = [[2, 0, 0], [2, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 2]]
    t = fleiss_null_test(counts, categories=["a", "b", "c"])
    assert t.kappa == pytest.approx(11 / 31, abs=1e-12)
    assert t.se_null == pytest.approx(math.sqrt(511 / 4805), abs=1e-12)
    assert t.z == pytest.approx((11 / 31) / math.sqrt(511 / 4805), abs=1e-12)
    assert t.p_value == pytest.approx(2 * stats.norm.sf(t.z), abs=1e-12)
    frame = t.per_category_frame()
    assert list(frame["category"]) == ["a", "b", "c"]
    assert frame["kappa"].to_numpy() == pytest.approx([0.6, -0.25, 11 / 21], abs=1e-12)
    assert frame["se_null"].to_numpy() == pytest.approx(np.full(3, math.sqrt(1 / 5)))
    assert frame["z"].to_numpy() == pytest.approx(
        np.array([0.6, -0.25, 11 / 21]) * math.sqrt(5), abs=1e-12)
    # the same numbers through the public estimator
    r = fleiss_kappa_from_counts(counts, categories=["a", "b", "c"], n_boot=0)
    assert r.value == pytest.approx(11 / 31, abs=1e-12)
    assert (r.se_null, r.z, r.p_value) == pytest.approx((t.se_null, t.z, t.p_value))
    assert r.to_dict()["per_category_null"]["b"]["z"] == pytest.approx(-0.25 * math.sqrt(5))


def test_alternatives():
    counts = [[2, 0, 0], [2, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 2]]
    two = fleiss_null_test(counts)
    greater = fleiss_null_test(counts, alternative="greater")
    less = fleiss_null_test(counts, alternative="less")
    assert greater.p_value == pytest.approx(stats.norm.sf(two.z))
    assert less.p_value == pytest.approx(1 - greater.p_value)
    assert two.p_value == pytest.approx(2 * min(greater.p_value, less.p_value))
    assert greater.se_null == two.se_null and greater.z == two.z
    b_greater = greater.per_category_frame().set_index("category").loc[1, "p_value"]
    assert b_greater == pytest.approx(stats.norm.sf(-0.25 * math.sqrt(5)))  # kappa_b < 0
    r = fleiss_kappa_from_counts(counts, alternative="greater", n_boot=0)
    assert r.alternative == "greater" and r.p_value == pytest.approx(greater.p_value)


def test_bad_input_errors():
    with pytest.raises(ValueError, match=r"alternative must be one of .*'greater'.*got 'bigger'"):
        fleiss_kappa_from_counts([[2, 0], [0, 2]], alternative="bigger")
    with pytest.raises(ValueError, match="alternative"):
        fleiss_null_test([[2, 0], [0, 2]], alternative="one-sided")
    with pytest.raises(ValueError, match="row 0 sums to 2 but row 1 sums to 3"):
        fleiss_null_test([[2, 0], [1, 2]])
    with pytest.raises(ValueError, match="row 1, column 0 holds -1.0"):
        fleiss_null_test([[2, 0], [-1, 3]])
    with pytest.raises(ValueError, match="at least 2 ratings"):
        fleiss_null_test([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="categories has 3 names but counts has 2 columns"):
        fleiss_null_test([[2, 0], [0, 2]], categories=["a", "b", "c"])


def test_undefined_and_randolph_give_nan_not_zero():
    t = fleiss_null_test([[3, 0], [3, 0]], categories=["x", "y"])
    assert math.isnan(t.kappa) and math.isnan(t.se_null) and math.isnan(t.p_value)
    assert "every rating is 'x'" in t.reason
    assert t.per_category_frame()[["kappa", "se_null", "z", "p_value"]].isna().all().all()
    r = fleiss_kappa([["x"] * 3] * 4, n_boot=0)
    assert math.isnan(r.z) and math.isnan(r.se_null) and "undefined" in r.reason
    # Randolph's free-marginal kappa has no z-test here (the 1979 variance is Fleiss' kappa's)
    rand = fleiss_kappa_from_counts(_diagnoses_counts(), method="randolph", n_boot=0)
    assert math.isnan(rand.se_null) and math.isnan(rand.z) and rand.alternative == ""
    # a category that nobody used has no kappa and no test
    unused = fleiss_null_test([[2, 0, 0], [0, 2, 0], [1, 1, 0]])
    assert unused.per_category_frame().iloc[2, 1:].isna().all()
    assert math.isfinite(unused.z)


def test_table_and_frames_carry_the_test():
    rows = [(i, r, lab) for i, labs in enumerate([(1, 1, 1), (0, 0, 0), (1, 1, 0), (0, 0, 0),
                                                   (1, 1, 1), (0, 1, 0)])
            for r, lab in zip("abc", labs)]
    df = pd.DataFrame(rows, columns=["item", "rater", "label"])
    frame = agreement_by_label(df, metrics=["fleiss", "krippendorff"], n_boot=0).to_frame()
    fl = frame[frame["metric"] == "fleiss"].iloc[0]
    assert fl["z"] == pytest.approx(fl["value"] / fl["se_null"])
    assert 0 < fl["p_value"] < 1
    kr = frame[frame["metric"] == "krippendorff"].iloc[0]
    assert math.isnan(kr["z"]) and math.isnan(kr["se_null"])


# --- The SE is a null SE: under H0 (raters independent of the item) kappa / se_null ~ N(0, 1).


def _kappas_and_z(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised over the leading axis: overall z, category-wise kappas and their z."""
    n_items, m = counts.shape[1], counts[0, 0].sum()
    scale = n_items * m * (m - 1)
    p = counts.sum(axis=1) / (n_items * m)
    pq = p * (1 - p)
    kj = 1 - (counts * (m - counts)).sum(axis=1) / (scale * pq)
    kappa = (pq * kj).sum(axis=1) / pq.sum(axis=1)
    total = pq.sum(axis=1)
    se = np.sqrt(2 / scale * (total**2 - (pq * (1 - 2 * p)).sum(axis=1)) / total**2)
    return kappa / se, kj, kj / math.sqrt(2 / scale)


def test_null_distribution_by_simulation():
    # 4000 studies of 100 items x 5 raters who pick categories with probabilities .5/.3/.2
    # regardless of the item (kappa = 0). z should be close to standard normal.
    rng = np.random.default_rng(20261130)
    sims = rng.multinomial(5, [0.5, 0.3, 0.2], size=(4000, 100))
    z, _, zj = _kappas_and_z(sims)
    # the vectorised helper agrees with the library on a few of them
    for s in range(3):
        t = fleiss_null_test(sims[s])
        assert t.z == pytest.approx(z[s])
        assert t.per_category_frame()["z"].to_numpy() == pytest.approx(zj[s])
    assert np.std(z) == pytest.approx(1.0, abs=0.05)
    assert np.mean(np.abs(z) > 1.959964) == pytest.approx(0.05, abs=0.012)
    assert np.std(zj, axis=0) == pytest.approx(np.ones(3), abs=0.05)


# --- Hypothesis properties: invariances and the sign of z.

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def ratings_matrix(draw):
    n_items = draw(st.integers(3, 20))
    n_raters = draw(st.integers(2, 5))
    k = draw(st.integers(2, 4))
    cells = draw(st.lists(st.integers(0, k - 1), min_size=n_items * n_raters,
                          max_size=n_items * n_raters))
    return np.array(cells, dtype=object).reshape(n_items, n_raters), k


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-9)


@SETTINGS
@given(ratings_matrix(), st.randoms(use_true_random=False))
def test_test_invariant_to_items_raters_and_labels(mk, rnd):
    data, k = mk
    rows, cols = list(range(data.shape[0])), list(range(data.shape[1]))
    rnd.shuffle(rows)
    rnd.shuffle(cols)
    names = [f"c{i}" for i in range(k)]
    rnd.shuffle(names)
    base = fleiss_kappa(data, categories=list(range(k)), n_boot=0)
    perm = fleiss_kappa(data[rows][:, cols], categories=list(range(k)), n_boot=0)
    relabelled = fleiss_kappa(np.vectorize(lambda x: names[x], otypes=[object])(data),
                              categories=names, n_boot=0)
    for other in (perm, relabelled):
        for field in ("se_null", "z", "p_value"):
            assert _same(getattr(base, field), getattr(other, field)), field
    # per category: the same category (under its new name) has the same test
    by_name = {c: (se, z, p) for c, se, z, p in relabelled.per_category_null}
    for c, se, z, p in base.per_category_null:
        se2, z2, p2 = by_name[names[c]]
        assert _same(se, se2) and _same(z, z2) and _same(p, p2)
    for (c, se, z, p), (c2, se2, z2, p2) in zip(base.per_category_null, perm.per_category_null):
        assert c == c2 and _same(se, se2) and _same(z, z2) and _same(p, p2)


@SETTINGS
@given(ratings_matrix(), st.sampled_from(["two-sided", "greater", "less"]))
def test_z_has_the_sign_of_kappa(mk, alternative):
    data, _ = mk
    r = fleiss_kappa(data, n_boot=0, alternative=alternative)
    if math.isnan(r.value):
        assert math.isnan(r.z) and r.reason
        return
    assert r.se_null > 0
    if abs(r.value) > 1e-12:
        assert np.sign(r.z) == np.sign(r.value)
    assert 0.0 <= r.p_value <= 1.0
    frame = r.per_category_frame()
    for kappa_j, se_j, z_j in frame[["kappa", "se_null", "z"]].itertuples(index=False):
        if math.isnan(kappa_j):
            assert math.isnan(z_j)
            continue
        assert se_j > 0
        if abs(kappa_j) > 1e-12:
            assert np.sign(z_j) == np.sign(kappa_j)


def test_randolph_says_why_it_has_no_null_test():
    # se_null, z, p_value NaN for Randolph's kappa came with an empty reason
    from noisefloor.stats.agreement import RANDOLPH_NULL_REASON

    rand = fleiss_kappa_from_counts(_diagnoses_counts(), method="randolph", n_boot=0)
    assert math.isfinite(rand.value) and rand.reason == ""  # the coefficient itself is defined
    assert math.isnan(rand.p_value)
    assert rand.null_reason == RANDOLPH_NULL_REASON
    assert "Fleiss, Nee and Landis" in rand.null_reason and "Randolph" in rand.null_reason
    assert rand.to_dict()["null_reason"] == RANDOLPH_NULL_REASON
    assert rand.to_frame().loc[0, "null_reason"] == RANDOLPH_NULL_REASON
    # the bootstrap keeps it; Fleiss' kappa has its test and no null_reason
    booted = fleiss_kappa_from_counts(_diagnoses_counts(), method="randolph", n_boot=50, rng=1)
    assert booted.null_reason == RANDOLPH_NULL_REASON
    fleiss = fleiss_kappa_from_counts(_diagnoses_counts(), n_boot=0)
    assert math.isfinite(fleiss.z) and fleiss.null_reason == ""
