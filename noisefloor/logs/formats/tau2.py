"""tau2-bench runs -> trial records.

tau2-bench (sierra-research/tau2-bench, ``src/tau2/data_model/simulation.py``) saves a run in
one of two layouts:

* **json**: one ``results.json`` holding ``{timestamp, info, tasks, simulations}``;
* **dir**: ``results.json`` holding the same metadata without ``simulations`` but with a
  ``simulation_index`` (``id, task_id, trial, reward, termination_reason, agent_cost,
  duration`` per simulation), and one ``simulations/<id>.json`` per simulation. tau2-bench
  treats a path as the dir layout when it is a directory or when a ``simulations/`` directory
  sits beside the ``results.json``; so do we.

Each simulation (tau2's ``SimulationRun``) maps to one :class:`~noisefloor.logs.TrialRecord`:

=====================  =================================================================
TrialRecord            tau2-bench
=====================  =================================================================
benchmark              ``"tau2/" + info.environment_info.domain_name``
model                  ``info.agent_info.llm``
protocol               ``"default"`` unless the caller passes one
seed                   ``info.seed``: the run's seed, which identifies the configuration.
                       tau2-bench derives one seed per trial from it
                       (``random.seed(config.seed)`` in ``runner/batch.py``), so the
                       per-simulation ``seed`` differs between trials of one configuration;
                       it is kept in ``extra["simulation_seed"]``. Without ``info.seed``
                       the seed is null.
task_id                ``simulation.task_id`` (a string in tau2's model; never converted)
trial                  ``simulation.trial``. tau2's model lets it be null (its default), and
                       its metrics never read it (pass^k groups simulations by task); a null
                       or missing trial gets the smallest index that task has not used, in
                       file order, after the explicit ones (``extra["trial_assigned"]`` is
                       then true)
reward                 ``simulation.reward_info.reward``; null when ``reward_info`` is null
                       or missing (tau2's default: never evaluated) or the simulation ended
                       in ``infrastructure_error``. An
                       ``infrastructure_error`` simulation that still carries a
                       ``reward_info.reward`` is read with a null reward too (tau2-bench
                       leaves these simulations out of its metrics); that reward is kept in
                       ``extra["recorded_reward"]`` and the reader warns once per run with
                       their number
                       (:class:`~noisefloor.logs.records.errors.InfrastructureRewardWarning`)
termination_reason     ``simulation.termination_reason``
infrastructure_error   ``termination_reason == "infrastructure_error"`` (tau2 excludes these
                       simulations from its metrics: they never ran)
extra                  ``simulation_id``, ``simulation_seed``, ``start_time``,
                       ``duration``, ``agent_cost``, ``user_cost``, ``user_llm``, and
                       ``recorded_reward`` (see reward)
=====================  =================================================================

The record index (the ``line`` column) is the 1-based position of the simulation in
``simulations`` (json layout) or in ``simulation_index`` (dir layout), so both layouts of one
run give the same rows.

A bare JSON array of simulations (``results["simulations"]`` saved on its own) is read too; it
has no ``info``, so ``benchmark=`` and ``model=`` must be passed. A JSON document is parsed
whole; when it is over 64 MiB its last bytes are checked first: one that does not end in
``}`` or ``]`` (a zero-filled or garbage tail after a crash) is refused before it is read
into memory.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisefloor.logs.formats.files import regular_file_problem
from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_strict
from noisefloor.logs.jsonl.pipeline import ProblemSink, RecordBlock
from noisefloor.logs.records.errors import InfrastructureRewardWarning, LogProblem, describe_value

__all__ = ["is_tau2_dir_layout", "iter_tau2_blocks", "load_document", "tail_problem", "tau2_paths"]

SIMULATIONS_DIR = "simulations"
INFRASTRUCTURE_ERROR = "infrastructure_error"
_TAIL_BLOCK = 1 << 16
#: Documents larger than this (64 MiB) have their end checked before they are read whole.
_TAIL_CHECK_FROM = 64 << 20
#: Required keys of tau2's ``SimulationRun`` that tell a bare simulation list.
_SIMULATION_KEYS = ("id", "task_id", "start_time", "termination_reason")


def tau2_paths(path: str | Path) -> tuple[Path, Path | None]:
    """Return ``(results.json, simulations dir or None)`` for a run file or run directory."""
    path = Path(path)
    meta = path / "results.json" if path.is_dir() else path
    sims = meta.parent / SIMULATIONS_DIR
    return meta, (sims if sims.is_dir() else None)


def is_tau2_dir_layout(path: str | Path) -> bool:
    """True if ``path`` is a tau2-bench run in the dir layout (a ``simulations/`` folder
    beside its ``results.json``)."""
    return tau2_paths(path)[1] is not None


def tail_problem(path: Path) -> LogProblem | None:
    """A problem when the last non-blank byte of a JSON document is not ``}`` or ``]``, found
    by reading backwards from the end (a block at a time), never the whole file."""
    with open(path, "rb") as handle:
        end = handle.seek(0, 2)
        if end <= _TAIL_CHECK_FROM:
            return None  # small: the parser names the line and column of what is wrong
        pos = end
        while pos > 0:
            step = min(_TAIL_BLOCK, pos)
            pos -= step
            handle.seek(pos)
            block = handle.read(step).rstrip(b" \t\r\n")
            if not block:
                continue
            last = block[-1:]
            if last in (b"}", b"]"):
                return None
            if last == b"\x00":
                zeros = len(block) - len(block.rstrip(b"\x00"))
                what = (f"zero bytes (at least the last {zeros:,}: a zero-filled tail, as a "
                        "crash or a full disk leaves)")
            else:
                what = f"the byte {last!r}"
            return LogProblem(
                str(path), None, None,
                f"the JSON document does not end with '}}' or ']': it ends with {what}; the "
                "file is cut off or has garbage after the document, and was not read",
                "a complete JSON document", f"{end:,} bytes", kind="json")
    return None  # empty or blank: the parser says so


def load_document(path: Path, allow_nan: bool, sink: ProblemSink) -> Any:
    """The JSON document at ``path`` (strictly parsed, a leading byte-order mark dropped), or
    None after reporting to ``sink`` why it cannot be read: not a regular file, cut off, not
    readable, not JSON. The readers of tau-bench and Terminal-Bench load their files with it."""
    problem = regular_file_problem(path)
    if problem is None:
        try:
            problem = tail_problem(path)
        except OSError as exc:
            problem = LogProblem(str(path), None, None, f"cannot read file: {exc}", kind="io")
    if problem is not None:
        sink.add([problem])
        return None
    try:
        raw = path.read_bytes()
    except OSError as exc:
        sink.add([LogProblem(str(path), None, None, f"cannot read file: {exc}", kind="io")])
        return None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return parse_strict(raw, allow_nan=allow_nan, document=True)
    except JSONProblem as exc:
        sink.add([LogProblem(str(path), None, exc.field, str(exc), kind=exc.kind,
                                   templates=exc.templates)])
        return None


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _run_labels(
    meta: dict[str, Any], source: str, sink: ProblemSink,
    benchmark: str | None, model: str | None, protocol: str | None,
) -> tuple[str, str, str, Any] | None:
    info = meta.get("info")
    problems = []
    if benchmark is None:
        domain = _get(info, "environment_info", "domain_name")
        if not isinstance(domain, str) or not domain:
            problems.append(LogProblem.mentioning(
                source, None, "info.environment_info.domain_name",
                "cannot name the benchmark (or pass {benchmark})", "a non-empty string",
                describe_value(domain)))
        else:
            benchmark = f"tau2/{domain}"
    if model is None:
        llm = _get(info, "agent_info", "llm")
        if not isinstance(llm, str) or not llm:
            problems.append(LogProblem.mentioning(
                source, None, "info.agent_info.llm",
                "cannot name the model (or pass {model})", "a non-empty string",
                describe_value(llm)))
        else:
            model = llm
    seed = _get(info, "seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        # checked once here, under its own name: per simulation it would be one "seed" problem
        # per record, naming a field the file does not have
        problems.append(LogProblem(source, None, "info.seed", "the run seed is not an integer",
                                   "an integer or null", describe_value(seed)))
    sink.add(problems)
    if problems:
        return None
    assert benchmark is not None and model is not None  # for type checkers; guarded above
    return benchmark, model, protocol or "default", seed


def run_configuration(info: Any) -> dict[str, Any] | None:
    """The configuration a tau2-bench run records in its ``info`` (see
    :mod:`noisefloor.logs.configuration`): agent implementation and ``llm_args``, user
    simulator implementation, model and ``llm_args``, domain. None without ``info``.

    Examples
    --------
    >>> run_configuration({"agent_info": {"implementation": "llm_agent", "llm": "m",
    ...                                   "llm_args": {"temperature": 0.0}},
    ...                    "environment_info": {"domain_name": "retail"}})
    {'agent': 'llm_agent', 'agent_llm_args': {'temperature': 0.0}, 'domain': 'retail'}
    """
    if not isinstance(info, dict):
        return None
    fields = {"agent": ("agent_info", "implementation"),
              "agent_llm_args": ("agent_info", "llm_args"),
              "user": ("user_info", "implementation"), "user_llm": ("user_info", "llm"),
              "user_llm_args": ("user_info", "llm_args"),
              "domain": ("environment_info", "domain_name")}
    out = {name: _get(info, *path) for name, path in fields.items()}
    return {k: v for k, v in out.items() if v is not None}


def map_simulation(
    sim: Any, *, benchmark: str, model: str, protocol: str, info_seed: Any, user_llm: Any,
    configuration: dict[str, Any] | None = None,
) -> Any:
    """Map one tau2-bench simulation object to TrialRecord fields (no validation).

    A field missing from the simulation stays missing, so validation reports it.
    ``configuration`` (the run's, :func:`run_configuration`) is kept in
    ``extra["configuration"]``.
    """
    if not isinstance(sim, dict):
        return sim
    rec: dict[str, Any] = {
        "schema_version": "1", "benchmark": benchmark, "model": model, "protocol": protocol,
    }
    rec["seed"] = info_seed
    for name in ("task_id", "trial", "termination_reason"):
        if name in sim:
            rec[name] = sim[name]
    rec.setdefault("trial", None)  # tau2's default; numbered by TrialNumbering
    reward_info = sim.get("reward_info")
    if isinstance(reward_info, dict):
        if "reward" in reward_info:
            rec["reward"] = reward_info["reward"]
    elif reward_info is None:
        # null or missing: tau2's SimulationRun defaults reward_info to None (never evaluated)
        # and its metrics read that as no reward; a reward_info without "reward" stays an error
        rec["reward"] = None
    else:
        rec["reward"] = reward_info  # not an object: validation names it
    infra = sim.get("termination_reason") == INFRASTRUCTURE_ERROR
    rec["infrastructure_error"] = infra
    recorded = rec.get("reward")
    if infra:
        rec["reward"] = None
    extra = {
        "simulation_id": sim.get("id"),
        "simulation_seed": sim.get("seed"),
        "start_time": sim.get("start_time"),
        "duration": sim.get("duration"),
        "agent_cost": sim.get("agent_cost"),
        "user_cost": sim.get("user_cost"),
        "user_llm": user_llm,
    }
    if configuration is not None:
        extra["configuration"] = configuration  # one dict shared by the run's records
    if infra and recorded is not None:
        extra["recorded_reward"] = recorded  # never silently dropped: counted by the reader
    rec["extra"] = extra
    return rec


def _recorded_reward_lines(records: list[Any], lines: list[int]) -> list[int]:
    """Record indexes of infrastructure errors that carried a reward (see map_simulation)."""
    return [line for rec, line in zip(records, lines)
            if isinstance(rec, dict) and isinstance(rec.get("extra"), dict)
            and "recorded_reward" in rec["extra"]]


def _warn_recorded_rewards(source: str, lines: list[int]) -> None:
    if not lines:
        return
    shown = ", ".join(map(str, lines[:5])) + (", ..." if len(lines) > 5 else "")
    warnings.warn(
        f"{source}: {len(lines)} simulation(s) ended in infrastructure_error but carry "
        f"reward_info.reward (record(s) {shown}): read with a null reward and counted as "
        "infrastructure errors, as tau2-bench leaves them out of its metrics; the recorded "
        "reward is kept in extra['recorded_reward']",
        InfrastructureRewardWarning, stacklevel=4)


def iter_tau2_blocks(
    path: str | Path, *, allow_nan: bool, sink: ProblemSink,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
) -> Iterator[RecordBlock]:
    """Read a tau2-bench run (either layout) as record blocks.

    Raises (through ``sink``) a problem for a missing or unreadable ``results.json``, missing
    ``info`` labels, a ``simulations`` entry that is not a list, and, in the dir layout, a
    simulation file missing from the index or an index entry without its file, a file whose
    ``id`` differs from its name, or an index entry that disagrees with its file.
    """
    meta_path, sims_dir = tau2_paths(path)
    source = str(meta_path)
    if not meta_path.is_file():
        sink.add([LogProblem(source, None, None, "tau2-bench run has no results.json", kind="io")])
        return
    meta = load_document(meta_path, allow_nan, sink)
    if meta is None:
        return
    if isinstance(meta, list):
        yield from _iter_bare_list(meta, source, sink, benchmark, model, protocol)
        return
    if not isinstance(meta, dict):
        sink.add([LogProblem(source, None, None, "not a tau2-bench run: the document is neither "
                             "an object nor an array of simulations", "an object",
                             describe_value(meta), kind="format")])
        return
    if "info" not in meta or not {"simulations", "tasks", "simulation_index"} & meta.keys():
        # A JSON object read with format="tau2" ({"results": [...]} of another tool, say): its
        # missing info labels would be a misleading complaint; say it is not a tau2 run at all.
        # Auto-detection applies the same test (noisefloor.logs.formats.detect).
        keys = ", ".join(map(repr, list(meta)[:5])) + (", ..." if len(meta) > 5 else "")
        sink.add([LogProblem.mentioning(
            source, None, None,
            "not a tau2-bench results.json; name its format with {format} if it is "
            "another one",
            "an object with info and simulations (or tasks and simulation_index)",
            f"an object with keys {keys}" if keys else "an empty object", kind="format")])
        return
    labels = _run_labels(meta, source, sink, benchmark, model, protocol)
    if labels is None:
        return
    bench, mdl, prot, info_seed = labels
    user_llm = _get(meta.get("info"), "user_info", "llm")
    kwargs = {"benchmark": bench, "model": mdl, "protocol": prot, "info_seed": info_seed,
              "user_llm": user_llm, "configuration": run_configuration(meta.get("info"))}
    if sims_dir is None:
        sims = meta.get("simulations")
        if sims is None and "simulation_index" in meta:
            sink.add([LogProblem(source, None, "simulation_index",
                                 f"dir-layout run without its {SIMULATIONS_DIR}/ folder",
                                 f"a {SIMULATIONS_DIR}/ folder beside {meta_path.name}",
                                 "none", kind="io")])
            return
        if not isinstance(sims, list):
            sink.add([LogProblem(source, None, "simulations", "no simulation list",
                                 "an array of simulations", describe_value(sims), kind="format")])
            return
        yield from _iter_simulations(sims, source, kwargs)
        return
    yield from _iter_dir_layout(meta, source, sims_dir, allow_nan, sink, kwargs)


class TrialNumbering:
    """Trial indexes for simulations whose ``trial`` is null (tau2's default).

    Records with an integer trial pass through (:meth:`take` returns True) and mark their
    index as used by their task; records without one are held (small mapped dicts, not the
    simulations) and :meth:`flush` gives each, in file order, the smallest index its task has
    not used, so explicit trials are never collided with.
    """

    def __init__(self) -> None:
        self.used: dict[Any, set[int]] = defaultdict(set)
        self.pending: list[tuple[str, int, dict[str, Any]]] = []

    @staticmethod
    def _key(task_id: Any) -> Any:
        return task_id if isinstance(task_id, (str, int)) else repr(task_id)

    def take(self, source: str, line: int, rec: Any) -> bool:
        """False (and hold ``rec``) when it needs a trial index, else True."""
        if not isinstance(rec, dict) or "task_id" not in rec:
            return True
        trial = rec.get("trial")
        if trial is None:
            self.pending.append((source, line, rec))
            return False
        if type(trial) is int:
            self.used[self._key(rec["task_id"])].add(trial)
        return True

    def flush(self) -> Iterator[RecordBlock]:
        """The held records, numbered, one block per source file."""
        blocks: dict[str, RecordBlock] = {}
        for source, line, rec in self.pending:
            used = self.used[self._key(rec["task_id"])]
            trial = 0
            while trial in used:
                trial += 1
            used.add(trial)
            rec["trial"] = trial
            rec["extra"] = {**(rec.get("extra") or {}), "trial_assigned": True}
            block = blocks.setdefault(source, RecordBlock(source, [], []))
            block.lines.append(line)
            block.records.append(rec)
        self.pending = []
        yield from blocks.values()


def _iter_simulations(sims: list[Any], source: str, kwargs: dict[str, Any]) -> Iterator[RecordBlock]:
    """Blocks of a simulation list held in memory (json layout, bare list)."""
    numbering = TrialNumbering()
    carried: list[int] = []
    for start in range(0, len(sims), 10_000):
        chunk = sims[start:start + 10_000]
        lines, records = [], []
        for line, sim in enumerate(chunk, start + 1):
            rec = map_simulation(sim, **kwargs)
            if numbering.take(source, line, rec):
                lines.append(line)
                records.append(rec)
        carried += _recorded_reward_lines(records, lines)
        if records:
            yield RecordBlock(source, lines, records)
    held = [(line, rec) for _, line, rec in numbering.pending]
    carried += _recorded_reward_lines([r for _, r in held], [line for line, _ in held])
    yield from numbering.flush()
    _warn_recorded_rewards(source, sorted(carried))


def _iter_bare_list(
    sims: list[Any], source: str, sink: ProblemSink,
    benchmark: str | None, model: str | None, protocol: str | None,
) -> Iterator[RecordBlock]:
    """A JSON array of tau2-bench simulations, without the run's ``info``."""
    first = sims[0] if sims else None
    if sims and not (isinstance(first, dict) and set(_SIMULATION_KEYS) <= first.keys()):
        what = (f"an array whose first element has keys "
                f"{', '.join(map(repr, list(first)[:5]))}" if isinstance(first, dict)
                else f"an array whose first element is {describe_value(first)}")
        sink.add([LogProblem(source, None, None,
                             "not a tau2-bench results.json nor an array of its simulations",
                             "an object with info and simulations, or an array of simulations "
                             f"(objects with {', '.join(_SIMULATION_KEYS)})", what,
                             kind="format")])
        return
    missing = [name for name, value in (("benchmark", benchmark), ("model", model))
               if value is None]
    if missing:
        sink.add([LogProblem.mentioning(
            source, None, None,
            "a bare array of tau2-bench simulations has no 'info' to name the "
            f"{' and '.join(missing)}: pass " + " and ".join(f"{{{n}}}" for n in missing),
            kind="format")])
        return
    kwargs = {"benchmark": benchmark, "model": model, "protocol": protocol or "default",
              "info_seed": None, "user_llm": None, "configuration": None}
    yield from _iter_simulations(sims, source, kwargs)


def _iter_dir_layout(
    meta: dict[str, Any], source: str, sims_dir: Path, allow_nan: bool, sink: ProblemSink,
    kwargs: dict[str, Any],
) -> Iterator[RecordBlock]:
    files = {p.stem: p for p in sorted(sims_dir.glob("*.json"))}
    index = meta.get("simulation_index")
    if index is None:
        order = [(stem, None) for stem in files]
    elif not isinstance(index, list):
        sink.add([LogProblem(source, None, "simulation_index", "malformed simulation index",
                             "an array of objects with a string id", describe_value(index),
                             kind="format")])
        return
    elif bad := [(pos, e) for pos, e in enumerate(index, 1)
                 if not (isinstance(e, dict) and isinstance(e.get("id"), str))]:
        # name every bad entry (its 1-based position) and what it holds
        sink.add([LogProblem(source, pos, "simulation_index.id", "malformed simulation index "
                             "entry", "an object with a string id",
                             describe_value(e.get("id") if isinstance(e, dict) else e),
                             kind="format") for pos, e in bad])
        return
    else:
        order = [(e["id"], e) for e in index]
        indexed = [e["id"] for e in index]
        problems = []
        seen: set[str] = set()
        for pos, sim_id in enumerate(indexed, 1):
            if sim_id in seen:
                problems.append(LogProblem(source, pos, "simulation_index.id",
                                           f"simulation {sim_id!r} is indexed twice",
                                           kind="duplicate_row"))
            seen.add(sim_id)
        for pos, sim_id in enumerate(indexed, 1):
            if sim_id not in files:
                problems.append(LogProblem(
                    source, pos, "simulation_index.id",
                    f"indexed simulation has no file {SIMULATIONS_DIR}/{sim_id}.json", kind="io"))
        for stem, file in files.items():
            if stem not in seen:
                problems.append(LogProblem(
                    str(file), None, None,
                    "simulation file is not in results.json's simulation_index", kind="format"))
        sink.add(problems)
        order = [(sim_id, entry) for sim_id, entry in order if sim_id in files]
    carried: list[int] = []
    numbering = TrialNumbering()
    for pos, (sim_id, entry) in enumerate(order, 1):
        file = files[sim_id]
        sim = load_document(file, allow_nan, sink)
        if sim is None:
            continue
        problems = []
        if isinstance(sim, dict):
            if sim.get("id") != sim_id:
                problems.append(LogProblem(str(file), pos, "id", "simulation id differs from "
                                           "its file name", repr(sim_id),
                                           describe_value(sim.get("id"))))
            if entry is not None:
                reward = _get(sim, "reward_info", "reward")
                for name, value in (("task_id", sim.get("task_id")),
                                    ("trial", sim.get("trial")),
                                    ("termination_reason", sim.get("termination_reason")),
                                    ("reward", reward)):
                    if name in entry and entry[name] != value:
                        problems.append(LogProblem(
                            str(file), pos, name, "results.json's simulation_index disagrees "
                            "with the simulation file", describe_value(entry[name]),
                            describe_value(value)))
        if problems:
            sink.add(problems)
            continue
        record = map_simulation(sim, **kwargs)
        carried += _recorded_reward_lines([record], [pos])
        if numbering.take(str(file), pos, record):
            yield RecordBlock(str(file), [pos], [record])
    yield from numbering.flush()
    _warn_recorded_rewards(source, carried)
