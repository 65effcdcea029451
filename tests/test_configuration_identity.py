"""Configuration identity: runs whose recorded configurations differ are arms, never re-runs.

Fixtures: ``fixtures/nulls/tau2_agents/`` (written by ``fixtures/nulls/make_fixtures.py`` in
tau2-bench's data model, ``Results`` with ``info.agent_info`` set): four runs of four agent
implementations on one model at tau2's default seed 300, so they share every trial key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.floor.nulls import DECLARED, NO_STORE_READER
from noisefloor.logs import load_trials
from noisefloor.logs.configuration import describe_differences, differing_fields
from noisefloor.pipelines import floor_run

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "nulls" / "tau2_agents"
RUNS = [AGENTS / name for name in ("llm_agent", "planner_agent", "reflect_agent", "retry_agent")]


def test_tau2_reader_keeps_what_tau2_records_about_the_system():
    frame = load_trials(RUNS[:2])
    confs = {run: json.loads(c) for run, c in zip(frame["run"], frame["configuration"])}
    assert confs["llm_agent"] == {
        "agent": "llm_agent", "agent_llm_args": {"temperature": 0.0}, "domain": "retail",
        "user": "user_simulator", "user_llm": "gpt-4.1-2025-04-14",
        "user_llm_args": {"temperature": 0.0}}
    assert confs["planner_agent"]["agent"] == "planner_agent"
    # the configuration is a column, not left in every record's extra
    assert all("configuration" not in e for e in frame["extra"])


def test_runs_of_different_agents_are_never_re_runs():
    run = floor_run(RUNS)
    table = run.null_contrasts.table
    # every certified contrast compares a run with itself (trial i against trial j)
    assert (table["a"] == table["b"]).all() and set(table["certified_by"]) == {NO_STORE_READER}
    assert len(table) == 4
    # the six cross-agent pairs are skipped, each naming the field that differs
    cross = [s for s in run.skipped if "configurations differ" in s["reason"]]
    assert len(cross) == 6
    assert all("agent: " in s["reason"] for s in cross)
    assert any("agent: llm_agent (default@llm_agent) vs retry_agent (default@retry_agent)"
               in s["reason"] for s in cross)


def test_without_identity_the_floor_would_come_from_two_agents():
    # the bug this guards against: read with the configuration column dropped, the four agents
    # look like re-runs of one configuration and the cross-agent contrasts are certified
    trials = load_trials(RUNS).drop(columns="configuration")
    wrong = floor_run(trials).null_contrasts.table
    assert (wrong["a"] != wrong["b"]).sum() > 0
    right = floor_run(load_trials(RUNS)).null_contrasts.table
    assert (right["a"] != right["b"]).sum() == 0


def test_a_declared_pair_of_two_configurations_says_it_was_declared():
    run = floor_run(RUNS[:2] + RUNS[3:],
                    null_pairs=["default@llm_agent-default@retry_agent"])
    table = run.null_contrasts.table
    declared = table[table["a"] != table["b"]]
    assert declared[["a", "b"]].values.tolist() == [["default@llm_agent", "default@retry_agent"]]
    assert declared["certified_by"].tolist() == [DECLARED]
    # declaring the label's re-runs ('default-default') does not reach other configurations
    run = floor_run(RUNS, null_pairs=["default-default"])
    table = run.null_contrasts.table
    assert (table["a"] == table["b"]).all()


def test_one_label_for_runs_of_two_configurations_is_refused_naming_the_field():
    with pytest.raises(ValueError, match=r"agent: llm_agent \(llm_agent\) vs retry_agent "
                                         r"\(retry_agent\)") as info:
        load_trials([(RUNS[0], "mine"), (RUNS[3], "mine")])
    assert "given as one arm 'mine'" in str(info.value)
    result = CliRunner().invoke(cli, ["floor", "--log", f"{RUNS[0]}=mine", "--log",
                                      f"{RUNS[3]}=mine"])
    assert result.exit_code != 0 and "agent: llm_agent" in result.output


def test_one_label_for_re_runs_of_one_configuration_is_accepted():
    runs = [Path(__file__).resolve().parents[1] / "fixtures" / "nulls" / n
            for n in ("tau2_runA", "tau2_runB")]
    frame = load_trials([(runs[0], "base"), (runs[1], "base")])
    assert set(frame["protocol"]) == {"base"} and frame["run"].nunique() == 2


def test_differing_fields_and_their_description():
    a = {"agent": "llm_agent", "agent_llm_args": {"temperature": 0.0}}
    b = {"agent": "llm_agent", "agent_llm_args": {"temperature": 0.7}, "user": "u"}
    assert differing_fields(a, b) == ["agent_llm_args", "user"]
    assert describe_differences(a, b, name_a="x", name_b="y") == (
        'agent_llm_args: {"temperature": 0.0} (x) vs {"temperature": 0.7} (y); '
        "user: not recorded (x) vs u (y)")
    assert differing_fields(a, dict(a)) == []
