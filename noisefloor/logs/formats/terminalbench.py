"""Terminal-Bench 0.x run results (``results.json``) -> trial records.

``tb run`` writes one folder per run, ``runs/<run_id>/``, holding ``results.json`` (the
harness's ``BenchmarkResults``: ``id``, ``results`` (one ``TrialResults`` per attempt),
``pass_at_k``, and the computed ``n_resolved``, ``n_unresolved``, ``resolved_ids``,
``unresolved_ids``, ``accuracy``), ``run_metadata.json`` (``RunMetadata``: ``run_id``,
``agent_name``, ``model_name``, ``dataset_name``, ``dataset_version``, ``n_attempts``, ...)
and one sub-folder per task and attempt with that attempt's own ``results.json``. A run
attempts every task ``n_attempts`` times; each attempt's ``trial_name`` is
``<task_id>.<k>-of-<n>.<run_id>``.

=====================  =============================================================
TrialRecord            Terminal-Bench 0.x
=====================  =============================================================
benchmark              ``benchmark=``, else ``<dataset_name>@<dataset_version>`` of
                       ``run_metadata.json`` (``terminal-bench-core@0.1.1``), else
                       ``"terminal-bench"``
model                  ``model=``, else ``model_name`` of ``run_metadata.json`` (a run
                       without it needs ``model=``)
protocol               ``protocol=``, else ``agent_name`` of ``run_metadata.json``, else
                       ``"default"``
seed                   null (Terminal-Bench records none)
task_id                ``task_id``
trial                  ``k - 1`` of the ``trial_name`` (attempt 1 is trial 0), after the
                       attempts of earlier re-runs of the same configuration (below)
reward                 1.0 when ``is_resolved`` is true, else 0.0: false **and null**
                       (Terminal-Bench counts an attempt whose tests never reported as
                       unresolved, in its ``accuracy`` and its ``pass_at_k``)
termination_reason     ``failure_mode`` (``"unset"``, ``"agent_timeout"``, ...)
infrastructure_error   false (Terminal-Bench scores every attempt)
extra                  ``is_resolved`` as written (null stays visible), ``failure_mode``,
                       ``total_input_tokens``, ``total_output_tokens``, the trial's start and
                       end times, ``trial_name``, ``run_id``, ``attempt`` and ``n_attempts``
=====================  =============================================================

**Re-runs.** Terminal-Bench's leaderboard asks for several runs per entry. Several runs of one
configuration (same agent, model and dataset, or, without ``run_metadata.json``, no recorded
configuration) that sit side by side in one folder (``runs/<id>/results.json``, or run files
``a.json``, ``b.json``) are read as re-runs: each run's attempts are numbered after those of
the runs before it, in the order of their run ids (Terminal-Bench's default run id is the
start time). So five single-attempt runs give trials 0..4 of every task, as five attempts
would. Runs of one configuration kept in different folders keep their own numbering, and
their repeated trials are reported as duplicates.

**One attempt's own file.** A leaderboard submission may keep only the attempts'
``results.json`` (``<task>/<trial_name>/results.json``). Such a file is one record; the run's
``run_metadata.json`` is looked for two folders up, and the attempts of other runs of the same
task beside it are re-runs, numbered in run-id order.

The reader checks the run's own figures: when the file's ``accuracy`` is not the share of
resolved attempts it holds, a :class:`~noisefloor.stats.warning_classes.PublishedFiguresWarning`
says so.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from noisefloor.logs.formats.tau2 import load_document
from noisefloor.logs.jsonl.pipeline import ProblemSink, RecordBlock
from noisefloor.logs.records.errors import LogProblem, describe_value
from noisefloor.stats.warning_classes import PublishedFiguresWarning

__all__ = ["PublishedFiguresWarning", "is_terminal_bench_run", "is_terminal_bench_trial",
           "looks_like_terminal_bench_trial", "iter_terminal_bench_blocks",
           "looks_like_terminal_bench", "published_figures", "split_trial_name"]

#: ``<task_id>.<k>-of-<n>.<run_id>`` (``terminal_bench/harness/harness.py``).
_TRIAL_NAME = re.compile(r"(?P<task>.+)\.(?P<k>\d+)-of-(?P<n>\d+)\.(?P<run>[^.].*)")
_METADATA = "run_metadata.json"
_RESULT_KEYS = ("trial_name", "task_id", "is_resolved")




def split_trial_name(name: str) -> tuple[str, int, int, str] | None:
    """``(task_id, k, n, run_id)`` of a Terminal-Bench ``trial_name``, or None.

    Examples
    --------
    >>> split_trial_name("hello-world.2-of-5.2025-06-01__12-00-00")
    ('hello-world', 2, 5, '2025-06-01__12-00-00')
    >>> split_trial_name("hello-world") is None
    True
    """
    match = _TRIAL_NAME.fullmatch(name)
    if match is None:
        return None
    return match["task"], int(match["k"]), int(match["n"]), match["run"]


def looks_like_terminal_bench(doc: Any) -> bool:
    """True for a decoded Terminal-Bench ``BenchmarkResults``: an object whose ``results`` is
    a list, empty or starting with an object holding ``trial_name``, ``task_id`` and
    ``is_resolved``."""
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        return False
    results = doc["results"]
    if not results:
        return "pass_at_k" in doc or "accuracy" in doc
    first = results[0]
    return isinstance(first, dict) and all(k in first for k in _RESULT_KEYS)


_HEAD_PATTERN = re.compile(rb'"results"\s*:\s*\[\s*(\]|\{[^{}]*?"(trial_name|is_resolved)")',
                           re.S)


def is_terminal_bench_run(path: Path, head: bytes | None = None) -> bool:
    """True when the JSON file at ``path`` (or its first bytes ``head``) opens like a
    Terminal-Bench run: a ``results`` array whose first object names ``trial_name`` or
    ``is_resolved`` before any nested object."""
    if head is None:
        try:
            with open(path, "rb") as handle:
                head = handle.read(1 << 16)
        except OSError:
            return False
    return bool(_HEAD_PATTERN.search(head)) and b'"task_id"' in head


_TRIAL_KEYS = ("trial_name", "task_id", "instruction", "is_resolved")


def looks_like_terminal_bench_trial(doc: Any) -> bool:
    """True for a decoded Terminal-Bench ``TrialResults`` (one attempt's own
    ``results.json``: ``trial_name``, ``task_id``, ``instruction``, ``is_resolved``)."""
    return isinstance(doc, dict) and all(k in doc for k in _TRIAL_KEYS) and "results" not in doc


def is_terminal_bench_trial(path: Path, head: bytes | None = None) -> bool:
    """True when the JSON file at ``path`` (or its first bytes ``head``) opens like one
    attempt's ``TrialResults``: ``trial_name``, ``task_id`` and ``instruction`` keys and no
    ``results`` array."""
    if head is None:
        try:
            with open(path, "rb") as handle:
                head = handle.read(1 << 16)
        except OSError:
            return False
    return (all(f'"{k}"'.encode() in head for k in _TRIAL_KEYS[:3])
            and not _HEAD_PATTERN.search(head) and b'"task_name"' not in head)


def _metadata(run_file: Path) -> dict[str, Any] | None:
    meta_path = run_file.parent / _METADATA
    if run_file.name != "results.json" or not meta_path.is_file():
        return None
    try:
        meta = json.loads(meta_path.read_bytes())
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def _configuration(meta: dict[str, Any] | None) -> tuple[Any, ...]:
    if meta is None:
        return ()
    return tuple(meta.get(k) for k in ("agent_name", "model_name", "dataset_name",
                                       "dataset_version", "dataset_path"))


def _run_summary(run_file: Path) -> tuple[tuple[Any, ...], str, int] | None:
    """``(configuration, run id, attempts per task)`` of a run file, or None if it is not one."""
    if not is_terminal_bench_run(run_file):
        return None
    meta = _metadata(run_file)
    run_id = meta.get("run_id") if meta else None
    n_attempts = meta.get("n_attempts") if meta else None
    if not isinstance(run_id, str) or type(n_attempts) is not int:
        try:
            doc = json.loads(run_file.read_bytes())
        except (OSError, ValueError):
            return None
        if not looks_like_terminal_bench(doc):
            return None
        parts = [p for p in (split_trial_name(r["trial_name"]) for r in doc["results"]
                             if isinstance(r, dict) and isinstance(r.get("trial_name"), str))
                 if p is not None]
        if not isinstance(run_id, str):
            run_id = parts[0][3] if parts else run_file.stem
        if type(n_attempts) is not int:
            n_attempts = max((max(p[1], p[2]) for p in parts), default=1)
    return _configuration(meta), run_id, n_attempts


@lru_cache(maxsize=256)
def _sibling_runs(folder: str, stamp: int) -> tuple[tuple[str, tuple[Any, ...], str, int], ...]:
    """Every Terminal-Bench run directly in ``folder`` (run folders and run files)."""
    del stamp  # part of the cache key only: a folder that changed is listed again
    runs = []
    for entry in sorted(Path(folder).iterdir()):
        candidate = entry / "results.json" if entry.is_dir() else entry
        if candidate.suffix.lower() != ".json" or not candidate.is_file():
            continue
        summary = _run_summary(candidate)
        if summary is not None:
            runs.append((str(candidate.resolve()), *summary))
    return tuple(runs)


def _trial_offset(run_file: Path) -> tuple[int, int]:
    """``(attempts numbered before this run, number of re-runs of its configuration)``."""
    unit = run_file.parent if run_file.name == "results.json" else run_file
    folder = unit.parent
    try:
        stamp = folder.stat().st_mtime_ns
        runs = _sibling_runs(str(folder.resolve()), stamp)
    except OSError:
        return 0, 1
    me = str(run_file.resolve())
    mine = next((r for r in runs if r[0] == me), None)
    if mine is None:
        return 0, 1
    same = sorted((r for r in runs if r[1] == mine[1]), key=lambda r: (r[2], r[0]))
    offset = 0
    for run in same:
        if run[0] == me:
            break
        offset += run[3]
    return offset, len(same)


def published_figures(doc: Any) -> dict[str, Any]:
    """The figures a Terminal-Bench run reports about itself: ``accuracy`` (float or None) and
    ``pass_at_k`` (dict int -> float or None), as written in its ``results.json``."""
    if not isinstance(doc, dict):
        return {"accuracy": None, "pass_at_k": {}}
    raw = doc.get("pass_at_k")
    raw = raw if isinstance(raw, dict) else {}
    pass_at_k = {}
    for key, value in raw.items():
        try:
            pass_at_k[int(key)] = None if value is None else float(value)
        except (TypeError, ValueError):
            continue
    accuracy = doc.get("accuracy")
    return {"accuracy": float(accuracy) if isinstance(accuracy, (int, float)) else None,
            "pass_at_k": pass_at_k}


def _labels(path: Path, meta: dict[str, Any] | None, sink: ProblemSink, benchmark: str | None,
            model: str | None, protocol: str | None) -> tuple[str, str, str] | None:
    meta = meta or {}
    if benchmark is None:
        name, version = meta.get("dataset_name"), meta.get("dataset_version")
        if isinstance(name, str) and name:
            benchmark = name + (f"@{version}" if isinstance(version, str) and version else "")
        else:
            benchmark = "terminal-bench"
    if model is None:
        model = meta.get("model_name") if isinstance(meta.get("model_name"), str) else None
        if not model:
            sink.add([LogProblem.mentioning(
                str(path), None, "model_name",
                "a Terminal-Bench run records its model in run_metadata.json beside "
                "results.json, and there is none here; pass {model}",
                "run_metadata.json with model_name", "no run_metadata.json" if not meta
                else "run_metadata.json without model_name", kind="format")])
            return None
    if protocol is None:
        agent = meta.get("agent_name")
        protocol = agent if isinstance(agent, str) and agent else "default"
    return benchmark, model, protocol


def map_result(item: Any, *, offset: int, run_id: str | None, labels: tuple[str, str, str],
               source: str, line: int, sink: ProblemSink) -> Any:
    """Map one ``TrialResults`` object to TrialRecord fields (no validation)."""
    if not isinstance(item, dict):
        return item
    bench, model, prot = labels
    rec: dict[str, Any] = {"schema_version": "1", "benchmark": bench, "model": model,
                           "protocol": prot, "seed": None}
    if "task_id" in item:
        rec["task_id"] = item["task_id"]
    name = item.get("trial_name")
    parts = split_trial_name(name) if isinstance(name, str) else None
    if parts is None:
        sink.add([LogProblem(source, line, "trial_name",
                             "cannot tell which attempt this is", "<task_id>.<k>-of-<n>.<run_id>",
                             describe_value(name), kind="validation")])
        return None
    task, k, n, run = parts
    if isinstance(item.get("task_id"), str) and task != item["task_id"]:
        sink.add([LogProblem(source, line, "trial_name",
                             f"trial_name names task {task!r} but task_id is "
                             f"{item['task_id']!r}", f"<{item['task_id']}>.<k>-of-<n>.<run_id>",
                             describe_value(name), kind="validation")])
        return None
    rec["trial"] = offset + k - 1
    resolved = item.get("is_resolved", None)
    if "is_resolved" not in item:
        pass  # missing: the schema names the missing reward
    elif resolved is None or isinstance(resolved, bool):
        rec["reward"] = 1.0 if resolved is True else 0.0
    else:
        rec["reward"] = resolved  # not a boolean: the schema refuses it with its value
    mode = item.get("failure_mode")
    rec["termination_reason"] = mode if isinstance(mode, str) else None
    rec["infrastructure_error"] = False
    extra: dict[str, Any] = {"is_resolved": resolved, "trial_name": name, "run_id": run_id or run,
                             "attempt": k, "n_attempts": n}
    for key in ("failure_mode", "total_input_tokens", "total_output_tokens", "trial_started_at",
                "trial_ended_at"):
        if key in item:
            extra[key] = item[key]
    rec["extra"] = extra
    return rec


def iter_terminal_bench_blocks(
    path: str | Path, *, allow_nan: bool, sink: ProblemSink,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
) -> Iterator[RecordBlock]:
    """Read a Terminal-Bench 0.x run (its folder or its ``results.json``) as record blocks
    (``line`` = 1-based index in ``results``)."""
    path = Path(path)
    run_file = path / "results.json" if path.is_dir() else path
    source = str(run_file)
    doc = load_document(run_file, allow_nan, sink)
    if doc is None:
        return
    if looks_like_terminal_bench_trial(doc):
        yield from _iter_trial(run_file, doc, sink, benchmark, model, protocol)
        return
    if not looks_like_terminal_bench(doc):
        sink.add([LogProblem.mentioning(
            source, None, "results",
            "not a Terminal-Bench results.json; name its format with {format} if it is another",
            "an object whose results array holds trial_name, task_id and is_resolved",
            describe_value(doc), kind="format")])
        return
    meta = _metadata(run_file)
    labels = _labels(run_file, meta, sink, benchmark, model, protocol)
    if labels is None:
        return
    offset, _ = _trial_offset(run_file)
    run_id = meta.get("run_id") if meta and isinstance(meta.get("run_id"), str) else None
    results = doc["results"]
    records = [map_result(item, offset=offset, run_id=run_id, labels=labels, source=source,
                          line=i + 1, sink=sink) for i, item in enumerate(results)]
    kept = [(i + 1, r) for i, r in enumerate(records) if r is not None]
    _check_accuracy(source, doc, results)
    for start in range(0, len(kept), 10_000):
        chunk = kept[start:start + 10_000]
        yield RecordBlock(source, [i for i, _ in chunk], [r for _, r in chunk])


def _check_accuracy(source: str, doc: dict[str, Any], results: list[Any]) -> None:
    published = published_figures(doc)["accuracy"]
    if published is None or not results:
        return
    resolved = sum(1 for r in results if isinstance(r, dict) and r.get("is_resolved") is True)
    own = resolved / len(results)
    if not math.isclose(own, published, abs_tol=1e-9):
        warnings.warn(
            f"{source}: the run reports accuracy {published:.6g} but {resolved} of its "
            f"{len(results)} attempts are resolved ({own:.6g}); the attempts are read as "
            "written (was the file edited, or merged from several runs?)",
            PublishedFiguresWarning, stacklevel=4)


def _trial_run_offset(trial_file: Path, task: str, n: int, run: str) -> int:
    """Attempts numbered before this attempt's run: the runs of the same task beside it
    (``<task>/<task>.<k>-of-<n>.<run_id>/``), in run-id order, times ``n``."""
    task_dir = trial_file.parent.parent
    runs = set()
    try:
        with os.scandir(task_dir) as entries:
            for entry in entries:
                parts = split_trial_name(entry.name)
                if parts is not None and parts[0] == task and parts[2] == n and entry.is_dir():
                    runs.add(parts[3])
    except OSError:
        return 0
    ordered = sorted(runs)
    return ordered.index(run) * n if run in runs else 0


def _iter_trial(trial_file: Path, doc: dict[str, Any], sink: ProblemSink,
                benchmark: str | None, model: str | None, protocol: str | None
                ) -> Iterator[RecordBlock]:
    """One attempt's own ``results.json``: one record. The run's ``run_metadata.json`` is
    looked for two folders up (``<run>/<task>/<trial>/results.json``); attempts of other runs
    of the task beside it (a leaderboard submission's layout, ``<task>/<trial>/``) are
    re-runs, numbered in run-id order."""
    source = str(trial_file)
    meta_path = trial_file.parent.parent.parent / _METADATA
    meta = None
    if meta_path.is_file():
        try:
            loaded = json.loads(meta_path.read_bytes())
            meta = loaded if isinstance(loaded, dict) else None
        except (OSError, ValueError):
            meta = None
    labels = _labels(trial_file, meta, sink, benchmark, model, protocol)
    if labels is None:
        return
    name = doc.get("trial_name")
    parts = split_trial_name(name) if isinstance(name, str) else None
    offset = 0 if parts is None else _trial_run_offset(trial_file, parts[0], parts[2], parts[3])
    run_id = meta.get("run_id") if meta and isinstance(meta.get("run_id"), str) else None
    rec = map_result(doc, offset=offset, run_id=run_id, labels=labels, source=source, line=1,
                     sink=sink)
    if rec is not None:
        yield RecordBlock(source, [1], [rec])
