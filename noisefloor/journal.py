"""An append-only journal of finished work items, for runs that must resume exactly once.

A journal is a file of JSON lines, one object per finished item, ``{"key", "settings",
"record", ...}``, each appended, flushed and fsynced before the next one is written. Only the
last line can be torn (the process died while writing it); :func:`read_journal` cuts it off
with ``repair=True``, so that item runs again. The last entry of a key wins. A run directory is
held by one process at a time (:func:`locked`), and files beside the journal are replaced
atomically (:func:`write_atomic`).

A journal may have an index beside it (:func:`write_index`): the latest entry of every key with
a few fields of its record, which a resume reads instead of decoding every line. It is a cache:
:func:`read_index` returns it only while the journal is byte for byte the file it was made
from (same size, modification and change times, inode, and SHA-256 of its last 64 KiB), and
for the same fields; otherwise the journal is read.

Used by the collaboration-tax runner (``noisefloor tax run``) and the protocols runner
(``noisefloor protocols run``).
"""

from __future__ import annotations

import fcntl
import gc
import hashlib
import os
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from noisefloor.stats.warning_classes import TornJournalLineWarning

__all__ = ["JournalError", "JournalIndex", "JournalState", "JournalWriter", "gc_running",
           "index_entries", "index_path", "locked", "no_gc", "read_index", "read_journal",
           "write_atomic", "write_index"]

_LOCK = ".lock"


@contextmanager
def _naming(path: Path, doing: str) -> Iterator[None]:
    """Re-raise an OS error (disk full, file too large, ...) with the file it concerns."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, f"{exc.strerror} ({doing})", str(path)) from exc


class JournalError(ValueError):
    """A journal line that is not a valid entry (names file, line and field)."""


@dataclass(frozen=True)
class JournalState:
    """What an existing journal holds.

    Attributes
    ----------
    entries : dict
        Rollout key -> its last entry (``{"key", "settings", "record"}``).
    lines : int
        Complete lines read.
    torn : bool
        Whether a torn last line was found (and cut off when ``repair`` was set).
    """

    entries: dict[str, dict[str, Any]]
    lines: int
    torn: bool


def read_journal(path: str | Path, *, repair: bool = False) -> JournalState:
    """Read a journal; a torn last line is reported (and cut off with ``repair=True``).

    Parameters
    ----------
    path : str or Path
        The ``journal.ndjson`` file; a missing file is an empty journal.
    repair : bool, default False
        Truncate the file after its last complete entry when the last line is torn.

    Returns
    -------
    JournalState

    Raises
    ------
    JournalError
        When a line other than the last is not a JSON object with a string ``key``, a
        string ``settings`` and an object ``record`` (the message names file and line).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "journal.ndjson"
    >>> _ = path.write_text('{"key": "k1", "settings": "s", "record": {}}\\n{"key": "k2", "se')
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     state = read_journal(path, repair=True)
    >>> print(str(caught[0].message).split(": ", 1)[1])
    the last line is torn (the runner stopped while writing it); that rollout runs again
    >>> sorted(state.entries), state.lines, state.torn, path.read_text().count("\\n")
    (['k1'], 1, True, 1)
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return JournalState({}, 0, False)
    with no_gc():
        return _parse_journal(path, data, repair)


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a bulk of acyclic objects is built.

    Reading 100,000 entries otherwise triggers repeated full collections that walk every
    entry read so far (several seconds in all); the entries hold no reference cycles.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def gc_running() -> Iterator[None]:
    """Run the cyclic garbage collector inside a :func:`no_gc` block (work that makes
    reference cycles: an event loop, exceptions with tracebacks), as it was before."""
    enabled = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not enabled:
            gc.disable()


def _entries_fast(lines: list[bytes]) -> dict[str, dict[str, Any]] | None:
    """Every line decoded and checked in bulk; None when any line needs a closer look (a
    blank line, invalid JSON, a wrong field), which the line-by-line reading then names."""
    loads = orjson.loads
    try:
        parsed = [loads(line) for line in lines]
    except orjson.JSONDecodeError:
        return None
    try:
        ok = all([type(e["key"]) is str and type(e["settings"]) is str
                  and type(e["record"]) is dict for e in parsed])
    except (KeyError, TypeError, IndexError):  # not an object, or a field missing
        return None
    if not ok:
        return None
    # the last entry of a key wins (dict insertion keeps the first position, the last value)
    return {e["key"]: e for e in parsed}


def _parse_journal(path: Path, data: bytes, repair: bool) -> JournalState:
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    torn = bool(tail.strip())
    fast = _entries_fast(lines)
    if fast is not None:
        if torn:
            _cut_torn(path, len(data) - len(tail), repair)
        return JournalState(fast, len(lines), torn)
    entries: dict[str, dict[str, Any]] = {}
    good_end = len(data) - len(tail)
    offset = 0
    count = 0
    for number, line in enumerate(lines, start=1):
        end = offset + len(line) + 1
        if not line.strip():
            offset = end
            continue
        try:
            entry = orjson.loads(line)
            problem = _entry_problem(entry)
        except orjson.JSONDecodeError as exc:
            entry, problem = None, f"not valid JSON ({exc})"
        if problem is not None:
            if number == len(lines) and not torn:
                # the last line itself is damaged: treat it as torn
                torn, good_end = True, offset
                break
            raise JournalError(f"{path}:{number}: {problem}; the journal is append-only and "
                               "only its last line can be torn")
        entries[entry["key"]] = entry
        count += 1
        offset = end
    if torn:
        _cut_torn(path, good_end, repair)
    return JournalState(entries, count, torn)


