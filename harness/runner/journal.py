"""The run directory: append-only journal, run settings, transcripts and trial records.

Layout of a run directory ``DIR``:

``journal.ndjson``
    One JSON object per finished rollout, ``{"key", "settings", "record"}``, appended, flushed
    and fsynced before the next one is written. A rollout run again (``--retry-errors``)
    appends a new entry; the last entry of a key wins. Only the last line can be torn (the
    process died while writing it); it is cut off when the journal is opened, so that rollout
    runs again.
``.journal.ndjson.index``
    A cache: the latest entry of every key with the record fields a resume needs, written at
    the end of each run and used only while the journal is exactly the file it was made from
    (:func:`noisefloor.journal.read_index`), so that a resume need not decode every line.
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

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from noisefloor.journal import (  # noqa: F401 - the generic journal, re-exported for the runner
    JournalError,
    JournalIndex,
    JournalState,
    JournalWriter,
    gc_running,
    index_entries,
    locked,
    no_gc,
    read_index,
    read_journal,
    write_index,
)
from noisefloor.journal import write_atomic as _write_atomic
from noisefloor.tax.layout import JOURNAL_FILE, TRIALS_STAMP_FILE, path_inside

JOURNAL = JOURNAL_FILE
RUN_META = "run.json"
TRIALS = "trials.jsonl"
TRANSCRIPTS = "transcripts"
_STAMP = TRIALS_STAMP_FILE


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
