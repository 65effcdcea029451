"""audit / floor / contrast as a new user meets them (usertest2 items 1, 2, 14, 16, 20)."""

import json

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli

# The user's log of usertest2: benchmark mybench/shop, 5 tasks, protocols no_coord and
# intercept, 3 trials each; the store is populated from trial 1 on (so no A/A re-run is a null
# contrast) and the trial-0 first requests match (the trial-0 contrast is clean).
REWARDS = {  # protocol -> task -> rewards of trials 0, 1, 2
    "no_coord": {"t1": (1, 0, 1), "t2": (0, 0, 1), "t3": (1, 1, 1), "t4": (0, 1, 0), "t5": (1, 0, 0)},
    "intercept": {"t1": (1, 1, 1), "t2": (0, 1, 1), "t3": (1, 1, 1), "t4": (1, 1, 0), "t5": (1, 0, 1)},
}


def _log(path, rewards=REWARDS, seed=1):
    lines = []
    for protocol, tasks in rewards.items():
        for task, rs in tasks.items():
            for trial, r in enumerate(rs):
                lines.append(json.dumps({
                    "schema_version": "1", "benchmark": "mybench/shop", "model": "gpt-x",
                    "protocol": protocol, "seed": seed, "task_id": task, "trial": trial,
                    "reward": float(r), "termination_reason": "agent_stop",
                    "infrastructure_error": False, "store_events_at_start": 2 * trial,
                    "first_request_sha256": (f"{int(task[1:]):064x}" if trial == 0 else None)}))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture()
def run():
    runner = CliRunner()

    def _run(*args, code=0):
        r = runner.invoke(cli, list(map(str, args)), catch_exceptions=False)
        assert r.exit_code == code, r.output
        return r.output

    return _run


@pytest.fixture()
def mylog(tmp_path):
    return _log(tmp_path / "mylog.jsonl")


# --- item 2: a floor on almost no data ----------------------------------------------------

def test_floor_on_one_informative_pair_says_so_in_text_and_json(run, mylog, tmp_path):
    out = run("floor", mylog)
    assert "; 1 informative pair\n" in out and "1 informative pairs" not in out
    assert "caution: the floor rests on 1 informative (untied) pair, fewer than 6" in out
    doc = json.loads(run("floor", mylog, "--json"))
    assert doc["n_informative_floor"] == 1 and "fewer than 6" in doc["caution"]


def test_audit_on_a_weak_floor_cautions_text_report_and_json(run, mylog, tmp_path):
    out = run("audit", "--log", mylog, "--out", tmp_path / "rep")
    assert "caution: the floor rests on 1 informative (untied) pair" in out
    assert "caution: provisional: the floor rests on 1 informative pair" in out
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "**Caution: the floor rests on 1 informative (untied) pair" in report
    doc = json.loads(run("audit", "--log", mylog, "--out", tmp_path / "rep", "--json"))
    assert "fewer than 6" in doc["caution"]


def test_default_audit_has_no_caution(run, tmp_path):
    out = run("audit", "--out", tmp_path)
    assert "caution" not in out and "194 informative pairs" in out
    assert json.loads(run("audit", "--out", tmp_path, "--json"))["caution"] == ""


# --- item 14: --clean keeps the order the user typed ------------------------------------------

def test_floor_clean_is_shown_in_the_order_typed(run, mylog):
    out = run("floor", mylog, "--clean", "no_coord-intercept")
    assert "no_coord-intercept (clean)" in out and "intercept-no_coord" not in out
    # trial 0: intercept won t4, no_coord won nothing: as typed the gap is negative
    assert "0/1/4  -20.0" in out
    doc = json.loads(run("floor", mylog, "--clean", "no_coord-intercept", "--json"))
    assert doc["floor_contrast"] == "no_coord-intercept"
    assert {(c["contrast"], c["wins"], c["losses"]) for c in doc["contrasts"]} == {
        ("no_coord-intercept", 0, 1)}
    out = run("floor", mylog, "--clean", "intercept-no_coord")
    assert "intercept-no_coord (clean)" in out and "1/0/4  +20.0" in out


# --- item 16: the reported column agrees with the unit ----------------------------------------

def test_claims_without_reported_text_show_their_unit(run, tmp_path):
    claims = tmp_path / "c3.csv"
    claims.write_text("paper,effect_high,unit\nA,5,percent\nB,5,%\nC,5,pts\n")
    out = run("audit", "--claims", claims, "--out", tmp_path / "rep")
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()[:2] in ("A ", "B ", "C ")}
    assert "+5.0 percent" in rows["A"] and "+5.0%" in rows["B"] and "+5.0 pts" in rows["C"]
    assert "+5.0 pp" not in out
    assert "unit is 'percent', not percentage points" in out
