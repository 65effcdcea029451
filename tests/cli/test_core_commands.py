"""The audit, floor, contrast and passk commands, end to end through click."""

import json

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli


@pytest.fixture()
def run():
    runner = CliRunner()

    def _run(*args):
        return runner.invoke(cli, list(map(str, args)), catch_exceptions=False)

    return _run


def test_audit_default_prints_floor_verdicts_and_writes_files(run, tmp_path):
    r = run("audit", "--out", tmp_path / "rep")
    assert r.exit_code == 0, r.output
    assert "floor     11.8 pp" in r.output and "envelope  15.3 pp" in r.output
    assert "Claims: 7 below the floor, 1 inside the envelope, 2 above it" in r.output
    for name in ("forest.png", "forest.svg", "report.md"):
        assert (tmp_path / "rep" / name).stat().st_size > 0
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "**7 below**" in report and "![forest plot](forest.png)" in report


def test_audit_json(run, tmp_path):
    r = run("audit", "--json", "--out", tmp_path, "--no-plot")  # the plot: the test above
    doc = json.loads(r.output)
    assert round(doc["floor"], 3) == 0.118 and round(doc["envelope"], 3) == 0.153
    assert [c["verdict"] for c in doc["claims"]].count("below") == 7
    assert set(doc["claims"][0]) >= {"paper", "benchmark", "effect", "verdict"}
    active = [c for c in doc["other_contrasts"] if c["subset"] == "coordination_active"]
    # Kaliyev & Maryanskyy (2026): coordination-active sign tests 1.00, 0.29, 0.33
    assert [round(c["p_value"], 2) for c in active] == [1.0, 0.29, 0.33]


def test_audit_shared_inputs_and_logs(run, tmp_path, shared_data):
    d = shared_data / "noise-floor-paper"
    r = run("audit", "--counts", d / "paired_counts.csv", "--claims", d / "published_claims.csv",
            "--out", tmp_path, "--json", "--no-plot")
    assert json.loads(r.output)["counts"] == {"below": 7, "inside": 1, "above": 2}
    r = run("audit", "--log", shared_data / "tau-bench" / "gpt-4o-airline.json", "--out", tmp_path,
            "--no-plot")
    assert r.exit_code == 0 and "no clean contrast" in r.output


def test_audit_bad_csv_is_one_clear_line(run, tmp_path):
    bad = tmp_path / "c.csv"
    bad.write_text("seed,trial,contrast,wins,losses,ties\n1,0,a-b,3,two,1\n")
    r = CliRunner().invoke(cli, ["audit", "--counts", str(bad), "--out", str(tmp_path)])
    assert r.exit_code != 0
    assert f"{bad}:2: field 'losses': expected an integer" in r.output
    assert "Traceback" not in r.output


def test_contrast_json_matches_paper(run):
    r = run("contrast", "--wins", 27, "--losses", 9, "--ties", 64, "--family-size", 3, "--json")
    doc = json.loads(r.output)
    assert doc["by"] == "counts" and doc["family_size"] == 3 and doc["logs"] == []
    [row] = doc["contrasts"]
    # noise-floor paper, pull-intercept seed 1: gap 0.18, Bonferroni (m = 3) p 0.012
    assert (row["wins"], row["losses"], row["ties"], row["n"]) == (27, 9, 64, 100)
    assert row["gap"] == pytest.approx(0.18) and round(row["p_adjusted"], 3) == 0.012
    assert row["method"] == "bonferroni" and round(row["p_value"], 4) == 0.0039


def test_contrast_json_has_one_shape_from_counts_and_from_logs(run, shared_data):
    # the same document whichever form is given: the same top-level keys, the same keys in
    # every contrast record (a log's benchmark/model/seed/trial are null from counts)
    counts = json.loads(run("contrast", "--wins", 2, "--losses", 0, "--ties", 3,
                            "--json").output)
    log = json.loads(run("contrast", "--log", shared_data / "tau-bench" / "gpt-4o-airline.json",
                         "--a", "default", "--b", "default", "--trial", 0, "--trial-b", 1,
                         "--json").output)
    assert list(counts) == list(log)
    assert [list(r) for r in counts["contrasts"]] == [list(r) for r in log["contrasts"]]
    assert list(counts["left_out"]) == list(log["left_out"])
    assert counts["contrasts"][0]["seed"] is None and counts["contrasts"][0]["trial"] is None


