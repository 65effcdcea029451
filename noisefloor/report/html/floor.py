"""Pages of the noise-floor analyses: ``audit``, ``floor`` and ``contrast --log``.

Each builder takes the facts the terminal text and ``report.md`` print (the functions of
:mod:`noisefloor.report.text`) and the numbers of the result's ``to_dict()`` (its ``--json``).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from noisefloor.floor.contrast_table import POOLED, seed_text
from noisefloor.pipelines.audit import AuditRun
from noisefloor.pipelines.contrast import ContrastRun
from noisefloor.pipelines.floor import FloorRun
from noisefloor.report.html.page import OKABE_ITO, VERDICT_FILL, Block, Page, Table, cells
from noisefloor.report.html.render import page_for, shown
from noisefloor.report.html.svg import ForestRow, forest_svg
from noisefloor.report.text import (
    claim_facts,
    floor_facts,
    level_text,
    log_contrast_facts,
    p_cell,
    pp,
)

NULL_FILL = OKABE_ITO["blue"]


def _tip_null(rec: dict, level: str) -> str:
    seed = seed_text(rec["level"], rec["seed"], prefix="seed ")
    return (f"{rec['contrast']} ({seed}) — null contrast\n"
            f"W/L/T {rec['wins']}/{rec['losses']}/{rec['ties']}\n"
            f"gap {pp(rec['gap'], signed=True)} pp, {level} CI "
            f"[{pp(rec['ci_low'], signed=True)}, {pp(rec['ci_high'], signed=True)}] pp\n"
            f"sign test p {p_cell(rec['p_value'])}\n"
            f"certified null by: {rec.get('certified_by') or 'unstated'}")


def null_rows(nf_frame: pd.DataFrame, n_seeds: int, level: str) -> list[ForestRow]:
    """Forest rows of a floor's null contrasts (pooled first; one seed: per-seed rows only)."""
    t = nf_frame if n_seeds > 1 else nf_frame[nf_frame["level"] != POOLED]
    rows = []
    for rec in t.to_dict(orient="records"):
        pooled = rec["level"] == POOLED
        section = ("Null contrasts, one seed" if n_seeds <= 1 else
                   "Null contrasts, pooled over seeds" if pooled else "Null contrasts, per seed")
        name = rec["contrast"] + (" (clean)" if rec["clean"] else "") + (
            "" if pooled else f", seed {'none' if pd.isna(rec['seed']) else int(rec['seed'])}")
        rows.append(ForestRow(section, name, rec["gap"], rec["ci_low"], rec["ci_high"],
                              NULL_FILL, _tip_null(rec, level)))
    rows.sort(key=lambda r: r.section != "Null contrasts, pooled over seeds")
    return rows


def contrast_rows(frame: pd.DataFrame, level: str, section: str) -> list[ForestRow]:
    """Forest rows of a log's contrasts (coloured by verdict when placed)."""
    rows = []
    for rec in frame.to_dict(orient="records"):
        where = seed_text(rec["level"], rec["seed"], prefix="seed ")
        subset = "" if rec.get("subset", "all") == "all" else ", coord.-active"
        verdict = rec.get("verdict", "")
        cert = rec.get("certified_by", "")
        tip = (f"{rec['contrast']}, trial {rec['trial']}{subset}, {where}\n"
               f"W/L/T {rec['wins']}/{rec['losses']}/{rec['ties']}\n"
               f"gap {pp(rec['gap'], signed=True)} pp, {level} CI "
               f"[{pp(rec['ci_low'], signed=True)}, {pp(rec['ci_high'], signed=True)}] pp\n"
               f"sign test p {p_cell(rec['p_value'])}"
               + (f"\nverdict: {verdict} ({rec['ratio']:.2f}x floor)" if verdict
                  and rec.get("ratio") == rec.get("ratio") else
                  (f"\nverdict: {verdict}" if verdict else ""))
               + (f"\ncertified null by: {cert}" if cert else ""))
        rows.append(ForestRow(section, f"{rec['contrast']}, trial {rec['trial']}{subset}, "
                              f"{where}", rec["gap"], rec["ci_low"], rec["ci_high"],
                              VERDICT_FILL.get(verdict, NULL_FILL if cert else "#444444"), tip))
    return rows


def _null_table(data: dict, prefix: str, nf_frame: pd.DataFrame, n_seeds: int,
                level: str) -> Table:
    keep = [i for i, lv in enumerate(nf_frame["level"]) if n_seeds > 1 or lv != POOLED]
    rows = []
    for i in keep:
        rec = nf_frame.iloc[i]
        k = f"{prefix}.{i}"
        seed = seed_text(rec["level"], rec["seed"])
        rows.append({"contrast": rec["contrast"] + (" (clean)" if rec["clean"] else ""),
                     "seed": seed, "wins": shown(data, f"{k}.wins", "int"),
                     "losses": shown(data, f"{k}.losses", "int"),
                     "ties": shown(data, f"{k}.ties", "int"),
                     "gap pp": shown(data, f"{k}.gap", "pp+"),
                     f"{level} CI low": shown(data, f"{k}.ci_low", "pp+"),
                     "high": shown(data, f"{k}.ci_high", "pp+"),
                     "p": shown(data, f"{k}.p_value", "p"),
                     "p Bonferroni": shown(data, f"{k}.p_adjusted", "p"),
                     "certified null by": rec["certified_by"] or "unstated"})
    return Table(cells(rows), interactive=True, table_id="null-contrasts",
                 row_titles=[_tip_null(nf_frame.iloc[i].to_dict(), level) for i in keep])


