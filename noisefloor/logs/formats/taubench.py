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
                       file name (``gpt-4o-airline.json`` -> ``tau/airline``), else, for
                       a file named by ``run.py``, from the policy heading of the first
                       trajectory's system message (``# Airline Agent Policy`` ->
                       ``tau/airline``, ``# Retail agent policy`` -> ``tau/retail``)
model                  ``model=``, else ``<model>`` from the file name (``gpt-4o``); a
                       file named otherwise needs ``model=`` (its domain still comes from
                       the policy heading)
protocol               ``protocol=``, else the agent strategy of a ``run.py`` file name
                       (``tool-calling``, ``act``, ``react``, ``few-shot``), else
                       ``"default"``
seed                   null (v1 records no per-trial seed)
task_id                ``str(task_id)`` (an int in v1's model: ``7`` -> ``"7"``)
trial, reward          copied
termination_reason     null, or ``"error: <message>"`` when ``info.error`` is set
extra                  ``user_cost`` when present; ``error``, ``recorded_reward`` on errors;
                       for a ``run.py`` file name ``temperature``, ``user_model``,
                       ``user_strategy``, ``task_range`` and ``run_started`` (its
                       ``%m%d%H%M%S`` stamp)
=====================  =============================================================

tau-bench's ``run.py`` names its output
``{agent_strategy}-{model}-{temperature}_range_{start}-{end}_user-{user_model}-{user_strategy}_{time}.json``
(``model`` is the part after the last ``/`` of the model name); the historical trajectories
are named ``<model>-<domain>.json``. Either name gives the labels without flags.

Rewards may be partial (tau-bench's retail reward is 0 or 1, but a rescored or custom run may
hold fractions): pass^k counts a trial as a success only at reward 1 (within 1e-6), so the
reader warns (:class:`~noisefloor.stats.warning_classes.PartialRewardWarning`) with the number
of partial rewards, the mean reward and the share of successes, which part ways.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisefloor.logs.formats.tau2 import load_document
from noisefloor.logs.jsonl.pipeline import ProblemSink, RecordBlock
from noisefloor.logs.records.errors import LogProblem, describe_value
from noisefloor.stats.passk import SUCCESS_TOLERANCE
from noisefloor.stats.validation import literal
from noisefloor.stats.warning_classes import PartialRewardWarning

__all__ = [
    "AGENT_STRATEGIES",
    "TAU_BENCH_DOMAINS",
    "USER_STRATEGIES",
    "domain_from_trajectory",
    "iter_taubench_blocks",
    "labels_from_filename",
    "run_labels_from_filename",
]

#: Domains of tau-bench v1.
TAU_BENCH_DOMAINS = ("airline", "retail")
_NAME = re.compile(r"(?P<model>.+)-(?P<domain>" + "|".join(TAU_BENCH_DOMAINS) + r")")


#: Agent and user strategies accepted by tau-bench's ``run.py`` (``tau_bench/run.py``,
#: ``tau_bench/envs/user.py``).
AGENT_STRATEGIES = ("tool-calling", "act", "react", "few-shot")
USER_STRATEGIES = ("human", "llm", "react", "verify", "reflection")
_RUN_NAME = re.compile(
    r"(?P<strategy>" + "|".join(map(re.escape, AGENT_STRATEGIES)) + r")-(?P<model>.+?)"
    r"-(?P<temperature>\d+(?:\.\d+)?(?:e[+-]?\d+)?)_range_(?P<start>-?\d+)-(?P<end>-?\d+)"
    r"_user-(?P<user_model>.+)-(?P<user_strategy>" + "|".join(USER_STRATEGIES) + r")"
    r"_(?P<time>\d+)")
#: First line of each domain's policy (``tau_bench/envs/<domain>/wiki.md``), which run.py puts
#: in the system message that opens every trajectory.
_POLICY_HEADINGS = {"# airline agent policy": "airline", "# retail agent policy": "retail"}


def run_labels_from_filename(path: str | Path) -> dict[str, str] | None:
    """Parse a tau-bench ``run.py`` output name into its parts, or None.

    Examples
    --------
    >>> parts = run_labels_from_filename(
    ...     "results/tool-calling-gpt-4o-2024-08-06-0.0_range_0-50_user-gpt-4o-llm_0101120000.json")
    >>> parts["strategy"], parts["model"], parts["temperature"], parts["user_model"]
    ('tool-calling', 'gpt-4o-2024-08-06', '0.0', 'gpt-4o')
    >>> run_labels_from_filename("gpt-4o-airline.json") is None
    True
    """
    match = _RUN_NAME.fullmatch(Path(path).stem)
    return None if match is None else match.groupdict()


def domain_from_trajectory(item: Any) -> str | None:
    """The tau-bench domain named by the policy heading of a result's system message."""
    traj = item.get("traj") if isinstance(item, dict) else None
    first = traj[0] if isinstance(traj, list) and traj else None
    content = first.get("content") if isinstance(first, dict) else None
    if not isinstance(content, str):
        return None
    heading = content.lstrip().split("\n", 1)[0].strip().lower()
    return _POLICY_HEADINGS.get(heading)


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
    run = None
    if benchmark is None or model is None:
        inferred = labels_from_filename(path)
        run = run_labels_from_filename(path) if inferred is None else None
        if inferred is not None:
            model = model or inferred[0]
            benchmark = benchmark or inferred[1]
        elif run is not None:
            model = model or run["model"]
        elif model is None:
            # a renamed file: the domain can still come from the policy text (below); the
            # model cannot
            missing = ["model"]
            sink.add([LogProblem.mentioning(
                source, None, None,
                literal(f"cannot infer {' and '.join(missing)} from the file name "
                        f"(expected <model>-<{'|'.join(TAU_BENCH_DOMAINS)}>.json or run.py's "
                        "<strategy>-<model>-<temperature>_range_<start>-<end>_user-<user model>-"
                        "<user strategy>_<time>.json); pass ")
                + " and ".join(f"{{{n}}}" for n in missing)
                + literal(" (the domain is read from the policy text of the first trajectory)")
                , kind="format")])
            return
    else:
        run = run_labels_from_filename(path)
    doc = load_document(Path(path), allow_nan, sink)
    if doc is None:
        return
    if not isinstance(doc, list):
        sink.add([LogProblem(source, None, None, "a tau-bench v1 log is a JSON array of results",
                             "an array", describe_value(doc), kind="format")])
        return
    if benchmark is None:
        domain = domain_from_trajectory(doc[0]) if doc else None
        if domain is None:
            sink.add([LogProblem.mentioning(
                source, None, None,
                "cannot tell the tau-bench domain: the file name does not hold it and the "
                "first trajectory's system message does not start with a known policy heading; "
                "pass {benchmark}", kind="format")])
            return
        benchmark = f"tau/{domain}"
    prot = protocol or (run["strategy"] if run is not None else "default")
    run_extra = None if run is None else {
        "temperature": float(run["temperature"]), "user_model": run["user_model"],
        "user_strategy": run["user_strategy"], "task_range": f"{run['start']}-{run['end']}",
        "run_started": run["time"],
        "configuration": {"strategy": run["strategy"], "temperature": float(run["temperature"]),
                          "user_model": run["user_model"],
                          "user_strategy": run["user_strategy"]}}
    _warn_partial(source, doc)
    for start in range(0, len(doc), 10_000):
        chunk = doc[start:start + 10_000]
        records = [map_trajectory(i, benchmark=benchmark, model=model, protocol=prot)
                   for i in chunk]
        if run_extra is not None:
            for rec in records:
                if isinstance(rec, dict):
                    rec["extra"] = {**run_extra, **(rec.get("extra") or {})}
        yield RecordBlock(source, list(range(start + 1, start + 1 + len(chunk))), records)


def _warn_partial(source: str, doc: list[Any]) -> None:
    """Warn, with counts, when rewards are partial (strictly between 0 and 1)."""
    rewards = [item["reward"] for item in doc if isinstance(item, dict)
               and isinstance(item.get("reward"), (int, float))
               and not isinstance(item.get("reward"), bool)
               and not (isinstance(item.get("info"), dict) and item["info"].get("error"))]
    if not rewards:
        return
    partial = [r for r in rewards if SUCCESS_TOLERANCE < r < 1 - SUCCESS_TOLERANCE]
    if not partial:
        return
    successes = sum(1 for r in rewards if abs(r - 1) <= SUCCESS_TOLERANCE)
    warnings.warn(
        f"{source}: {len(partial)} of {len(rewards)} trials have a partial reward (strictly "
        f"between 0 and 1; mean reward {sum(rewards) / len(rewards):.3f}): pass^k and pass@k "
        f"count a trial as a success only when its reward is within {SUCCESS_TOLERANCE:g} of 1, "
        f"so these {len(partial)} count as failures ({successes} successes, pass^1 "
        f"{successes / len(rewards):.3f} over trials)", PartialRewardWarning, stacklevel=4)
