"""SQLite store: round trips, validation, task scoping against hostile inputs."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.store import (
    Condition,
    FailedPredicate,
    FailedTrialAction,
    SQLiteEventStore,
    canonical_key,
    event_from_json,
    event_to_json,
)

HOSTILE = [
    "' OR '1'='1",
    "A'; DROP TABLE events; --",
    "%",
    "_",
    "*",
    "A%",
    "a",  # case variant of "A"
    "A ",  # trailing space
    " A",
    "A\x00",  # embedded NUL
    "A\x00B",
    "\\",
    '"',
    "A\nB",
    "x" * 100_000,  # very long
    "\u0391",  # Greek capital alpha, looks like A
    "Ａ",  # fullwidth A
]


def _event(task="A", tool="cancel_order", args=None, trial=0, position=1, **kw):
    return FailedTrialAction(
        task_id=task,
        trial=trial,
        protocol="intercept",
        tool_name=tool,
        arguments={"order_id": "#W1"} if args is None else args,
        outcome="error: order already shipped",
        reward=0.0,
        position=position,
        k=3,
        **kw,
    )


@pytest.fixture()
def store(tmp_path):
    s = SQLiteEventStore(tmp_path / "events.db")
    yield s
    s.close()


def test_file_is_wal_and_events_round_trip(store, tmp_path):
    ids = store.append_many([_event(position=p) for p in (1, 2, 3)])
    assert ids == [1, 2, 3]
    got = store.task("A").find()
    assert [g.event_id for g in got] == ids
    assert [g.event.position for g in got] == [1, 2, 3]
    assert got[0].event == _event(position=1).model_copy(update={"timestamp": got[0].event.timestamp})
    with sqlite3.connect(tmp_path / "events.db") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.integrity_check() == "ok"


def test_filters_are_exact(store):
    store.append(_event(args={"order_id": "#W1"}))
    store.append(_event(args={"order_id": "#W2"}))
    store.append(_event(tool="get_order", args={"order_id": "#W1"}))
    view = store.task("A")
    key = canonical_key("cancel_order", {"order_id": "#W1"})
    assert [e.event.arguments for e in view.by_key(key)] == [{"order_id": "#W1"}]
    assert len(view.find(tool_name="cancel_order")) == 2
    assert len(view.find(tool_name="cancel%")) == 0
    assert [e.event_id for e in view.find(newest_first=True, limit=2)] == [3, 2]
    assert [e.event_id for e in view.find(after_id=2)] == [3]
    assert len(view.find(event_type="failed_predicate")) == 0


def test_bytes_and_surrogates_in_arguments_round_trip(store):
    args = {
        "raw": b"\xff\xfe\x00\x80",
        "s": b"caf\xe9".decode("utf-8", "surrogateescape"),
        "nan": float("nan"),
        "long": "y" * 50_000,
    }
    key = canonical_key("f", args)
    store.append(_event(tool="f", args=args))
    (got,) = store.task("A").by_key(key)
    assert got.event.key == key
    assert got.event.arguments["raw"] == {"$bytes": "//4AgA=="}
    assert got.event.arguments["s"] == "caf\udce9"
    assert got.event.arguments["long"] == "y" * 50_000


@pytest.mark.parametrize("hostile", HOSTILE, ids=[f"h{i}" for i in range(len(HOSTILE))])
def test_hostile_task_ids_and_filters_never_cross_tasks(store, hostile):
    store.append(_event(task="A", args={"order_id": hostile}))
    store.append(_event(task="B", args={"order_id": hostile}))
    # the hostile string as a *task id* of its own: sees only its own event
    if len(hostile) <= 4096:
        store.append(_event(task=hostile, args={"q": hostile}, tool="probe"))
        own = store.task(hostile).find()
        assert len(own) == 1 and own[0].event.task_id == hostile
        assert own[0].event.tool_name == "probe"
    else:  # task ids are capped at 4096 characters: a clear error, nothing written
        with pytest.raises(ValueError, match="task_id"):
            _event(task=hostile)
        assert store.task(hostile).find() == []
    for task in ("A", "B"):
        events = store.task(task).find()
        assert {e.event.task_id for e in events} == {task}
        assert len(events) == 1
    # hostile filters on task A return nothing that is not A's
    view = store.task("A")
    for kwargs in ({"tool_name": hostile}, {"key": hostile}):
        assert view.find(**kwargs) == []
    assert len(view.by_key(canonical_key("cancel_order", {"order_id": hostile}))) == 1
    assert store.count("A") == 1 and store.count("B") == 1


def test_view_cannot_be_widened(store):
    store.append(_event(task="B"))
    view = store.task("A")
    with pytest.raises(TypeError):
        view.find(task_id="B")  # type: ignore[call-arg]
    assert view.find() == []


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"tool_name": 3}, TypeError, "tool_name must be a string"),
        ({"key": b"x"}, TypeError, "key must be a string"),
        ({"limit": 0}, ValueError, "limit"),
        ({"limit": 10**9}, ValueError, "limit"),
        ({"limit": True}, TypeError, "limit"),
        ({"after_id": -1}, ValueError, "after_id"),
        ({"event_type": "x' OR 1=1"}, ValueError, "event_type"),
    ],
)
def test_bad_filters_raise_clear_errors(store, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        store.task("A").find(**kwargs)


def test_bad_task_ids_raise(store):
    with pytest.raises(TypeError, match="task_id"):
        store.task(b"A")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="task_id"):
        store.task("")
    with pytest.raises(ValueError, match="surrogate"):
        store.task("A\udcff")
    with pytest.raises(ValueError, match="task_id"):
        _event(task="A\udcff")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tasks=st.lists(st.text(min_size=1, max_size=12).filter(lambda s: s.encode("utf-8", "ignore") == s.encode("utf-8", "surrogatepass")), min_size=2, max_size=4, unique=True),
    probe=st.text(min_size=1, max_size=30).filter(lambda s: s.encode("utf-8", "ignore") == s.encode("utf-8", "surrogatepass")),
)
def test_property_reader_sees_only_its_task(tmp_path_factory, tasks, probe):
    store = SQLiteEventStore(":memory:")
    for t in tasks:
        store.append(_event(task=t, args={"x": probe}))
    for t in tasks:
        view = store.task(t)
        assert [e.event.task_id for e in view.find()] == [t]
        assert all(e.event.task_id == t for e in view.find(tool_name=probe))
    if probe not in tasks:
        assert store.task(probe).find() == []
    store.close()


def test_event_validation_errors_name_fields():
    with pytest.raises(ValueError, match="reward"):
        FailedTrialAction(task_id="A", tool_name="f", reward=1.0, position=1, k=3)
    with pytest.raises(ValueError, match="position"):
        FailedTrialAction(task_id="A", tool_name="f", reward=0.0, position=4, k=3)
    with pytest.raises(ValueError, match="key"):
        FailedTrialAction(task_id="A", tool_name="f", reward=0.0, position=1, k=3, key="f:bogus")
    with pytest.raises(ValueError, match="line 1|not valid JSON"):
        event_from_json("{nope", source="line 1")
    with pytest.raises(ValueError, match="schema_version"):
        event_from_json('{"schema_version": "9", "event_type": "failed_trial_action"}')
    with pytest.raises(TypeError, match="events\\[0\\]"):
        SQLiteEventStore(":memory:").append_many([{"task_id": "A"}])  # type: ignore[list-item]


def test_predicate_events_are_keyed_by_their_conditions(store):
    p1 = FailedPredicate(task_id="A", tool_name="cancel_order", reward=0.0,
                         conditions=[Condition(path="order.status", value="shipped"),
                                     Condition(path="args.reason", op="ne", value="fraud")])
    p2 = FailedPredicate(task_id="A", tool_name="cancel_order", reward=0.0,
                         conditions=[Condition(path="args.reason", op="ne", value="fraud"),
                                     Condition(path="order.status", value="shipped")])
    assert p1.key == p2.key and ":pred:" in p1.key
    store.append(p1)
    assert store.task("A").find(event_type="failed_predicate")[0].event == p1
    with pytest.raises(ValueError, match="list"):
        Condition(path="a", op="in", value="x")


def test_serialisation_is_ascii_and_versioned():
    e = _event(args={"s": "caf\u00e9"}, timestamp=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))
    text = event_to_json(e)
    assert text.isascii() and '"schema_version":"1"' in text
    assert event_from_json(text) == e


def test_reopen_and_format_check(tmp_path):
    path = tmp_path / "s.db"
    with SQLiteEventStore(path) as s:
        s.append(_event())
    with SQLiteEventStore(path) as s:
        assert s.count("A") == 1
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE store_meta SET value = '99' WHERE name = 'format'")
    with pytest.raises(ValueError, match="store format '99'"):
        SQLiteEventStore(path)
    closed = SQLiteEventStore(tmp_path / "c.db")
    closed.close()
    with pytest.raises(RuntimeError, match="closed"):
        closed.count("A")


# --- someone else's SQLite database is refused and left unchanged ---

def _foreign(path, *statements):
    conn = sqlite3.connect(path)
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("statements,shown", [
    (("CREATE TABLE customers (id INTEGER, name TEXT)", "INSERT INTO customers VALUES (1, 'x')",
      "CREATE TABLE orders (id INTEGER)"), "2 table(s): customers, orders"),
    (("CREATE VIEW v AS SELECT 1 AS one",), "view v"),
    # a store_meta of another schema (no name/value columns) is not a marker
    (("CREATE TABLE store_meta (k TEXT)",), "1 table(s): store_meta"),
    # a store_meta without the format row, beside someone else's table
    (("CREATE TABLE store_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
      "CREATE TABLE invoices (id INTEGER)"), "1 table(s): invoices"),
])
def test_a_foreign_database_is_refused_and_left_byte_identical(tmp_path, statements, shown):
    db = tmp_path / "theirs.db"
    before = _foreign(db, *statements)
    with pytest.raises(ValueError, match="not a noisefloor store") as info:
        SQLiteEventStore(db)
    assert str(db) in str(info.value) and shown in str(info.value)
    assert "left unchanged" in str(info.value)
    assert db.read_bytes() == before  # no tables, no WAL journal mode written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.db"]


def test_a_zero_byte_file_becomes_a_store(tmp_path):
    db = tmp_path / "empty.db"
    db.touch()
    store = SQLiteEventStore(db)
    store.append(FailedTrialAction(task_id="T1", tool_name="f", reward=0.0, position=1, k=1))
    store.close()
    assert SQLiteEventStore(db).count("T1") == 1


def test_a_store_with_an_extra_table_of_the_user_still_opens(tmp_path):
    db = tmp_path / "store.db"
    SQLiteEventStore(db).close()
    _foreign(db, "CREATE TABLE my_notes (t TEXT)")
    assert SQLiteEventStore(db).total_count() == 0


def test_a_store_whose_format_row_was_not_written_yet_is_completed(tmp_path):
    # creation stopped between the tables and the format marker (two transactions)
    db = tmp_path / "half.db"
    SQLiteEventStore(db).close()
    _foreign(db, "DELETE FROM store_meta")
    SQLiteEventStore(db).close()
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT value FROM store_meta WHERE name = 'format'").fetchone() == ("1",)
    conn.close()
