"""Text, Markdown and the forest plot of a :class:`~noisefloor.compare.Comparison`.

Every renderer reads the facts of the frozen result only (:func:`comparison_facts`,
:func:`comparison_table`), so the terminal, ``report.md`` and any other page show the same
numbers.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from noisefloor.compare.result import Comparison
from noisefloor.report.text import level_text, pp, text_table

__all__ = ["comparison_facts", "comparison_markdown", "comparison_table", "comparison_text",
           "comparison_forest", "save_comparison_report"]


def _p(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def _pp_or_na(value: float, signed: bool = False) -> str:
    return "n/a" if math.isnan(value) else pp(value, signed=signed)


def comparison_table(result: Comparison) -> pd.DataFrame:
    """The rows as people read them: gaps, intervals and MDE in percentage points."""
    level = level_text(result.confidence)
    rows = []
    for r in result.rows:
        rows.append({
            "level": r.level,
            "seed": "" if r.level == "pooled" else ("none" if r.seed is None else str(r.seed)),
            "trial": "all" if r.trial is None else str(r.trial),
            "W/L/T": f"{r.wins}/{r.losses}/{r.ties}",
            "gap pp": _pp_or_na(r.gap, signed=True),
            f"{level} CI pp": ("n/a" if math.isnan(r.ci_low) else
                               f"[{pp(r.ci_low, signed=True)}, {pp(r.ci_high, signed=True)}]"),
            "sign p": _p(r.p_value),
            "MDE pp": _pp_or_na(r.mde),
        })
    return pd.DataFrame(rows)


def _certified_text(result: Comparison) -> str:
    counts = Counter(r["certified_by"] for r in result.null_contrasts)
    return ", ".join(f"{n} {why}" for why, n in sorted(counts.items()))


def comparison_facts(result: Comparison, spell: Any = None) -> list[tuple[str, str]]:
    """The lines under the table, as ``(key, sentence)`` pairs, in order."""
    facts = [("arms", f"A = {result.a}, B = {result.b} (by {result.by}); gap = A - B, positive "
                      f"means A better; {result.n_tasks} tasks paired")]
    if math.isnan(result.floor):
        facts.append(("floor", "none: no re-run of either arm is certified null"))
        for s in result.skipped_nulls[:3]:
            facts.append(("not certified", f"{s['contrast']}: {s['reason']}"))
        if len(result.skipped_nulls) > 3:
            facts.append(("not certified", f"and {len(result.skipped_nulls) - 3} more re-run "
                                           "pair(s), for the same reasons"))
        facts.append(("to get a floor", result.advice_text(spell)))
    else:
        facts.append(("floor", f"{pp(result.floor)} pp, envelope {pp(result.envelope)} pp "
                               f"(upper {level_text(result.confidence)} bound; set by "
                               f"{result.floor_contrast}), from {len(result.null_contrasts)} "
                               f"certified re-run contrast(s) of the two arms: "
                               f"{_certified_text(result)}"))
        declared = sorted({r["contrast"] for r in result.null_contrasts
                           if r["certified_by"].startswith("declared")})
        if declared:
            facts.append(("declared", "certified only by the user's declaration: "
                                      + ", ".join(declared)))
    facts.append(("verdict", f"{result.verdict}: {result.verdict_text}"))
    for note in result.notes:
        facts.append(("left out", note))
    reasons = sorted({r.reason for r in result.rows if r.reason})
    for reason in reasons:
        facts.append(("n/a", reason))
    return facts


def comparison_text(result: Comparison, spell: Any = None) -> str:
    """The terminal report: the table, then one line per fact."""
    lines = [text_table(comparison_table(result))]
    lines += [f"{key}: {text}" for key, text in comparison_facts(result, spell)]
    return "\n".join(lines)


def comparison_markdown(result: Comparison, spell: Any = None) -> str:
    """``report.md``: a heading, the table as Markdown, the facts as a list."""
    table = comparison_table(result)
    header = "| " + " | ".join(table.columns) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    body = ["| " + " | ".join(map(str, row)) + " |" for row in table.itertuples(index=False)]
    facts = [f"- **{key}**: {text}" for key, text in comparison_facts(result, spell)]
    return "\n".join([f"# {result.a} against {result.b}", "", header, rule, *body, "", *facts,
                      ""])


def comparison_forest(result: Comparison):
    """Forest plot: every per-trial gap and the pooled gap (A - B) with their intervals, against
    the floor band (+/- floor) when there is one. Returns a matplotlib Figure."""
    from noisefloor.report.forest import forest_plot

    rows = []
    for r in result.rows:
        where = "pooled" if r.level == "pooled" else (
            ("" if r.seed is None else f"seed {r.seed}, ") + f"trial {r.trial}")
        rows.append({"label": where, "estimate": r.gap, "ci_low": r.ci_low,
                     "ci_high": r.ci_high,
                     "text": f"{r.wins}/{r.losses}/{r.ties}  p {_p(r.p_value)}"})
    bands = [] if math.isnan(result.floor) else [
        (-result.floor, result.floor, f"floor +/-{pp(result.floor)} pp", "#d9d9d9")]
    title = f"{result.a} - {result.b}: {result.verdict}"
    return forest_plot(pd.DataFrame(rows), annotation="text", bands=bands, scale=100.0,
                       xlabel=f"gap A - B (pp), {level_text(result.confidence)} CI; A = "
                              f"{result.a}, B = {result.b}",
                       title=title,
                       footnote="" if bands else "no floor: no certified re-run of either arm")


def save_comparison_report(result: Comparison, out_dir: str | Path, spell: Any = None,
                           plot: bool = True) -> list[Path]:
    """Write ``report.md`` (and ``forest.png``/``forest.svg`` with ``plot``) into ``out_dir``;
    returns the paths written."""
    from noisefloor.report.forest import save_figure

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = out / "report.md"
    report.write_text(comparison_markdown(result, spell), encoding="utf-8")
    written = [report]
    if plot:
        import matplotlib.pyplot as plt

        fig = comparison_forest(result)
        written += save_figure(fig, out, "forest")
        plt.close(fig)
    return written
