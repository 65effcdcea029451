"""Figures as inline SVG for the HTML pages: a forest plot with bands, curves with intervals,
horizontal bars.

Hand-written SVG (not a rasterised matplotlib figure) so each row carries its hover text
(``data-tip``) and the page stays small; every figure is drawn from rows the page's tables
show, never from statistics computed here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from noisefloor.report.html.page import OKABE_ITO, esc

__all__ = ["ForestRow", "Series", "bars_svg", "curves_svg", "forest_svg"]

_FONT = 'font-family="system-ui,DejaVu Sans,sans-serif"'


@dataclass(frozen=True)
class ForestRow:
    """One row of :func:`forest_svg` (proportions; NaN for a missing end)."""

    section: str
    label: str
    estimate: float
    low: float
    high: float
    color: str
    tip: str
    marker: str = "circle"  # "circle" (interval) or "diamond" (claim: bracket = claimed range)


def _finite(*xs: float) -> list[float]:
    return [x for x in xs if x is not None and math.isfinite(x)]


def _ticks(lo: float, hi: float, n: int = 6) -> list[float]:
    """About ``n`` round tick positions in [lo, hi] (at most ``2 n + 1``).

    Examples
    --------
    >>> _ticks(-0.12, 0.31)
    [-0.1, 0.0, 0.1, 0.2, 0.3]
    >>> _ticks(0.5, 0.5), _ticks(0.0, 1e-300)
    ([0.5], [0.0])
    """
    span = hi - lo
    if not (math.isfinite(span) and span > 1e-9):
        return [lo]
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=raw)
    first = math.ceil(lo / step) * step
    out = [round(first + i * step, 10) for i in range(2 * n + 1)]
    return [x for x in out if x <= hi + 1e-12]


def forest_svg(rows: Sequence[ForestRow], *, floor: float = math.nan,
               envelope: float = math.nan, xlabel: str = "gap (percentage points)",
               width: int = 1080) -> str:
    """A forest plot: one row per contrast or claim, the floor (±floor) and the envelope as
    shaded bands, sections as headers, each row hoverable (its ``tip``).

    Values are proportions and drawn in percentage points.
    """
    label_w, note_w, top, row_h = 380, 20, 46, 22
    plot_w = width - label_w - note_w - 20
    values = [v for r in rows for v in _finite(r.estimate, r.low, r.high)]
    values += _finite(floor, envelope, -floor if math.isfinite(floor) else math.nan,
                      -envelope if math.isfinite(envelope) else math.nan)
    lo, hi = (min(values + [0.0]), max(values + [0.0])) if values else (-0.1, 0.1)
    if hi - lo < 0.01:  # a degenerate range: show at least 1 pp either side
        lo, hi = min(lo, -0.01), max(hi, 0.01)
    pad = 0.05 * (hi - lo)
    lo, hi = lo - pad, hi + pad

    def x(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * plot_w

    lines: list[str] = []
    y = top
    section = None
    body: list[str] = []
    for r in rows:
        if r.section != section:
            section = r.section
            y += 8
            body.append(f'<text x="8" y="{y + 14}" font-weight="600" font-size="13" '
                        f'{_FONT}>{esc(section)}</text>')
            y += row_h
        cy = y + row_h / 2
        parts = [f'<rect class="nf-hit" x="0" y="{y}" width="{width}" height="{row_h}" '
                 'fill="transparent"/>',
                 f'<text x="18" y="{cy + 4.5}" font-size="12.5" {_FONT}>{esc(r.label)}</text>']
        if math.isfinite(r.low) and math.isfinite(r.high):
            if r.marker == "diamond":
                parts.append(f'<line x1="{x(r.low):.1f}" x2="{x(r.high):.1f}" y1="{cy}" '
                             f'y2="{cy}" stroke="{r.color}" stroke-width="7" '
                             'stroke-opacity="0.35"/>')
            else:
                parts.append(f'<line x1="{x(r.low):.1f}" x2="{x(r.high):.1f}" y1="{cy}" '
                             f'y2="{cy}" stroke="{r.color}" stroke-width="2"/>')
        if math.isfinite(r.estimate):
            cx = x(r.estimate)
            if r.marker == "diamond":
                parts.append(f'<path d="M{cx:.1f},{cy - 6} l6,6 l-6,6 l-6,-6 z" '
                             f'fill="{r.color}" stroke="#000" stroke-width="0.6"/>')
            else:
                parts.append(f'<circle cx="{cx:.1f}" cy="{cy}" r="4.5" fill="{r.color}"/>')
        body.append(f'<g class="nf-row" data-tip="{esc(r.tip)}">{"".join(parts)}</g>')
        y += row_h
    height = y + 48
    if math.isfinite(envelope):
        for a, b in ((-envelope, -floor), (floor, envelope)):
            if math.isfinite(a) and math.isfinite(b) and b > a:
                lines.append(f'<rect x="{x(a):.1f}" y="{top}" width="{x(b) - x(a):.1f}" '
                             f'height="{y - top}" fill="{OKABE_ITO["orange"]}" '
                             'fill-opacity="0.18"/>')
    if math.isfinite(floor):
        lines.append(f'<rect x="{x(-floor):.1f}" y="{top}" width="{x(floor) - x(-floor):.1f}" '
                     f'height="{y - top}" fill="{OKABE_ITO["sky"]}" fill-opacity="0.25"/>')
    axis = [f'<line x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{top}" y2="{y}" stroke="#444" '
            'stroke-dasharray="3,3"/>',
            f'<line x1="{label_w}" x2="{label_w + plot_w}" y1="{y}" y2="{y}" stroke="#444"/>']
    for t in _ticks(lo, hi):
        axis.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{y}" y2="{y + 5}" '
                    'stroke="#444"/>')
        axis.append(f'<text x="{x(t):.1f}" y="{y + 18}" font-size="12" text-anchor="middle" '
                    f'{_FONT}>{t * 100:+g}</text>')
    axis.append(f'<text x="{label_w + plot_w / 2:.1f}" y="{y + 38}" font-size="12.5" '
                f'text-anchor="middle" {_FONT}>{esc(xlabel)}</text>')
    legend = []
    lx = label_w
    for text, fill, op in ((f"noise floor ±{floor * 100:.1f} pp", OKABE_ITO["sky"], 0.25),
                           (f"envelope to ±{envelope * 100:.1f} pp", OKABE_ITO["orange"], 0.18)):
        if "nan" in text:
            continue
        legend.append(f'<rect x="{lx}" y="12" width="16" height="12" fill="{fill}" '
                      f'fill-opacity="{op * 2}"/><text x="{lx + 21}" y="22" font-size="12.5" '
                      f'{_FONT}>{esc(text)}</text>')
        lx += 230
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="nf-forest" viewBox="0 0 {width} '
            f'{height}" width="{width}" height="{height}" role="img" '
            f'aria-label="forest plot">{"".join(lines)}{"".join(axis)}{"".join(body)}'
            f'{"".join(legend)}</svg>')


@dataclass(frozen=True)
class Series:
    """One curve of :func:`curves_svg`: points ``(x, y, low, high)`` and a hover tip per point."""

    name: str
    points: Sequence[tuple[float, float, float, float]]
    tips: Sequence[str]


_CYCLE = [OKABE_ITO[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky",
                                 "black", "yellow")]


def curves_svg(series: Sequence[Series], *, xlabel: str, ylabel: str, width: int = 900,
               height: int = 420, ymin: float = 0.0, ymax: float = 1.0, yscale: float = 100.0,
               ) -> str:
    """Lines with interval bands per series (Okabe-Ito colours, distinct dash per series so
    the curves differ without colour), points hoverable."""
    left, right, top, bottom = 64, 280, 20, 52
    pw, ph = width - left - right, height - top - bottom
    xs = [p[0] for s in series for p in s.points]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x1 == x0:
        x0, x1 = x0 - 0.5, x1 + 0.5

    def X(v: float) -> float:
        return left + (v - x0) / (x1 - x0) * pw

    def Y(v: float) -> float:
        return top + (1 - (v - ymin) / (ymax - ymin)) * ph

    out = [f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>']
    for t in _ticks(ymin, ymax, 5):
        out.append(f'<line x1="{left - 4}" x2="{left + pw}" y1="{Y(t):.1f}" y2="{Y(t):.1f}" '
                   'stroke="#e3e3e3"/>')
        out.append(f'<text x="{left - 7}" y="{Y(t) + 4:.1f}" font-size="12" text-anchor="end" '
                   f'{_FONT}>{t * yscale:g}</text>')
    for t in sorted(set(xs)):
        out.append(f'<text x="{X(t):.1f}" y="{top + ph + 17}" font-size="12" '
                   f'text-anchor="middle" {_FONT}>{t:g}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 10}" font-size="12.5" '
               f'text-anchor="middle" {_FONT}>{esc(xlabel)}</text>')
    out.append(f'<text x="14" y="{top + ph / 2}" font-size="12.5" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + ph / 2})" {_FONT}>{esc(ylabel)}</text>')
    dashes = ["", "6,3", "2,3", "8,3,2,3", "4,4", "1,2", "10,4", "3,6"]
    for i, s in enumerate(series):
        col, dash = _CYCLE[i % len(_CYCLE)], dashes[i % len(dashes)]
        pts = [p for p in s.points if math.isfinite(p[1])]
        band = [p for p in pts if math.isfinite(p[2]) and math.isfinite(p[3])]
        if len(band) >= 2:
            poly = " ".join(f"{X(p[0]):.1f},{Y(p[3]):.1f}" for p in band) + " " + " ".join(
                f"{X(p[0]):.1f},{Y(p[2]):.1f}" for p in reversed(band))
            out.append(f'<polygon points="{poly}" fill="{col}" fill-opacity="0.14"/>')
        if len(pts) >= 2:
            out.append('<polyline fill="none" stroke-width="2.2" stroke="' + col + '"'
                       + (f' stroke-dasharray="{dash}"' if dash else "") + ' points="'
                       + " ".join(f"{X(p[0]):.1f},{Y(p[1]):.1f}" for p in pts) + '"/>')
        for p, tip in zip(s.points, s.tips):
            if not math.isfinite(p[1]):
                continue
            if math.isfinite(p[2]) and math.isfinite(p[3]):
                out.append(f'<line x1="{X(p[0]):.1f}" x2="{X(p[0]):.1f}" y1="{Y(p[2]):.1f}" '
                           f'y2="{Y(p[3]):.1f}" stroke="{col}" stroke-width="1.3"/>')
            out.append(f'<circle class="nf-point" cx="{X(p[0]):.1f}" cy="{Y(p[1]):.1f}" r="4.5" '
                       f'fill="{col}" data-tip="{esc(tip)}"/>')
        ly = top + 14 + 20 * i
        out.append(f'<line x1="{left + pw + 14}" x2="{left + pw + 40}" y1="{ly}" y2="{ly}" '
                   f'stroke="{col}" stroke-width="2.5"' + (f' stroke-dasharray="{dash}"'
                                                           if dash else "") + "/>")
        out.append(f'<text x="{left + pw + 46}" y="{ly + 4}" font-size="12" {_FONT}>'
                   f'{esc(s.name[:34])}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" role="img" aria-label="curves">'
            f'{"".join(out)}</svg>')


def bars_svg(labels: Sequence[str], values: Sequence[float], *, tips: Sequence[str],
             hrefs: Sequence[str] | None = None, colors: Sequence[str] | None = None,
             xlabel: str = "", scale: float = 100.0, width: int = 900) -> str:
    """Horizontal bars from 0 (proportions drawn times ``scale``), each hoverable and, with
    ``hrefs``, a link."""
    label_w, row_h, top = 260, 18, 10
    finite = _finite(*values) + [0.0]
    lo, hi = min(finite), max(finite)
    if hi - lo < 1e-9:
        hi = lo + 1.0
    pw = width - label_w - 30

    def X(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * pw

    out = []
    for i, (lab, v) in enumerate(zip(labels, values)):
        y = top + i * row_h
        col = (colors[i] if colors else OKABE_ITO["blue"])
        bar = ""
        if math.isfinite(v):
            a, b = sorted((X(0.0), X(v)))
            bar = (f'<rect x="{a:.1f}" y="{y + 3}" width="{max(b - a, 1):.1f}" '
                   f'height="{row_h - 6}" fill="{col}"/>')
        else:
            bar = (f'<text x="{X(0.0) + 4:.1f}" y="{y + 13}" font-size="11" fill="#555" '
                   f'{_FONT}>n/a</text>')
        inner = (f'<rect x="0" y="{y}" width="{width}" height="{row_h}" fill="transparent" '
                 f'class="nf-hit"/><text x="6" y="{y + 13}" font-size="12" {_FONT}>'
                 f'{esc(lab)}</text>{bar}')
        if hrefs:
            inner = f'<a href="{esc(hrefs[i])}">{inner}</a>'
        out.append(f'<g class="nf-row" data-tip="{esc(tips[i])}">{inner}</g>')
    y = top + len(labels) * row_h
    out.append(f'<line x1="{X(0):.1f}" x2="{X(0):.1f}" y1="{top}" y2="{y}" stroke="#444"/>')
    for t in _ticks(lo, hi, 6):
        out.append(f'<text x="{X(t):.1f}" y="{y + 15}" font-size="11.5" text-anchor="middle" '
                   f'{_FONT}>{t * scale:g}</text>')
    out.append(f'<text x="{label_w + pw / 2}" y="{y + 33}" font-size="12.5" '
               f'text-anchor="middle" {_FONT}>{esc(xlabel)}</text>')
    h = y + 42
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {h}" width="{width}" '
            f'height="{h}" role="img" aria-label="bars">{"".join(out)}</svg>')
