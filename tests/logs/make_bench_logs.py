"""Write Terminal-Bench 0.x runs and Harbor job folders in their tools' shapes, for the tests.

Neither ``terminal-bench`` nor ``harbor`` installs here, so the files are written from their
documented data models, declared below as pydantic models with the same field names and
types: Terminal-Bench's ``TrialResults``, ``BenchmarkResults`` and ``RunMetadata``
(``terminal_bench/harness_models.py``) and Harbor's ``TrialResult``, ``TrialConfig``,
``AgentInfo``, ``VerifierResult``, ``ExceptionInfo``, ``JobConfig`` and ``JobResult``
(``src/harbor/models``). The run's own figures are computed the way each tool documents them:
Terminal-Bench's ``accuracy`` (resolved attempts over all attempts, a null ``is_resolved``
counted unresolved) and ``pass_at_k`` (Chen et al.'s estimator per task, averaged over the
tasks with at least k attempts, for k in the powers of 2 up to the fewest attempts, and 5 and
10), written here from binomial coefficients, not from noisefloor's product form; Harbor's
mean reward (a trial without a verifier result counts 0).

Run as a script to write an example: ``python tests/logs/make_bench_logs.py OUT_DIR`` writes
``tb-runs/`` (one run, 3 tasks x 5 attempts), ``harbor-jobs/`` (one job, 6 trials) and
``tb-board/`` (four agents, three single-attempt runs each over 80 tasks).
"""

from __future__ import annotations

import json
import math
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

_T0 = datetime(2025, 6, 1, 12, 0, 0, tzinfo=timezone.utc)


# --- Terminal-Bench 0.x -------------------------------------------------------------------
class TrialResults(BaseModel):
    id: str
    trial_name: str
    task_id: str
    instruction: str
    is_resolved: bool | None = None
    failure_mode: str = "unset"
    parser_results: dict[str, str] | None = None
    recording_path: str | None = None
    total_input_tokens: int | None = None
    total_output_tokens: int | None = None
    trial_started_at: str | None = None
    trial_ended_at: str | None = None
    agent_started_at: str | None = None
    agent_ended_at: str | None = None
    test_started_at: str | None = None
    test_ended_at: str | None = None


class BenchmarkResults(BaseModel):
    id: str
    results: list[TrialResults] = Field(default_factory=list)
    pass_at_k: dict[int, float | None] = Field(default_factory=dict)
    n_resolved: int = 0
    n_unresolved: int = 0
    resolved_ids: list[str] = Field(default_factory=list)
    unresolved_ids: list[str] = Field(default_factory=list)
    accuracy: float = 0.0


class RunMetadata(BaseModel):
    run_id: str
    uuid: str
    dataset_path: str
    dataset_name: str | None = None
    dataset_version: str | None = None
    output_path: str
    agent_name: str
    no_rebuild: bool = False
    cleanup: bool = False
    log_level: int = 20
    task_ids: list[str] | None = None
    n_tasks: int | None = None
    n_concurrent_trials: int = 4
    n_attempts: int = 1
    dataset_size: int = 0
    accuracy: float | None = None
    model_name: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    commit_hash: str = "unknown"
    username: str = "tester"
    s3_bucket: str | None = None
    agent_kwargs: dict[str, Any] | None = None
    pass_at_k: dict[int, float | None] | None = None


def terminal_bench_pass_at_k(outcomes: dict[str, list[bool | None]]) -> dict[int, float | None]:
    """Terminal-Bench's documented pass@k of a run, from binomial coefficients."""
    counts = {t: [1 if o is True else 0 for o in v] for t, v in outcomes.items()}
    fewest = min(len(v) for v in counts.values())
    ks = sorted({2 ** i for i in range(1, int(math.log2(fewest)) + 1)} | {5, 10})
    out: dict[int, float | None] = {}
    for k in ks:
        per_task = []
        for v in counts.values():
            n, c = len(v), sum(v)
            if n < k:
                continue
            per_task.append(1.0 - math.comb(n - c, k) / math.comb(n, k))
        out[k] = sum(per_task) / len(per_task) if per_task else None
    return out


