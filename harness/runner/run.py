"""``run_tax``: run the collaboration-tax suite into a run directory, resumably.

The plan is every (prompt variant, task, instance, repeat, configuration) of the settings;
a configuration is a mode (solo, pair, split_solo as its two views) and its models (one
model, or a mixed pair ``A+B`` in both slot orders). Rollouts whose key already has an entry
in the directory's journal are skipped (infrastructure errors run again only with
``retry_errors``); the rest run concurrently, bounded by the endpoints' limits, and each is
journalled as soon as it ends. See :mod:`harness.runner.journal` for the directory layout.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import harness.runner.journal as jr
from harness.runner.budget import no_budget_outcome, pair_median_caps
from harness.runner.dialogue import RolloutOutcome, run_rollout
from harness.runner.keys import (
    RolloutSpec,
    canonical_json,
    in_shard,
)
from harness.runner.settings import (  # noqa: F401 - RunSettings and plan_rollouts are this module's API too
    MAX_PLANNED_ROLLOUTS,
    PROTOCOL_VERSION,
    STARTERS,
    RunSettings,
    plan_rollouts,
    variant_ids,
    variant_texts,
)
from noisefloor.endpoints import Endpoints, ModelEndpoint
from noisefloor.results import FrozenResult
from noisefloor.stats.validation import MentionError, literal

if TYPE_CHECKING:
    import pandas as pd


def build_record(spec: RolloutSpec, outcome: RolloutOutcome, transcript: str,
                 first_request: dict[str, Any] | None, solo_view: str = "canonical",
                 token_cap: int | None = None) -> dict[str, Any]:
    """The noisefloor trial record of one rollout (validated against the schema)."""
    from harness.registry import get_task
    from noisefloor.logs.schema import SCHEMA_VERSION, TrialRecord

    task = get_task(spec.task)
    first_sha = (hashlib.sha256(canonical_json(first_request).encode()).hexdigest()
                 if first_request is not None else None)
    record = {
        "schema_version": SCHEMA_VERSION, "benchmark": f"tax/{spec.task}", "model": spec.model,
        "protocol": spec.protocol, "seed": spec.seed, "task_id": spec.task_id,
        "trial": spec.repeat, "reward": outcome.reward,
        "termination_reason": outcome.termination_reason,
        "infrastructure_error": outcome.infrastructure_error,
        "first_request_sha256": first_sha,
        "extra": {
            "task": spec.task, "family": task.family, "difficulty": spec.difficulty,
            "instance_seed": spec.instance_seed, "mode": spec.mode, "model_a": spec.model_a,
            "model_b": spec.model_b, "started_by": spec.started_by,
            "prompt_variant": spec.variant, "turns": outcome.turns,
            "tokens_in": outcome.tokens_in, "tokens_out": outcome.tokens_out,
            "cost_usd": outcome.cost_usd, "latency_s": outcome.latency_s,
            "retries": outcome.retries, "extraction": outcome.extraction,
            "answer": outcome.answer, "rollout_key": spec.key, "transcript": transcript,
            "error": outcome.error, "solo_view": solo_view, "token_cap": token_cap,
        },
    }
    return TrialRecord.model_validate(record).model_dump(mode="json")


def _first_request(outcome: RolloutOutcome) -> dict[str, Any] | None:
    events = outcome.events
    first = next((i for i, e in enumerate(events) if e["role"] == "assistant"), None)
    if first is None:
        return None
    agent = events[first]["agent"]
    messages = [{"role": e["role"], "content": e["content"]} for e in events[:first]
                if e["agent"] == agent]
    return {"model": events[first]["model"], "messages": messages,
            **events[first].get("params", {})}


@dataclass(frozen=True)
class Progress:
    """Progress of a run, passed to the ``on_progress`` callback after each rollout.

    Attributes
    ----------
    done, total : int
        Rollouts finished in this invocation / to run in it.
    tokens_in, tokens_out : int
        Summed over this invocation's rollouts (unknown usage counted as 0 here).
    cost_usd : float
        Summed over the rollouts with a known cost.
    errors : int
        Infrastructure errors so far.
    """

    done: int
    total: int
    tokens_in: int
    tokens_out: int
    cost_usd: float
    errors: int


class SettingsMismatchError(MentionError):
    """The run directory was made with other outcome-changing settings (a :class:`ValueError`;
    the message mentions ``allow_changed_settings``, spelled as the option on the command line)."""


@dataclass(frozen=True)
class TaxRunResult(FrozenResult):
    """Summary of a ``run_tax`` call.

    Attributes
    ----------
    out_dir : str
    trials_path : str
        ``DIR/trials.jsonl`` (every current record of the directory).
    planned : int
        Rollouts of the plan (of this shard).
    skipped : int
        Of those, already finished in the journal and not run again.
    ran : int
        Rollouts run by this call.
    scored : int
        Plan rollouts with a reward (turn caps included).
    infrastructure_errors : int
        Plan rollouts whose latest entry is an infrastructure error.
    turn_caps : int
        Plan rollouts that reached the turn cap.
    token_caps : int
        Plan rollouts (solo, under ``solo_budget``) that stopped at their token cap.
    missing : int
        Plan rollouts with no entry (the run was interrupted).
    tokens_in, tokens_out : int
        Summed over the plan's records with known usage.
    cost_usd : float or None
        Summed over the plan's records; None when any record's cost is unknown.
    elapsed_s : float
    shard : str or None
        ``"i/n"`` or None.
    cells : tuple of dict
        Per (model, protocol): ``n``, ``mean_reward`` (NaN when no rollout has a reward),
        ``infrastructure_errors``, ``turn_caps``.
    endpoint_stats : tuple of dict
        Per base URL: requests, final concurrency limit, failures by kind.
    error_causes : tuple of dict
        The plan's infrastructure errors by cause: ``termination_reason``, ``n`` and
        ``example`` (the ``extra.error`` text of one of them), most frequent first.
    """

    out_dir: str
    trials_path: str
    planned: int
    skipped: int
    ran: int
    scored: int
    infrastructure_errors: int
    turn_caps: int
    token_caps: int
    missing: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    elapsed_s: float
    shard: str | None
    cells: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    endpoint_stats: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    error_causes: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def all_failed(self) -> bool:
        """Whether every rollout of the plan that has a record is an infrastructure error."""
        return self.infrastructure_errors > 0 and self.scored == 0

    # hand-written: a cell's NaN mean is None, so the cells of two runs compare equal
    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (NaN means as null)."""
        out = super().to_dict()
        out["cells"] = [{k: (None if isinstance(v, float) and v != v else v)
                         for k, v in c.items()} for c in out["cells"]]
        return out

    # hand-written: fixed columns, so a run without cells still has them
    def to_frame(self) -> pd.DataFrame:
        """``cells`` as a DataFrame: model, protocol, n, mean_reward, infrastructure_errors,
        turn_caps."""
        import pandas as pd  # not imported for a run: only this view needs it

        return pd.DataFrame(list(self.cells), columns=["model", "protocol", "n", "mean_reward",
                                                       "infrastructure_errors", "turn_caps"])