#: The column heading of an adjusted p-value, by its ``method``.
_ADJUSTED_LABEL = {"bonferroni": "p Bonferroni", "holm": "p Holm", "bh": "p BH"}


def _contrast_table(data: dict, prefix: str, frame: pd.DataFrame, level: str,
                    table_id: str, adjusted: bool = False) -> Table:
    rows = []
    for i, rec in enumerate(frame.to_dict(orient="records")):
        k = f"{prefix}.{i}"
        row: dict[str, Any] = {"contrast": rec["contrast"],
                               "seed": seed_text(rec["level"], rec["seed"]),
                               "trial": str(rec["trial"]), "subset": rec.get("subset", "all"),
                               "wins": shown(data, f"{k}.wins", "int"),
                               "losses": shown(data, f"{k}.losses", "int"),
                               "ties": shown(data, f"{k}.ties", "int"),
                               "gap pp": shown(data, f"{k}.gap", "pp+"),
                               f"{level} CI low": shown(data, f"{k}.ci_low", "pp+"),
                               "high": shown(data, f"{k}.ci_high", "pp+"),
                               "p": shown(data, f"{k}.p_value", "p")}
        if adjusted:
            row[_ADJUSTED_LABEL[rec["method"]]] = shown(data, f"{k}.p_adjusted", "p")
        if "verdict" in rec:
            row["x floor"] = shown(data, f"{k}.ratio", "ratio")
            row["verdict"] = rec["verdict"] + (" *" if rec.get("flag") else "")
        if rec.get("certified_by"):
            row["certified null by"] = rec["certified_by"]
        rows.append(row)
    frame_out = cells(rows).fillna("-")
    return Table(frame_out, interactive=True, table_id=table_id,
                 row_titles=[r.tip for r in contrast_rows(frame, level, "")])


def _floor_verdict(data: dict, prefix: str, nf) -> str:
    p = f"{prefix}." if prefix else ""
    if not math.isfinite(nf.floor):
        return f"No noise floor could be set: {nf.reason or 'no certified null contrast'}."
    return (f"A gap smaller than the noise floor of {shown(data, p + 'floor', 'pp')} pp "
            f"(the upper {level_text(nf.confidence)} bound of {nf.floor_contrast}) cannot be "
            "told apart from run-to-run noise; the envelope, the largest such bound over every "
            f"certified null contrast, is {shown(data, p + 'envelope', 'pp')} pp.")


@page_for(FloorRun)
def floor_page(run: FloorRun, **_: Any) -> Page:
    """The page of ``noisefloor floor``."""
    nf = run.noise_floor
    data = run.to_dict()
    level = level_text(nf.confidence)
    facts = [f"{run.n_trials} trials, {run.n_tasks} tasks, {run.n_protocols} protocol(s) from "
             f"{', '.join(run.sources)}",
             f"null gaps {pp(nf.null_gap_min, signed=True)} to {pp(nf.null_gap_max, signed=True)}"
             f" pp, SD {pp(nf.null_gap_sd)} pp"]
    facts += [text for _, text in floor_facts(nf, run.null_contrasts.table, run.skipped)]
    frame = nf.to_frame()
    blocks = [Block("h2", "Forest plot"),
              Block("svg", forest_svg(null_rows(frame, nf.n_seeds, level), floor=nf.floor,
                                      envelope=nf.envelope),
                    "Hover a row for its W/L/T, interval, p and what certified it as null."),
              Block("h2", "Certified null contrasts"),
              Block("table", _null_table(data, "contrasts", frame, nf.n_seeds, level))]
    return Page("Noise floor", _floor_verdict(data, "", nf), data, "floor", facts, blocks)


@page_for(ContrastRun)
def contrast_page(run: ContrastRun, **_: Any) -> Page:
    """The page of ``noisefloor contrast --log``."""
    data = run.to_dict()
    level = level_text(run.confidence)
    rows = run.contrasts
    pooled = [i for i, lv in enumerate(rows["level"]) if lv == POOLED]
    i = pooled[0] if pooled else 0
    k = f"contrasts.{i}"
    rec = rows.iloc[i]
    where = "pooled over seeds" if pooled else seed_text(rec["level"], rec["seed"], prefix="seed ")
    verdict = (f"{run.a} minus {run.b} ({where}, trial {rec['trial']}): gap "
               f"{shown(data, k + '.gap', 'pp+')} pp, {level} CI "
               f"[{shown(data, k + '.ci_low', 'pp+')}, {shown(data, k + '.ci_high', 'pp+')}] pp, "
               f"W/L/T {shown(data, k + '.wins', 'int')}/{shown(data, k + '.losses', 'int')}/"
               f"{shown(data, k + '.ties', 'int')}, sign test p {shown(data, k + '.p_value', 'p')}"
               + (f"; a certified null contrast ({rec['certified_by']})."
                  if rec["certified_by"] else "."))
    facts = [f"from {', '.join(run.sources)}: paired by task and trial; wins = tasks where "
             f"{run.a} succeeded and {run.b} failed"] + [f"note: {n}" for n in run.notes]
    shown_rows = rows.drop(columns=[c for c in ("m",) if c in rows.columns])
    blocks = [Block("h2", "Forest plot"),
              Block("svg", forest_svg(contrast_rows(shown_rows, level, f"{run.a}-{run.b}"))),
              Block("h2", "Contrasts"),
              Block("table", _contrast_table(data, "contrasts", shown_rows, level,
                                             "contrasts", adjusted=True))]
    return Page(f"Contrast {run.a}-{run.b}", verdict, data, "contrast", facts, blocks)


