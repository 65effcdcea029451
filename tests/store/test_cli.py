"""`noisefloor store` command group: registered on the main CLI; `store query` prints one task."""

from __future__ import annotations

import json

from click.testing import CliRunner

from noisefloor.cli.store import store as store_group
from noisefloor.store import FailedTrialAction, SQLiteEventStore


def test_store_group_is_attached_to_the_main_cli():
    from noisefloor.cli.main import cli

    result = CliRunner().invoke(cli, ["store", "serve", "--help"])
    assert result.exit_code == 0 and "--db" in result.output and "MCP" in result.output


def test_store_query_prints_only_the_task_asked_for(tmp_path):
    db = tmp_path / "s.db"
    with SQLiteEventStore(db) as s:
        for task in ("A", "B"):
            s.append(FailedTrialAction(task_id=task, tool_name="f", arguments={"t": task},
                                       reward=0.0, position=1, k=3))
    result = CliRunner().invoke(store_group, ["query", "--db", str(db), "--task", "A"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [(e["task_id"], e["arguments"]) for e in lines] == [("A", {"t": "A"})]
    hostile = CliRunner().invoke(store_group, ["query", "--db", str(db), "--task", "A' OR '1'='1"])
    assert hostile.exit_code == 0 and hostile.output == ""
    missing = CliRunner().invoke(store_group, ["query", "--db", str(tmp_path / "nope.db"), "--task", "A"])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_a_file_that_is_not_a_store_is_one_clear_line(tmp_path):
    bad = tmp_path / "trials.jsonl"
    bad.write_text('{"not": "sqlite"}\n' * 50)
    for args in (["query", "--db", str(bad), "--task", "A"], ["serve", "--db", str(bad)]):
        result = CliRunner().invoke(store_group, args)
        assert result.exit_code == 1, result.output
        assert f"{bad}: cannot open it as a noisefloor store" in result.output
        assert "file is not a database" in result.output and result.exception is not None
        assert isinstance(result.exception, SystemExit)  # handled, not a traceback


def test_a_foreign_sqlite_database_is_refused_by_query_and_serve(tmp_path):
    import sqlite3

    db = tmp_path / "crm.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    for args in (["query", "--db", str(db), "--task", "A"], ["serve", "--db", str(db)]):
        result = CliRunner().invoke(store_group, args)
        assert result.exit_code == 1, result.output
        assert isinstance(result.exception, SystemExit)  # handled, not a traceback
        assert (f"{db}: an SQLite database that is not a noisefloor store: it holds 1 table(s): "
                "customers") in result.output
    assert db.read_bytes() == before


def test_query_on_a_zero_byte_file_initialises_an_empty_store(tmp_path):
    db = tmp_path / "new.db"
    db.touch()
    result = CliRunner().invoke(store_group, ["query", "--db", str(db), "--task", "A"])
    assert result.exit_code == 0 and result.output == ""
    assert SQLiteEventStore(db).total_count() == 0


def test_serve_on_another_store_format_is_one_clear_line(tmp_path):
    import sqlite3

    db = tmp_path / "future.db"
    SQLiteEventStore(db).close()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE store_meta SET value = '99' WHERE name = 'format'")
    conn.commit()
    conn.close()
    result = CliRunner().invoke(store_group, ["serve", "--db", str(db)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "store format '99'" in result.output


def test_query_says_when_its_limit_cut_the_output(tmp_path):
    db = tmp_path / "s.db"
    with SQLiteEventStore(db) as s:
        for i in range(5):
            s.append(FailedTrialAction(task_id="A", tool_name="f", arguments={"i": i},
                                       reward=0.0, position=i + 1, k=5))
    cut = CliRunner().invoke(store_group, ["query", "--db", str(db), "--task", "A",
                                           "--limit", "3"])
    assert cut.exit_code == 0
    rows = [line for line in cut.output.splitlines() if line.startswith("{")]
    assert len(rows) == 3
    assert "the output stops at --limit 3; task 'A' has more events" in cut.output
    whole = CliRunner().invoke(store_group, ["query", "--db", str(db), "--task", "A",
                                             "--limit", "5"])
    assert len(whole.output.splitlines()) == 5 and "--limit" not in whole.output
