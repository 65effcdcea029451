"""Agreement estimators pinned to published reference values (source beside each assertion)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from noisefloor.stats.agreement import (
    cohen_kappa,
    cohen_kappa_from_table,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    krippendorff_alpha,
    landis_koch,
)

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "agreement"


def _diagnoses_counts() -> pd.DataFrame:
    return pd.read_csv(FIX / "fleiss1971_diagnoses_counts.csv", index_col="patient")


def _counts_to_ratings(counts: pd.DataFrame) -> list[list[str]]:
    return [[c for c in counts.columns for _ in range(int(row[c]))] for _, row in counts.iterrows()]


# --- Fleiss (1971), Psychological Bulletin 76(5):378-382, Table 1: 30 patients, 6 raters,
# 5 diagnoses. Same data as R irr::diagnoses; irr::kappam.fleiss(diagnoses) prints Kappa = 0.430.


def test_fleiss_1971_table_shape_and_marginals():
    counts = _diagnoses_counts()
    assert counts.shape == (30, 5)
    assert (counts.sum(axis=1) == 6).all()
    # Fleiss (1971) p_j: column totals 26, 26, 30, 55, 43 of 180 ratings.
    assert counts.sum().tolist() == [26, 26, 30, 55, 43]


def test_fleiss_1971_kappa_from_counts():
    r = fleiss_kappa_from_counts(_diagnoses_counts(), n_boot=0)
    assert r.value == pytest.approx(0.430, abs=5e-4)  # Fleiss (1971): kappa = .430
    assert r.observed_agreement == pytest.approx(0.556, abs=5e-4)  # Fleiss (1971): P-bar = .556
    assert r.expected_agreement == pytest.approx(0.220, abs=5e-4)  # Fleiss (1971): P-bar_e = .220
    assert r.n_items == 30 and r.n_raters == 6


def test_fleiss_1971_per_category():
    # R: irr::kappam.fleiss(diagnoses, detail = TRUE): 0.245, 0.245, 0.520, 0.471, 0.566
    r = fleiss_kappa_from_counts(_diagnoses_counts(), n_boot=0)
    got = [k for _, k in r.per_category]
    assert got == pytest.approx([0.245, 0.245, 0.520, 0.471, 0.566], abs=5e-4)
    assert list(r.per_category_frame()["category"])[0] == "depression"


def test_fleiss_1971_from_raw_ratings_matches_counts():
    counts = _diagnoses_counts()
    r = fleiss_kappa(_counts_to_ratings(counts), categories=list(counts.columns), n_boot=0)
    assert r.value == pytest.approx(0.430, abs=5e-4)  # Fleiss (1971)


def test_randolph_free_marginal_on_fleiss_1971():
    # Randolph (2005): kappa_free = (P_o - 1/k) / (1 - 1/k); with Fleiss' (1971) P-bar = 5/9 and
    # k = 5: (5/9 - 1/5) / (4/5) = 4/9.
    r = fleiss_kappa_from_counts(_diagnoses_counts(), method="randolph", n_boot=0)
    assert r.metric == "randolph"
    assert r.value == pytest.approx(4 / 9, abs=1e-12)


def test_fleiss_bootstrap_interval_is_seeded():
    a = fleiss_kappa_from_counts(_diagnoses_counts(), n_boot=400, rng=7)
    b = fleiss_kappa_from_counts(_diagnoses_counts(), n_boot=400, rng=7)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert a.ci_low < a.value < a.ci_high
    assert a.n_boot == 400


# --- Cohen's kappa


def test_cohen_two_by_two_fifty_proposals():
    # Fifty grant proposals, two readers: yes/yes 20, yes/no 5, no/yes 10, no/no 15;
    # p_o = 0.70, p_e = 0.50, kappa = 0.40 (the standard worked example, e.g. Wikipedia
    # "Cohen's kappa", Example).
    r = cohen_kappa_from_table([[20, 5], [10, 15]])
    assert r.value == pytest.approx(0.40, abs=1e-12)
    assert r.observed_agreement == pytest.approx(0.70)
    assert r.expected_agreement == pytest.approx(0.50)
    # same numbers from raw labels
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    raw = cohen_kappa(a, b, n_boot=300, rng=1)
    assert raw.value == pytest.approx(0.40, abs=1e-12)
    assert raw.ci_low < 0.40 < raw.ci_high


SAS_TABLE = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]


def test_cohen_sas_three_category_table():
    # SAS/STAT PROC FREQ documentation (AGREE), the 3x3 table [[0,4,1],[0,8,0],[0,1,5]]:
    # simple kappa 0.4842, weighted (Cicchetti-Allison = linear) kappa 0.4701.
    assert cohen_kappa_from_table(SAS_TABLE).value == pytest.approx(0.4842, abs=5e-5)
    lin = cohen_kappa_from_table(SAS_TABLE, weights="linear")
    assert lin.value == pytest.approx(0.4701, abs=5e-5)
    # The asymptotic interval is value -/+ 1.96 se
    assert lin.asymptotic_ci_low < lin.value < lin.asymptotic_ci_high
    assert lin.asymptotic_ci_high - lin.value == pytest.approx(1.959964 * lin.se, rel=1e-6)


def test_cohen_sas_table_from_raw_with_unused_category():
    # The first category is never used by rater B (column of zeros): the table must stay 3x3.
    a, b = [], []
    for i, row in enumerate(SAS_TABLE):
        for j, n in enumerate(row):
            a += [i] * n
            b += [j] * n
    r = cohen_kappa(a, b, weights="linear", n_boot=0)
    assert r.categories == (0, 1, 2)
    assert r.value == pytest.approx(0.4701, abs=5e-5)  # SAS PROC FREQ, as above


def _anxiety() -> pd.DataFrame:
    return pd.read_csv(FIX / "irr_anxiety.csv", index_col="subject")


def test_cohen_irr_anxiety_weighted():
    # R: irr::kappa2(anxiety[, 2:3], "equal") -> Kappa = 0.146 (0.1459);
    #    irr::kappa2(anxiety[, 2:3], "squared") -> Kappa = 0.252 (0.2520).
    # irr builds the scale from the levels observed (1, 2, 3, 4, 6: nobody used 5), which is
    # also our default.
    anx = _anxiety()
    assert anx.shape == (20, 3)
    lin = cohen_kappa(anx["rater2"], anx["rater3"], weights="linear", n_boot=0)
    quad = cohen_kappa(anx["rater2"], anx["rater3"], weights="quadratic", n_boot=0)
    assert lin.categories == (1, 2, 3, 4, 6)
    assert lin.value == pytest.approx(0.1459, abs=5e-5)
    assert quad.value == pytest.approx(0.2520, abs=5e-5)


def test_cohen_declared_scale_changes_weighted_kappa():
    # Declaring the full 1..6 scale puts 6 two steps from 4; the weighted kappa then differs
    # from irr's observed-levels value. Cross-check against scikit-learn with labels= given.
    from sklearn.metrics import cohen_kappa_score

    anx = _anxiety()
    full = cohen_kappa(anx["rater2"], anx["rater3"], weights="linear", categories=range(1, 7),
                       n_boot=0)
    ref = cohen_kappa_score(anx["rater2"], anx["rater3"], weights="linear",
                            labels=list(range(1, 7)))
    assert full.value == pytest.approx(ref, abs=1e-12)
    assert abs(full.value - 0.1459) > 0.01


def test_cohen_unweighted_matches_sklearn():
    anx = _anxiety()
    from sklearn.metrics import cohen_kappa_score

    r = cohen_kappa(anx["rater1"], anx["rater2"], n_boot=0)
    assert r.value == pytest.approx(cohen_kappa_score(anx["rater1"], anx["rater2"]), abs=1e-12)


# --- Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers
# x 12 units with missing values: nominal .743, ordinal .815, interval .849, ratio .797.


@pytest.mark.parametrize(
    "level, expected",
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_example(level, expected):
    data = pd.read_csv(FIX / "krippendorff2011_reliability.csv", index_col="unit")
    assert data.shape == (12, 4)
    ratings = data.astype(object).where(data.notna(), None).to_numpy()
    r = krippendorff_alpha(ratings, level=level, n_boot=0)
    assert r.value == pytest.approx(expected, abs=5e-4)  # Krippendorff (2011)
    assert r.n_items == 11  # unit 12 has a single value: not pairable
    assert "1 item(s)" in r.note


def test_krippendorff_2011_coincidence_agreement():
    # Krippendorff (2011), nominal data: alpha = 1 - D_o / D_e with D_o, D_e read off the
    # coincidence matrix; our descriptive observed/expected agreement come from that matrix.
    data = pd.read_csv(FIX / "krippendorff2011_reliability.csv", index_col="unit")
    ratings = data.astype(object).where(data.notna(), None).to_numpy()
    r = krippendorff_alpha(ratings, level="nominal", n_boot=0)
    # alpha = 1 - D_o / D_e, with D_o = 1 - observed, D_e = 1 - expected (nominal)
    assert 1 - (1 - r.observed_agreement) / (1 - r.expected_agreement) == pytest.approx(r.value)


def test_landis_koch_bands():
    # Landis and Koch (1977), Biometrics 33:159-174, p. 165.
    assert [landis_koch(x) for x in (-0.2, 0.1, 0.3, 0.5, 0.7, 0.9, math.nan)] == [
        "poor", "slight", "fair", "moderate", "substantial", "almost perfect", "undefined"
    ]