def test_contrast_without_untied_pairs_gives_null_and_reason(run):
    doc = json.loads(run("contrast", "--wins", 0, "--losses", 0, "--ties", 5, "--json").output)
    row = doc["contrasts"][0]
    assert row["p_value"] is None and row["p_adjusted"] is None
    assert "no untied pairs" in row["reason"]
    text = run("contrast", "--wins", 0, "--losses", 0, "--ties", 5).output
    assert "p = n/a" in text


def test_contrast_rejects_negative_counts():
    r = CliRunner().invoke(cli, ["contrast", "--wins", "-1", "--losses", "2"])
    assert r.exit_code != 0 and "wins" in r.output


def test_passk_on_tau_bench_log(run, shared_data):
    path = shared_data / "tau-bench" / "gpt-4o-airline.json"
    doc = json.loads(run("passk", path, "--json").output)
    # shared/data/tau-bench/README.md: pass^1..4 = 0.420, 0.273, 0.220, 0.200
    assert {k: round(v, 3) for k, v in doc["groups"][0]["pass_hat_k"].items()} == {
        "1": 0.42, "2": 0.273, "3": 0.22, "4": 0.2}
    assert "0.273" in run("passk", path).output


def test_floor_on_tau_bench_log_uses_six_trial_pairs(run, shared_data):
    doc = json.loads(run("floor", shared_data / "tau-bench" / "gpt-4o-airline.json", "--json").output)
    pairs = {c["contrast"] for c in doc["contrasts"]}
    assert len(pairs) == 6 and doc["basis"] == "null"
    assert 0 < doc["floor"] < 0.3


def test_missing_log_is_a_usage_error():
    r = CliRunner().invoke(cli, ["floor", "/nonexistent/x.jsonl"])
    assert r.exit_code == 2 and "does not exist" in r.output


def test_floor_and_passk_on_paper_layout_with_labels(run, fixtures_dir):
    paper = fixtures_dir / "logs" / "paper"
    r = CliRunner().invoke(cli, ["floor", str(paper)])
    assert r.exit_code != 0 and "--benchmark" in r.output
    doc = json.loads(run("floor", paper, "--benchmark", "tau2/retail", "--model", "m", "--json").output)
    # trial 0 across the three protocols, and no_coord's re-run (its reader never injects);
    # pull and intercept injected peer events at trial 1, so their re-runs are skipped
    assert {(c["kind"], c["contrast"]) for c in doc["contrasts"] if c["kind"] == "reruns"} == {
        ("reruns", "no_coord[t0]-no_coord[t1]")}
    assert [r["contrast"] for r in doc["skipped_reruns"]] == [
        "intercept[t0]-intercept[t1]", "pull[t0]-pull[t1]"]
    doc = json.loads(run("passk", paper, "--benchmark", "tau2/retail", "--model", "m", "--json").output)
    assert len(doc["groups"]) == 3


def test_audit_clean_typo_is_an_error(tmp_path):
    r = CliRunner().invoke(cli, ["audit", "--clean", "no_coord-intercpt", "--out", str(tmp_path)])
    assert r.exit_code == 1 and "'no_coord-intercpt' is not among" in r.output


# --- hostile inputs (empty logs, infrastructure-only logs, dropped trials) -------------------

def _record(**kw):
    rec = {"schema_version": "1", "benchmark": "b", "model": "m", "protocol": "no_coord",
           "seed": 1, "task_id": "t1", "trial": 0, "reward": 1.0, "termination_reason": None,
           "infrastructure_error": False,
           # an empty store at the start certifies trial 0 across protocols as null (
           # without it, two protocols at trial 0 are a real contrast, not a null one)
           "store_events_at_start": 0}
    rec.update(kw)
    return json.dumps(rec)


