"""Audit verdicts, pinned to the noise-floor paper's reading of ten published claims."""

import math

import pandas as pd
import pytest

from noisefloor.audit.published import read_claims, read_paired_counts
from noisefloor.audit.verdicts import audit, place
from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.floor.estimate import noise_floor


@pytest.fixture(scope="module")
def result():
    nf = noise_floor(null_contrasts_from_counts(read_paired_counts()))
    return audit(read_claims(), nf)


def test_ten_claims_seven_below_one_inside_two_above(result):
    # Kaliyev & Maryanskyy (2026): "Seven fall below the clean-contrast pooled upper CI; one
    # more sits inside the envelope" (and two above).
    assert result.counts == {"below": 7, "inside": 1, "above": 2}
    verdicts = {(v.paper, v.benchmark): v.verdict for v in result.verdicts}
    assert verdicts[("Ou et al. (2025)", "TravelPlanner orchestrator+notebook")] == "inside"
    assert verdicts[("Reflexion (2023)", "ALFWorld")] == "above"
    assert verdicts[("Ou et al. (2025)", "TravelPlanner combined")] == "above"


def test_range_uses_upper_end_and_units_flagged(result):
    by = {v.paper: v for v in result.verdicts}
    assert by["Terrarium (2025)"].effect == pytest.approx(0.027)
    assert by["MetaGPT (2024)"].effect == pytest.approx(0.10) and math.isnan(by["MetaGPT (2024)"].effect_low)
    assert not by["CA-MCP (2026)"].comparable and "points" in by["CA-MCP (2026)"].flag
    assert all(v.comparable for v in result.verdicts if v.paper != "CA-MCP (2026)")


def test_shared_claims_csv_gives_same_verdicts(shared_data, result):
    other = audit(read_claims(shared_data / "noise-floor-paper" / "published_claims.csv"),
                  result.floor, result.envelope)
    assert [v.verdict for v in other.verdicts] == [v.verdict for v in result.verdicts]


def test_ratio_and_frame(result):
    f = result.to_frame()
    assert list(f.columns[:3]) == ["paper", "benchmark", "reported"]
    assert f["ratio"].tolist() == pytest.approx((f["effect"] / result.floor).tolist())
    assert result.to_dict()["counts"]["below"] == 7


def test_boundaries():
    assert place(0.1, 0.1, 0.2) == "inside"
    assert place(0.2, 0.1, 0.2) == "inside"
    assert place(0.2000001, 0.1, 0.2) == "above"
    negative = audit(pd.DataFrame({"paper": ["x"], "effect_high": [-0.3], "unit": ["pp"]}), 0.1, 0.2)
    assert negative.verdicts[0].verdict == "above"


def test_invalid_floor():
    c = pd.DataFrame({"paper": ["x"], "effect_high": [0.1], "unit": ["pp"]})
    with pytest.raises(ValueError, match="positive"):
        audit(c, float("nan"), 0.2)
    with pytest.raises(ValueError, match="envelope"):
        audit(c, 0.1)
    with pytest.raises(ValueError, match="envelope"):
        audit(c, 0.2, 0.1)


# --- a claim without 'reported' text is shown in its own unit -------------

def test_reported_column_uses_the_claims_own_unit(tmp_path):
    from noisefloor.report.text import verdict_table

    csv = tmp_path / "c3.csv"
    csv.write_text("paper,effect_high,unit,effect_low\nA,5,percent,\nB,5,%,\nC,5,pts,\n"
                   "D,0.05,proportion,\nE,2.7,pp,1.0\n")
    t = verdict_table(audit(read_claims(csv), 0.118, 0.153)).set_index("paper")
    assert t.loc["A", "reported"] == "+5.0 percent"
    assert t.loc["B", "reported"] == "+5.0%"
    assert t.loc["C", "reported"] == "+5.0 pts"
    assert t.loc["D", "reported"] == "+0.05 proportion"
    assert t.loc["E", "reported"] == "+1.0 to +2.7 pp"
    assert not any(" pp" in t.loc[p, "reported"] for p in "ABCD")
    # published text, when given, is shown as published
    bundled = verdict_table(audit(read_claims(), 0.118, 0.153))
    assert bundled["reported"].iloc[0] == "+1.2 pts"


