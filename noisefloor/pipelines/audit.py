"""The audit pipeline (``noisefloor audit``): claims and a log's own contrasts placed against a
noise floor built from a count table or from logs; one call, one frozen :class:`AuditRun`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from noisefloor.audit.verdicts import AuditResult, audit
from noisefloor.floor.arm_contrasts import left_out_totals, log_contrasts, place_contrasts
from noisefloor.floor.contrast_table import FAMILY
from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.floor.estimate import NoiseFloor, noise_floor
from noisefloor.floor.nulls import certified_null_contrasts
from noisefloor.results import FrozenResult
from noisefloor.stats.validation import ParameterError, Spell, literal, mention_text

__all__ = ["NO_CLAIMS_SOURCE", "AuditRun", "audit_run", "write_audit_files"]


@dataclass(frozen=True)
class AuditRun(FrozenResult):
    """Result of :func:`audit_run` (``noisefloor audit``).

    Attributes
    ----------
    result : AuditResult
        The claims placed against the floor.
    noise_floor : NoiseFloor
        The floor they were placed against.
    floor_source, claims_source : str
        Where the floor's inputs and the claims came from.
    claims_note : str
        A note on the claims (bundled claims placed against a log's floor), or empty.
    notes : tuple of str
        Lines on the log's own contrasts: how their gaps are signed, and why a subset is
        absent (no coordination-active row without store fields).
    null_table : pandas.DataFrame
        The null contrasts the floor was built from (with ``certified_by``).
    skipped : tuple of dict
        Candidates nothing certified (logs only).
    log_contrasts : pandas.DataFrame or None
        The log's own contrasts placed against the floor (logs with two arms or more), in the
        shape of :mod:`noisefloor.floor.contrast_table` with ``verdict`` (and ``effect, ratio,
        flag``) from :func:`~noisefloor.floor.arm_contrasts.place_contrasts`.
    n_arms : int
        Arms (protocols or models) of the log; 0 for a count table.
    other_contrasts : pandas.DataFrame or None
        Sign tests of the count table's non-null rows (the shape of
        :mod:`noisefloor.floor.contrast_table`).
    from_logs : bool
        True when the floor came from logs.
    files : tuple of str
        Report files written (``out``).
    """

    _frame_field = "result"

    result: AuditResult
    noise_floor: NoiseFloor
    floor_source: str
    claims_source: str
    claims_note: str = ""
    notes: tuple[str, ...] = ()
    null_table: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    skipped: tuple = ()
    log_contrasts: pd.DataFrame | None = field(default=None, repr=False)
    n_arms: int = 0
    other_contrasts: pd.DataFrame | None = field(default=None, repr=False)
    from_logs: bool = False
    files: tuple[str, ...] = ()

    @property
    def left_out(self) -> list[dict]:
        """Per null (contrast, seed): tasks left out of the pairing."""
        from noisefloor.pipelines.floor import left_out_records

        return left_out_records(self.null_table)

    @property
    def confidence(self) -> float:
        """Level of every interval and bound (that of :attr:`noise_floor`)."""
        return self.noise_floor.confidence

    @property
    def pooling(self) -> str:
        """How the null contrasts were pooled over seeds (``"summed"`` or ``"random"``)."""
        return self.noise_floor.pooling

    @property
    def log_contrasts_left_out(self) -> dict | None:
        """:func:`~noisefloor.floor.arm_contrasts.left_out_totals` of the log's contrasts."""
        return None if self.log_contrasts is None else left_out_totals(self.log_contrasts)

    # hand-written: the --json document of audit, gathered from nested results
    def to_dict(self) -> dict:
        """The ``--json`` document of ``noisefloor audit``."""
        skipped = [{**r, "seed": None if r["seed"] is None else int(r["seed"])}
                   for r in self.skipped]
        return {
            "floor": self.result.floor, "envelope": self.result.envelope,
            "confidence": self.confidence, "pooling": self.pooling,
            "tau_method": self.noise_floor.tau_method,
            "counts": dict(self.result.counts), "claims_source": self.claims_source,
            "claims": [v.to_dict() for v in self.result.verdicts],
            "log_contrasts": ([] if self.log_contrasts is None
                              else self.log_contrasts.to_dict(orient="records")),
            "caution": self.noise_floor.caution, "noise_floor": self.noise_floor.to_dict(),
            "other_contrasts": ([] if self.other_contrasts is None
                                else self.other_contrasts.to_dict(orient="records")),
            "left_out": self.left_out, "log_contrasts_left_out": self.log_contrasts_left_out,
            "skipped": skipped, "skipped_reruns": [r for r in skipped if r["kind"] == "reruns"],
            "notes": [mention_text(n) for n in self.notes], "files": list(self.files),
        }


