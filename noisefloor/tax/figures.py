"""Figures 3 to 7 of the collaboration-tax paper, drawn from the analysis tables.

Every function takes a table made by :mod:`noisefloor.tax` and returns a
:class:`matplotlib.figure.Figure` built without pyplot state; none computes statistics. Axes
show percentage points (the tables hold proportions). :func:`save_figure` writes PNG and SVG.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

__all__ = ["cascade_figure", "heatmap_figure", "intervention_figure", "mixed_pairs_figure",
           "save_figure", "task_ratio_figure"]

FAMILY_COLORS = {"spatial": "#2458a6", "relational": "#1a7f37", "csp": "#b35806"}


def _bar(ax: Any, *args: Any, **kwargs: Any) -> Any:
    """``ax.bar`` with whiskers; matplotlib 3.10 (the last release for Python 3.10) warns
    inside its own whisker check on NumPy 2.2 ("Conversion of an array with ndim > 0 to a
    scalar"), a warning about its code, not about these values, so it is not shown."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Conversion of an array with ndim > 0",
                                DeprecationWarning)
        return ax.bar(*args, **kwargs)


def _whiskers(est: np.ndarray, low: pd.Series, high: pd.Series) -> np.ndarray:
    """Error-bar lengths (pp) from interval bounds (proportions); NaN bounds draw no whisker, and
    a percentile interval of a ratio that misses its point estimate stops at the estimate."""
    err = np.vstack([est - 100 * low.to_numpy(dtype=float), 100 * high.to_numpy(dtype=float) - est])
    return np.clip(np.nan_to_num(err, nan=0.0), 0, None)


def save_figure(fig: Figure, stem: str | Path) -> list[Path]:
    """Write ``stem.png`` (150 dpi) and ``stem.svg``; return both paths.

    The one writer of figures, :func:`noisefloor.report.forest.save_figure`, with the folder
    and the file stem given as one path (the folder is created when missing).
    """
    from noisefloor.report.forest import save_figure as write

    stem = Path(stem)
    return write(fig, stem.parent, stem.name)


def heatmap_figure(family_cells: pd.DataFrame, model_cells: pd.DataFrame | None = None) -> Figure:
    """Figure 3: tax by model (rows) and family (columns), diverging scale centred at 0.

    Parameters
    ----------
    family_cells : pandas.DataFrame
        :func:`noisefloor.tax.cells.cell_table` with ``by="family"``.
    model_cells : pandas.DataFrame, optional
        ``by="model"`` cells; rows are sorted by their tax (smallest first), else by the mean
        of the family cells.

    Returns
    -------
    matplotlib.figure.Figure
        Cells annotated with the tax in percentage points (``n/a`` where undefined).

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"model": ["a", "a", "b", "b"], "family": ["spatial", "csp"] * 2,
    ...                       "tax": [0.3, 0.1, 0.4, -0.05]})
    >>> fig = heatmap_figure(cells)
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['+40.0', '-5.0', '+30.0', '+10.0']
    """
    fams = [f for f in ("spatial", "relational", "csp") if f in set(family_cells["family"])]
    fams += sorted(set(family_cells["family"]) - set(fams))
    grid = family_cells.pivot(index="model", columns="family", values="tax").reindex(columns=fams)
    if model_cells is not None and not model_cells.empty:
        order = model_cells.set_index("model")["tax"].reindex(grid.index)
    else:
        order = grid.mean(axis=1)
    grid = grid.loc[order.sort_values(kind="stable").index]
    vals = 100 * grid.to_numpy(dtype=float)
    finite = vals[np.isfinite(vals)]
    lim = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0
    fig = Figure(figsize=(1.6 * len(fams) + 3, 0.45 * len(grid) + 1.6))
    ax = fig.add_subplot()
    im = ax.imshow(np.ma.masked_invalid(vals), cmap="RdBu_r", aspect="auto",
                   norm=TwoSlopeNorm(vcenter=0.0, vmin=-lim, vmax=lim))
    for i in range(vals.shape[0]):
        for j in range(vals.shape[1]):
            v = vals[i, j]
            ax.text(j, i, "n/a" if not math.isfinite(v) else f"{v:+.1f}", ha="center",
                    va="center", fontsize=9, color="white" if math.isfinite(v) and abs(v) > 0.6 * lim
                    else "black")
    ax.set_xticks(range(len(fams)), fams)
    ax.set_yticks(range(len(grid)), grid.index)
    ax.set_title("Collaboration tax by model and family (pp; red: pair below solo)")
    fig.colorbar(im, ax=ax, label="tax (percentage points)")
    return fig


