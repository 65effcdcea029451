"""``leaderboard``, ``plan`` and ``reruns-sim``: one ``--json`` shape per command, and one library
call (:func:`~noisefloor.pipelines.leaderboard_run`, :func:`~noisefloor.pipelines.plan_run`,
:func:`~noisefloor.pipelines.reruns_sim_run`) whose ``to_dict()`` is that document.

Every command runs in process through click's test runner, on the three-entry fixture board and
a ten-task log written here, so each case takes milliseconds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from noisefloor.cli._common import jsonable
from noisefloor.cli.main import cli
from noisefloor.pipelines import (
    LeaderboardRun,
    PlanRun,
    RerunsSimRun,
    leaderboard_run,
    plan_run,
    reruns_sim_run,
)
from tests.cli.null_logs import SEED_1, SEED_2, write_clean_null_log

BOARD = str(Path(__file__).resolve().parents[2] / "fixtures" / "leaderboard" /
            "three_entries.json")
LEADERBOARD_KEYS = ["mode", "source", "n_submissions", "domain", "confidence", "entries",
                    "reruns_floor", "comparison", "tiers", "plots"]
PLAN_KEYS = ["solve_for", "plans", "floor_source", "measured_floor", "shrinking_floor", "plot"]
RERUNS_SIM_KEYS = ["source", "simulation", "claim"]


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> str:
    """Trial 0 of two protocols on ten tasks at two seeds: intercept-no_coord is a clean null
    contrast (identical first requests, empty stores)."""
    return write_clean_null_log(tmp_path_factory.mktemp("runs") / "two.jsonl",
                                {1: SEED_1, 2: SEED_2})


def _json(*args) -> dict:
    res = CliRunner().invoke(cli, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def _as_printed(result) -> dict:
    """A result's ``to_dict()`` as ``--json`` prints it (NaN as null, through JSON)."""
    return json.loads(json.dumps(jsonable(result.to_dict()), allow_nan=False))


def _leaderboard_cases(log):
    return {
        "listing": (["leaderboard", BOARD], {"board": BOARD}),
        "listing of a domain": (["leaderboard", BOARD, "--domain", "airline"],
                                {"board": BOARD, "domain": "airline"}),
        "compare": (["leaderboard", BOARD, "--a", "m_a", "--b", "n_a"],
                    {"board": BOARD, "a": "m_a", "b": "n_a"}),
        "compare at a floor": (["leaderboard", BOARD, "--a", "m_a", "--b", "n_a", "--floor",
                                "0.1", "--envelope", "0.2", "--confidence", "0.9"],
                               {"board": BOARD, "a": "m_a", "b": "n_a", "floor": 0.1,
                                "envelope": 0.2, "confidence": 0.9}),
        "compare at a log's floor": (["leaderboard", BOARD, "--a", "m_a", "--b", "n_a",
                                      "--floor-log", log],
                                     {"board": BOARD, "a": "m_a", "b": "n_a",
                                      "floor_logs": [log]}),
        "tiers": (["leaderboard", BOARD, "--tiers"], {"board": BOARD, "tiers": True}),
        "tiers of logs": (["leaderboard", "--tiers", "--log", log],
                          {"tiers": True, "tier_logs": [log]}),
    }


def test_leaderboard_json_has_one_key_set_and_is_one_library_call(log):
    modes = set()
    for case, (args, kwargs) in _leaderboard_cases(log).items():
        doc = _json(*args)
        assert list(doc) == LEADERBOARD_KEYS, case
        run = leaderboard_run(**kwargs)
        assert isinstance(run, LeaderboardRun)
        assert _as_printed(run) == doc, case
        modes.add(doc["mode"])
        # exactly the parts of the mode are filled in
        filled = {k for k in ("entries", "comparison", "tiers") if doc[k] is not None}
        assert filled == {"listing": {"entries"}, "compare": {"comparison"},
                          "tiers": {"tiers"}}[doc["mode"]], case
        assert (doc["reruns_floor"] is None) == ("--log" in args), case
    assert modes == {"listing", "compare", "tiers"}


def test_leaderboard_run_refuses_what_the_command_refuses():
    with pytest.raises(ValueError, match="give both a= and b="):
        leaderboard_run(BOARD, a="m_a")
    with pytest.raises(ValueError, match="a=, b= do not apply with tiers=True"):
        leaderboard_run(BOARD, a="m_a", b="n_a", tiers=True)
    with pytest.raises(ValueError, match="give floor= or floor_logs=, not both"):
        leaderboard_run(BOARD, a="m_a", b="n_a", floor=0.1, floor_logs=["x.jsonl"])


