"""What a protocols run leaves behind: ``trials.jsonl`` and tau2-bench's ``results.json`` per arm."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from noisefloor.journal import write_atomic

__all__ = ["write_results", "write_trial_records"]


def write_trial_records(out: Path, entries: dict[str, dict[str, Any]], arms: dict[str, Any]) -> list[dict[str, Any]]:
    """Write ``trials.jsonl`` (one record per journalled simulation, ordered by protocol, task,
    trial), with ``extra.store.events_written`` and ``event_ids_written`` read from the arm's
    store (the writer ran after the record was journalled); returns the records."""
    decisions: dict[str, dict[str, Any]] = {}
    path = out / "simulations" / "writer_decisions.jsonl"
    if path.exists():
        for line in path.read_bytes().splitlines():
            try:
                d = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # a line torn by a kill: that attempt's decisions are unknown
            decisions[d.pop("attempt_id")] = d
    records = []
    for entry in entries.values():
        rec = orjson.loads(orjson.dumps(entry["record"]))
        arm = arms.get(rec["protocol"])
        if arm is not None:
            attempt = rec["extra"]["attempt_id"]
            ids = [s.event_id for s in arm.store.query(rec["task_id"], limit=100_000)
                   if s.event.attempt_id == attempt]
            rec["extra"]["store"]["events_written"] = len(ids)
            rec["extra"]["store"]["event_ids_written"] = ids
            if attempt in decisions:
                rec["extra"]["writer_decisions"] = decisions[attempt]
        records.append(rec)
    records.sort(key=lambda r: (r["protocol"], _task_order(r["task_id"]), r["trial"]))
    write_atomic(out / "trials.jsonl", b"".join(orjson.dumps(r) + b"\n" for r in records))
    return records


def _task_order(task_id: str) -> tuple[int, Any]:
    return (0, int(task_id)) if task_id.isdigit() else (1, task_id)


def write_results(out: Path, settings: Any, tasks: list[Any], entries: dict[str, dict[str, Any]]) -> dict[str, Path]:
    """Write ``simulations/<protocol>/results.json`` for every arm as tau2-bench's ``Results`` (json layout):
    the run's ``info``, its tasks, and the arm's simulations that produced a result."""
    from tau2.data_model.simulation import Results, SimulationRun
    from tau2.run import get_info

    from noisefloor.protocols.tau2.agent import AGENT_NAME
    from noisefloor.protocols.tau2.user import USER_NAME

    paths = {}
    for protocol in settings.protocols:
        sims = []
        for key in sorted(entries, key=lambda k: (_trial_of(k), k)):
            entry = entries[key]
            rec = entry["record"]
            if rec["protocol"] != protocol or rec["infrastructure_error"] or not entry.get("simulation"):
                continue
            sims.append(SimulationRun.model_validate_json((out / entry["simulation"]).read_bytes()))
        args = {"temperature": settings.temperature}
        info = get_info(domain=settings.domain, agent=f"{AGENT_NAME}:{protocol}",
                        user=USER_NAME, llm_agent=settings.agent.name,
                        llm_args_agent=args, llm_user=settings.user.name,
                        llm_args_user=dict(args), num_trials=settings.trials,
                        max_steps=settings.max_steps, max_errors=settings.max_errors,
                        seed=settings.seed)
        results = Results(info=info, tasks=tasks, simulations=sims)
        path = out / "simulations" / protocol / "results.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, results.model_dump_json(indent=2).encode())
        paths[protocol] = path
    return paths


def _trial_of(key: str) -> int:
    return int(key.rsplit("/", 1)[1])
