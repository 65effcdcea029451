"""Predicate facts at the moment of the call, on the real tau2-bench (retail), offline.

Retail task 30's expected actions request a return of order #W2692684 (its status goes from
``delivered`` to ``return requested``) and later look the order up again; the scripted agent
(:mod:`noisefloor.protocols.tau2.scripted`) fails the task at trial 0 by leaving out its final
action, so that later look-up is among the final three calls the predicate writer generalises,
and the scripted refinement model turns the facts it is shown into ``order.status eq <status>``.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("tau2")

from noisefloor.endpoints import ModelEndpoint
from noisefloor.protocols.tau2.run import ProtocolRunSettings, run_protocols
from noisefloor.protocols.tau2.scripted import ScriptedEndpoint
from noisefloor.protocols.tau2.state import ReplayFacts, db_facts, facts_before_calls
from noisefloor.protocols.trace import ToolCall, TrialTrace
from noisefloor.store import SQLiteEventStore
from noisefloor.store.keys import canonical_key

TASK, ORDER = "30", "#W2692684"


def _return_call(task) -> dict:
    [action] = [a for a in task.evaluation_criteria.actions
                if a.name == "return_delivered_order_items" and a.arguments["order_id"] == ORDER]
    return dict(action.arguments)


def test_replay_reads_the_state_after_the_trials_earlier_calls(retail):
    [task] = retail(TASK)
    replay = ReplayFacts("retail", {TASK: task})
    calls = (ToolCall("return_delivered_order_items", _return_call(task), "ok"),
             ToolCall("get_order_details", {"order_id": ORDER}, "..."))
    trace = TrialTrace(TASK, 0, "predicate_intercept", calls, 0.0)
    start = replay.at_call(trace, 0)("get_order_details", {"order_id": ORDER})
    after = replay.at_call(trace, 1)("get_order_details", {"order_id": ORDER})
    assert start["order"]["status"] == "delivered"
    assert after["order"]["status"] == "return requested"


def test_calls_of_one_message_each_see_their_predecessors_and_the_live_db_is_untouched(retail):
    [task] = retail(TASK)
    env = ReplayFacts("retail", {TASK: task}).environment(TASK, ())
    facts = facts_before_calls(env.tools, [("return_delivered_order_items", _return_call(task)),
                                           ("get_order_details", {"order_id": ORDER})])
    assert [f["order"]["status"] for f in facts] == ["delivered", "return requested"]
    assert db_facts(env.tools.db, {"order_id": ORDER})["order"]["status"] == "delivered"


def test_writer_and_reader_of_a_run_use_the_state_at_the_call(tmp_path, retail):
    out = tmp_path / "run"
    with ScriptedEndpoint(retail(TASK), fail=[TASK]) as server:
        run_protocols(ProtocolRunSettings(
            domain="retail", agent=ModelEndpoint("scripted-agent", (server.base_url,)),
            user=ModelEndpoint("scripted-user", (server.base_url,)), tasks=(TASK,),
            protocols=("predicate_intercept",), refine=ModelEndpoint("scripted-refine", (server.base_url,)),
            max_steps=80, concurrency=1, max_retries=0), out)
    recs = {(r["trial"]): r for r in map(json.loads, (out / "trials.jsonl").read_text().splitlines())}
    assert recs[0]["reward"] == 0.0
    # the writer: the look-up of the returned order gets the post-return status, read at its step
    decisions = recs[0]["extra"]["writer_decisions"]["predicates"]
    n = len(recs[0]["extra"]["coordination_keys"])
    assert [d["facts_step"] for d in decisions] == [n - 3, n - 2, n - 1]
    assert all(d["decided_by"] == "model" for d in decisions)
    source = canonical_key("get_order_details", {"order_id": ORDER})
    with SQLiteEventStore(out / "stores" / "predicate_intercept.db") as store:
        [stored] = [e for e in store.query(TASK)
                    if e.event.event_type == "failed_predicate" and e.event.source_key == source]
    event = stored.event
    # at task start the order was "delivered"; the trial's own return changed it before the call
    assert [(c.path, c.value) for c in event.conditions] == [("order.status", "return requested")]
    # the reader: at trial 1 the look-ups of the order before and after its return meet the
    # live state; only the later one meets "return requested", so only it is warned by that
    # predicate (a task-start reader would see "delivered" at both)
    keys1 = recs[1]["extra"]["coordination_keys"]
    assert [k["facts_step"] for k in keys1] == list(range(len(keys1)))
    ret = next(i for i, k in enumerate(keys1) if k["tool"] == "return_delivered_order_items")
    looks = [k for k in keys1 if k["key"] == source]
    before = [k for k in looks if k["facts_step"] < ret]
    after = [k for k in looks if k["facts_step"] > ret]
    assert before and after
    assert all(stored.event_id not in k.get("event_ids", []) for k in before)
    assert all(stored.event_id in k.get("event_ids", []) for k in after)


def test_cut_retail_db_loads_the_tasks_customer_while_the_block_runs(tmp_path, retail):
    import tau2.domains.retail.environment as environment

    from noisefloor.protocols.tau2.retail_cut import cut_retail_db, retail_db_for

    [task] = retail(TASK)
    before = environment.RETAIL_DB_PATH
    with cut_retail_db([task], tmp_path) as path:
        assert environment.RETAIL_DB_PATH == path
        db = environment.get_environment().tools.db
        [user] = db.users.values()  # the task's customer alone, with its orders
        assert ORDER in db.orders and db.orders[ORDER].user_id == user.user_id
        assert {o.user_id for o in db.orders.values()} == {user.user_id}
    assert environment.RETAIL_DB_PATH == before  # restored

    class Nobody:
        id = "x"

        def model_dump_json(self) -> str:
            return "{}"

    with pytest.raises(ValueError, match="retail task x: no user"):
        retail_db_for(json.loads(path.read_text()), [task, Nobody()])
