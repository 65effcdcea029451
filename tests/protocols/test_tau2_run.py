"""``noisefloor protocols run`` on the real tau2-bench (retail), offline.

A scripted OpenAI-compatible endpoint on 127.0.0.1 plays the agent and the user simulator
(:mod:`noisefloor.protocols.tau2.scripted`): it replays a task's expected actions, so tau2-bench's
own evaluator gives reward 1, except for task 5, where it leaves out the final action (the order
exchange) until it has been warned, so trial 0 fails and the writer fills the store; task 38 is
"broken" (HTTP 500 to the agent), an infrastructure error.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

pytest.importorskip("tau2")

from noisefloor.endpoints import ModelEndpoint
from noisefloor.protocols.tau2.run import ProtocolRunSettings, run_protocols
from noisefloor.protocols.tau2.scripted import ScriptedEndpoint
from noisefloor.store import SQLiteEventStore

TASKS = ("5", "18", "38")
FAIL, BROKEN = "5", "38"
PROTOCOLS = ("no_coord", "pull", "intercept")


def _settings(url: str, **kw) -> ProtocolRunSettings:
    return ProtocolRunSettings(domain="retail", agent=ModelEndpoint("scripted-agent", (url,)),
                               user=ModelEndpoint("scripted-user", (url,)), tasks=TASKS,
                               max_steps=30, concurrency=4, max_retries=0, **kw)


def _records(out: Path) -> dict[tuple[str, str, int], dict]:
    recs = [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]
    keyed = {(r["protocol"], r["task_id"], r["trial"]): r for r in recs}
    assert len(keyed) == len(recs), "a simulation recorded twice"
    return keyed


@pytest.fixture(scope="module")
def run(tmp_path_factory, retail):
    out = tmp_path_factory.mktemp("protocols") / "run"
    with ScriptedEndpoint(retail(*TASKS), fail=[FAIL], broken=[BROKEN]) as server:
        lines: list[str] = []
        result = run_protocols(_settings(server.base_url), out, progress=lines.append)
    return out, result, lines


def test_every_simulation_recorded_once_with_the_trial_fields(run):
    out, result, _ = run
    recs = _records(out)
    assert set(recs) == {(p, t, k) for p in PROTOCOLS for t in TASKS for k in (0, 1)}
    assert result.simulations == 18 and result.ran == 18
    for r in recs.values():
        assert r["benchmark"] == "tau2/retail" and r["model"] == "scripted-agent"
        if r["infrastructure_error"]:
            continue
        assert len(r["first_request_sha256"]) == 64
        assert r["termination_reason"] == "user_stop"
        assert r["extra"]["tokens"]["agent_prompt"] > 0 and r["extra"]["tokens"]["user_prompt"] > 0
        assert r["extra"]["cost"]["total"] is None  # no prices given: unknown, never 0


def test_phases_every_trial_0_before_any_trial_1(run):
    out, _, lines = run
    journal = [json.loads(line) for line in (out / "journal.ndjson").read_text().splitlines()]
    trials = [e["record"]["trial"] for e in journal]
    assert trials == sorted(trials) and trials.count(0) == 9
    starts = {k: [e["record"]["extra"]["timestamp"] for e in journal if e["record"]["trial"] == k]
              for k in (0, 1)}
    assert max(starts[0]) < min(starts[1])
    phase_lines = [line for line in lines if line.startswith("phase")]
    assert phase_lines[1].startswith("phase 0: writer") and phase_lines[2].startswith("phase 1:")


def test_trial_0_stores_are_empty_and_the_writer_fills_them_between_phases(run):
    out, _, _ = run
    recs = _records(out)
    for p in PROTOCOLS:
        for t in TASKS:
            assert recs[p, t, 0]["store_events_at_start"] == 0
            assert recs[p, t, 0]["injections"] == 0
        failed = recs[p, FAIL, 0]
        assert failed["reward"] == 0.0
        with SQLiteEventStore(out / "stores" / f"{p}.db") as store:
            events = [s.event for s in store.query(FAIL)
                      if s.event.attempt_id == failed["extra"]["attempt_id"]]
            # the final K = 3 calls of the failed trial, position 1 = final call
            calls = failed["extra"]["coordination_keys"]
            assert [e.key for e in events] == [c["key"] for c in calls[-3:]]
            assert [e.position for e in events] == [3, 2, 1]
            assert store.query("18") == []  # a success writes nothing
            assert store.query(BROKEN) == []  # an infrastructure error writes nothing
        assert failed["extra"]["store"]["events_written"] == 3
        assert recs[p, FAIL, 1]["store_events_at_start"] == 3


def test_intercept_warns_in_trial_1_and_the_warned_agent_recovers(run):
    out, result, _ = run
    recs = _records(out)
    warned = recs["intercept", FAIL, 1]
    assert warned["injections"] >= 1 and warned["reward"] == 1.0
    assert any(c["injected"] and c["match"] == "literal" for c in warned["extra"]["coordination_keys"])
    assert recs["no_coord", FAIL, 1]["injections"] == 0 and recs["no_coord", FAIL, 1]["reward"] == 0.0
    pulled = recs["pull", FAIL, 1]
    assert pulled["injections"] == 3 and pulled["reward"] == 1.0
    assert pulled["extra"]["store"]["trace_queries"] == 1  # answered by the agent, not the env
    assert result.success["intercept/1"] == (2, 2) and result.success["no_coord/1"] == (1, 2)


def test_first_request_hashes_e1(run):
    out, _, _ = run
    recs = _records(out)
    for t in ("5", "18"):
        # intercept changes only tool results: its first request is byte-identical at trial 0
        assert recs["no_coord", t, 0]["first_request_sha256"] == recs["intercept", t, 0]["first_request_sha256"]
        # pull offers trace_query (and, once the store holds events, a prepended summary)
        assert recs["pull", t, 0]["first_request_sha256"] != recs["no_coord", t, 0]["first_request_sha256"]
    assert recs["pull", FAIL, 1]["first_request_sha256"] != recs["pull", FAIL, 0]["first_request_sha256"]
    assert recs["no_coord", FAIL, 1]["first_request_sha256"] == recs["intercept", FAIL, 1]["first_request_sha256"]


def test_infrastructure_errors_are_recorded_never_scored(run):
    out, result, _ = run
    recs = _records(out)
    for p in PROTOCOLS:
        for k in (0, 1):
            r = recs[p, BROKEN, k]
            assert r["infrastructure_error"] is True and r["reward"] is None
            assert "Error" in r["extra"]["error"]
    assert result.infrastructure_errors == 6
    assert result.success["no_coord/0"] == (1, 2)  # the broken task is not in the denominator


def test_results_json_loads_in_tau2_and_in_noisefloor(run):
    from tau2.data_model.simulation import Results

    from noisefloor.logs import load_trials

    out, result, _ = run
    recs = _records(out)
    for p in PROTOCOLS:
        path = out / "simulations" / p / "results.json"
        assert result.results[p] == path
        results = Results.model_validate_json(path.read_text())
        assert results.info.agent_info.implementation == f"noisefloor_llm_agent:{p}"
        assert len(results.simulations) == 4  # the broken task's 2 never produced a result
        frame = load_trials(path)
        assert len(frame) == 4
        for row in frame.itertuples():
            assert row.reward == recs[p, str(row.task_id), int(row.trial)]["reward"]


def _cli(*args: str):
    """``noisefloor ARGS`` in this process (click's runner): what is tested is the command's
    reading of the run directory, not the interpreter's start."""
    from click.testing import CliRunner

    from noisefloor.cli.main import cli

    return CliRunner().invoke(cli, list(args), prog_name="noisefloor")


def test_floor_and_audit_read_the_run_directory(run):
    out, _, _ = run
    floor = _cli("floor", str(out))
    assert floor.exit_code == 0, floor.output
    assert "intercept-no_coord" in floor.stdout
    log = _cli("log", "validate", str(out))
    assert "18 valid record(s)" in log.stdout, log.output


def _cli_in_a_child(args: list[str]) -> int:
    """``noisefloor ARGS`` in a forked child process (its pid): the child has tau2-bench imported
    already and the module's cut database, and is a process of its own to kill."""
    from noisefloor.cli.main import cli

    pid = os.fork()
    if pid == 0:  # the child: run the command, never return into pytest
        code = 1
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            cli.main(args, prog_name="noisefloor", standalone_mode=False)
            code = 0
        finally:
            os._exit(code)
    return pid


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the CLI process it kills")
def test_resume_after_repeated_kill_9_records_each_simulation_once(run, tmp_path, retail):
    """The CLI is killed (SIGKILL) twice mid-run and resumed; every simulation is recorded once
    and every failed attempt's events are in its store exactly once."""
    ref_out, _, _ = run
    out = tmp_path / "killed"
    journal = out / "journal.ndjson"
    with ScriptedEndpoint(retail(*TASKS), fail=[FAIL], broken=[BROKEN], latency=0.05) as server:
        args = ["protocols", "run", "--domain", "retail", "--tasks", ",".join(TASKS),
                "--agent-model", "scripted-agent", "--user-model", "scripted-user", "--base-url",
                server.base_url, "--max-steps", "30", "--concurrency", "4", "--max-retries", "0",
                "--out", str(out)]
        for wanted in (3, 11):  # kill during phase 0, then during phase 1
            pid = _cli_in_a_child(args)
            deadline = time.time() + 400
            while time.time() < deadline:
                if journal.exists() and journal.read_bytes().count(b"\n") >= wanted:
                    break
                time.sleep(0.02)
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            # killed mid-run, not finished or crashed first
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            assert journal.read_bytes().count(b"\n") < 18
        done = _cli(*args)  # the resume, in this process
    assert done.exit_code == 0, done.output
    recs, ref = _records(out), _records(ref_out)
    assert set(recs) == set(ref)
    assert {k: r["reward"] for k, r in recs.items()} == {k: r["reward"] for k, r in ref.items()}
    for p in PROTOCOLS:
        with SQLiteEventStore(out / "stores" / f"{p}.db") as store:
            events = store.query(FAIL)
        attempts = {e.event.attempt_id for e in events}
        failed = {r["extra"]["attempt_id"] for k, r in recs.items()
                  if k[0] == p and k[1] == FAIL and r["reward"] == 0.0}
        assert attempts == failed and len(events) == 3 * len(failed)


def test_refinements_in_a_run_fall_back_and_say_so_when_their_endpoint_fails(tmp_path, retail):
    """The judged writer, the model gate and predicate extraction run inside a protocols run; the
    refinement model is unknown to the endpoint (HTTP 404), so each falls back to its heuristic
    and the records say so."""
    with ScriptedEndpoint(retail(*TASKS), fail=[FAIL]) as server:
        settings = ProtocolRunSettings(
            domain="retail", agent=ModelEndpoint("scripted-agent", (server.base_url,)),
            user=ModelEndpoint("scripted-user", (server.base_url,)), tasks=(FAIL, "18"),
            protocols=("selective_intercept", "predicate_intercept"), writer="judged",
            refine=ModelEndpoint("no-such-judge", (server.base_url,)), max_steps=30,
            concurrency=4, max_retries=0)
        run_protocols(settings, tmp_path / "run")
    recs = _records(tmp_path / "run")
    for p in ("selective_intercept", "predicate_intercept"):
        failed = recs[p, FAIL, 0]
        decisions = failed["extra"]["writer_decisions"]
        assert decisions["judge"][0]["decided_by"] == "fallback"  # last K, recorded
        assert len(decisions["judge"][0]["blamed"]) == 3
        assert failed["extra"]["store"]["events_written"] >= 3
    preds = recs["predicate_intercept", FAIL, 0]["extra"]["writer_decisions"]["predicates"]
    assert preds and all(d["decided_by"] == "fallback" for d in preds)
    gate = recs["selective_intercept", FAIL, 1]["extra"]["gate"]
    assert gate and all(g["decided_by"] == "fallback" and "error" in g for g in gate)
    assert any(g["fired"] for g in gate) and recs["selective_intercept", FAIL, 1]["reward"] == 1.0


def test_audit_and_floor_analyse_a_noisy_run(tmp_path, retail):
    """Run-to-run noise (the scripted agent's flaky tasks alternate between failing and
    succeeding) gives untied trial-0 pairs: ``floor`` certifies intercept-no_coord by identical
    first requests and ``audit --log`` places the run's contrasts against that floor."""
    out = tmp_path / "noisy"
    flaky = ("5", "18", "38")
    with ScriptedEndpoint(retail(*flaky), flaky=flaky) as server:
        run_protocols(ProtocolRunSettings(
            domain="retail", agent=ModelEndpoint("scripted-agent", (server.base_url,)),
            user=ModelEndpoint("scripted-user", (server.base_url,)), tasks=flaky,
            protocols=("no_coord", "intercept"), max_steps=30, concurrency=1, max_retries=0), out)
    recs = _records(out)
    t0 = [(recs["no_coord", t, 0]["reward"], recs["intercept", t, 0]["reward"]) for t in flaky]
    assert all(a != b for a, b in t0)  # every trial-0 pair untied
    floor = _cli("floor", str(out))
    assert floor.exit_code == 0, floor.output
    assert "intercept-no_coord (clean)" in floor.stdout and "identical first requests" in floor.stdout
    assert "E1 audit" not in floor.stderr
    # the text report is what is checked here (the forest plot has tests of its own)
    audit = _cli("audit", "--log", str(out), "--out", str(tmp_path / "report"), "--no-plot")
    assert audit.exit_code == 0, audit.output
    assert "intercept-no_coord" in audit.stdout
