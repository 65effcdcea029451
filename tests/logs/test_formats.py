"""Format readers: tau-bench v1 (real file), tau2-bench (both layouts), the paper layout."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from noisefloor.logs import COLUMNS, LogValidationError, detect_format, load_trials, validate_logs

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "fixtures" / "logs"


@pytest.fixture(scope="module")
def airline(shared_data) -> Path:
    return shared_data / "tau-bench" / "gpt-4o-airline.json"


# ---------------------------------------------------------------- tau-bench v1 (real data)


def test_tau_bench_real_file_loads_200_trials_of_50_tasks(airline):
    df = load_trials(airline)
    assert detect_format(airline) == "tau-bench"
    assert tuple(df.columns) == COLUMNS
    assert len(df) == 200 and df["task_id"].nunique() == 50
    assert (df.groupby("task_id").size() == 4).all()
    assert sorted(df["trial"].unique()) == [0, 1, 2, 3]
    assert set(df["model"]) == {"gpt-4o"} and set(df["benchmark"]) == {"tau/airline"}
    assert set(df["protocol"]) == {"default"} and df["seed"].isna().all()
    # task ids are str(int): "0".."49", never zero-padded or left as ints
    assert set(df["task_id"]) == {str(i) for i in range(50)}
    assert df["line"].tolist() == list(range(1, 201))
    assert not df["infrastructure_error"].any()


def test_tau_bench_rewards_match_published_pass1(airline):
    # README of ../shared/data/tau-bench: published pass^1 = 0.420 for this file; with 4 trials
    # per task pass^1 is the mean success, and every reward here is 0 or 1.
    df = load_trials(airline)
    assert set(df["reward"]) == {0.0, 1.0}
    assert df["reward"].mean() == pytest.approx(0.420, abs=5e-4)


def test_tau_bench_null_reward_info_keeps_reward(airline):
    raw = json.loads(airline.read_text())
    null_info = [(str(r["task_id"]), r["trial"], r["reward"]) for r in raw
                 if r["info"].get("reward_info") is None]
    assert len(null_info) == 5
    df = load_trials(airline).set_index(["task_id", "trial"])
    for task_id, trial, reward in null_info:
        assert df.loc[(task_id, trial), "reward"] == reward


def test_tau_bench_labels_from_parameters(tmp_path, airline):
    renamed = tmp_path / "run.json"
    shutil.copy(airline, renamed)
    with pytest.raises(LogValidationError, match=r"run\.json: cannot infer model and benchmark"):
        load_trials(renamed)
    df = load_trials(renamed, model="gpt-4o-2024-05-13", benchmark="tau/airline",
                     protocol="solo")
    assert set(df["model"]) == {"gpt-4o-2024-05-13"} and set(df["protocol"]) == {"solo"}


def test_tau_bench_error_record_is_an_infrastructure_error(tmp_path):
    items = [
        {"task_id": 3, "trial": 0, "reward": 1.0, "info": {"reward_info": None}, "traj": []},
        {"task_id": 3, "trial": 1, "reward": 0.0,
         "info": {"error": "RateLimitError", "traceback": "..."}, "traj": []},
    ]
    path = tmp_path / "gpt-4o-retail.json"
    path.write_text(json.dumps(items))
    df = load_trials(path)
    assert df["benchmark"].iloc[0] == "tau/retail"
    assert df["infrastructure_error"].tolist() == [False, True]
    assert math.isnan(df["reward"].iloc[1])
    assert df["extra"].iloc[1]["recorded_reward"] == 0.0
    assert df["termination_reason"].iloc[1] == "error: RateLimitError"


def test_tau_bench_bad_record_names_index_and_field(tmp_path):
    items = [{"task_id": 1, "trial": 0, "reward": 1.0, "info": {}, "traj": []},
             {"task_id": 1, "trial": "1", "reward": 1.0, "info": {}, "traj": []}]
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(items))
    with pytest.raises(LogValidationError, match=r"gpt-4o-airline\.json:2: trial: "):
        load_trials(path)


# ---------------------------------------------------------------- tau2-bench


def test_tau2_both_layouts_give_identical_frames():
    single = load_trials(FIX / "tau2_json")
    split = load_trials(FIX / "tau2_dir")
    # the run's name is its directory's
    pd.testing.assert_frame_equal(single.drop(columns=["source", "run"]),
                                  split.drop(columns=["source", "run"]))
    assert set(single["run"]) == {"tau2_json"} and set(split["run"]) == {"tau2_dir"}
    assert set(single["source"]) == {str(FIX / "tau2_json" / "results.json")}
    assert all("/simulations/" in s for s in split["source"])
    # also through the results.json path of each layout
    pd.testing.assert_frame_equal(load_trials(FIX / "tau2_dir" / "results.json"), split)


def test_tau2_field_mapping():
    df = load_trials(FIX / "tau2_json" / "results.json")
    assert detect_format(FIX / "tau2_json" / "results.json") == "tau2"
    assert detect_format(FIX / "tau2_dir") == "tau2"
    assert df["task_id"].tolist() == ["0", "0", "1", "1", "007", "007"]
    assert df["trial"].tolist() == [0, 1, 0, 1, 0, 1]
    assert set(df["benchmark"]) == {"tau2/retail"}
    assert set(df["model"]) == {"claude-haiku-4-5"} and set(df["protocol"]) == {"default"}
    # the configuration seed is info.seed; tau2's per-trial seeds are kept in extra
    assert df["seed"].tolist() == [300] * 6
    assert [e["simulation_seed"] for e in df["extra"]] == [300, 301, 300, 301, 300, 301]
    infra = df[df["infrastructure_error"]]
    assert infra["termination_reason"].tolist() == ["infrastructure_error"]
    assert infra["reward"].isna().all() and df["reward"].notna().sum() == 5
    assert df["extra"].iloc[0]["simulation_id"] == "sim-00-0-0"
    assert df["extra"].iloc[0]["user_llm"] == "gpt-4.1-2025-04-14"
    assert set(load_trials(FIX / "tau2_dir", protocol="pull")["protocol"]) == {"pull"}


@pytest.fixture()
def tau2_dir(tmp_path) -> Path:
    return Path(shutil.copytree(FIX / "tau2_dir", tmp_path / "run"))


def test_tau2_dir_missing_simulation_file(tau2_dir):
    (tau2_dir / "simulations" / "sim-02-1-0.json").unlink()
    with pytest.raises(LogValidationError,
                       match=r"results\.json:3: simulation_index\.id: indexed simulation has no "
                             r"file simulations/sim-02-1-0\.json"):
        load_trials(tau2_dir)


def test_tau2_dir_file_outside_index(tau2_dir):
    shutil.copy(tau2_dir / "simulations" / "sim-00-0-0.json",
                tau2_dir / "simulations" / "stray.json")
    with pytest.raises(LogValidationError, match=r"stray\.json: simulation file is not in"):
        load_trials(tau2_dir)


def test_tau2_dir_index_disagrees_with_file(tau2_dir):
    meta = json.loads((tau2_dir / "results.json").read_text())
    meta["simulation_index"][4]["reward"] = 1.0
    (tau2_dir / "results.json").write_text(json.dumps(meta))
    with pytest.raises(LogValidationError,
                       match=r"sim-04-007-0\.json:5: reward: results\.json's simulation_index "
                             r"disagrees"):
        load_trials(tau2_dir)


def test_tau2_integer_task_id_is_an_error(tmp_path):
    run = json.loads((FIX / "tau2_json" / "results.json").read_text())
    run["simulations"][2]["task_id"] = 1
    path = tmp_path / "results.json"
    path.write_text(json.dumps(run))
    with pytest.raises(LogValidationError) as info:
        load_trials(path)
    problem = info.value.problems[0]
    assert (problem.line, problem.field, problem.received) == (3, "task_id", "an integer 1")


def test_tau2_missing_agent_llm_needs_model(tmp_path):
    run = json.loads((FIX / "tau2_json" / "results.json").read_text())
    run["info"]["agent_info"]["llm"] = None
    path = tmp_path / "results.json"
    path.write_text(json.dumps(run))
    with pytest.raises(LogValidationError, match=r"info\.agent_info\.llm: cannot name the model"):
        load_trials(path)
    assert set(load_trials(path, model="my-agent")["model"]) == {"my-agent"}


# ---------------------------------------------------------------- the paper's layout


def test_paper_layout_directory():
    df = load_trials(FIX / "paper", benchmark="tau2/retail", model="claude-haiku-4-5")
    assert len(df) == 24
    assert df.groupby("protocol").size().to_dict() == {"intercept": 8, "no_coord": 8, "pull": 8}
    assert detect_format(FIX / "paper" / "pull" / "trials.jsonl") == "paper"
    err = df[df["infrastructure_error"]]
    assert len(err) == 1 and err["reward"].isna().all()
    assert err["termination_reason"].iloc[0].startswith("harness_error:")
    assert (err["protocol"].iloc[0], err["task_id"].iloc[0], err["trial"].iloc[0]) == (
        "no_coord", "13", 1)
    assert df["extra"].iloc[0] == {"turns": 11}
    assert set(df["seed"]) == {1}
    # trial-0 first requests of no_coord and intercept are byte-identical (the clean contrast)
    t0 = df[df["trial"] == 0].set_index(["protocol", "task_id"])["first_request_sha256"]
    assert (t0["no_coord"] == t0["intercept"]).all() and (t0["pull"] != t0["no_coord"]).all()


def test_paper_layout_needs_benchmark_and_model():
    with pytest.raises(LogValidationError,
                       match=r"intercept/trials\.jsonl:1: benchmark: the line does not record "
                             r"benchmark or model; pass benchmark= and model="):
        load_trials(FIX / "paper")


def test_paper_line_in_wrong_folder(tmp_path):
    folder = tmp_path / "pull"
    folder.mkdir()
    lines = (FIX / "paper" / "pull" / "trials.jsonl").read_text().splitlines()
    lines[3] = lines[3].replace('"protocol": "pull"', '"protocol": "intercept"')
    (folder / "trials.jsonl").write_text("\n".join(lines) + "\n")
    report = validate_logs(tmp_path, benchmark="b", model="m")
    assert [(p.line, p.field) for p in report.problems] == [(4, "protocol")]
    assert report.n_valid == 7


def test_forced_format_mismatch_is_reported(airline):
    with pytest.raises(LogValidationError, match=r"gpt-4o-airline\.json:"):
        load_trials(airline, format="jsonl")


def test_mixed_directory(tmp_path):
    shutil.copytree(FIX / "tau2_dir", tmp_path / "tau2run")
    shutil.copy(FIX / "trials.jsonl", tmp_path / "own.jsonl")
    df = load_trials(tmp_path)
    assert len(df) == 12
    assert set(df["benchmark"]) == {"tau2/retail", "tau2/airline"}


def test_empty_directory(tmp_path):
    with pytest.raises(LogValidationError, match="directory holds no .jsonl/.json/.eval log"):
        load_trials(tmp_path)


def test_paper_reader_with_full_schema_lines_loses_nothing(tmp_path):
    # lines that happen to carry every TrialRecord field must still go through the paper
    # mapping (and not be dropped by the native fast path)
    folder = tmp_path / "no_coord"
    folder.mkdir()
    (folder / "trials.jsonl").write_bytes((FIX / "trials.jsonl").read_bytes().replace(
        b'"protocol": "no_coord"', b'"protocol": "no_coord"'))
    df = load_trials(folder / "trials.jsonl", format="paper")
    assert len(df) == 6 and set(df["protocol"]) == {"no_coord"}


# ---------------------------------------------------------------- hostile JSON documents


def _pretty_run(tmp_path, text: str) -> Path:
    path = tmp_path / "results.json"
    path.write_text(text)
    return path


def test_tau2_document_errors_name_line_and_column(tmp_path):
    pretty = json.dumps(json.loads((FIX / "tau2_json" / "results.json").read_text()), indent=2)
    lines = pretty.split("\n")
    # a syntax error on line 121
    bad = lines[:120] + [lines[120] + ",,"] + lines[121:]
    report = validate_logs(_pretty_run(tmp_path, "\n".join(bad)))
    assert "(line 121, column" in report.problems[0].message
    # a duplicate key: the object holding it is located
    at = next(i for i, line in enumerate(lines) if '"trial": 1,' in line)
    dup = lines[:at] + [lines[at] + ' "trial": 1,'] + lines[at + 1:]
    message = validate_logs(_pretty_run(tmp_path, "\n".join(dup))).problems[0].message
    # the simulation's "{" is the line before its "id" (0-based index = 1-based line of "{")
    opener = max(i for i in range(at) if '"id": "sim-' in lines[i])
    assert lines[opener - 1].strip() == "{"
    assert message.startswith("duplicate key 'trial' in one object (in the object starting at "
                              f"line {opener}, column ")
    # a NaN literal, and invalid UTF-8, likewise
    nan = pretty.replace('"reward": 1.0', '"reward": NaN', 1)
    assert "in the object starting at line" in validate_logs(_pretty_run(tmp_path, nan)).problems[0].message
    path = tmp_path / "results.json"
    path.write_bytes(pretty.replace("retail", "r\xe9tail", 1).encode("latin-1"))
    assert re.search(r"not valid UTF-8 \(byte 0xe9 at line \d+, column \d+\)",
                     validate_logs(path).problems[0].message)


def test_tau_bench_minified_nan_is_located(tmp_path):
    path = tmp_path / "gpt-4o-retail.json"
    path.write_text('[{"task_id": 1, "trial": 0, "reward": 1.0, "info": {}, "traj": []}, '
                    '{"task_id": 2, "trial": 0, "reward": NaN, "info": {}, "traj": []}]')
    message = validate_logs(path).problems[0].message
    assert message.endswith("(in the object starting at line 1, column 69)")


def test_tau2_missing_reward_info_is_a_null_reward_as_in_tau2(tmp_path):
    # Issue 9: tau2's SimulationRun declares ``reward_info: Optional[RewardInfo] = None``
    # (src/tau2/data_model/simulation.py), so a simulation without the key is valid there and
    # its reward is None (``sim.reward_info.reward if sim.reward_info else None``). This test
    # used to demand an error for the missing key; tau2 itself loads the file.
    run = json.loads((FIX / "tau2_json" / "results.json").read_text())
    del run["simulations"][0]["reward_info"]
    path = _pretty_run(tmp_path, json.dumps(run))
    assert validate_logs(path).ok
    assert math.isnan(load_trials(path)["reward"].iloc[0])
    # an explicit null is the same null reward
    run["simulations"][0]["reward_info"] = None
    assert validate_logs(_pretty_run(tmp_path, json.dumps(run))).ok
    # but a reward_info object without its reward is still an error, not a silent null
    run["simulations"][0]["reward_info"] = {"info": {}}
    report = validate_logs(_pretty_run(tmp_path, json.dumps(run)))
    assert [(p.line, p.field) for p in report.problems] == [(1, "reward")]


def test_a_log_reached_twice_is_named_not_reported_as_self_duplicates(tmp_path):
    src = FIX / "trials.jsonl"
    (tmp_path / "d").mkdir()
    copy = Path(shutil.copy(src, tmp_path / "d" / "trials.jsonl"))
    for paths in ([copy, tmp_path / "d" / "." / "trials.jsonl"], [tmp_path / "d", copy],
                  [FIX / "tau2_dir", FIX / "tau2_dir" / "results.json"]):
        with pytest.raises(LogValidationError, match="this log is read twice") as info:
            load_trials(paths)
        assert "duplicate trial" not in str(info.value)
        with pytest.raises(LogValidationError, match="read twice"):
            validate_logs(paths)


def test_a_json_object_that_is_not_a_tau2_run_says_so(tmp_path):
    path = tmp_path / "gpt-4o-retail.json"
    path.write_text('{"results": [{"task_id": 1, "trial": 0, "reward": 1.0}]}')
    problem, = validate_logs(path, format="tau2").problems  # forced: the tau2 reader says it
    assert problem.message.startswith("not a tau2-bench results.json")
    assert problem.received == "an object with keys 'results'"
    assert "domain_name" not in str(problem)


def test_utf16_log_gets_a_hint(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes('{"schema_version": "1"}\n'.encode("utf-16"))
    with pytest.warns(UserWarning, match="final line is truncated"):  # UTF-16's last NUL byte
        problem = validate_logs(path, format="jsonl").problems[0]
    assert "UTF-16 byte-order mark: save the file as UTF-8" in problem.message


def test_validate_reports_a_log_with_no_record(tmp_path):
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n")
    tau = tmp_path / "gpt-4o-retail.json"
    tau.write_text("[]")
    report = validate_logs([tau, FIX / "trials.jsonl"])
    assert [(p.source, p.message) for p in report.problems] == [
        (str(tau), "the log holds no trial record")]
    assert report.n_valid > 0 and not report.ok
    forced = validate_logs(blank, format="jsonl")
    assert [p.message for p in forced.problems] == ["the log holds no trial record"]


def test_tau2_dir_malformed_index_entry_is_located(tau2_dir):
    meta = json.loads((tau2_dir / "results.json").read_text())
    meta["simulation_index"][2]["id"] = 5
    (tau2_dir / "results.json").write_text(json.dumps(meta))
    problem, = validate_logs(tau2_dir).problems
    assert (problem.line, problem.field, problem.received) == (3, "simulation_index.id",
                                                                "an integer 5")


def test_tau2_bad_run_seed_is_one_problem_under_its_own_name(tmp_path):
    run = json.loads((FIX / "tau2_json" / "results.json").read_text())
    run["info"]["seed"] = "300"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(run))
    problem, = validate_logs(path).problems  # not one "seed" problem per simulation
    assert (problem.line, problem.field, problem.received) == (None, "info.seed", "a string '300'")


def test_noisefloor_records_saved_as_a_json_array_are_not_a_tau_bench_list(tmp_path):
    # they carry task_id and reward like tau-bench entries, but the tau-bench reader would drop
    # their seed, labels, infrastructure flag and coordination fields: refused with the remedy
    src = Path(__file__).resolve().parents[2] / "fixtures" / "logs" / "trials.jsonl"
    records = [json.loads(line) for line in src.read_text().splitlines() if line.strip()]
    path = tmp_path / "arr.json"
    path.write_text(json.dumps(records))
    report = validate_logs([path])
    assert report.n_valid == 0 and len(report.problems) == 1
    problem = report.problems[0]
    assert problem.message == "not a recognised trial log"
    assert "noisefloor trial records (it has 'schema_version')" in str(problem)
    assert "one object per line (JSONL)" in str(problem)
    # a paper-layout array (protocol, no schema_version) likewise
    for r in records:
        del r["schema_version"]
    path.write_text(json.dumps(records))
    assert "(it has 'protocol')" in str(validate_logs([path]).problems[0])
