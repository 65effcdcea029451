"""audit / floor / contrast as a new user meets them.

Most audits here pass ``--no-plot``: what they check is text, report.md and --json, which the
forest plot does not change (drawing and saving it is most of an audit's time). Three still
draw it: a weak floor and a log's own contrasts (below), the bundled data
(tests/cli/test_core_commands.py).
"""

import json

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli

# The user's log: benchmark mybench/shop, 5 tasks, protocols no_coord and
# intercept, 3 trials each; the store is populated from trial 1 on (so no re-run is a null
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
    # claims placed against the weak floor (the bundled ones, asked for) carry its caution
    out = run("audit", "--log", mylog, "--bundled-claims", "--out", tmp_path / "rep")
    assert "caution: the floor rests on 1 informative (untied) pair" in out
    assert "caution: provisional: the floor is weakly supported (see its caution above)" in out
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "**Caution: the floor rests on 1 informative (untied) pair" in report
    doc = json.loads(run("audit", "--log", mylog, "--out", tmp_path / "rep", "--json",
                         "--no-plot"))
    assert "fewer than 6" in doc["caution"]


def test_default_audit_has_no_caution(run, tmp_path):
    out = run("audit", "--out", tmp_path, "--no-plot")
    assert "caution" not in out and "194 informative pairs" in out
    doc = json.loads(run("audit", "--out", tmp_path, "--json", "--no-plot"))
    assert doc["caution"] == "" and doc["log_contrasts"] == []
    assert doc["claims_source"].startswith("bundled: the ten published claims")


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
    out = run("audit", "--claims", claims, "--out", tmp_path / "rep", "--no-plot")
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()[:2] in ("A ", "B ", "C ")}
    assert "+5.0 percent" in rows["A"] and "+5.0%" in rows["B"] and "+5.0 pts" in rows["C"]
    assert "+5.0 pp" not in out
    assert "unit is 'percent', not percentage points" in out


# --- item 1: which claims were used, and the log's own contrasts --------------------------

BUNDLED = "bundled: the ten published claims listed by Kaliyev & Maryanskyy (2026)"


def test_audit_log_without_claims_places_none(run, mylog, tmp_path):
    # a user's own audit places the user's claims only: the bundled ones only when asked
    out = run("audit", "--log", mylog, "--out", tmp_path / "rep", "--no-plot")
    assert "Claims: none placed" in out and "Reflexion" not in out
    assert "--bundled-claims for the ten published ones" in out
    doc = json.loads(run("audit", "--log", mylog, "--out", tmp_path / "rep", "--json",
                         "--no-plot"))
    assert doc["claims"] == [] and doc["claims_source"].startswith("none")


def test_audit_log_with_bundled_claims_names_them(run, mylog, tmp_path):
    out = run("audit", "--log", mylog, "--bundled-claims", "--out", tmp_path / "rep",
              "--no-plot")
    assert f"claims used: {BUNDLED}" in out
    assert "note: these are other papers' claims on their own benchmarks" in out
    report = (tmp_path / "rep" / "report.md").read_text()
    assert f"- Floor from: {mylog}" in report and f"- Claims: {BUNDLED}" in report
    assert "other papers' claims" in report
    doc = json.loads(run("audit", "--log", mylog, "--bundled-claims", "--out", tmp_path / "rep",
                         "--json", "--no-plot"))
    assert doc["claims_source"].startswith(BUNDLED)


def test_audit_with_own_claims_names_the_file_and_no_bundled_note(run, mylog, tmp_path):
    claims = tmp_path / "mine.csv"
    claims.write_text("paper,effect_high,unit\nmine,8,pp\n")
    out = run("audit", "--log", mylog, "--claims", claims, "--out", tmp_path / "rep",
              "--no-plot")
    assert f"claims used: {claims}" in out and "other papers' claims" not in out
    assert f"- Claims: {claims}" in (tmp_path / "rep" / "report.md").read_text()


def test_audit_log_places_the_logs_own_contrasts(run, mylog, tmp_path):
    # Hand count of the log: trial 1 intercept wins t1, t2 (no_coord failed), ties t3, t4, t5
    # -> 2/0/3, +40 pp, p = 0.5; trial 2: intercept wins t5 -> 1/0/4; coordination-active
    # (both failed trial 0): t2 only, intercept won -> 1/0/0. The floor is 20.0 pp.
    out = run("audit", "--log", mylog, "--out", tmp_path / "rep")
    section = out.split("Contrasts in this log")[1].split("Claims:")[0]
    lines = [line.split() for line in section.splitlines()[2:] if "intercept-no_coord" in line]
    assert [(r[1], r[2], r[4], r[5]) for r in lines] == [
        ("1", "all", "2/0/3", "+40.0"), ("2", "all", "1/0/4", "+20.0"),
        ("1", "coordination_active", "1/0/0", "+100.0")]
    assert [r[-2] if r[-1] == "*" else r[-1] for r in lines] == ["above", "inside", "above"]
    assert "fewer than 6 informative pairs" in section
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "## Contrasts in this log" in report and "| 1 | 1 | all | intercept-no_coord | 2/0/3 |" in report
    doc = json.loads(run("audit", "--log", mylog, "--out", tmp_path / "rep", "--json",
                         "--no-plot"))
    first = doc["log_contrasts"][0]
    assert (first["wins"], first["losses"], first["ties"], first["verdict"]) == (2, 0, 3, "above")
    assert first["p_value"] == 0.5 and first["gap"] == pytest.approx(0.4)