def audit_run(
    *, counts: str | Path | None = None, logs: Any = None, claims: str | Path | None = None,
    clean_pairs: Sequence = (), null_pairs: Sequence = (), trial0: bool = True,
    reruns: bool = True, by: str = "protocol", format: str | None = None,
    allow_nan: bool = False, benchmark: str | None = None, model: str | None = None,
    protocol: str | None = None, score: str | None = None, out: str | Path | None = None,
    plot: bool = True, a: str | None = None, b: str | None = None,
    bundled_claims: bool = False,
    confidence: float = 0.95, pooling: str = "summed", tau_method: str = "dl",
    spell: Spell | None = None,
) -> AuditRun:
    """Place claims against a noise floor from a count table or from logs.

    Parameters
    ----------
    counts : path, optional
        CSV of paired W/L/T counts (default, without ``logs``: the noise-floor paper's,
        bundled); its trial-0 rows are null by the table's declaration.
    logs : optional
        Per-trial logs, as in :func:`floor_run`, instead of ``counts``; the log's own
        contrasts (each trial after trial 0, and trial 1 on the coordination-active subset
        when the records carry ``store_events_at_start``) are placed against the floor too.
    claims : path, optional
        CSV of claims. Default: the ten published claims the noise-floor paper lists when
        neither ``counts`` nor ``logs`` is given (the bundled audit), otherwise none (a
        user's own audit places the user's claims only; see ``bundled_claims``).
    clean_pairs : sequence of str
        Clean contrasts (for a count table: default ``no_coord-intercept`` when present).
    null_pairs, trial0, reruns
        Logs only: as in :func:`noisefloor.floor.nulls.certified_null_contrasts`.
    by : {"protocol", "model"}, default "protocol"
        Logs only: the arms of the log's own contrasts.
    format, allow_nan, benchmark, model, protocol, score
        Logs only: as in :func:`noisefloor.logs.load_trials`.
    out : path, optional
        Directory to write ``forest.png``, ``forest.svg`` and ``report.md`` to.
    a, b : str, optional
        Logs only, both or neither: the one contrast of the log to place, ``a - b`` (a gap
        above 0 means ``a`` succeeded more often). Default: every pair of arms, each written
        in the order the arms first appear in the logs (the first log given first), the
        baseline ``no_coord`` written second.
    bundled_claims : bool, default False
        Place the ten bundled published claims although ``counts`` or ``logs`` is given
        (they are other papers' claims on their own benchmarks; the output says so).
    plot : bool, default True
        With ``out``: draw the forest plot (at most
        :data:`noisefloor.report.forest.MAX_FOREST_ROWS` rows, those farthest from 0, with a
        :class:`noisefloor.report.forest.ForestRowsLeftOutWarning` when rows are left out of the
        picture). False writes ``report.md`` only, without a figure.
    spell : callable, optional
        With ``out``: how ``report.md`` spells the parameters a note mentions (as
        :func:`noisefloor.report.text.audit_text` takes it; default the Python keywords).
    confidence : float, default 0.95
        Level of every interval and bound (the floor, the envelope, the log's and the count
        table's contrasts), strictly between 0 and 1.
    pooling : {"summed", "random"}, default "summed"
        How each null contrast is pooled over seeds (see :func:`noisefloor.floor.estimate.noise_floor`).
    tau_method : {"dl", "pm"}, default "dl"
        With ``pooling="random"``: DerSimonian-Laird or Paule-Mandel tau^2.

    Returns
    -------
    AuditRun

    Raises
    ------
    ValueError
        Both ``counts`` and ``logs``; both ``claims`` and ``bundled_claims``; one of ``a``
        and ``b`` only, or ``a``/``b`` without logs or not arms of the log (a
        :class:`~noisefloor.stats.validation.ParameterError`); null options with a count
        table; a bad table, log or
        claim (file, line and field named); nothing certified in the logs; a bad
        ``confidence``, ``pooling`` or ``tau_method``; a random-effects floor that is
        undefined (fewer than two seeds: the message says why).

    Examples
    --------
    >>> r = audit_run()
    >>> round(r.noise_floor.floor, 3), r.result.counts
    (0.118, {'below': 7, 'inside': 1, 'above': 2})
    >>> r = audit_run(confidence=0.90, pooling="random", out=None)
    >>> round(r.noise_floor.floor, 4), round(r.noise_floor.envelope, 4)
    (0.1296, 0.2492)
    """
    from noisefloor.audit.published import (
        BUNDLED_CLAIMS_SOURCE,
        BUNDLED_COUNTS_SOURCE,
        read_claims,
        read_paired_counts,
    )
    from noisefloor.stats import validation as _validate
    from noisefloor.stats.paired import sign_test_table

    confidence = _validate.probability("confidence", confidence)  # before reading anything
    if logs is not None and counts is not None:
        raise ValueError("give either counts or logs, not both")
    pair = _audit_pair(a, b, logs)
    if claims and bundled_claims:
        raise ParameterError("bundled_claims", "False with {claims}", True, message=(
            "give {claims} or {bundled_claims}, not both: the bundled claims are the ten "
            "published ones"))
    bundled = claims is None and (bundled_claims or (logs is None and counts is None))
    notes: tuple[str, ...] = ()
    others = own = None
    n_arms = 0
    skipped: tuple = ()
    if logs is not None:
        from noisefloor.logs.load import read_log_trials
        from noisefloor.logs.runs import log_sources
        from noisefloor.pipelines.contrast import has_store_fields

        trials = read_log_trials(logs, format=format, allow_nan=allow_nan, benchmark=benchmark,
                                 model=model, protocol=protocol, score=score)
        null = certified_null_contrasts(trials, clean_pairs=clean_pairs,
                                        null_pairs=null_pairs, trial0=trial0, reruns=reruns)
        null_table, skipped = null.table, null.skipped
        source = ", ".join(log_sources(logs, trials))
        arm_col = "model" if by == "model" else "protocol"
        n_arms = int(trials[arm_col].nunique())
        active = has_store_fields(trials)
        if n_arms >= 2 or pair is not None:
            own = log_contrasts(trials, pairs=None if pair is None else [pair], by=by,
                                coordination_active=active, confidence=confidence)
            notes = _own_contrast_notes(pair, active)
    else:
        if null_pairs or not trial0 or not reruns:
            raise ParameterError("null_pairs", "given with logs", message=(
                "{null_pairs}, {trial0} and {reruns} apply to logs: a count table's trial-0 "
                "rows are its null contrasts (give them with {logs})"))
        table = read_paired_counts(counts)
        if counts:
            table.attrs["source"] = str(counts)  # errors name file:line
        null_table = null_contrasts_from_counts(table, clean=tuple(clean_pairs) or None)
        source = str(counts) if counts else BUNDLED_COUNTS_SOURCE
        rest = table[~((table["trial"] == 0) & (table["subset"] == "all"))]
        if not rest.empty:
            others = _count_contrasts(sign_test_table(rest.drop(columns=["line"]),
                                                      family=FAMILY, confidence=confidence))
    nf = noise_floor(null_table, confidence=confidence, pooling=pooling, tau_method=tau_method)
    if pooling == "random" and math.isnan(nf.floor):
        raise ParameterError("pooling", "'summed'", pooling, message=(
            "{pooling='random'}: " + literal(f"no floor to place claims against: {nf.reason}")
            + "; pool by summed counts instead ({pooling='summed'})"))
    claim_table = read_claims(claims)
    if claims:
        claim_table.attrs["source"] = str(claims)
    elif not bundled:
        claim_table = claim_table.iloc[:0]
    result = audit(claim_table, nf)
    if own is not None:
        own = place_contrasts(own, nf)
    theirs = "log" if logs is not None else "count table"
    note = (f"These are other papers' claims on their own benchmarks, placed against the floor "
            f"of your {theirs}." if bundled and (logs is not None or counts is not None)
            else "")
    run = AuditRun(result=result, noise_floor=nf, floor_source=source,
                   claims_source=(str(claims) if claims else BUNDLED_CLAIMS_SOURCE if bundled
                                  else NO_CLAIMS_SOURCE),
                   claims_note=note, notes=notes, null_table=null_table, skipped=skipped,
                   log_contrasts=own,
                   n_arms=n_arms, other_contrasts=others, from_logs=logs is not None)
    if out is not None:
        run = dataclasses.replace(run, files=tuple(write_audit_files(run, out, plot=plot,
                                                                     spell=spell)))
    return run


