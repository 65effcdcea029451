"""LangChain middleware, offline: LangChain's fake chat model, real tools, create_agent."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from noisefloor.protocols import Coordinator, Intercept, NoCoord, Pull
from noisefloor.protocols.langchain import CoordinationMiddleware
from noisefloor.store import SQLiteEventStore

ORDERS = {"#W1": "shipped", "#W2": "pending"}


@tool
def get_order(order_id: str) -> str:
    """Look up an order's status."""
    return json.dumps({"order_id": order_id, "status": ORDERS[order_id]})


@tool
def cancel_order(order_id: str, reason: str) -> str:
    """Cancel an order that has not shipped."""
    if ORDERS[order_id] == "shipped":
        return f"error: order {order_id} has shipped and cannot be cancelled"
    return f"order {order_id} cancelled ({reason})"


class RecordingFakeModel(GenericFakeChatModel):
    """LangChain's generic fake chat model, plus the tool binding create_agent needs.

    ``requests`` records what a provider would receive: the messages and the bound tools.
    """

    requests: list = []  # a pydantic field; each test passes its own list

    def bind_tools(self, tools: Any, **kwargs: Any):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.requests.append({"messages": list(messages), "tools": kwargs.get("tools", [])})
        return super()._generate(messages, stop=stop, run_manager=run_manager)


def script(order_id="#W1", query_first=False):
    steps = []
    if query_first:
        steps.append(AIMessage(content="", tool_calls=[
            {"name": "trace_query", "args": {"tool_name": "cancel_order"}, "id": "q1"}]))
    steps += [
        AIMessage(content="", tool_calls=[{"name": "get_order", "args": {"order_id": order_id}, "id": "c1"}]),
        AIMessage(content="", tool_calls=[{"name": "cancel_order", "id": "c2",
                                            "args": {"reason": "changed mind", "order_id": order_id}}]),
        AIMessage(content="Done."),
    ]
    return iter(steps)


def grader(state) -> float:
    """Deterministic grader: success iff an order really got cancelled."""
    tool_out = [m.content for m in state["messages"] if isinstance(m, ToolMessage)]
    return 1.0 if any(" cancelled (" in t for t in tool_out) else 0.0


def run_agent(store, reader, trial, *, order_id="#W1", query_first=False):
    model = RecordingFakeModel(messages=script(order_id, query_first), requests=[])
    mw = CoordinationMiddleware(Coordinator(store, reader, benchmark="demo/retail", model="fake"),
                                grader=grader)
    agent = create_agent(model, [get_order, cancel_order], system_prompt="You are a retail agent.",
                         middleware=[mw])
    state = agent.invoke({"messages": [{"role": "user", "content": f"Cancel {order_id}"}]},
                         context={"task_id": "retail-7", "trial": trial})
    (record,) = mw.records
    return state, record, model.requests


def tool_messages(state):
    return {m.name: m.content for m in state["messages"] if isinstance(m, ToolMessage)}


def test_intercept_middleware_warns_on_trial_1_only(tmp_path):
    store = SQLiteEventStore(tmp_path / "s.db")
    state0, rec0, _ = run_agent(store, Intercept(), 0)
    assert rec0.reward == 0.0 and rec0.store_events_at_start == 0 and rec0.injections == 0
    assert rec0.extra["store"]["events_written"] == 2  # get_order + cancel_order
    assert not any("[PEER-WARNING]" in c for c in tool_messages(state0).values())

    state1, rec1, req1 = run_agent(store, Intercept(), 1)
    out = tool_messages(state1)
    assert out["get_order"].startswith("[PEER-WARNING]\n")
    assert out["cancel_order"].startswith("[PEER-WARNING]\n")
    assert out["cancel_order"].endswith("error: order #W1 has shipped and cannot be cancelled")
    assert rec1.injections == 2 and rec1.store_events_at_start == 2
    assert [k["injected"] for k in rec1.extra["coordination_keys"]] == [True, True]
    # the warning reached the model on its next request; the system prompt did not change
    last_request = req1[-1]["messages"]
    assert any("[PEER-WARNING]" in str(m.content) for m in last_request)
    assert req1[0]["messages"][0].content == "You are a retail agent."
    assert [t["function"]["name"] for t in req1[0]["tools"]] == ["get_order", "cancel_order"]
    # a different literal order id: no warning
    state2, rec2, _ = run_agent(store, Intercept(), 2, order_id="#W2")
    assert rec2.reward == 1.0 and rec2.injections == 0
    assert "[PEER-WARNING]" not in json.dumps(tool_messages(state2))
    store.close()


