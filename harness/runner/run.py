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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.base import SOLO_VIEWS
from harness.runner import journal as jr
from harness.runner.budget import SOLO_BUDGETS, no_budget_outcome, pair_median_caps
from harness.runner.dialogue import RolloutOutcome, run_rollout
from noisefloor.endpoints import Endpoints, ModelEndpoint
from harness.runner.keys import (
    BASELINE, MODE_CHOICES, RolloutSpec, canonical_json, in_shard, settings_id,
)
from harness.runner.variants import load_variants
from noisefloor.stats.validation import MentionError, literal

#: Version of the dialogue protocol (prompts, relaying, marker rule); part of every key.
PROTOCOL_VERSION = 1
STARTERS = ("a", "b", "alternate")


@dataclass(frozen=True)
class RunSettings:
    """What to run (every field that decides the plan or the outcome of a rollout).

    Attributes
    ----------
    tasks : tuple of str
        Registered task names.
    models : tuple of str, default ()
        Models run in solo, split_solo and homogeneous pairs.
    pair_models : tuple of (str, str), default ()
        Mixed pairs; each runs in both slot orders (needs ``"pair"`` in ``modes``). With
        ``"solo"`` in ``modes`` the members' solo rollouts run too (the game needs them).
    modes : tuple of str, default ("solo", "pair")
        Any of ``solo``, ``pair``, ``split_solo``.
    rollouts : int, default 1
        Instances per task: instance seeds ``seed, seed + 1, ..., seed + rollouts - 1``.
    repeats : int, default 1
        Rollouts of each instance and configuration (the record's ``trial``).
    difficulty : int, default 1
    seed : int, default 0
        The run's seed (first instance seed; the record's ``seed``).
    turn_cap : int, default 12
        Most assistant messages per rollout.
    temperature : float or None, default None
        Sent with every agent request when set.
    max_tokens : int or None, default None
        Sent with every agent request when set.
    extractor_model : str or None, default None
    variants : tuple of str, default ("baseline",)
        Prompt variants; each multiplies the plan.
    variants_file : str or None, default None
        TOML file of variants (default: the shipped one).
    starter : {"a", "b", "alternate"}, default "a"
        Who opens a pair's dialogue; ``alternate`` alternates with instance and repeat.
    solo_view : {"canonical", "both"}, default "canonical"
        What the solo control reads (:meth:`harness.base.Task.solo_prompt`): the merged
        instance in one canonical form in every family, or both views in their own
        conventions. Recorded in every record's ``extra.solo_view``.
    solo_budget : {"none", "pair-median"}, default "none"
        Matched spend: ``pair-median`` runs the pairs first, then each solo under the token
        cap :func:`harness.runner.budget.pair_median_caps` (in ``extra.token_cap``).
    """

    tasks: tuple[str, ...]
    models: tuple[str, ...] = ()
    pair_models: tuple[tuple[str, str], ...] = ()
    modes: tuple[str, ...] = ("solo", "pair")
    rollouts: int = 1
    repeats: int = 1
    difficulty: int = 1
    seed: int = 0
    turn_cap: int = 12
    temperature: float | None = None
    max_tokens: int | None = None
    extractor_model: str | None = None
    variants: tuple[str, ...] = (BASELINE,)
    variants_file: str | None = None
    starter: str = "a"
    solo_view: str = "canonical"
    solo_budget: str = "none"

    def __post_init__(self) -> None:
        for name in ("tasks", "models", "modes", "variants"):
            value = getattr(self, name)
            object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(value))
        object.__setattr__(self, "pair_models", tuple(tuple(p) for p in self.pair_models))
        if not self.tasks:
            raise ValueError("tasks: give at least one task")
        if not self.models and not self.pair_models:
            raise ValueError("models: give at least one model (or pair_models)")
        bad = [m for m in self.modes if m not in MODE_CHOICES]
        if bad or not self.modes:
            raise ValueError(f"modes must be among {MODE_CHOICES}, got {list(self.modes)}")
        if self.pair_models and "pair" not in self.modes:
            raise ValueError("pair_models needs 'pair' in modes")
        for pair in self.pair_models:
            if len(pair) != 2 or not all(isinstance(m, str) and m for m in pair):
                raise ValueError(f"pair_models: each pair is two model names, got {pair!r}")
        for name, low in (("rollouts", 1), ("repeats", 1), ("turn_cap", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if self.difficulty not in (0, 1, 2) or isinstance(self.difficulty, bool):
            raise ValueError(f"difficulty must be one of (0, 1, 2), got {self.difficulty!r}")
        if self.solo_view not in SOLO_VIEWS:
            raise ValueError(f"solo_view must be one of {SOLO_VIEWS}, got {self.solo_view!r}")
        if self.solo_budget not in SOLO_BUDGETS:
            raise ValueError(f"solo_budget must be one of {SOLO_BUDGETS}, "
                             f"got {self.solo_budget!r}")
        if self.solo_budget != "none" and not {"solo", "pair"} <= set(self.modes):
            raise ValueError(f"solo_budget {self.solo_budget!r} needs 'solo' and 'pair' in "
                             f"modes, got {list(self.modes)}")
        if self.starter not in STARTERS:
            raise ValueError(f"starter must be one of {STARTERS}, got {self.starter!r}")
        if len(set(self.variants)) != len(self.variants) or not self.variants:
            raise ValueError(f"variants must be distinct names, got {list(self.variants)}")

    @property
    def all_models(self) -> tuple[str, ...]:
        """Every model the plan calls, the extractor included, first use first."""
        names = list(self.models) + [m for p in self.pair_models for m in p]
        if self.extractor_model:
            names.append(self.extractor_model)
        return tuple(dict.fromkeys(names))

    @property
    def pair_members_without_solo(self) -> tuple[str, ...]:
        """Members of the mixed pairs not in ``models``: their solo rollouts (the game's
        ``v({i})``) are planned with the pairs when ``"solo"`` is in ``modes``."""
        return tuple(dict.fromkeys(m for p in self.pair_models for m in p
                                   if m not in self.models))

    def outcome_settings(self) -> dict[str, Any]:
        """The settings (besides the variant's text) that change a rollout's outcome."""
        return {"protocol_version": PROTOCOL_VERSION, "turn_cap": self.turn_cap,
                "temperature": self.temperature, "max_tokens": self.max_tokens,
                "extractor_model": self.extractor_model, "starter": self.starter,
                # only when not the default, so directories run before the option resume
                **({"solo_view": self.solo_view} if self.solo_view != "canonical" else {}),
                **({"solo_budget": self.solo_budget} if self.solo_budget != "none" else {})}

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        out = asdict(self)
        out["pair_models"] = ["+".join(p) for p in self.pair_models]
        return out


def variant_texts(settings: RunSettings) -> dict[str, str]:
    """The addition of each of ``settings.variants``.

    Raises
    ------
    ValueError
        If a variant is not defined in the variants file (the message lists the defined ones).
    """
    defined = load_variants(settings.variants_file)
    missing = [v for v in settings.variants if v not in defined]
    if missing:
        raise ValueError(f"unknown prompt variant(s) {missing}; "
                         f"{settings.variants_file or 'the default variants file'} defines "
                         f"{sorted(defined)}")
    return {v: defined[v] for v in settings.variants}


def _variant_ids(settings: RunSettings, texts: dict[str, str]) -> dict[str, str]:
    base = settings.outcome_settings()
    return {v: settings_id({**base, "variant_text": texts[v]}) for v in settings.variants}


def plan_rollouts(settings: RunSettings, texts: dict[str, str] | None = None
                  ) -> list[RolloutSpec]:
    """Every rollout of the settings, in a fixed order.

    Parameters
    ----------
    settings : RunSettings
    texts : dict, optional
        Variant texts (default :func:`variant_texts`).

    Returns
    -------
    list of RolloutSpec

    Raises
    ------
    KeyError
        If a task is not registered.

    Examples
    --------
    >>> settings = RunSettings(tasks=("csp_sudoku4",), models=("m",), pair_models=(("x", "y"),),
    ...                        modes=("solo", "pair", "split_solo"), rollouts=2)
    >>> plan = plan_rollouts(settings)
    >>> len(plan), sorted({(s.protocol, s.model) for s in plan})
    (16, [('pair', 'm'), ('pair', 'x+y'), ('pair', 'y+x'), ('solo', 'm'), ('solo', 'x'), ('solo', 'y'), ('split_solo_a', 'm'), ('split_solo_b', 'm')])
    """
    from harness.registry import get_task

    texts = variant_texts(settings) if texts is None else texts
    ids = _variant_ids(settings, texts)
    for name in settings.tasks:
        get_task(name)
    plan = []
    for variant in settings.variants:
        for task in settings.tasks:
            for i in range(settings.rollouts):
                instance_seed = settings.seed + i
                for repeat in range(settings.repeats):
                    starter = settings.starter
                    if starter == "alternate":
                        starter = "ab"[(i + repeat) % 2]
                    common: dict[str, Any] = dict(
                        task=task, difficulty=settings.difficulty, instance_seed=instance_seed,
                        repeat=repeat, variant=variant, seed=settings.seed, settings=ids[variant])
                    configs: list[tuple[str, str, str | None, str | None]] = []
                    for model in settings.models:
                        if "solo" in settings.modes:
                            configs.append(("solo", model, None, None))
                        if "pair" in settings.modes:
                            configs.append(("pair", model, model, starter))
                        if "split_solo" in settings.modes:
                            configs.append(("split_solo_a", model, None, None))
                            configs.append(("split_solo_b", model, None, None))
                    if "solo" in settings.modes:  # a mixed pair's game needs v({i})
                        for model in settings.pair_members_without_solo:
                            configs.append(("solo", model, None, None))
                    for a, b in settings.pair_models:
                        for x, y in ((a, b), (b, a)) if a != b else ((a, b),):
                            configs.append(("pair", x, y, starter))
                    for mode, ma, mb, st in configs:
                        plan.append(RolloutSpec(mode=mode, model_a=ma, model_b=mb,
                                                started_by=st, **common))
    keys = [s.key for s in plan]
    if len(set(keys)) != len(keys):
        raise ValueError("the plan names a rollout twice (a model listed twice, or a pair "
                         "given in both orders)")
    return plan


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
class TaxRunResult:
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

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (NaN means as null)."""
        out = asdict(self)
        out["cells"] = [{k: (None if isinstance(v, float) and v != v else v)
                         for k, v in c.items()} for c in self.cells]
        out["cells"] = list(out["cells"])
        out["endpoint_stats"] = list(self.endpoint_stats)
        return out

    def to_frame(self) -> pd.DataFrame:
        """``cells`` as a DataFrame: model, protocol, n, mean_reward, infrastructure_errors,
        turn_caps."""
        return pd.DataFrame(list(self.cells), columns=["model", "protocol", "n", "mean_reward",
                                                       "infrastructure_errors", "turn_caps"])


def _check_meta(directory: Path, settings: RunSettings, ids: dict[str, str],
                allow_changed_settings: bool) -> dict[str, Any]:
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


def _current_records(entries: dict[str, dict[str, Any]], meta: dict[str, Any]) -> list[dict]:
    valid = set(meta["variant_settings"].values())
    return [e["record"] for e in entries.values() if e["settings"] in valid]


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
    if shard is not None and settings.solo_budget != "none":
        raise ValueError("solo_budget cannot be sharded: a solo's cap needs every pair rollout")
    started = time.monotonic()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    texts = variant_texts(settings)
    ids = _variant_ids(settings, texts)
    specs_by_name = {m.name: m for m in endpoints}
    missing_models = [m for m in settings.all_models if m not in specs_by_name]
    if missing_models:
        raise ValueError(f"no endpoint for model(s) {missing_models}; give a base URL or a "
                         "[[models]] entry for each")
    with jr.no_gc():
        plan = [s for s in plan_rollouts(settings, texts) if in_shard(s.key, shard)]
    with jr.locked(out):
        meta = _check_meta(out, settings, ids, allow_changed_settings)
        jr.write_meta(out, meta)
        state = jr.read_journal(out / jr.JOURNAL, repair=True)
        entries = dict(state.entries)
        valid = set(meta["variant_settings"].values())

        def finished(spec: RolloutSpec) -> bool:
            entry = entries.get(spec.key)
            if entry is None or entry["settings"] not in valid:
                return False
            return not (retry_errors and entry["record"]["infrastructure_error"])

        todo = [s for s in plan if not finished(s)]
        used = [specs_by_name[m] for m in settings.all_models]
        stats: list[dict[str, Any]] = []
        totals: dict[str, Any] = {"done": 0, "in": 0, "out": 0, "cost": 0.0, "errors": 0}
        capped = settings.solo_budget != "none"
        # matched spend: the pairs run first, then the solos under their pair-median cap
        phases = ([[s for s in todo if s.mode != "solo"], [s for s in todo if s.mode == "solo"]]
                  if capped else [todo])
        for phase in phases:
            if not phase:
                continue
            caps = (pair_median_caps(phase, _current_records(entries, meta))
                    if capped and phase[0].mode == "solo" else None)
            new, more = asyncio.run(_execute(
                phase, used, out, settings, texts, timeout=timeout, max_retries=max_retries,
                backoff_base=backoff_base, on_progress=on_progress, caps=caps,
                totals=totals, total=len(todo)))
            entries.update(new)
            stats += more
        stamp = jr.trials_stamp(out, valid)
        trials = out / jr.TRIALS
        if not jr.trials_current(out, stamp):  # a resume with nothing new keeps the file
            trials = jr.write_trials(out, _current_records(entries, meta))
            jr.mark_trials(out, stamp)
    by_key = {e["key"]: e["record"] for e in entries.values() if e["settings"] in valid}
    plan_records = [by_key[s.key] for s in plan if s.key in by_key]
    with jr.no_gc():
        return _summary(out, trials, plan, plan_records, skipped=len(plan) - len(todo),
                    ran=len(todo), elapsed=time.monotonic() - started, shard=shard,
                    stats=stats)


def _summary(out: Path, trials: Path, plan: list[RolloutSpec], records: list[dict],
             *, skipped: int, ran: int, elapsed: float, shard: tuple[int, int] | None,
             stats: list[dict[str, Any]]) -> TaxRunResult:
    costs = [r["extra"]["cost_usd"] for r in records]
    cells: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        cells.setdefault((r["model"], r["protocol"]), []).append(r)
    rows = []
    for (model, protocol), rs in sorted(cells.items()):
        rewards = [r["reward"] for r in rs if r["reward"] is not None]
        rows.append({"model": model, "protocol": protocol, "n": len(rs),
                     "mean_reward": sum(rewards) / len(rewards) if rewards else float("nan"),
                     "infrastructure_errors": sum(r["infrastructure_error"] for r in rs),
                     "turn_caps": sum(r["termination_reason"] == "turn_cap" for r in rs)})
    return TaxRunResult(
        out_dir=str(out), trials_path=str(trials), planned=len(plan), skipped=skipped, ran=ran,
        scored=sum(r["reward"] is not None for r in records),
        infrastructure_errors=sum(r["infrastructure_error"] for r in records),
        turn_caps=sum(r["termination_reason"] == "turn_cap" for r in records),
        token_caps=sum(r["termination_reason"] == "token_cap" for r in records),
        missing=len(plan) - len(records),
        tokens_in=sum(r["extra"]["tokens_in"] or 0 for r in records),
        tokens_out=sum(r["extra"]["tokens_out"] or 0 for r in records),
        cost_usd=None if any(c is None for c in costs) else sum(costs),
        elapsed_s=round(elapsed, 3), shard=None if shard is None else f"{shard[0]}/{shard[1]}",
        cells=tuple(rows), endpoint_stats=tuple(stats))


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