def task_ratio_figure(tasks: pd.DataFrame) -> Figure:
    """Figure 4: per-task ratio gap averaged over models, sorted; exploratory tasks marked †.

    Parameters
    ----------
    tasks : pandas.DataFrame
        :func:`noisefloor.tax.cells.task_table`.
    """
    t = tasks.sort_values("ratio_gap", kind="stable")
    fig = Figure(figsize=(8, 0.24 * len(t) + 1.4))
    ax = fig.add_subplot()
    colors = [FAMILY_COLORS.get(f, "#6b6b6b") for f in t["family"]]
    y = np.arange(len(t))
    ax.barh(y, 100 * t["ratio_gap"].to_numpy(dtype=float), color=colors)
    labels = [f"{n} †" if e else n for n, e in zip(t["task"], t["exploratory"])]
    ax.set_yticks(y, labels, fontsize=7)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("ratio gap = tax / solo (%), mean over models")
    ax.set_title("Per-task ratio gap († solo score below the tractability target: exploratory)")
    handles = [ax.bar(0, 0, color=c, label=f) for f, c in FAMILY_COLORS.items()
               if f in set(t["family"])]
    ax.legend(handles=handles, loc="lower right", fontsize=8)
    return fig


def cascade_figure(rates: pd.DataFrame) -> Figure:
    """Figure 5: each stage's rate in failed (light) and successful (solid) rollouts, by family.

    Parameters
    ----------
    rates : pandas.DataFrame
        :func:`noisefloor.tax.cascade.stage_rates`; Wilson intervals as error bars.
    """
    fams = [f for f in dict.fromkeys(rates["family"]) if f != "all"]
    stages = list(dict.fromkeys(rates["stage"]))
    fig = Figure(figsize=(3.2 * len(fams) + 1, 3.6))
    axes = fig.subplots(1, len(fams), sharey=True, squeeze=False)[0]
    width = 0.38
    for ax, fam in zip(axes, fams):
        sub = rates[rates["family"] == fam]
        for k, (outcome, alpha) in enumerate((("failed", 0.35), ("success", 1.0))):
            r = sub[sub["outcome"] == outcome].set_index("stage").reindex(stages)
            x = np.arange(len(stages)) + (k - 0.5) * width
            rate = 100 * r["rate"].to_numpy(dtype=float)
            err = _whiskers(rate, r["ci_low"], r["ci_high"])
            _bar(ax, x, rate, width, yerr=err, capsize=2, alpha=alpha,
                   color=FAMILY_COLORS.get(fam, "#6b6b6b"), label=f"{fam}, {outcome}")
        ax.set_xticks(range(len(stages)), stages)
        ax.set_title(fam)
        ax.set_ylim(0, 100)
        ax.legend(fontsize=8)  # every family's panel names its own colours
    axes[0].set_ylabel("rollouts where the stage fails (%)")
    level = rates.attrs.get("confidence")
    fig.suptitle("Four-stage cascade: failed (light) vs successful (solid) rollouts"
                 + (f", {100 * level:g}% Wilson intervals" if level else ""), y=1.02)
    return fig


