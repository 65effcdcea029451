"""Forest plots of contrasts and claims against the noise floor.

Plots consume result objects or tidy frames only; they never compute statistics. Figures are
built on :class:`matplotlib.figure.Figure` directly (no pyplot state), so they are safe in
scripts, servers and tests.
"""

from __future__ import annotations

import math
import textwrap
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from noisefloor.floor.contrast_table import POOLED, seed_text
from noisefloor.report.text import above_note
from noisefloor.stats.warning_classes import ForestRowsLeftOutWarning

VERDICT_COLORS = {"below": "#6b6b6b", "inside": "#d98c00", "above": "#1a7f37"}
NULL_COLOR = "#2458a6"

#: Longest row label drawn; a longer one is cut and ends in an ellipsis (see :func:`shorten`).
LABEL_WIDTH = 58

#: Section title of the noise-floor paper's bundled claims; a user's own claims get
#: :data:`CLAIMS_SECTION` (see :func:`audit_rows`).
BUNDLED_CLAIMS_SECTION = "Published claims (end farthest from 0 placed)"
CLAIMS_SECTION = "Claims (end farthest from 0 placed)"


def shorten(text: str, width: int = LABEL_WIDTH) -> str:
    """``text`` if it fits in ``width`` characters, else its start and an ellipsis.

    Examples
    --------
    >>> shorten("pull-intercept, trial 1, seed 2")
    'pull-intercept, trial 1, seed 2'
    >>> shorten("Ou et al. (2025): TravelPlanner orchestrator+notebook", width=30)
    'Ou et al. (2025): TravelPlann…'
    >>> len(shorten("x" * 80))
    58
    """
    text = str(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def ratio_text(ratio: float) -> str:
    """A claim's or contrast's size as a multiple of the floor, two decimals.

    Examples
    --------
    >>> ratio_text(1.1441), ratio_text(0.0254), ratio_text(float("nan"))
    ('1.14x floor', '0.03x floor', 'n/a x floor')
    """
    return "n/a x floor" if ratio != ratio else f"{ratio:.2f}x floor"


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
    markers: Iterable[tuple] = (),
    style: str | None = None,
    footnote: str = "",
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
    markers : iterable of (label, color) or (label, color, marker)
        Extra legend entries for row colours (e.g. the verdicts of an audit); the marker
        defaults to a diamond, ``"o"`` draws a dot on a line (an estimate with its interval),
        ``"range"`` a thick translucent bar with end ticks (a claimed range).
    style : str, optional
        Column saying how each row's bracket is drawn: ``"ci"`` (default; a line, and the
        text ``[low, high]``) or ``"range"`` (a reported range, not a confidence interval: a
        thick translucent bar with end ticks, and the text ``(range low to high)``; a single
        reported number is written alone, without ``[n/a]``).
    footnote : str, optional
        A sentence printed under the x-axis (wrapped).

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
    for name in (label, estimate, ci_low, ci_high, annotation, group, color, style):
        if name is not None and name not in rows.columns:
            raise ValueError(f"column {name!r} is not in rows; columns are {list(rows.columns)}")
    bands = list(bands)
    # Layout: y positions top-down, with a header line before each new group.
    items: list[tuple[str, Any]] = []  # ("header", group value) or ("row", record)
    last_group = object()
    for rec in rows.to_dict(orient="records"):
        if group is not None and rec[group] != last_group:
            items.append(("header", rec[group]))
            last_group = rec[group]
        items.append(("row", rec))
    n = len(items)
    foot_lines = textwrap.wrap(footnote, 150) if footnote else []
    foot = 0.2 * len(foot_lines) + (0.15 if foot_lines else 0.0)
    height = 0.42 * n + 2.2 + foot  # inches: rows, plus room for title, legend, x-axis, footnote
    fig = Figure(figsize=(11.5, height))
    bottom, top = (0.75 + foot) / height, 1.0 - 1.05 / height
    ax = fig.add_axes((0.30, bottom, 0.42, top - bottom))

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
        is_range = style is not None and rec[style] == "range"
        if is_range and left is not None and right is not None:
            # a reported range is not a confidence interval: a thick pale bar with end ticks
            ax.hlines(y, left, right, color=c, lw=7, alpha=0.35, zorder=2)
            ax.plot([left, right], [y, y], ls="", marker="|", ms=13, mew=2, color=c, zorder=3)
        elif left is not None and right is not None:
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
        if is_range and np.isfinite(lo) and np.isfinite(hi):
            text = (f"{_fmt(est, scale, digits)} (range {_fmt(lo, scale, digits)} to "
                    f"{_fmt(hi, scale, digits)})")
        elif is_range and np.isnan(lo) and np.isnan(hi):
            text = _fmt(est, scale, digits)  # a single reported number: no bracket to show
        else:
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
        for entry in markers:
            name, col = entry[0], entry[1]
            kind = entry[2] if len(entry) > 2 else "D"
            if kind == "range":
                handles.append(Line2D([], [], color=col, lw=7, alpha=0.35, marker="|", ms=13,
                                      mew=2, markeredgecolor=col))
            elif kind == "o":
                handles.append(Line2D([], [], marker="o", color=col, ls="-", lw=2.2, ms=7))
            else:
                handles.append(Line2D([], [], marker=kind, color=col, ls="", ms=7))
            labels.append(name)
        ax.legend(handles, labels, loc="lower left", bbox_to_anchor=(0.0, 1.0),
                  ncol=min(len(handles), 4), frameon=False, fontsize=9)
    if foot_lines:
        fig.text(0.02, 0.12 / height, "\n".join(foot_lines), ha="left", va="bottom", fontsize=9,
                 color="#333333")
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