def test_audit_log_with_one_protocol_says_there_is_no_contrast(run, shared_data, tmp_path):
    out = run("audit", "--log", shared_data / "tau-bench" / "gpt-4o-airline.json",
              "--out", tmp_path, "--no-plot")
    assert "Contrasts in this log" in out and "none: the log holds 1 protocol; a contrast needs two" in out


def test_default_audit_names_its_claims_and_has_no_log_section(run, tmp_path):
    out = run("audit", "--out", tmp_path, "--no-plot")
    assert f"claims used: {BUNDLED}" in out and "Contrasts in this log" not in out
    assert "other papers' claims" not in out


# --- item 20: report.md has the other contrasts; one seed drawn once -------------------------

def test_report_has_the_other_contrasts_of_the_count_table(run, tmp_path):
    run("audit", "--out", tmp_path, "--no-plot")
    report = (tmp_path / "report.md").read_text()
    section = report.split("## Other contrasts in the count table")[1].split("## The claims")[0]
    # the paper's coordination-active rows: 2/6/20 p 0.289, Bonferroni 0.867
    assert "| 1 | 1 | coordination_active | pull-no_coord | 2/6/20 | -14.3 | 0.289 | 0.867 |" in section
    assert sum(line.startswith("| 1 | 1 |") for line in section.splitlines()) == 6


def test_report_without_other_contrasts_has_no_empty_section(run, tmp_path):
    counts = tmp_path / "c.csv"
    counts.write_text("seed,trial,contrast,wins,losses,ties\n1,0,no_coord-intercept,20,10,70\n"
                      "2,0,no_coord-intercept,12,14,74\n")
    run("audit", "--counts", counts, "--out", tmp_path / "rep", "--no-plot")
    assert "Other contrasts" not in (tmp_path / "rep" / "report.md").read_text()


# --- item 1 (related gap): contrast --log counts W/L/T from a log ---------------------------

def test_contrast_from_a_log_pairs_by_task_and_trial(run, mylog):
    out = run("contrast", "--log", mylog, "--a", "intercept", "--b", "no_coord",
              "--coordination-active")
    rows = [line.split() for line in out.splitlines()[2:] if not line.startswith("left out:")]
    assert [(r[1], r[2], r[4], r[5]) for r in rows] == [
        ("1", "all", "2/0/3", "+40.0"), ("2", "all", "1/0/4", "+20.0"),
        ("1", "coordination_active", "1/0/0", "+100.0")]
    # trial 0 is not compared by default, and the output says so
    assert "left out: trial 0 is not compared" in out and "--trial 0" in out
    # the same counts through the counts form give the same test
    doc = json.loads(run("contrast", "--log", mylog, "--a", "intercept", "--b", "no_coord",
                         "--json"))
    first = doc["contrasts"][0]
    counts = json.loads(run("contrast", "--wins", 2, "--losses", 0, "--ties", 3, "--json"))
    for key in ("wins", "losses", "ties", "n", "gap", "p_value", "ci_low", "ci_high"):
        assert first[key] == counts["contrasts"][0][key]


def test_contrast_from_a_log_keeps_the_order_given(run, mylog):
    out = run("contrast", "--log", mylog, "--a", "no_coord", "--b", "intercept", "--trial", 1,
              "--family-size", 3)
    assert "no_coord-intercept" in out and "0/2/3  -40.0" in out
    assert "p Bonferroni (m = 3)" in out


def test_contrast_log_errors_are_usage_lines(mylog):
    runner = CliRunner()
    for args, message in (
            (["--log", mylog], "--log needs --a and --b (protocols in the log: intercept, no_coord)"),
            (["--log", mylog, "--a", "x", "--b", "no_coord"], "protocol 'x' is not in the log"),
            (["--log", mylog, "--a", "intercept", "--b", "no_coord", "--wins", "3"],
             "either --log or --wins"),
            (["--a", "intercept", "--wins", "3", "--losses", "1"], "go with --log"),
            (["--wins", "3"], "give --wins and --losses"),
            (["--log", mylog, "--a", "intercept", "--b", "no_coord", "--trial", "7"],
             "trial 7 is not in both arms")):
        r = runner.invoke(cli, ["contrast", *map(str, args)])
        assert r.exit_code != 0 and message in r.output, (args, r.output)
        assert "Traceback" not in r.output


def test_audit_log_contrasts_say_what_was_left_out(run, tmp_path):
    rewards = {p: dict(tasks) for p, tasks in REWARDS.items()}
    rewards["intercept"].pop("t5")  # intercept never ran t5: one arm only at trials 1 and 2
    log = _log(tmp_path / "onearm.jsonl", rewards)
    out = run("audit", "--log", log, "--out", tmp_path / "rep", "--no-plot")
    section = out.split("Contrasts in this log")[1].split("Claims:")[0]
    # t5 is unpaired at trial 1 and at trial 2 (the coordination-active subset never held it)
    assert "left out: 2 task(s) present in one arm only, 0 with an infrastructure error" in section
    doc = json.loads(run("audit", "--log", log, "--out", tmp_path / "rep", "--json",
                         "--no-plot"))
    assert [r["n_only_a"] + r["n_only_b"] for r in doc["log_contrasts"]] == [1, 1, 0]