@pytest.mark.parametrize("command", ["passk", "floor", "audit"])
def test_an_empty_log_is_an_error_not_an_empty_result(tmp_path, command):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    tau = tmp_path / "gpt-4o-retail.json"
    tau.write_text("[]")
    for args in (["--format", "jsonl", str(empty)], [str(tau)]):
        if command == "audit":
            args = ["--out", str(tmp_path / "rep")] + [a if a.startswith("-") or a == "jsonl"
                                                       else f"--log={a}" for a in args]
        r = CliRunner().invoke(cli, [command, *args])
        assert r.exit_code == 1, r.output
        assert "no trial record in" in r.output and "Traceback" not in r.output
        assert "NaN to integer" not in r.output


def test_monitor_on_an_empty_log_is_an_error_not_no_alarm(tmp_path, fixtures_dir):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    r = CliRunner().invoke(cli, ["monitor", "--format", "jsonl", str(empty), "--baseline",
                                 str(fixtures_dir / "monitor" / "baseline.jsonl"),
                                 "--fail-on-alarm"])
    assert r.exit_code == 1 and "no trial record in" in r.output and "no alarm" not in r.output


def test_passk_on_infrastructure_errors_only_is_nan_with_reason(run, tmp_path):
    log = tmp_path / "infra.jsonl"
    log.write_text(_record(reward=None, infrastructure_error=True) + "\n")
    r = run("passk", log)
    assert "n/a" in r.output and "no counted trials" in r.output
    doc = json.loads(run("passk", log, "--json").output)
    assert doc["groups"][0]["pass_hat_k"] == {"1": None}


def test_passk_table_shows_trials_without_reward(run, tmp_path):
    # A null reward that is not an infrastructure error is left out of pass^k; the text table
    # must say so (n_not_run), not only the JSON.
    log = tmp_path / "t.jsonl"
    log.write_text(_record(trial=0) + "\n" + _record(trial=1, reward=None) + "\n")
    out = run("passk", log).output
    header, row = out.splitlines()[:2]
    assert "n_not_run" in header
    assert row.split()[header.split().index("n_not_run")] == "1"


def test_audit_counts_errors_from_the_floor_name_file_and_line(tmp_path):
    head = "seed,trial,contrast,wins,losses,ties\n"
    for body, expected in (("1,0,a-b,3,2,1\n1,1,a-b,99999999999999999999,2,1\n",
                            ":3: field 'wins': expected an integer in [0, 2**63)"),
                           ("1,0,a-b,3,2,1\n1,0,b-a,2,3,1\n",
                            ":3: field 'contrast': 'b-a' is 'a-b'")):
        bad = tmp_path / "c.csv"
        bad.write_text(head + body)
        r = CliRunner().invoke(cli, ["audit", "--counts", str(bad), "--out", str(tmp_path)])
        assert r.exit_code == 1 and f"{bad}{expected}" in r.output, r.output


def test_floor_clean_pair_without_dash_is_a_clear_error(shared_data):
    r = CliRunner().invoke(cli, ["floor", str(shared_data / "tau-bench" / "gpt-4o-airline.json"),
                                 "--clean", "nonsense"])
    assert r.exit_code == 1 and "as 'a-b'" in r.output and "unpack" not in r.output


def test_floor_says_which_tasks_were_left_out_of_the_pairing(run, tmp_path, fixtures_dir):
    log = tmp_path / "t.jsonl"
    lines = [_record(protocol=p, task_id=f"t{i}", reward=float(i % 2))
             for p, n in (("no_coord", 5), ("intercept", 3)) for i in range(n)]
    log.write_text("\n".join(lines) + "\n")
    r = CliRunner().invoke(cli, ["floor", str(log)])  # stderr mixed in: no raw UserWarning
    assert r.exit_code == 0
    assert "left out: 2 task(s) present in one arm only" in r.output
    assert "UserWarning" not in r.output
    doc = json.loads(run("floor", log, "--json").output)
    assert doc["left_out"] == [{"contrast": "intercept-no_coord", "seed": 1, "n_only_a": 0,
                                "n_only_b": 2, "n_excluded": 0}]
    # the tau2 fixture: task 1 trial 1 is an infrastructure error, so the re-run pair drops it
    out = run("floor", fixtures_dir / "logs" / "tau2_dir").output
    assert "left out: 1 task(s) with an infrastructure error or no reward" in out
    assert "left out" in run("audit", "--log", fixtures_dir / "logs" / "tau2_dir",
                             "--out", tmp_path / "rep", "--no-plot").output


