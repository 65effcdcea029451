"""No event is lost: concurrent writer processes, and a writer killed (SIGKILL) mid-write.

Both tests use real OS processes (``python -c``) writing to one SQLite file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from noisefloor.store import SQLiteEventStore

WRITER = r"""
import sys
from noisefloor.store import FailedTrialAction, SQLiteEventStore
db, writer, n_batches, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
store = SQLiteEventStore(db)
print("ready", flush=True)
for b in range(n_batches):
    events = [
        FailedTrialAction(task_id=f"task-{writer % 2}", trial=b, protocol="pull", writer="last_k",
                          run_id=f"w{writer}", tool_name="book_flight",
                          arguments={"writer": writer, "batch": b, "i": i, "pad": "x" * 200},
                          outcome="no inventory", reward=0.0, position=1, k=3)
        for i in range(batch)
    ]
    ids = store.append_many(events)
    print(f"committed {b} {ids[0]} {ids[-1]}", flush=True)
store.close()
"""


def _spawn(db, writer, n_batches, batch):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), str(writer), str(n_batches), str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _all_rows(db):
    store = SQLiteEventStore(db)
    rows = []
    for task in ("task-0", "task-1"):
        for stored in store.task(task).find():
            a = stored.event.arguments
            rows.append((a["writer"], a["batch"], a["i"], stored.event_id))
    check = store.integrity_check()
    store.close()
    return rows, check


def test_four_concurrent_writer_processes_lose_nothing(tmp_path):
    db = tmp_path / "events.db"
    SQLiteEventStore(db).close()  # create the file first, as a deployment would
    n_batches, batch = 60, 5
    procs = [_spawn(db, w, n_batches, batch) for w in range(4)]
    reported = set()
    for w, p in enumerate(procs):
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err[-2000:]
        reported |= {(w, int(line.split()[1])) for line in out.splitlines() if line.startswith("committed")}
    rows, check = _all_rows(db)
    assert check == "ok"
    assert len(reported) == 4 * n_batches
    expected = {(w, b, i) for w in range(4) for b in range(n_batches) for i in range(batch)}
    got = [(w, b, i) for w, b, i, _ in rows]
    assert len(got) == len(set(got)) == 4 * n_batches * batch  # no loss, no duplicate
    assert set(got) == expected
    # each batch got consecutive ids: appends are atomic and never interleave
    by_batch = {}
    for w, b, _i, event_id in rows:
        by_batch.setdefault((w, b), []).append(event_id)
    for ids in by_batch.values():
        ids.sort()
        assert ids == list(range(ids[0], ids[0] + batch))


@pytest.mark.parametrize("kill_after", [3, 11])
def test_writer_killed_mid_write_leaves_every_committed_event(tmp_path, kill_after):
    db = tmp_path / "events.db"
    SQLiteEventStore(db).close()
    batch = 400  # large transactions: the kill almost surely lands inside one
    survivor = _spawn(db, 1, 30, 3)
    victim = _spawn(db, 0, 10_000, batch)
    assert victim.stdout.readline().strip() == "ready"
    committed = []
    while len(committed) < kill_after:
        line = victim.stdout.readline()
        assert line, victim.stderr.read()[-2000:]
        committed.append(int(line.split()[1]))
    time.sleep(0.003 * kill_after)  # land at varying points of the next transaction
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    tail = victim.stdout.read()  # batches acknowledged between our last read and the kill
    committed += [int(line.split()[1]) for line in tail.splitlines() if line.startswith("committed")]
    _, err = survivor.communicate(timeout=120)
    assert survivor.returncode == 0, err[-2000:]
    assert victim.returncode == -signal.SIGKILL

    rows, check = _all_rows(db)
    assert check == "ok"
    victim_batches = {}
    for w, b, i, _ in rows:
        if w == 0:
            victim_batches.setdefault(b, set()).add(i)
    # every acknowledged batch is present and complete
    for b in committed:
        assert victim_batches.get(b) == set(range(batch))
    # no partial batch: the transaction in flight at the kill is all-or-nothing
    assert all(len(items) == batch for items in victim_batches.values())
    # at most one batch beyond the acknowledged ones (committed but not yet printed)
    assert len(victim_batches) - len(committed) in (0, 1)
    assert sum(1 for w, *_ in rows if w == 1) == 30 * 3
    # the store stays writable after the crash
    store = SQLiteEventStore(db)
    from noisefloor.store import FailedTrialAction

    store.append(FailedTrialAction(task_id="task-0", tool_name="f", reward=0.0, position=1, k=1))
    assert store.integrity_check() == "ok"
    store.close()


PAUSING_WRITER = r"""
import sys, time
import noisefloor.store.sqlite as backend
from noisefloor.store import FailedTrialAction, SQLiteEventStore
db = sys.argv[1]
store = SQLiteEventStore(db)
real_execute = backend._Tx.execute
count = {"n": 0}
def execute(self, sql, params=()):
    cur = real_execute(self, sql, params)
    if sql.startswith("INSERT INTO events"):
        count["n"] += 1
        if count["n"] == 150:  # half-way through the second transaction
            print("mid-transaction", flush=True)
            time.sleep(60)
    return cur
backend._Tx.execute = execute
for b in range(2):
    store.append_many([FailedTrialAction(task_id="task-0", trial=b, tool_name="f",
                                         arguments={"writer": 0, "batch": b, "i": i},
                                         reward=0.0, position=1, k=1) for i in range(100)])
    print(f"committed {b}", flush=True)
"""


def test_writer_killed_inside_a_transaction_rolls_back_cleanly(tmp_path):
    db = tmp_path / "events.db"
    SQLiteEventStore(db).close()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
    victim = subprocess.Popen([sys.executable, "-c", PAUSING_WRITER, str(db)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert victim.stdout.readline().strip() == "committed 0"
    assert victim.stdout.readline().strip() == "mid-transaction"
    # while the victim holds the write lock with 50 uncommitted rows, readers see batch 0 only
    reader = SQLiteEventStore(db)
    assert reader.count("task-0") == 100
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    assert reader.count("task-0") == 100
    batches = {e.event.arguments["batch"] for e in reader.task("task-0").find()}
    assert batches == {0}
    assert reader.integrity_check() == "ok"
    # the dead writer's lock is gone: a new append succeeds at once
    from noisefloor.store import FailedTrialAction

    reader.append(FailedTrialAction(task_id="task-0", tool_name="g", reward=0.0, position=1, k=1))
    assert reader.count("task-0") == 101
    reader.close()
