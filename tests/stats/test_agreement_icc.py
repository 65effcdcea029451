"""Intraclass correlations: Shrout and Fleiss (1979), pingouin's intraclass_corr, the command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from noisefloor.agreement.study import icc_by_label
from noisefloor.cli.agreement import agreement
from noisefloor.stats.agreement.icc import ICC_FORMS, intraclass_correlation

#: Shrout, P. E. and Fleiss, J. L. (1979), Psychological Bulletin 86(2), 420-428, Table 2:
#: six targets (rows) scored by four judges (columns).
SF = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
               [6, 2, 4, 7]], dtype=float)
#: The six ICCs the paper reports for these data (two decimals).
SF_VALUES = {"ICC(1,1)": 0.17, "ICC(2,1)": 0.29, "ICC(3,1)": 0.71, "ICC(1,k)": 0.44,
             "ICC(2,k)": 0.62, "ICC(3,k)": 0.91}


def test_shrout_fleiss_table_values():
    res = intraclass_correlation(SF)
    assert {e.notation: round(e.value, 2) for e in res.estimates} == SF_VALUES
    assert (res.n_items, res.n_raters, res.n_left_out, res.reason) == (6, 4, 0, "")


def _pingouin(y: np.ndarray) -> pd.DataFrame:
    pg = pytest.importorskip("pingouin")
    n, k = y.shape
    long = pd.DataFrame({"t": np.repeat(np.arange(n), k), "r": np.tile(np.arange(k), n),
                         "s": y.ravel()})
    return pg.intraclass_corr(data=long, targets="t", raters="r", ratings="s")


def _check_against_pingouin(y: np.ndarray) -> None:
    ours = intraclass_correlation(y).to_frame()
    ref = _pingouin(y)
    # rows in the same order (ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k); pingouin names the
    # columns ICC, F, df1, df2, pval and the 95% interval CI95% (CI95 since 0.6), rounded to 2
    np.testing.assert_allclose(ours["value"], ref["ICC"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours["f"], ref["F"], rtol=1e-9)
    np.testing.assert_allclose(ours["df1"], ref["df1"])
    np.testing.assert_allclose(ours["df2"], ref["df2"])
    np.testing.assert_allclose(ours["p_value"], ref["pval"], rtol=1e-7, atol=1e-300)
    ci = np.array([list(c) for c in ref["CI95" if "CI95" in ref else "CI95%"]])
    np.testing.assert_allclose(ours["ci_low"].round(2), ci[:, 0], atol=1e-9)
    np.testing.assert_allclose(ours["ci_high"].round(2), ci[:, 1], atol=1e-9)


def test_every_column_matches_pingouin_on_the_shrout_fleiss_data():
    _check_against_pingouin(SF)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(3, 12), k=st.integers(2, 6), seed=st.integers(0, 2**31 - 1))
def test_every_column_matches_pingouin_on_random_scores(n, k, seed):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(n, 1)) + rng.normal(size=(1, k)) * 0.5 + rng.normal(size=(n, k))
    _check_against_pingouin(np.round(y * 3 + 5, 1))


def test_the_interval_follows_the_confidence_level():
    # 90%: ICC(3,1) and ICC(1,1) by the formulas of Shrout and Fleiss (1979), p. 425, written
    # out here from the F quantiles (F_L = F / F_{1-a/2}(df1, df2), bound (F_L - 1)/(F_L + k - 1))
    n, k, q = 6, 4, 0.95
    res = intraclass_correlation(SF, confidence=0.90)
    for notation, df2 in (("ICC(3,1)", (n - 1) * (k - 1)), ("ICC(1,1)", n * (k - 1))):
        e = res[notation]
        fl, fu = e.f / sps.f.ppf(q, n - 1, df2), e.f * sps.f.ppf(q, df2, n - 1)
        assert e.ci_low == pytest.approx((fl - 1) / (fl + k - 1), rel=1e-12)
        assert e.ci_high == pytest.approx((fu - 1) / (fu + k - 1), rel=1e-12)
    # nested: 90% inside 95% inside 99%, every form; the value inside all of them
    cis = [intraclass_correlation(SF, confidence=c).to_frame() for c in (0.90, 0.95, 0.99)]
    for narrow, wide in zip(cis, cis[1:]):
        assert (wide["ci_low"] < narrow["ci_low"]).all()
        assert (narrow["ci_high"] < wide["ci_high"]).all()
    assert (cis[0]["ci_low"] < cis[0]["value"]).all() and (cis[0]["value"] < cis[0]["ci_high"]).all()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), shift=st.floats(0.5, 5))
@example(seed=31002244, shift=1.0)
def test_a_rater_offset_moves_absolute_agreement_towards_zero_only(seed, shift):
    # Consistency (form 3) ignores a constant added to one rater's scores. Absolute agreement
    # (form 2) is (MSR - MSE) / (MSR + (k-1) MSE + k (MSC - MSE) / n): the offset raises only the
    # rater mean square MSC (zero before: the raters had the same mean), so the denominator grows
    # and ICC(2,1) moves towards zero with its sign kept (it drops when positive, rises when
    # negative, as with seed 31002244 and shift 1.0).
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(8, 1)) * 2 + rng.normal(size=(8, 3))
    y -= y.mean(axis=0)
    moved = y.copy()
    moved[:, 0] += shift
    before, after = intraclass_correlation(y), intraclass_correlation(moved)
    assert after["ICC3"].value == pytest.approx(before["ICC3"].value, abs=1e-9)
    b, a = before["ICC2"].value, after["ICC2"].value
    assert abs(a) < abs(b)
    assert np.sign(a) == np.sign(b)


def test_incomplete_items_are_left_out_and_counted():
    y = np.vstack([SF, [[5, np.nan, 3, 4]]])
    res = intraclass_correlation(y)
    assert res.n_left_out == 1 and res.n_items == 6
    assert res["ICC2"].value == intraclass_correlation(SF)["ICC2"].value


@pytest.mark.parametrize("y, why", [
    (np.full((5, 3), 4.0), "do not vary"),
    (SF[:1], "at least two items"),
    (SF[:, :1], "two raters"),
])
def test_undefined_is_nan_with_a_reason(y, why):
    res = intraclass_correlation(y)
    assert why in res.reason
    assert all(math.isnan(e.value) and math.isnan(e.ci_low) for e in res.estimates)
    assert [e.form for e in res.estimates] == [f for f, _, _ in ICC_FORMS]


def test_bad_input():
    with pytest.raises(ValueError, match="numeric scores"):
        intraclass_correlation([["a", "b"], ["c", "d"]])
    with pytest.raises(ValueError, match="2-D"):
        intraclass_correlation([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        intraclass_correlation(SF, confidence=1.0)


def _long(y: np.ndarray, category: str | None = None) -> pd.DataFrame:
    rows = [(i, f"j{j}", v) for i, row in enumerate(y) for j, v in enumerate(row)]
    df = pd.DataFrame(rows, columns=["item", "rater", "label"])
    return df.assign(category=category) if category else df


def test_icc_by_label_per_question_and_judge_last():
    df = pd.concat([_long(SF, "L1"), _long(SF[:, ::-1], "L2")], ignore_index=True)
    t = icc_by_label(df, judge="j0")
    assert t.raters == ("j1", "j2", "j3", "j0") and t.judge == "j0"
    frame = t.to_frame()
    assert list(frame["label"].unique()) == ["L1", "L2"]
    # the ICC does not depend on the order of the raters
    l1, l2 = (frame[frame["label"] == lab]["value"].to_numpy() for lab in ("L1", "L2"))
    np.testing.assert_allclose(l1, l2, rtol=1e-12)
    assert t.to_dict()["results"][0]["label"] == "L1"


def test_icc_by_label_names_a_score_that_is_not_a_number():
    df = _long(SF).astype({"label": object})
    df.loc[5, "label"] = "high"
    with pytest.raises(ValueError, match=r"item '1', rater 'j1': score 'high' is not a number"):
        icc_by_label(df)


def test_command():
    # the fixture is Table 2 of Shrout and Fleiss (1979) in the wide layout
    path = Path(__file__).resolve().parents[2] / "fixtures" / "agreement" / "shrout_fleiss1979_scores.csv"
    assert np.array_equal(pd.read_csv(path).drop(columns="item").to_numpy(dtype=float), SF)
    run = CliRunner().invoke(agreement, [str(path), "--metric", "icc"])
    assert run.exit_code == 0, run.output
    line = next(x for x in run.output.splitlines() if "ICC(2,1)" in x)
    assert line.split()[:3] == ["all", "ICC(2,1)", "0.290"]
    assert "[0.019, 0.761]" in line and "95% CI" in run.output
    rows = json.loads(CliRunner().invoke(
        agreement, [str(path), "--metric", "icc", "--json", "--confidence", "0.9"]).output)["rows"]
    assert [r["notation"] for r in rows] == list(SF_VALUES)
    assert rows[0]["confidence"] == 0.9 and rows[0]["reason"] == ""
    bad = CliRunner().invoke(agreement, [str(path), "--metric", "icc", "--plot", "x.png"])
    assert bad.exit_code == 2 and "--plot and --html" in bad.output