def check_meta(directory: Path, settings: RunSettings, ids: dict[str, str],
               allow_changed_settings: bool) -> dict[str, Any]:
    """The ``run.json`` to write for a run into ``directory``, checked against the one there.

    Parameters
    ----------
    directory : Path
        The run directory (its ``run.json`` may be missing: a new run).
    settings : RunSettings
    ids : dict
        Variant name -> settings id (:func:`~harness.runner.settings.variant_ids`).
    allow_changed_settings : bool
        Start over in a directory run with other outcome settings or variant texts, instead of
        refusing.

    Returns
    -------
    dict
        ``format``, ``outcome_settings`` and ``variant_settings`` (the ids of every variant the
        directory has run, the earlier ones kept unless the outcome settings changed).

    Raises
    ------
    SettingsMismatchError
        If the directory was run with other settings and ``allow_changed_settings`` is False.
    """
    meta = jr.read_meta(directory)
    current = settings.outcome_settings()
    if meta is None:
        return {"format": 1, "outcome_settings": current, "variant_settings": dict(ids)}
    old = meta.get("outcome_settings", {})
    diffs = [f"{k}: {old.get(k)!r} -> {current.get(k)!r}"
             for k in sorted(set(old) | set(current)) if old.get(k) != current.get(k)]
    changed_variants = [v for v in ids if v in meta.get("variant_settings", {})
                        and meta["variant_settings"][v] != ids[v]]
    if diffs or changed_variants:
        if not allow_changed_settings:
            what = diffs + [f"text of prompt variant {v!r}" for v in changed_variants
                            if not diffs]
            raise SettingsMismatchError(
                literal(f"{directory} was run with other settings ({'; '.join(what)}); ")
                + "use another directory, or pass {allow_changed_settings=True} "
                "to start over in it (earlier entries stay in the journal but leave "
                "trials.jsonl)")
        variants = dict(ids) if diffs else {**meta.get("variant_settings", {}), **ids}
        return {"format": 1, "outcome_settings": current, "variant_settings": variants}
    return {"format": 1, "outcome_settings": current,
            "variant_settings": {**meta.get("variant_settings", {}), **ids}}