def _plan_cases(log):
    return {
        "n for a gain": (["--gap", "0.1", "--p-d", "0.3", "--baseline", "0.5"],
                         {"gap": 0.1, "p_d": 0.3, "baseline": 0.5}),
        "the MDE": (["--n", "100", "--p-d", "0.3", "--test", "sign_test"],
                    {"n": 100, "p_d": 0.3, "tests": ["sign_test"]}),
        "against a floor": (["--gap", "0.15", "--p-d", "0.36", "--floor", "0.118"],
                            {"gap": 0.15, "p_d": 0.36, "floor": 0.118}),
        "against a log's floor": (["--gap", "0.6", "--p-d", "0.7", "--floor-log", log],
                                  {"gap": 0.6, "p_d": 0.7, "floor_logs": [log]}),
        "the MDE against a log's envelope": (
            ["--n", "50", "--p-d", "0.7", "--floor-log", log, "--floor-kind", "envelope"],
            {"n": 50, "p_d": 0.7, "floor_logs": [log], "floor_kind": "envelope"}),
    }


def test_plan_json_has_one_key_set_and_is_one_library_call(log):
    for case, (args, kwargs) in _plan_cases(log).items():
        doc = _json("plan", *args)
        assert list(doc) == PLAN_KEYS, case
        run = plan_run(**kwargs)
        assert isinstance(run, PlanRun)
        assert _as_printed(run) == doc, case
        from_logs = "floor_logs" in kwargs
        assert (doc["measured_floor"] is None) != from_logs, case
        # one shape: a list of per-design records, empty where the options give none
        assert isinstance(doc["shrinking_floor"], list), case
        assert bool(doc["shrinking_floor"]) == (from_logs and "gap" in kwargs), case
    shrink = _json("plan", *_plan_cases(log)["against a log's floor"][0])["shrinking_floor"]
    assert [s["test"] for s in shrink] == ["mcnemar"] and shrink[0]["n"] > 0
    assert list(shrink[0]) == ["test", "n", "floor_at_n", "achieved_power", "held_fixed",
                               "reason"]


def test_reruns_sim_json_has_one_key_set_and_is_one_library_call(log):
    sim = ["--flip-rate", "0.2", "--tasks", "10", "--n-sim", "50", "--seed", "3"]
    kw: dict[str, Any] = {"flip_rate": 0.2, "n_tasks": 10, "n_sim": 50, "seed": 3}
    cases: dict[str, tuple[list[str], dict[str, Any]]] = {
        "no claim": (sim, kw),
        "a claim against given gaps": ([*sim, "--claim", "0.1", "--null-gap", "0.05",
                                        "--null-gap", "-0.02"],
                                       {**kw, "claim": 0.1, "null_gaps": [0.05, -0.02]}),
        "a claim against a log's gaps": ([*sim, "--claim", "0.1", "--floor-log", log],
                                         {**kw, "claim": 0.1, "floor_logs": [log]}),
        "simulated at a log's shares": (["--log", log, "--n-sim", "50"],
                                        {"logs": [log], "n_sim": 50}),
    }
    for case, (args, kwargs) in cases.items():
        doc = _json("reruns-sim", *args)
        assert list(doc) == RERUNS_SIM_KEYS, case
        run = reruns_sim_run(**kwargs)
        assert isinstance(run, RerunsSimRun)
        assert _as_printed(run) == doc, case
        assert (doc["claim"] is None) == ("claim" not in kwargs), case


def test_logs_given_as_a_dataframe_are_taken_like_paths(log):
    """A trial frame (the docstrings allow one) counts as given, never as an ambiguous truth
    value: the result is the one of its path."""
    from noisefloor.logs.load import read_log_trials

    frame = read_log_trials(log)
    with_path = plan_run(gap=0.6, p_d=0.7, floor_logs=[log])
    with_frame = plan_run(gap=0.6, p_d=0.7, floor_logs=frame)
    assert with_frame.measured_floor is not None
    assert with_frame.measured_floor.value == with_path.measured_floor.value
    with pytest.raises(ValueError, match="not both"):
        plan_run(gap=0.6, p_d=0.7, floor=0.1, floor_logs=frame)
    run = leaderboard_run(tiers=True, tier_logs=frame)
    assert run.tiers is not None
    compared = leaderboard_run(BOARD, a="m_a", b="n_a", floor_logs=frame)
    assert compared.comparison is not None


def test_plan_run_labels_a_floor_given_as_a_number_neutrally():
    """The result says the floor was given, not how a command spells it; ``plan`` prints the
    option."""
    assert plan_run(gap=0.15, p_d=0.36, floor=0.118).floor_source == "given"
    res = CliRunner().invoke(cli, ["plan", "--gap", "0.15", "--p-d", "0.36", "--floor", "0.118"])
    assert "clearing a floor of 11.8 pp (--floor)" in res.output
