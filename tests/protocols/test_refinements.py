"""The model-backed refinements (judge, gate, predicate extraction) and their recorded fallbacks.

A small OpenAI-compatible server on 127.0.0.1 answers with a fixed JSON object per prompt; a
closed port stands for a failed endpoint.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from noisefloor.endpoints import ModelEndpoint
from noisefloor.protocols import (
    Coordinator,
    JudgedWriter,
    PredicateIntercept,
    PredicateWriter,
    ToolCall,
    TrialTrace,
)
from noisefloor.protocols.refinements import (
    ModelCaller,
    ModelGate,
    ModelJudge,
    ModelPredicateExtractor,
    load_prompt,
)
from noisefloor.store import FailedTrialAction, SQLiteEventStore


class _Server:
    def __init__(self, answer):
        self.answer = answer
        self.prompts: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][0]["content"]
                outer.prompts.append(prompt)
                data = json.dumps({"id": "x", "object": "chat.completion", "created": 0,
                                   "model": body["model"], "choices": [{"index": 0, "finish_reason": "stop",
                                   "message": {"role": "assistant", "content": outer.answer(prompt)}}],
                                   "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                             "total_tokens": 15}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # close() waits for the serving loop's next poll: every 50 ms, not the default 0.5 s
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def model():
    servers, callers = [], []

    def make(answer=None):
        if answer is None:  # a closed port: every call fails
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        else:
            server = _Server(answer)
            servers.append(server)
            url = server.url
        caller = ModelCaller(ModelEndpoint("judge", (url,), price_input_per_mtok=1.0,
                                          price_output_per_mtok=2.0), max_retries=0, timeout=10)
        callers.append(caller)
        return caller, (servers[-1] if answer is not None else None)

    yield make
    for c in callers:
        c.close()
    for s in servers:
        s.close()


CALLS = (ToolCall("find_user", {"name": "Ann"}, "user_1"),
         ToolCall("get_order", {"order_id": "#W1"}, '{"status": "shipped"}'),
         ToolCall("list_items", {"order_id": "#W1"}, "[...]"),
         ToolCall("cancel_order", {"order_id": "#W1"}, "error: shipped", error=True))
TRACE = TrialTrace("T", 0, "no_coord", CALLS, reward=0.0, attempt_id="a1")


def test_prompts_are_package_data_with_their_fields():
    for name, fields in (("writer_judge", "{calls}"), ("gate", "{events}"), ("predicate", "{facts}")):
        assert fields in load_prompt(name)


def test_judge_blames_the_upstream_call_the_model_names(model):
    caller, server = model(lambda p: '{"blamed": [{"call_index": 1, "weight": 0.9, "rationale": "read shipped"}]}')
    judge = ModelJudge(caller)
    events = JudgedWriter(judge).events_for(TRACE)
    assert [(e.tool_name, e.weight, e.position) for e in events] == [("get_order", 0.9, 3)]
    assert judge.decisions[0]["decided_by"] == "model"
    assert "1: get_order" in server.prompts[0] and "reward 0.0" in server.prompts[0]
    assert caller.calls[0]["ok"] and caller.calls[0]["tokens_in"] == 10
    assert caller.calls[0]["cost_usd"] == pytest.approx((10 * 1.0 + 5 * 2.0) / 1e6)


@pytest.mark.parametrize("answer", [None, lambda p: "I think call 2.",
                                    lambda p: '{"blamed": [{"call_index": 9, "weight": 1}]}'])
def test_judge_falls_back_to_the_last_k_calls_and_says_so(model, answer):
    caller, _ = model(answer)
    judge = ModelJudge(caller, k=3)
    events = JudgedWriter(judge).events_for(TRACE)
    assert [e.tool_name for e in events] == ["get_order", "list_items", "cancel_order"]
    d = judge.decisions[0]
    assert d["decided_by"] == "fallback" and d["error"] and d["attempt_id"] == "a1"


def _gate_session(caller, position):
    store = SQLiteEventStore(":memory:")
    store.append(FailedTrialAction(task_id="T", tool_name="get_order", arguments={"order_id": "#W1"},
                                   outcome="shipped", reward=0.0, position=position, k=3))
    return Coordinator(store, ModelGate(caller)).start_trial("T", 1)


def test_gate_model_decides_both_ways(model):
    caller, server = model(lambda p: '{"relevant": true, "novel": true, "decision_proximal": true, "reason": "r"}')
    session = _gate_session(caller, position=3)  # the score gate would not fire (proximity 1/3)
    assert session.after_tool_call("get_order", {"order_id": "#W1"}, "x").startswith("[PEER-WARNING]")
    entry = session.finish(0.0).extra["gate"][0]
    assert entry["decided_by"] == "model" and entry["fired"] and entry["score"] < 0.5
    assert "get_order" in server.prompts[0]
    caller2, _ = model(lambda p: '{"relevant": true, "novel": false, "decision_proximal": true}')
    session = _gate_session(caller2, position=1)  # the score gate would fire
    assert session.after_tool_call("get_order", {"order_id": "#W1"}, "x") == "x"
    assert session.finish(0.0).extra["gate"][0]["fired"] is False


def test_gate_falls_back_to_the_score_gate_when_the_endpoint_fails(model):
    caller, _ = model(None)
    session = _gate_session(caller, position=1)
    assert session.after_tool_call("get_order", {"order_id": "#W1"}, "x").startswith("[PEER-WARNING]")
    entry = session.finish(0.0).extra["gate"][0]
    assert entry["decided_by"] == "fallback" and "error" in entry and entry["fired"]


STATUS = {"#W1": "shipped", "#W2": "shipped", "#W3": "pending"}


def _resolver(tool, arguments):
    return {"order": {"status": STATUS[arguments["order_id"]]}}


def test_predicate_extraction_generalises_to_another_order_in_the_same_state(model):
    caller, server = model(lambda p: '{"conditions": [{"path": "order.status", "op": "eq", "value": "shipped"}]}')
    extractor = ModelPredicateExtractor(caller, _resolver)
    store = SQLiteEventStore(":memory:")
    coord = Coordinator(store, PredicateIntercept(_resolver), PredicateWriter(extractor, k=1))
    first = coord.start_trial("T", 0)
    first.after_tool_call("cancel_order", {"order_id": "#W1"}, "error: shipped", error=True)
    first.finish(0.0)
    assert extractor.decisions[0]["decided_by"] == "model"
    assert '"status": "shipped"' in server.prompts[0]
    second = coord.start_trial("T", 1)
    assert second.after_tool_call("cancel_order", {"order_id": "#W2"}, "...").startswith("[PEER-WARNING]")
    assert second.after_tool_call("cancel_order", {"order_id": "#W3"}, "ok") == "ok"


def test_predicate_extraction_falls_back_to_the_literal_arguments(model):
    caller, _ = model(lambda p: '{"conditions": [{"path": "not a path!", "value": 1}]}')
    extractor = ModelPredicateExtractor(caller, _resolver)
    conditions = extractor(TRACE, CALLS[-1])
    assert [(c.path, c.value) for c in conditions] == [("args.order_id", "#W1")]
    assert extractor.decisions[0]["decided_by"] == "fallback"
