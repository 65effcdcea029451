"""Synthetic collaboration-tax runs with a planted tax per family: records and transcripts.

Writes exactly what ``noisefloor tax run`` writes (``DIR/trials.jsonl`` of noisefloor trial
records and JSONL transcripts under ``DIR/transcripts/``), from a stated truth: each model has
a solo success probability per task and each family a planted tax, so an analysis can be
checked against the numbers it should recover. Used by the tests and by
``benchmarks/tax_report.py``; the transcripts are template dialogues whose shape (questions,
partner facts, re-derivation) follows the planted coordination quality, so the conversation
features carry signal about the tax.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from noisefloor.tax.markers import FINAL_MARKER, OTHER_AGENT_PREFIX

__all__ = ["DEFAULT_FAMILY_TAX", "SyntheticTruth", "write_synthetic_run"]

#: Planted tax per family for a model of capability 1 (weaker models pay more, see Notes).
DEFAULT_FAMILY_TAX: dict[str, float] = {"spatial": 0.30, "relational": 0.18, "csp": 0.10}
STAGES = ("L1", "L2", "L3", "L4")


@dataclass(frozen=True)
class SyntheticTruth:
    """The truth a synthetic run was drawn from.

    Attributes
    ----------
    solo : dict
        ``{(model, task): p}``: solo success probability of each cell.
    pair : dict
        ``{(model, task): p}``: pair success probability (homogeneous, baseline prompt).
    family_of : dict
        ``{task: family}``.
    variants : dict
        ``{variant: {(model, task): p}}``: pair success under each prompt variant.
    mixed : dict
        ``{(model_a, model_b, task): p}``: mixed-pair success probability.
    """

    solo: dict = field(default_factory=dict)
    pair: dict = field(default_factory=dict)
    family_of: dict = field(default_factory=dict)
    variants: dict = field(default_factory=dict)
    mixed: dict = field(default_factory=dict)

    def cell_tax(self, model: str, task: str) -> float:
        """Expected tax ``p_solo - p_pair`` of a homogeneous cell."""
        return self.solo[(model, task)] - self.pair[(model, task)]

    def family_tax(self, model: str, family: str) -> float:
        """Expected family tax: the mean over the family's tasks (tasks weighted equally)."""
        ts = [t for t, f in self.family_of.items() if f == family]
        return float(np.mean([self.cell_tax(model, t) for t in ts]))

    def recovered_share(self, variant: str, family: str, models: Sequence[str]) -> float:
        """Expected recovered share of a variant in a family, pooled over models and tasks."""
        ts = [t for t, f in self.family_of.items() if f == family]
        keys = [(m, t) for m in models for t in ts]
        s = np.mean([self.solo[k] for k in keys])
        b = np.mean([self.pair[k] for k in keys])
        v = np.mean([self.variants[variant][k] for k in keys])
        return float((v - b) / (s - b))


def _pick(rng: np.random.Generator, items: list[str]) -> str:
    """``rng.choice(items)`` drawn the same way (one bounded int64 from the same stream) at a
    sixth of its cost: choice converts the list to an array on every call."""
    return items[int(rng.integers(0, len(items), dtype=np.int64))]


