"""Per-label agreement table, input validation and undefined cases."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from noisefloor.agreement.study import agreement_by_label, majority_label
from noisefloor.logs.annotations import read_annotations
from noisefloor.stats.agreement import (
    RawRatingsWarning,
    cohen_kappa,
    cohen_kappa_from_table,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    krippendorff_alpha,
)

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "agreement"


def _long(rows):
    return pd.DataFrame(rows, columns=["item", "rater", "category", "label"])


def test_tax_fixture_table_matches_direct_calls():
    df = read_annotations(FIX / "tax_annotations.csv")
    table = agreement_by_label(df, judge="judge", n_boot=0)
    frame = table.to_frame()
    assert list(frame["label"].unique()) == ["L1", "L2", "L3", "L4"]
    assert frame.groupby("label").size().tolist() == [3, 3, 3, 3]
    assert table.raters == ("expert_1", "expert_2", "expert_3", "expert_4")
    # Fleiss row of L4 equals a direct call on the 4 experts' wide matrix
    l4 = df[df["category"] == "L4"].pivot(index="item", columns="rater", values="label")
    direct = fleiss_kappa(l4[list(table.raters)].to_numpy(dtype=object), n_boot=0)
    row = frame[(frame.label == "L4") & (frame.metric == "fleiss")].iloc[0]
    assert row["value"] == pytest.approx(direct.value)
    # Cohen row: judge vs majority, ties excluded and counted
    maj = l4[list(table.raters)].sum(axis=1)
    decided = maj != 2
    judge = l4.loc[decided, "judge"]
    majority = (maj[decided] > 2).astype(int)
    ck = cohen_kappa(judge.tolist(), majority.tolist(), n_boot=0)
    crow = frame[(frame.label == "L4") & (frame.metric == "cohen")].iloc[0]
    assert crow["value"] == pytest.approx(ck.value)
    assert crow["n_items"] == int(decided.sum())
    assert f"{int((~decided).sum())} item(s) with a tied majority" in crow["note"]
    assert crow["comparison"] == "judge vs majority of 4"
    # the judge never enters Fleiss or alpha
    assert (frame[frame.metric != "cohen"]["n_raters"] == 4).all()


def test_tax_fixture_reproduces_paper_shape():
    # The synthetic study was generated to mimic the tax paper's section 4 (Fleiss' kappa
    # 0.40-0.69 per stage; judge vs majority 0.67-0.73 on L1-L3, ~0.51 on L4).
    df = read_annotations(FIX / "tax_annotations.csv")
    frame = agreement_by_label(df, judge="judge", metrics=("fleiss", "cohen"), n_boot=0).to_frame()
    fleiss = frame[frame.metric == "fleiss"]["value"]
    assert fleiss.between(0.40, 0.69).all()
    cohen = frame[frame.metric == "cohen"].set_index("label")["value"]
    assert cohen[["L1", "L2", "L3"]].between(0.60, 0.80).all()
    assert cohen["L4"] < cohen[["L1", "L2", "L3"]].min()


def test_table_is_reproducible_with_seed_and_has_summary_keys():
    df = read_annotations(FIX / "tax_annotations.csv")
    df = df[df.category.isin(["L1"])]
    a = agreement_by_label(df, judge="judge", n_boot=200, rng=3).to_frame()
    b = agreement_by_label(df, judge="judge", n_boot=200, rng=3).to_frame()
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns[:9]) == [
        "label", "metric", "value", "ci_low", "ci_high", "n_items", "n_raters",
        "observed_agreement", "reason",
    ]
    assert "landis_koch" in a.columns
    assert (a["ci_low"] <= a["value"]).all() and (a["value"] <= a["ci_high"]).all()


def test_tie_rules():
    cats = [0, 1]
    assert majority_label([0, 0, 1, 1], cats, "exclude") is None
    assert majority_label([0, 0, 1, 1], cats, "lowest") == 0
    assert majority_label([0, 0, 1, 1], cats, "highest") == 1
    assert majority_label(["b", "a", "b"], ["a", "b"], "exclude") == "b"
    with pytest.raises(ValueError, match="tie must be one of"):
        majority_label([0], cats, "coin")


def test_tie_rule_changes_items_compared():
    rows = []
    humans = [(1, 1, 0, 0), (1, 1, 1, 0), (0, 0, 0, 0), (1, 1, 1, 1), (0, 0, 1, 1)]
    judge = [1, 1, 0, 1, 0]
    for i, (labs, j) in enumerate(zip(humans, judge)):
        for r, lab in zip(["a", "b", "c", "d"], labs):
            rows.append((i, r, "L1", lab))
        rows.append((i, "judge", "L1", j))
    df = _long(rows)
    ex = agreement_by_label(df, judge="judge", metrics=("cohen",), n_boot=0).results[0]
    hi = agreement_by_label(df, judge="judge", metrics=("cohen",), tie="highest",
                            n_boot=0).results[0]
    assert ex.n_items == 3 and "2 item(s) with a tied majority" in ex.note
    assert hi.n_items == 5 and hi.note == ""


def test_missing_ratings_fleiss_reason_krippendorff_ok():
    rows = [(i, r, "L1", (i + k) % 2) for i in range(6) for k, r in enumerate("abc")]
    rows = [x for x in rows if not (x[0] == 2 and x[1] == "c")]
    t = agreement_by_label(_long(rows), n_boot=0)
    f = t.to_frame().set_index("metric")
    assert math.isnan(f.loc["fleiss", "value"])
    assert "items ['2']" in f.loc["fleiss", "reason"]
    assert math.isfinite(f.loc["krippendorff", "value"])
    assert math.isnan(f.loc["cohen", "value"]) and "two raters" in f.loc["cohen", "reason"]


def test_two_raters_without_judge_gives_cohen():
    rows = [(i, r, "", lab) for i, (x, y) in enumerate([(1, 1), (0, 0), (1, 0), (0, 0)])
            for r, lab in (("a", x), ("b", y))]
    t = agreement_by_label(_long(rows), metrics=("cohen",), n_boot=0)
    r = t.results[0]
    assert r.label == "all" and r.comparison == "a vs b"
    assert r.value == pytest.approx(cohen_kappa([1, 0, 1, 0], [1, 0, 0, 0], n_boot=0).value)


def test_table_input_errors():
    df = _long([(1, "a", "", 1), (1, "b", "", 1)])
    with pytest.raises(ValueError, match="judge 'zed' is not a rater"):
        agreement_by_label(df, judge="zed")
    with pytest.raises(ValueError, match="at least two human raters"):
        agreement_by_label(df, judge="a")
    with pytest.raises(ValueError, match="metrics must be one of"):
        agreement_by_label(df, metrics=("icc",))
    with pytest.raises(ValueError, match="rated more than once"):
        agreement_by_label(_long([(1, "a", "", 1), (1, "a", "", 0), (1, "b", "", 1)]))
    with pytest.raises(ValueError, match="'label' is missing"):
        agreement_by_label(df.drop(columns="label"))


def test_estimator_input_errors():
    with pytest.raises(ValueError, match="rater_a has 2 labels but rater_b has 3"):
        cohen_kappa([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match=r"rater_b\[1\] is missing"):
        cohen_kappa([1, 2], [1, None])
    with pytest.raises(ValueError, match="not among the declared categories"):
        cohen_kappa([1, 2], [1, 3], categories=[1, 2])
    with pytest.raises(ValueError, match="weights must be one of"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(ValueError, match=r"ratings\[1, 0\] is missing"):
        fleiss_kappa([[1, 1], [None, 1]])
    with pytest.raises(ValueError, match="level must be one of"):
        krippendorff_alpha([[1, 1], [2, 2]], level="nominall")
    with pytest.raises(ValueError, match="needs numeric ratings"):
        krippendorff_alpha([["a", "b"], ["b", "b"]], level="interval")
    with pytest.raises(ValueError, match="no item has at least two ratings"):
        krippendorff_alpha([[1, None], [None, 2]], level="nominal")
    with pytest.raises(TypeError, match="rng must be"):
        cohen_kappa([0, 1], [0, 1], rng="seed")


def test_counts_validation_catches_raw_ratings():
    raw = np.array([[1, 2, 2], [3, 3, 1], [2, 2, 2]])  # item x rater labels, not counts
    expected = r"row 0 sums to 5 but row 1 sums to 7.*fleiss_kappa\(ratings\)"
    with pytest.raises(ValueError, match=expected):
        fleiss_kappa_from_counts(raw)
    with pytest.raises(ValueError, match="row 0, column 1 holds 1.5"):
        fleiss_kappa_from_counts([[1, 1.5], [2, 0.5]])
    with pytest.raises(ValueError, match="at least 2 ratings"):
        fleiss_kappa_from_counts([[1, 0], [0, 1]])


def test_counts_with_text_cells_name_row_and_column():
    # Before: numpy's "could not convert string to float: 'a'", naming neither the cell nor the
    # function to use.
    with pytest.raises(ValueError) as err:
        fleiss_kappa_from_counts([["a", "b", "a"], ["b", "b", "b"]], n_boot=0)
    msg = str(err.value)
    assert "row 0, column 0 holds the text 'a'" in msg and "fleiss_kappa(ratings)" in msg
    frame = pd.DataFrame({"x": [2, 1], "y": [1, "two"]}, index=["p1", "p2"])
    with pytest.raises(ValueError, match=r"row 1 \(item 'p2'\), column 1 \('y'\) holds the text"):
        fleiss_kappa_from_counts(frame, n_boot=0)
    # a text item column read as data: the message says to make it the index
    frame = pd.DataFrame({"patient": ["p1", "p2"], "x": [2, 1], "y": [1, 2]})
    with pytest.raises(ValueError, match=r"make it the index \(e.g. pandas.read_csv\(path, "):
        fleiss_kappa_from_counts(frame, n_boot=0)
    # numeric item ids read as a column: the rows then differ by the id; the message says so
    diagnoses = pd.read_csv(FIX / "fleiss1971_diagnoses_counts.csv")  # index_col forgotten
    with pytest.raises(ValueError, match=r"Without the first column \('patient'\) every row sums "
                                         r"to 6: if it holds item ids, make it the index"):
        fleiss_kappa_from_counts(diagnoses, n_boot=0)
    with pytest.raises(ValueError, match="row 1, column 0 is missing; write 0"):
        fleiss_kappa_from_counts([[1, 2], [None, 3]], n_boot=0)
    with pytest.raises(ValueError, match="row 0, column 1 holds True, which is not a number"):
        fleiss_kappa_from_counts([[1, True], [1, 1]], n_boot=0)
    with pytest.raises(ValueError, match="non-negative integers; row 1, column 0 holds -1.0"):
        fleiss_kappa_from_counts([[2, 1], [-1, 4]], n_boot=0)
    with pytest.raises(ValueError, match="non-negative integers; row 0, column 0 holds inf"):
        fleiss_kappa_from_counts([[np.inf, 1], [1, 1]], n_boot=0)


def test_raw_ratings_with_equal_row_sums_are_flagged():
    # The spec-audit example: codes 1..3 from three raters whose rows happen to sum to 6. As
    # counts (six raters, three categories) it is valid arithmetic: kappa = -0.133.
    raw = [[1, 2, 3], [3, 2, 1], [2, 2, 2]]
    with pytest.warns(RawRatingsWarning, match="look like raw ratings.*fleiss_kappa"):
        r = fleiss_kappa_from_counts(raw, n_boot=0)
    assert r.value == pytest.approx(-2 / 15)  # computed, not refused: it may be a real table
    assert "look like raw ratings" in r.note and "n_raters=6" in r.note
    # the caller confirms a count table: no warning, no note
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        confirmed = fleiss_kappa_from_counts(raw, n_boot=0, n_raters=6)
    assert confirmed.note == "" and confirmed.value == pytest.approx(r.value)
    with pytest.raises(ValueError, match="must sum to n_raters=5; row 0 sums to 6"):
        fleiss_kappa_from_counts(raw, n_boot=0, n_raters=5)
    # the same raw ratings, aggregated by fleiss_kappa, are not suspected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fleiss_kappa(raw, n_boot=0)
        fleiss_kappa([["a", "b", "c"], ["a", "b", "c"], ["a", "a", "c"]], n_boot=0)
    # columns named like raters: an error, unless n_raters confirms the table
    frame = pd.DataFrame(raw, columns=["rater_1", "rater_2", "rater_3"])
    with pytest.raises(ValueError, match=r"named like raters \(rater_1, rater_2, rater_3\)"):
        fleiss_kappa_from_counts(frame, n_boot=0)
    assert math.isfinite(fleiss_kappa_from_counts(frame, n_boot=0, n_raters=6).value)
    from noisefloor.stats.agreement.fleiss.null_test import fleiss_null_test

    with pytest.warns(RawRatingsWarning):
        fleiss_null_test(raw)
    with pytest.raises(ValueError, match="named like raters"):
        fleiss_null_test(pd.DataFrame([[1, 2], [2, 1]], columns=["coder A", "coder B"]))


def test_genuine_count_tables_are_not_flagged():
    # Fleiss (1971) and crowd-style binary counts (no zero, but cells above the column count)
    counts = pd.read_csv(FIX / "fleiss1971_diagnoses_counts.csv", index_col="patient")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fleiss_kappa_from_counts(counts, n_boot=0).note == ""
        fleiss_kappa_from_counts([[7, 3], [6, 4], [9, 1], [2, 8]], n_boot=0)
        fleiss_kappa_from_counts([[0, 1, 2], [3, 0, 0], [1, 1, 1]], n_boot=0)  # a zero


def test_weighted_scale_declared_order_matters():
    # low/high disagreements: two steps apart in the declared order, adjacent alphabetically
    a = ["low", "high", "mid", "low", "high", "mid"]
    b = ["high", "low", "mid", "low", "high", "mid"]
    ordered = cohen_kappa(a, b, weights="linear", categories=["low", "mid", "high"], n_boot=0)
    alpha = cohen_kappa(a, b, weights="linear", categories=["high", "low", "mid"], n_boot=0)
    assert ordered.categories == ("low", "mid", "high")
    assert ordered.category_order == "declared"
    assert ordered.value != pytest.approx(alpha.value)


# The spec-audit example ("for weights the category order is explicit"): two raters
# on a low < mid < high scale.
R1 = ["low", "mid", "high", "low", "mid", "high", "mid"]
R2 = ["mid", "mid", "high", "low", "high", "high", "low"]


def test_weighted_kappa_on_text_labels_needs_a_declared_order():
    # Before: the alphabetical order (high, low, mid) was used silently, giving 0.391.
    with pytest.raises(ValueError) as err:
        cohen_kappa(R1, R2, weights="linear", n_boot=0)
    msg = str(err.value)
    assert "linear-weighted kappa needs the category order declared" in msg
    assert "--categories low,mid,high" in msg and "categories=['low', 'mid', 'high']" in msg
    with pytest.raises(ValueError, match="quadratic-weighted kappa needs the category order"):
        cohen_kappa(R1, R2, weights="quadratic", n_boot=0)
    # By hand (Cohen 1968, linear agreement weights 1, 1/2, 0 on low < mid < high):
    # table rows R1 low/mid/high x cols R2: [[1,1,0],[1,1,1],[0,0,2]], n = 7;
    # p_o = (1+1+2)/7 + 0.5*(1+1+1)/7 = 5.5/7; margins R1 (2,3,2)/7, R2 (2,2,3)/7;
    # p_e = sum w_ij r_i c_j = 27.5/49; kappa = (38.5 - 27.5) / (49 - 27.5) = 11/21.5 = 0.5116.
    # Cross-check: scikit-learn's cohen_kappa_score with labels= in scale order.
    from sklearn.metrics import cohen_kappa_score

    r = cohen_kappa(R1, R2, weights="linear", categories=["low", "mid", "high"], n_boot=0)
    assert r.value == pytest.approx(11 / 21.5, abs=1e-12)
    assert r.value == pytest.approx(
        cohen_kappa_score(R1, R2, weights="linear", labels=["low", "mid", "high"]), abs=1e-12)
    assert round(r.value, 3) == 0.512
    assert r.category_order == "declared"
    # unweighted kappa needs no order
    plain = cohen_kappa(R1, R2, n_boot=0)
    assert plain.category_order == "" and math.isfinite(plain.value)


def test_numeric_labels_keep_their_numeric_order_and_say_so():
    num = {"low": 1, "mid": 2, "high": 3}
    r = cohen_kappa([num[x] for x in R1], [num[x] for x in R2], weights="linear", n_boot=0)
    assert r.categories == (1, 2, 3) and r.category_order == "numeric"
    assert round(r.value, 3) == 0.512  # the same as the declared text scale
    assert r.to_dict()["category_order"] == "numeric"
    assert cohen_kappa_from_table([[1, 1, 0], [1, 1, 1], [0, 0, 2]],
                                  weights="linear").category_order == "table"
    # numbers not read as text: 10 comes after 9, not between 1 and 2
    r10 = cohen_kappa([1, 9, 10], [1, 10, 9], weights="linear", n_boot=0)
    assert r10.categories == (1, 9, 10)


def test_ordinal_alpha_on_text_labels_needs_a_declared_order():
    data = np.array([R1, R2], dtype=object).T
    with pytest.raises(ValueError, match="ordinal alpha needs the category order declared"):
        krippendorff_alpha(data, level="ordinal", n_boot=0)
    text = krippendorff_alpha(data, level="ordinal", categories=["low", "mid", "high"], n_boot=0)
    num = {"low": 1, "mid": 2, "high": 3}
    coded = np.vectorize(num.get, otypes=[object])(data)
    numeric = krippendorff_alpha(coded, level="ordinal", n_boot=0)
    assert text.category_order == "declared" and numeric.category_order == "numeric"
    assert text.value == pytest.approx(numeric.value, abs=1e-12)
    assert krippendorff_alpha(coded, level="interval", n_boot=0).category_order == "numeric"
    nominal = krippendorff_alpha(data, level="nominal", n_boot=0)  # no order needed
    assert nominal.category_order == "" and math.isfinite(nominal.value)


def test_agreement_by_label_names_the_label_that_needs_an_order():
    rows = [(i, r, "stage", lab) for r, labs in (("a", R1), ("b", R2)) for i, lab in enumerate(labs)]
    df = pd.DataFrame(rows, columns=["item", "rater", "category", "label"])
    with pytest.raises(ValueError, match="^linear-weighted Cohen's kappa needs"):
        agreement_by_label(df, weights="linear", n_boot=0)
    two = pd.concat([df, df.assign(category="other", label=[1, 2, 3] * 4 + [1, 2])])
    with pytest.raises(ValueError, match="^label 'stage': linear-weighted Cohen's kappa needs"):
        agreement_by_label(two, weights="linear", n_boot=0)
    with pytest.raises(ValueError, match="ordinal Krippendorff's alpha needs"):
        agreement_by_label(df, level="ordinal", n_boot=0)
    # only the coefficients that use the order ask for it
    plain = agreement_by_label(df, n_boot=0).to_frame()
    assert (plain["category_order"] == "").all()
    t = agreement_by_label(df, weights="linear", level="ordinal", categories=["low", "mid", "high"],
                           n_boot=0).to_frame().set_index("metric")
    assert t.loc["cohen", "value"] == pytest.approx(0.5116, abs=5e-5)
    assert t.loc["cohen", "category_order"] == "declared"
    assert t.loc["krippendorff", "category_order"] == "declared"
    assert t.loc["fleiss", "category_order"] == ""


def test_a_rows_interval_does_not_depend_on_the_other_metrics():
    # One seed fixes the table, and each (label, metric) row has its own bootstrap stream, so
    # asking for fewer metrics (or fewer labels) leaves a row's interval unchanged (at any
    # number of draws: one draw shared between streams would already move it).
    df = read_annotations(FIX / "tax_annotations.csv")
    full = agreement_by_label(df, judge="judge", n_boot=50, rng=7).to_frame()
    only = agreement_by_label(df, judge="judge", metrics=("cohen",), n_boot=50, rng=7).to_frame()
    one = agreement_by_label(df[df["category"] == "L3"], judge="judge", metrics=("cohen",),
                             n_boot=50, rng=7).to_frame()
    a = full[full.metric == "cohen"].set_index("label")[["ci_low", "ci_high"]]
    b = only.set_index("label")[["ci_low", "ci_high"]]
    pd.testing.assert_frame_equal(a, b)
    assert one[["ci_low", "ci_high"]].iloc[0].tolist() == a.loc["L3"].tolist()
    again = agreement_by_label(df, judge="judge", metrics=("cohen",), n_boot=50, rng=7).to_frame()
    pd.testing.assert_frame_equal(only, again)


def test_a_missing_label_is_not_a_category():
    # A blank judge label (NaN) must not become a category: Randolph's kappa among the humans
    # (chance 1/k) would change although their ratings did not.
    rows = []
    for item in range(6):
        for rater in ("h1", "h2", "h3"):
            rows.append((str(item), rater, "L", int(item % 2 == 0 or rater == "h3")))
        rows.append((str(item), "judge", "L", item % 2))
    df = _long(rows)
    before = agreement_by_label(df, judge="judge", metrics=("fleiss",), fleiss_method="randolph",
                                n_boot=0).to_frame()
    df.loc[(df.item == "5") & (df.rater == "judge"), "label"] = float("nan")
    after = agreement_by_label(df, judge="judge", metrics=("fleiss",), fleiss_method="randolph",
                               n_boot=0).to_frame()
    assert after["value"].iloc[0] == pytest.approx(before["value"].iloc[0])


def test_raters_is_a_selection_and_the_rest_is_reported():
    # a (rater a, b, c) study; raters=["a", "b"] is Cohen's kappa of a vs b, c ignored
    rows = [(i, r, lab) for i, labs in enumerate([(1, 1, 0), (0, 0, 0), (1, 0, 1), (1, 1, 1)])
            for r, lab in zip("abc", labs)]
    df = pd.DataFrame(rows, columns=["item", "rater", "label"])
    t = agreement_by_label(df, metrics=("cohen",), raters=["a", "b"], n_boot=0)
    assert t.raters == ("a", "b") and t.ignored == ("c",)
    assert t.to_dict()["ignored"] == ["c"]
    # by hand: a 1,0,1,1 / b 1,0,0,1: po 3/4, pe 3/4*2/4 + 1/4*2/4 = 1/2, kappa 0.5
    assert t.results[0].value == pytest.approx(0.5)
    assert t.results[0].comparison == "a vs b"
    full = agreement_by_label(df, metrics=("fleiss",), n_boot=0)
    assert full.ignored == () and full.raters == ("a", "b", "c")
    with pytest.raises(ValueError, match="chosen more than once"):
        agreement_by_label(df, raters=["a", "a"], n_boot=0)