def _cut_torn(path: Path, good_end: int, repair: bool) -> None:
    """Warn of a torn last line; with ``repair``, truncate the file after ``good_end`` bytes."""
    warnings.warn(f"{path}: the last line is torn (the runner stopped while writing it); "
                  "that rollout runs again", TornJournalLineWarning, stacklevel=4)
    if repair:
        with open(path, "r+b") as fh:
            fh.truncate(good_end)
            fh.flush()
            os.fsync(fh.fileno())


def _entry_problem(entry: Any) -> str | None:
    if (type(entry) is dict and type(entry.get("key")) is str
            and type(entry.get("settings")) is str and type(entry.get("record")) is dict):
        return None
    if not isinstance(entry, dict):
        return f"expected a JSON object, got {type(entry).__name__}"
    for name, kind in (("key", str), ("settings", str), ("record", dict)):
        if not isinstance(entry.get(name), kind):
            return (f"field {name!r} must be a {'string' if kind is str else 'object'}, "
                    f"got {entry.get(name)!r:.60}")
    return None


#: Bytes at the end of a journal whose SHA-256 its index records.
_TAIL = 1 << 16
_INDEX_FORMAT = 1


def index_path(journal: str | Path) -> Path:
    """Where the index of the journal ``journal`` is kept: ``.<name>.index`` beside it.

    Examples
    --------
    >>> index_path("runs/demo/journal.ndjson").name
    '.journal.ndjson.index'
    """
    journal = Path(journal)
    return journal.with_name(f".{journal.name}.index")


@dataclass(frozen=True)
class JournalIndex:
    """The latest entry of every key of a journal, with some fields of its record.

    Attributes
    ----------
    fields : tuple of str
        The record fields kept, as dotted paths (``"extra.tokens_in"`` stands for
        ``record["extra"]["tokens_in"]``).
    keys : list of str
        Every key, in the order of :attr:`JournalState.entries` (first seen first).
    settings : list of str
        The ``settings`` of each key's latest entry, aligned with ``keys``.
    columns : dict of str to list
        Per field, its value in each key's latest record, aligned with ``keys``; None where
        the record has no such field.
    """

    fields: tuple[str, ...]
    keys: list[str]
    settings: list[str]
    columns: dict[str, list[Any]]


def index_entries(entries: Mapping[str, Mapping[str, Any]],
                  fields: Sequence[str]) -> JournalIndex:
    """The index of journal entries (:attr:`JournalState.entries`) on some record fields.

    Parameters
    ----------
    entries : mapping
        Key -> its latest entry (``{"key", "settings", "record"}``).
    fields : sequence of str
        Record fields to keep, as dotted paths.

    Returns
    -------
    JournalIndex

    Examples
    --------
    >>> index = index_entries({"k1": {"key": "k1", "settings": "s", "record":
    ...                               {"reward": 1.0, "extra": {"tokens_in": 7}}},
    ...                        "k2": {"key": "k2", "settings": "s", "record": {"reward": 0.0}}},
    ...                       ["reward", "extra.tokens_in"])
    >>> index.keys, index.columns
    (['k1', 'k2'], {'reward': [1.0, 0.0], 'extra.tokens_in': [7, None]})
    """
    values = list(entries.values())
    # path -> its column; "" is the records themselves (objects: read_journal checks that);
    # a prefix shared by several fields ("extra") is picked once
    known: dict[str, list[Any]] = {"": [e["record"] for e in values]}
    for name in fields:
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            path = ".".join(parts[:depth])
            if path not in known:
                leaf, above = parts[depth - 1], known[".".join(parts[:depth - 1])]
                known[path] = ([r.get(leaf) for r in above] if depth == 1 else
                               [v.get(leaf) if type(v) is dict else None for v in above])
    return JournalIndex(tuple(fields), list(entries), [e["settings"] for e in values],
                        {name: known[name] for name in fields})


def _fingerprint(journal: Path) -> dict[str, Any] | None:
    """What ties an index to the bytes of its journal (None when there is no journal)."""
    try:
        with open(journal, "rb") as fh:
            stat = os.fstat(fh.fileno())
            fh.seek(max(0, stat.st_size - _TAIL))
            tail = fh.read(_TAIL)
    except FileNotFoundError:
        return None
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns,
            "inode": stat.st_ino, "tail_sha256": hashlib.sha256(tail).hexdigest()}