def test_floor_all_ties_names_no_empty_contrast(run, tmp_path):
    log = tmp_path / "t.jsonl"
    log.write_text("\n".join(_record(protocol=p, task_id=f"t{i}", reward=float(i % 2))
                             for p in ("no_coord", "intercept") for i in range(4)) + "\n")
    out = run("floor", log).output
    assert ("floor     n/a (no informative (untied) pair in the floor's contrasts: the floor "
            "is undefined); basis: null" in out) and "(;" not in out and "n/a pp" not in out
    assert "envelope  n/a (no contrast has an untied pair)" in out


def test_floor_undefined_by_random_pooling_says_why(run):
    out = run("floor", "--log", "fixtures/logs/trials.jsonl", "--pooling", "random").output
    assert ("floor     n/a (the random-effects floor is undefined (random-effects pooling "
            "needs at least two seeds; got 1)); basis: clean" in out)
    assert "envelope  n/a (no contrast has two seeds with variance to pool)" in out
    assert "SD n/a (fewer than two null gaps); each contrast" in out and "n/a pp" not in out


@pytest.mark.parametrize("value", ["99999999999999999999", "-1"])
def test_contrast_count_out_of_range_is_a_usage_error_naming_the_flag(value):
    r = CliRunner().invoke(cli, ["contrast", "--wins", value, "--losses", "1"])
    assert r.exit_code == 2 and "--wins" in r.output and "ufunc" not in r.output


def test_floor_with_both_kinds_switched_off_is_a_usage_error(shared_data):
    r = CliRunner().invoke(cli, ["floor", str(shared_data / "tau-bench" / "gpt-4o-airline.json"),
                                 "--no-trial0", "--no-reruns"])
    assert r.exit_code == 2 and "--no-trial0 and --no-reruns together" in r.output


def test_contrast_underflowing_p_is_not_printed_as_zero(run):
    out = run("contrast", "--wins", 3_000_000_000, "--losses", 1, "--family-size", 3).output
    assert "sign test  p < 1e-300" in out and "Bonferroni p < 1e-300" in out
    assert "p = 0\n" not in out
    # ordinary and undefined p-values print as before
    assert "sign test  p = 0.003933" in run("contrast", "--wins", 27, "--losses", 9,
                                            "--ties", 64).output
    assert "sign test  p = n/a" in run("contrast", "--wins", 0, "--losses", 0).output


def test_an_unexpected_exception_is_one_line_not_a_traceback(monkeypatch):
    import click as _click

    from noisefloor.cli._common import TRACEBACK_ENV, handle_errors

    @_click.command()
    @handle_errors
    def boom():
        raise OverflowError("Python int too large to convert to C long")

    monkeypatch.delenv(TRACEBACK_ENV, raising=False)
    r = CliRunner().invoke(boom, [])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit)
    assert r.output.startswith("Error: internal error (OverflowError: Python int too large")
    monkeypatch.setenv(TRACEBACK_ENV, "1")
    assert isinstance(CliRunner().invoke(boom, []).exception, OverflowError)


def test_audit_log_lists_skipped_reruns_like_floor(run, fixtures_dir, tmp_path):
    paper = fixtures_dir / "logs" / "paper"
    args = ("--benchmark", "tau2/retail", "--model", "m", "--out", tmp_path, "--no-plot")
    text = run("audit", "--log", paper, *args).output
    # the line names every candidate nothing certifies (trial-0 pairs too), so it no
    # longer says "re-run pair(s) whose reader injected peer events"
    assert ("skipped: 2 pair(s) nothing certifies as null (not null contrasts): "
            "intercept[t0]-intercept[t1], pull[t0]-pull[t1]") in text
    doc = json.loads(run("audit", "--log", paper, *args, "--json").output)
    assert [r["contrast"] for r in doc["skipped_reruns"]] == [
        "intercept[t0]-intercept[t1]", "pull[t0]-pull[t1]"]
    assert json.loads(run("audit", "--out", tmp_path, "--json", "--no-plot").output)[
        "skipped_reruns"] == []


