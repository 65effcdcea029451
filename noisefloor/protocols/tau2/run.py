"""``noisefloor protocols run``: the noise-floor experiment on tau2-bench, one call.

:func:`run_protocols` runs every task of a tau2-bench domain under every protocol arm, in
phases: every trial-0 simulation of every arm finishes before any trial 1 starts, and between
phases the writer runs on each failed trial of the phase just ended. Each arm has its own
task-scoped store (``stores/<protocol>.db``), so one arm's failures never reach another.

Run directory ``DIR``:

``journal.ndjson``
    One entry per finished simulation (``noisefloor.journal``), key ``<protocol>/<task>/<trial>``,
    holding the trial record, the tool calls the writer needs and the simulation's file;
    appended and fsynced before the next one. A killed run resumes from it: a simulation is
    recorded exactly once, and the writer pass is idempotent (an attempt whose events are in
    the store is not written again; events go in one transaction).
``simulations/<protocol>/runs/<task>-<trial>.json``
    tau2-bench's ``SimulationRun``, written atomically before its journal entry.
``stores/<protocol>.db``
    The arm's :class:`~noisefloor.store.SQLiteEventStore`.
``simulations/<protocol>/results.json``
    tau2-bench's ``Results`` of the arm (``info``, ``tasks``, ``simulations``): loadable by
    ``tau2.data_model.simulation.Results`` and by ``noisefloor``'s tau2 reader. Simulations that
    ended in an infrastructure error are left out (they never produced a result).
``trials.jsonl``
    One noisefloor :class:`~noisefloor.logs.TrialRecord` per simulation (see
    :func:`run_protocols`), with ``extra.store.events_written`` read back from the store.
``simulations/run.json``
    The settings of the run (a changed outcome-relevant setting refuses to resume).

Everything but ``trials.jsonl`` sits in ``simulations/``, ``stores/`` or the journal, so
``noisefloor floor DIR`` and ``noisefloor audit --log DIR`` read each simulation once (as its
trial record); the tau2 files are read on their own (``noisefloor floor DIR/simulations/pull``).

An infrastructure error (a model call whose retries are spent, a simulation that crashed) is
recorded with ``infrastructure_error`` true and no reward; it is never scored and never written
to the store; ``retry_errors=True`` runs it again.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from noisefloor.endpoints import ModelEndpoint
from noisefloor.journal import JournalWriter, locked, read_journal, write_atomic
from noisefloor.protocols.readers import reader_by_name
from noisefloor.protocols.session import Coordinator
from noisefloor.protocols.tau2.state import LiveFacts, ReplayFacts
from noisefloor.protocols.trace import ToolCall, TrialTrace, is_failure
from noisefloor.protocols.writers import LastKWriter
from noisefloor.results import FrozenResult
from noisefloor.store import SQLiteEventStore

__all__ = ["DOMAINS", "PROTOCOLS", "ProtocolRunResult", "ProtocolRunSettings", "run_protocols"]

logger = logging.getLogger(__name__)

DOMAINS = ("retail", "airline", "telecom")
PROTOCOLS = ("no_coord", "pull", "intercept", "selective_intercept", "predicate_intercept")
SPLITS = ("test", "train", "base")
WRITERS = ("last_k", "judged")
JOURNAL = "journal.ndjson"
TRIALS = "trials.jsonl"
RUN_META = "simulations/run.json"
DECISIONS = "simulations/writer_decisions.jsonl"


@dataclass(frozen=True)
class ProtocolRunSettings:
    """What a protocols run does.

    Attributes
    ----------
    domain : {"retail", "airline", "telecom"}
    agent, user : ModelEndpoint
        The agent's and the user simulator's model, base URL(s), API key variable and prices
        (:class:`noisefloor.endpoints.ModelEndpoint`). Every model call of both roles goes
        through :class:`noisefloor.endpoints.Endpoints`: a request goes to the base URL with
        the most free capacity, under its per-URL ``concurrency`` limit (halved on a 429),
        and its tokens are priced from the model's prices.
    protocols : tuple of str, default ("no_coord", "pull", "intercept")
        Reader protocols, one arm (and one store) each.
    tasks : tuple of str or None
        Task ids; ``None`` takes the whole ``split``.
    split : {"test", "train", "base"} or None
        tau2-bench's task split (``base`` = every task); used when ``tasks`` is None.
    trials : int, default 2
    temperature : float, default 0.0
    max_steps : int, default 20
        tau2's step budget per simulation (the paper's 20-turn budget).
    max_errors : int, default 10
    writer : {"last_k", "judged"}, default "last_k"
        ``judged``: the causally attributed writer, a model (``refine``) names the calls to
        write (:class:`~noisefloor.protocols.refinements.ModelJudge`, last K as its fallback).
    k : int, default 3
        Final calls the writer stores for a failed trial.
    seed : int, default 0
        tau2's run seed: trial ``t`` uses the ``t``-th draw of ``random.Random(seed)`` (as
        tau2's ``run_tasks``), the same in every arm.
    concurrency : int, default 4
        Simulations in flight.
    max_retries : int, default 2
        Retries of a failed model call of any role (429 after its ``Retry-After``, 5xx,
        timeouts, malformed replies: :class:`noisefloor.endpoints.Endpoints`); when they are
        spent the simulation is an infrastructure error.
    timeout : float, default 120.0
        Seconds per model call.
    refine : ModelEndpoint or None
        The model of the refinements: the ``judged`` writer's judge, the gate of the
        ``selective_intercept`` arm (else its score gate) and the predicate extraction of the
        ``predicate_intercept`` arm (else that arm matches literally), all through
        :class:`noisefloor.endpoints.Endpoints`.
    """

    domain: str
    agent: ModelEndpoint
    user: ModelEndpoint
    protocols: tuple[str, ...] = ("no_coord", "pull", "intercept")
    tasks: tuple[str, ...] | None = None
    split: str | None = None
    trials: int = 2
    temperature: float = 0.0
    max_steps: int = 20
    max_errors: int = 10
    writer: str = "last_k"
    k: int = 3
    seed: int = 0
    concurrency: int = 4
    max_retries: int = 2
    timeout: float = 120.0
    refine: ModelEndpoint | None = None

    def __post_init__(self) -> None:
        if self.domain not in DOMAINS:
            raise ValueError(f"--domain must be one of {', '.join(DOMAINS)}, got {self.domain!r}")
        bad = [p for p in self.protocols if p not in PROTOCOLS]
        if bad or not self.protocols or len(set(self.protocols)) != len(self.protocols):
            raise ValueError(f"--protocols must be distinct names among {', '.join(PROTOCOLS)}, "
                             f"got {','.join(self.protocols)!r}")
        if self.split is not None and self.split not in SPLITS:
            raise ValueError(f"--split must be one of {', '.join(SPLITS)}, got {self.split!r}")
        if self.writer not in WRITERS:
            raise ValueError(f"--writer must be one of {', '.join(WRITERS)}, got {self.writer!r}")
        for name, value, low in (("--trials", self.trials, 1), ("--max-steps", self.max_steps, 1),
                                 ("--k", self.k, 1), ("--concurrency", self.concurrency, 1),
                                 ("--max-retries", self.max_retries, 0),
                                 ("--max-errors", self.max_errors, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if self.writer == "judged" and self.refine is None:
            raise ValueError("--writer judged needs --refine-model (the judge)")
        if not self.temperature >= 0:
            raise ValueError(f"--temperature must be >= 0, got {self.temperature!r}")

    def outcome_settings(self) -> dict[str, Any]:
        """The settings that change what a simulation does (concurrency, timeouts, prices excluded)."""
        return {"domain": self.domain, "agent_model": self.agent.name, "user_model": self.user.name,
                "temperature": self.temperature, "max_steps": self.max_steps,
                "max_errors": self.max_errors, "writer": self.writer, "k": self.k,
                "seed": self.seed, "agent_implementation": "noisefloor_llm_agent",
                "user_implementation": "noisefloor_user_simulator",
                "refine_model": None if self.refine is None else self.refine.name}

    def settings_id(self) -> str:
        """16 hex digits identifying :meth:`outcome_settings`."""
        text = json.dumps(self.outcome_settings(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ProtocolRunResult(FrozenResult):
    """What a protocols run produced.

    Attributes
    ----------
    out : Path
    simulations : int
        Journalled simulations (all phases, all arms).
    ran : int
        Simulations run by this call (the rest were in the journal already).
    infrastructure_errors : int
        Simulations recorded as infrastructure errors (unscored).
    events_written : dict
        Protocol -> events in its store.
    results : dict
        Protocol -> path of its tau2 ``results.json``.
    trials_path : Path
    success : dict
        ``"<protocol>/<trial>"`` -> (successes, scored simulations).
    """

    out: Path
    simulations: int
    ran: int
    infrastructure_errors: int
    events_written: dict[str, int]
    results: dict[str, Path]
    trials_path: Path
    success: dict[str, tuple[int, int]] = field(default_factory=dict)


Progress = Callable[[str], None]


def _load_tasks(settings: ProtocolRunSettings) -> list[Any]:
    from tau2.registry import registry

    if settings.tasks is not None:
        every = registry.get_tasks_loader(settings.domain)("base")
        by_id = {str(t.id): t for t in every}
        missing = [t for t in settings.tasks if t not in by_id]
        if missing:
            raise ValueError(f"--tasks: no task {', '.join(missing)} in tau2-bench "
                             f"{settings.domain} (ids are {', '.join(list(by_id)[:5])}, ...)")
        return [by_id[t] for t in settings.tasks]
    return list(registry.get_tasks_loader(settings.domain)(settings.split or "base"))


def _key(protocol: str, task_id: str, trial: int) -> str:
    return f"{protocol}/{task_id}/{trial}"


def _sim_path(protocol: str, task_id: str, trial: int) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in task_id)
    return f"simulations/{protocol}/runs/{safe}-{trial}.json"


class _Arm:
    """One protocol arm: its store and coordinator."""

    def __init__(self, protocol: str, out: Path, settings: ProtocolRunSettings,
                 caller: Any = None, tasks: Any = ()) -> None:
        from noisefloor.protocols import (
            JudgedWriter,
            PredicateIntercept,
            PredicateWriter,
            SelectiveIntercept,
        )
        from noisefloor.protocols.refinements import (
            ModelGate,
            ModelJudge,
            ModelPredicateExtractor,
        )

        (out / "stores").mkdir(parents=True, exist_ok=True)
        self.protocol = protocol
        self.store = SQLiteEventStore(out / "stores" / f"{protocol}.db")
        self.judge = ModelJudge(caller, k=settings.k) if settings.writer == "judged" else None
        writers: list[Any] = [JudgedWriter(self.judge) if self.judge else LastKWriter(k=settings.k)]
        self.extractor = None
        self.live_facts: LiveFacts | None = None
        reader: Any
        if protocol == "selective_intercept":
            reader = ModelGate(caller) if caller is not None else SelectiveIntercept()
        elif protocol == "predicate_intercept":
            # facts at the moment of the call: live for the reader, replayed for the writer
            self.live_facts = LiveFacts()
            reader = PredicateIntercept(self.live_facts)
            if caller is not None:
                replay = ReplayFacts(settings.domain, {str(t.id): t for t in tasks})
                self.extractor = ModelPredicateExtractor(caller, replay)
                writers.append(PredicateWriter(self.extractor, k=settings.k))
        else:
            reader = reader_by_name(protocol)
        self.coord = Coordinator(self.store, reader, writers, protocol=protocol,
                                 benchmark=f"tau2/{settings.domain}",
                                 model=settings.agent.name, seed=settings.seed)

    def decisions_since(self, marks: tuple[int, int]) -> dict[str, list[Any]]:
        """The judge's and the extractor's decisions made after ``marks`` (see :meth:`marks`)."""
        out: dict[str, list[Any]] = {}
        if self.judge is not None:
            out["judge"] = self.judge.decisions[marks[0]:]
        if self.extractor is not None:
            out["predicates"] = self.extractor.decisions[marks[1]:]
        return out

    def marks(self) -> tuple[int, int]:
        return (len(self.judge.decisions) if self.judge else 0,
                len(self.extractor.decisions) if self.extractor else 0)

    def written_attempts(self, task_id: str) -> set[str]:
        return {s.event.attempt_id for s in self.store.query(task_id, limit=100_000)
                if s.event.attempt_id}


def _simulate(arm: _Arm, task: Any, trial: int, trial_seed: int, endpoints: Any,
              settings: ProtocolRunSettings, out: Path) -> dict[str, Any]:
    """Run one simulation under ``arm``; returns its journal entry (nothing written yet)."""
    from tau2.run import run_task

    from noisefloor.endpoints import EndpointError, EndpointFatalError
    from noisefloor.protocols.tau2.agent import AGENT_NAME, AgentBinding, bind
    from noisefloor.protocols.tau2.user import USER_NAME

    task_id = str(task.id)
    session = arm.coord.start_trial(task_id, trial)
    binding = AgentBinding(session, endpoints, settings.agent, settings.user,
                           live_facts=arm.live_facts)
    sim: Any = None
    error: str | None = None
    error_kind: str | None = None
    sampling = {"temperature": settings.temperature}
    try:
        with bind(binding):
            sim = run_task(settings.domain, task, AGENT_NAME, USER_NAME,
                           llm_agent=settings.agent.name, llm_args_agent=dict(sampling),
                           llm_user=settings.user.name, llm_args_user=dict(sampling),
                           max_steps=settings.max_steps, max_errors=settings.max_errors,
                           seed=trial_seed)
    except EndpointFatalError:
        raise  # 401, 403, 404: no simulation can succeed; the run stops, nothing is journalled
    except EndpointError as exc:  # a model call whose retries are spent
        error, error_kind = f"{type(exc).__name__}: {str(exc)[:500]}", exc.kind
    except Exception as exc:  # a crashed simulation
        error, error_kind = f"{type(exc).__name__}: {str(exc)[:500]}", "crash"
    reward = None
    if sim is not None and sim.reward_info is not None:
        reward = float(sim.reward_info.reward)
    infra = sim is None or reward is None
    a, u = binding.agent, binding.user
    extra: dict[str, Any] = {
        "tokens": {"agent_prompt": a.prompt_tokens, "agent_completion": a.completion_tokens,
                   "user_prompt": u.prompt_tokens, "user_completion": u.completion_tokens},
        "cost": {"agent": a.cost, "user": u.cost,
                 "total": None if a.cost is None or u.cost is None else a.cost + u.cost},
        "model_calls": {"agent": a.to_dict(), "user": u.to_dict()},
        "agent_model_calls": a.calls,
        "user_model": settings.user.name, "domain": settings.domain,
        "agent_implementation": AGENT_NAME, "user_implementation": USER_NAME,
        "simulation_seed": trial_seed,
        "max_steps": settings.max_steps, "temperature": settings.temperature,
    }
    rel = None
    if sim is not None:
        sim.trial = trial
        extra["simulation_id"] = sim.id
        extra["duration"] = sim.duration
        rel = _sim_path(arm.protocol, task_id, trial)
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, sim.model_dump_json().encode())
    if error is not None:
        extra["error"] = error
        extra["error_kind"] = error_kind
    termination = None if sim is None else str(getattr(sim.termination_reason, "value",
                                                       sim.termination_reason))
    if infra and sim is not None:
        termination = "infrastructure_error"
    record = session.finish(None if infra else reward, termination_reason=termination or "infrastructure_error",
                            infrastructure_error=infra,
                            first_request_sha256=binding.first_request_sha256,
                            extra=extra, write=False)
    trace = session.trace
    dumped = record.model_dump(mode="json")
    if arm.live_facts is not None:  # when the reader read each call's facts
        for entry, step in zip(dumped["extra"]["coordination_keys"], binding.facts_steps):
            entry["facts_step"] = step
    return {"key": _key(arm.protocol, task_id, trial), "settings": settings.settings_id(),
            "record": dumped, "simulation": rel,
            "calls": [asdict(c) for c in trace.calls]}


def _write_phase(arms: dict[str, _Arm], entries: dict[str, dict[str, Any]], trial: int,
                 out: Path) -> int:
    """The writer pass after phase ``trial``: idempotent, one transaction per attempt; the
    refinements' decisions go to ``simulations/writer_decisions.jsonl``."""
    written = 0
    for key in sorted(entries):
        entry = entries[key]
        rec = entry["record"]
        if rec["trial"] != trial or rec["infrastructure_error"] or not is_failure(rec["reward"]):
            continue
        arm = arms[rec["protocol"]]
        attempt = rec["extra"]["attempt_id"]
        if attempt in arm.written_attempts(rec["task_id"]):
            continue
        trace = TrialTrace(task_id=rec["task_id"], trial=trial, protocol=rec["protocol"],
                           calls=tuple(ToolCall(**c) for c in entry["calls"]),
                           reward=rec["reward"], attempt_id=attempt)
        marks = arm.marks()
        written += len(arm.coord.write(trace))
        decided = arm.decisions_since(marks)
        if decided:
            with open(out / DECISIONS, "ab") as fh:
                fh.write(json.dumps({"attempt_id": attempt, **decided}).encode() + b"\n")
    return written


