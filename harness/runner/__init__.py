"""The collaboration-tax runner: drive the harness tasks against OpenAI-compatible endpoints.

:class:`RunSettings` says what to run and :func:`plan_rollouts` lists its rollouts
(:mod:`~harness.runner.settings`, with a TOML file read by :func:`load_config`);
:func:`run_tax` runs or resumes them into a run directory (:mod:`~harness.runner.run`), each
rollout a solo, pair or split_solo dialogue (:func:`run_rollout`,
:mod:`~harness.runner.dialogue`) over the endpoint layer (:mod:`noisefloor.endpoints`), kept in
an append-only journal from which the trial records are rebuilt (:mod:`~harness.runner.journal`);
:func:`merge_runs` joins shards (:mod:`~harness.runner.merge`). :class:`ScriptedServer` and
:class:`HostileServer` are OpenAI-compatible servers to try a run offline and to test the
endpoint layer against malformed replies. The names below load on first use, so ``noisefloor
tax run`` imports only what a run needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.runner.budget import NO_PAIR_BUDGET
    from harness.runner.config import RunConfig, load_config
    from harness.runner.dialogue import RolloutOutcome, input_bound, run_rollout
    from harness.runner.hostile import KINDS, HostileServer
    from harness.runner.journal import rebuild_trials
    from harness.runner.keys import MODES, RolloutSpec, in_shard, parse_shard
    from harness.runner.merge import MergeConflictError, MergeResult, merge_runs
    from harness.runner.run import (
        SUMMARY_FIELDS,
        Progress,
        SettingsMismatchError,
        TaxRunResult,
        check_meta,
        run_tax,
    )
    from harness.runner.scripted import FAILURE_PHRASES, ScriptedServer, TaxPolicy, answer_book
    from harness.runner.settings import RunSettings, plan_rollouts, variant_ids, variant_texts
    from harness.runner.variants import load_variants

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "FAILURE_PHRASES": "scripted",
    "HostileServer": "hostile",
    "KINDS": "hostile",
    "MODES": "keys",
    "MergeConflictError": "merge",
    "MergeResult": "merge",
    "NO_PAIR_BUDGET": "budget",
    "Progress": "run",
    "RolloutOutcome": "dialogue",
    "RolloutSpec": "keys",
    "RunConfig": "config",
    "RunSettings": "settings",
    "SUMMARY_FIELDS": "run",
    "ScriptedServer": "scripted",
    "SettingsMismatchError": "run",
    "TaxPolicy": "scripted",
    "TaxRunResult": "run",
    "answer_book": "scripted",
    "check_meta": "run",
    "in_shard": "keys",
    "input_bound": "dialogue",
    "load_config": "config",
    "load_variants": "variants",
    "merge_runs": "merge",
    "parse_shard": "keys",
    "plan_rollouts": "settings",
    "rebuild_trials": "journal",
    "run_rollout": "dialogue",
    "run_tax": "run",
    "variant_ids": "settings",
    "variant_texts": "settings",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
