"""Tax per cell: planted taxes recovered within their intervals; undefined cells explained."""

import json
import math
import shutil

import numpy as np
import pytest

from noisefloor.tax.cells import NEGATIVE_NOTE, cell_table, task_table
from noisefloor.tax.run import read_run
from noisefloor.tax.synthetic import write_synthetic_run


@pytest.fixture(scope="module")
def run(planted):
    return read_run(planted[0])


def test_planted_family_tax_inside_its_interval(run, planted):
    truth = planted[1]
    cells = cell_table(run, by="family", n_boot=1000, rng=0)
    inside = 0
    for r in cells.itertuples(index=False):
        expected = truth.family_tax(r.model, r.family)
        inside += r.ci_low <= expected <= r.ci_high
        assert abs(r.tax - expected) < 0.15
    # nine 95% intervals: all (or all but one) should cover the planted value
    assert inside >= 8
    # the planted ordering spatial > relational > csp appears in every model's row
    for m, g in cells.groupby("model"):
        t = g.set_index("family")["tax"]
        assert t["spatial"] > t["relational"] > t["csp"], m


def test_task_cells_paired_counts_and_sign_test(run):
    cells = cell_table(run, by="task", n_boot=200, rng=0)
    assert len(cells) == 3 * 6
    r = cells.iloc[0]
    assert r.n_instances == 60 and r.wins + r.losses + r.ties == 60
    assert 0 <= r.sign_p <= 1
    assert r.ci_low <= r.tax <= r.ci_high
    assert r.ratio_gap == pytest.approx(r.tax / r.solo)


def test_same_seed_same_intervals(run):
    a = cell_table(run, by="family", n_boot=100, rng=3)
    b = cell_table(run, by="family", n_boot=100, rng=3)
    assert a[["ci_low", "ci_high"]].equals(b[["ci_low", "ci_high"]])


def _drop(src, dst, keep):
    shutil.copytree(src, dst)
    lines = (dst / "trials.jsonl").read_text().splitlines()
    (dst / "trials.jsonl").write_text("\n".join(s for s in lines if keep(json.loads(s))) + "\n")
    return read_run(dst)


def test_no_solo_rollouts_for_a_cell_is_nan_with_reason(small, tmp_path):
    run = _drop(small[0], tmp_path / "r", lambda r: not (
        r["model"] == "m-lo" and r["protocol"] == "solo" and r["extra"]["task"] == "csp_seating"))
    cells = cell_table(run, n_boot=50)
    row = cells[(cells["model"] == "m-lo") & (cells["task"] == "csp_seating")].iloc[0]
    assert math.isnan(row.tax) and math.isnan(row.ci_low)
    assert row.note == "no solo rollouts for m-lo on csp_seating: the tax is undefined"
    fam = cell_table(run, by="family", n_boot=50)
    # the family cell keeps its other task and counts the pair-only instances
    f = fam[(fam["model"] == "m-lo") & (fam["family"] == "csp")].iloc[0]
    assert f.n_tasks == 2 and f.n_pair_only == 6 and math.isfinite(f.tax)


def test_infrastructure_errors_left_out_and_counted(small, tmp_path):
    d = tmp_path / "r"
    shutil.copytree(small[0], d)
    lines = (d / "trials.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec.update(reward=None, infrastructure_error=True,
               termination_reason="infrastructure_error:timeout")
    lines[0] = json.dumps(rec)
    (d / "trials.jsonl").write_text("\n".join(lines) + "\n")
    run = read_run(d)
    assert run.n_infrastructure_errors == 1
    cells = cell_table(run, n_boot=50)
    row = cells[(cells.model == rec["model"]) & (cells.task == rec["extra"]["task"])].iloc[0]
    assert row.n_infrastructure_errors == 1 and row.n_instances == 5 and row.n_pair_only == 1


def test_negative_cell_kept_and_explained(tmp_path):
    from noisefloor.tax.synthetic import write_synthetic_run
    write_synthetic_run(tmp_path, models={"m": 0.9}, tasks=[("csp_sudoku4", "csp")],
                        n_instances=40, family_tax={"csp": -0.3}, seed=2)
    cells = cell_table(read_run(tmp_path), n_boot=200)
    r = cells.iloc[0]
    assert r.tax < 0 and NEGATIVE_NOTE in r.note


def test_exploratory_tasks_marked(run):
    cells = cell_table(run, n_boot=50)
    tasks = task_table(cells, target=0.8)
    assert tasks["ratio_gap"].is_monotonic_decreasing
    assert (tasks["exploratory"] == (tasks["solo"] < 0.8)).all()
    strict = task_table(cells, target=0.99)
    assert strict["exploratory"].sum() >= tasks["exploratory"].sum()
    low = cell_table(run, n_boot=50, target=0.99)
    assert (low["below_target"] == (low["solo"] < 0.99)).all()
    assert (low["note"].str.contains("exploratory") == low["below_target"]).all()


def test_confidence_reaches_every_tax_interval(run):
    """Cells at 0.90 are the stratified t interval at 0.90 (not a 0.95 interval hard-wired),
    for task, family and model cells and the recovered shares."""
    from noisefloor.stats.stratified import stratified_t_interval
    from noisefloor.tax.cells import instance_table
    from noisefloor.tax.intervention import recovered_share_table

    inst = instance_table(run)
    both = inst.dropna(subset=["solo", "pair"])
    for by, key in (("task", "task"), ("family", "family")):
        c90 = cell_table(run, by=by, confidence=0.90, n_boot=200, rng=0)
        c95 = cell_table(run, by=by, confidence=0.95, n_boot=200, rng=0)
        row90, row95 = c90.iloc[0], c95.iloc[0]
        sel = both[(both["model"] == row90.model) & (both[key] == row90[key])]
        want = stratified_t_interval((sel["solo"] - sel["pair"]).to_numpy(),
                                     None if by == "task" else sel["task"].to_numpy(),
                                     confidence=0.90)
        assert (row90.ci_low, row90.ci_high) == pytest.approx((want.ci_low, want.ci_high))
        assert row95.ci_low < row90.ci_low and row90.ci_high < row95.ci_high
        assert row95.ratio_ci_low < row90.ratio_ci_low
    r90 = recovered_share_table(run, n_boot=400, confidence=0.90, rng=0)
    r95 = recovered_share_table(run, n_boot=400, confidence=0.95, rng=0)
    assert (r90["ci_high"] - r90["ci_low"] < r95["ci_high"] - r95["ci_low"]).all()


def test_all_equal_cell_is_nan_with_a_reason(tmp_path):
    from noisefloor.tax.run import read_run
    write_synthetic_run(tmp_path, models={"m": 1.0}, tasks=[("csp_sudoku4", "csp")],
                        n_instances=5, family_tax={"csp": 0.0}, seed=0)
    run = read_run(tmp_path)
    df = run.rollouts
    df.loc[df["mode"].isin(["solo", "pair"]), "reward"] = 1.0
    c = cell_table(run, n_boot=50).iloc[0]
    assert c.tax == 0 and np.isnan(c.ci_low) and np.isnan(c.ci_high)
    assert "no interval: every paired difference is 0" in c.note