def write_terminal_bench_run(
    out: Path, run_id: str, outcomes: dict[str, list[bool | None]], *, agent: str = "terminus",
    model: str | None = "anthropic/claude-sonnet-4", dataset: str = "terminal-bench-core",
    version: str = "0.1.1", metadata: bool = True, failure_modes: dict[tuple[str, int], str]
    | None = None, file_name: str | None = None,
) -> Path:
    """Write a run folder ``out/<run_id>/`` (or one file ``out/<file_name>``); return the
    run's ``results.json``. ``outcomes`` maps each task to its attempts' ``is_resolved``."""
    failure_modes = failure_modes or {}
    n = max(len(v) for v in outcomes.values())
    results = []
    clock = _T0
    for task, attempts in outcomes.items():
        for k, resolved in enumerate(attempts, start=1):
            name = f"{task}.{k}-of-{n}.{run_id}"
            mode = failure_modes.get((task, k), "unset" if resolved is not None
                                     else "agent_timeout")
            results.append(TrialResults(
                id=str(uuid.uuid5(uuid.NAMESPACE_URL, name)), trial_name=name, task_id=task,
                instruction=f"Do {task}.", is_resolved=resolved, failure_mode=mode,
                parser_results=None if resolved is None else
                {"test_outputs": "passed" if resolved else "failed"},
                total_input_tokens=1000 + k, total_output_tokens=200 + k,
                trial_started_at=clock.isoformat(),
                trial_ended_at=(clock + timedelta(minutes=3)).isoformat()))
            clock += timedelta(minutes=4)
    resolved_ids = [r.task_id for r in results if r.is_resolved]
    unresolved_ids = [r.task_id for r in results if not r.is_resolved]
    bench = BenchmarkResults(
        id=str(uuid.uuid5(uuid.NAMESPACE_URL, run_id)), results=results,
        pass_at_k=terminal_bench_pass_at_k(outcomes), n_resolved=len(resolved_ids),
        n_unresolved=len(unresolved_ids), resolved_ids=resolved_ids,
        unresolved_ids=unresolved_ids, accuracy=len(resolved_ids) / len(results))
    if file_name is not None:
        out.mkdir(parents=True, exist_ok=True)
        path = out / file_name
        path.write_text(bench.model_dump_json(indent=4))
        return path
    run = out / run_id
    run.mkdir(parents=True, exist_ok=True)
    (run / "results.json").write_text(bench.model_dump_json(indent=4))
    for trial in results:
        trial_dir = run / trial.task_id / trial.trial_name
        trial_dir.mkdir(parents=True, exist_ok=True)
        (trial_dir / "results.json").write_text(trial.model_dump_json(indent=4))
    if metadata:
        meta = RunMetadata(run_id=run_id, uuid=bench.id, dataset_path=f"/data/{dataset}",
                           dataset_name=dataset, dataset_version=version, output_path=str(out),
                           agent_name=agent, n_attempts=n, dataset_size=len(outcomes),
                           accuracy=bench.accuracy, model_name=model,
                           start_time=_T0.isoformat(), pass_at_k=bench.pass_at_k)
        (run / "run_metadata.json").write_text(meta.model_dump_json(indent=4))
    return run / "results.json"


# --- Harbor -------------------------------------------------------------------------------
class AgentConfig(BaseModel):
    name: str | None = None
    import_path: str | None = None
    model_name: str | None = None
    override_timeout_sec: float | None = None
    kwargs: dict[str, Any] = Field(default_factory=dict)


class TaskConfig(BaseModel):
    path: str
    git_url: str | None = None
    git_commit_id: str | None = None
    overwrite: bool = False
    download_dir: str | None = None
    source: str | None = None


class TrialConfig(BaseModel):
    task: TaskConfig
    trial_name: str
    trials_dir: str
    timeout_multiplier: float = 1.0
    agent: AgentConfig
    environment: dict[str, Any] = Field(default_factory=lambda: {"type": "docker"})
    verifier: dict[str, Any] = Field(default_factory=dict)
    job_id: str | None = None


class ModelInfo(BaseModel):
    name: str
    provider: str


class AgentInfo(BaseModel):
    name: str
    version: str
    model_info: ModelInfo | None = None


class AgentContext(BaseModel):
    n_input_tokens: int | None = None
    n_cache_tokens: int | None = None
    n_output_tokens: int | None = None
    cost_usd: float | None = None
    metadata: dict[str, Any] | None = None


class VerifierResult(BaseModel):
    rewards: dict[str, float | int] | None = None


class ExceptionInfo(BaseModel):
    exception_type: str
    exception_message: str
    exception_traceback: str
    occurred_at: str


class TimingInfo(BaseModel):
    started_at: str | None = None
    finished_at: str | None = None


class TrialResult(BaseModel):
    id: str
    task_name: str
    trial_name: str
    trial_uri: str
    task_id: dict[str, Any]
    source: str | None = None
    task_checksum: str
    config: TrialConfig
    agent_info: AgentInfo
    agent_result: AgentContext | None = None
    verifier_result: VerifierResult | None = None
    exception_info: ExceptionInfo | None = None
    started_at: str | None = None
    finished_at: str | None = None
    environment_setup: TimingInfo | None = None
    agent_setup: TimingInfo | None = None
    agent_execution: TimingInfo | None = None
    verifier: TimingInfo | None = None


def harbor_mean(rewards: list[float | None]) -> float:
    """Harbor's documented mean metric: a trial without a verifier result counts 0."""
    return sum(0.0 if r is None else r for r in rewards) / len(rewards)