def write_index(journal: str | Path, index: JournalIndex) -> None:
    """Keep ``index`` beside the journal, stamped with the journal file as it is now.

    Call it, holding the directory (:func:`locked`), only with the index of the journal's
    current content: :func:`index_entries` of what :func:`read_journal` returned, updated
    with every entry appended since. The index is a cache: it is replaced atomically but not
    fsynced (a lost or damaged index is ignored and the journal read instead).

    Parameters
    ----------
    journal : str or Path
        The journal file (nothing is written when it does not exist).
    index : JournalIndex
    """
    journal = Path(journal)
    stamp = _fingerprint(journal)
    if stamp is None:
        return
    head = {"format": _INDEX_FORMAT, "journal": stamp, "fields": list(index.fields)}
    body = [index.keys, index.settings, [index.columns[f] for f in index.fields]]
    write_atomic(index_path(journal), orjson.dumps(head) + b"\n" + orjson.dumps(body),
                 sync=False)


def read_index(journal: str | Path, fields: Sequence[str]) -> JournalIndex | None:
    """The index kept beside the journal, if it still describes the journal exactly.

    Parameters
    ----------
    journal : str or Path
        The journal file.
    fields : sequence of str
        The record fields the caller needs (an index made for others is not used).

    Returns
    -------
    JournalIndex or None
        None when there is no index or journal, the index cannot be read, was made for
        other fields, or the journal is not the file it was made from: another size,
        modification time, change time or inode, or another SHA-256 of its last 64 KiB (the
        change time moves on every write, and no program can set it back). The caller then
        reads the journal (:func:`read_journal`), which is what the index stands for.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "journal.ndjson"
    >>> with JournalWriter(path) as writer:
    ...     writer.append({"key": "k1", "settings": "s", "record": {"reward": 1.0}})
    >>> write_index(path, index_entries(read_journal(path).entries, ["reward"]))
    >>> read_index(path, ["reward"]).columns
    {'reward': [1.0]}
    >>> with JournalWriter(path) as writer:
    ...     writer.append({"key": "k1", "settings": "s", "record": {"reward": 0.0}})
    >>> read_index(path, ["reward"]) is None  # the journal moved on: read it instead
    True
    """
    journal = Path(journal)
    try:
        with open(index_path(journal), "rb") as fh:
            head = orjson.loads(fh.readline())
            if (type(head) is not dict or head.get("format") != _INDEX_FORMAT
                    or head.get("fields") != list(fields)
                    or head.get("journal") != _fingerprint(journal)):
                return None
            body = orjson.loads(fh.read())
    except (OSError, orjson.JSONDecodeError):
        return None
    try:
        keys, settings, columns = body
        n = len(keys)
        if not (type(keys) is list and type(settings) is list and type(columns) is list
                and len(settings) == n and len(columns) == len(fields)
                and all(type(c) is list and len(c) == n for c in columns)):
            return None
    except (TypeError, ValueError):
        return None
    return JournalIndex(tuple(fields), keys, settings, dict(zip(fields, columns)))


def _write_all(fh: Any, data: bytes) -> None:
    """Write every byte to an unbuffered file (a raw write may take fewer than given)."""
    view = memoryview(data)
    while view:
        view = view[fh.write(view):]


class JournalWriter:
    """Appends entries to a journal, one flushed and fsynced line each (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # unbuffered: every line is flushed at once anyway, and a failed write (disk full)
        # leaves nothing behind in a buffer for close() to fail on again
        self._fh = open(self.path, "ab", buffering=0)
        self._lock = threading.Lock()

    def append(self, entry: Mapping[str, Any]) -> None:
        """Write one entry as a line, flush and fsync it."""
        line = orjson.dumps(entry) + b"\n"
        with self._lock, _naming(self.path, "appending a journal entry"):
            _write_all(self._fh, line)
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def append_many(self, entries: Iterable[Mapping[str, Any]]) -> None:
        """Write several entries, then flush and fsync once."""
        with self._lock, _naming(self.path, "appending journal entries"):
            _write_all(self._fh, b"".join(orjson.dumps(entry) + b"\n" for entry in entries))
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


@contextmanager
def locked(directory: str | Path, *, users: str = "'tax run' or 'tax merge'") -> Iterator[None]:
    """Hold an exclusive lock on a run directory (released even if the process is killed).

    Parameters
    ----------
    directory : str or Path
    users : str
        The commands that take this lock, named in the error.

    Raises
    ------
    RuntimeError
        If another process holds it.
    """
    path = Path(directory) / _LOCK
    fh = open(path, "a")
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"{directory}: another {users} is using this directory") from None
        yield
    finally:
        fh.close()


def write_atomic(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Replace ``path`` by ``data`` atomically (temporary file beside it, fsynced, renamed).

    With ``sync=False`` the temporary file is not fsynced (for a cache, which may be lost).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> p = Path(tempfile.mkdtemp()) / "x.json"
    >>> write_atomic(p, b"{}")
    >>> p.read_bytes()
    b'{}'
    """
    tmp = path.with_name(f".{path.name}.tmp")
    with _naming(tmp, f"writing {path.name}"):
        with open(tmp, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
