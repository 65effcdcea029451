"""Issue 13: the store's hostile-input classes end in clear errors, never a Python internal."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.cli.store import store as store_group
from noisefloor.store import (
    Condition,
    FailedTrialAction,
    SQLiteEventStore,
    StoreError,
    canonical_key,
    parse_event,
)
from noisefloor.store.keys import MAX_ARGUMENT_DEPTH, check_depth


def _event(**kw):
    base = dict(task_id="T1", tool_name="f", reward=0.0, position=1, k=1)
    return FailedTrialAction(**{**base, **kw})


def _nested(depth):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("field", ["task_id", "tool_name", "protocol", "writer", "run_id"])
def test_bytes_text_fields_are_refused_on_append_as_on_query(field):
    with pytest.raises(ValueError, match=f"{field}\n.*{field} must be a string, got bytes"):
        _event(**{field: b"T1"})
    store = SQLiteEventStore(":memory:")
    with pytest.raises(TypeError, match="task_id must be a string, got bytes"):
        store.query(b"T1")
    with pytest.raises(ValueError, match="task_id must be a string, got bytes"):
        parse_event({"event_type": "failed_trial_action", "task_id": b"T1", "tool_name": "f",
                     "reward": 0.0, "position": 1, "k": 1})


def test_bytes_inside_arguments_are_still_kept_apart_from_text():
    e = _event(arguments={"blob": b"\xff"})
    assert e.arguments == {"blob": {"$bytes": "/w=="}}


@pytest.mark.parametrize("depth", [MAX_ARGUMENT_DEPTH + 1, 5000])
def test_deep_arguments_are_a_value_error_not_recursion(depth):
    with pytest.raises(ValueError, match=f"nest deeper than {MAX_ARGUMENT_DEPTH} levels"):
        _event(arguments={"x": _nested(depth)})
    with pytest.raises(ValueError, match=f"nest deeper than {MAX_ARGUMENT_DEPTH} levels"):
        canonical_key("f", {"x": _nested(depth)})
    text = '{"x": ' + "[" * depth + "]" * depth + "}"
    with pytest.raises(ValueError, match="nest deeper"):
        canonical_key("f", text)
    with pytest.raises(ValueError, match="nest deeper"):
        _event(arguments=text)
    with pytest.raises(ValueError, match="condition's value nest deeper"):
        Condition(path="args.x", op="eq", value=_nested(depth))


def test_arguments_at_the_depth_bound_are_stored_and_keyed():
    deepest = {"x": _nested(MAX_ARGUMENT_DEPTH - 1)}  # the dict is level 1
    store = SQLiteEventStore(":memory:")
    event = _event(arguments=deepest)
    store.append(event)
    assert store.query("T1")[0].event.key == canonical_key("f", deepest)


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.integers() | st.text(max_size=3),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3),
                    max_leaves=30))
def test_check_depth_agrees_with_a_recursive_count(value):
    def depth(v):
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        return 0

    d = depth(value)
    check_depth(value, limit=d)  # at the bound: accepted
    if d > 0:
        with pytest.raises(ValueError):
            check_depth(value, limit=d - 1)


@pytest.mark.parametrize("after_id", [2**63, 2**64, 10**30])
def test_after_id_beyond_64_bits_is_a_value_error(after_id):
    store = SQLiteEventStore(":memory:")
    with pytest.raises(ValueError, match=r"after_id must be an int in \[0, 2\*\*63 - 1\]"):
        store.query("T1", after_id=after_id)
    with pytest.raises(ValueError, match="after_id"):
        store.task("T1").find(after_id=after_id)
    assert store.query("T1", after_id=2**63 - 1) == []


def _damage(db):
    with SQLiteEventStore(db) as store:
        store.append_many([_event(task_id=f"T{i}", arguments={"pad": "x" * 200}) for i in range(400)])
    raw = bytearray(db.read_bytes())
    raw[3 * 4096:6 * 4096] = b"\xa5" * (3 * 4096)
    db.write_bytes(bytes(raw))


def test_damaged_store_names_file_and_cause_in_library_and_cli(tmp_path):
    db = tmp_path / "damaged.db"
    _damage(db)
    errors, cli_failed = [], 0
    for task in ("T1", "T200", "T399"):
        try:
            with SQLiteEventStore(db) as store:
                store.query(task)
        except StoreError as exc:
            errors.append(exc)
        result = CliRunner().invoke(store_group, ["query", "--db", str(db), "--task", task])
        if result.exit_code:
            cli_failed += 1
            assert "internal error" not in result.output
            assert f"{db}: " in result.output and "the store file is damaged" in result.output
    assert cli_failed == len(errors) > 0
    assert all(e.reason == "damaged" and str(db) in str(e) for e in errors)
    assert "sqlite3 shell's .recover" in str(errors[0])


def test_store_error_is_an_oserror_and_a_sqlite_error():
    import sqlite3

    assert issubclass(StoreError, OSError) and issubclass(StoreError, sqlite3.DatabaseError)