def intervention_figure(table: pd.DataFrame) -> Figure:
    """Figure 6: recovered share of the tax per variant and family, with intervals (clipped
    to the axis, which follows the estimates, and marked where clipped).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`noisefloor.tax.intervention.recovered_share_table`.
    """
    fams = list(dict.fromkeys(table["family"]))
    variants = list(dict.fromkeys(table["variant"]))
    fig = Figure(figsize=(1.3 * len(variants) * len(fams) / 2 + 3, 3.8))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(fams))
    # the axis follows the estimates (with room), not an interval that runs far past them;
    # a clipped bound is marked with a triangle and its value
    vals = 100 * table["recovered"].to_numpy(dtype=float)
    vals = vals[np.isfinite(vals)]
    ymin = min(0.0, float(vals.min()) - 10) if vals.size else 0.0
    ymax = max(100.0, float(vals.max()) + 10) if vals.size else 100.0
    for k, fam in enumerate(fams):
        r = table[table["family"] == fam].set_index("variant").reindex(variants)
        x = np.arange(len(variants)) + (k - (len(fams) - 1) / 2) * width
        est = 100 * r["recovered"].to_numpy(dtype=float)
        lo = np.clip(100 * r["ci_low"].to_numpy(dtype=float), ymin, ymax)
        hi = np.clip(100 * r["ci_high"].to_numpy(dtype=float), ymin, ymax)
        err = _whiskers(est, pd.Series(lo / 100), pd.Series(hi / 100))
        _bar(ax, x, est, width, yerr=err, capsize=2, label=fam,
               color=FAMILY_COLORS.get(fam, "#6b6b6b"))
        for xi, l0, h0 in zip(x, 100 * r["ci_low"].to_numpy(dtype=float),
                              100 * r["ci_high"].to_numpy(dtype=float)):
            if np.isfinite(h0) and h0 > ymax:   # clipped: a triangle marks the bound past the axis
                ax.annotate(_bound(h0), (xi, ymax), ha="left", va="top", fontsize=6,
                            xytext=(4, -4), textcoords="offset points")
                ax.plot([xi], [ymax], marker="^", color="black", ms=4, clip_on=False)
            if np.isfinite(l0) and l0 < ymin:
                ax.annotate(_bound(l0), (xi, ymin), ha="left", va="bottom", fontsize=6,
                            xytext=(4, 4), textcoords="offset points")
                ax.plot([xi], [ymin], marker="v", color="black", ms=4, clip_on=False)
    ax.set_ylim(ymin, ymax)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(range(len(variants)), variants)
    ax.set_ylabel("recovered share of the tax (%)")
    ax.set_title("Prompt intervention: (pair_variant - pair_baseline) / (solo - pair_baseline)"
                 "\n(an interval past the axis is clipped; the triangle gives its bound, %)",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def _bound(value: float) -> str:
    return f"{value:.0f}" if abs(value) < 1000 else (">999" if value > 0 else "<-999")


def intervention_table_figure(table: pd.DataFrame) -> Figure:
    """The paper's Figure 6 table as a figure: recovered share (%) per variant (rows) and
    family (columns), half-widths of the intervals as subscripts, column maxima in bold.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`noisefloor.tax.intervention.recovered_share_table`.
    """
    fams = list(dict.fromkeys(table["family"]))
    variants = list(dict.fromkeys(table["variant"]))
    fig = Figure(figsize=(1.5 * len(fams) + 1.6, 0.45 * len(variants) + 1.0))
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_xlim(0, len(fams) + 1)
    ax.set_ylim(len(variants) + 0.8, -0.2)
    for j, fam in enumerate(fams):
        ax.text(j + 1.5, 0, fam, ha="center", va="center", fontweight="bold")
    ax.plot([0, len(fams) + 1], [0.45, 0.45], color="black", lw=0.8)
    for i, v in enumerate(variants, start=1):
        ax.text(0.05, i, v, ha="left", va="center")
        for j, fam in enumerate(fams):
            col = table[table["family"] == fam]["recovered"].astype(float)
            best = col.max() if col.notna().any() else np.nan
            hit = table[(table["variant"] == v) & (table["family"] == fam)]
            r = float(hit["recovered"].iloc[0]) if len(hit) else np.nan
            if not np.isfinite(r):
                ax.text(j + 1.5, i, "n/a", ha="center", va="center", color="#6b6b6b")
                continue
            h = float(hit["half_width"].iloc[0])
            half = (f"{100 * h:.1f}" if 100 * h < 1000 else ">999") if np.isfinite(h) else ""
            sub = f"_{{\\pm {half}}}" if half else ""
            value = f"{100 * r:.1f}"
            value = f"\\mathbf{{{value}}}" if r == best else value
            ax.text(j + 1.5, i, f"${value}{sub}$", ha="center", va="center")
    ax.set_title("Recovered share of the tax (%), half-width of the interval as subscript, "
                 "column maximum in bold", fontsize=9)
    return fig


def mixed_pairs_figure(mixed: pd.DataFrame) -> Figure:
    """Figure 7: members' solo scores (grey), additive midpoint (hollow), pair score (filled).

    Parameters
    ----------
    mixed : pandas.DataFrame
        :func:`noisefloor.tax.mixed.mixed_pair_table`.
    """
    m = mixed.reset_index(drop=True)
    fig = Figure(figsize=(7, 0.7 * len(m) + 1.5))
    ax = fig.add_subplot()
    y = np.arange(len(m))
    ax.scatter(100 * m["v1"], y, color="#9a9a9a", s=40, label="member solo (v1, v2)")
    ax.scatter(100 * m["v2"], y, color="#9a9a9a", s=40)
    ax.scatter(100 * m["midpoint"], y, facecolors="none", edgecolors="black", s=60,
               label="additive midpoint")
    ax.scatter(100 * m["v12"], y, color="#b2182b", s=60, label="pair v12")
    ax.set_yticks(y, [f"{p} (a={a})" for p, a in zip(m["pair"], m["model_a"])])
    ax.set_xlabel("score (%)")
    ax.set_title("Mixed pairs: above the midpoint, below the stronger member?")
    ax.legend(fontsize=8, loc="best")
    return fig