def test_python_dash_m_runs_the_cli():
    import subprocess
    import sys

    for module in ("noisefloor", "noisefloor.cli.main"):
        out = subprocess.run([sys.executable, "-m", module, "contrast", "--wins", "27", "--losses",
                              "9", "--ties", "64"], capture_output=True, text=True, check=True)
        assert "gap        +18.0 pp" in out.stdout, (module, out.stdout, out.stderr)


def test_underflowed_p_prints_as_below_1e_300_not_0(tmp_path, run):
    base = {"schema_version": "1", "benchmark": "b", "model": "m", "termination_reason": "stop",
            "infrastructure_error": False, "seed": 1}
    lines = [{**base, "protocol": p, "task_id": f"T{i}", "trial": t,
              "reward": (r if t == 1 else 1.0)}
             for p, r in (("a", 1.0), ("b", 0.0)) for t in (0, 1) for i in range(1200)]
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = run("contrast", "--log", path, "--a", "a", "--b", "b").output
    assert "<1e-300" in out
    row = [line for line in out.splitlines() if "1200/0/0" in line][0]
    assert not row.rstrip().endswith(" 0")


def test_values_from_a_file_are_not_rewritten_as_flags(tmp_path):
    # the CLI turns Python keywords into option names; a duplicate trial's key values read from
    # the file must not come out as if the user had typed --benchmark / --model
    rec = {"schema_version": "1", "benchmark": "tau2/retail", "model": "m", "protocol": "p",
           "seed": 300, "task_id": "1", "trial": 0, "reward": 1.0, "termination_reason": "x",
           "infrastructure_error": False}
    path = tmp_path / "dup.jsonl"
    path.write_text((json.dumps(rec) + "\n") * 2)
    r = CliRunner().invoke(cli, ["passk", str(path)])
    assert r.exit_code == 1 and "duplicate trial" in r.output
    assert "--benchmark" not in r.output and "benchmark 'tau2/retail'" in r.output


def test_passk_default_k_counts_trials_as_pass_hat_k_does(run, tmp_path):
    # task t1: three trials, the second an infrastructure error; task t2: two trials and a
    # third that never ran. pass^k counts two trials per task under --infrastructure-errors
    # exclude, so the default k stops at 2 (it went to 3, a NaN row from trials not counted);
    # under "fail" t1 has three counted trials, so k = 3 is reported.
    lines = [_record(task_id="t1", trial=0), _record(task_id="t1", trial=1, reward=None,
                                                      infrastructure_error=True),
             _record(task_id="t1", trial=2, reward=0.0),
             _record(task_id="t2", trial=0), _record(task_id="t2", trial=1),
             _record(task_id="t2", trial=2, reward=None)]
    log = tmp_path / "t.jsonl"
    log.write_text("\n".join(lines) + "\n")
    doc = json.loads(run("passk", log, "--json").output)
    # tau-bench estimator by hand: t1 C(1,1)/C(2,1) = 1/2, t2 1; k = 2: t1 0, t2 1
    assert doc["groups"][0]["pass_hat_k"] == {"1": 0.75, "2": 0.5}
    fail = json.loads(run("passk", log, "--json", "--infrastructure-errors", "fail").output)
    # t1 has 3 counted trials (1 success), t2 2: k = 3 exceeds t2's count -> NaN (null)
    assert fail["groups"][0]["pass_hat_k"] == {"1": pytest.approx((1 / 3 + 1) / 2), "2": 0.5, "3": None}


def test_passk_prints_a_missing_seed_as_floor_does(run, tmp_path):
    # seed null: floor, contrast and audit print "none"; passk printed "<NA>"
    log = tmp_path / "t.jsonl"
    log.write_text(_record(seed=None) + "\n" + _record(seed=None, trial=1) + "\n")
    header, row = run("passk", log).output.splitlines()[:2]
    assert row.split()[header.split().index("seed")] == "none"
    assert json.loads(run("passk", log, "--json").output)["groups"][0]["seed"] is None
