"""pass^k curves with intervals per configuration: :func:`pass_hat_k_report` and its page.

The values are those of :func:`noisefloor.stats.passk.pass_hat_k_table` (``noisefloor passk``);
each (configuration, k) gets the analytic interval of
:func:`noisefloor.stats.passk_interval.pass_hat_k_interval` (CLT over tasks, Miller 2024,
"Adding Error Bars to Evals", arXiv:2411.00640).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from noisefloor.report.html.page import Block, Page, Table, cells
from noisefloor.report.html.render import page_for, shown
from noisefloor.report.html.svg import Series, curves_svg
from noisefloor.results import FrozenResult
from noisefloor.stats.passk import CONFIG_COLUMNS
from noisefloor.stats.passk_interval import pass_hat_k_interval

__all__ = ["PassHatKReport", "pass_hat_k_report"]


@dataclass(frozen=True)
class PassHatKReport(FrozenResult):
    """pass^k of each configuration with intervals.

    Attributes
    ----------
    groups : tuple of dict
        One per configuration: the configuration's columns, ``pass_hat_k`` (k -> value),
        ``n_tasks``, ``n_infrastructure_errors``, ``infrastructure_errors``, ``details``
        (every field of each k's :class:`~noisefloor.stats.passk.PassHatK`) and ``intervals``
        (k -> ``ci_low, ci_high, se, confidence, method, reason``).
    keys : tuple of str
        The configuration columns.
    confidence : float
        Level of the intervals.
    """

    groups: tuple = field(repr=False)
    keys: tuple = ()
    confidence: float = 0.95

    # hand-written: a single configuration's pass_hat_k is lifted to the top
    def to_dict(self) -> dict:
        """``{"groups": [...]}`` and, for one configuration, its ``pass_hat_k`` at the top."""
        doc: dict[str, Any] = {"groups": [dict(g) for g in self.groups],
                               "confidence": self.confidence}
        if len(self.groups) == 1:
            top = self.groups[0]
            doc = {"pass_hat_k": top["pass_hat_k"],
                   **({"pass_at_k": top["pass_at_k"]} if "pass_at_k" in top else {}), **doc}
        return doc

    # hand-written: one row per (configuration, k) from the groups
    def to_frame(self) -> pd.DataFrame:
        """One row per (configuration, k) with value and interval."""
        rows = []
        for g in self.groups:
            cfg = {c: g[c] for c in self.keys}
            for k, v in g["pass_hat_k"].items():
                rows.append({**cfg, "k": k, "value": v, **g["intervals"][k]})
        return pd.DataFrame(rows)


def _config_name(g: dict, keys: tuple) -> str:
    parts = [f"seed {g[c]}" if c == "seed" else str(g[c]) for c in keys
             if c in g and g[c] is not None and g[c] == g[c]]
    return " / ".join(parts) or "all trials"


def _varying(r: PassHatKReport) -> tuple:
    """The configuration columns that differ between groups (all of them for one group)."""
    if len(r.groups) <= 1:
        return r.keys
    return tuple(c for c in r.keys if len({str(g[c]) for g in r.groups}) > 1) or r.keys


def pass_hat_k_report(trials: pd.DataFrame, table: pd.DataFrame, *,
                      by: Sequence[str] = CONFIG_COLUMNS, infrastructure_errors: str = "exclude",
                      k_exceeds_n: str = "nan", unequal_trials: str = "allow",
                      confidence: float = 0.95) -> PassHatKReport:
    """Group ``table`` (:func:`~noisefloor.stats.passk.pass_hat_k_table` of ``trials``) by
    configuration (the columns ``by``, as the table was grouped) and attach each k's analytic
    interval over tasks.

    An interval is NaN with a reason when pass^k is, when fewer than two tasks enter it, or
    under ``unequal_trials="truncate"`` (the interval does not truncate).
    """
    keys = tuple(c for c in by if c in table.columns)
    groups = []
    grouped = (table.groupby(list(keys), sort=True, dropna=False) if keys
               else [((), table)])
    for key, g in grouped:
        key = key if isinstance(key, tuple) else (key,)
        cfg = dict(zip(keys, key))
        sel = trials
        for c, v in cfg.items():
            sel = sel[sel[c].isna()] if v is None or v != v else sel[sel[c] == v]
        intervals = {}
        for k, value in zip(g["k"], g["value"]):
            if unequal_trials == "truncate":
                iv = {"ci_low": math.nan, "ci_high": math.nan, "se": math.nan,
                      "reason": "no interval under --unequal-trials truncate"}
            elif value != value:
                why = g.loc[g["k"] == k, "reason"].iloc[0]
                iv = {"ci_low": math.nan, "ci_high": math.nan, "se": math.nan,
                      "reason": str(why) or "pass^k undefined"}
            else:
                r = pass_hat_k_interval(sel, int(k), confidence=confidence,
                                        infrastructure_errors=infrastructure_errors,
                                        k_exceeds_n="exclude" if k_exceeds_n == "exclude"
                                        else "nan")
                iv = {"ci_low": r.ci_low, "ci_high": r.ci_high, "se": r.se, "reason": r.reason}
            intervals[int(k)] = {**iv, "confidence": confidence, "method": "analytic"}
        at_k = {}
        if "pass_at_k" in g.columns:  # pass@k beside pass^k (noisefloor.stats.passat)
            at_k = {"pass_at_k": {int(k): v for k, v in zip(g["k"], g["pass_at_k"])},
                    "pass_at_k_interval": {int(k): [lo, hi] for k, lo, hi in zip(
                        g["k"], g["pass_at_k_ci_low"], g["pass_at_k_ci_high"])}}
        groups.append({**cfg, "pass_hat_k": {int(k): v for k, v in zip(g["k"], g["value"])},
                       **at_k,
                       "n_tasks": int(g["n_tasks"].iloc[0]),
                       "n_infrastructure_errors": int(g["n_infrastructure_errors"].iloc[0]),
                       "infrastructure_errors": infrastructure_errors,
                       "details": g.drop(columns=list(keys)).to_dict(orient="records"),
                       "intervals": intervals})
    return PassHatKReport(groups=tuple(groups), keys=keys, confidence=confidence)


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