def run_tax(settings: RunSettings, endpoints: Sequence[ModelEndpoint], out_dir: str | Path, *,
            timeout: float = 60.0, max_retries: int = 3, backoff_base: float = 0.5,
            shard: tuple[int, int] | None = None, retry_errors: bool = False,
            allow_changed_settings: bool = False,
            on_progress: Callable[[Progress], None] | None = None) -> TaxRunResult:
    """Run (or resume) the collaboration-tax suite into ``out_dir``.

    Parameters
    ----------
    settings : RunSettings
        What to run.
    endpoints : sequence of ModelEndpoint
        Where every model of ``settings.all_models`` is served.
    out_dir : str or Path
        Run directory; created if missing. An existing one is resumed.
    timeout : float, default 60.0
        Seconds per HTTP request.
    max_retries : int, default 3
        Retries per request before the rollout is an infrastructure error.
    backoff_base : float, default 0.5
        Seconds before the first retry (doubling).
    shard : (int, int), optional
        ``(i, n)``: run only the keys of shard i of n (:func:`harness.runner.keys.in_shard`).
    retry_errors : bool, default False
        Run rollouts whose latest entry is an infrastructure error again.
    allow_changed_settings : bool, default False
        Accept a directory made with other outcome-changing settings.
    on_progress : callable, optional
        Called with a :class:`Progress` after every rollout (the CLI draws its bar with it).

    Returns
    -------
    TaxRunResult

    Raises
    ------
    ValueError
        A model without an endpoint, an unknown prompt variant, a shard with ``solo_budget``.
    SettingsMismatchError
        The directory was made with other settings.
    RuntimeError
        Another process is using the directory.
    noisefloor.endpoints.EndpointFatalError
        An endpoint answered 401, 403 or 404 (finished rollouts stay journalled).

    Examples
    --------
    >>> import tempfile
    >>> from harness.runner.scripted import ScriptedServer, answer_book
    >>> settings = RunSettings(tasks=("csp_sudoku4",), models=("solver",), rollouts=2,
    ...                        difficulty=0)
    >>> with ScriptedServer(book=answer_book(["csp_sudoku4"], [0, 1], 0)) as server:
    ...     spec = ModelEndpoint("solver", (server.base_url,), price_input_per_mtok=1.0,
    ...                          price_output_per_mtok=1.0)
    ...     result = run_tax(settings, [spec], tempfile.mkdtemp())
    >>> result.planned, result.ran, result.scored, result.infrastructure_errors
    (4, 4, 4, 0)
    >>> result.to_frame()[["model", "protocol", "n", "mean_reward"]]
        model protocol  n  mean_reward
    0  solver     pair  2          1.0
    1  solver     solo  2          1.0
    """
    # the plan and the journal are millions of acyclic objects: the cyclic collector would
    # walk them all again and again (seconds per 10^5 rollouts) while they are alive; it runs
    # while rollouts run (they make cycles), and they are freed before it is on again
    with jr.no_gc():
        return _run_tax(settings, endpoints, out_dir, timeout=timeout, max_retries=max_retries,
                        backoff_base=backoff_base, shard=shard, retry_errors=retry_errors,
                        allow_changed_settings=allow_changed_settings,
                        on_progress=on_progress)


