"""``merge_runs``: join the run directories of several shards (or machines) into one.

Each input's current entries (the last entry per key, under the settings in its ``run.json``)
are combined by rollout key. A key found in several inputs is kept once when the records
agree (latency aside), and a finished record replaces an infrastructure error of the same
key; two different finished records of one key are a conflict and the merge is refused. The
inputs must share their outcome-changing settings, and a prompt variant they share must have
the same text. The output is an ordinary run directory: ``tax run`` can resume it.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import harness.runner.journal as jr
from noisefloor.results import FrozenResult

#: Record fields that may differ between two runs of one rollout without a conflict.
VOLATILE_EXTRA = ("latency_s",)


class MergeConflictError(ValueError):
    """Two inputs hold different finished records of one rollout key."""


@dataclass(frozen=True)
class MergeResult(FrozenResult):
    """Summary of a merge.

    Attributes
    ----------
    out_dir : str
    trials_path : str
    inputs : tuple of str
    records : int
        Rollout keys in the output.
    duplicates : int
        Keys found in more than one input and kept once.
    errors_replaced : int
        Infrastructure errors replaced by another input's finished record of the key.
    infrastructure_errors : int
        Records of the output that are infrastructure errors.
    """

    out_dir: str
    trials_path: str
    inputs: tuple[str, ...]
    records: int
    duplicates: int
    errors_replaced: int
    infrastructure_errors: int


def _comparable(record: dict[str, Any]) -> dict[str, Any]:
    extra = {k: v for k, v in record["extra"].items() if k not in VOLATILE_EXTRA}
    return {**record, "extra": extra}


def merge_runs(inputs: Sequence[str | Path], out_dir: str | Path) -> MergeResult:
    """Merge run directories into ``out_dir`` (journal, run.json, transcripts, trials.jsonl).

    Parameters
    ----------
    inputs : sequence of path
        Two or more run directories (one is allowed: it is copied and its trials rebuilt).
    out_dir : path
        A new or empty directory, not one of the inputs.

    Returns
    -------
    MergeResult

    Raises
    ------
    ValueError
        An input without ``run.json``, inputs with different settings, an output directory
        that already holds a journal or is an input.
    MergeConflictError
        Two inputs hold different finished records of one key (the message names the key,
        the record and both directories).
    """
    if not inputs:
        raise ValueError("inputs: give at least one run directory")
    paths = [Path(p) for p in inputs]
    out = Path(out_dir)
    if any(out.resolve() == p.resolve() for p in paths):
        raise ValueError(f"{out} is one of the inputs; merge into a new directory")
    if (out / jr.JOURNAL).exists():
        raise ValueError(f"{out} already holds a journal; merge into a new directory")
    metas = []
    for p in paths:
        meta = jr.read_meta(p)
        if meta is None:
            raise ValueError(f"{p}: not a run directory (no {jr.RUN_META})")
        metas.append(meta)
    first = metas[0]["outcome_settings"]
    variants: dict[str, str] = {}
    for p, meta in zip(paths, metas):
        if meta["outcome_settings"] != first:
            diffs = [f"{k}: {first.get(k)!r} vs {meta['outcome_settings'].get(k)!r}"
                     for k in sorted(set(first) | set(meta["outcome_settings"]))
                     if first.get(k) != meta["outcome_settings"].get(k)]
            raise ValueError(f"{paths[0]} and {p} were run with different settings "
                             f"({'; '.join(diffs)})")
        for name, sid in meta["variant_settings"].items():
            if variants.setdefault(name, sid) != sid:
                raise ValueError(f"{p}: prompt variant {name!r} has another text than in "
                                 "an earlier input")
    chosen: dict[str, tuple[dict[str, Any], Path]] = {}
    duplicates = replaced = 0
    for p, meta in zip(paths, metas):
        valid = set(meta["variant_settings"].values())
        state = jr.read_journal(p / jr.JOURNAL)
        for key, entry in state.entries.items():
            if entry["settings"] not in valid:
                continue
            if key not in chosen:
                chosen[key] = (entry, p)
                continue
            duplicates += 1
            kept, where = chosen[key]
            kept_err = kept["record"]["infrastructure_error"]
            new_err = entry["record"]["infrastructure_error"]
            if kept_err and not new_err:
                chosen[key] = (entry, p)
                replaced += 1
            elif new_err and not kept_err:
                replaced += 1
            elif not kept_err and _comparable(kept["record"]) != _comparable(entry["record"]):
                r = entry["record"]
                raise MergeConflictError(
                    f"rollout {key} ({r['benchmark']} {r['protocol']} {r['model']} "
                    f"{r['task_id']} trial {r['trial']}) has different records in {where} and "
                    f"{p} (rewards {kept['record']['reward']!r} and {r['reward']!r})")
    out.mkdir(parents=True, exist_ok=True)
    with jr.locked(out):
        (out / jr.TRANSCRIPTS).mkdir(exist_ok=True)
        for key, (entry, src) in chosen.items():
            rel = entry["record"]["extra"]["transcript"]
            if not isinstance(rel, str) or not jr.path_inside(rel):
                raise jr.JournalError(f"{src / jr.JOURNAL}: rollout {key}: extra.transcript "
                                      f"{rel!r} is not a path inside the run folder")
            if (src / rel).exists():
                shutil.copyfile(src / rel, out / rel)
        with jr.JournalWriter(out / jr.JOURNAL) as writer:
            writer.append_many(entry for entry, _ in chosen.values())
        jr.write_meta(out, {"format": 1, "outcome_settings": first,
                            "variant_settings": variants})
        records = [e["record"] for e, _ in chosen.values()]
        trials = jr.write_trials(out, records)
        jr.mark_trials(out, jr.trials_stamp(out, set(variants.values())))
    return MergeResult(
        out_dir=str(out), trials_path=str(trials), inputs=tuple(str(p) for p in paths),
        records=len(records), duplicates=duplicates, errors_replaced=replaced,
        infrastructure_errors=sum(r["infrastructure_error"] for r in records))