def test_a_comparable_claim_beyond_100_pp_is_a_unit_slip_not_above(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("paper,effect_high,unit\nA,5,pp\nB,5,proportion\n")  # 5 = 500 pp
    claims = read_claims(path)
    claims.attrs["source"] = str(path)
    with pytest.raises(ValueError, match=rf"claim 'B' \({path}:3\): field 'effect_high': 500 pp "
                                         r"is outside \[-100, 100\] pp"):
        audit(claims, 0.118, 0.153)
    # other units are placed (and flagged) on their own scale, as before
    other = pd.DataFrame({"paper": ["C"], "effect_high": [3.0], "unit": ["BLEU x 100"]})
    assert audit(other, 0.118, 0.153).verdicts[0].flag


# --- a log's own protocol contrasts ----------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from noisefloor.audit.verdicts import log_contrasts, place_contrasts  # noqa: E402


def _paired_log(outcomes, a="intercept", b="no_coord", trial=1, seed=1, trial0=(0, 0)):
    """A log whose trial-`trial` outcomes per task are `outcomes` = [(a_success, b_success)]."""
    rows = []
    for i, (ra, rb) in enumerate(outcomes):
        for proto, r, r0 in ((a, ra, trial0[0]), (b, rb, trial0[1])):
            rows.append({"benchmark": "bm", "model": "m", "seed": seed, "protocol": proto,
                         "task_id": f"t{i:03d}", "trial": 0, "reward": float(r0)})
            rows.append({"benchmark": "bm", "model": "m", "seed": seed, "protocol": proto,
                         "task_id": f"t{i:03d}", "trial": trial, "reward": float(r)})
    return pd.DataFrame(rows)


def _wlt(w, lo, t):
    return [(1, 0)] * w + [(0, 1)] * lo + [(1, 1)] * (t // 2) + [(0, 0)] * (t - t // 2)


def test_log_contrast_reproduces_the_papers_coordination_active_row():
    # Kaliyev & Maryanskyy (2026), coordination-active table: intercept vs. no_coord, subset
    # n = 35, W/L/T 6/11/18, sign p = 0.33. Every task failed trial 0 in both arms, so the
    # coordination-active subset is all 35 tasks.
    t = _paired_log(_wlt(6, 11, 18))
    r = log_contrasts(t, coordination_active=True).set_index("subset")
    for subset in ("all", "coordination_active"):
        row = r.loc[subset]
        assert row["contrast"] == "intercept-no_coord"  # the baseline is written second
        assert (row["wins"], row["losses"], row["ties"]) == (6, 11, 18)
        assert round(row["p_value"], 2) == 0.33 and row["gap"] == pytest.approx(-5 / 35)


def test_log_contrast_bonferroni_over_three_protocols_is_m3():
    # The paper corrects over the three contrasts of one seed and trial (m = 3): seed 1,
    # pull-intercept 27/9/64 has p = 0.00393 and Bonferroni 0.0118 (here at trial 1).
    outcomes = _wlt(27, 9, 64)
    t = _paired_log(outcomes, a="pull", b="intercept")
    # a third arm that differs from both somewhere (an all-tie contrast has no p-value, so no m)
    t3 = _paired_log([(1 - o[1] if i < 10 else o[1], 0) for i, o in enumerate(outcomes)],
                     a="no_coord", b="unused")
    third = t3[t3["protocol"] == "no_coord"]
    r = log_contrasts(pd.concat([t, third], ignore_index=True)).set_index("contrast")
    # no_coord written second; other pairs in the order the records give the arms (pull
    # first, as the paper writes pull-intercept 27/9/64), never sorted
    assert set(r.index) == {"intercept-no_coord", "pull-intercept", "pull-no_coord"}
    assert (r["m"] == 3).all()
    assert (r.loc["pull-intercept", "wins"], r.loc["pull-intercept", "losses"]) == (27, 9)
    assert round(r.loc["pull-intercept", "p_value"], 5) == 0.00393
    assert round(r.loc["pull-intercept", "p_adjusted"], 4) == 0.0118


def test_log_contrasts_named_pair_trials_and_pooling():
    s1 = _paired_log(_wlt(3, 1, 6), seed=1)
    s2 = _paired_log(_wlt(2, 2, 6), seed=2)
    t = pd.concat([s1, s2], ignore_index=True)
    r = log_contrasts(t, pairs=["no_coord-intercept"])
    assert list(r["level"]) == ["trial", "trial", "pooled"]
    assert r["seed"].tolist()[:2] == [1, 2] and pd.isna(r["seed"].iloc[2])
    assert str(r["seed"].dtype) == "Int64" and set(r["contrast"]) == {"no_coord-intercept"}
    pooled = r.iloc[2]
    assert (pooled["wins"], pooled["losses"], pooled["ties"]) == (3, 5, 12)  # as named: b's wins
    with pytest.raises(ValueError, match="protocol 'nope' is not in the log; protocols present"):
        log_contrasts(t, pairs=["nope-intercept"])
    with pytest.raises(ValueError, match="as 'a-b'"):
        log_contrasts(t, pairs=["intercept"])
    with pytest.raises(ValueError, match="trial 5 is not in both arms"):
        log_contrasts(t, trial_indices=[5])
    # trial 0 only when asked for: it is a null contrast
    assert set(log_contrasts(t, trial_indices=[0, 1])["trial"]) == {0, 1}


def test_log_contrasts_one_protocol_or_no_later_trial_is_empty():
    t = _paired_log(_wlt(1, 1, 1), trial=0)  # trial 0 only
    assert log_contrasts(t).empty and "p_value" in log_contrasts(t).columns


def test_place_contrasts_and_flags():
    r = place_contrasts(pd.DataFrame({"gap": [0.05, -0.14, 0.3, float("nan")],
                                      "wins": [10, 2, 30, 0], "losses": [5, 20, 0, 0]}),
                        0.118, 0.153)
    assert r["verdict"].tolist() == ["below", "inside", "above", "undefined"]
    assert r["flag"].tolist()[:3] == ["", "", ""] and "only 0 informative pairs" in r["flag"].iloc[3]
    assert r["ratio"].iloc[1] == pytest.approx(0.14 / 0.118)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=30))