class _Talk:
    """Template dialogue whose shape follows a coordination quality q in [0, 1]."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def pair(self, q: float, success: bool, started_by: str, turn_cap: int) -> list[tuple]:
        """(agent, role, content) events of one paired dialogue."""
        rng = self.rng
        good = min(1.0, q + (0.25 if success else -0.25))
        facts = {a: [f"{a.upper()}{int(x)}" for x in rng.integers(10, 99, size=4)]
                 for a in ("a", "b")}
        ev = [(a, "system", f"You hold one half of the problem. Your facts: "
               f"{', '.join(facts[a])}. Messages from your partner arrive prefixed with "
               f"'{OTHER_AGENT_PREFIX}'.") for a in ("a", "b")]
        n = int(rng.integers(3, turn_cap + 1))
        finishes = success or rng.random() < 0.7
        heard: dict[str, list[str]] = {"a": [], "b": []}
        speaker = started_by
        proposer = None
        for turn in range(n):
            other = "b" if speaker == "a" else "a"
            parts = [f"I hold {_pick(rng, facts[speaker])} and {_pick(rng, facts[speaker])}."]
            if heard[speaker] and rng.random() < good:
                parts.append(f"You said {_pick(rng, heard[speaker])}, which fits my view.")
            if rng.random() < 0.2 + 0.7 * good:
                parts.append(f"What do you hold about {_pick(rng, facts[speaker])}?")
            last = turn == n - 1
            if not last and turn >= n - 3 and proposer is None:
                parts.append("I propose we commit to the answer built from both views.")
                proposer = speaker
            elif proposer is not None and speaker != proposer and rng.random() < good:
                parts.append("Let me verify that proposal against my own facts first.")
            if last and finishes:
                parts.append(f"{FINAL_MARKER} answer-{int(rng.integers(0, 9))}")
            content = " ".join(parts)
            ev.append((speaker, "assistant", content))
            ev.append((other, "user", f"{OTHER_AGENT_PREFIX} {content}"))
            heard[other].extend(facts[speaker][:2])
            speaker = other
        return ev

    def solo(self, success: bool) -> list[tuple]:
        rng = self.rng
        facts = [f"F{int(x)}" for x in rng.integers(10, 99, size=6)]
        return [("solo", "system", f"You hold the whole problem: {', '.join(facts)}."),
                ("solo", "user", "Solve it."),
                ("solo", "assistant", f"Combining {facts[0]} and {facts[1]}. "
                 f"{FINAL_MARKER} answer-{int(rng.integers(0, 9))}")]


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def write_synthetic_run(
    out: str | Path,
    *,
    models: Mapping[str, float] | None = None,
    tasks: Sequence[tuple[str, str]],
    n_instances: int = 10,
    rollouts_per_instance: int = 1,
    family_tax: Mapping[str, float] | None = None,
    modes: Sequence[str] = ("solo", "pair", "split_solo_a"),
    variants: Mapping[str, Mapping[str, float]] | None = None,
    variant_models: Sequence[str] | None = None,
    mixed: Sequence[tuple[str, str]] = (),
    transcripts: str = "shard",
    judge_labels: bool = True,
    seed: int = 0,
    run_seed: int = 7,
    turn_cap: int = 8,
) -> SyntheticTruth:
    """Write a synthetic tax run to ``out`` and return the truth it was drawn from.

    Parameters
    ----------
    out : str or Path
        Run directory (created); ``trials.jsonl``, ``transcripts/`` and, with
        ``judge_labels``, ``judge_labels.jsonl`` go there.
    models : mapping of str to float, optional
        Model name -> capability in (0, 1]; default three models 0.95, 0.85, 0.7.
    tasks : sequence of (task, family)
        The tasks to simulate (required; the suite's 32 are
        ``[(n, harness.manifest.family_of(n)) for n in harness.manifest.TASK_NAMES]``: the
        analysis does not import the task suite).
    n_instances : int, default 10
        Instances per task (instance seeds 0..n-1), shared by all modes and models.
    rollouts_per_instance : int, default 1
        Rollouts of each instance per configuration (``trial`` numbers them per instance).
    family_tax : mapping, default :data:`DEFAULT_FAMILY_TAX`
        Planted tax per family for capability 1.
    modes : sequence of str, default ("solo", "pair", "split_solo_a")
    variants : mapping, optional
        ``{variant: {family: share}}``: pair under ``pair+<variant>`` recovers ``share`` of the
        cell's tax.
    variant_models : sequence of str, optional
        Models run under the variants (default: all).
    mixed : sequence of (model_a, model_b)
        Mixed pairs, each run in this slot order (give both orders to have both).
    transcripts : {"shard", "per_rollout"}, default "shard"
        One transcript file per (model, protocol) filtered by ``rollout_key``, or one per rollout.
    judge_labels : bool, default True
        Also write judge labels L1-L4 of every pair rollout in the long annotation layout.
    seed : int, default 0
        Seed of the simulation.
    run_seed : int, default 7
        The ``seed`` field of the records.
    turn_cap : int, default 8

    Returns
    -------
    SyntheticTruth

    Notes
    -----
    Solo probability of model m (capability c) on task t: ``p_solo = clip(c - 0.1 u_t, 0, 1)``
    with ``u_t`` uniform on [0, 1] per task (drawn once); planted cell tax
    ``family_tax[f] * (2 - c)`` (capability 1 pays exactly ``family_tax[f]``, weaker models
    more); ``p_pair = max(0, p_solo - tax)``. A variant recovering share s of family f has
    ``p = p_pair + s (p_solo - p_pair)``. A mixed pair (a, b) has
    ``p = max(0, 0.3 min + 0.7 max - family_tax[f])`` of the members' solo probabilities (above
    the midpoint, below the stronger member). Rewards are Bernoulli draws (0 or 1); split-solo
    controls succeed with probability ``0.1 p_solo``. Judge labels fire with probability about
    0.65 in failed and 0.12 in successful pair rollouts, weighted per family and stage.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> truth = write_synthetic_run(d, models={"m": 1.0}, tasks=[("csp_sudoku4", "csp")],
    ...                             n_instances=2, family_tax={"csp": 0.25})
    >>> truth.cell_tax("m", "csp_sudoku4")
    0.25
    """
    rng = np.random.default_rng(seed)
    models = dict(models or {"model-hi": 0.95, "model-mid": 0.85, "model-lo": 0.7})
    tasks = list(tasks)
    if not tasks:
        raise ValueError("tasks is empty: give at least one (task, family) pair, e.g. the "
                         "suite's [(n, harness.manifest.family_of(n)) for n in "
                         "harness.manifest.TASK_NAMES]")
    ftax = dict(family_tax or DEFAULT_FAMILY_TAX)
    if transcripts not in ("shard", "per_rollout"):
        raise ValueError(f"transcripts must be 'shard' or 'per_rollout', got {transcripts!r}")
    out = Path(out)
    (out / "transcripts").mkdir(parents=True, exist_ok=True)
    truth = SyntheticTruth(family_of={t: f for t, f in tasks})
    difficulty = {t: float(rng.uniform(0, 1)) for t, _ in tasks}
    for m, c in models.items():
        for t, f in tasks:
            ps = float(np.clip(c - 0.1 * difficulty[t], 0.0, 1.0))
            tax = ftax.get(f, 0.0) * (2.0 - c)
            truth.solo[(m, t)] = ps
            truth.pair[(m, t)] = float(max(0.0, ps - tax))
    for v, shares in (variants or {}).items():
        truth.variants[v] = {k: truth.pair[k] + shares.get(truth.family_of[k[1]], 0.0)
                             * (truth.solo[k] - truth.pair[k]) for k in truth.pair}
    for a, b in mixed:
        for t, f in tasks:
            hi = max(truth.solo[(a, t)], truth.solo[(b, t)])
            lo = min(truth.solo[(a, t)], truth.solo[(b, t)])
            truth.mixed[(a, b, t)] = float(max(0.0, 0.3 * lo + 0.7 * hi - ftax.get(f, 0.0)))

    talk = _Talk(rng)
    shards: dict[str, Any] = {}
    records = open(out / "trials.jsonl", "wb")
    labels = open(out / "judge_labels.jsonl", "wb") if judge_labels else None

    def configs():
        for m in models:
            for mode in modes:
                yield m, m, m, mode, "baseline", None
        for v in truth.variants:
            for m in (variant_models or list(models)):
                yield m, m, m, "pair", v, v
        for a, b in mixed:
            yield f"{a}+{b}", a, b, "pair", "baseline", None

    try:
        for model, ma, mb, mode, variant, vkey in configs():
            protocol = mode if variant == "baseline" else f"{mode}+{variant}"
            shard_rel = f"transcripts/{_slug(model)}__{_slug(protocol)}.jsonl"
            for t, f in tasks:
                if mode == "solo":
                    p = truth.solo[(ma, t)]
                elif mode.startswith("split_solo"):
                    p = 0.1 * truth.solo[(ma, t)]
                elif ma != mb:
                    p = truth.mixed[(ma, mb, t)]
                elif vkey is not None:
                    p = truth.variants[vkey][(ma, t)]
                else:
                    p = truth.pair[(ma, t)]
                q = 1.0 - (truth.solo[(ma, t)] - truth.pair[(ma, t)]) / max(
                    truth.solo[(ma, t)], 1e-9)
                if vkey is not None:
                    q = min(1.0, q + 0.3)
                for inst in range(n_instances):
                    task_id = f"{t}:{inst}"
                    for r in range(rollouts_per_instance):
                        success = bool(rng.random() < p)
                        key = f"{model}|{protocol}|{task_id}|{r}"
                        started = "a" if (inst + r) % 2 == 0 else "b"
                        if mode == "pair":
                            ev = talk.pair(q, success, started, turn_cap)
                        else:
                            ev = talk.solo(success)
                        final = any(FINAL_MARKER in c for _, role, c in ev if role == "assistant")
                        rel = shard_rel if transcripts == "shard" else \
                            f"transcripts/{_slug(key)}.jsonl"
                        fh = shards.get(rel)
                        if fh is None:
                            if transcripts == "per_rollout":
                                fh = open(out / rel, "wb")
                            else:
                                fh = shards[rel] = open(out / rel, "wb")
                        who = {"a": ma, "b": mb, "solo": ma}
                        fh.write(b"".join(orjson.dumps(
                            {"rollout_key": key, "seq": i, "agent": ag, "role": role,
                             "content": c, "model": who[ag]}) + b"\n"
                            for i, (ag, role, c) in enumerate(ev)))
                        if transcripts == "per_rollout":
                            fh.close()
                        n_turns = sum(1 for _, role, _ in ev if role == "assistant")
                        reward = 1.0 if success else 0.0
                        extra = {
                            "task": t, "family": f, "difficulty": 1, "instance_seed": inst,
                            "mode": mode, "model_a": ma, "model_b": mb if mode == "pair" else None,
                            "started_by": started if mode == "pair" else "solo",
                            "prompt_variant": variant, "turns": n_turns,
                            "tokens_in": 40 * n_turns, "tokens_out": 25 * n_turns,
                            "cost_usd": None, "latency_s": round(0.5 * n_turns, 2), "retries": 0,
                            "extraction": "parse", "answer": "answer", "rollout_key": key,
                            "transcript": rel, "error": None,
                        }
                        rec = {"schema_version": "1", "benchmark": f"tax/{t}", "model": model,
                               "protocol": protocol, "seed": run_seed, "task_id": task_id,
                               "trial": r, "reward": reward,
                               "termination_reason": "final_answer" if final else "turn_cap",
                               "infrastructure_error": False, "extra": extra}
                        records.write(orjson.dumps(rec) + b"\n")
                        if labels is not None and mode == "pair":
                            base = 0.65 if not success else 0.12
                            for k, stage in enumerate(STAGES):
                                w = {"spatial": (1.0, 0.8, 1.0, 1.1),
                                     "relational": (1.1, 0.9, 0.9, 0.8),
                                     "csp": (0.9, 1.1, 0.8, 0.9)}.get(f, (1, 1, 1, 1))[k]
                                lab = int(rng.random() < min(1.0, base * w))
                                labels.write(orjson.dumps({"item": key, "rater": "judge",
                                                           "category": stage, "label": lab})
                                             + b"\n")
    finally:
        records.close()
        if labels is not None:
            labels.close()
        for fh in shards.values():
            fh.close()
    return truth
