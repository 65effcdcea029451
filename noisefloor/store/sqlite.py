"""SQLite backend of the event store: one file, WAL journal, safe for several writer processes.

Every append runs in its own ``BEGIN IMMEDIATE`` transaction, so concurrent writers queue on
SQLite's write lock (waiting up to ``busy_timeout`` seconds) instead of failing, and a writer
killed mid-transaction leaves nothing behind: SQLite rolls the incomplete transaction back when
the next connection opens the file. With ``synchronous="NORMAL"`` (the default) a committed event
survives the death of any process; ``synchronous="FULL"`` also survives power loss, at the cost of
an fsync per commit.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from noisefloor.store.base import EventStore, StoreError

__all__ = ["STORE_FORMAT_VERSION", "SQLiteEventStore"]

#: Version of the on-disk table layout.
STORE_FORMAT_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS store_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id    TEXT NOT NULL,
    event_type TEXT NOT NULL,
    tool_name  TEXT,
    key        TEXT,
    created    TEXT NOT NULL,
    body       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_task_key ON events (task_id, key);
CREATE INDEX IF NOT EXISTS events_task_tool ON events (task_id, tool_name);
CREATE INDEX IF NOT EXISTS events_task_id ON events (task_id, id);
"""

_SYNC_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")


def _explain(path: str, exc: sqlite3.Error, doing: str, busy_timeout: float) -> StoreError:
    """A :class:`StoreError` naming the file and, in words, why SQLite failed."""
    said = str(exc)
    low = said.lower()
    if "readonly" in low or "read-only" in low or "attempt to write" in low:
        return StoreError(path, "read_only", (
            f"cannot {doing}: the store is read-only (SQLite: {said}); the process needs write "
            "permission on the file and its folder (SQLite writes a -wal and a -shm file beside "
            "it), and the file system must not be mounted read-only"))
    if "malformed" in low or "corrupt" in low:
        return StoreError(path, "damaged", (
            f"cannot {doing}: the store file is damaged (SQLite: {said}); restore it from a "
            "copy, or recover what is readable with the sqlite3 shell's .recover command"))
    if "not a database" in low:
        return StoreError(path, "not_a_database", (
            "cannot open it as a noisefloor store (expected an SQLite database written by "
            f"noisefloor; SQLite says: {said})"))
    if "locked" in low or "busy" in low:
        return StoreError(path, "locked", (
            f"cannot {doing}: another process held the store's lock for longer than "
            f"busy_timeout = {busy_timeout:g} s (SQLite: {said})"))
    if "full" in low:
        return StoreError(path, "full", f"cannot {doing}: the disk is full (SQLite: {said})")
    return StoreError(path, "other", f"cannot {doing} (SQLite: {said})")


