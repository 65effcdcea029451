"""The page of ``noisefloor passk --html``: pass^k curves with intervals per configuration.

It renders a :class:`noisefloor.passk.report.PassHatKReport`
(:func:`noisefloor.passk.pass_hat_k_report` computes it) and computes nothing.
"""

from __future__ import annotations

from typing import Any

from noisefloor.passk.report import PassHatKReport
from noisefloor.report.html.page import Block, Page, Table, cells
from noisefloor.report.html.render import page_for, shown
from noisefloor.report.html.svg import Series, curves_svg

__all__ = ["pass_hat_k_page"]


def _config_name(g: dict, keys: tuple) -> str:
    parts = [f"seed {g[c]}" if c == "seed" else str(g[c]) for c in keys
             if c in g and g[c] is not None and g[c] == g[c]]
    return " / ".join(parts) or "all trials"


def _varying(r: PassHatKReport) -> tuple:
    """The configuration columns that differ between groups (all of them for one group)."""
    if len(r.groups) <= 1:
        return r.keys
    return tuple(c for c in r.keys if len({str(g[c]) for g in r.groups}) > 1) or r.keys


@page_for(PassHatKReport)
def pass_hat_k_page(r: PassHatKReport, **_: Any) -> Page:
    """The page of ``noisefloor passk``."""
    data = r.to_dict()
    level = f"{r.confidence * 100:g}%"
    series, rows = [], []
    for gi, g in enumerate(r.groups):
        name = _config_name(g, _varying(r))
        pts, tips = [], []
        for k, v in g["pass_hat_k"].items():
            iv = g["intervals"][k]
            pts.append((float(k), v, iv["ci_low"], iv["ci_high"]))
            tips.append(f"{name}: pass^{k} = {'n/a' if v != v else f'{v:.3f}'} "
                        f"[{iv['ci_low']:.3f}, {iv['ci_high']:.3f}] ({level}, CLT over "
                        f"{g['n_tasks']} tasks)" + (f"\n{iv['reason']}" if iv["reason"] else ""))
            key = f"groups.{gi}"
            rows.append({"configuration": name, "k": str(k),
                         "pass^k": shown(data, f"{key}.pass_hat_k.{k}", "prop"),
                         f"{level} low": shown(data, f"{key}.intervals.{k}.ci_low", "prop"),
                         "high": shown(data, f"{key}.intervals.{k}.ci_high", "prop"),
                         "tasks": shown(data, f"{key}.n_tasks", "int"),
                         "note": iv["reason"]})
        series.append(Series(name, pts, tips))
    verdict = _verdict(r, data)
    blocks = [Block("h2", "pass^k curves"),
              Block("svg", curves_svg(series, xlabel="k (trials that must all succeed)",
                                      ylabel="pass^k (%)"),
                    f"Bands and bars: {level} intervals over tasks (CLT, tasks as the unit). "
                    "Hover a point for its value."),
              Block("h2", "Values"),
              Block("table", Table(cells(rows), interactive=True, table_id="passk"))]
    return Page("pass^k", verdict, data, "passk", (), blocks)


def _verdict(r: PassHatKReport, data: dict) -> str:
    parts = []
    for gi, g in enumerate(r.groups):
        ks = [k for k, v in g["pass_hat_k"].items() if v == v]
        if not ks:
            continue
        lo, hi = min(ks), max(ks)
        parts.append(f"{_config_name(g, _varying(r))}: pass^{lo} "
                     f"{shown(data, f'groups.{gi}.pass_hat_k.{lo}', 'prop')}"
                     + (f" falls to pass^{hi} {shown(data, f'groups.{gi}.pass_hat_k.{hi}', 'prop')}"
                        if hi != lo else ""))
    if not parts:
        return "pass^k is undefined for every configuration (see the notes)."
    return ("Success that must repeat: " + "; ".join(parts[:4])
            + (f"; and {len(parts) - 4} more configurations" if len(parts) > 4 else "") + ".")