def test_log_contrast_orientation_swaps_wins_and_losses(outcomes):
    t = _paired_log(outcomes)
    ab = log_contrasts(t, pairs=["intercept-no_coord"]).iloc[0]
    ba = log_contrasts(t, pairs=["no_coord-intercept"]).iloc[0]
    assert (ab["wins"], ab["losses"], ab["ties"]) == (ba["losses"], ba["wins"], ba["ties"])
    assert ab["gap"] == pytest.approx(-ba["gap"])
    assert ab["p_value"] == pytest.approx(ba["p_value"], nan_ok=True)
    assert ab["wins"] + ab["losses"] + ab["ties"] == len(outcomes)


# --- a claimed loss is placed by its end farthest from zero --------

@pytest.mark.parametrize("low,high,effect,verdict", [
    (-0.10, -0.02, -0.10, "above"),   # a loss of up to 10 pp: 10 pp from noise, not 2 pp
    (-0.03, 0.08, 0.08, "inside"),    # straddling zero: the larger end
    (-0.10, 0.02, -0.10, "above"),
    (0.01, 0.027, 0.027, "below"),    # a gain: the upper end, as the paper reads a range
    (float("nan"), -0.02, -0.02, "below"),  # one number only
    (-0.06, 0.06, 0.06, "inside"),    # a tie keeps the upper end
])
def test_a_range_is_placed_by_its_end_farthest_from_zero(low, high, effect, verdict):
    claims = pd.DataFrame({"paper": ["X"], "effect_low": [low], "effect_high": [high],
                           "unit": ["pp"]})
    v = audit(claims, 0.05, 0.09).verdicts[0]
    assert v.effect == pytest.approx(effect) and v.verdict == verdict
    assert v.ratio == pytest.approx(abs(effect) / 0.05)
    assert v.effect_low == low or (math.isnan(low) and math.isnan(v.effect_low))


def test_a_claimed_loss_from_a_csv_keeps_its_sign_in_the_report(tmp_path):
    from noisefloor.report.text import verdict_table

    path = tmp_path / "claims.csv"
    path.write_text("paper,reported,effect_low,effect_high,unit\nL,-10 to -2 pp,-10,-2,pp\n",
                    encoding="utf-8")
    result = audit(read_claims(path), 0.05, 0.09)
    v = result.verdicts[0]
    assert (v.effect, v.verdict) == (pytest.approx(-0.10), "above")
    table = verdict_table(result)
    assert table["placed pp"].iloc[0].startswith("-10")


def test_log_contrast_pairs_with_dashed_protocol_names():
    t = _paired_log(_wlt(3, 1, 6), seed=1)
    t["protocol"] = t["protocol"].map({"no_coord": "no-coord", "intercept": "inter-cept"})
    r = log_contrasts(t, pairs=["inter-cept-no-coord"])
    assert set(r["contrast"]) == {"inter-cept-no-coord"}
    assert (r.iloc[0]["wins"], r.iloc[0]["losses"]) == (3, 1)
    with pytest.raises(ValueError, match="protocol 'no' is not in the log; protocols present: "
                                         "inter-cept, no-coord"):
        log_contrasts(t, pairs=["no-pull"])


def test_log_contrast_pair_that_splits_two_ways_is_an_error():
    t = _paired_log(_wlt(3, 1, 6), seed=1)
    extra = t[t["protocol"] == "no_coord"].copy()
    t["protocol"] = t["protocol"].map({"no_coord": "a", "intercept": "b-c"})
    parts = [t]
    for name in ("a-b", "c"):
        parts.append(extra.assign(protocol=name))
    t = pd.concat(parts, ignore_index=True)
    with pytest.raises(ValueError, match=r"contrast 'a-b-c' is ambiguous: it reads as 'a' vs 'b-c' "
                                         r"and as 'a-b' vs 'c'"):
        log_contrasts(t, pairs=["a-b-c"])
    assert len(log_contrasts(t, pairs=[("a-b", "c")])) >= 1


def test_log_contrast_effect_keeps_its_sign_like_a_claim():
    import pandas as pd

    from noisefloor.audit.verdicts import place_contrasts
    placed = place_contrasts(pd.DataFrame({"gap": [-0.2, 0.05]}), 0.118, 0.153)
    assert placed["effect"].tolist() == [-0.2, 0.05]
    assert placed["ratio"].round(3).tolist() == [round(0.2 / 0.118, 3), round(0.05 / 0.118, 3)]
    assert placed["verdict"].tolist() == ["above", "below"]
