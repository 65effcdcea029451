"""Forest plots of contrasts and claims against the noise floor.

Plots consume result objects or tidy frames only; they never compute statistics. Figures are
built on :class:`matplotlib.figure.Figure` directly (no pyplot state), so they are safe in
scripts, servers and tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

VERDICT_COLORS = {"below": "#6b6b6b", "inside": "#d98c00", "above": "#1a7f37"}
NULL_COLOR = "#2458a6"


def _fmt(value: float, scale: float, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return f"{value * scale:+.{digits}f}"


def interval_text(estimate: float, low: float, high: float, *, scale: float = 1.0,
                  digits: int = 1) -> str:
    """``"estimate [low, high]"`` with ``n/a`` for a missing value and ``inf`` for an open end.

    Examples
    --------
    >>> interval_text(0.05, -0.0244, 0.1182, scale=100)
    '+5.0 [-2.4, +11.8]'
    >>> interval_text(0.1, float("nan"), float("nan"), scale=100)
    '+10.0 [n/a]'
    """
    if (low is None or math.isnan(low)) and (high is None or math.isnan(high)):
        return f"{_fmt(estimate, scale, digits)} [n/a]"
    return f"{_fmt(estimate, scale, digits)} [{_fmt(low, scale, digits)}, {_fmt(high, scale, digits)}]"


def forest_plot(
    rows: pd.DataFrame,
    *,
    label: str = "label",
    estimate: str = "estimate",
    ci_low: str = "ci_low",
    ci_high: str = "ci_high",
    annotation: str | None = None,
    group: str | None = None,
    color: str | None = None,
    bands: Iterable[tuple[float, float, str, str]] = (),
    reference: float | None = 0.0,
    scale: float = 1.0,
    digits: int = 1,
    xlabel: str = "",
    title: str = "",
    xlim: tuple[float, float] | None = None,
    markers: Iterable[tuple[str, str]] = (),
) -> Figure:
    """Draw a forest plot: one row per estimate with its interval, and the text beside it.

    Parameters
    ----------
    rows : pandas.DataFrame, shape (n_rows, ...)
        One row per line of the plot, drawn top to bottom in order.
    label, estimate, ci_low, ci_high : str
        Column names of the row label, the point estimate and the interval bounds (in the
        data's own units, e.g. proportions). A NaN bound is shown as ``n/a`` and no bar is
        drawn on that side; an infinite bound is drawn as an arrow to the edge of the axes.
        A NaN estimate writes ``n/a`` at the row.
    annotation : str, optional
        Column of extra text drawn at the right of each row (e.g. ``"W/L/T 34/24/142"``).
    group : str, optional
        Column whose changing values start a new section with a bold header.
    color : str, optional
        Column of matplotlib colours, one per row (default: one blue).
    bands : iterable of (low, high, label, color)
        Shaded vertical regions (data units before ``scale``), e.g. the noise floor.
    reference : float or None, default 0.0
        Position of a dashed reference line; None draws none.
    scale : float, default 1.0
        Display multiplier (100 shows proportions as percentage points).
    digits : int, default 1
        Decimals of the numbers written beside the rows.
    xlabel, title : str
        Axis label and title.
    xlim : (float, float), optional
        x-range in display units; by default fitted to the finite values and bands.
    markers : iterable of (label, color)
        Extra legend entries for row colours (e.g. the verdicts of an audit).

    Returns
    -------
    matplotlib.figure.Figure
        The figure; save it with :func:`save_figure`.

    Raises
    ------
    ValueError
        If a named column is missing or ``rows`` is empty.

    Examples
    --------
    >>> import pandas as pd
    >>> fig = forest_plot(pd.DataFrame({"label": ["a-b"], "estimate": [0.05],
    ...                                 "ci_low": [-0.02], "ci_high": [0.12]}), scale=100)
    >>> len(fig.axes)
    1
    """
    if rows.empty:
        raise ValueError("rows is empty: nothing to plot")
    for name in (label, estimate, ci_low, ci_high, annotation, group, color):
        if name is not None and name not in rows.columns:
            raise ValueError(f"column {name!r} is not in rows; columns are {list(rows.columns)}")
    bands = list(bands)
    # Layout: y positions top-down, with a header line before each new group.
    items: list[tuple[str, object]] = []
    last_group = object()
    for rec in rows.to_dict(orient="records"):
        if group is not None and rec[group] != last_group:
            items.append(("header", rec[group]))
            last_group = rec[group]
        items.append(("row", rec))
    n = len(items)
    height = 0.42 * n + 2.2  # inches: rows, plus room for title, legend and x-axis
    fig = Figure(figsize=(11.5, height))
    bottom, top = 0.75 / height, 1.0 - 1.05 / height
    ax = fig.add_axes([0.30, bottom, 0.42, top - bottom])

    finite = []
    for kind, rec in items:
        if kind == "row":
            for col in (estimate, ci_low, ci_high):
                v = rec[col]
                if v is not None and np.isfinite(v):
                    finite.append(float(v) * scale)
    for lo, hi, _, _ in bands:
        finite += [lo * scale, hi * scale]
    if reference is not None:
        finite.append(reference * scale)
    lo_x, hi_x = (min(finite), max(finite)) if finite else (-1.0, 1.0)
    pad = 0.08 * (hi_x - lo_x or 1.0)
    x0, x1 = xlim if xlim is not None else (lo_x - pad, hi_x + pad)
    ax.set_xlim(x0, x1)
    ax.set_ylim(n - 0.5, -0.7)

    for lo, hi, name, col in bands:
        ax.axvspan(lo * scale, hi * scale, color=col, alpha=0.18, lw=0, label=name)
    if reference is not None:
        ax.axvline(reference * scale, color="black", lw=0.8, ls="--", zorder=1)

    yticks, ylabels = [], []
    for y, (kind, rec) in enumerate(items):
        if kind == "header":
            ax.text(-0.02, y, str(rec), transform=ax.get_yaxis_transform(), ha="right",
                    va="center", fontweight="bold", fontsize=10)
            continue
        c = rec[color] if color is not None else NULL_COLOR
        est, lo, hi = (rec[estimate], rec[ci_low], rec[ci_high])
        est = np.nan if est is None else float(est)
        lo = np.nan if lo is None else float(lo)
        hi = np.nan if hi is None else float(hi)
        yticks.append(y)
        ylabels.append(str(rec[label]))
        left = x0 if np.isneginf(lo) else (lo * scale if np.isfinite(lo) else None)
        right = x1 if np.isposinf(hi) else (hi * scale if np.isfinite(hi) else None)
        anchor = est * scale if np.isfinite(est) else None
        if left is not None and right is not None:
            ax.hlines(y, left, right, color=c, lw=2.2, zorder=3)
        elif anchor is not None and left is not None:
            ax.hlines(y, left, anchor, color=c, lw=2.2, zorder=3)
        elif anchor is not None and right is not None:
            ax.hlines(y, anchor, right, color=c, lw=2.2, zorder=3)
        for end, edge in ((lo, x0), (hi, x1)):
            if np.isinf(end):
                start = anchor if anchor is not None else (x0 + x1) / 2
                ax.annotate("", xy=(edge, y), xytext=(start, y),
                            arrowprops=dict(arrowstyle="->", color=c, lw=2.0), zorder=3)
        if anchor is not None:
            ax.plot([anchor], [y], marker="D" if np.isnan(lo) and np.isnan(hi) else "o",
                    color=c, ms=7, zorder=4)
        else:
            ax.text((reference or 0.0) * scale, y, "n/a", ha="center", va="center", fontsize=9,
                    color=c)
        text = interval_text(est, lo, hi, scale=scale, digits=digits)
        if annotation is not None and rec[annotation] not in (None, "") and not (
                isinstance(rec[annotation], float) and math.isnan(rec[annotation])):
            text += "   " + str(rec[annotation])
        ax.text(1.02, y, text, transform=ax.get_yaxis_transform(), ha="left", va="center",
                fontsize=9, family="monospace")
    ax.set_yticks(yticks, ylabels, fontsize=9)
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", color="#dddddd", lw=0.6, zorder=0)
    ax.set_axisbelow(True)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    if xlabel:
        ax.set_xlabel(xlabel)
    if title:
        fig.suptitle(title, x=0.02, y=1.0 - 0.18 / height, ha="left", va="top", fontsize=12,
                     fontweight="bold")
    markers = list(markers)
    if bands or markers:
        handles, labels = ax.get_legend_handles_labels()
        for name, col in markers:
            handles.append(Line2D([], [], marker="D", color=col, ls="", ms=7))
            labels.append(name)
        ax.legend(handles, labels, loc="lower left", bbox_to_anchor=(0.0, 1.0),
                  ncol=min(len(handles), 6), frameon=False, fontsize=9)
    return fig


def save_figure(fig: Figure, out_dir, stem: str) -> list[Path]:
    """Write ``fig`` as ``<out_dir>/<stem>.png`` (150 dpi) and ``.svg``; return both paths.

    Raises
    ------
    OSError
        If the directory cannot be created or written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.png", out / f"{stem}.svg"]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    return paths


def audit_rows(audit_result, noise_floor=None, log_contrasts=None) -> pd.DataFrame:
    """Tidy rows for :func:`audit_forest`: null contrasts, the log's own contrasts, then claims.

    Parameters
    ----------
    audit_result : noisefloor.audit.AuditResult
        Claims placed against the floor.
    noise_floor : noisefloor.floor.NoiseFloor, optional
        Defaults to ``audit_result.noise_floor``; without one only the claims are drawn. With
        one seed the pooled rows equal the per-seed rows and are drawn once (section "Null
        contrasts, one seed").
    log_contrasts : pandas.DataFrame, optional
        Rows of :func:`noisefloor.audit.place_contrasts` (a log's protocol contrasts with their
        verdicts), drawn with their intervals and coloured by verdict.

    Returns
    -------
    pandas.DataFrame
        Columns ``section, label, estimate, ci_low, ci_high, note, color``.
    """
    nf = noise_floor if noise_floor is not None else audit_result.noise_floor
    rows = []
    if nf is not None:
        table = nf.to_frame()
        single = nf.n_seeds <= 1
        if single:  # the pooled rows would repeat the one seed's rows
            table = table[table["level"] != "pooled"]
        for rec in table.to_dict(orient="records"):
            seed = ("pooled" if rec["level"] == "pooled"
                    else "none" if rec["seed"] is None else rec["seed"])
            section = ("Null contrasts, one seed" if single
                       else "Null contrasts, pooled over seeds" if seed == "pooled"
                       else "Null contrasts, per seed")
            tag = " (clean)" if rec["clean"] else ""
            name = rec["contrast"] + tag + ("" if seed == "pooled" else f", seed {seed}")
            rows.append({"section": section, "label": name, "estimate": rec["gap"],
                         "ci_low": rec["ci_low"], "ci_high": rec["ci_high"],
                         "note": f"W/L/T {rec['wins']}/{rec['losses']}/{rec['ties']}",
                         "color": NULL_COLOR})
        order = {"Null contrasts, pooled over seeds": 0, "Null contrasts, per seed": 1,
                 "Null contrasts, one seed": 1}
        rows.sort(key=lambda r: order[r["section"]])
    if log_contrasts is not None:
        for rec in log_contrasts.to_dict(orient="records"):
            where = ("pooled" if rec["seed"] == "pooled" else f"seed {rec['seed']}")
            subset = "" if rec["subset"] == "all" else ", coord.-active"
            verdict = rec.get("verdict", "")
            color = VERDICT_COLORS.get(verdict, "#6b6b6b")
            note = f"W/L/T {rec['wins']}/{rec['losses']}/{rec['ties']}"
            if verdict:
                ratio = rec.get("ratio", math.nan)
                note += f"  {verdict}" + ("" if ratio != ratio else f" ({ratio:.1f}x floor)")
            if rec.get("flag"):
                note += "  (<6 pairs)"
            rows.append({"section": "Contrasts in this log (gap placed)",
                         "label": f"{rec['contrast']}, trial {rec['trial']}{subset}, {where}"[:58],
                         "estimate": rec["gap"], "ci_low": rec["ci_low"],
                         "ci_high": rec["ci_high"], "note": note, "color": color})
    for v in audit_result.verdicts:
        low = v.effect_low
        if v.effect_low == v.effect_high:
            lo = hi = math.nan
        elif math.isnan(low):
            lo = hi = math.nan  # "<10 pp": only an upper end was published
        else:
            lo, hi = low, v.effect_high
        flag = "" if v.comparable else "  [unit: " + v.unit + "]"
        if math.isnan(low):
            flag += "  (upper end only)"
        rows.append({"section": "Published claims (end farthest from 0 placed)",
                     "label": f"{v.paper}: {v.benchmark}"[:58],
                     "estimate": v.effect, "ci_low": lo, "ci_high": hi,
                     "note": f"{v.verdict} ({v.ratio:.1f}x floor){flag}",
                     "color": VERDICT_COLORS[v.verdict]})
    return pd.DataFrame(rows)


def audit_forest(audit_result, noise_floor=None, *, title: str | None = None,
                 log_contrasts=None) -> Figure:
    """Forest plot of an audit: null contrasts with their intervals, the floor and envelope
    shaded, a log's own contrasts (when given, see :func:`audit_rows`) and every claim placed
    and coloured by its verdict (percentage points).

    For claims the bracket is the claimed range (``n/a`` for a single number, an arrow for an
    upper bound only), not a confidence interval.
    """
    rows = audit_rows(audit_result, noise_floor, log_contrasts)
    f, env = audit_result.floor, audit_result.envelope
    bands = [(-f, f, f"noise floor ±{f * 100:.1f} pp", "#2458a6"),
             (f, env, f"envelope to {env * 100:.1f} pp", "#d98c00"),
             (-env, -f, "_nolegend_", "#d98c00")]
    return forest_plot(rows, label="label", annotation="note", group="section", color="color",
                       bands=bands, markers=[(f"claim {v}", c) for v, c in VERDICT_COLORS.items()],
                       scale=100.0, xlabel="gap / claimed effect (percentage points)",
                       title=title or "Claims against the noise floor")
