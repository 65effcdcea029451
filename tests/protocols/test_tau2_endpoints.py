"""Every model call of ``protocols run`` (agent and user simulator) goes through
``noisefloor.endpoints``: Retry-After, retries, per-URL limits, prices, several endpoints.

Real HTTP against the scripted OpenAI-compatible server on 127.0.0.1 (a free port), which can
answer a model's first requests with 429 + Retry-After, or every request with 500, and logs
each request (arrival, answer, requests in flight).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("tau2")

from click.testing import CliRunner

from noisefloor.endpoints import ModelEndpoint
from noisefloor.protocols.tau2.run import ProtocolRunSettings, run_protocols
from noisefloor.protocols.tau2.scripted import ScriptedEndpoint

AGENT, USER = "scripted-agent", "scripted-user"


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]


@pytest.fixture
def no_litellm(monkeypatch):
    """Any model call through tau2's litellm path fails the test."""
    import litellm
    from tau2.utils import llm_utils

    def refuse(*args, **kwargs):
        raise AssertionError("a model call went through litellm")

    monkeypatch.setattr(llm_utils, "completion", refuse)
    monkeypatch.setattr(litellm, "completion", refuse)


def _one(url: str, **kw) -> ProtocolRunSettings:
    fields = dict(domain="retail", agent=ModelEndpoint(AGENT, (url,)),
                  user=ModelEndpoint(USER, (url,)), tasks=("18",), protocols=("no_coord",),
                  trials=1, max_steps=30, concurrency=1)
    fields.update(kw)
    return ProtocolRunSettings(**fields)


def test_the_tools_offered_are_tau2s_own_schemas_built_once(retail):
    # the agent and the user simulator send these at every call instead of reading tau2's
    # Tool.openai_schema property (which builds the schema again with pydantic) each time
    from tau2.domains.retail.environment import get_environment

    from noisefloor.protocols.tau2.llm import offered_tools  # imports tau2-bench: not at collection

    tools = get_environment().get_tools()
    offered = offered_tools(tools)
    assert offered is not None and len(offered) == len(tools) > 1
    assert [t.name for t in offered] == [t.name for t in tools]
    assert [t.openai_schema for t in offered] == [t.openai_schema for t in tools]
    assert offered_tools(offered) == offered and offered_tools(offered)[0] is offered[0]
    assert offered_tools(None) is None


def test_429_with_retry_after_on_both_roles_is_waited_out_and_the_run_is_scored(tmp_path, no_litellm, retail):
    with ScriptedEndpoint(retail("18"), rate_limited={AGENT: 1, USER: 1},
                          retry_after=0.8) as server:
        result = run_protocols(_one(server.base_url, max_retries=2), tmp_path / "run")
        log = list(server.log)
    (rec,) = _records(tmp_path / "run")
    assert result.infrastructure_errors == 0
    assert rec["infrastructure_error"] is False and rec["reward"] == 1.0
    calls = rec["extra"]["model_calls"]
    assert calls["agent"]["retries"] == 1 and calls["user"]["retries"] == 1
    for model in (AGENT, USER):
        mine = [e for e in log if e["model"] == model]
        assert mine[0]["status"] == 429 and mine[1]["status"] == 200
        # the retry waited the Retry-After the server sent (0.8 s; the backoff alone is 0.5-0.63 s)
        assert mine[1]["arrived"] - mine[0]["answered"] >= 0.8 - 0.02
        assert calls["agent" if model == AGENT else "user"]["calls"] == len(mine) - 1


def test_a_persistent_500_is_an_infrastructure_error_never_a_reward(tmp_path, no_litellm, retail):
    with ScriptedEndpoint(retail("18"), failing={USER}) as server:
        result = run_protocols(_one(server.base_url, max_retries=1), tmp_path / "run")
        log = list(server.log)
    (rec,) = _records(tmp_path / "run")
    assert rec["infrastructure_error"] is True and rec["reward"] is None
    assert rec["termination_reason"] == "infrastructure_error"
    assert rec["extra"]["error_kind"] == "http_500" and "EndpointError" in rec["extra"]["error"]
    assert result.infrastructure_errors == 1 and result.success == {}
    assert [e["status"] for e in log if e["model"] == USER] == [500, 500]  # 1 try + 1 retry
    results = json.loads((tmp_path / "run" / "simulations" / "no_coord" / "results.json").read_text())
    assert results["simulations"] == []  # never scored
    # journalled as an infrastructure error, run again on resume with --retry-errors
    with ScriptedEndpoint(retail("18")) as server:
        again = run_protocols(_one(server.base_url, max_retries=1), tmp_path / "run",
                              retry_errors=True)
    (rec,) = _records(tmp_path / "run")
    assert again.ran == 1 and rec["infrastructure_error"] is False and rec["reward"] == 1.0


