"""The contrast pipeline: :func:`contrast_run` (``noisefloor contrast --log``) and
:func:`contrast_counts` (``noisefloor contrast --wins/--losses/--ties``), one frozen
:class:`ContrastRun` each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.floor.arm_contrasts import BY, left_out_totals, log_contrasts
from noisefloor.floor.contrast_table import POOLED, split_protocol_pair
from noisefloor.floor.nulls import certified_null_contrasts
from noisefloor.logs.runs import log_sources
from noisefloor.pipelines.floor import _LEFT_OUT
from noisefloor.results import FrozenResult
from noisefloor.stats.multiplicity import adjust_families
from noisefloor.stats.validation import ParameterError, literal, mention_text

__all__ = ["ContrastRun", "contrast_counts", "contrast_run", "has_store_fields"]


@dataclass(frozen=True)
class ContrastRun(FrozenResult):
    """Result of :func:`contrast_run` (``noisefloor contrast --log``).

    Attributes
    ----------
    a, b : str
        The arms (a minus b); ``"a"`` and ``"b"`` from counts.
    by : str
        ``"protocol"`` or ``"model"`` (the arms of a log), ``"counts"`` (from counts,
        :func:`contrast_counts`).
    contrasts : pandas.DataFrame
        :func:`~noisefloor.floor.arm_contrasts.log_contrasts` rows (the shape of
        :mod:`noisefloor.floor.contrast_table`), with ``p_adjusted`` adjusted by ``method``
        (``"bonferroni"``) over ``m`` = ``family_size`` contrasts;
        ``certified_by`` says what certifies the row as a null contrast, as
        :func:`~noisefloor.floor.nulls.certified_null_contrasts` decides (empty for a real
        contrast).
    family_size : int
        Contrasts in the family for the Bonferroni correction.
    confidence : float
        Level of the Wilson-mapped intervals (``ci_low``, ``ci_high``).
    left_out : dict
        :func:`~noisefloor.floor.arm_contrasts.left_out_totals` of the rows.
    sources : tuple of str
        The logs read, as given.
    left_out_trials : tuple of str
        One sentence per trial the two arms share that is not compared, saying why and how to
        compare it; parameters are mentioned as ``{name}`` (rendered by
        :func:`noisefloor.stats.validation.mention_text`). A trial is never left out silently.
    """

    _frame_field = "contrasts"

    a: str
    b: str
    by: str
    contrasts: pd.DataFrame = field(repr=False)
    family_size: int = 1
    left_out: dict = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    confidence: float = 0.95
    left_out_trials: tuple[str, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        """The distinct reasons of undefined statistics, sorted."""
        return tuple(sorted({r for r in self.contrasts["reason"] if r}))

    # hand-written: 'logs' first, the table without 'm', mentions as text
    def to_dict(self) -> dict:
        """``logs, a, b, by, family_size, confidence, contrasts`` (records) and ``left_out``."""
        return {"logs": list(self.sources), "a": self.a, "b": self.b, "by": self.by,
                "family_size": self.family_size, "confidence": self.confidence,
                "contrasts": self.contrasts.drop(columns=["m"]).to_dict(orient="records"),
                "left_out": dict(self.left_out),
                "left_out_trials": [mention_text(t) for t in self.left_out_trials]}


def _infer_by(trials: pd.DataFrame, a: str, b: str, by: str | None) -> str:
    if by is not None:
        if by not in BY:
            raise ValueError(f"by must be one of {', '.join(map(repr, BY))}, got {by!r}")
        return by
    from noisefloor.floor.nulls import arm_labels

    arms = set(arm_labels(trials))
    models = set(map(str, trials["model"].unique())) if "model" in trials.columns else set()
    if not {a, b} <= arms and {a, b} <= models:
        return "model"
    return "protocol"


def _missing_arms(trials: pd.DataFrame) -> ParameterError:
    """The error of a contrast without both arms, listing the arms the log offers."""
    from noisefloor.floor.nulls import arm_labels

    present = ", ".join(sorted(set(arm_labels(trials))))
    models = ", ".join(sorted(map(str, trials["model"].unique())))
    return ParameterError("a", "", message="{logs} needs {a} and {b} " + literal(
        f"(protocols in the log: {present}) (models: {models}") + ", with {by='model'})")


def _certified_rows(trials: pd.DataFrame, rows: pd.DataFrame, a: str, b: str, by: str,
                    null_options: dict) -> list[str]:
    """``certified_by`` of each row of the contrast ``a-b`` (``""``: a real contrast), as
    :func:`~noisefloor.floor.nulls.certified_null_contrasts` decides for the same trials.

    Only rows over every task (``subset == "all"``) can be null contrasts. A pooled row is
    certified when every trial-level row of its trial pair is, by their certifications
    (joined by ``"; "``)."""
    if by != "protocol" or rows.empty:
        return [""] * len(rows)
    try:
        null = certified_null_contrasts(trials, **null_options).table
    except ValueError:  # nothing certified at all
        return [""] * len(rows)
    lookup: dict[tuple, str] = {}
    r: Any
    for r in null.itertuples(index=False):
        seed = None if pd.isna(r.seed) else int(r.seed)
        lookup[(r.a, r.b, r.trial_a, r.trial_b, seed)] = r.certified_by
        lookup[(r.b, r.a, r.trial_b, r.trial_a, seed)] = r.certified_by
    seeds = [None if pd.isna(x) else int(x) for x in rows["seed"]]
    keys = list(zip(rows["trial"].astype(int), rows["trial_b"].astype(int)))
    subsets = rows["subset"].tolist()
    at_trial = (rows["level"] != POOLED).to_numpy(dtype=bool)
    out = []
    for i in range(len(rows)):
        if subsets[i] != "all":
            out.append("")
            continue
        found = [lookup.get((a, b, *keys[i], seeds[j]), "") for j in range(len(rows))
                 if (j == i if at_trial[i] else at_trial[j] and keys[j] == keys[i]
                     and subsets[j] == "all")]
        out.append("; ".join(dict.fromkeys(found)) if found and all(found) else "")
    return out


def contrast_run(
    logs: Any, a: str | None, b: str | None, *, by: str | None = None, trials: Sequence[int] | None = None,
    trial_b: int | None = None, coordination_active: bool = False, family_size: int = 1,
    format: str | None = None, allow_nan: bool = False, benchmark: str | None = None,
    model: str | None = None, protocol: str | None = None, score: str | None = None,
    clean_pairs: Sequence = (),
    null_pairs: Sequence = (), trial0: bool = True, reruns: bool = True,
    infrastructure_errors: str = "exclude", confidence: float = 0.95,
) -> ContrastRun:
    """One paired contrast ``a-b`` of per-trial logs, per trial and seed.

    Parameters
    ----------
    logs
        As in :func:`~noisefloor.pipelines.floor.floor_run`.
    a, b : str
        The arms: protocols (``protocol@run`` for one of several runs of a protocol), or
        models with ``by="model"``; ``a == b`` compares the arm with itself across trials.
        Both are required: None (or empty) raises an error that lists the log's protocols and
        models.
    by : {"protocol", "model"} or None
        What an arm is; None takes ``"model"`` when ``a`` and ``b`` are models of the log and
        not protocols, else ``"protocol"``.
    trials : sequence of int, optional
        Trials to compare (default: every trial after trial 0; re-runs: every pair i < j).
    trial_b : int, optional
        Re-runs only (``a == b``): the trial of arm b.
    coordination_active : bool, default False
        Also compare trial 1 on the tasks both arms failed at trial 0 (only when the records
        carry ``store_events_at_start``).
    family_size : int, default 1
        Contrasts in the family, for the Bonferroni correction of each row.
    format, allow_nan, benchmark, model, protocol, score
        As in :func:`noisefloor.logs.load_trials`.
    clean_pairs, null_pairs, trial0, reruns, infrastructure_errors
        As in :func:`noisefloor.floor.nulls.certified_null_contrasts`: they decide which rows are
        certified null contrasts (``certified_by``).
    confidence : float, default 0.95
        Level of the Wilson-mapped intervals, strictly between 0 and 1.

    Returns
    -------
    ContrastRun

    Raises
    ------
    ValueError
        ``family_size`` < 1, an arm missing or not in the log, ``trial_b`` with ``a != b``, no shared trial (the message says how
        to compare trial 0), or ``coordination_active`` on records without
        ``store_events_at_start``.

    Examples
    --------
    >>> r = contrast_run("fixtures/logs/paper", "no_coord", "no_coord", benchmark="tau2/retail",
    ...                  model="m")
    >>> row = r.contrasts.iloc[0]
    >>> row["contrast"], (int(row["wins"]), int(row["losses"]), int(row["ties"])), row["certified_by"]
    ('no_coord[t0]-no_coord[t1]', (0, 1, 2), 'no injection')
    """
    from noisefloor.stats import validation as _validate

    if not isinstance(family_size, int) or family_size < 1:
        raise ValueError(f"family_size must be an integer >= 1, got {family_size!r}")
    confidence = _validate.probability("confidence", confidence)
    if trial_b is not None and a and b and a != b:
        raise ParameterError("trial_b", "", message=(
            "{trial_b} goes with {a} = {b} (a re-run contrast across trials)"))
    if a and b and a != b:
        for pair in null_pairs:
            parts = split_protocol_pair(pair, {a, b}, what="null pair") \
                if isinstance(pair, str) else tuple(pair)
            if set(parts) == {a, b}:
                raise ParameterError("null_pairs", "", message=literal(
                    f"{pair!r} declares the contrast under test ({a}-{b}) null") + ": it "
                    "cannot certify itself; declare only pairs that cannot differ with "
                    "{null_pairs}")
    from noisefloor.logs.load import read_log_trials

    frame = read_log_trials(logs, format=format, allow_nan=allow_nan, benchmark=benchmark,
                            model=model, protocol=protocol, score=score)
    if not a or not b:
        raise _missing_arms(frame)
    by = _infer_by(frame, a, b, by)
    if coordination_active and not has_store_fields(frame):
        raise ParameterError("coordination_active", "False", True, message=(
            "the records carry no store_events_at_start, so nothing shows when a coordination "
            "store could act and there is no coordination-active subset; drop "
            "{coordination_active}"))
    rows = log_contrasts(frame, pairs=[(a, b)], trial_indices=trials, trial_b=trial_b, by=by,
                         coordination_active=coordination_active,
                         infrastructure_errors=infrastructure_errors, confidence=confidence)
    if rows.empty:
        if a == b:
            raise ValueError(f"{a} has fewer than two trials to compare")
        raise ParameterError("trials", "[0]", message=literal(
            f"{a} and {b} share no trial after trial 0; ") + "pass {trials=[0]} to compare trial "
            "0 (a null contrast when certified)")
    rows = rows.copy()
    rows["p_adjusted"] = adjust_families(  # each row its own family of the declared size
        rows["p_value"].to_numpy(dtype=float), np.arange(len(rows)), method="bonferroni",
        family_size=family_size)[0]
    rows["method"], rows["m"] = "bonferroni", family_size
    null_options = {"clean_pairs": clean_pairs, "null_pairs": null_pairs, "trial0": trial0,
                    "reruns": reruns, "infrastructure_errors": infrastructure_errors}
    certified = _certified_rows(frame, rows, a, b, by, null_options)
    rows["certified_by"] = certified
    compared = set(rows["trial"].astype(int))
    left_trials: list[str] = []
    if trials is None and a != b and 0 not in compared:
        column = frame["model"] if by == "model" else frame["protocol"]
        at0 = set(column[frame["trial"] == 0].astype(str))
        if {a, b} <= at0:
            left_trials.append(
                "trial 0 is not compared: by default a contrast of two arms starts at trial 1 "
                "(at trial 0 every coordination store is empty, so trial 0 is a null contrast "
                "when certified, not the gain under test); pass {trials=[0]} to compare it")
    return ContrastRun(a=a, b=b, by=by, contrasts=rows, family_size=family_size,
                       left_out=left_out_totals(rows), sources=log_sources(logs, frame),
                       confidence=confidence, left_out_trials=tuple(left_trials))


def contrast_counts(wins: int, losses: int, ties: int = 0, *, family_size: int = 1,
                    confidence: float = 0.95) -> ContrastRun:
    """One paired contrast a-b from its counts (``noisefloor contrast --wins/--losses/--ties``).

    The result has the shape of :func:`contrast_run`'s, so ``contrast --json`` prints one
    document whichever form was given: one row in :attr:`ContrastRun.contrasts` with the
    columns of a log's contrast (``benchmark``, ``model``, ``protocol``, ``seed``, ``trial``,
    ``trial_b`` missing, ``level`` ``"trial"``, ``subset`` ``"all"``, nothing left out), ``logs`` empty,
    ``a = "a"``, ``b = "b"`` and ``by = "counts"``.

    Parameters
    ----------
    wins, losses, ties : int
        Tasks where a succeeded and b failed, the reverse, and the same outcome (ties >= 0).
    family_size : int, default 1
        Contrasts in the family for the Bonferroni correction (``p_adjusted``, ``method``).
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    ContrastRun

    Raises
    ------
    ValueError
        If a count is negative or not an integer, ``family_size < 1`` or ``confidence`` is
        outside (0, 1).

    Examples
    --------
    >>> r = contrast_counts(27, 9, 64, family_size=3)  # noise-floor paper, pull-intercept, seed 1
    >>> row = r.to_dict()["contrasts"][0]
    >>> round(row["gap"], 2), round(row["p_adjusted"], 4), row["method"]
    (0.18, 0.0118, 'bonferroni')
    """
    from noisefloor.stats.paired import sign_test
    from noisefloor.stats.validation import count as check_count

    if check_count("family_size", family_size) < 1:
        raise ValueError(f"family_size must be >= 1, got {family_size}")
    r = sign_test(wins, losses, ties, confidence=confidence)
    p_adjusted = adjust_families(np.array([r.p_value]), np.zeros(1, dtype=np.int64),
                                 method="bonferroni", family_size=family_size)[0]
    rows = pd.DataFrame([{
        "benchmark": None, "model": None, "protocol": None, "level": "trial", "seed": None, "trial": None,
        "trial_b": None, "subset": "all", "contrast": "a-b", "wins": r.wins,
        "losses": r.losses, "ties": r.ties, "n_only_a": 0, "n_only_b": 0, "n_excluded": 0,
        "n": r.n, "gap": r.gap, "p_value": r.p_value, "p_adjusted": float(p_adjusted[0]),
        "method": "bonferroni", "m": family_size, "ci_low": r.ci_low, "ci_high": r.ci_high,
        "reason": r.reason, "certified_by": ""}])
    rows["seed"] = pd.array([pd.NA], dtype="Int64")
    return ContrastRun(a="a", b="b", by="counts", contrasts=rows, family_size=family_size,
                       left_out={k: 0 for k in _LEFT_OUT}, confidence=r.confidence)


def has_store_fields(trials: pd.DataFrame) -> bool:
    """Whether any record carries ``store_events_at_start`` (a coordination-active subset,
    trial 1 on the tasks both arms failed at trial 0, is formed only then)."""
    return bool("store_events_at_start" in trials.columns
                and trials["store_events_at_start"].notna().any())
