"""The alarms on trial records written by the real coordination protocols (noisefloor.protocols).

A scripted agent runs golden tasks under ``intercept`` with a SQLite store; its records go through
JSONL and ``load_trials`` into ``monitor_trials``, so the field names the protocols write
(``extra.timestamp``, ``extra.coordination_keys``, ``store_events_at_start``, ``injections``)
are the ones the monitor reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from noisefloor.logs import load_trials
from noisefloor.monitoring import monitor_trials
from noisefloor.protocols import Coordinator, Intercept
from noisefloor.store import SQLiteEventStore

TASKS = [f"task-{i}" for i in range(8)]


def _run(path: Path, n_trials: int, rng, *, p_success, refund_as_float_from=None) -> Path:
    """Each task: trial j looks an order up, tries to cancel #W1 (fails: shipped), refunds."""
    store = SQLiteEventStore(":memory:")
    coord = Coordinator(store, Intercept(), benchmark="demo/retail", model="scripted", seed=0)
    with path.open("w") as fh:
        for j in range(n_trials):
            for task in TASKS:
                session = coord.start_trial(task, j)
                session.call_tool("get_order", {"order_id": f"#{task}-{j}"}, lambda order_id: "ok")
                session.call_tool(
                    "cancel_order", {"order_id": "#W1"}, lambda order_id: "error: order is shipped"
                )
                # one literal call per task: {"amount": 5}; a later client sends 5.0 (same key)
                amount = (
                    5.0 if refund_as_float_from is not None and j >= refund_as_float_from else 5
                )
                session.call_tool(
                    "refund",
                    {"order_id": f"#{task}", "amount": amount},
                    lambda order_id, amount: "refunded",
                )
                p = p_success(j)
                record = session.finish(float(rng.random() < p), termination_reason="agent_stop")
                fh.write(json.dumps(record.model_dump(mode="json")) + "\n")
    store.close()
    return path


@pytest.fixture(scope="module")
def streams(tmp_path_factory):
    d = tmp_path_factory.mktemp("protocol_logs")
    rng = np.random.default_rng(12)
    base = _run(d / "baseline.jsonl", 10, rng, p_success=lambda j: 0.6)
    mon = _run(
        d / "monitored.jsonl",
        12,
        rng,
        p_success=lambda j: 0.6 if j < 8 else 0.0,
        refund_as_float_from=10,
    )
    return load_trials(base), load_trials(mon)


def test_protocol_records_feed_all_three_alarms(streams):
    base, mon = streams
    rep = monitor_trials(mon, base, window=24)
    assert rep.order == "extra.timestamp"  # the protocols stamp every record
    # every trial after a task's first failure is coordination-active; intercept warns on the
    # repeated cancel_order, so injections are counted
    assert (mon["injections"] > 0).any() and rep.r2 is not None
    first = {}
    for a, p in zip(rep.alarms, rep.provenance):
        first.setdefault(a.rule, (a, p))
    # R1: success falls to 0 from trial 8 on; the CUSUM fires in a round made of trials >= 8
    a, p = first["R1"]
    assert a.direction == "lower" and p["trial"] >= 8
    # R3: from trial 10 the refund amount is sent as 5.0: a new literal call (fingerprint) with
    # the key of the earlier {"amount": 5}; 8 tasks x 2 calls collide among ~270 distinct
    # calls, far above 0.5 %, from the first such call on
    a, p = first["R3"]
    assert p["trial"] == 10 and p["task_id"] == "task-0"
    assert rep.r3.collisions and all(n == 2 for _, n in rep.r3.collisions)


def test_protocol_records_quiet_when_nothing_changes(streams, tmp_path):
    base, _ = streams
    rng = np.random.default_rng(99)
    same = load_trials(_run(tmp_path / "same.jsonl", 12, rng, p_success=lambda j: 0.6))
    rep = monitor_trials(same, base, cusum_h=5.0, window=48)
    assert rep.alarms == (), rep.to_frame()
    assert rep.r3.n_colliding_calls[-1] == 0
