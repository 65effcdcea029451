"""``noisefloor store``: serve the task-scoped negative-knowledge store over MCP, inspect it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import click

from noisefloor.cli._common import HELP_OPTIONS, handle_errors


def _open_store(db: Path):
    """Open the store at ``db``; a file that is not an SQLite database, or an SQLite database that
    is not a noisefloor store (left unchanged), is a one-line error."""
    from noisefloor.store import SQLiteEventStore, StoreError

    try:
        return SQLiteEventStore(db)
    except StoreError as exc:  # not a database, damaged, read-only, locked: names file and cause
        raise click.ClickException(str(exc)) from None
    except sqlite3.DatabaseError as exc:  # any other SQLite refusal
        raise click.ClickException(
            f"{db}: cannot open it as a noisefloor store (expected an SQLite database written "
            f"by noisefloor; SQLite says: {exc})") from None
    except ValueError as exc:  # someone else's SQLite database, another store format
        raise click.ClickException(str(exc)) from None


@click.group("store", context_settings=HELP_OPTIONS)
def store() -> None:
    """The task-scoped negative-knowledge store (ET-MCP substrate)."""


@store.command("serve", short_help="Serve the store at DB as an MCP server (stdio or HTTP).", context_settings=HELP_OPTIONS)
@click.option("--db", "db", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="SQLite store file (created if missing).")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio, or MCP Streamable HTTP.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (--transport http).")
@click.option("--port", default=0, show_default=True, type=click.IntRange(0, 65535),
              help="Port to bind; 0 takes a free one (--transport http).")
def serve(db: Path, transport: str, host: str, port: int) -> None:
    """Serve the store at DB as an MCP server (tools trace.query, trace.write), over stdio or
    over Streamable HTTP (the endpoint's URL is printed on stderr once it listens)."""
    from noisefloor.store.mcp.server import serve_http, serve_stdio

    _open_store(db).close()  # a bad file is reported here, before the server starts
    if transport == "stdio":
        serve_stdio(str(db))
        return
    try:
        serve_http(str(db), host=host, port=port,
                   on_ready=lambda url: click.echo(f"MCP Streamable HTTP on {url}", err=True))
    except OSError as exc:
        raise click.ClickException(f"--host {host} --port {port}: cannot listen ({exc.strerror or exc})") from None


@store.command("query", context_settings=HELP_OPTIONS)
@click.option("--db", "db", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path), help="SQLite store file.")
@click.option("--task", "task_id", required=True, help="Task id (exact).")
@click.option("--tool", "tool_name", default=None, help="Only events of this tool.")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1, 100_000))
@handle_errors
def query(db: Path, task_id: str, tool_name: str | None, limit: int) -> None:
    """Print one task's events as JSON lines."""
    with _open_store(db) as s:
        try:
            # one event more than asked: whether --limit cut the output
            events = s.query(task_id, tool_name=tool_name, limit=limit + 1)
        except (TypeError, ValueError) as exc:
            raise click.UsageError(str(exc)) from None
    for e in events[:limit]:
        click.echo(json.dumps(e.to_dict(), ensure_ascii=True))
    if len(events) > limit:
        click.echo(f"note: the output stops at --limit {limit}; task {task_id!r} has more "
                   "events (raise --limit to see them)", err=True)


if __name__ == "__main__":  # ``python -m noisefloor.cli.store serve --db PATH``
    store(prog_name="noisefloor store")
