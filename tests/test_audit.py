"""Audit verdicts, pinned to the noise-floor paper's reading of ten published claims."""

import math

import pandas as pd
import pytest

from noisefloor.audit import audit, place
from noisefloor.floor import noise_floor, null_contrasts_from_counts
from noisefloor.published import read_claims, read_paired_counts


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


# --- usertest2 item 16: a claim without 'reported' text is shown in its own unit -------------

def test_reported_column_uses_the_claims_own_unit(tmp_path):
    from noisefloor.report import verdict_table

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
