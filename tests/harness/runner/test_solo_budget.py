"""Matched spend (``solo_budget = "pair-median"``) through the real runner and the scripted
server: the pairs run first, each solo runs under its pair-median token cap, spends at most
that cap, and its record says which cap it ran under."""

from __future__ import annotations

import asyncio
import json
import statistics

import pytest
from click.testing import CliRunner

from harness.runner.budget import NO_PAIR_BUDGET
from harness.runner.dialogue import input_bound, run_rollout
from harness.runner.keys import RolloutSpec
from harness.runner.run import RunSettings, run_tax
from harness.runner.scripted import ScriptedServer
from noisefloor.cli.main import cli
from noisefloor.endpoints import Endpoints
from noisefloor.tax import tax_report

from .conftest import TASKS, endpoints_for


def _records(out):
    return [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]


def _spent(record):
    return record["extra"]["tokens_in"] + record["extra"]["tokens_out"]


def _settings(model, budget="pair-median", **kw):
    return RunSettings(tasks=TASKS, models=(model,), rollouts=3, difficulty=0, turn_cap=6,
                       solo_budget=budget, **kw)


def test_capped_solos_spend_at_most_the_pair_median_of_their_task(server, tmp_path):
    # 'silent' never writes the marker: uncapped, its solo talks to the turn cap and spends
    # more than the pair's median on csp_sudoku4; capped, it must stop at the cap
    run_tax(_settings("silent", "none"), endpoints_for(server, "silent"), tmp_path / "free")
    free = _records(tmp_path / "free")
    result = run_tax(_settings("silent"), endpoints_for(server, "silent"), tmp_path / "capped")
    records = _records(tmp_path / "capped")
    pairs = [r for r in records if r["protocol"] == "pair"]
    solos = [r for r in records if r["protocol"] == "solo"]
    assert len(solos) == len(TASKS) * 3 and all(r["extra"]["token_cap"] is None for r in pairs)
    for solo in solos:
        task = solo["extra"]["task"]
        median = statistics.median(_spent(r) for r in pairs if r["extra"]["task"] == task)
        assert solo["extra"]["token_cap"] == int(median)
        assert _spent(solo) <= solo["extra"]["token_cap"]
    free_solo = {r["task_id"]: _spent(r) for r in free if r["protocol"] == "solo"}
    binding = [r for r in solos if free_solo[r["task_id"]] > r["extra"]["token_cap"]]
    assert binding, "the cap never binds: the test shows nothing"
    assert all(r["termination_reason"] == "token_cap" and r["reward"] == 0.0 for r in binding)
    assert result.token_caps == sum(r["termination_reason"] == "token_cap" for r in solos) > 0
    assert all(r["extra"]["token_cap"] is None for r in free)
    meta = json.loads((tmp_path / "capped" / "run.json").read_text())
    assert meta["outcome_settings"]["solo_budget"] == "pair-median"
    assert "solo_budget" not in json.loads((tmp_path / "free" / "run.json").read_text())[
        "outcome_settings"]
    # the report says the tax is at matched spend, and how many solos the cap stopped
    rep = tax_report(tmp_path / "capped", n_boot=50, n_permutations=0, predict=False)
    note = next(n for n in rep.notes if n.startswith("matched spend"))
    assert f"{len(solos)} solo rollout(s) ran under" in note
    assert f"{sum(r['termination_reason'] == 'token_cap' for r in solos)} stopped" in note
    assert not any(n.startswith("matched spend") for n in tax_report(
        tmp_path / "free", n_boot=50, n_permutations=0, predict=False).notes)
    # every capped solo request carried max_tokens; no pair request did
    sent = [e["max_tokens"] for e in server.request_log if e["model"] == "silent"]
    assert sum(m is not None for m in sent) == sum(r["extra"]["turns"] for r in solos)


def test_a_cap_that_does_not_bind_leaves_the_outcome_alone(server, tmp_path):
    run_tax(_settings("solver"), endpoints_for(server, "solver"), tmp_path)
    solos = [r for r in _records(tmp_path) if r["protocol"] == "solo"]
    assert all(r["reward"] == 1.0 and r["termination_reason"] == "final_answer"
               and _spent(r) <= r["extra"]["token_cap"] for r in solos)


def test_a_tight_cap_limits_max_tokens_and_the_spend(server):
    spec = RolloutSpec("csp_sudoku4", 0, 0, "solo", "solver", None, None, 0, "baseline", 0, "")

    async def go(cap):
        async with Endpoints(endpoints_for(server, "solver")) as endpoints:
            return await run_rollout(spec, endpoints.complete, turn_cap=6, token_cap=cap)

    first = asyncio.run(go(None)).events
    bound = input_bound([{"role": e["role"], "content": e["content"]} for e in first[:2]])
    start = len(server.request_log)
    out = asyncio.run(go(bound + 5))    # the first request has room for 5 output tokens
    assert server.request_log[start]["max_tokens"] == 5
    replies = [e for e in out.events if e["role"] == "assistant"]
    assert replies[0]["finish_reason"] == "length" and replies[0]["tokens_out"] == 5
    # later requests get the room the spend leaves (the scripted input is 1/4 of the bound)
    assert len(replies) >= 2 and server.request_log[start + 1]["max_tokens"] < bound
    assert out.tokens_in + out.tokens_out <= bound + 5
    assert asyncio.run(go(bound)).turns == 0    # no room at all: no request is sent


def test_a_solo_without_a_finished_pair_is_an_infrastructure_error(book, tmp_path):
    with ScriptedServer(book=book) as srv:
        srv.inject("500")                                   # the only pair request fails
        settings = RunSettings(tasks=("csp_sudoku4",), models=("solver",), rollouts=1,
                               difficulty=0, solo_budget="pair-median")
        result = run_tax(settings, endpoints_for(srv, "solver"), tmp_path, max_retries=0,
                         backoff_base=0.01)
        assert srv.requests == 1                            # the solo sent nothing
    solo = next(r for r in _records(tmp_path) if r["protocol"] == "solo")
    assert solo["termination_reason"] == f"infrastructure_error:{NO_PAIR_BUDGET}"
    assert solo["reward"] is None and "pair-median token cap is undefined" in solo["extra"]["error"]
    assert result.infrastructure_errors == 2


def test_the_budget_needs_solo_and_pair_modes(tmp_path):
    with pytest.raises(ValueError, match="needs 'solo' and 'pair' in modes"):
        RunSettings(tasks=TASKS, models=("m",), modes=("solo",), solo_budget="pair-median")
    res = CliRunner().invoke(cli, ["tax", "run", "--tasks", "csp_sudoku4", "--models", "m",
                                   "--modes", "solo", "--solo-budget", "pair-median",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 2 and "--solo-budget" in res.output and "--modes" in res.output
    res = CliRunner().invoke(cli, ["tax", "run", "--tasks", "csp_sudoku4", "--models", "m",
                                   "--solo-budget", "pair-median", "--shard", "1/2",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 2 and "--shard" in res.output
    with pytest.raises(ValueError, match="solo_budget cannot be sharded"):
        run_tax(RunSettings(tasks=TASKS, models=("m",), solo_budget="pair-median"), [],
                tmp_path, shard=(1, 2))
