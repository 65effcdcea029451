"""The page of ``noisefloor compare``: the verdict, A - B per trial and pooled against the
floor, and the per-task table of flips (which tasks A won, lost or tied, per trial)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from noisefloor.compare import Comparison
from noisefloor.report.html.page import OKABE_ITO, VERDICT_FILL, Block, Page, Table, cells
from noisefloor.report.html.render import page_for, shown
from noisefloor.report.html.svg import ForestRow, forest_svg
from noisefloor.report.text import p_cell, pp

#: Most tasks the flips table lists; beyond it, the tasks with a win or a loss are listed.
MAX_FLIP_TASKS = 5000

_LETTER = {"win": "W", "loss": "L", "tie": "T", "undefined": "?", "only a": "A only",
           "only b": "B only"}
_COLOR = {"W": "#cce8df", "L": "#f6d5c2", "T": "", "?": "#eeeeee", "A only": "#eeeeee",
          "B only": "#eeeeee"}


def flips_table(flips: pd.DataFrame, limit: int = MAX_FLIP_TASKS) -> tuple[Table, str]:
    """One row per task (and benchmark, model, seed): the flip at each trial and its W/L/T.

    Returns the table and a note (empty unless tasks were left out of the listing).
    """
    if flips.empty:
        return Table(cells([])), ""
    f = flips.assign(seed=flips["seed"].map(lambda s: "none" if s is None or pd.isna(s)
                                            else str(int(s))),
                     letter=flips["flip"].map(_LETTER))
    keys = [c for c in ("benchmark", "model", "seed") if f[c].nunique() > 1] + ["task_id"]
    wide = f.pivot_table(index=keys, columns="trial", values="letter", aggfunc="first")
    wide.columns = [f"trial {t}" for t in wide.columns]
    counts = f.groupby(keys)["flip"].value_counts().unstack(fill_value=0)
    for name in ("win", "loss", "tie"):
        wide[{"win": "wins", "loss": "losses", "tie": "ties"}[name]] = (
            counts[name] if name in counts.columns else 0)
    wide = wide.reset_index()
    note = ""
    if len(wide) > limit:
        moved = wide[(wide["wins"] > 0) | (wide["losses"] > 0)]
        note = (f"{len(wide):,} tasks: the {min(len(moved), limit):,} with a win or a loss "
                f"are listed (ties everywhere left out of the listing, not of the counts)")
        wide = moved.head(limit)
    wide = wide.fillna("")
    shown_frame = cells({c: [str(v) for v in wide[c]] for c in wide.columns})
    colours = cells({c: [_COLOR.get(str(v), "") if str(c).startswith("trial ") else ""
                         for v in wide[c]] for c in wide.columns})
    tips = [f"{r['task_id']}: W/L/T {r['wins']}/{r['losses']}/{r['ties']} over the trials"
            for r in wide.to_dict(orient="records")]
    return Table(shown_frame, caption="Per task: W = A succeeded and B failed, L = the reverse, "
                 "T = the same outcome, ? = undefined in one arm", interactive=True,
                 table_id="flips", row_titles=tips, cell_colors=colours), note


@page_for(Comparison)
def compare_page(r: Comparison, *, spell: Any = None, **_: Any) -> Page:
    """The page of ``noisefloor compare``."""
    data = r.to_dict()
    data["advice"] = r.advice_text(spell)
    level = f"{r.confidence * 100:g}%"
    floor = (f"the floor of {shown(data, 'floor', 'pp')} pp" if math.isfinite(r.floor)
             else "no floor (no certified re-run of either arm)")
    verdict = (f"{r.verdict}: {r.a} minus {r.b}, pooled over trials, is "
               f"{shown(data, 'pooled.gap', 'pp+')} pp ({level} CI "
               f"[{shown(data, 'pooled.ci_low', 'pp+')}, {shown(data, 'pooled.ci_high', 'pp+')}]"
               f", W/L/T {shown(data, 'pooled.wins', 'int')}/{shown(data, 'pooled.losses', 'int')}"
               f"/{shown(data, 'pooled.ties', 'int')}, sign test p "
               f"{shown(data, 'pooled.p_value', 'p')}) against {floor}.")
    facts = [r.verdict_text, f"arms: A = {r.a}, B = {r.b} (by {r.by}); gap = A - B, positive "
             f"means A better; {r.n_tasks} tasks paired; from {', '.join(r.sources)}"]
    if data["advice"]:
        facts.append(f"to get a floor: {data['advice']}")
    facts += list(r.notes)
    forest = []
    for row in r.trial_rows:
        seed = "none" if row.seed is None else row.seed
        forest.append(ForestRow("A - B per trial", f"trial {row.trial}, seed {seed}", row.gap,
                                row.ci_low, row.ci_high, OKABE_ITO["blue"],
                                f"trial {row.trial}, seed {seed}\nW/L/T {row.wins}/{row.losses}/"
                                f"{row.ties}\ngap {pp(row.gap, signed=True)} pp [{pp(row.ci_low, signed=True)}, "
                                f"{pp(row.ci_high, signed=True)}]\nsign test p {p_cell(row.p_value)}"))
    p = r.pooled
    forest.append(ForestRow("Pooled over trials and seeds", "pooled", p.gap, p.ci_low, p.ci_high,
                            VERDICT_FILL.get(r.verdict, "#444444"),
                            f"pooled W/L/T {p.wins}/{p.losses}/{p.ties}\ngap "
                            f"{pp(p.gap, signed=True)} pp, sign test p {p_cell(p.p_value)}\n"
                            f"verdict: {r.verdict}"))
    for n in r.null_contrasts:
        forest.append(ForestRow("Certified re-runs (the floor)", n["contrast"],
                                math.nan, math.nan, math.nan, OKABE_ITO["blue"],
                                f"{n['contrast']}: W/L/T {n['wins']}/{n['losses']}/{n['ties']}\n"
                                f"certified null by: {n['certified_by']}"))
    rows = [{"level": row.level,
             "seed": "all" if row.seed is None else str(row.seed),
             "trial": "all" if row.trial is None else str(row.trial),
             "wins": shown(data, f"{key}.wins", "int"),
             "losses": shown(data, f"{key}.losses", "int"),
             "ties": shown(data, f"{key}.ties", "int"),
             "gap pp": shown(data, f"{key}.gap", "pp+"),
             f"{level} CI low": shown(data, f"{key}.ci_low", "pp+"),
             "high": shown(data, f"{key}.ci_high", "pp+"),
             "sign p": shown(data, f"{key}.p_value", "p"),
             "MDE pp": shown(data, f"{key}.mde", "pp")}
            for row, key in [*((t, f"trials.{i}") for i, t in enumerate(r.trial_rows)),
                             (r.pooled, "pooled")]]
    table, note = flips_table(r.task_flips)
    blocks = [Block("h2", "A - B against the floor"),
              Block("svg", forest_svg(forest, floor=r.floor, envelope=r.envelope),
                    "Hover a row for its W/L/T, interval and p; the certified re-runs that "
                    "set the floor are listed with what certified them."),
              Block("table", Table(cells(rows), table_id="comparison")),
              Block("h2", "Flips per task")]
    if note:
        blocks.append(Block("p", note))
    blocks.append(Block("table", table))
    return Page(f"Compare {r.a} with {r.b}", verdict, data, "compare", facts, blocks)
