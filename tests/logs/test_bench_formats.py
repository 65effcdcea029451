"""Terminal-Bench 0.x runs and Harbor job folders: detection, mapping, the tools' own figures.

Fixtures are written by ``make_bench_logs.py`` from the tools' documented data models (neither
tool installs here); each run carries the figures its tool computes (Terminal-Bench's
``accuracy`` and ``pass_at_k``, Harbor's mean reward), which noisefloor must reproduce.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.logs import LogValidationError, detect_format, load_trials, validate_logs
from noisefloor.logs.formats.terminalbench import PublishedFiguresWarning, published_figures
from noisefloor.logs.records.errors import InfrastructureRewardWarning
from noisefloor.passk import pass_at_k, pass_hat_k

sys.path.insert(0, str(Path(__file__).parent))
from make_bench_logs import write_harbor_job, write_terminal_bench_run

#: 3 tasks x 5 attempts; a null is_resolved (agent timeout) counts as unresolved.
OUTCOMES = {"hello-world": [True, True, False, True, None],
            "fix-git": [False, False, False, False, False],
            "csv-to-parquet": [True, True, True, True, True]}


@pytest.fixture()
def tb_run(tmp_path):
    return write_terminal_bench_run(tmp_path / "runs", "2025-06-01__12-00-00", OUTCOMES)


def test_terminal_bench_run_is_detected_and_mapped(tb_run):
    assert detect_format(tb_run) == "terminal-bench"
    assert detect_format(tb_run.parent) == "terminal-bench"
    # the runs folder: one run (the per-attempt results.json inside it are not read again)
    frame = load_trials(tb_run.parent.parent)
    assert len(frame) == 15
    assert set(frame["benchmark"]) == {"terminal-bench-core@0.1.1"}
    assert set(frame["model"]) == {"anthropic/claude-sonnet-4"}
    assert set(frame["protocol"]) == {"terminus"}
    hello = frame[frame["task_id"] == "hello-world"].sort_values("trial")
    assert hello["trial"].tolist() == [0, 1, 2, 3, 4]
    assert hello["reward"].tolist() == [1.0, 1.0, 0.0, 1.0, 0.0]
    last = hello.iloc[4]
    assert last["extra"]["is_resolved"] is None and last["termination_reason"] == "agent_timeout"
    assert not frame["infrastructure_error"].any()


def test_terminal_bench_own_accuracy_and_pass_at_k_reproduced(tb_run):
    frame = load_trials(tb_run)
    figures = published_figures(json.loads(tb_run.read_text()))
    # by hand: 8 of 15 attempts resolved; pass@2 = (1 - C(2,2)/C(5,2) + 0 + 1) / 3 = 1.9 / 3
    assert figures["accuracy"] == pytest.approx(8 / 15)
    assert figures["pass_at_k"][2] == pytest.approx(1.9 / 3)
    assert pass_hat_k(frame, 1).value == pytest.approx(figures["accuracy"], abs=1e-12)
    for k, published in figures["pass_at_k"].items():
        ours = pass_at_k(frame, k).value
        if published is None:  # Terminal-Bench: no task has k attempts
            assert math.isnan(ours)
        else:
            assert ours == pytest.approx(published, abs=1e-12)


def test_single_attempt_runs_of_one_configuration_are_re_runs(tmp_path):
    runs = tmp_path / "runs"
    for i in range(5):
        write_terminal_bench_run(runs, f"2025-06-0{i + 1}__12-00-00",
                                 {t: [v[i]] for t, v in OUTCOMES.items()})
    # another configuration beside them keeps its own numbering
    write_terminal_bench_run(runs, "2025-06-09__12-00-00", {t: [True] for t in OUTCOMES},
                             model="openai/gpt-5")
    frame = load_trials(runs)
    mine = frame[frame["model"] == "anthropic/claude-sonnet-4"]
    assert sorted(mine.groupby("task_id")["trial"].apply(list).iloc[0]) == [0, 1, 2, 3, 4]
    hello = mine[mine["task_id"] == "hello-world"].sort_values("trial")
    assert hello["reward"].tolist() == [1.0, 1.0, 0.0, 1.0, 0.0]  # run order = attempt order
    assert frame[frame["model"] == "openai/gpt-5"]["trial"].tolist() == [0, 0, 0]
    # five runs read as five attempts give the five-attempt run's pass@k
    assert pass_at_k(mine, 2).value == pytest.approx(1.9 / 3)


def test_run_files_without_metadata_need_a_model(tmp_path):
    folder = tmp_path / "files"
    for i in range(2):
        write_terminal_bench_run(folder, f"run{i}", {t: [v[i]] for t, v in OUTCOMES.items()},
                                 file_name=f"run{i}.json")
    with pytest.raises(LogValidationError, match="model"):
        load_trials(folder)
    frame = load_trials(folder, model="m")
    assert set(frame["benchmark"]) == {"terminal-bench"} and set(frame["protocol"]) == {"default"}
    assert sorted(frame["trial"].unique()) == [0, 1]
    result = CliRunner().invoke(cli, ["passk", str(folder)])
    assert result.exit_code != 0 and "--model" in result.output


def test_terminal_bench_edited_accuracy_warns(tmp_path, tb_run):
    doc = json.loads(tb_run.read_text())
    doc["accuracy"] = 0.9
    tb_run.write_text(json.dumps(doc))
    with pytest.warns(PublishedFiguresWarning, match="8 of its 15 attempts"):
        load_trials(tb_run)


def test_terminal_bench_bad_trial_name_is_named(tb_run):
    doc = json.loads(tb_run.read_text())
    doc["results"][3]["trial_name"] = "hello-world"
    doc["results"][6]["is_resolved"] = "yes"
    tb_run.write_text(json.dumps(doc))
    report = validate_logs(tb_run)
    found = [(p.line, p.field) for p in report.problems]
    assert (4, "trial_name") in found and (7, "reward") in found
    assert report.n_valid == 13


HARBOR_TRIALS = [("hello-world", 1.0, None), ("hello-world", 0.0, None),
                 ("fix-git", None, "AgentSetupError"), ("fix-git", 0.0, None),
                 ("fix-git", 0.0, None), ("fix-git", 1.0, None),
                 ("csv-to-parquet", 1.0, None), ("csv-to-parquet", 1.0, None)]


def test_harbor_job_is_detected_and_mapped(tmp_path):
    job = write_harbor_job(tmp_path / "jobs", "job-a", HARBOR_TRIALS)
    assert detect_format(job) == "harbor"
    first = sorted(job.glob("*/result.json"))[0]
    assert detect_format(first) == "harbor"
    report = validate_logs(tmp_path / "jobs")  # config.json files are not taken for logs
    assert report.ok and report.n_valid == 8
    frame = load_trials(job)
    assert set(frame["benchmark"]) == {"terminal-bench@2.0"}
    assert set(frame["model"]) == {"anthropic/claude-sonnet-4-5"}
    assert set(frame["protocol"]) == {"terminus-2"}
    fix = frame[frame["task_id"] == "fix-git"].sort_values("trial")
    assert fix["trial"].tolist() == [0, 1, 2, 3]  # start order
    assert fix["infrastructure_error"].tolist() == [True, False, False, False]
    assert math.isnan(fix["reward"].iloc[0])
    assert fix["termination_reason"].iloc[0] == "exception: AgentSetupError"


def test_harbor_exception_is_never_a_score(tmp_path):
    job = write_harbor_job(tmp_path / "jobs", "job-a", HARBOR_TRIALS)
    frame = load_trials(job)
    # default: the exception is left out: (1/2 + 1/3 + 1) / 3
    assert pass_hat_k(frame, 1).value == pytest.approx((0.5 + 1 / 3 + 1.0) / 3)
    # counted as a failure: (1/2 + 1/4 + 1) / 3 (a mean over tasks)
    assert pass_hat_k(frame, 1, infrastructure_errors="fail").value == pytest.approx(
        (0.5 + 0.25 + 1.0) / 3)


def test_harbor_own_mean_reproduced(tmp_path):
    # Harbor's mean is over trials, an exception counting 0; with equal trials per task it is
    # pass^1 with infrastructure errors counted as failures
    trials = [("a", 1.0, None), ("a", None, "AgentSetupError"), ("b", 0.0, None),
              ("b", 1.0, None), ("c", 0.5, None), ("c", 1.0, None)]
    job = write_harbor_job(tmp_path / "jobs", "job-d", trials)
    evals = json.loads((job / "result.json").read_text())["stats"]["evals"]
    published = next(iter(evals.values()))["metrics"][0]["mean"]
    assert published == pytest.approx(3.5 / 6)
    frame = load_trials(job)
    rewards = frame["reward"].fillna(0.0)
    assert float(rewards.mean()) == pytest.approx(published)
    # pass^1 counts a partial reward (0.5) as a failure, as every pass^k does
    assert pass_hat_k(frame, 1, infrastructure_errors="fail").value == pytest.approx(3 / 6)


def test_harbor_exception_with_a_reward_warns(tmp_path):
    trials = [("t", 1.0, "AgentTimeoutError"), ("t", 1.0, None)]
    job = write_harbor_job(tmp_path / "jobs", "job-b", trials)
    with pytest.warns(InfrastructureRewardWarning, match="1 trial"):
        frame = load_trials(job)
    row = frame.sort_values("trial").iloc[0]
    assert row["infrastructure_error"] and math.isnan(row["reward"])
    assert row["extra"]["recorded_reward"] == 1.0


def test_harbor_unclear_reward_is_a_problem(tmp_path):
    job = write_harbor_job(tmp_path / "jobs", "job-c", [("t", 1.0, None), ("t", 0.0, None)])
    trial = sorted(job.glob("*/result.json"))[0]
    doc = json.loads(trial.read_text())
    doc["verifier_result"]["rewards"] = {"a": 1.0, "b": 0.0}
    trial.write_text(json.dumps(doc))
    report = validate_logs(job)
    assert [p.field for p in report.problems] == ["verifier_result.rewards"]
    assert report.n_valid == 1


def test_passk_cli_reads_harbor_and_terminal_bench(tmp_path, tb_run):
    write_harbor_job(tmp_path / "jobs", "job-a", HARBOR_TRIALS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = CliRunner().invoke(cli, ["passk", str(tb_run.parent), str(tmp_path / "jobs"),
                                          "--k", "1,2", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    tb = next(g for g in doc["groups"] if g["protocol"] == "terminus")
    assert tb["pass_at_k"]["2"] == pytest.approx(1.9 / 3)
    assert tb["pass_hat_k"]["1"] == pytest.approx(8 / 15)


def test_harbor_schema_problem_names_the_trial(tmp_path):
    job = write_harbor_job(tmp_path / "jobs", "job-e", [("t", 1.0, None), ("t", 0.0, None)])
    trials = sorted(p.parent for p in job.glob("*/result.json"))
    doc = json.loads((trials[1] / "result.json").read_text())
    doc["verifier_result"]["rewards"]["reward"] = 1.5
    (trials[1] / "result.json").write_text(json.dumps(doc))
    report = validate_logs(job)
    (problem,) = report.problems
    assert (problem.source, problem.line, problem.field) == (str(job), 2, "reward")
    good = load_trials(trials[0])  # a trial read alone: its own file, line 1
    assert good["source"].tolist() == [str(trials[0] / "result.json")]


def test_per_attempt_files_in_a_submission_layout_are_re_runs(tmp_path):
    # a leaderboard submission keeps only the attempts' own results.json:
    # <agent>/<task>/<task>.1-of-1.<run_id>/results.json, one folder per run
    import shutil

    runs = tmp_path / "runs"
    for i in range(3):
        write_terminal_bench_run(runs, f"2025-06-0{i + 1}__12-00-00",
                                 {t: [v[i]] for t, v in OUTCOMES.items()})
    submission = tmp_path / "submission" / "terminus"
    for trial in runs.glob("*/*/*/results.json"):
        target = submission / trial.parent.parent.name / trial.parent.name
        shutil.copytree(trial.parent, target)
    one = next(submission.glob("hello-world/*/results.json"))
    assert detect_format(one) == "terminal-bench" and detect_format(one.parent) == "terminal-bench"
    with pytest.raises(LogValidationError, match="model"):
        load_trials(submission)
    frame = load_trials(submission, model="m", protocol="terminus")
    assert len(frame) == 9
    hello = frame[frame["task_id"] == "hello-world"].sort_values("trial")
    assert hello["trial"].tolist() == [0, 1, 2]
    assert hello["reward"].tolist() == [1.0, 1.0, 0.0]  # run order: attempts 1, 2, 3
    # inside a run folder, the run's metadata names the configuration
    inside = load_trials(next(runs.glob("*/hello-world")))
    assert set(inside["model"]) == {"anthropic/claude-sonnet-4"} and len(inside) == 1
