"""Harbor job folders (one ``result.json`` per trial) -> trial records.

``harbor run`` writes a job folder ``jobs/<job_name>/`` holding the job's ``config.json``
(``JobConfig``: its ``datasets`` with ``name`` and ``version``, agents, ``n_attempts``, ...)
and ``result.json`` (``JobResult``: trial counts and ``stats``, the per-agent metrics such as
the mean reward), and one folder per trial, ``<task_name>__<suffix>/``, whose
``result.json`` is a ``TrialResult``: ``task_name``, ``trial_name``, ``source`` (the dataset),
``config`` (the ``TrialConfig``, whose ``agent`` holds ``name`` and ``model_name``),
``agent_info`` (``name``, ``version``, ``model_info``), ``agent_result`` (token counts,
``cost_usd``), ``verifier_result`` (``rewards``, a dict whose ``reward`` is the score),
``exception_info`` (``exception_type``, ``exception_message``, ...), and start and end times.

=====================  =============================================================
TrialRecord            Harbor
=====================  =============================================================
benchmark              ``benchmark=``, else the trial's ``source`` with the ``version`` the
                       job's ``config.json`` gives that dataset (``terminal-bench@2.0``),
                       else ``source`` alone, else ``"harbor"``
model                  ``model=``, else ``config.agent.model_name``, else
                       ``agent_info.model_info`` (``provider/name``)
protocol               ``protocol=``, else ``config.agent.name`` (the agent, e.g.
                       ``terminus-2``), else ``agent_info.name``
seed                   null (Harbor records none)
task_id                ``task_name``
trial                  the trial's position among the job's trials of its task, ordered by
                       ``started_at`` then ``trial_name`` (Harbor names trials with a random
                       suffix, not an attempt number)
reward                 ``verifier_result.rewards.reward`` (the only reward when the dict
                       holds one key under another name); null when there is no verifier
                       result (the trial never finished: counted as not run)
termination_reason     ``"exception: <exception_type>"``, else null
infrastructure_error   true when ``exception_info`` is set: the reward is then null whatever
                       the verifier recorded (kept in ``extra.recorded_reward``, with a
                       warning counting such trials)
source, line           a job folder: the folder, and the trial folder's 1-based place in
                       name order (its name in ``extra.trial_dir``); a trial read alone: its
                       ``result.json``, line 1
extra                  ``trial_name``, ``agent_version``, ``exception_type`` and
                       ``exception_message``, the token counts and ``cost_usd`` of
                       ``agent_result``, ``started_at``, ``finished_at``
=====================  =============================================================

An exception is an infrastructure error, never a score: Harbor's own mean reward (over trials)
counts a trial without a verifier result as 0, as ``--infrastructure-errors fail`` does; the
default leaves such trials out of the counts and says how many. Harbor's rewards may be partial
(a share of tests passed); pass^k and pass@k count a trial as a success only at reward 1.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_strict
from noisefloor.logs.jsonl.pipeline import ProblemSink, RecordBlock
from noisefloor.logs.records.errors import InfrastructureRewardWarning, LogProblem, describe_value

__all__ = ["HARBOR_TRIAL_KEYS", "harbor_kind", "is_harbor_trial", "iter_harbor_blocks",
           "map_trial"]

#: Keys every serialised ``TrialResult`` has.
HARBOR_TRIAL_KEYS = frozenset({"task_name", "trial_name", "config", "agent_info"})
_RESULT = "result.json"
_CONFIG = "config.json"
_TRIAL_HEAD = re.compile(rb'"(task_name|trial_name|agent_info|verifier_result)"\s*:')


def is_harbor_trial(doc: Any) -> bool:
    """True for a decoded Harbor ``TrialResult`` (``task_name``, ``trial_name``, ``config``,
    ``agent_info``)."""
    return isinstance(doc, dict) and HARBOR_TRIAL_KEYS <= doc.keys()


def _head(path: Path, size: int = 1 << 16) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def _trial_file_head(head: bytes) -> bool:
    found = {m.group(1) for m in _TRIAL_HEAD.finditer(head)}
    return {b"task_name", b"trial_name"} <= found


def harbor_kind(path: Path) -> str | None:
    """``"job"`` for a Harbor job folder (``config.json`` and ``result.json`` beside trial
    folders), ``"trial"`` for a trial folder or a trial's ``result.json``, else None.

    Only the job's own two files and the first trial folder found are looked at, so a job of
    any size is recognised at once.
    """
    if path.is_dir():
        result = path / _RESULT
        if not result.is_file():
            return None
        if _trial_file_head(_head(result)):
            return "trial"
        if not (path / _CONFIG).is_file():
            return None
        for entry in path.iterdir():
            if entry.is_dir() and _trial_file_head(_head(entry / _RESULT)):
                return "job"
        head = _head(result)
        return "job" if b'"n_total_trials"' in head or b'"stats"' in head else None
    if path.suffix.lower() == ".json" and _trial_file_head(_head(path)):
        return "trial"
    return None


def _load(path: Path, sink: ProblemSink, allow_nan: bool) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        sink.add([LogProblem(str(path), None, None, f"cannot read file: {exc}", kind="io")])
        return None
    try:
        return parse_strict(raw.removeprefix(b"\xef\xbb\xbf"), allow_nan=allow_nan,
                            document=True)
    except JSONProblem as exc:
        sink.add([LogProblem(str(path), None, exc.field, str(exc), kind=exc.kind,
                             templates=exc.templates)])
        return None


def _dataset_versions(job: Path) -> dict[str, str]:
    """Dataset name -> version from a job's ``config.json`` (``datasets`` entries)."""
    try:
        config = json.loads((job / _CONFIG).read_bytes())
    except (OSError, ValueError):
        return {}
    datasets = config.get("datasets") if isinstance(config, dict) else None
    out = {}
    for entry in datasets if isinstance(datasets, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            version = entry.get("version")
            if isinstance(version, str) and version:
                out[entry["name"]] = version
    return out


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _reward(verifier: Any, source: str, sink: ProblemSink) -> tuple[bool, Any]:
    """``(ok, reward)`` from a ``verifier_result``; a problem and ``ok`` False otherwise."""
    if verifier is None:
        return True, None
    rewards = verifier.get("rewards") if isinstance(verifier, dict) else None
    if rewards is None:
        return True, None
    if isinstance(rewards, dict):
        if "reward" in rewards:
            return True, rewards["reward"]
        if len(rewards) == 1:
            return True, next(iter(rewards.values()))
    sink.add([LogProblem(source, 1, "verifier_result.rewards",
                         "cannot tell which reward is the score",
                         "an object with key 'reward' (or a single key)",
                         describe_value(rewards), kind="validation")])
    return False, None


def map_trial(doc: Any, *, source: str, sink: ProblemSink, versions: dict[str, str],
              benchmark: str | None, model: str | None, protocol: str | None) -> Any:
    """Map one ``TrialResult`` to TrialRecord fields, without ``trial`` (no validation)."""
    if not is_harbor_trial(doc):
        sink.add([LogProblem(source, None, None, "not a Harbor trial result",
                             "an object with task_name, trial_name, config and agent_info",
                             describe_value(doc), kind="format")])
        return None
    dataset = doc.get("source") if isinstance(doc.get("source"), str) else None
    if benchmark is None:
        benchmark = (f"{dataset}@{versions[dataset]}" if dataset in versions
                     else dataset or "harbor")
    if model is None:
        model = _get(doc, "config", "agent", "model_name")
        if not isinstance(model, str) or not model:
            info = _get(doc, "agent_info", "model_info")
            name, provider = _get(info, "name"), _get(info, "provider")
            model = (f"{provider}/{name}" if isinstance(provider, str) and provider else name
                     ) if isinstance(name, str) and name else None
    if protocol is None:
        protocol = _get(doc, "config", "agent", "name") or _get(doc, "agent_info", "name")
    rec: dict[str, Any] = {"schema_version": "1", "benchmark": benchmark, "model": model,
                           "protocol": protocol, "seed": None, "task_id": doc["task_name"]}
    ok, reward = _reward(doc.get("verifier_result"), source, sink)
    if not ok:
        return None
    exception = doc.get("exception_info")
    extra: dict[str, Any] = {"trial_name": doc["trial_name"]}
    version = _get(doc, "agent_info", "version")
    if version is not None:
        extra["agent_version"] = version
    agent_result = doc.get("agent_result")
    if isinstance(agent_result, dict):
        for key in ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd"):
            if agent_result.get(key) is not None:
                extra[key] = agent_result[key]
    for key in ("started_at", "finished_at"):
        if doc.get(key) is not None:
            extra[key] = doc[key]
    if exception is not None:
        kind = _get(exception, "exception_type")
        kind = kind if isinstance(kind, str) and kind else "unknown"
        extra["exception_type"] = kind
        message = _get(exception, "exception_message")
        if isinstance(message, str):
            extra["exception_message"] = message[:500]
        if reward is not None:
            extra["recorded_reward"] = reward
        rec.update(reward=None, termination_reason=f"exception: {kind}",
                   infrastructure_error=True)
    else:
        rec.update(reward=reward, termination_reason=None, infrastructure_error=False)
    rec["extra"] = extra
    return rec


def _trial_files(job: Path) -> list[Path]:
    """The ``result.json`` of every trial folder of a job, in folder-name order."""
    with os.scandir(job) as entries:
        names = sorted(e.name for e in entries if e.is_dir())
    out = []
    for name in names:
        result = os.path.join(job, name, _RESULT)
        if os.path.isfile(result):
            out.append(Path(result))
    return out


def iter_harbor_blocks(
    path: str | Path, *, allow_nan: bool, sink: ProblemSink,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
) -> Iterator[RecordBlock]:
    """Read a Harbor job folder, a trial folder or one trial's ``result.json`` as record
    blocks (see the table above for ``source`` and ``line``)."""
    path = Path(path)
    kind = harbor_kind(path)
    if kind == "job":
        job, files = path, _trial_files(path)
    else:
        file = path / _RESULT if path.is_dir() else path
        job, files = file.parent.parent, [file]
    versions = _dataset_versions(job)
    mapped: list[tuple[Path, dict[str, Any], Any]] = []
    for file in files:
        doc = _load(file, sink, allow_nan)
        if doc is None:
            continue
        rec = map_trial(doc, source=str(file), sink=sink, versions=versions,
                        benchmark=benchmark, model=model, protocol=protocol)
        if rec is None:
            continue
        started = doc.get("started_at")
        mapped.append((file, rec, (str(started) if started is not None else "",
                                   str(doc.get("trial_name")))))
    # Trials of one task in start order: 0, 1, 2, ...
    counters: dict[Any, int] = {}
    for _, rec, _ in sorted(mapped, key=lambda m: m[2]):
        key = tuple(repr(rec.get(f)) for f in ("task_id", "model", "protocol", "benchmark"))
        rec["trial"] = counters.get(key, 0)
        counters[key] = rec["trial"] + 1
    carried = [str(file) for file, rec, _ in mapped if "recorded_reward" in rec["extra"]]
    if carried:
        shown = ", ".join(carried[:3]) + (", ..." if len(carried) > 3 else "")
        warnings.warn(
            f"{job}: {len(carried)} trial(s) raised an exception but carry a verifier reward "
            f"({shown}): read as infrastructure errors with a null reward; the recorded reward "
            "is kept in extra['recorded_reward']",
            InfrastructureRewardWarning, stacklevel=4)
    if kind != "job":
        for file, rec, _ in mapped:
            yield RecordBlock(str(file), [1], [rec])
        return
    # One block per 10,000 trials (validation has a fixed cost per block): the source is the
    # job folder, the line the trial folder's 1-based place in name order (its name is in
    # extra["trial_dir"]); problems the reader itself finds name the trial's own file.
    position = {file: i for i, file in enumerate(files, 1)}
    for start in range(0, len(mapped), 10_000):
        chunk = mapped[start:start + 10_000]
        for file, rec, _ in chunk:
            rec["extra"]["trial_dir"] = file.parent.name
        yield RecordBlock(str(job), [position[file] for file, _, _ in chunk],
                          [rec for _, rec, _ in chunk])