def test_two_endpoints_from_config_each_get_their_model_with_its_limit_and_prices(tmp_path, no_litellm, retail):
    from noisefloor.cli.main import cli

    tasks = ("5", "18", "38")
    out = tmp_path / "run"
    with ScriptedEndpoint(retail(*tasks), latency=0.05) as agent_server, \
            ScriptedEndpoint(retail(*tasks)) as user_server:
        config = tmp_path / "run.toml"
        config.write_text(f"""
[protocols]
domain = "retail"
tasks = "{','.join(tasks)}"
protocols = "no_coord,intercept"
trials = 1
max_steps = 30
concurrency = 6
out = "{out}"

[[models]]
name = "{AGENT}"
base_urls = ["{agent_server.base_url}"]
concurrency = 2
price_input_per_mtok = 3.0
price_output_per_mtok = 15.0

[[models]]
name = "{USER}"
base_urls = ["{user_server.base_url}"]
price_input_per_mtok = 0.5
price_output_per_mtok = 2.0
""")
        res = CliRunner().invoke(cli, ["protocols", "run", "--config", str(config),
                                       "--agent-model", AGENT, "--user-model", USER, "--json"])
        agent_log, user_log = list(agent_server.log), list(user_server.log)
        agent_peak = agent_server.max_in_flight
    assert res.exit_code == 0, res.output
    assert {e["model"] for e in agent_log} == {AGENT}
    assert {e["model"] for e in user_log} == {USER}
    # six simulations in flight, but never more than the agent URL's limit of 2 requests
    assert agent_peak == 2
    recs = _records(out)
    assert len(recs) == 6 and not any(r["infrastructure_error"] for r in recs)
    total_in = total_out = 0
    for r in recs:
        tok, cost = r["extra"]["tokens"], r["extra"]["cost"]
        assert cost["agent"] == pytest.approx((tok["agent_prompt"] * 3.0
                                               + tok["agent_completion"] * 15.0) / 1e6)
        assert cost["user"] == pytest.approx((tok["user_prompt"] * 0.5
                                              + tok["user_completion"] * 2.0) / 1e6)
        assert cost["total"] == pytest.approx(cost["agent"] + cost["user"]) and cost["total"] > 0
        total_in += tok["agent_prompt"]
        total_out += tok["agent_completion"]
    # the tokens priced are the ones the agent's endpoint reported
    assert total_in == sum(e["prompt_tokens"] for e in agent_log)
    assert total_out == sum(e["completion_tokens"] for e in agent_log)


def test_refinements_decide_by_model_through_the_runs_endpoints(tmp_path, no_litellm, retail):
    """The judged writer, the model gate and predicate extraction answered by the scripted
    refinement model (its first request rate-limited: the refinements share the endpoint
    layer's Retry-After); every decision says the model decided, none fell back."""
    REFINE = "scripted-refine"
    with ScriptedEndpoint(retail("5", "18"), fail=["5"], rate_limited={REFINE: 1},
                          retry_after=0.2) as server:
        settings = _one(server.base_url, tasks=("5", "18"), trials=2, concurrency=4,
                        protocols=("selective_intercept", "predicate_intercept"), writer="judged",
                        refine=ModelEndpoint(REFINE, (server.base_url,)), max_retries=2)
        run_protocols(settings, tmp_path / "run")
        refine_log = [e for e in server.log if e["model"] == REFINE]
    assert refine_log[0]["status"] == 429 and all(e["status"] == 200 for e in refine_log[1:])
    recs = {(r["protocol"], r["task_id"], r["trial"]): r for r in _records(tmp_path / "run")}
    for p in ("selective_intercept", "predicate_intercept"):
        failed = recs[p, "5", 0]
        assert failed["reward"] == 0.0
        (judged,) = failed["extra"]["writer_decisions"]["judge"]
        # the model blamed the final call alone; the fallback (last K) would blame three
        assert judged["decided_by"] == "model" and "error" not in judged
        assert [b["call_index"] for b in judged["blamed"]] == [len(failed["extra"]["coordination_keys"]) - 1]
        assert recs[p, "5", 1]["reward"] == 1.0  # warned at trial 1, recovered
    assert recs["selective_intercept", "5", 0]["extra"]["store"]["events_written"] == 1
    preds = recs["predicate_intercept", "5", 0]["extra"]["writer_decisions"]["predicates"]
    assert preds and all(d["decided_by"] == "model" for d in preds)
    assert all(len(d["conditions"]) == 1 for d in preds)
    gate = recs["selective_intercept", "5", 1]["extra"]["gate"]
    assert gate and all(g["decided_by"] == "model" and g["fired"] for g in gate)
    assert all("error" not in g and g["relevant"] is True for g in gate)


def test_a_fatal_status_stops_the_run_without_a_record(tmp_path, no_litellm, retail):
    """A 404 (a model the endpoint does not serve) cannot be fixed by retrying: the CLI stops
    with a clear error, as ``tax run`` does, and journals no simulation."""
    from noisefloor.cli.main import cli

    out = tmp_path / "run"
    with ScriptedEndpoint(retail("18")) as server:
        res = CliRunner().invoke(cli, ["protocols", "run", "--tasks", "18", "--protocols",
                                       "no_coord", "--trials", "1", "--agent-model", "no-such-model",
                                       "--user-model", USER, "--base-url", server.base_url,
                                       "--max-retries", "3", "--out", str(out)])
        statuses = [e["status"] for e in server.log if e["model"] == "no-such-model"]
    assert res.exit_code == 1 and "the run stopped" in res.output and "http_404" in res.output
    assert statuses == [404]  # not retried
    journal = out / "journal.ndjson"
    assert not journal.exists() or journal.read_text() == ""
