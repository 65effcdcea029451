"""The floor pipeline: :func:`floor_run` (``noisefloor floor``) and its frozen :class:`FloorRun`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from noisefloor.floor.estimate import NoiseFloor, noise_floor
from noisefloor.floor.nulls import NullContrasts, certified_null_contrasts
from noisefloor.logs.runs import log_sources
from noisefloor.results import FrozenResult

__all__ = ["FloorRun", "floor_run", "left_out_records"]

_LEFT_OUT = ("n_only_a", "n_only_b", "n_excluded")


def left_out_records(table: pd.DataFrame) -> list[dict]:
    """Per (contrast, seed) of a null-contrast table: tasks left out of the pairing."""
    cols = [c for c in _LEFT_OUT if c in table.columns]
    if not cols:
        return []
    rows = table[table[cols].sum(axis=1) > 0]
    return [{**r, "seed": None if pd.isna(r["seed"]) else int(r["seed"])}
            for r in rows[["contrast", "seed", *cols]].to_dict(orient="records")]


@dataclass(frozen=True)
class FloorRun(FrozenResult):
    """Result of :func:`floor_run` (``noisefloor floor``).

    Attributes
    ----------
    noise_floor : NoiseFloor
        The floor, envelope and the table of certified null contrasts.
    null_contrasts : NullContrasts
        The certified null contrasts (with what certified each) and the skipped candidates.
    sources : tuple of str
        The logs read, as given.
    n_trials, n_tasks, n_protocols : int
        Records, distinct tasks and distinct protocols of the log.
    """

    _frame_field = "noise_floor"

    noise_floor: NoiseFloor
    null_contrasts: NullContrasts = field(repr=False)
    sources: tuple[str, ...] = ()
    n_trials: int = 0
    n_tasks: int = 0
    n_protocols: int = 0

    @property
    def left_out(self) -> list[dict]:
        """Per (contrast, seed): ``n_only_a, n_only_b, n_excluded`` where any is non-zero."""
        return left_out_records(self.null_contrasts.table)

    @property
    def skipped(self) -> tuple[dict, ...]:
        """Candidate pairs nothing certifies as null (``contrast, kind, seed, reason``)."""
        return self.null_contrasts.skipped

    # hand-written: the floor's keys flattened in, plus derived skipped lists
    def to_dict(self) -> dict:
        """The floor's :meth:`NoiseFloor.to_dict` plus ``left_out``, ``skipped`` (every
        uncertified candidate), ``skipped_reruns`` (its re-runs) and ``sources``."""
        skipped = self.null_contrasts.to_dict()["skipped"]
        return {**self.noise_floor.to_dict(), "left_out": self.left_out, "skipped": skipped,
                "skipped_reruns": [r for r in skipped if r["kind"] == "reruns"],
                "sources": list(self.sources), "n_trials": self.n_trials,
                "n_tasks": self.n_tasks, "n_protocols": self.n_protocols}


def floor_run(
    logs: Any, *, format: str | None = None, allow_nan: bool = False,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
    score: str | None = None,
    clean_pairs: Sequence = (), null_pairs: Sequence = (), trial0: bool = True,
    reruns: bool = True, infrastructure_errors: str = "exclude", confidence: float = 0.95,
    pooling: str = "summed", tau_method: str = "dl",
) -> FloorRun:
    """The noise floor of per-trial logs, from their certified null contrasts.

    Parameters
    ----------
    logs : path, ``"PATH=LABEL"``, (path, label), a sequence of them, or a DataFrame
        The logs (each path one run, see :func:`noisefloor.logs.load_trials`), or trials
        already loaded.
    format, allow_nan, benchmark, model, protocol, score
        As in :func:`noisefloor.logs.load_trials`.
    clean_pairs, null_pairs, trial0, reruns, infrastructure_errors
        As in :func:`noisefloor.floor.nulls.certified_null_contrasts`.
    confidence : float, default 0.95
        Level of every interval and bound of the floor, strictly between 0 and 1.
    pooling : {"summed", "random"}, default "summed"
        How each null contrast is pooled over seeds: counts summed, or random effects (see
        :func:`noisefloor.floor.estimate.noise_floor`).
    tau_method : {"dl", "pm"}, default "dl"
        With ``pooling="random"``: DerSimonian-Laird or Paule-Mandel tau^2.

    Returns
    -------
    FloorRun

    Raises
    ------
    NoNullContrastError
        Nothing certifies any contrast (the message names the remedies).
    LogValidationError, ValueError
        A bad log or option.

    Examples
    --------
    >>> r = floor_run("fixtures/logs/paper", benchmark="tau2/retail", model="m")
    >>> round(r.noise_floor.floor, 3), r.noise_floor.floor_contrast
    (0.25, 'intercept-no_coord')
    >>> sorted(set(r.to_frame()["certified_by"]))
    ['empty store at start', 'identical first requests', 'no injection']
    """
    from noisefloor.logs.load import read_log_trials
    from noisefloor.stats import validation as _validate

    confidence = _validate.probability("confidence", confidence)  # before reading the logs
    trials = read_log_trials(logs, format=format, allow_nan=allow_nan, benchmark=benchmark,
                             model=model, protocol=protocol, score=score)
    null = certified_null_contrasts(trials, clean_pairs=clean_pairs, null_pairs=null_pairs,
                                    trial0=trial0, reruns=reruns,
                                    infrastructure_errors=infrastructure_errors)
    nf = noise_floor(null.table, confidence=confidence, pooling=pooling, tau_method=tau_method)
    return FloorRun(noise_floor=nf, null_contrasts=null, sources=log_sources(logs, trials),
                    n_trials=len(trials), n_tasks=int(trials["task_id"].nunique()),
                    n_protocols=int(trials["protocol"].nunique()))