def test_no_coord_and_intercept_first_requests_are_byte_identical_at_trial_0(tmp_path):
    """The paper's clean contrast: at trial 0 the intercept arm sends the same first request."""
    _, rec_nc, req_nc = run_agent(SQLiteEventStore(tmp_path / "a.db"), NoCoord(), 0)
    _, rec_ic, req_ic = run_agent(SQLiteEventStore(tmp_path / "b.db"), Intercept(), 0)
    assert rec_nc.first_request_sha256 == rec_ic.first_request_sha256 is not None
    assert [m.content for m in req_nc[0]["messages"]] == [m.content for m in req_ic[0]["messages"]]
    _, rec_pull, _ = run_agent(SQLiteEventStore(tmp_path / "c.db"), Pull(), 0)
    assert rec_pull.first_request_sha256 != rec_nc.first_request_sha256  # pull adds a tool


def test_pull_middleware_adds_summary_and_trace_query_tool(tmp_path):
    store = SQLiteEventStore(tmp_path / "s.db")
    run_agent(store, Pull(), 0)
    state, rec, requests = run_agent(store, Pull(), 1, query_first=True)
    system = requests[0]["messages"][0].content
    # the paper prepends the summary to the system prompt
    assert system.startswith("Peer warnings for this task")
    assert system.endswith("\n\nYou are a retail agent.")
    assert "cancel_order" in system and "has shipped" in system
    assert sorted(t["function"]["name"] for t in requests[0]["tools"]) == [
        "cancel_order", "get_order", "trace_query"]
    answer = json.loads(tool_messages(state)["trace_query"])
    assert [e["tool_name"] for e in answer["events"]] == ["cancel_order"]
    assert rec.extra["store"]["trace_queries"] == 1
    assert [k["tool"] for k in rec.extra["coordination_keys"]] == ["get_order", "cancel_order"]
    assert not any(v.startswith("[PEER-WARNING]") for v in tool_messages(state).values())
    store.close()


def test_explicit_trial_lifecycle_and_errors(tmp_path):
    store = SQLiteEventStore(tmp_path / "s.db")
    mw = CoordinationMiddleware(Coordinator(store, Intercept()))
    agent = create_agent(RecordingFakeModel(messages=script(), requests=[]), [get_order, cancel_order],
                         middleware=[mw])
    mw.begin_trial("retail-9", 0)
    agent.invoke({"messages": [{"role": "user", "content": "go"}]})
    record = mw.end_trial(0.0, termination_reason="max_steps")
    assert record.task_id == "retail-9" and record.termination_reason == "max_steps"
    assert store.count("retail-9") == 2
    with pytest.raises(RuntimeError, match="no trial is running"):
        mw.end_trial(1.0)
    agent2 = create_agent(RecordingFakeModel(messages=script(), requests=[]), [get_order], middleware=[
        CoordinationMiddleware(Coordinator(store, NoCoord()))])
    with pytest.raises(RuntimeError, match="needs the trial"):
        agent2.invoke({"messages": [{"role": "user", "content": "go"}]})
    with pytest.raises(TypeError, match="Coordinator"):
        CoordinationMiddleware(store)  # type: ignore[arg-type]


@tool
def flaky(order_id: str) -> str:
    """A tool that raises."""
    raise ValueError(f"backend down for {order_id}")


def test_raising_tool_is_recorded_for_the_writer_and_async_invoke_works(tmp_path):
    import anyio

    store = SQLiteEventStore(tmp_path / "s.db")
    model = RecordingFakeModel(messages=iter([
        AIMessage(content="", tool_calls=[{"name": "flaky", "args": {"order_id": "#W1"}, "id": "f1"}]),
        AIMessage(content="Gave up."),
    ]), requests=[])
    mw = CoordinationMiddleware(Coordinator(store, Intercept()))
    agent = create_agent(model, [flaky], middleware=[mw])
    mw.begin_trial("t-async", 0)

    async def go():
        try:
            return await agent.ainvoke({"messages": [{"role": "user", "content": "go"}]})
        except ValueError:
            return None  # LangChain may re-raise tool errors; the call is recorded either way

    anyio.run(go)
    rec = mw.end_trial(0.0)
    assert [k["tool"] for k in rec.extra["coordination_keys"]] == ["flaky"]
    (event,) = store.task("t-async").find()
    assert "backend down for #W1" in event.event.outcome
    store.close()