def _run_tax(settings: RunSettings, endpoints: Sequence[ModelEndpoint], out_dir: str | Path,
             *, timeout: float, max_retries: int, backoff_base: float,
             shard: tuple[int, int] | None, retry_errors: bool, allow_changed_settings: bool,
             on_progress: Callable[[Progress], None] | None) -> TaxRunResult:
    if shard is not None and settings.solo_budget != "none":
        raise ValueError("solo_budget cannot be sharded: a solo's cap needs every pair rollout")
    started = time.monotonic()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    texts = variant_texts(settings)
    ids = variant_ids(settings, texts)
    specs_by_name = {m.name: m for m in endpoints}
    missing_models = [m for m in settings.all_models if m not in specs_by_name]
    if missing_models:
        raise ValueError(f"no endpoint for model(s) {missing_models}; give a base URL or a "
                         "[[models]] entry for each")
    plan = plan_rollouts(settings, texts)
    if shard is not None:
        plan = [s for s in plan if in_shard(s.key, shard)]
    journal = out / jr.JOURNAL
    with jr.locked(out):
        meta = check_meta(out, settings, ids, allow_changed_settings)
        if meta != jr.read_meta(out):
            jr.write_meta(out, meta)
        valid = set(meta["variant_settings"].values())
        # what a resume needs of each finished rollout is in the journal's index while the
        # journal is unchanged since it was made; the journal itself is read only when not,
        # or when full records are needed (trials.jsonl behind, rollouts to run)
        index = jr.read_index(journal, SUMMARY_FIELDS)
        index_kept = index is not None
        state = None if index_kept else jr.read_journal(journal, repair=True)
        if index is None:
            assert state is not None
            index = jr.index_entries(state.entries, SUMMARY_FIELDS)

        stamp = jr.trials_stamp(out, valid)
        if index.keys and not jr.trials_current(out, stamp):
            # an earlier run was interrupted: the records catch up with the journal before
            # anything new runs (so a kill during this run leaves no older file either)
            state = state or jr.read_journal(journal, repair=True)
            jr.write_trials(out, jr.current_records(state.entries, meta))
            jr.mark_trials(out, stamp)
        # a rollout is finished when its latest entry was made with a current settings id
        # (and, with retry_errors, is not an infrastructure error)
        at = _rows_of(plan, index)
        errors = index.columns["infrastructure_error"]
        finished = [sid in valid and not (retry_errors and error)
                    for sid, error in zip(index.settings, errors)]
        todo = [s for s, i in zip(plan, at) if i is None or not finished[i]]
        del finished
        stats: list[dict[str, Any]] = []
        entries = None
        if todo:
            state = state or jr.read_journal(journal, repair=True)
            entries = dict(state.entries)
            stats = _run_todo(todo, entries, meta, settings, texts, out,
                              [specs_by_name[m] for m in settings.all_models],
                              timeout=timeout, max_retries=max_retries,
                              backoff_base=backoff_base, on_progress=on_progress)
            index, index_kept = jr.index_entries(entries, SUMMARY_FIELDS), False
            at = _rows_of(plan, index)
        stamp = jr.trials_stamp(out, valid)
        if not jr.trials_current(out, stamp):  # a resume with nothing new keeps the file
            if entries is None:
                state = state or jr.read_journal(journal, repair=True)
                entries = state.entries
            jr.write_trials(out, jr.current_records(entries, meta))
            jr.mark_trials(out, stamp)
        del state, entries
        if not index_kept:
            jr.write_index(journal, index)
    return _summary(out, out / jr.TRIALS, plan, _plan_records(at, index, valid),
                    skipped=len(plan) - len(todo), ran=len(todo),
                    elapsed=time.monotonic() - started, shard=shard, stats=stats)