def audit_rows(audit_result, noise_floor=None, log_contrasts=None, *,
               claims_section: str = CLAIMS_SECTION) -> pd.DataFrame:
    """Tidy rows for :func:`audit_forest`: null contrasts, the log's own contrasts, then claims.

    Parameters
    ----------
    audit_result : noisefloor.audit.verdicts.AuditResult
        Claims placed against the floor.
    noise_floor : noisefloor.floor.estimate.NoiseFloor, optional
        Defaults to ``audit_result.noise_floor``; without one only the claims are drawn. With
        one seed the pooled rows equal the per-seed rows and are drawn once (section "Null
        contrasts, one seed").
    log_contrasts : pandas.DataFrame, optional
        Rows of :func:`noisefloor.audit.verdicts.place_contrasts` (a log's protocol contrasts with their
        verdicts), drawn with their intervals and coloured by verdict.
    claims_section : str, default :data:`CLAIMS_SECTION`
        Header of the claims; :data:`BUNDLED_CLAIMS_SECTION` for the noise-floor paper's
        bundled claims (a user's own claims are not "published claims").

    Returns
    -------
    pandas.DataFrame
        Columns ``section, label, estimate, ci_low, ci_high, note, color, kind, verdict,
        style``: ``kind`` is ``"null"``, ``"log"`` or ``"claim"``; ``verdict`` is empty for
        null contrasts; ``style`` is ``"range"`` for a claim (its bracket is the claimed range,
        not a confidence interval), ``"ci"`` otherwise. Labels longer than
        :data:`LABEL_WIDTH` characters end in an ellipsis.
    """
    nf = noise_floor if noise_floor is not None else audit_result.noise_floor
    rows = []
    if nf is not None:
        table = nf.to_frame()
        single = nf.n_seeds <= 1
        if single:  # the pooled rows would repeat the one seed's rows
            table = table[table["level"] != POOLED]
        for rec in table.to_dict(orient="records"):
            seed = seed_text(rec["level"], rec["seed"])
            section = ("Null contrasts, one seed" if single
                       else "Null contrasts, pooled over seeds" if rec["level"] == POOLED
                       else "Null contrasts, per seed")
            tag = " (clean)" if rec["clean"] else ""
            name = rec["contrast"] + tag + ("" if rec["level"] == POOLED else f", seed {seed}")
            rows.append({"section": section, "label": shorten(name), "estimate": rec["gap"],
                         "ci_low": rec["ci_low"], "ci_high": rec["ci_high"],
                         "note": f"W/L/T {rec['wins']}/{rec['losses']}/{rec['ties']}",
                         "color": NULL_COLOR, "kind": "null", "verdict": "", "style": "ci"})
        order = {"Null contrasts, pooled over seeds": 0, "Null contrasts, per seed": 1,
                 "Null contrasts, one seed": 1}
        rows.sort(key=lambda r: order[r["section"]])
    if log_contrasts is not None:
        for rec in log_contrasts.to_dict(orient="records"):
            where = seed_text(rec["level"], rec["seed"], prefix="seed ")
            subset = "" if rec["subset"] == "all" else ", coord.-active"
            verdict = rec.get("verdict", "")
            color = VERDICT_COLORS.get(verdict, "#6b6b6b")
            note = f"W/L/T {rec['wins']}/{rec['losses']}/{rec['ties']}"
            if verdict:
                ratio = rec.get("ratio", math.nan)
                note += f"  {verdict}" + ("" if ratio != ratio else f" ({ratio_text(ratio)})")
            if rec.get("flag"):
                note += "  (<6 pairs)"
            rows.append({"section": "Contrasts in this log (gap placed)",
                         "label": shorten(f"{rec['contrast']}, trial {rec['trial']}{subset}, "
                                          f"{where}"),
                         "estimate": rec["gap"], "ci_low": rec["ci_low"],
                         "ci_high": rec["ci_high"], "note": note, "color": color,
                         "kind": "log", "verdict": verdict, "style": "ci"})
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
        rows.append({"section": claims_section,
                     "label": shorten(f"{v.paper}: {v.benchmark}"),
                     "estimate": v.effect, "ci_low": lo, "ci_high": hi,
                     "note": f"{v.verdict} ({ratio_text(v.ratio)}){flag}",
                     "color": VERDICT_COLORS[v.verdict], "kind": "claim",
                     "verdict": v.verdict, "style": "range"})
    return pd.DataFrame(rows)