def write_harbor_job(
    out: Path, job_name: str, trials: list[tuple[str, float | None, str | None]], *,
    agent: str = "terminus-2", model: str = "anthropic/claude-sonnet-4-5",
    dataset: str = "terminal-bench", version: str = "2.0",
) -> Path:
    """Write ``out/<job_name>/`` with one trial folder per ``(task, reward or None,
    exception type or None)``, in start order; return the job folder."""
    job = out / job_name
    job.mkdir(parents=True, exist_ok=True)
    job_id = str(uuid.uuid5(uuid.NAMESPACE_URL, job_name))
    provider, _, short = model.partition("/")
    rewards: list[float | None] = []
    clock = _T0
    for i, (task, reward, exception) in enumerate(trials):
        name = f"{task}__{uuid.uuid5(uuid.NAMESPACE_URL, f'{job_name}/{i}').hex[:7]}"
        start, end = clock, clock + timedelta(minutes=5)
        clock += timedelta(seconds=30)
        result = TrialResult(
            id=str(uuid.uuid5(uuid.NAMESPACE_URL, name)), task_name=task, trial_name=name,
            trial_uri=f"file://{job / name}", task_id={"path": f"tasks/{task}"},
            source=dataset, task_checksum="0" * 64,
            config=TrialConfig(task=TaskConfig(path=f"tasks/{task}", source=dataset),
                               trial_name=name, trials_dir=str(job),
                               agent=AgentConfig(name=agent, model_name=model), job_id=job_id),
            agent_info=AgentInfo(name=agent, version="2.0.0",
                                 model_info=ModelInfo(name=short, provider=provider)),
            agent_result=AgentContext(n_input_tokens=5000 + i, n_output_tokens=700 + i,
                                      cost_usd=0.01 * (i + 1)),
            verifier_result=None if reward is None else VerifierResult(rewards={"reward": reward}),
            exception_info=None if exception is None else ExceptionInfo(
                exception_type=exception, exception_message=f"{exception} in {name}",
                exception_traceback="Traceback ...", occurred_at=end.isoformat()),
            started_at=start.isoformat(), finished_at=end.isoformat())
        trial_dir = job / name
        (trial_dir / "agent").mkdir(parents=True, exist_ok=True)
        (trial_dir / "verifier").mkdir(exist_ok=True)
        (trial_dir / "result.json").write_text(result.model_dump_json(indent=4))
        (trial_dir / "config.json").write_text(result.config.model_dump_json(indent=4))
        rewards.append(None if result.verifier_result is None else reward)
    n_attempts = max(sum(1 for t in trials if t[0] == task) for task, _, _ in trials)
    (job / "config.json").write_text(json.dumps({
        "job_name": job_name, "jobs_dir": str(out), "n_attempts": n_attempts,
        "timeout_multiplier": 1.0, "orchestrator": {"type": "local", "n_concurrent_trials": 4},
        "agents": [{"name": agent, "model_name": model}],
        "datasets": [{"name": dataset, "version": version, "registry": {}}]}, indent=4))
    key = f"{agent}__{model.replace('/', '-')}__{dataset}"
    errors: dict[str, list[str]] = {}
    for (task, _, exception), i in zip(trials, range(len(trials))):
        if exception is not None:
            errors.setdefault(exception, []).append(f"{task}#{i}")
    (job / "result.json").write_text(json.dumps({
        "id": job_id, "started_at": _T0.isoformat(), "finished_at": clock.isoformat(),
        "n_total_trials": len(trials),
        "stats": {"n_trials": len(trials), "n_errors": sum(len(v) for v in errors.values()),
                  "evals": {key: {"n_trials": len(trials),
                                  "n_errors": sum(len(v) for v in errors.values()),
                                  "metrics": [{"mean": harbor_mean(rewards)}],
                                  "exception_stats": errors}}}}, indent=4))
    return job


def write_board(out: Path, n_tasks: int = 80, n_runs: int = 3, seed: int = 7) -> None:
    """Four agents, ``n_runs`` single-attempt runs each over ``n_tasks`` tasks, with true
    success rates 0.85, 0.83, 0.60 and 0.40 and a shared per-task difficulty (seeded)."""
    import random

    rng = random.Random(seed)
    tasks = [f"task-{i:03d}" for i in range(n_tasks)]
    difficulty = {t: rng.uniform(-0.15, 0.15) for t in tasks}
    for agent, rate in (("alpha", 0.85), ("beta", 0.83), ("gamma", 0.60), ("delta", 0.40)):
        for run in range(n_runs):
            outcomes = {t: [rng.random() < min(1.0, max(0.0, rate + difficulty[t]))]
                        for t in tasks}
            write_terminal_bench_run(out, f"2025-07-0{run + 1}__12-00-00-{agent}", outcomes,
                                     agent=agent)


if __name__ == "__main__":  # pragma: no cover - example writer
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "bench-logs")
    write_terminal_bench_run(target / "tb-runs", "2025-06-01__12-00-00",
                             {"hello-world": [True, True, False, True, None],
                              "fix-git": [False, False, False, False, False],
                              "csv-to-parquet": [True, True, True, True, True]})
    write_harbor_job(target / "harbor-jobs", "2025-06-02__09-00-00",
                     [("hello-world", 1.0, None), ("hello-world", 0.0, None),
                      ("fix-git", None, "AgentSetupError"), ("fix-git", 0.0, None),
                      ("csv-to-parquet", 1.0, None), ("csv-to-parquet", 1.0, None)])
    write_board(target / "tb-board")
    print(target)
