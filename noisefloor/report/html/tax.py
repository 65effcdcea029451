"""The page of ``noisefloor tax report``: the heatmap, the per-task ratio gap, the stage rates,
the intervention table and the mixed pairs, each cell linking to its rollouts in the viewer.

Links are relative (``viewer?model=...&family=...``): they open when the report is served by
``noisefloor tax view RUN --report report.html``, which serves the viewer beside it.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlencode

import pandas as pd

from noisefloor.report.html.page import OKABE_ITO, Block, Markup, Page, Table, cells, esc
from noisefloor.report.html.render import page_for, shown
from noisefloor.report.html.svg import bars_svg
from noisefloor.report.text import p_cell, pp
from noisefloor.tax.report import TaxReport

#: Path of the viewer relative to the report, as ``noisefloor tax view`` serves both.
VIEWER = "viewer"


def view_link(**filters: Any) -> str:
    """The viewer's address with ``filters`` (model, task, family, mode, variant, outcome,
    label) preset.

    Examples
    --------
    >>> view_link(model="m+n", family="csp", mode="pair")
    'viewer?model=m%2Bn&family=csp&mode=pair'
    """
    return VIEWER + "?" + urlencode({k: v for k, v in filters.items() if v not in (None, "")})


def _mix(a: str, b: str, t: float) -> str:
    ca = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb))


def tax_color(tax: float, scale: float) -> str:
    """Diverging cell colour: white at 0, vermillion for a tax (pair below solo), blue for a
    gain, saturating at ``scale`` (Okabe-Ito hues, distinguishable without red-green vision).

    Examples
    --------
    >>> tax_color(0.0, 0.2), tax_color(0.2, 0.2), tax_color(float("nan"), 0.2)
    ('#ffffff', '#e69e66', '#eeeeee')
    """
    if tax != tax:
        return "#eeeeee"
    t = min(1.0, abs(tax) / scale) * 0.6
    return _mix("#ffffff", OKABE_ITO["vermillion"] if tax > 0 else OKABE_ITO["blue"], t)


def _heatmap(r: TaxReport, data: dict) -> Table:
    fc = r.family_cells
    models = list(dict.fromkeys(fc["model"]))
    fams = list(dict.fromkeys(fc["family"]))
    scale = max([abs(v) for v in fc["tax"] if v == v] + [0.05])
    grid: dict[str, list] = {"model": models}
    colors: dict[str, list] = {"model": [""] * len(models)}
    for f in fams:
        grid[f], colors[f] = [], []
        for m in models:
            hit = [i for i, (mm, ff) in enumerate(zip(fc["model"], fc["family"]))
                   if mm == m and ff == f]
            if not hit:
                grid[f].append("")
                colors[f].append("")
                continue
            i = hit[0]
            rec = fc.iloc[i]
            grid[f].append((shown(data, f"family_cells.{i}.tax", "pp+"),
                             view_link(model=m, family=f, mode="pair")))
            colors[f].append(tax_color(float(rec["tax"]), scale))
    frame = cells(grid)
    tips = [f"{m}: tax per family; a cell links to its pair rollouts" for m in models]
    return Table(frame, caption="Tax (solo minus pair, pp) by model and family; darker "
                 "vermillion = larger tax, blue = the pair did better", table_id="heatmap",
                 row_titles=tips, cell_colors=pd.DataFrame(colors))


def _cells_table(r: TaxReport, data: dict, level: str) -> Table:
    fc = r.family_cells
    rows, tips = [], []
    for i, rec in enumerate(fc.to_dict(orient="records")):
        k = f"family_cells.{i}"
        rows.append({"model": (rec["model"], view_link(model=rec["model"])),
                     "family": (rec["family"], view_link(model=rec["model"],
                                                         family=rec["family"])),
                     "instances": shown(data, f"{k}.n_instances", "int"),
                     "solo": shown(data, f"{k}.solo", "pp"),
                     "pair": shown(data, f"{k}.pair", "pp"),
                     "tax (pp)": shown(data, f"{k}.tax", "pp+"),
                     f"{level} CI low": shown(data, f"{k}.ci_low", "pp+"),
                     "high": shown(data, f"{k}.ci_high", "pp+"),
                     "ratio gap (%)": shown(data, f"{k}.ratio_gap", "pp"),
                     "W/L/T": f"{rec['wins']}/{rec['losses']}/{rec['ties']}",
                     "sign p": shown(data, f"{k}.sign_p", "p"), "note": rec["note"]})
        tips.append(f"{rec['model']} / {rec['family']}: tax {pp(rec['tax'], signed=True)} pp "
                    f"[{pp(rec['ci_low'], signed=True)}, {pp(rec['ci_high'], signed=True)}]\n"
                    f"W/L/T {rec['wins']}/{rec['losses']}/{rec['ties']}, sign p "
                    f"{p_cell(rec['sign_p'])}")
    return Table(cells(rows), interactive=True, table_id="family-cells", row_titles=tips)


def _stage_table(frame: pd.DataFrame, data: dict, key: str, level: str, tid: str) -> Table:
    """Stage rates, one row per (family, stage): failed and successful rollouts side by side;
    each k links to the rollouts so labelled."""
    rows, tips = [], []
    index = {(r["family"], r["stage"], r["outcome"]): i
             for i, r in enumerate(frame.to_dict(orient="records"))}
    for fam, stage in dict.fromkeys((f, s) for f, s, _ in index):
        row: dict[str, Any] = {"family": fam, "stage": stage}
        tip = [f"{fam} {stage}"]
        for outcome, name in (("failed", "failure"), ("success", "success")):
            i = index.get((fam, stage, outcome))
            if i is None:
                row.update({f"{outcome} k": "", f"{outcome} n": "", f"{outcome} rate (%)": "",
                            f"{outcome} {level} Wilson": ""})
                continue
            k = f"{key}.{i}"
            rec = frame.iloc[i]
            link = view_link(family=None if fam == "all" else fam, mode="pair", label=stage,
                             outcome=name)
            row[f"{outcome} k"] = (shown(data, f"{k}.k", "int"), link)
            row[f"{outcome} n"] = shown(data, f"{k}.n", "int")
            row[f"{outcome} rate (%)"] = shown(data, f"{k}.rate", "pp")
            row[f"{outcome} {level} Wilson"] = Markup(
                f"[{shown(data, f'{k}.ci_low', 'pp')}, {shown(data, f'{k}.ci_high', 'pp')}]")
            tip.append(f"{outcome}: {rec['k']}/{rec['n']} ({pp(rec['rate'])}%)"
                       + (f", {rec['note']}" if rec["note"] else ""))
        rows.append(row)
        tips.append("\n".join(tip) + "\nk links to the rollouts so labelled")
    return Table(cells(rows).fillna(""), interactive=True, table_id=tid, row_titles=tips)


def _verdict(r: TaxReport, data: dict) -> str:
    fc = r.family_cells
    defined = [i for i, v in enumerate(fc["tax"]) if v == v]
    if not defined:
        return "No model x family cell has a defined tax (see the notes)."
    i = max(defined, key=lambda j: fc["tax"].iloc[j])
    rec = fc.iloc[i]
    above = int(sum(1 for j in defined if fc["ci_low"].iloc[j] > 0))
    taxed = int(sum(1 for j in defined if fc["tax"].iloc[j] > 0))
    k = f"family_cells.{i}"
    return (f"Working in pairs cost accuracy in {taxed} of {len(defined)} model x family cells "
            f"(interval above 0 in {above}); the largest tax is {shown(data, k + '.tax', 'pp+')}"
            f" pp for {esc(rec['model'])} on {esc(rec['family'])} (solo "
            f"{shown(data, k + '.solo', 'pp')}% against pair {shown(data, k + '.pair', 'pp')}%, "
            f"{100 * r.confidence:g}% interval [{shown(data, k + '.ci_low', 'pp+')}, "
            f"{shown(data, k + '.ci_high', 'pp+')}] pp).")


@page_for(TaxReport)
def tax_page(r: TaxReport, **_: Any) -> Page:
    """The page of ``noisefloor tax report``."""
    data = r.to_dict()
    level = f"{100 * r.confidence:g}%"
    facts = [f"{r.n_rollouts} rollouts from {', '.join(map(str, r.sources))}; "
             f"{r.n_infrastructure_errors} infrastructure errors (left out of every mean)",
             "Cells link to their rollouts in the transcript viewer: open this page through "
             "`noisefloor tax view RUN --report report.html`."] + list(r.notes)
    blocks = [Block("h2", "Tax by model and family (Figure 3)"),
              Block("table", _heatmap(r, data)),
              Block("table", _cells_table(r, data, level))]
    tt = r.tasks
    blocks += [Block("h2", "Per-task ratio gap (Figure 4)"),
               Block("svg", bars_svg(
                   [f"{t} †" if e else str(t) for t, e in zip(tt["task"], tt["exploratory"])],
                   [float(v) for v in tt["ratio_gap"]],
                   tips=[f"{t} ({f}): solo {pp(s)}%, pair {pp(p)}%, tax {pp(x, signed=True)} "
                         f"pp, ratio gap {pp(g)}%" for t, f, s, p, x, g in
                         zip(tt["task"], tt["family"], tt["solo"], tt["pair"], tt["tax"],
                             tt["ratio_gap"])],
                   hrefs=[view_link(task=t, mode="pair") for t in tt["task"]],
                   colors=[{"spatial": OKABE_ITO["blue"], "relational": OKABE_ITO["orange"],
                            "csp": OKABE_ITO["green"]}.get(str(f), OKABE_ITO["purple"])
                           for f in tt["family"]],
                   xlabel="ratio gap (tax / solo, %); † exploratory (solo below target)"),
                   "Bars coloured by family; each bar links to the task's pair rollouts."),
               Block("table", Table(cells({
                   "task": [(f"{t} †" if e else str(t), view_link(task=t)) for t, e in
                            zip(tt["task"], tt["exploratory"])],
                   "family": tt["family"], "models": tt["n_models"],
                   "solo": [shown(data, f"tasks.{i}.solo", "pp") for i in range(len(tt))],
                   "pair": [shown(data, f"tasks.{i}.pair", "pp") for i in range(len(tt))],
                   "tax (pp)": [shown(data, f"tasks.{i}.tax", "pp+") for i in range(len(tt))],
                   "ratio gap (%)": [shown(data, f"tasks.{i}.ratio_gap", "pp")
                                     for i in range(len(tt))]}),
                   interactive=True, table_id="tasks"))]
    blocks.append(Block("h2", "Four-stage cascade (Figure 5)"))
    if r.stage_rates is None:
        blocks.append(Block("p", "No labels: pass labels or a judge."))
    else:
        blocks += [Block("p", "Label 1 = the stage failed in the rollout (L1 grounding, L2 "
                              "querying, L3 integration, L4 re-derivation); k links to the "
                              "rollouts so labelled."),
                   Block("table", _stage_table(r.stage_rates, data, "stage_rates", level,
                                               "stage-rates"))]
        if r.stage_rates_mixed is not None:
            blocks += [Block("p", "Mixed pairs:"),
                       Block("table", _stage_table(r.stage_rates_mixed, data,
                                                   "stage_rates_mixed", level,
                                                   "stage-rates-mixed"))]
    blocks.append(Block("h2", "Prompt intervention (Figure 6)"))
    if r.intervention.empty:
        blocks.append(Block("p", "No prompt-variant rollouts in the run."))
    else:
        iv = r.intervention
        blocks += [Block("p", "Recovered share of the tax, (pair_variant - pair_baseline) / "
                              f"(solo - pair_baseline), in %, with its {level} interval."),
                   Block("table", Table(cells([{
                       "variant": (rec["variant"], view_link(variant=rec["variant"])),
                       "family": (rec["family"], view_link(
                           variant=rec["variant"],
                           family=None if rec["family"] == "all" else rec["family"])),
                       "cells": rec["n_cells"],
                       "solo": shown(data, f"intervention.{i}.solo", "pp"),
                       "pair baseline": shown(data, f"intervention.{i}.pair_baseline", "pp"),
                       "pair variant": shown(data, f"intervention.{i}.pair_variant", "pp"),
                       "recovered (%)": shown(data, f"intervention.{i}.recovered", "pp"),
                       f"{level} low": shown(data, f"intervention.{i}.ci_low", "pp"),
                       "high": shown(data, f"intervention.{i}.ci_high", "pp"),
                       "note": rec["note"]} for i, rec in enumerate(iv.to_dict("records"))]),
                       interactive=True, table_id="intervention"))]
    blocks.append(Block("h2", "Mixed pairs and the game (Figure 7)"))
    if r.mixed.empty:
        blocks.append(Block("p", "No mixed pairs in the run."))
    else:
        blocks.append(Block("table", Table(cells([{
            "pair (a+b)": (rec["pair"], view_link(model=rec["pair"])),
            "tasks": rec["n_tasks"], "v1": shown(data, f"mixed.{i}.v1", "pp"),
            "v2": shown(data, f"mixed.{i}.v2", "pp"), "v12": shown(data, f"mixed.{i}.v12", "pp"),
            "midpoint": shown(data, f"mixed.{i}.midpoint", "pp"),
            "tax (pp)": shown(data, f"mixed.{i}.tax", "pp+"),
            "phi1": shown(data, f"mixed.{i}.phi1", "pp"), "phi2": shown(data, f"mixed.{i}.phi2", "pp"),
            "tasks violating max-superadditivity (%)": shown(
                data, f"mixed.{i}.share_violating", "pp"), "note": rec["note"]}
            for i, rec in enumerate(r.mixed.to_dict("records"))]), interactive=True,
            table_id="mixed")))
    if r.prediction is not None and r.prediction.grouped is not None:
        g = r.prediction.grouped
        blocks += [Block("h2", "Predicting the tax from conversation shape"),
                   Block("p", f"GroupKFold by task over {g.n} cells: pooled out-of-fold R^2 "
                              f"{g.r2_pooled_oof:.3f}, mean per-fold R^2 {g.r2_mean_fold:.3f}, "
                              f"permutation p {p_cell(g.r2_perm_p)}." if math.isfinite(
                                  g.r2_pooled_oof) else "Not fitted (see the notes).")]
    return Page("Collaboration-tax report", _verdict(r, data), data, "tax", facts, blocks)