#: Most rows :func:`audit_forest` draws; the rest are left out of the picture (never out of
#: the tables). A forest plot's height grows with its rows: 10,000 rows made a 4,000-inch
#: figure that took minutes and gigabytes to render, and no reader can read it.
MAX_FOREST_ROWS = 60


def _farthest_from_zero(rows: pd.DataFrame) -> np.ndarray:
    ends = rows[["estimate", "ci_low", "ci_high"]].to_numpy(dtype=float)
    size = np.where(np.isfinite(ends), np.abs(ends), np.where(np.isinf(ends), np.inf, -1.0))
    return size.max(axis=1)


def cap_forest_rows(rows: pd.DataFrame, max_rows: int = MAX_FOREST_ROWS, *,
                    section: str = "section") -> tuple[pd.DataFrame, dict[str, tuple[int, int]]]:
    """Keep at most ``max_rows`` rows of a sectioned forest table, the most telling ones.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`audit_rows` (columns ``section, estimate, ci_low, ci_high``, ...).
    max_rows : int, default MAX_FOREST_ROWS
        Most rows kept (at least one per section).
    section : str, default "section"
        Column naming each row's section.

    Returns
    -------
    kept : pandas.DataFrame
        The rows kept, in their original order; a capped section's name says
        ``"<section>: k of n drawn (farthest from 0)"``.
    left_out : dict of str to (int, int)
        For each capped section, ``(drawn, total)``; empty when nothing was left out.

    Notes
    -----
    The budget is shared by water-filling: sections smaller than an equal share keep every
    row, and the rest of the budget is split evenly among the larger ones. Within a capped
    section the rows whose estimate or interval end lies farthest from zero are kept (for an
    audit, the contrasts and claims that decide the floor, the envelope and the verdicts).

    Examples
    --------
    >>> est = [0.1, 0.0, 0.3, -0.2, 0.05, 0.01]
    >>> rows = pd.DataFrame({"section": ["pooled"] + ["per seed"] * 5, "estimate": est,
    ...                      "ci_low": [e - 0.05 for e in est], "ci_high": [e + 0.05 for e in est]})
    >>> kept, left_out = cap_forest_rows(rows, 3)
    >>> kept["estimate"].tolist(), left_out
    ([0.1, 0.3, -0.2], {'per seed': (2, 5)})
    >>> kept["section"].tolist()[1]
    'per seed: 2 of 5 drawn (farthest from 0)'
    """
    if isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1:
        raise ValueError(f"max_rows must be an integer >= 1, got {max_rows!r}")
    if len(rows) <= max_rows:
        return rows, {}
    names = list(dict.fromkeys(rows[section]))
    sizes = rows[section].value_counts().to_dict()
    budget, quota, open_ = int(max_rows), {}, sorted(names, key=lambda n: sizes[n])
    while open_:
        share = max(1, budget // len(open_))
        name = open_[0]
        if sizes[name] <= share:
            quota[name] = sizes[name]
            budget -= sizes[name]
            open_.pop(0)
        else:  # every section left is larger than the share: split what is left evenly
            extra = max(0, budget - share * len(open_))
            for i, rest in enumerate(open_):
                quota[rest] = share + (1 if i < extra else 0)
            break
    keep = np.zeros(len(rows), dtype=bool)
    left_out: dict[str, tuple[int, int]] = {}
    reach = _farthest_from_zero(rows)
    labels = rows[section].to_numpy()
    for name in names:
        where = np.flatnonzero(labels == name)
        if quota[name] >= where.size:
            keep[where] = True
            continue
        best = where[np.argsort(-reach[where], kind="stable")[: quota[name]]]
        keep[best] = True
        left_out[name] = (int(quota[name]), int(where.size))
    kept = rows.loc[keep].copy()
    kept[section] = [f"{n}: {left_out[n][0]:,} of {left_out[n][1]:,} drawn (farthest from 0)"
                     if n in left_out else n for n in kept[section]]
    return kept, left_out


def audit_forest(audit_result, noise_floor=None, *, title: str | None = None,
                 log_contrasts=None, claims_section: str = CLAIMS_SECTION,
                 max_rows: int = MAX_FOREST_ROWS) -> Figure:
    """Forest plot of an audit: null contrasts with their intervals, the floor and envelope
    shaded, a log's own contrasts (when given, see :func:`audit_rows`) and every claim placed
    and coloured by its verdict (percentage points).

    For claims the bracket is the claimed range, drawn as a thick pale bar with end ticks and
    written ``(range low to high)`` so it is not read as a confidence interval (``n/a`` for a
    single number, an arrow for an upper bound only). The legend lists only what is drawn:
    the bands, the null contrasts (dot and interval), the verdicts that occur, and the claimed
    range when one is drawn. When a per-seed null gap lies beyond the envelope, a footnote
    says what "above" then means (:func:`above_note`).

    At most ``max_rows`` rows are drawn, chosen by :func:`cap_forest_rows`; a capped section's
    header says how many of its rows are drawn, a footnote says what was left out of the
    picture, and a :class:`ForestRowsLeftOutWarning` is raised. The tables and the report keep
    every row.

    Parameters
    ----------
    audit_result : noisefloor.audit.verdicts.AuditResult
        Claims placed against the floor.
    noise_floor : noisefloor.floor.estimate.NoiseFloor, optional
        Defaults to ``audit_result.noise_floor``.
    title : str, optional
        Figure title (default ``"Claims against the noise floor"``).
    log_contrasts : pandas.DataFrame, optional
        A log's own contrasts placed against the floor (see :func:`audit_rows`).
    claims_section : str, default :data:`CLAIMS_SECTION`
        Header of the claims (:data:`BUNDLED_CLAIMS_SECTION` for the bundled ones).
    max_rows : int, default :data:`MAX_FOREST_ROWS`
        Most rows drawn.

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows = audit_rows(audit_result, noise_floor, log_contrasts, claims_section=claims_section)
    total = len(rows)
    rows, left_out = cap_forest_rows(rows, max_rows)
    nf = noise_floor if noise_floor is not None else audit_result.noise_floor
    f, env = audit_result.floor, audit_result.envelope
    bands = [(-f, f, f"noise floor ±{f * 100:.1f} pp", "#2458a6"),
             (f, env, f"envelope to {env * 100:.1f} pp", "#d98c00"),
             (-env, -f, "_nolegend_", "#d98c00")]
    markers: list[tuple] = []
    kinds = rows["kind"] if not rows.empty else pd.Series([], dtype=object)
    if (kinds == "null").any():
        level = getattr(nf, "confidence", 0.95)
        pooled_by = ("; pooled rows by random effects"
                     if getattr(nf, "pooling", "summed") == "random" else "")
        markers.append((f"null contrast ({level * 100:g}% CI{pooled_by})", NULL_COLOR, "o"))
    for kind, what, marker in (("log", "contrast", "o"), ("claim", "claim", "D")):
        used = set(rows.loc[kinds == kind, "verdict"])
        markers += [(f"{what} {v}", c, marker) for v, c in VERDICT_COLORS.items() if v in used]
    ranged = (kinds == "claim") & rows["ci_low"].notna() & rows["ci_high"].notna()
    if ranged.any():
        markers.append(("claimed range (not a CI)", "#6b6b6b", "range"))
    notes = []
    if left_out:
        parts = "; ".join(f"{n}: {total_n - drawn:,} of {total_n:,}"
                          for n, (drawn, total_n) in left_out.items())
        notes.append(f"Left out of the picture: {total - len(rows):,} of {total:,} rows "
                     f"({parts}); the rows farthest from 0 are drawn. Every row is in the "
                     "tables and the report.")
        warnings.warn(f"forest plot: drew {len(rows):,} of {total:,} rows ({parts} left out; "
                      "the rows farthest from 0 are drawn); the tables and the report keep "
                      "every row", ForestRowsLeftOutWarning, stacklevel=2)
    if nf is not None and above_note(nf):
        notes.append(above_note(nf))
    return forest_plot(rows, label="label", annotation="note", group="section", color="color",
                       bands=bands, markers=markers, style="style",
                       scale=100.0, xlabel="gap / claimed effect (percentage points)",
                       title=title or "Claims against the noise floor",
                       footnote=" ".join(notes))
