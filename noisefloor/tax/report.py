"""One call from a tax run to every table, figure and the Markdown report: :func:`tax_report`."""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.logs.annotations import read_annotations
from noisefloor.report.text import markdown_table, p_cell, pp
from noisefloor.results import FrozenResult
from noisefloor.tax.cascade import Judge, JudgeRun, judge_prompt, judge_rollouts, stage_rates
from noisefloor.tax.cells import cell_table, instance_table, task_table
from noisefloor.tax.intervention import figure6_markdown, recovered_share_table
from noisefloor.tax.mixed import mixed_pair_table
from noisefloor.tax.prediction import TaxPrediction, predict_tax
from noisefloor.tax.replies import JOURNAL_NAME, JudgeJournal
from noisefloor.tax.run import TaxRun, read_run, rebuild_stale_runs

__all__ = ["TaxReport", "tax_report"]


def _records(frame: pd.DataFrame | None) -> list[dict[str, Any]] | None:
    if frame is None:
        return None
    out: list[dict[str, Any]] = []
    for rec in frame.to_dict("records"):
        out.append({str(k): (None if isinstance(v, float) and not math.isfinite(v) else
                        (v.item() if isinstance(v, np.generic) else v)) for k, v in rec.items()})
    return out


@dataclass(frozen=True)
class TaxReport(FrozenResult):
    """Everything :func:`tax_report` computes from a tax run.

    Attributes
    ----------
    sources : tuple of str
        ``trials.jsonl`` files read.
    n_rollouts, n_infrastructure_errors : int
        Rollouts read; those without a reward (left out of every mean, counted per cell).
    target : float
        Solo-tractability target.
    confidence : float
        Level of every interval.
    task_cells, family_cells, model_cells : pandas.DataFrame
        :func:`noisefloor.tax.cells.cell_table` by task, family and model.
    tasks : pandas.DataFrame
        :func:`noisefloor.tax.cells.task_table` (Figure 4).
    mixed : pandas.DataFrame
        :func:`noisefloor.tax.mixed.mixed_pair_table` (empty without mixed pairs).
    prediction : TaxPrediction or None
        Grouped-fold ridge of the cell tax (None when skipped; ``notes`` says why).
    stage_rates : pandas.DataFrame or None
        Cascade stage rates of same-model pairs (None without labels or a judge).
    stage_rates_mixed : pandas.DataFrame or None
        The same for mixed pairs (None without mixed-pair labels).
    judge : JudgeRun or None
        Labels obtained from the judge in this call (None when labels were given or absent).
    intervention : pandas.DataFrame
        :func:`noisefloor.tax.intervention.recovered_share_table` (empty without variants).
    notes : tuple of str
        Caveats a reader needs: one family only, exploratory tasks, negative cells, skipped parts.
    cascade_note : str
        Why the cascade section is unavailable (no labels, no labels by the rater, the judge
        labelled nothing); empty when the stage rates were computed.
    files : tuple of str
        Files written (empty unless ``out`` was given).
    rebuilt : tuple of str
        Runs whose records were older than their journal and were rebuilt before reading
        (``rebuild_stale``), one note each; empty otherwise.
    """

    _frame_field = "family_cells"

    sources: tuple
    n_rollouts: int
    n_infrastructure_errors: int
    target: float
    confidence: float
    task_cells: pd.DataFrame
    family_cells: pd.DataFrame
    model_cells: pd.DataFrame
    tasks: pd.DataFrame
    mixed: pd.DataFrame
    prediction: TaxPrediction | None
    stage_rates: pd.DataFrame | None
    stage_rates_mixed: pd.DataFrame | None
    judge: JudgeRun | None
    intervention: pd.DataFrame
    notes: tuple
    cascade_note: str = ""
    files: tuple = ()
    rebuilt: tuple = ()

    # hand-written: NaN as None throughout, judge reduced to its failures
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (NaN as None); effects are proportions."""
        return {
            "sources": list(self.sources), "n_rollouts": self.n_rollouts,
            "n_infrastructure_errors": self.n_infrastructure_errors, "target": self.target,
            "confidence": self.confidence, "task_cells": _records(self.task_cells),
            "family_cells": _records(self.family_cells), "model_cells": _records(self.model_cells),
            "tasks": _records(self.tasks), "mixed": _records(self.mixed),
            "prediction": _clean(self.prediction.to_dict()) if self.prediction else None,
            "stage_rates": _records(self.stage_rates),
            "stage_rates_mixed": _records(self.stage_rates_mixed),
            "judge_failures": _records(self.judge.failures) if self.judge else None,
            "intervention": _records(self.intervention), "notes": list(self.notes),
            "cascade_note": self.cascade_note, "files": list(self.files),
            "rebuilt": list(self.rebuilt),
        }

    def markdown(self, figures: dict[str, str] | None = None) -> str:
        """The report as Markdown (percentage points in the tables); ``figures`` maps a figure
        name (``fig3`` ... ``fig7``) to the file the report links."""
        return _render(self, figures or {})


def _clean(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def tax_report(
    paths: str | Path | Sequence[str | Path] | TaxRun,
    *,
    out: str | Path | None = None,
    labels: str | Path | pd.DataFrame | None = None,
    judge: Judge | Any = None,
    judge_retries: int = 3,
    judge_journal: str | Path | None = None,
    judge_variants: bool = False,
    rater: str = "judge",
    target: float = 0.8,
    n_boot: int = 2000,
    n_permutations: int = 199,
    confidence: float = 0.95,
    predict: bool = True,
    missing_transcripts: str = "error",
    rng: int | np.random.Generator | None = 0,
    rebuild_stale: Callable[[Path], tuple[int | None, int]] | None = None,
) -> TaxReport:
    """Analyse a collaboration-tax run: cells, game, cascade, prediction, intervention, figures.

    Parameters
    ----------
    paths : path, sequence of paths or TaxRun
        Run directories (``trials.jsonl`` + ``transcripts/``) or ``trials.jsonl`` files, or a
        run already read with :func:`noisefloor.tax.run.read_run`.
    out : str, Path or None, default None
        Directory to write ``report.md``, ``report.json``, the CSV tables and Figures 3-7 (PNG
        and SVG) into; None writes nothing.
    labels : path or pandas.DataFrame, optional
        Cascade labels in the long annotation layout (``item`` = rollout key, ``rater``,
        ``category`` L1-L4, ``label`` 0/1).
    judge : callable or noisefloor.endpoints.ModelEndpoint, optional
        A judge to label the pair rollouts now: ``judge(messages) -> str`` (see
        :func:`noisefloor.tax.cascade.judge_rollouts`) or a judge model at an
        OpenAI-compatible endpoint, called through the runner's endpoint layer
        (:func:`noisefloor.tax.judge.judge_with_endpoint`). Its labels are written to
        ``out/judge_labels.jsonl``. Ignored when ``labels`` is given.
    judge_retries : int, default 3
        Retries per request of an endpoint judge before the rollout is left unlabelled.
    judge_journal : str or Path, optional
        Journal of the judge's replies (:class:`noisefloor.tax.replies.JudgeJournal`),
        written reply by reply as they arrive; default ``out/judge_journal.jsonl`` when
        ``out`` is given. Rollouts it already labelled (same rater and instructions) are not
        asked again, so re-running the report asks only for the missing labels.
    judge_variants : bool, default False
        Also label the prompt variants' pair rollouts (no table uses them; off saves the
        calls).
    rater : str, default "judge"
        Whose labels the stage rates use.
    target : float, default 0.8
        Solo-tractability target (cells and tasks below it are exploratory).
    n_boot : int, default 2000
        Bootstrap replicates of every interval.
    n_permutations : int, default 199
        Permutations of the ridge's R^2 null.
    confidence : float, default 0.95
    predict : bool, default True
        Fit the grouped-fold ridge (reads every pair transcript).
    missing_transcripts : {"error", "omit"}, default "error"
        A pair rollout without a transcript: raise, or leave it out of the prediction (counted).
    rng : int, numpy.random.Generator or None, default 0
        Seed of every resampling step.
    rebuild_stale : callable, optional
        Rebuild a run's records when they are older than its journal (an interrupted run)
        before reading them: :func:`harness.runner.journal.rebuild_trials`, as ``noisefloor
        tax report`` passes it (:func:`noisefloor.tax.run.rebuild_stale_runs`; ``rebuilt``
        notes each). None: such a run is refused.

    Returns
    -------
    TaxReport

    Raises
    ------
    TaxRunError, LogValidationError
        Bad records or transcripts (file, line and field named).
    ValueError
        Bad options; labels that are not 0/1.

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, tasks=[("spatial_maze_halves", "spatial"),
    ...     ("relational_family_tree", "relational"), ("csp_sudoku4", "csp")], n_instances=8)
    >>> r = tax_report(d, labels=d + "/judge_labels.jsonl", n_boot=200, n_permutations=9)
    >>> r.family_cells[["model", "family", "n_instances"]].head(3).values.tolist()
    [['model-hi', 'spatial', 8], ['model-hi', 'relational', 8], ['model-hi', 'csp', 8]]
    """
    rebuilt: tuple[str, ...] = ()
    if rebuild_stale is not None and not isinstance(paths, TaxRun):
        rebuilt = rebuild_stale_runs(paths, rebuild_stale)
    run = paths if isinstance(paths, TaxRun) else read_run(paths)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    inst = instance_table(run)
    kw: dict[str, Any] = dict(target=target, n_boot=n_boot, confidence=confidence, rng=gen,
                              instances=inst)
    task_cells = cell_table(run, by="task", **kw)
    family_cells = cell_table(run, by="family", **kw)
    model_cells = cell_table(run, by="model", **kw)
    tasks = task_table(task_cells, target=target)
    mixed = mixed_pair_table(run)
    notes = []
    fams = run.families
    if len(fams) == 1:
        notes.append(f"one family only ({fams[0]}): the family ordering (spatial > relational > "
                     "csp in the paper) cannot be checked here")
    expl = tasks.loc[tasks["exploratory"], "task"].tolist()
    if expl:
        notes.append(f"exploratory (solo mean over models below {target:g}): {', '.join(expl)}")
    neg = family_cells[family_cells["tax"] < 0]
    if not neg.empty:
        notes.append("negative family cells kept, not clipped (the solo control is a fallible "
                     "stand-in for the optimum, Proposition 1's caveat): "
                     + ", ".join(f"{m}/{f}" for m, f in neg[["model", "family"]].itertuples(index=False)))
    undefined = task_cells[task_cells["tax"].isna()]
    if not undefined.empty:
        notes.append(f"{len(undefined)} model x task cell(s) undefined: "
                     + "; ".join(undefined["note"].head(5)) + (" ..." if len(undefined) > 5 else ""))
    df = run.rollouts
    capped = (df[np.isfinite(df["token_cap"].to_numpy(dtype=float))] if "token_cap" in df
              else df.iloc[:0])
    if not capped.empty:
        stopped = int((capped["termination_reason"] == "token_cap").sum())
        notes.append(f"matched spend: {len(capped)} solo rollout(s) ran under their pair-median "
                     f"token cap (tax run --solo-budget pair-median), {stopped} stopped at it; "
                     "the tax compares the pair with a solo control held to the pair's tokens")
    if run.n_infrastructure_errors:
        notes.append(f"{run.n_infrastructure_errors} rollout(s) ended in an infrastructure error: "
                     "left out of every mean and counted per cell, never scored 0")
    prediction = None
    if predict:
        prediction = predict_tax(run, task_cells, n_permutations=n_permutations,
                                 missing=missing_transcripts, rng=gen)
        for name, why in prediction.reasons.items():
            notes.append(f"prediction {name} not fitted: {why}")
    else:
        notes.append("prediction skipped (predict=False)")
    judged, rates, rates_mixed, cascade_note = _cascade(
        run, labels, judge, rater=rater, confidence=confidence, judge_retries=judge_retries,
        journal_path=judge_journal if judge_journal is not None else (
            None if out is None else Path(out) / JOURNAL_NAME), variants=judge_variants,
        notes=notes)
    intervention = recovered_share_table(run, n_boot=n_boot, confidence=confidence, rng=gen)
    report = TaxReport(
        sources=run.sources, n_rollouts=len(run.rollouts),
        n_infrastructure_errors=run.n_infrastructure_errors, target=float(target),
        confidence=float(confidence), task_cells=task_cells, family_cells=family_cells,
        model_cells=model_cells, tasks=tasks, mixed=mixed, prediction=prediction,
        stage_rates=rates, stage_rates_mixed=rates_mixed, judge=judged,
        intervention=intervention, notes=tuple(notes), cascade_note=cascade_note,
        rebuilt=rebuilt)
    if out is not None:
        report = dataclasses.replace(report, files=tuple(str(p) for p in _write(report, Path(out))))
    return report


def _cascade(run: TaxRun, labels: Any, judge: Any, *, rater: str, confidence: float,
             judge_retries: int, journal_path: str | Path | None, variants: bool,
             notes: list[str]) -> tuple[JudgeRun | None, pd.DataFrame | None,
                                        pd.DataFrame | None, str]:
    """Labels (given, or asked of the judge through its journal) and the stage rates; when
    there are none, the reason the cascade section is unavailable."""
    judged = None
    if labels is None and judge is not None:
        model = getattr(judge, "name", getattr(judge, "__name__", "callable"))
        journal = None if journal_path is None else JudgeJournal(
            journal_path, rater=rater, prompt=judge_prompt(), model=str(model))
        if callable(judge):
            judged = judge_rollouts(run, judge, rater=rater, journal=journal, variants=variants)
        else:
            from noisefloor.tax.judge import judge_with_endpoint
            judged = judge_with_endpoint(run, judge, rater=rater, max_retries=judge_retries,
                                         journal=journal, variants=variants)
        labels = judged.labels
        if len(judged.failures):
            kinds = judged.failures["kind"].value_counts().to_dict()
            where = f"; replies kept in {journal_path}" if journal_path is not None else ""
            notes.append(f"{len(judged.failures)} rollout(s) left unlabelled by the judge ("
                         + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
                         + f"{where}; re-run noisefloor tax report with the same --out to ask "
                         "only for the missing labels)")
    if labels is None:
        why = "no labels and no judge: pass --labels FILE or --judge-model/--judge-url"
        notes.append(f"cascade unavailable: {why}")
        return judged, None, None, why
    every = read_annotations(labels) if isinstance(labels, (str, Path)) else labels
    if not (every["rater"] == rater).any():
        present = ", ".join(sorted(map(str, set(every["rater"])))) or "none"
        if judged is not None:
            why = (f"the judge labelled none of {len(judged.failures)} rollout(s) "
                   f"({', '.join(sorted(set(judged.failures['kind'])))})")
        else:
            why = f"no labels by rater {rater!r} (raters present: {present}; choose one with --rater)"
        notes.append(f"cascade unavailable: {why}")
        return judged, None, None, why
    rates = stage_rates(run, every, rater=rater, confidence=confidence)
    rates_mixed = None
    if run.rollouts["mixed"].any():
        rm = stage_rates(run, every, rater=rater, confidence=confidence, pairs="mixed")
        rates_mixed = rm if int(rm["n"].sum()) else None
    return judged, rates, rates_mixed, ""


def _write(report: TaxReport, out: Path) -> list[Path]:
    from noisefloor.tax import figures as F

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    figs: dict[str, str] = {}
    plan = [("fig3_heatmap", "fig3", lambda: F.heatmap_figure(report.family_cells,
                                                                report.model_cells)),
            ("fig4_task_ratio", "fig4", lambda: F.task_ratio_figure(report.tasks))]
    rates = report.stage_rates
    if rates is not None:
        plan.append(("fig5_cascade", "fig5", lambda: F.cascade_figure(rates)))
    if not report.intervention.empty:
        plan.append(("fig6_intervention", "fig6",
                     lambda: F.intervention_figure(report.intervention)))
        plan.append(("fig6_table", "fig6_table",
                     lambda: F.intervention_table_figure(report.intervention)))
    if not report.mixed.empty:
        plan.append(("fig7_mixed_pairs", "fig7", lambda: F.mixed_pairs_figure(report.mixed)))
    for stem, key, make in plan:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # glyph warnings of some fonts
            paths = F.save_figure(make(), out / stem)
        written.extend(paths)
        figs[key] = paths[0].name
    tables = {"cells_task.csv": report.task_cells, "cells_family.csv": report.family_cells,
              "cells_model.csv": report.model_cells, "tasks.csv": report.tasks,
              "mixed_pairs.csv": report.mixed, "intervention.csv": report.intervention}
    if report.stage_rates is not None:
        tables["stage_rates.csv"] = report.stage_rates
    if report.prediction is not None:
        tables["prediction.csv"] = report.prediction.to_frame()
    for name, frame in tables.items():
        frame.to_csv(out / name, index=False)
        written.append(out / name)
    if report.judge is not None:
        written.append(report.judge.write(out / "judge_labels.jsonl"))
    (out / "report.md").write_text(report.markdown(figs), encoding="utf-8")
    written.append(out / "report.md")
    written.append(out / "report.json")
    d = report.to_dict()
    d["files"] = [str(p) for p in written]
    (out / "report.json").write_text(json.dumps(d, indent=1, allow_nan=False), encoding="utf-8")
    return written


def _pair_text(a: float, b: float, fmt: Any) -> str:
    return f"{fmt(a)}/{fmt(b)}"


def _tokens(v: float) -> str:
    return "no usage reported" if not math.isfinite(v) else f"{v:,.0f}"


def _usd(v: float) -> str:
    return "price unknown" if not math.isfinite(v) else f"{v:.4g}"


def _reading_and_spend(fc: pd.DataFrame) -> list[str]:
    """How answers were read (parser, grader model, unreadable) and what a rollout spent."""
    if fc.empty:
        return []
    share = lambda v: "no rollouts" if not math.isfinite(v) else pp(v, digits=0)  # noqa: E731
    per1k = [("no usage reported" if not math.isfinite(v) else pp(v, digits=2, signed=True))
             for v in fc["tax_per_1k_tokens"]]
    t = pd.DataFrame({
        "model": fc["model"], "family": fc["family"],
        "read by the grader model, % (solo/pair)": [
            _pair_text(a, b, share) for a, b in zip(fc["llm_share_solo"], fc["llm_share_pair"])],
        "unreadable, % (solo/pair)": [
            _pair_text(a, b, share) for a, b in zip(fc["unreadable_share_solo"],
                                                    fc["unreadable_share_pair"])],
        "tokens per rollout (solo/pair)": [
            _pair_text(a, b, _tokens) for a, b in zip(fc["tokens_solo"], fc["tokens_pair"])],
        "USD per rollout (solo/pair)": [
            _pair_text(a, b, _usd) for a, b in zip(fc["cost_solo"], fc["cost_pair"])],
        "tax per 1,000 tokens (pp)": per1k})
    return ["### How answers were read and what they cost", "",
            "Every score is the task's deterministic grade; the grader model "
            "(`--extractor-model`) only rewrote answers the parser could not read completely. "
            "Unreadable answers score 0. Tax per 1,000 tokens = 1000 x (solo / solo tokens - "
            "pair / pair tokens): how much more score the solo control earns per 1,000 tokens.",
            "", markdown_table(t), ""]


def _ci(lo: float, hi: float) -> str:
    return f"[{pp(lo, signed=True)}, {pp(hi, signed=True)}]"


def _render(r: TaxReport, figs: dict[str, str]) -> str:
    level = f"{100 * r.confidence:g}%"
    L = ["# Collaboration-tax report", "",
         f"{r.n_rollouts} rollouts from {', '.join(r.sources)}; "
         f"{r.n_infrastructure_errors} infrastructure errors (left out of every mean). "
         f"Effects in percentage points (pp). Tax intervals are {level} stratified Student "
         "intervals over instances with the tasks fixed (a task cell: the paired t interval; "
         "a family or model: Welch-Satterthwaite degrees of freedom; Cochran 1977, section "
         "5); ratio gaps and recovered shares have percentile intervals of a bootstrap over "
         "instances within tasks; an interval shown n/a has its reason in the note. "
         f"Solo-tractability target {r.target:g}.", ""]
    if r.notes:
        L += ["## Notes", ""] + [f"- {n}" for n in r.notes] + [""]
    L += ["## Tax by model and family (Figure 3)", ""]
    if "fig3" in figs:
        L += [f"![Figure 3]({figs['fig3']})", ""]
    fc = r.family_cells
    t = pd.DataFrame({
        "model": fc["model"], "family": fc["family"], "tasks": fc["n_tasks"],
        "instances": fc["n_instances"], "solo": fc["solo"].map(pp), "pair": fc["pair"].map(pp),
        "tax (pp)": fc["tax"].map(lambda v: pp(v, signed=True)),
        f"{level} CI": [_ci(a, b) for a, b in zip(fc["ci_low"], fc["ci_high"])],
        "ratio gap": fc["ratio_gap"].map(pp), "W/L/T": [f"{w}/{losses}/{x}" for w, losses, x in zip(
            fc["wins"], fc["losses"], fc["ties"])], "sign p": fc["sign_p"].map(p_cell),
        "note": fc["note"]})
    L += [markdown_table(t), ""]
    L += _reading_and_spend(fc)
    L += ["## Per-task ratio gap (Figure 4)", ""]
    if "fig4" in figs:
        L += [f"![Figure 4]({figs['fig4']})", ""]
    tt = r.tasks
    L += [markdown_table(pd.DataFrame({
        "task": [f"{n} †" if e else n for n, e in zip(tt["task"], tt["exploratory"])],
        "family": tt["family"], "models": tt["n_models"], "solo": tt["solo"].map(pp),
        "pair": tt["pair"].map(pp), "tax (pp)": tt["tax"].map(lambda v: pp(v, signed=True)),
        "ratio gap (%)": tt["ratio_gap"].map(pp)})), "",
        "† solo score below the target: reported, treated as exploratory.", ""]
    L += ["## Mixed pairs and the game (Figure 7)", ""]
    if r.mixed.empty:
        L += ["_No mixed pairs in the run._", ""]
    else:
        if "fig7" in figs:
            L += [f"![Figure 7]({figs['fig7']})", ""]
        m = r.mixed
        L += [markdown_table(pd.DataFrame({
            "pair (a+b)": m["pair"], "tasks": m["n_tasks"], "v1": m["v1"].map(pp),
            "v2": m["v2"].map(pp), "v12": m["v12"].map(pp), "midpoint": m["midpoint"].map(pp),
            "tax (pp)": m["tax"].map(lambda v: pp(v, signed=True)), "phi1": m["phi1"].map(pp),
            "phi2": m["phi2"].map(pp), "tasks violating max-superadditivity":
            m["share_violating"].map(pp), "note": m["note"]})), "",
            "phi_i = (v_i + v12 - v_j) / 2 (Shapley); a positive tax is a violation of "
            "max-superadditivity, v12 < max(v1, v2).", ""]
    L += ["## Predicting the tax from conversation shape", ""]
    p = r.prediction
    if p is None:
        L += ["_Not fitted._", ""]
    else:
        f = p.to_frame()
        L += [f"{len(p.cells)} model x task cells ({p.n_cells_left_out} left out with an "
              f"undefined tax or feature; {p.missing_transcripts} pair rollouts without a "
              "transcript left out). Pooled out-of-fold R^2 uses all held-out predictions "
              "against the grand mean; mean per-fold R^2 averages each fold against its own "
              "mean; they are different numbers.", "",
              markdown_table(pd.DataFrame({
                  "scheme": f["scheme"], "cells": f.get("n"), "folds": f.get("n_folds"),
                  "pooled OOF R^2": f.get("r2_pooled_oof", pd.Series(dtype=float)).map(
                      lambda v: "n/a" if pd.isna(v) else f"{v:.3f}"),
                  "mean per-fold R^2": f.get("r2_mean_fold", pd.Series(dtype=float)).map(
                      lambda v: "n/a" if pd.isna(v) else f"{v:.3f}"),
                  "Spearman rho": f.get("spearman_rho", pd.Series(dtype=float)).map(
                      lambda v: "n/a" if pd.isna(v) else f"{v:.3f}"),
                  "Spearman p": f.get("spearman_p", pd.Series(dtype=float)).map(p_cell),
                  "permutation p (R^2)": f.get("r2_perm_p", pd.Series(dtype=float)).map(p_cell),
                  "reason": f["reason"]})), ""]
        if p.grouped is not None:
            L += ["Standardised coefficients (fit on all cells, alpha "
                  f"{p.grouped.alpha_full:g}):", "", markdown_table(p.grouped.to_frame().assign(
                      coef=lambda d: d["coef"].map(lambda v: f"{v:+.4f}"))), ""]
    L += ["## Four-stage cascade (Figure 5)", ""]
    if r.stage_rates is None:
        L += [f"_Unavailable: {r.cascade_note}._", ""]
    else:
        if "fig5" in figs:
            L += [f"![Figure 5]({figs['fig5']})", ""]
        s = r.stage_rates
        L += [markdown_table(pd.DataFrame({
            "family": s["family"], "stage": s["stage"], "outcome": s["outcome"],
            "k/n": [f"{k}/{n}" for k, n in zip(s["k"], s["n"])], "rate (%)": s["rate"].map(pp),
            f"{level} Wilson": [f"[{pp(a)}, {pp(b)}]" for a, b in zip(s["ci_low"], s["ci_high"])],
            "note": s["note"]})), "",
            "Label 1 = the stage failed in the rollout (L1 grounding, L2 querying, L3 "
            "integration, L4 re-derivation).", ""]
        if r.stage_rates_mixed is not None:
            sm = r.stage_rates_mixed[r.stage_rates_mixed["family"] == "all"]
            sh = s[s["family"] == "all"].set_index(["stage", "outcome"])
            L += ["Mixed pairs against same-model pairs (all families):", "", markdown_table(
                pd.DataFrame({
                    "stage": sm["stage"], "outcome": sm["outcome"],
                    "mixed k/n": [f"{k}/{n}" for k, n in zip(sm["k"], sm["n"])],
                    "mixed rate (%)": sm["rate"].map(pp),
                    f"mixed {level} Wilson": [f"[{pp(a)}, {pp(b)}]"
                                              for a, b in zip(sm["ci_low"], sm["ci_high"])],
                    "same-model rate (%)": [pp(sh.loc[(st, oc), "rate"]) for st, oc in
                                            zip(sm["stage"], sm["outcome"])]})), ""]
    L += ["## Prompt intervention (Figure 6)", ""]
    if r.intervention.empty:
        L += ["_No prompt-variant rollouts in the run._", ""]
    else:
        if "fig6" in figs:
            L += [f"![Figure 6]({figs['fig6']})", ""]
        L += ["Recovered share of the tax, (pair_variant - pair_baseline) / (solo - "
              f"pair_baseline), in %; subscripts are half-widths of the {level} interval; bold "
              "marks the column maximum.", "", figure6_markdown(r.intervention), ""]
        if "fig6_table" in figs:
            L += [f"![Figure 6 table]({figs['fig6_table']})", ""]
    return "\n".join(L)