def audit_verdict(run: AuditRun, data: dict) -> str:
    """The audit's verdict sentence (with its numbers as :func:`shown` spans)."""
    c = run.result.counts
    n = sum(c.values())
    return (f"Against a noise floor of {shown(data, 'floor', 'pp')} pp and an envelope of "
            f"{shown(data, 'envelope', 'pp')} pp, {shown(data, 'counts.below', 'int')} of {n} "
            f"claims lie below the floor (unresolved, not refuted), "
            f"{shown(data, 'counts.inside', 'int')} inside the envelope and "
            f"{shown(data, 'counts.above', 'int')} above it.")


@page_for(AuditRun)
def audit_page(run: AuditRun, **_: Any) -> Page:
    """The page of ``noisefloor audit``."""
    nf = run.noise_floor
    data = run.to_dict()
    level = level_text(nf.confidence)
    facts = [f"floor from {run.floor_source}; claims from {run.claims_source}"]
    facts += [text for _, text in floor_facts(nf, run.null_table, run.skipped)]
    head, cfacts, flagged = claim_facts(run)
    frame = nf.to_frame()
    forest = null_rows(frame, nf.n_seeds, level)
    if run.log_contrasts is not None and not run.log_contrasts.empty:
        forest += contrast_rows(run.log_contrasts, level, "Contrasts in this log (gap placed)")
    claims = data["claims"]
    claim_rows = []
    table_rows = []
    for i, v in enumerate(run.result.verdicts):
        ranged = v.effect_low == v.effect_low and v.effect_low != v.effect_high
        tip = (f"{v.paper}: {v.benchmark}\nreported {v.reported or ''}\nplaced "
               f"{pp(v.effect)} pp = {v.ratio:.2f}x floor\nverdict: {v.verdict}"
               + (f"\nflag: {v.flag}" if v.flag else ""))
        claim_rows.append(ForestRow("Claims (end farthest from 0 placed)",
                                    f"{v.paper}: {v.benchmark}", v.effect,
                                    v.effect_low if ranged else math.nan,
                                    v.effect_high if ranged else math.nan,
                                    VERDICT_FILL[v.verdict], tip, marker="diamond"))
        table_rows.append({"paper": v.paper, "benchmark": v.benchmark,
                           "reported": claims[i]["reported"] or "",
                           "placed pp": shown(data, f"claims.{i}.effect", "pp"),
                           "x floor": shown(data, f"claims.{i}.ratio", "ratio"),
                           "verdict": v.verdict, "flag": v.flag})
    blocks = [Block("h2", "Forest plot"),
              Block("svg", forest_svg(forest + claim_rows, floor=nf.floor, envelope=nf.envelope,
                                      xlabel="gap / claimed effect (percentage points)"),
                    "Blue band: the noise floor; orange: the envelope. A claim's pale bar is "
                    "its claimed range, not a confidence interval. Hover a row for details."),
              Block("h2", "The claims"), Block("p", head), Block("facts", [t for _, t in cfacts]),
              Block("table", Table(cells(table_rows), interactive=True,
                                   table_id="claims",
                                   row_titles=[r.tip for r in claim_rows]))]
    if flagged:
        blocks.append(Block("facts", flagged))
    blocks += [Block("h2", "Null contrasts the floor is built from"),
               Block("table", _null_table(data, "noise_floor.contrasts", frame, nf.n_seeds,
                                          level))]
    if run.from_logs:
        blocks.append(Block("h2", "Contrasts in this log"))
        if run.log_contrasts is not None and not run.log_contrasts.empty:
            blocks.append(Block("table", _contrast_table(data, "log_contrasts",
                                                         run.log_contrasts, level,
                                                         "log-contrasts")))
        blocks.append(Block("facts", [t for _, t in log_contrast_facts(run)]))
    if run.other_contrasts is not None and not run.other_contrasts.empty:
        blocks += [Block("h2", "Other contrasts in the count table"),
                   Block("table", _contrast_table(data, "other_contrasts", run.other_contrasts,
                                                  level, "other-contrasts"))]
    return Page("Noise-floor audit", audit_verdict(run, data), data, "audit", facts, blocks)
