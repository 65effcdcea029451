"""Power against the number of tasks, one line per design, drawn from :func:`power_curve` frames.

Consumes the frames of :func:`noisefloor.stats.power.planning.power_curve`; computes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

__all__ = ["PLOT_FORMATS", "power_plot", "save_power_plot"]

#: File suffixes :func:`save_power_plot` writes (the format follows the suffix).
PLOT_FORMATS = (".png", ".svg", ".pdf")

_COLORS = ("#2458a6", "#d35400", "#7b3294", "#1b7837")


def power_plot(curves: dict[str, pd.DataFrame], *, target: float = 0.8, title: str = "",
               marks: dict[str, int] | None = None) -> Figure:
    """Figure of power (y, 0..1) against tasks n (x), one line per labelled curve.

    Parameters
    ----------
    curves : dict of str to pandas.DataFrame
        Label -> frame with columns ``n`` and ``power`` (:func:`power_curve`).
    target : float, default 0.8
        Target power, drawn as a dashed horizontal line.
    title : str, optional
        Figure title.
    marks : dict of str to int, optional
        Label -> the n planned for it, drawn as a dotted vertical line in the curve's colour.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``curves`` is empty or a frame lacks ``n`` or ``power``.

    Examples
    --------
    >>> import pandas as pd
    >>> fig = power_plot({"mcnemar": pd.DataFrame({"n": [10, 20], "power": [0.3, 0.6]})})
    >>> fig.axes[0].get_ylabel()
    'power'
    """
    if not curves:
        raise ValueError("curves is empty: nothing to plot")
    fig = Figure(figsize=(6.4, 4.0), dpi=120)
    ax = fig.add_subplot()
    for i, (label, frame) in enumerate(curves.items()):
        if not {"n", "power"} <= set(frame.columns):
            raise ValueError(f"curve {label!r} needs columns n and power; got "
                             f"{list(frame.columns)}")
        color = _COLORS[i % len(_COLORS)]
        ax.plot(frame["n"], frame["power"], color=color, lw=1.6, label=label)
        if marks and label in marks and marks[label] > 0:
            ax.axvline(marks[label], color=color, ls=":", lw=1.0)
    ax.axhline(target, color="#555555", ls="--", lw=0.9, label=f"target power {target:g}")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("tasks n (per arm for the independent test, pairs for the paired tests)")
    ax.set_ylabel("power")
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def save_power_plot(fig: Figure, path) -> Path:
    """Write ``fig`` to ``path``; the suffix (.png, .svg, .pdf) picks the format.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or pathlib.Path

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ValueError
        If the suffix is not one of :data:`PLOT_FORMATS`.

    Examples
    --------
    >>> import tempfile, os, pandas as pd
    >>> fig = power_plot({"a": pd.DataFrame({"n": [1, 2], "power": [0.1, 0.2]})})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     os.path.getsize(save_power_plot(fig, os.path.join(d, "p.svg"))) > 0
    True
    """
    out = Path(path)
    if out.suffix.lower() not in PLOT_FORMATS:
        raise ValueError(f"plot file {str(out)!r}: the suffix must be one of "
                         f"{', '.join(PLOT_FORMATS)}; got {out.suffix or 'none'!r}")
    fig.savefig(out)
    return out