#: The record fields a resume reads (from the journal's index): the current keys and the
#: summary of :class:`TaxRunResult`, in the order :func:`_summary` takes them.
SUMMARY_FIELDS = ("model", "protocol", "reward", "termination_reason", "infrastructure_error",
                  "extra.error", "extra.tokens_in", "extra.tokens_out", "extra.cost_usd")


def _run_todo(todo: list[RolloutSpec], entries: dict[str, dict[str, Any]],
              meta: dict[str, Any], settings: RunSettings, texts: dict[str, str], out: Path,
              used: list[ModelEndpoint], *, timeout: float, max_retries: int,
              backoff_base: float, on_progress: Callable[[Progress], None] | None
              ) -> list[dict[str, Any]]:
    """Run ``todo``, adding each new entry to ``entries``; returns the endpoint statistics."""
    stats: list[dict[str, Any]] = []
    totals: dict[str, Any] = {"done": 0, "in": 0, "out": 0, "cost": 0.0, "errors": 0}
    capped = settings.solo_budget != "none"
    # matched spend: the pairs run first, then the solos under their pair-median cap
    phases = ([[s for s in todo if s.mode != "solo"], [s for s in todo if s.mode == "solo"]]
              if capped else [todo])
    for phase in phases:
        if not phase:
            continue
        caps = (pair_median_caps(phase, jr.current_records(entries, meta))
                if capped and phase[0].mode == "solo" else None)
        with jr.gc_running():
            new, more = asyncio.run(_execute(
                phase, used, out, settings, texts, timeout=timeout,
                max_retries=max_retries, backoff_base=backoff_base,
                on_progress=on_progress, caps=caps, totals=totals, total=len(todo)))
        entries.update(new)
        stats += more
    return stats


def _rows_of(plan: list[RolloutSpec], index: jr.JournalIndex) -> list[int | None]:
    """The row of ``index`` of each rollout of the plan (None: not journalled)."""
    position = {key: i for i, key in enumerate(index.keys)}
    return list(map(position.get, [s.key for s in plan]))


def _plan_records(at: list[int | None], index: jr.JournalIndex, valid: set[str]
                  ) -> list[tuple[Any, ...]]:
    """The :data:`SUMMARY_FIELDS` of the plan's rollouts with a current entry (their rows of
    the index, ``at``), in plan order."""
    settings = index.settings
    picked = [i for i in at if i is not None and settings[i] in valid]
    columns = [index.columns[name] for name in SUMMARY_FIELDS]
    return list(zip(*[[column[i] for i in picked] for column in columns]))


def _summary(out: Path, trials: Path, plan: list[RolloutSpec], records: list[tuple[Any, ...]],
             *, skipped: int, ran: int, elapsed: float, shard: tuple[int, int] | None,
             stats: list[dict[str, Any]]) -> TaxRunResult:
    """The result of a run; ``records`` are the plan's current records as tuples of
    :data:`SUMMARY_FIELDS`."""
    cells: dict[tuple[str, str], list[Any]] = {}  # n, rewards, reward sum, errors, caps
    causes: dict[str, list[Any]] = {}
    scored = errors = turn_caps = token_caps = tokens_in = tokens_out = 0
    cost: float | None = 0  # an int 0 when there is no record, as sum([]) gave
    for model, protocol, reward, reason, error, text, n_in, n_out, c in records:
        cell = cells.get((model, protocol))
        if cell is None:
            cell = cells[(model, protocol)] = [0, 0, 0.0, 0, 0]
        cell[0] += 1
        if reward is not None:
            cell[1] += 1
            cell[2] += reward
            scored += 1
        if error:
            cell[3] += 1
            errors += 1
            cause = causes.setdefault(reason, [0, text])
            cause[0] += 1
        if reason == "turn_cap":
            cell[4] += 1
            turn_caps += 1
        elif reason == "token_cap":
            token_caps += 1
        tokens_in += n_in or 0
        tokens_out += n_out or 0
        cost = None if cost is None or c is None else cost + c
    rows = [{"model": model, "protocol": protocol, "n": n,
             "mean_reward": total / rewarded if rewarded else float("nan"),
             "infrastructure_errors": n_errors, "turn_caps": n_caps}
            for (model, protocol), (n, rewarded, total, n_errors, n_caps) in sorted(cells.items())]
    error_causes = tuple({"termination_reason": reason, "n": n, "example": example}
                         for reason, (n, example) in sorted(causes.items(),
                                                            key=lambda kv: (-kv[1][0], kv[0])))
    return TaxRunResult(
        out_dir=str(out), trials_path=str(trials), planned=len(plan), skipped=skipped, ran=ran,
        scored=scored, infrastructure_errors=errors, turn_caps=turn_caps,
        token_caps=token_caps, missing=len(plan) - len(records), tokens_in=tokens_in,
        tokens_out=tokens_out, cost_usd=cost,
        elapsed_s=round(elapsed, 3), shard=None if shard is None else f"{shard[0]}/{shard[1]}",
        cells=tuple(rows), endpoint_stats=tuple(stats), error_causes=error_causes)


