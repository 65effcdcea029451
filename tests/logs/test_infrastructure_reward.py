"""An infrastructure error never produced a result: a reward beside it is refused or counted.

Regression: ``infrastructure_error: true``
with ``reward: 1.0`` was accepted, and pass^k then silently dropped the recorded success
(``--infrastructure-errors exclude``) or turned it into a failure (``fail``).
"""

from __future__ import annotations

import json
import math
import shutil
import warnings
from pathlib import Path

import pytest

from noisefloor.logs import (
    InfrastructureRewardWarning,
    LogValidationError,
    load_trials,
    trial_record_json_schema,
    validate_logs,
)
from noisefloor.logs.jsonl.columns import arrow_block, fast_arrays

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
EXPECTED = "null when infrastructure_error is true"


def record(**changes):
    rec = {"schema_version": "1", "benchmark": "tau2/retail", "model": "m", "protocol": "pull",
           "seed": 1, "task_id": "1", "trial": 0, "reward": 1.0,
           "termination_reason": "user_stop", "infrastructure_error": False}
    rec.update(changes)
    return rec


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("reward", [1.0, 0.0, 0.5, 1])
@pytest.mark.parametrize("n_good", [0, 3, 5000])  # 5000: the Arrow block fast path first
def test_jsonl_infrastructure_error_with_a_reward_is_a_located_error(tmp_path, reward, n_good):
    good = [record(task_id=str(i)) for i in range(n_good)]
    bad = record(task_id="x", reward=reward, infrastructure_error=True,
                 termination_reason="infrastructure_error")
    path = write(tmp_path / "t.jsonl", good + [bad] + [record(task_id="y")])
    problem, = validate_logs(path).problems
    assert (problem.line, problem.field, problem.expected) == (n_good + 1, "reward", EXPECTED)
    assert problem.received.endswith(repr(float(reward)) if isinstance(reward, float) else str(reward))
    assert "never produced a result" in problem.message
    with pytest.raises(LogValidationError, match=rf"t\.jsonl:{n_good + 1}: reward: "):
        load_trials(path)


def test_null_reward_with_infrastructure_error_still_loads(tmp_path):
    path = write(tmp_path / "t.jsonl", [record(), record(task_id="2", reward=None,
                                                          infrastructure_error=True)])
    df = load_trials(path)
    assert df["infrastructure_error"].tolist() == [False, True] and math.isnan(df["reward"][1])


def test_other_problems_of_the_record_are_reported_beside_it(tmp_path):
    path = write(tmp_path / "t.jsonl", [record(task_id=7, infrastructure_error=True)])
    assert sorted(p.field for p in validate_logs(path).problems) == ["reward", "task_id"]


def test_fast_paths_do_not_vouch_for_the_contradiction():
    recs = [record(), record(task_id="2", infrastructure_error=True)]
    assert fast_arrays(recs) is None
    assert fast_arrays([recs[0], record(task_id="2", reward=None, infrastructure_error=True)])
    data = "\n".join(json.dumps(r) for r in recs).encode()
    assert arrow_block(data) is None


def test_json_schema_states_the_rule():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(trial_record_json_schema())
    assert validator.is_valid(record(reward=None, infrastructure_error=True))
    assert not validator.is_valid(record(reward=1.0, infrastructure_error=True))
    assert validator.is_valid(record(reward=1.0))


# ---------------------------------------------------------------- the paper layout

def _paper(tmp_path, line):
    folder = tmp_path / "paper" / "no_coord"
    folder.mkdir(parents=True)
    base = {"protocol": "no_coord", "task_id": "1", "trial": 0, "reward": 1.0,
            "termination_reason": "user_stop"}
    write(folder / "trials.jsonl", [base, {**base, "task_id": "2", **line}])
    return folder / "trials.jsonl"


@pytest.mark.parametrize("line,match", [
    ({"infrastructure_error": True, "reward": 1.0}, EXPECTED),
    ({"termination_reason": "harness_error:529 overloaded", "reward": 0.0},
     "null when termination_reason starts with 'harness_error'"),
])
def test_paper_layout_refuses_a_reward_on_an_infrastructure_error(tmp_path, line, match):
    path = _paper(tmp_path, line)
    problem, = validate_logs(path, format="paper", benchmark="b", model="m").problems
    assert (problem.line, problem.field, problem.expected) == (2, "reward", match)


def test_paper_harness_error_with_explicit_false_flag_is_a_run_trial(tmp_path):
    path = _paper(tmp_path, {"termination_reason": "harness_error:late", "reward": 0.0,
                             "infrastructure_error": False})
    df = load_trials(path, format="paper", benchmark="b", model="m")
    assert df["reward"].tolist() == [1.0, 0.0]


def test_paper_harness_error_with_null_reward_is_still_an_infrastructure_error(tmp_path):
    path = _paper(tmp_path, {"termination_reason": "harness_error:x", "reward": None})
    df = load_trials(path, format="paper", benchmark="b", model="m")
    assert df["infrastructure_error"].tolist() == [False, True]


# ---------------------------------------------------------------- tau2-bench: documented, counted

def _tau2_json(tmp_path, reward):
    run = json.loads((FIX / "tau2_json" / "results.json").read_text())
    sim = run["simulations"][3]
    assert sim["termination_reason"] == "infrastructure_error"
    sim["reward_info"] = {"reward": reward, "info": None}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(run))
    return path


def _tau2_dir(tmp_path, reward):
    run = Path(shutil.copytree(FIX / "tau2_dir", tmp_path / "run"))
    sim_path = run / "simulations" / "sim-03-1-1.json"
    sim = json.loads(sim_path.read_text())
    sim["reward_info"] = {"reward": reward, "info": None}
    sim_path.write_text(json.dumps(sim))
    meta = json.loads((run / "results.json").read_text())
    meta["simulation_index"][3]["reward"] = reward
    (run / "results.json").write_text(json.dumps(meta))
    return run


@pytest.mark.parametrize("make", [_tau2_json, _tau2_dir])
def test_tau2_infrastructure_error_with_reward_loads_null_and_is_counted(tmp_path, make):
    path = make(tmp_path, 1.0)
    with pytest.warns(InfrastructureRewardWarning,
                      match=r"1 simulation\(s\) ended in infrastructure_error but carry "
                            r"reward_info\.reward \(record\(s\) 4\)"):
        df = load_trials(path)
    row = df.iloc[3]
    assert row["infrastructure_error"] and math.isnan(row["reward"])
    assert row["extra"]["recorded_reward"] == 1.0
    assert len(df) == 6  # nothing dropped


def test_tau2_fixture_without_such_rewards_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", InfrastructureRewardWarning)
        df = load_trials(FIX / "tau2_json")
    assert all("recorded_reward" not in e for e in df["extra"])
