"""The run directory: append-only journal, run settings, transcripts and trial records.

Layout of a run directory ``DIR``:

``journal.ndjson``
    One JSON object per finished rollout, ``{"key", "settings", "record"}``, appended, flushed
    and fsynced before the next one is written. A rollout run again (``--retry-errors``)
    appends a new entry; the last entry of a key wins. Only the last line can be torn (the
    process died while writing it); it is cut off when the journal is opened, so that rollout
    runs again.
``run.json``
    The outcome-changing settings the rollouts were run with, and the settings id of each
    prompt variant.
``transcripts/<rollout_key>.jsonl``
    Every message of one rollout, written (to a temporary name, fsynced, renamed) before its
    journal entry.
``trials.jsonl``
    The noisefloor trial records of the journal's current entries, rebuilt at the end of each
    run and by ``merge``.
"""

from __future__ import annotations

import fcntl
import gc
import json
import os
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from noisefloor.stats.warning_classes import TornJournalLineWarning
from noisefloor.tax.run import JOURNAL_FILE, TRIALS_STAMP_FILE, path_inside

JOURNAL = JOURNAL_FILE
RUN_META = "run.json"
TRIALS = "trials.jsonl"
TRANSCRIPTS = "transcripts"
_LOCK = ".lock"
_STAMP = TRIALS_STAMP_FILE


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


def _parse_journal(path: Path, data: bytes, repair: bool) -> JournalState:
    entries: dict[str, dict[str, Any]] = {}
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    torn = bool(tail.strip())
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
        warnings.warn(f"{path}: the last line is torn (the runner stopped while writing it); "
                      "that rollout runs again", TornJournalLineWarning, stacklevel=3)
        if repair:
            with open(path, "r+b") as fh:
                fh.truncate(good_end)
                fh.flush()
                os.fsync(fh.fileno())
    return JournalState(entries, count, torn)


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
def locked(directory: str | Path) -> Iterator[None]:
    """Hold an exclusive lock on a run directory (released even if the process is killed).

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
            raise RuntimeError(f"{directory}: another 'tax run' or 'tax merge' is using this "
                               "directory") from None
        yield
    finally:
        fh.close()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with _naming(tmp, f"writing {path.name}"):
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)


def write_transcript(directory: str | Path, key: str, events: Iterable[Mapping[str, Any]]) -> str:
    """Write ``transcripts/<key>.jsonl`` atomically; returns its path relative to the directory."""
    folder = Path(directory) / TRANSCRIPTS
    folder.mkdir(exist_ok=True)
    _write_atomic(folder / f"{key}.jsonl", b"".join(orjson.dumps(e) + b"\n" for e in events))
    return f"{TRANSCRIPTS}/{key}.jsonl"


def read_transcript(directory: str | Path, record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The transcript events of a trial record (``extra.transcript``, ``extra.rollout_key``).

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> rel = write_transcript(d, "k", [{"rollout_key": "k", "seq": 0, "content": "hi"}])
    >>> read_transcript(d, {"extra": {"transcript": rel, "rollout_key": "k"}})[0]["content"]
    'hi'
    """
    extra = record["extra"]
    rel = extra["transcript"]
    if not isinstance(rel, str) or not path_inside(rel):
        raise JournalError(f"{directory}: extra.transcript {rel!r} is not a path inside the "
                           "run folder")
    path = Path(directory) / rel
    with open(path, "rb") as fh:
        events = [orjson.loads(line) for line in fh if line.strip()]
    return [e for e in events if e.get("rollout_key") == extra["rollout_key"]]


def read_meta(directory: str | Path) -> dict[str, Any] | None:
    """``run.json`` of a run directory, or None when there is none."""
    path = Path(directory) / RUN_META
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except ValueError as exc:
        raise JournalError(f"{path}: not valid JSON ({exc})") from None


def write_meta(directory: str | Path, meta: Mapping[str, Any]) -> None:
    """Write ``run.json`` atomically."""
    _write_atomic(Path(directory) / RUN_META,
                  json.dumps(meta, indent=2, sort_keys=True).encode() + b"\n")


def write_trials(directory: str | Path, records: Iterable[Mapping[str, Any]]) -> Path:
    """Write ``trials.jsonl`` atomically, ordered by benchmark, protocol, model, task, trial."""
    order = sorted(records, key=lambda r: (r["benchmark"], r["protocol"], r["model"],
                                           r["seed"], r["task_id"], r["trial"]))
    path = Path(directory) / TRIALS
    _write_atomic(path, b"".join(orjson.dumps(r) + b"\n" for r in order))
    return path


def trials_stamp(directory: str | Path, settings_ids: Iterable[str]) -> str:
    """What ``trials.jsonl`` was built from: the journal's size and the current settings ids."""
    journal = Path(directory) / JOURNAL
    size = journal.stat().st_size if journal.exists() else 0
    return f"{size} {' '.join(sorted(settings_ids))}"


def trials_current(directory: str | Path, stamp: str) -> bool:
    """Whether ``trials.jsonl`` exists and was built from the journal state ``stamp``."""
    directory = Path(directory)
    try:
        return ((directory / TRIALS).exists()
                and (directory / _STAMP).read_text() == stamp)
    except OSError:
        return False


def mark_trials(directory: str | Path, stamp: str) -> None:
    """Record the journal state ``trials.jsonl`` was built from."""
    _write_atomic(Path(directory) / _STAMP, stamp.encode())


def current_records(entries: dict[str, dict[str, Any]], meta: dict[str, Any]) -> list[dict]:
    """The records of the journal entries made with a current settings id (``run.json``)."""
    valid = set(meta["variant_settings"].values())
    return [e["record"] for e in entries.values() if e["settings"] in valid]


def rebuild_trials(out_dir: str | Path) -> tuple[int | None, int]:
    """Rebuild ``DIR/trials.jsonl`` from the journal when it is older than the journal.

    Parameters
    ----------
    out_dir : str or Path
        A run directory (``journal.ndjson`` and ``run.json``).

    Returns
    -------
    (int or None, int)
        Records the file held before (None when it was missing; equal to the second figure
        when it was current and left alone) and records it holds now.

    Raises
    ------
    FileNotFoundError
        The directory holds no ``run.json`` (not a run directory).
    RuntimeError
        Another process is using the directory.
    """
    out = Path(out_dir)
    meta = read_meta(out)
    if meta is None:
        raise FileNotFoundError(f"{out}: not a tax run directory (no {RUN_META})")
    with locked(out):
        valid = set(meta["variant_settings"].values())
        stamp = trials_stamp(out, valid)
        trials = out / TRIALS
        if trials_current(out, stamp):
            with open(trials, "rb") as fh:
                n = sum(1 for line in fh if line.strip())
            return n, n
        before = None
        if trials.exists():
            with open(trials, "rb") as fh:
                before = sum(1 for line in fh if line.strip())
        state = read_journal(out / JOURNAL, repair=True)
        records = current_records(state.entries, meta)
        write_trials(out, records)
        mark_trials(out, stamp)
        return before, len(records)