async def _execute(todo: list[RolloutSpec], models: list[ModelEndpoint], out: Path,
                   settings: RunSettings, texts: dict[str, str], *, timeout: float,
                   max_retries: int, backoff_base: float,
                   on_progress: Callable[[Progress], None] | None,
                   caps: dict[str, int | None] | None = None,
                   totals: dict[str, Any] | None = None, total: int | None = None
                   ) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    params: dict[str, Any] = {}
    if settings.temperature is not None:
        params["temperature"] = settings.temperature
    if settings.max_tokens is not None:
        params["max_tokens"] = settings.max_tokens
    capacity = sum(m.concurrency * len(m.base_urls) for m in models)
    queue: asyncio.Queue[RolloutSpec] = asyncio.Queue()
    for spec in todo:
        queue.put_nowait(spec)
    new: dict[str, dict[str, Any]] = {}
    total = len(todo) if total is None else total
    if totals is None:  # progress over every phase of a run
        totals = {"done": 0, "in": 0, "out": 0, "cost": 0.0, "errors": 0}
    writer = jr.JournalWriter(out / jr.JOURNAL)

    async def worker(endpoints: Endpoints) -> None:
        while True:
            try:
                spec = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            cap = None if caps is None else caps[spec.key]
            if caps is not None and cap is None:
                outcome = no_budget_outcome(spec)
            else:
                outcome = await run_rollout(
                    spec, endpoints.complete, turn_cap=settings.turn_cap, params=params,
                    variant_text=texts[spec.variant], extractor_model=settings.extractor_model,
                    solo_view=settings.solo_view, token_cap=cap)
            rel = await asyncio.to_thread(jr.write_transcript, out, spec.key, outcome.events)
            record = build_record(spec, outcome, rel, _first_request(outcome),
                                  settings.solo_view, cap)
            entry = {"key": spec.key, "settings": spec.settings, "record": record}
            await asyncio.to_thread(writer.append, entry)
            new[spec.key] = entry
            totals["done"] += 1
            totals["in"] += outcome.tokens_in or 0
            totals["out"] += outcome.tokens_out or 0
            totals["cost"] += outcome.cost_usd or 0.0
            totals["errors"] += outcome.infrastructure_error
            if on_progress is not None:
                on_progress(Progress(totals["done"], total, totals["in"], totals["out"],
                                     totals["cost"], totals["errors"]))

    try:
        async with Endpoints(models, timeout=timeout, max_retries=max_retries,
                             backoff_base=backoff_base) as endpoints:
            tasks = [asyncio.create_task(worker(endpoints))
                     for _ in range(max(1, min(capacity, len(todo))))]
            try:
                await asyncio.gather(*tasks)
            except BaseException:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
            return new, endpoints.stats()
    finally:
        writer.close()
