"""The plain-callables session: trial records in the project's schema, usable by the analysis."""

from __future__ import annotations

import json

import pytest

from noisefloor.floor.active import coordination_active_tasks
from noisefloor.logs import TrialRecord, load_trials
from noisefloor.passk import pass_hat_k
from noisefloor.protocols import Coordinator, Intercept, NoCoord, Pull, request_sha256
from noisefloor.store import SQLiteEventStore

# A tiny deterministic environment: on "trap" tasks the obvious first action fails; an agent
# that has been warned about it takes the alternative route and succeeds.
TASKS = {"t1": "trap", "t2": "easy", "t3": "trap", "t4": "easy"}


def agent_loop(session, task_id):
    """A hand-written agent loop using only the plain callables."""
    prompt = session.system_prompt("You are a booking agent.")
    tools = {t.name: t for t in session.tools}
    if "trace_query" in tools:  # a pull agent checks peer state first
        peer = json.loads(session.call_tool("trace_query", {}, None))
        warned = bool(peer["events"])
    else:
        warned = "book_direct" in prompt and "Peer warnings" in prompt
    session.call_tool("search", {"task": task_id}, lambda task: f"options for {task}")
    if not warned:
        seen = session.call_tool("book_direct", {"task": task_id},
                                 lambda task: "no inventory" if TASKS[task] == "trap" else "booked")
        warned = "[PEER-WARNING]" in seen
        if "booked" in seen and not warned:
            return 1.0
    if TASKS[task_id] == "trap" and not warned:
        return 0.0
    seen = session.call_tool("book_via_partner", {"task": task_id}, lambda task: "booked")
    return 1.0 if "booked" in seen else 0.0


def run(store, reader, n_trials=2, seed=1):
    coord = Coordinator(store, reader, benchmark="demo/booking", model="scripted", seed=seed)
    records = []
    for trial in range(n_trials):
        for task_id in TASKS:
            session = coord.start_trial(task_id, trial)
            reward = agent_loop(session, task_id)
            records.append(session.finish(reward, termination_reason="agent_stop",
                                          first_request_sha256=request_sha256({"task": task_id})))
    return records


def test_records_match_the_trial_log_schema_and_feed_the_analysis(tmp_path):
    lines = []
    for reader in (NoCoord(), Intercept(), Pull()):
        store = SQLiteEventStore(tmp_path / f"{reader.name}.db")  # one store per protocol arm
        records = run(store, reader)
        assert all(isinstance(r, TrialRecord) for r in records)
        lines += [r.model_dump_json() for r in records]
        by = {(r.task_id, r.trial): r for r in records}
        assert by[("t1", 0)].reward == 0.0 and by[("t2", 0)].reward == 1.0
        assert by[("t1", 0)].store_events_at_start == 0
        assert by[("t1", 1)].store_events_at_start == 2  # search + book_direct of trial 0
        if reader.name == "no_coord":
            assert by[("t1", 1)].reward == 0.0 and by[("t1", 1)].injections == 0
        else:  # the warning lets the agent recover on the trap task
            assert by[("t1", 1)].reward == 1.0 and by[("t1", 1)].injections >= 1
        store.close()
    log = tmp_path / "trials.jsonl"
    log.write_text("\n".join(lines) + "\n")
    frame = load_trials(log)
    assert len(frame) == 3 * 2 * 4
    assert set(frame["protocol"]) == {"no_coord", "intercept", "pull"}
    # the coordination-active subset: tasks both arms failed at trial 0
    assert coordination_active_tasks(frame, "intercept", "no_coord") == ("t1", "t3")
    assert coordination_active_tasks(frame, "pull", "no_coord", definition="store") == ("t1", "t3")
    one_arm = frame[frame["protocol"] == "intercept"]
    # intercept: trap tasks fail at trial 0 only -> 6 successes of 8 trials
    assert pass_hat_k(one_arm, k=1).value == pytest.approx(6 / 8)


def test_record_extra_carries_keys_timestamp_and_store_info():
    store = SQLiteEventStore(":memory:")
    s = Coordinator(store, Intercept()).start_trial("t1", 0)
    s.call_tool("f", {"b": 1, "a": 2}, lambda a, b: a + b)
    s.call_tool("g", None, lambda: 1 / 0)  # a raising tool: the agent sees the error
    rec = s.finish(0.25, extra={"note": "x"})
    assert rec.extra["note"] == "x" and rec.extra["timestamp"].endswith("+00:00")
    assert [k["tool"] for k in rec.extra["coordination_keys"]] == ["f", "g"]
    assert rec.extra["store"]["events_written"] == 2
    assert s.calls[1].error and s.calls[1].response.startswith("error: ZeroDivisionError")
    with pytest.raises(RuntimeError, match="already finished"):
        s.finish(0.0)
    with pytest.raises(ValueError, match="reserved"):
        Coordinator(store, Intercept()).start_trial("t1", 1).finish(1.0, extra={"store": 1})


def test_infrastructure_errors_and_missing_rewards_write_nothing():
    store = SQLiteEventStore(":memory:")
    coord = Coordinator(store, NoCoord())
    s = coord.start_trial("t1", 0)
    s.after_tool_call("f", {}, "x")
    rec = s.finish(None, termination_reason="harness_error:timeout", infrastructure_error=True)
    assert rec.reward is None and rec.infrastructure_error and store.count("t1") == 0
    s = coord.start_trial("t1", 1)
    s.after_tool_call("f", {}, "x")
    # an infrastructure error has no reward: the log would refuse the record, so finish does
    with pytest.raises(ValueError, match="infrastructure error never produced a result"):
        s.finish(0.0, infrastructure_error=True)
    s.finish(None, infrastructure_error=True)
    assert store.count("t1") == 0


def test_bad_inputs_raise_clear_errors():
    store = SQLiteEventStore(":memory:")
    with pytest.raises(TypeError, match="reader"):
        Coordinator(store, "intercept")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="store"):
        Coordinator({}, Intercept())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="trial"):
        Coordinator(store, Intercept()).start_trial("t", -1)
    s = Coordinator(store, Intercept()).start_trial("t", 0)
    with pytest.raises(ValueError, match="not JSON"):
        s.after_tool_call("f", "{oops", "x")
    with pytest.raises(Exception, match="reward"):
        s.finish(1.5)
