"""tau-bench lists: partial rewards are warned about with counts; a renamed run file takes its
domain from the policy text."""

from __future__ import annotations

import json
import warnings

import pytest

from noisefloor.logs import LogValidationError, load_trials
from noisefloor.stats.warning_classes import PartialRewardWarning


def _write(path, rewards, heading="# Retail agent policy", errors=()):
    items = []
    for i, r in enumerate(rewards):
        info = {"error": "boom"} if i in errors else {}
        items.append({"task_id": i // 2, "trial": i % 2, "reward": r, "info": info,
                      "traj": [{"role": "system", "content": f"{heading}\n\nBe kind."}]})
    path.write_text(json.dumps(items))
    return path


def test_partial_rewards_are_counted_in_a_warning(tmp_path):
    log = _write(tmp_path / "gpt-4o-retail.json", [1.0, 0.5, 0.0, 0.25, 1.0, 0.0])
    with pytest.warns(PartialRewardWarning) as caught:
        frame = load_trials(log)
    message = str(caught[0].message)
    # 2 partial of 6; mean (1 + .5 + 0 + .25 + 1 + 0) / 6 = 0.458; 2 successes -> 0.333
    assert "2 of 6 trials have a partial reward" in message
    assert "mean reward 0.458" in message and "2 successes, pass^1 0.333" in message
    assert frame["reward"].tolist() == [1.0, 0.5, 0.0, 0.25, 1.0, 0.0]  # read as written


def test_whole_rewards_and_errors_do_not_warn(tmp_path):
    # the errored trial's recorded 0.5 is an infrastructure error, not a partial reward
    log = _write(tmp_path / "gpt-4o-retail.json", [1.0, 0.5, 0.0, 1.0], errors={1})
    with warnings.catch_warnings():
        warnings.simplefilter("error", PartialRewardWarning)
        load_trials(log)


def test_renamed_file_takes_its_domain_from_the_policy(tmp_path):
    log = _write(tmp_path / "results.json", [1.0, 0.0])
    with pytest.raises(LogValidationError) as info:
        load_trials(log)
    assert "pass model=" in str(info.value) and "benchmark" not in str(info.value).split(
        "pass ")[-1].split("(")[0]
    frame = load_trials(log, model="gpt-4o")
    assert set(frame["benchmark"]) == {"tau/retail"}
    airline = _write(tmp_path / "other.json", [1.0], heading="# Airline Agent Policy")
    assert set(load_trials(airline, model="m")["benchmark"]) == {"tau/airline"}


def test_renamed_file_without_a_known_policy_needs_the_benchmark(tmp_path):
    log = _write(tmp_path / "results.json", [1.0], heading="# Some other policy")
    with pytest.raises(LogValidationError, match="pass benchmark="):
        load_trials(log, model="m")
    assert set(load_trials(log, model="m", benchmark="tau/x")["benchmark"]) == {"tau/x"}