def _count_contrasts(table: pd.DataFrame) -> pd.DataFrame:
    """A count table's sign-tested rows in the contrast-table shape: ``level`` ``"trial"``,
    ``seed`` nullable Int64, ``certified_by`` ``""`` (rows after trial 0 or on a subset are
    real contrasts; only the trial-0 rows over all tasks are null, and they make the floor)."""
    from noisefloor.floor.contrast_table import TRIAL, seed_array

    out = table.copy()
    out.insert(0, "level", TRIAL)
    out["seed"] = seed_array(out["seed"].tolist())
    out["certified_by"] = ""
    return out


#: ``claims_source`` of an audit of the user's own inputs given no claims.
NO_CLAIMS_SOURCE = "none (give --claims CSV to place your own; --bundled-claims for the ten published ones)"


def _audit_pair(a: str | None, b: str | None, logs: Any) -> tuple[str, str] | None:
    """The one contrast ``(a, b)`` an audit of logs places, or None for every pair."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        missing = "a" if a is None else "b"
        raise ParameterError(missing, "given with {%s}" % ("b" if missing == "a" else "a"),
                             message="give both {a} and {b} (the gap is a - b), or neither")
    if logs is None:
        raise ParameterError("a", "given with logs", a, message=(
            "{a} and {b} choose a contrast of the logs; they go with {logs}"))
    if a == b:
        raise ParameterError("b", "an arm other than {a}", b, message=literal(
            f"{a!r} is given as both arms; ") + "the re-runs of one arm are a null contrast "
            "(declare them with {null_pairs})")
    return a, b


def _own_contrast_notes(pair: tuple[str, str] | None, active: bool) -> tuple[str, ...]:
    """The lines under the log's own contrasts: the sign convention, the absent subset."""
    if pair is None:
        order = ("each contrast a-b is a minus b: a positive gap means a succeeded more often; "
                 "arms are written in the order the logs give them (no_coord second); "
                 "choose the contrast and its sign with {a='X'} {b='Y'}")
    else:
        order = (f"{pair[0]}-{pair[1]} is {pair[0]} minus {pair[1]}: a positive gap means "
                 f"{pair[0]} succeeded more often")
    notes = [order]
    if not active:
        notes.append("no coordination-active subset: the records carry no "
                     "store_events_at_start, so nothing shows when a coordination store could "
                     "act (the subset compares trial 1 on the tasks both arms failed at trial 0, "
                     "after the store was filled)")
    return tuple(notes)


def write_audit_files(run: AuditRun, out: str | Path, *, plot: bool = True,
                      spell: Spell | None = None) -> list[str]:
    """Write ``forest.png``, ``forest.svg`` (unless ``plot`` is False) and ``report.md``
    (``spell`` spells the parameters a note mentions, as in
    :func:`noisefloor.report.text.audit_text`)."""
    from noisefloor.audit.published import BUNDLED_CLAIMS_SOURCE
    from noisefloor.report.text import audit_markdown

    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if plot:  # matplotlib is loaded only to draw
        from noisefloor.report.forest import (
            BUNDLED_CLAIMS_SECTION,
            CLAIMS_SECTION,
            audit_forest,
            save_figure,
        )
        section = (BUNDLED_CLAIMS_SECTION if run.claims_source == BUNDLED_CLAIMS_SOURCE
                   else CLAIMS_SECTION)
        written = save_figure(audit_forest(run.result, run.noise_floor,
                                           log_contrasts=run.log_contrasts,
                                           claims_section=section), out_dir, "forest")
    markdown = audit_markdown(run, figure="forest.png" if plot else None, spell=spell)
    (out_dir / "report.md").write_text(markdown, encoding="utf-8")
    return [str(p) for p in [*written, out_dir / "report.md"]]
