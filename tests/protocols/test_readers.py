"""Readers: no_coord, pull, intercept, selective intercept, predicate keying; all task-scoped."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.protocols import (
    Coordinator,
    Intercept,
    LastKWriter,
    NoCoord,
    PredicateIntercept,
    PredicateWriter,
    Pull,
    SelectiveIntercept,
    facts_extractor,
    reader_by_name,
)
from noisefloor.store import FailedTrialAction, SQLiteEventStore

ORDERS = {"#W123": "shipped", "#W456": "shipped", "#W789": "pending"}


def cancel_order(order_id, reason="no longer needed"):
    if ORDERS[order_id] == "shipped":
        raise RuntimeError(f"order {order_id} is shipped")
    return {"status": "cancelled", "order_id": order_id}


def get_order(order_id):
    return {"order_id": order_id, "status": ORDERS[order_id]}


def resolve(tool, args):
    return {"order": {"status": ORDERS.get(args.get("order_id"), "unknown")}}


def _fail_once(store, reader, task="T1", order="#W123", writer=None):
    """Trial 0 of `task` fails after get_order + cancel_order(order)."""
    coord = Coordinator(store, reader, writer)
    s = coord.start_trial(task, 0)
    s.call_tool("get_order", {"order_id": order}, get_order)
    s.call_tool("cancel_order", {"order_id": order}, cancel_order)
    return s.finish(0.0)


@pytest.fixture()
def store():
    s = SQLiteEventStore(":memory:")
    yield s
    s.close()


def test_no_coord_writes_but_never_reads(store):
    rec0 = _fail_once(store, NoCoord())
    assert rec0.extra["store"]["events_written"] == 2 and store.count("T1") == 2
    s = Coordinator(store, NoCoord()).start_trial("T1", 1)
    assert s.system_prompt("BASE") == "BASE" and s.tools == []
    out = s.call_tool("cancel_order", {"order_id": "#W123"}, cancel_order)
    assert out == "error: RuntimeError: order #W123 is shipped"
    rec = s.finish(0.0)
    assert rec.store_events_at_start == 2 and rec.injections == 0
    assert rec.protocol == "no_coord"


def test_intercept_prepends_only_on_literal_match(store):
    _fail_once(store, Intercept())
    _fail_once(store, Intercept(), task="OTHER", order="#W456")  # another task's failure
    s = Coordinator(store, Intercept()).start_trial("T1", 1)
    assert s.system_prompt("BASE") == "BASE" and s.tools == []  # nothing else changes
    # same call with other key order / JSON formatting -> warned
    warned = s.after_tool_call("cancel_order", '{ "order_id" : "#W123" }', "RESULT")
    assert warned.startswith("[PEER-WARNING]\n") and warned.endswith("[/PEER-WARNING]\nRESULT")
    assert "1 failed attempt" in warned and "order #W123 is shipped" in warned
    # different literal: untouched, byte for byte
    assert s.after_tool_call("cancel_order", {"order_id": "#W456"}, "RESULT") == "RESULT"
    # a call that only another task failed on: untouched
    assert s.after_tool_call("get_order", {"order_id": "#W456"}, "R2") == "R2"
    rec = s.finish(1.0)
    assert rec.injections == 1
    keys = rec.extra["coordination_keys"]
    assert [k["injected"] for k in keys] == [True, False, False]
    assert {"tool", "key", "fingerprint", "injected"} <= set(keys[0])


def test_intercept_counts_every_failed_attempt(store):
    for _ in range(3):
        _fail_once(store, Intercept())
    s = Coordinator(store, Intercept()).start_trial("T1", 3)
    assert "of 3 failed attempts." in s.after_tool_call("get_order", {"order_id": "#W123"}, "x")
    # reading only the newest 2 of 3 matching events, the count is a lower bound and says so
    s = Coordinator(store, Intercept(max_events=2)).start_trial("T1", 3)
    assert "of at least 2 failed attempts (3 matching calls recorded)." in s.after_tool_call(
        "get_order", {"order_id": "#W123"}, "x")


def test_intercept_counts_a_retried_call_once(store):
    # one failed attempt whose final three calls are the same call retried: three events, one
    # attempt -- the warning must agree with the pull summary of the same store
    s = Coordinator(store, Intercept()).start_trial("T1", 0)
    for _ in range(3):
        s.call_tool("cancel_order", {"order_id": "#W123"}, cancel_order)
    s.finish(0.0)
    assert store.count("T1") == 3
    s = Coordinator(store, Intercept()).start_trial("T1", 1)
    warned = s.after_tool_call("cancel_order", {"order_id": "#W123"}, "x")
    assert "of 1 failed attempt." in warned
    prompt = Coordinator(store, Pull()).start_trial("T1", 1).system_prompt("base")
    assert "in 1 failed attempt;" in prompt


def test_pull_summary_and_trace_query_are_task_scoped(store):
    _fail_once(store, Pull())
    _fail_once(store, Pull())
    _fail_once(store, Pull(), task="OTHER", order="#W456")
    s = Coordinator(store, Pull()).start_trial("T1", 2)
    prompt = s.system_prompt("BASE")
    assert prompt.startswith("Peer warnings for this task") and prompt.endswith("\n\nBASE")  # prepended (paper)
    assert prompt.count("\n- ") == 2  # two distinct calls, deduplicated over two failed trials
    assert "in 2 failed attempts" in prompt and "#W456" not in prompt
    (tool,) = s.tools
    assert tool.name == "trace_query" and tool.parameters["type"] == "object"
    answer = json.loads(s.call_tool("trace_query", {"tool_name": "cancel_order"}, None))
    assert answer["task_events_total"] == 4
    assert [e["arguments"] for e in answer["events"]] == [{"order_id": "#W123"}] * 2
    assert json.loads(tool.func(tool_name="x' OR 1=1 --")) == {"events": [], "task_events_total": 4}
    assert "error" in json.loads(tool.func(limit=0))
    # pull never touches tool responses, and trace_query calls are not task calls
    assert s.call_tool("get_order", {"order_id": "#W123"}, get_order).startswith("{")
    rec = s.finish(1.0)
    assert rec.injections == 2 and rec.extra["store"]["trace_queries"] == 3
    assert [k["tool"] for k in rec.extra["coordination_keys"]] == ["get_order"]
    # empty store: no summary, prompt unchanged
    fresh = Coordinator(store, Pull()).start_trial("EMPTY", 0)
    assert fresh.system_prompt("BASE") == "BASE" and fresh.finish(None).injections == 0


def test_selective_intercept_gate_is_novel_proximal_and_logged(store):
    # a failed trial with three final calls: position 3 (far), 2, 1 (the failing call)
    coord = Coordinator(store, SelectiveIntercept())
    s = coord.start_trial("T1", 0)
    for order in ("#W789", "#W456", "#W123"):
        s.after_tool_call("get_order", {"order_id": order}, "...")
    s.finish(0.0)
    s = coord.start_trial("T1", 1)
    far = s.after_tool_call("get_order", {"order_id": "#W789"}, "A")  # proximity 1/3
    near = s.after_tool_call("get_order", {"order_id": "#W123"}, "B")  # proximity 1
    again = s.after_tool_call("get_order", {"order_id": "#W123"}, "C")  # not novel
    miss = s.after_tool_call("get_order", {"order_id": "#W000"}, "D")  # not relevant
    assert (far, again, miss) == ("A", "C", "D") and near.startswith("[PEER-WARNING]")
    rec = s.finish(1.0)
    gate = rec.extra["gate"]
    assert [(g["novelty"], round(g["proximity"], 3), g["fired"]) for g in gate] == [
        (1.0, 0.333, False), (1.0, 1.0, True), (0.0, 1.0, False)]
    assert {"relevance", "score", "threshold", "event_ids", "key"} <= set(gate[0])
    assert rec.injections == 1
    # plain intercept on the same store warns all three matches
    s2 = Coordinator(store, Intercept()).start_trial("T1", 2)
    outs = [s2.after_tool_call("get_order", {"order_id": o}, "x") for o in ("#W789", "#W123", "#W123")]
    assert all(o.startswith("[PEER-WARNING]") for o in outs)


def test_predicate_keying_matches_other_literals_that_satisfy_it(store):
    writer = [LastKWriter(), PredicateWriter(facts_extractor(resolve, {"cancel_order": ["order.status"]}))]
    rec = _fail_once(store, PredicateIntercept(resolve), writer=writer)
    assert rec.extra["store"]["events_written"] == 3  # 2 literal + 1 predicate
    s = Coordinator(store, PredicateIntercept(resolve), writer).start_trial("T1", 1)
    lit = Coordinator(store, Intercept()).start_trial("T1", 1)
    # #W456 is shipped too: literal keying misses it, predicate keying warns
    assert lit.call_tool("cancel_order", {"order_id": "#W456"}, cancel_order).startswith("error")
    out = s.call_tool("cancel_order", {"order_id": "#W456"}, cancel_order)
    assert out.startswith("[PEER-WARNING]") and "order.status eq shipped" in out
    # #W789 is pending: no warning
    assert s.call_tool("cancel_order", {"order_id": "#W789"}, cancel_order).startswith("{")
    # the literal failing call still warns (literal + predicate)
    assert s.call_tool("cancel_order", {"order_id": "#W123"}, cancel_order).startswith("[PEER-WARNING]")
    rec = s.finish(1.0)
    assert [k.get("match") for k in rec.extra["coordination_keys"]] == ["predicate", None, "literal+predicate"]


def test_readers_ignore_hostile_task_and_argument_values(store):
    hostile_task = "T1' OR '1'='1"
    store.append(FailedTrialAction(task_id="T1", tool_name="f", arguments={"x": 1}, reward=0.0,
                                   position=1, k=3))
    for reader in (Intercept(), SelectiveIntercept(), PredicateIntercept(), Pull()):
        s = Coordinator(store, reader).start_trial(hostile_task, 0)
        assert s.store_events_at_start == 0
        assert s.system_prompt("B") == "B"
        assert s.after_tool_call("f", {"x": 1}, "r") == "r"
        assert s.after_tool_call("f", {"x": "1' OR 1=1; --", "b": b"\xff"}, "r") == "r"


def test_reader_registry():
    assert reader_by_name("pull").name == "pull"
    with pytest.raises(ValueError, match="known"):
        reader_by_name("broadcast")


_calls = st.tuples(st.sampled_from(["A", "B", "C"]), st.sampled_from(["f", "g"]),
                   st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 3) | st.text(max_size=2),
                                   max_size=2))


@settings(max_examples=40, deadline=None)
@given(written=st.lists(_calls, max_size=8), probes=st.lists(_calls, min_size=1, max_size=6))
def test_property_intercept_warns_iff_the_same_task_recorded_the_same_call(written, probes):
    from noisefloor.store import canonical_key

    store = SQLiteEventStore(":memory:")
    for task, tool, args in written:
        store.append(FailedTrialAction(task_id=task, tool_name=tool, arguments=args, reward=0.0,
                                       position=1, k=3))
    recorded = {(task, canonical_key(tool, args)) for task, tool, args in written}
    for task, tool, args in probes:
        s = Coordinator(store, Intercept()).start_trial(task, 0)
        out = s.after_tool_call(tool, args, "R")
        assert (out != "R") == ((task, canonical_key(tool, args)) in recorded)
        assert out.endswith("R")
    store.close()
