"""Mixed pairs, the cascade (judge, labels, Wilson rates) and the prompt intervention."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from noisefloor.cli.agreement import agreement
from noisefloor.logs.annotations import read_annotations
from noisefloor.tax.cascade import (
    STAGES,
    judge_prompt,
    judge_rollouts,
    parse_judge_reply,
    stage_rates,
)
from noisefloor.tax.intervention import (
    figure6_markdown,
    recovered_share_table,
)
from noisefloor.tax.mixed import mixed_pair_table
from noisefloor.tax.run import read_run


@pytest.fixture(scope="module")
def run(planted):
    return read_run(planted[0])


# ---------------------------------------------------------------- mixed pairs and the game

def test_mixed_pairs_both_slot_orders(run, planted):
    truth = planted[1]
    t = mixed_pair_table(run)
    assert list(t["pair"]) == ["m-hi+m-lo", "m-lo+m-hi"]
    for r in t.itertuples(index=False):
        assert r.n_tasks == 6 and r.tasks_left_out == 0
        assert r.phi1 + r.phi2 == pytest.approx(r.v12)
        assert r.tax == pytest.approx(max(r.v1, r.v2) - r.v12)
        expected = np.mean([truth.mixed[(r.model_a, r.model_b, t_)] for t_ in truth.family_of])
        assert abs(r.v12 - expected) < 0.1
    a, b = t.iloc[0], t.iloc[1]
    assert a.v1 == pytest.approx(b.v2) and a.v2 == pytest.approx(b.v1)


def test_mixed_pair_without_member_solo_is_explained(run):
    df = run.rollouts
    keep = ~((df["model"] == "m-lo") & (df["mode"] == "solo"))
    sub = type(run)(df[keep].reset_index(drop=True), run.sources, 0)
    t = mixed_pair_table(sub)
    assert t["n_tasks"].eq(0).all() and t["v12"].isna().all()
    assert t["note"].str.startswith("no task where both").all()


# ---------------------------------------------------------------- cascade

def test_wilson_rates_match_published_values():
    # Newcombe (1998), Statistics in Medicine 17, 857-872, Table I, method 3 (Wilson score
    # without continuity correction), 95%: 81/263 -> 0.2553, 0.3662; 15/148 -> 0.0624, 0.1605;
    # 0/20 -> 0, 0.1611; 1/29 -> 0.0061, 0.1718.
    # R Hmisc: binconf(520, 1000) (method = "wilson") -> 0.4890177 0.5508292.
    # 90% and 99%: Wilson's closed form at 0/n is (0, z^2 / (n + z^2)); with z_0.95 = 1.644854
    # and z_0.995 = 2.575829 (normal table), 0/20 gives 2.705545 / 22.705545 = 0.1191578 (90%) and
    # 6.634895 / 26.634895 = 0.2491054 (99%).
    from noisefloor.tax.run import TaxRun
    cases = [(81, 263, 0.95, 0.2553, 0.3662, 4), (15, 148, 0.95, 0.0624, 0.1605, 4),
             (0, 20, 0.95, 0.0, 0.1611, 4), (1, 29, 0.95, 0.0061, 0.1718, 4),
             (520, 1000, 0.95, 0.4890177, 0.5508292, 7),
             (0, 20, 0.90, 0.0, 0.1191578, 6), (0, 20, 0.99, 0.0, 0.2491054, 6)]
    for k, n, conf, lo, hi, digits in cases:
        rows = [{"model": "m", "model_a": "m", "model_b": "m", "mode": "pair",
                 "variant": "baseline", "mixed": False, "task": "t", "family": "csp",
                 "instance": f"t:{i}", "trial": 0, "reward": 0.0, "infrastructure_error": False,
                 "success": False, "rollout_key": f"k{i}"} for i in range(n)]
        run = TaxRun(pd.DataFrame(rows), ("x",), 0)
        lab = pd.DataFrame({"item": [f"k{i}" for i in range(n)], "rater": "judge",
                            "category": "L1", "label": [1] * k + [0] * (n - k)})
        r = stage_rates(run, lab, confidence=conf)
        row = r[(r.family == "csp") & (r.stage == "L1") & (r.outcome == "failed")].iloc[0]
        assert (row.k, row.n) == (k, n)
        assert round(row.ci_low, digits) == pytest.approx(lo, abs=10 ** -digits)
        assert round(row.ci_high, digits) == pytest.approx(hi, abs=10 ** -digits)


def test_stage_rates_separate_failure_from_success(run, planted):
    rates = stage_rates(run, planted[0] / "judge_labels.jsonl")
    for (fam, stage), g in rates.groupby(["family", "stage"]):
        f = g[g.outcome == "failed"].iloc[0]
        s = g[g.outcome == "success"].iloc[0]
        assert f.ci_low > s.ci_high, (fam, stage)  # planted: ~0.65 vs ~0.12
    assert rates.attrs["n_unlabelled"] == 0
    assert set(rates["family"]) == {"spatial", "relational", "csp", "all"}


def _scripted_judge(messages):
    # a deterministic judge: L2 fails when nobody asked a question, L4 when nobody verified;
    # it sees only what the judge prompt and the rendered transcript give it
    text = messages[1]["content"]
    dialogue = text.split("[agent ", 1)[-1]
    return json.dumps({"L1": 0, "L2": int("?" not in dialogue), "L3": 0,
                       "L4": int("verify" not in dialogue.lower())})


def test_judge_labels_in_the_agreement_format(small, tmp_path):
    run = read_run(small[0])
    res = judge_rollouts(run, _scripted_judge)
    n_pairs = int((run.rollouts["mode"] == "pair").sum())
    assert len(res.labels) == 4 * n_pairs and res.failures.empty
    path = res.write(tmp_path / "labels.jsonl")
    back = read_annotations(path)
    assert set(back["category"]) == set(STAGES) and set(back["label"]) <= {0, 1}
    # add two expert raters and run `noisefloor agreement` on the file unchanged
    rows = [json.loads(s) for s in path.read_text().splitlines()]
    with open(path, "a") as fh:
        for rec in rows:
            fh.writelines(json.dumps({**rec, "rater": rater}) + "\n"
                          for rater in ("expert1", "expert2", "expert3"))
    out = CliRunner().invoke(agreement, [str(path), "--judge", "judge"])
    assert out.exit_code == 0, out.output
    assert "L2" in out.output and "L4" in out.output


def test_failing_judge_is_an_infrastructure_failure_not_a_label(small):
    run = read_run(small[0])
    calls = {"n": 0}

    def flaky(messages):
        calls["n"] += 1
        if calls["n"] % 3 == 0:
            raise TimeoutError("endpoint timed out")
        if calls["n"] % 3 == 1:
            return "I think it went fine."
        return '{"L1": 1, "L2": 0, "L3": 0, "L4": 1}'

    res = judge_rollouts(run, flaky)
    kinds = res.failures["kind"].value_counts().to_dict()
    assert kinds == {"unparseable": calls["n"] // 3 + (calls["n"] % 3 >= 1),
                     "infrastructure": calls["n"] // 3}
    assert len(res.labels) == 4 * (calls["n"] - len(res.failures))
    rates = stage_rates(run, res.labels)
    assert rates.attrs["n_unlabelled"] == 4 * len(res.failures)


def test_judge_prompt_and_reply_parsing():
    assert all(s in judge_prompt() for s in ("L1 grounding", "L2 querying", "L3 integration",
                                             "L4 re-derivation"))
    with pytest.raises(ValueError, match="must be 0 or 1"):
        parse_judge_reply('{"L1": 2, "L2": 0, "L3": 0, "L4": 0}')
    with pytest.raises(ValueError, match="no JSON object"):
        parse_judge_reply("nothing")


def test_bad_labels_refused(run):
    lab = pd.DataFrame({"item": ["x"], "rater": ["judge"], "category": ["L1"], "label": [3]})
    with pytest.raises(ValueError, match="must be 0 or 1"):
        stage_rates(run, lab)
    with pytest.raises(ValueError, match="no labels by rater 'expert'; raters present: judge"):
        stage_rates(run, lab, rater="expert")


# ---------------------------------------------------------------- intervention

def test_planted_recovered_share_inside_interval(run, planted):
    truth = planted[1]
    t = recovered_share_table(run, n_boot=1000, rng=0)
    models = ["m-hi", "m-mid", "m-lo"]
    covered = 0
    rows = t[t.family != "all"]
    for r in rows.itertuples(index=False):
        expected = truth.recovered_share(r.variant, r.family, models)
        covered += r.ci_low <= expected <= r.ci_high
        assert r.half_width == pytest.approx((r.ci_high - r.ci_low) / 2)
    assert covered >= len(rows) - 1
    s = t[(t.variant == "no_L4") & (t.family == "spatial")].iloc[0]
    a = t[(t.variant == "all_four") & (t.family == "spatial")].iloc[0]
    assert s.recovered < a.recovered      # dropping L4 collapses the spatial lift (planted)


def test_figure6_markdown_bold_marks_column_maximum(run):
    t = recovered_share_table(run, n_boot=200, rng=0)
    md = figure6_markdown(t)
    lines = md.splitlines()
    assert lines[0] == "| variant | spatial | relational | csp | all |"
    spatial_all = t[(t.family == "spatial")].set_index("variant")["recovered"]
    best = spatial_all.idxmax()
    row = next(s for s in lines if s.startswith(f"| {best} |"))
    assert row.split(" | ")[1].startswith("**")


def test_no_positive_baseline_tax_is_nan_with_reason(tmp_path):
    from noisefloor.tax.synthetic import write_synthetic_run
    write_synthetic_run(tmp_path, models={"m": 0.9}, tasks=[("csp_sudoku4", "csp")],
                        n_instances=20, family_tax={"csp": 0.0},
                        variants={"all_four": {"csp": 0.5}}, seed=1)
    t = recovered_share_table(read_run(tmp_path), n_boot=100)
    r = t[t.family == "csp"].iloc[0]
    if r.solo - r.pair_baseline <= 0:
        assert math.isnan(r.recovered) and "not positive" in r.note
    else:
        assert math.isfinite(r.recovered)