class SQLiteEventStore(EventStore):
    """The embedded default store: a single SQLite file in WAL mode.

    Parameters
    ----------
    path : str or os.PathLike
        Database file (created with its tables if missing), or ``":memory:"`` for a private
        in-memory store (one process only).
    busy_timeout : float, default 30.0
        Seconds a writer waits for another process's write lock before raising
        :class:`sqlite3.OperationalError`.
    synchronous : {"NORMAL", "FULL", "EXTRA", "OFF"}, default "NORMAL"
        SQLite's durability level (see module notes).

    Raises
    ------
    ValueError
        For a bad parameter, a file written by an incompatible store format, or an SQLite
        database that is not a noisefloor store (it has tables, views, indexes or triggers
        but no ``store_meta`` format marker): such a database is never modified. A missing,
        0-byte or empty database file is initialised as a store.
    StoreError
        If ``path`` is not an SQLite database, or is damaged, read-only or locked; raised by
        this constructor and by every later read or write, its message names the file and
        the cause (``reason`` says which). A subclass of :class:`OSError` and of
        :class:`sqlite3.DatabaseError`.

    Notes
    -----
    One connection is kept per process and shared by its threads under a lock; after
    ``os.fork`` the child opens its own connection on first use.

    Examples
    --------
    >>> from noisefloor.store import FailedTrialAction
    >>> store = SQLiteEventStore(":memory:")
    >>> ids = store.append_many([
    ...     FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
    ...                       arguments={"order_id": "#W1"}, outcome="error: shipped",
    ...                       reward=0.0, position=p, k=3) for p in (1, 2)])
    >>> ids
    [1, 2]
    >>> [e.event.position for e in store.task("T1").find()]
    [1, 2]
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 30.0,
        synchronous: str = "NORMAL",
    ) -> None:
        if isinstance(busy_timeout, bool) or not isinstance(busy_timeout, (int, float)) or busy_timeout < 0:
            raise ValueError(f"busy_timeout must be a number of seconds >= 0, got {busy_timeout!r}")
        if not isinstance(synchronous, str) or synchronous.upper() not in _SYNC_MODES:
            raise ValueError(f"synchronous must be one of {_SYNC_MODES}, got {synchronous!r}")
        self._path = str(path) if str(path) == ":memory:" else str(Path(path))
        self._busy_timeout = float(busy_timeout)
        self._synchronous = synchronous.upper()
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._closed = False
        self._connect()

    @property
    def path(self) -> str:
        """The database file (``":memory:"`` for an in-memory store).

        Examples
        --------
        >>> import os, tempfile
        >>> from noisefloor.store import SQLiteEventStore
        >>> path = os.path.join(tempfile.mkdtemp(), "store.db")
        >>> SQLiteEventStore(path).path == path
        True
        """
        return self._path

    # -- connection --------------------------------------------------------------------------
    @contextlib.contextmanager
    def _sqlite_errors(self, doing: str) -> Iterator[None]:
        """Turn SQLite's errors into a :class:`StoreError` naming the file and the cause."""
        try:
            yield
        except StoreError:
            raise
        except sqlite3.Error as exc:
            raise _explain(self._path, exc, doing, self._busy_timeout) from exc

    def _connect(self) -> sqlite3.Connection:
        if self._closed:
            raise RuntimeError(f"store {self._path!r} is closed")
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        with self._sqlite_errors("open the store"):
            return self._open()

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self._path,
            timeout=self._busy_timeout,
            isolation_level=None,  # explicit transactions only
            check_same_thread=False,
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            self._refuse_foreign(conn)  # read-only: before WAL mode or tables touch the file
            if self._path != ":memory:":
                self._set_wal(conn)
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            return self._prepare(conn)
        except BaseException:
            conn.close()
            raise

    def _prepare(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        version = self._read_format(conn)
        if version is None:  # new file: create the tables (needs the write lock, once)
            self._run_write(conn, lambda c: c.executescript_in_tx(_SCHEMA))
            version = self._read_format(conn)
        if version is None:
            self._run_write(
                conn,
                lambda c: c.execute(
                    "INSERT OR IGNORE INTO store_meta (name, value) VALUES ('format', ?)",
                    (STORE_FORMAT_VERSION,),
                ),
            )
        elif version != STORE_FORMAT_VERSION:
            raise ValueError(
                f"{self._path}: store format {version!r}, this release reads {STORE_FORMAT_VERSION!r}"
            )
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _refuse_foreign(self, conn: sqlite3.Connection) -> None:
        """Raise ValueError for an SQLite database that is not a noisefloor store.

        A new, 0-byte or empty database becomes a store. A database holding only the store's
        own tables (``store_meta``, ``events``) is a store, or one whose creation stopped
        before its format was recorded. Anything else (tables, views, indexes or triggers of
        someone else's schema without a ``store_meta`` format marker) is refused and left
        exactly as it was: nothing is written to it, not even the WAL journal mode.
        """
        objects = conn.execute(
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ).fetchall()
        if not objects:
            return
        try:
            if self._read_format(conn) is not None:
                return
            marker_readable = True
        except sqlite3.OperationalError:  # a store_meta table of another schema
            marker_readable = False
        own = {"store_meta", "events", "events_task_key", "events_task_tool", "events_task_id"}
        foreign = [(kind, name) for kind, name in objects if name not in own]
        if not foreign and marker_readable:
            return
        foreign = foreign or objects
        tables = [name for kind, name in foreign if kind == "table"]
        shown = tables or [f"{kind} {name}" for kind, name in foreign]
        listed = ", ".join(shown[:8]) + (f", ... ({len(shown) - 8} more)" if len(shown) > 8 else "")
        what = f"{len(tables)} table(s): {listed}" if tables else listed
        raise ValueError(
            f"{self._path}: an SQLite database that is not a noisefloor store: it holds {what}, "
            "and no store_meta table with a noisefloor format marker. It was left unchanged; "
            "give the path of a new (or empty) file to create a store")

    @staticmethod
    def _read_format(conn: sqlite3.Connection) -> str | None:
        has_meta = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_meta'"
        ).fetchone()
        if not has_meta:
            return None
        row = conn.execute("SELECT value FROM store_meta WHERE name = 'format'").fetchone()
        return None if row is None else str(row[0])

    def _set_wal(self, conn: sqlite3.Connection) -> None:
        deadline = time.monotonic() + self._busy_timeout
        while True:
            try:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:  # another process is switching it
                if not ("locked" in str(exc) or "busy" in str(exc)) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"{self._path}: could not enable WAL (journal_mode={mode})")

    def _run_write(self, conn: sqlite3.Connection, work):
        """Run ``work(cursor)`` inside BEGIN IMMEDIATE ... COMMIT, rolling back on error."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = work(_Tx(conn))
            conn.execute("COMMIT")
            return result
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    # -- backend primitives ------------------------------------------------------------------
    def _append_many(self, rows: Sequence[tuple[str, str, str | None, str | None, str, str]]) -> list[int]:
        with self._lock:
            conn = self._connect()

            def work(tx: _Tx) -> list[int]:
                ids = []
                for row in rows:
                    cur = tx.execute(
                        "INSERT INTO events (task_id, event_type, tool_name, key, created, body) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        row,
                    )
                    if cur.lastrowid is None:  # sqlite3 sets it after every INSERT
                        raise RuntimeError("SQLite reported no row id for an inserted event")
                    ids.append(int(cur.lastrowid))
                return ids

            with self._sqlite_errors("append events"):
                return self._run_write(conn, work)

    def _select(self, task_id, *, event_type, tool_name, key, after_id, limit, newest_first):
        sql = ["SELECT id, task_id, body FROM events WHERE task_id = ?"]
        params: list[object] = [task_id]
        for column, value in (("event_type", event_type), ("tool_name", tool_name), ("key", key)):
            if value is not None:
                sql.append(f"AND {column} = ?")
                params.append(value)
        if after_id:
            sql.append("AND id > ?")
            params.append(after_id)
        sql.append("ORDER BY id DESC" if newest_first else "ORDER BY id")
        sql.append("LIMIT ?")
        params.append(limit)
        with self._lock:
            conn = self._connect()
            with self._sqlite_errors("read events"):
                return conn.execute(" ".join(sql), params).fetchall()

    def _count(self, task_id: str, key: str | None = None) -> int:
        with self._lock:
            conn = self._connect()
            with self._sqlite_errors("count events"):
                if key is None:
                    row = conn.execute(
                        "SELECT COUNT(*) FROM events WHERE task_id = ?", (task_id,)
                    ).fetchone()
                else:
                    row = conn.execute(
                        "SELECT COUNT(*) FROM events WHERE task_id = ? AND key = ?", (task_id, key)
                    ).fetchone()
        return int(row[0])

    # -- administration ----------------------------------------------------------------------
    def total_count(self) -> int:
        """Number of events over all tasks (administration, not for readers).

        Returns
        -------
        int

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append_many([FailedTrialAction(task_id=t, tool_name="f", reward=0.0,
        ...                                          position=1, k=1) for t in ("T1", "T2")])
        >>> store.total_count(), store.count("T1")
        (2, 1)
        """
        with self._lock:
            conn = self._connect()
            with self._sqlite_errors("count events"):
                return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` result (``"ok"`` when the file is consistent).

        Returns
        -------
        str
            ``"ok"``, or SQLite's first problem report.

        Examples
        --------
        >>> import os, tempfile
        >>> from noisefloor.store import SQLiteEventStore
        >>> SQLiteEventStore(os.path.join(tempfile.mkdtemp(), "store.db")).integrity_check()
        'ok'
        """
        with self._lock:
            conn = self._connect()
            with self._sqlite_errors("check the store"):
                return str(conn.execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
        """Close this process's connection; later calls raise :class:`RuntimeError`.

        Closing twice is allowed. The file and its events stay; open it again to read them.

        Examples
        --------
        >>> import os, tempfile
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> path = os.path.join(tempfile.mkdtemp(), "store.db")
        >>> store = SQLiteEventStore(path)
        >>> _ = store.append(FailedTrialAction(task_id="T1", tool_name="f", reward=0.0,
        ...                                    position=1, k=1))
        >>> store.close()
        >>> store.total_count()
        Traceback (most recent call last):
        ...
        RuntimeError: store '...store.db' is closed
        >>> SQLiteEventStore(path).count("T1")
        1
        """
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None
            self._closed = True

    def __repr__(self) -> str:
        return f"SQLiteEventStore({self._path!r})"


class _Tx:
    """Cursor facade used inside one write transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, params)

    def executescript_in_tx(self, script: str) -> None:
        for statement in script.split(";"):
            if statement.strip():
                self._conn.execute(statement)
