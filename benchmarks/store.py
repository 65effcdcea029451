"""Benchmark of the SQLite event store and the intercept hook.

Measures
--------
1. Write throughput with 1 and 4 writer processes (separate OS processes, one SQLite file, WAL),
   for single-event transactions and for trial-sized transactions of K = 3 events (what the
   last-K writer appends per failed trial); every run checks afterwards that no event is lost.
2. Query throughput with 10,000 events in one task: the intercept lookup (by coordination key),
   a 20-event newest-first page (what trace_query returns), and a count.
3. The latency the intercept hook adds per tool call with 10,000 events in the task:
   ``TrialSession.after_tool_call`` under ``Intercept`` minus the same call under ``NoCoord``
   (which still records the call and computes its key), for matching and non-matching calls.

Targets: the intercept hook adds < 1 ms per call at 10,000 events; 4 writers sustain
>= 2,000 events/s without loss.

Peers
-----
* Writes: the plainest direct implementation of the same job, plain :mod:`sqlite3` in the same
  set-up (the same writer processes started the same way, the same table and indexes, WAL,
  ``synchronous=NORMAL``, ``busy_timeout`` 30 s, ``BEGIN IMMEDIATE`` ... ``COMMIT`` per
  transaction of the same size), inserting the very rows the store writes (the same events,
  serialised by the store's own ``event_to_json`` before the clock starts). What the store adds
  over it is building and validating the event models, serialising them and its bookkeeping.
  Both runs are checked to hold every event afterwards.
* The intercept hook: ``after_tool_call`` under ``NoCoord`` on the same calls (which records
  the call and computes its key, but looks nothing up), as measured above.

Ratios are noisefloor / peer in time (above 1: noisefloor is slower).

Usage: ``python benchmarks/store.py [--events 10000] [--per-writer 3000] [--repeat 3] [--calls 1000]``
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# noisefloor is imported where it is used, so that --help answers at once
if TYPE_CHECKING:
    from noisefloor.store import FailedTrialAction, SQLiteEventStore


def _writer(db: str, writer: int, n: int, batch: int, barrier, out) -> None:
    from noisefloor.store import FailedTrialAction, SQLiteEventStore

    def event(task: str, i: int, position: int = 1) -> FailedTrialAction:
        return FailedTrialAction(
            task_id=task, trial=i // 3, protocol="intercept", run_id=f"w{writer}",
            tool_name="cancel_order", arguments={"order_id": f"#W{writer}-{i}", "reason": "no longer needed"},
            outcome="error: order already shipped", reward=0.0, position=position, k=3,
        )

    store = SQLiteEventStore(db)
    barrier.wait()
    t0 = time.perf_counter()
    for start in range(0, n, batch):
        store.append_many([event(f"task-{writer}", i) for i in range(start, min(n, start + batch))])
    out.put((writer, time.perf_counter() - t0))
    store.close()


def _peer_writer(db: str, writer: int, n: int, batch: int, barrier, out) -> None:
    """The peer of :func:`_writer`: plain sqlite3 inserts of the rows the store would write."""
    import sqlite3

    from noisefloor.store import FailedTrialAction
    from noisefloor.store.events import event_to_json

    rows = []
    for i in range(n):
        e = FailedTrialAction(
            task_id=f"task-{writer}", trial=i // 3, protocol="intercept", run_id=f"w{writer}",
            tool_name="cancel_order",
            arguments={"order_id": f"#W{writer}-{i}", "reason": "no longer needed"},
            outcome="error: order already shipped", reward=0.0, position=1, k=3)
        rows.append((e.task_id, e.event_type, e.tool_name, e.key, e.timestamp.isoformat(),
                     event_to_json(e)))
    conn = sqlite3.connect(db, isolation_level=None, timeout=30.0)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    barrier.wait()
    t0 = time.perf_counter()
    for start in range(0, n, batch):
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO events (task_id, event_type, tool_name, key, created, body) "
            "VALUES (?, ?, ?, ?, ?, ?)", rows[start:start + batch])
        conn.execute("COMMIT")
    out.put((writer, time.perf_counter() - t0))
    conn.close()


def write_throughput(n_writers: int, per_writer: int, batch: int, peer: bool = False
                     ) -> tuple[float, int, int]:
    """Events/s over the wall time of all writers, events expected, events found; with
    ``peer``, of the plain sqlite3 writers (:func:`_peer_writer`) on the same schema."""
    from noisefloor.store import SQLiteEventStore

    ctx = mp.get_context("fork")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "bench.db")
        SQLiteEventStore(db).close()  # the schema, in both runs
        barrier, out = ctx.Barrier(n_writers + 1), ctx.Queue()
        target = _peer_writer if peer else _writer
        procs = [ctx.Process(target=target, args=(db, w, per_writer, batch, barrier, out))
                 for w in range(n_writers)]
        for p in procs:
            p.start()
        barrier.wait()
        t0 = time.perf_counter()
        for p in procs:
            p.join()
        wall = time.perf_counter() - t0
        if any(p.exitcode != 0 for p in procs):
            raise RuntimeError("a writer process failed")
        with SQLiteEventStore(db) as store:
            found = store.total_count()
            assert store.integrity_check() == "ok"
        expected = n_writers * per_writer
        return expected / wall, expected, found


def _fill(store: SQLiteEventStore, task: str, n: int, distinct_calls: int) -> None:
    from noisefloor.store import FailedTrialAction

    batch = []
    for i in range(n):
        e = FailedTrialAction(
            task_id=task, trial=i // 3, protocol="intercept", tool_name="cancel_order",
            arguments={"order_id": f"#W{i % distinct_calls}"}, outcome="error: shipped",
            reward=0.0, position=3 - i % 3, k=3)
        batch.append(e)
        if len(batch) == 1000:
            store.append_many(batch)
            batch = []
    if batch:
        store.append_many(batch)


def _time_per_call(fn, n: int, repeat: int) -> float:
    """Best-of-`repeat` mean seconds per call over `n` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for i in range(n):
            fn(i)
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def query_and_hook(n_events: int, repeat: int, calls: int = 1000) -> dict[str, float]:
    """Seconds per query and per hook call; each timing is the mean over a multiple of
    ``calls`` calls (2x for the key lookup and the count, 1x for the page and the hook)."""
    from noisefloor.protocols import Coordinator, Intercept, NoCoord, Pull
    from noisefloor.store import SQLiteEventStore, canonical_key

    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteEventStore(os.path.join(tmp, "q.db"))
        distinct = n_events // 5  # each failing call recorded ~5 times
        _fill(store, "task-A", n_events, distinct)
        _fill(store, "task-B", n_events, distinct)  # another task of the same size
        view = store.task("task-A")
        assert view.count() == n_events
        keys = [canonical_key("cancel_order", {"order_id": f"#W{i}"}) for i in range(200)]
        res = {}
        res["query_by_key_s"] = _time_per_call(lambda i: view.find(key=keys[i % 200], limit=5), 2 * calls, repeat)
        res["query_page20_s"] = _time_per_call(lambda i: view.find(newest_first=True, limit=20), calls, repeat)
        res["count_s"] = _time_per_call(lambda i: view.count(), 2 * calls, repeat)
        res["query_all_s"] = _time_per_call(lambda i: view.find(), 3, repeat)

        def hook_cost(reader, hit: bool) -> float:
            session = Coordinator(store, reader).start_trial("task-A", 99)
            ids = [f"#W{i}" for i in range(200)] if hit else [f"#X{i}" for i in range(200)]

            def call(i: int) -> None:
                session.after_tool_call("cancel_order", {"order_id": ids[i % 200]}, "tool output")
            return _time_per_call(call, calls, repeat)

        res["pull_start_s"] = _time_per_call(
            lambda i: Coordinator(store, Pull()).start_trial("task-A", 99), 5, repeat)
        for hit in (True, False):
            tag = "match" if hit else "no_match"
            res[f"hook_no_coord_{tag}_s"] = hook_cost(NoCoord(), hit)
            res[f"hook_intercept_{tag}_s"] = hook_cost(Intercept(), hit)
        store.close()
        return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000, help="events in the task for queries/hook")
    parser.add_argument("--per-writer", type=int, default=3_000, help="events each writer appends")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--calls", type=int, default=1000,
                        help="calls per query and hook timing (twice as many for the key lookup "
                             "and the count)")
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args()
    if args.tiny:
        args.events, args.per_writer, args.repeat, args.calls = 200, 50, 1, 20

    import sqlite3

    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, cpus {os.cpu_count()}")
    print("\n== write throughput (separate processes, one SQLite file, WAL, synchronous=NORMAL) ==")
    print("peer: plain sqlite3 executemany of the same rows, same schema, pragmas and "
          "transactions")
    print(f"{'writers':>7} {'events/txn':>10} {'events':>7} {'found':>7} {'events/s':>10} "
          f"{'peer found':>10} {'peer events/s':>13} {'ratio noisefloor / peer (time)':>31}")
    results = {}
    for writers in (1, 4):
        for batch in (1, 3):
            rates: list[float] = []
            peer_rates: list[float] = []
            founds: dict[bool, int] = {}
            for _ in range(args.repeat):  # A B A B: the store, then its peer
                for peer, into in ((False, rates), (True, peer_rates)):
                    rate, expected, found = write_throughput(writers, args.per_writer, batch,
                                                             peer)
                    if found != expected:
                        raise SystemExit(f"LOST EVENTS{' (peer)' if peer else ''}: expected "
                                         f"{expected}, found {found}")
                    into.append(rate)
                    founds[peer] = found
            rate, peer_rate = statistics.median(rates), statistics.median(peer_rates)
            results[(writers, batch)] = rate
            print(f"{writers:>7} {batch:>10} {expected:>7} {founds[False]:>7} {rate:>10,.0f} "
                  f"{founds[True]:>10} {peer_rate:>13,.0f} {peer_rate / rate:>30.2f}x")

    print(f"\n== queries and intercept hook, {args.events:,} events in the task "
          f"(+{args.events:,} in another task) ==")
    r = query_and_hook(args.events, args.repeat, args.calls)
    us = 1e6
    print(f"query by key (intercept lookup, limit 5): {r['query_by_key_s'] * us:8.1f} us "
          f"({1 / r['query_by_key_s']:,.0f} queries/s)")
    print(f"newest-20 page (trace_query):             {r['query_page20_s'] * us:8.1f} us "
          f"({1 / r['query_page20_s']:,.0f} queries/s)")
    print(f"count of the task's events:               {r['count_s'] * us:8.1f} us")
    print(f"all {args.events:,} events of the task, parsed:     {r['query_all_s'] * 1e3:8.1f} ms "
          f"({args.events / r['query_all_s']:,.0f} events/s)")
    print(f"pull trial start (summary of the newest 1,000 events): {r['pull_start_s'] * 1e3:8.1f} ms")
    for tag in ("match", "no_match"):
        base, hook = r[f"hook_no_coord_{tag}_s"], r[f"hook_intercept_{tag}_s"]
        print(f"after_tool_call ({tag:>8}): no_coord {base * us:7.1f} us, intercept {hook * us:7.1f} us, "
              f"added {(hook - base) * us:7.1f} us per call")
        print(f"  peer: the same calls under NoCoord; ratio intercept / peer: {hook / base:.2f}x")
    worst_added = max(r["hook_intercept_match_s"] - r["hook_no_coord_match_s"],
                      r["hook_intercept_no_match_s"] - r["hook_no_coord_no_match_s"])
    four = min(results[(4, 1)], results[(4, 3)])
    print("\n== targets ==")
    print(f"intercept adds < 1 ms per call at {args.events:,} events: {worst_added * 1e3:.3f} ms -> "
          f"{'MET' if worst_added < 1e-3 else 'MISSED'}")
    print(f"4 writers >= 2,000 events/s without loss (worst of 1 and 3 events/txn): {four:,.0f} events/s -> "
          f"{'MET' if four >= 2000 else 'MISSED'}")


if __name__ == "__main__":
    main()