def run_protocols(settings: ProtocolRunSettings, out: str | Path, *, retry_errors: bool = False,
                  progress: Progress | None = None) -> ProtocolRunResult:
    """Run the noise-floor experiment on tau2-bench: every arm, every task, phase by phase.

    Parameters
    ----------
    settings : ProtocolRunSettings
    out : str or Path
        Run directory (created; an existing one resumes if its settings match).
    retry_errors : bool, default False
        Run simulations journalled as infrastructure errors again.
    progress : callable, optional
        Called with one line of text per finished simulation and per phase.

    Returns
    -------
    ProtocolRunResult

    Raises
    ------
    ValueError
        If ``out`` holds a run with other outcome settings, or a task id is unknown.
    RuntimeError
        If another process holds the run directory.
    noisefloor.endpoints.EndpointFatalError
        When an endpoint answers 401, 403 or 404 (a wrong key, URL or model name): the run
        stops; the simulations journalled so far stay, the others run on resume.

    Notes
    -----
    Each simulation yields one trial record with ``store_events_at_start`` (events of its task
    in its arm's store when it began: 0 in every trial 0, which certifies the trial-0 null),
    ``injections``, ``first_request_sha256`` (``request_sha256`` of the agent's first request:
    identical across ``no_coord`` and ``intercept`` at trial 0 is the E1 audit), ``reward``,
    ``termination_reason``, and in ``extra`` the tokens and costs of both roles.
    """
    from loguru import logger as tau2_logger

    from noisefloor.protocols.tau2.registration import register

    register()
    # tau2 logs every step to stderr; progress comes from here. The caller's choice is restored.
    core = getattr(tau2_logger, "_core", None)  # loguru keeps no public query of this
    was_off = ("tau2.", False) in getattr(core, "activation_list", [])
    tau2_logger.disable("tau2")
    try:
        return _run(settings, Path(out), retry_errors, progress)
    finally:
        if not was_off:
            tau2_logger.enable("tau2")


