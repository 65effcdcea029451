"""Writers: last-K (the paper's K = 3), judged, predicate."""

from __future__ import annotations

import pytest

from noisefloor.protocols import (
    Attribution,
    JudgedWriter,
    LastKWriter,
    PredicateWriter,
    ToolCall,
    TrialTrace,
    Writer,
    facts_extractor,
    is_failure,
)
from noisefloor.store import canonical_key

CALLS = tuple(ToolCall(f"tool{i}", {"i": i}, f"out{i}") for i in range(6))


def _trace(reward, calls=CALLS):
    return TrialTrace("T", 2, "intercept", calls, reward, run_id="seed1")


def test_last_k_writes_final_three_calls_of_a_failed_trial():
    events = LastKWriter().events_for(_trace(0.0))
    assert [e.tool_name for e in events] == ["tool3", "tool4", "tool5"]
    assert [e.position for e in events] == [3, 2, 1]  # 1 = the final call
    assert {e.k for e in events} == {3}
    e = events[-1]
    assert (e.task_id, e.trial, e.protocol, e.run_id, e.writer) == ("T", 2, "intercept", "seed1", "last_k")
    assert e.outcome == "out5" and e.reward == 0.0
    assert e.key == canonical_key("tool5", {"i": 5})


@pytest.mark.parametrize("reward, n", [(1.0, 0), (1 - 1e-7, 0), (None, 0), (0.5, 3), (0.999, 3)])
def test_only_failed_trials_are_written(reward, n):
    assert len(LastKWriter().events_for(_trace(reward))) == n


def test_short_trials_and_other_k():
    assert [e.position for e in LastKWriter().events_for(_trace(0.0, CALLS[:2]))] == [2, 1]
    assert LastKWriter().events_for(_trace(0.0, ())) == []
    assert [e.tool_name for e in LastKWriter(k=1).events_for(_trace(0.0))] == ["tool5"]
    with pytest.raises(ValueError, match="k must be"):
        LastKWriter(k=0)


def test_error_calls_keep_their_error_in_the_outcome():
    calls = (ToolCall("book", {"f": "UA1"}, "no inventory", error=True),)
    (e,) = LastKWriter().events_for(_trace(0.0, calls))
    assert e.outcome == "error: no inventory"


def test_is_failure_validates():
    with pytest.raises(ValueError):
        is_failure(float("nan"))
    with pytest.raises(ValueError):
        is_failure(1.5)


def test_judged_writer_plugs_in_through_the_same_interface():
    seen = []

    def judge(trace):
        seen.append(trace.reward)
        return [Attribution(1, 0.9, "root cause"), Attribution(5, 0.2), Attribution(4, 0.6)]

    w = JudgedWriter(judge)
    assert isinstance(w, Writer) and isinstance(LastKWriter(), Writer)
    events = w.events_for(_trace(0.0))
    assert [(e.tool_name, e.position, e.weight) for e in events] == [("tool1", 5, 0.9), ("tool4", 2, 0.6)]
    assert {e.writer for e in events} == {"judged"} and {e.k for e in events} == {5}
    assert w.events_for(_trace(1.0)) == [] and seen == [0.0]  # judge not called on success
    with pytest.raises(ValueError, match="call_index 9"):
        JudgedWriter(lambda t: [Attribution(9)]).events_for(_trace(0.0))
    with pytest.raises(ValueError, match="weight"):
        JudgedWriter(lambda t: [Attribution(0, 1.5)]).events_for(_trace(0.0))


def test_predicate_writer_with_facts_extractor():
    orders = {"#W123": {"status": "shipped"}}

    def resolve(tool, args):
        return {"order": orders.get(args.get("order_id"), {})}

    extract = facts_extractor(resolve, {"cancel_order": ["order.status"]})
    calls = (ToolCall("get_order", {"order_id": "#W123"}, "..."),
             ToolCall("cancel_order", {"order_id": "#W123"}, "cannot cancel: shipped", error=True))
    (e,) = PredicateWriter(extract).events_for(_trace(0.0, calls))
    assert e.event_type == "failed_predicate" and e.tool_name == "cancel_order"
    assert [(c.path, c.op, c.value) for c in e.conditions] == [("order.status", "eq", "shipped")]
    assert e.position == 1 and e.source_key == canonical_key("cancel_order", {"order_id": "#W123"})
    # missing fact: no predicate rather than a wrong one
    assert PredicateWriter(extract).events_for(
        _trace(0.0, (ToolCall("cancel_order", {"order_id": "#nope"}, "x"),))) == []
