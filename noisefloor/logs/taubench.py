"""tau-bench (v1) trajectory lists -> trial records.

tau-bench v1 writes one JSON list per run; each element is ``{task_id: int, trial: int,
reward: float, info: {...}, traj: [...]}``. ``info.reward_info`` may be null (the reward is
still the top-level ``reward``). When the run loop caught an exception, ``info`` holds
``error`` (and ``traceback``) and the recorded reward is 0: such a trial never ran to the end,
so it becomes ``infrastructure_error=True`` with ``reward`` null, the recorded reward kept in
``extra["recorded_reward"]`` (never silently counted as a failure).

=====================  =============================================================
TrialRecord            tau-bench v1
=====================  =============================================================
benchmark              ``benchmark=``, else ``"tau/<domain>"`` from a ``<model>-<domain>``
                       file name (``gpt-4o-airline.json`` -> ``tau/airline``)
model                  ``model=``, else ``<model>`` from the file name (``gpt-4o``)
protocol               ``protocol=``, else ``"default"``
seed                   null (v1 records no per-trial seed)
task_id                ``str(task_id)`` (an int in v1's model: ``7`` -> ``"7"``)
trial, reward          copied
termination_reason     null, or ``"error: <message>"`` when ``info.error`` is set
extra                  ``user_cost`` when present; ``error``, ``recorded_reward`` on errors
=====================  =============================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisefloor.logs.errors import LogProblem, describe_value
from noisefloor.logs.pipeline import ProblemSink, RecordBlock
from noisefloor.logs.tau2 import _load_document

__all__ = ["TAU_BENCH_DOMAINS", "iter_taubench_blocks", "labels_from_filename"]

#: Domains of tau-bench v1.
TAU_BENCH_DOMAINS = ("airline", "retail")
_NAME = re.compile(r"(?P<model>.+)-(?P<domain>" + "|".join(TAU_BENCH_DOMAINS) + r")")


def labels_from_filename(path: str | Path) -> tuple[str, str] | None:
    """Infer ``(model, benchmark)`` from a ``<model>-<domain>.json`` file name.

    Examples
    --------
    >>> labels_from_filename("logs/gpt-4o-airline.json")
    ('gpt-4o', 'tau/airline')
    >>> labels_from_filename("results.json") is None
    True
    """
    match = _NAME.fullmatch(Path(path).stem)
    if match is None:
        return None
    return match["model"], f"tau/{match['domain']}"


def map_trajectory(item: Any, *, benchmark: str, model: str, protocol: str) -> Any:
    """Map one tau-bench v1 result object to TrialRecord fields (no validation)."""
    if not isinstance(item, dict):
        return item
    rec: dict[str, Any] = {"schema_version": "1", "benchmark": benchmark, "model": model,
                           "protocol": protocol, "seed": None}
    if "task_id" in item:
        task_id = item["task_id"]
        rec["task_id"] = str(task_id) if type(task_id) is int else task_id
    if "trial" in item:
        rec["trial"] = item["trial"]
    if "reward" in item:
        rec["reward"] = item["reward"]
    info = item.get("info")
    error = info.get("error") if isinstance(info, dict) else None
    extra: dict[str, Any] = {}
    if isinstance(info, dict) and "user_cost" in info:
        extra["user_cost"] = info["user_cost"]
    if error is not None:
        extra["error"] = error
        extra["recorded_reward"] = item.get("reward")
        rec["reward"] = None
        rec["termination_reason"] = f"error: {error}"[:500]
        rec["infrastructure_error"] = True
    else:
        rec["termination_reason"] = None
        rec["infrastructure_error"] = False
    rec["extra"] = extra or None
    return rec


def iter_taubench_blocks(
    path: str | Path, *, allow_nan: bool, sink: ProblemSink,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
) -> Iterator[RecordBlock]:
    """Read a tau-bench v1 trajectory list as record blocks (``line`` = 1-based index)."""
    source = str(path)
    if benchmark is None or model is None:
        inferred = labels_from_filename(path)
        if inferred is None:
            missing = [n for n, v in (("model", model), ("benchmark", benchmark)) if v is None]
            sink.add([LogProblem(
                source, None, None,
                f"cannot infer {' and '.join(missing)} from the file name "
                f"(expected <model>-<{'|'.join(TAU_BENCH_DOMAINS)}>.json); pass "
                + " and ".join(f"{n}= (--{n})" for n in missing), kind="format")])
            return
        model = model or inferred[0]
        benchmark = benchmark or inferred[1]
    doc = _load_document(Path(path), allow_nan, sink)
    if doc is None:
        return
    if not isinstance(doc, list):
        sink.add([LogProblem(source, None, None, "a tau-bench v1 log is a JSON array of results",
                             "an array", describe_value(doc), kind="format")])
        return
    prot = protocol or "default"
    for start in range(0, len(doc), 10_000):
        chunk = doc[start:start + 10_000]
        yield RecordBlock(
            source, list(range(start + 1, start + 1 + len(chunk))),
            [map_trajectory(i, benchmark=benchmark, model=model, protocol=prot) for i in chunk])