def _run(settings: ProtocolRunSettings, out: Path, retry_errors: bool,
         progress: Progress | None) -> ProtocolRunResult:
    from noisefloor.protocols.tau2.results import write_results, write_trial_records

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda line: None)
    with locked(out, users="'protocols run'"):
        meta = {"settings_id": settings.settings_id(), "outcome_settings": settings.outcome_settings(),
                "protocols": list(settings.protocols), "trials": settings.trials}
        old = out / RUN_META
        old.parent.mkdir(exist_ok=True)
        if old.exists():
            previous = json.loads(old.read_text())
            if previous.get("settings_id") != meta["settings_id"]:
                raise ValueError(f"{out}: holds a run with other settings "
                                 f"({previous.get('outcome_settings')}); use another --out")
        write_atomic(old, json.dumps(meta, indent=2, sort_keys=True).encode() + b"\n")
        tasks = _load_tasks(settings)
        state = read_journal(out / JOURNAL, repair=True)
        entries = dict(state.entries)
        from noisefloor.protocols.blocking import BlockingEndpoints

        endpoints = BlockingEndpoints(
            [settings.agent, settings.user] + ([settings.refine] if settings.refine else []),
            timeout=settings.timeout, max_retries=settings.max_retries)
        caller = None
        if settings.refine is not None:
            from noisefloor.protocols.refinements import ModelCaller

            caller = ModelCaller(settings.refine, temperature=0.0, endpoints=endpoints)
        arms = {p: _Arm(p, out, settings, caller, tasks) for p in settings.protocols}
        seeds = random.Random(settings.seed)
        trial_seeds = [seeds.randint(0, 1_000_000) for _ in range(settings.trials)]
        ran = 0
        total = len(tasks) * len(settings.protocols) * settings.trials
        try:
            with JournalWriter(out / JOURNAL) as journal:
                for trial in range(settings.trials):
                    todo = [(p, t) for p in settings.protocols for t in tasks
                            if _pending(entries.get(_key(p, str(t.id), trial)), retry_errors)]
                    say(f"phase {trial}: {len(todo)} simulation(s) to run, "
                        f"{len(tasks) * len(settings.protocols) - len(todo)} journalled")
                    with ThreadPoolExecutor(max_workers=settings.concurrency) as pool:
                        futures = [pool.submit(_simulate, arms[p], t, trial, trial_seeds[trial],
                                               endpoints, settings, out) for p, t in todo]
                        for fut in futures:
                            try:
                                entry = fut.result()
                            except BaseException:
                                pool.shutdown(wait=True, cancel_futures=True)
                                raise
                            journal.append(entry)
                            entries[entry["key"]] = entry
                            ran += 1
                            rec = entry["record"]
                            outcome = ("infrastructure error: " + rec["extra"].get("error", "")
                                       if rec["infrastructure_error"] else f"reward {rec['reward']:g}")
                            say(f"[{len(entries)}/{total}] {entry['key']}: {outcome}")
                    n = _write_phase(arms, entries, trial, out)
                    say(f"phase {trial}: writer stored {n} event(s)")
            records = write_trial_records(out, entries, arms)
            results = write_results(out, settings, tasks, entries)
        finally:
            for arm in arms.values():
                arm.store.close()
            endpoints.close()
    success: dict[str, list[int]] = {}
    infra = 0
    for rec in records:
        if rec["infrastructure_error"]:
            infra += 1
            continue
        s = success.setdefault(f"{rec['protocol']}/{rec['trial']}", [0, 0])
        s[0] += int(not is_failure(rec["reward"]))
        s[1] += 1
    return ProtocolRunResult(
        out=out, simulations=len(records), ran=ran, infrastructure_errors=infra,
        events_written={p: sum(1 for r in records if r["protocol"] == p
                               for _ in r["extra"]["store"]["event_ids_written"])
                        for p in settings.protocols},
        results=results, trials_path=out / TRIALS,
        success={k: (v[0], v[1]) for k, v in sorted(success.items())})


def _pending(entry: dict[str, Any] | None, retry_errors: bool) -> bool:
    if entry is None:
        return True
    return bool(retry_errors and entry["record"]["infrastructure_error"])

