"""Per-label agreement as a forest plot, drawn with :func:`noisefloor.report.forest.forest_plot`.

One section per label (e.g. failure stage L1-L4), one row per coefficient with its bootstrap
interval, the Landis and Koch (1977) bands shaded behind, and a dashed line at 0 (chance
agreement). Consumes an :class:`~noisefloor.agreement.study.AgreementTable`; computes
nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from noisefloor.agreement.study import AgreementTable
from noisefloor.report.forest import forest_plot
from noisefloor.stats.agreement import LANDIS_KOCH_BANDS

__all__ = ["PLOT_FORMATS", "agreement_forest_plot", "agreement_plot_rows", "save_agreement_plot"]

#: File suffixes :func:`save_agreement_plot` writes (the format follows the suffix).
PLOT_FORMATS = (".png", ".svg", ".pdf")

METRIC_COLORS = {
    "fleiss": "#2458a6",
    "randolph": "#2458a6",
    "krippendorff": "#7b3294",
    "cohen": "#d35400",
}
METRIC_NAMES = {
    "fleiss": "Fleiss' kappa",
    "randolph": "Randolph's kappa",
    "krippendorff": "Krippendorff's alpha",
    "cohen": "Cohen's kappa",
}
#: Opaque fills of the Landis-Koch bands poor, slight, fair, moderate, substantial, almost
#: perfect. From slight on, CIE L* falls by about 7 per band (97, 90, 83, 76, 69) while the hue
#: turns from pale yellow to blue-grey, so neighbours differ in lightness, which survives every
#: kind of colour blindness; "poor" (below 0, left of the dashed chance line) is a light red.
#: Checked with colorspacious: adjacent bands are at least 6 CAM02-UCS units apart under full
#: deuteranomaly, protanomaly and tritanomaly. All are light enough (L* >= 69) for the blue,
#: purple and orange estimates drawn over them.
BAND_COLORS = ("#facccb", "#fef6df", "#e8e4b8", "#bed6b4", "#99c4bb", "#84afc1")
BAND_EDGE = "#8c8c8c"  # outline of the legend swatches, so the palest one shows on white


def agreement_plot_rows(table: AgreementTable) -> pd.DataFrame:
    """The rows the plot draws: ``group, row, value, ci_low, ci_high, note, color``.

    ``row`` names the coefficient and who was compared; ``note`` gives the items used and the
    Landis-Koch band, or the reason when the value is undefined.

    Examples
    --------
    >>> import pandas as pd
    >>> from noisefloor.agreement.study import agreement_by_label
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
    ...                    "label": [1, 1, 0, 0, 1, 0]})
    >>> agreement_plot_rows(agreement_by_label(df, metrics=("cohen",), n_boot=0))["row"].tolist()
    ["Cohen's kappa, a vs b"]
    """
    records = []
    for r in table.results:
        name = METRIC_NAMES.get(r.metric, r.metric)
        if r.comparison:
            name += f", {r.comparison}"
        if math.isfinite(r.value):
            note = f"n={r.n_items}  {r.landis_koch}"
        else:
            note = r.reason.split(":")[0] if r.reason else "n/a"
        records.append(
            {
                "group": r.label,
                "row": name,
                "value": r.value,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                "note": note,
                "color": METRIC_COLORS.get(r.metric, "#444444"),
            }
        )
    return pd.DataFrame.from_records(records)


def agreement_forest_plot(table: AgreementTable, *, title: str = "") -> Figure:
    """Forest plot of every coefficient in ``table``, grouped by label.

    Parameters
    ----------
    table : AgreementTable
        From :func:`noisefloor.agreement.study.agreement_by_label`.
    title : str, optional
        Figure title (default: a description of the intervals).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If the table has no results.

    Notes
    -----
    The shaded bands are Landis and Koch (1977), Biometrics 33:159-174; they are a reading aid,
    the numbers beside each row are what to report.
    """
    rows = agreement_plot_rows(table)
    if rows.empty:
        raise ValueError("the agreement table has no results to plot")
    lows = pd.to_numeric(rows["ci_low"], errors="coerce").dropna()
    lows = pd.concat([lows, pd.to_numeric(rows["value"], errors="coerce").dropna()])
    left = min(-0.1, float(lows.min()) - 0.05) if not lows.empty else -0.1
    bands = []
    for (lo, hi, name), col in zip(LANDIS_KOCH_BANDS, BAND_COLORS):
        lo = max(lo, left)
        if hi > lo:
            bands.append((lo, hi, name, col))
    confidence = table.results[0].confidence if table.results else 0.95
    fig = forest_plot(
        rows,
        label="row",
        estimate="value",
        ci_low="ci_low",
        ci_high="ci_high",
        annotation="note",
        group="group",
        color="color",
        bands=(),  # drawn below, opaque: forest_plot's translucent bands wash out pale colours
        reference=0.0,
        scale=1.0,
        digits=2,
        xlabel="agreement (kappa / alpha); 0 = chance, 1 = perfect",
        title=title
        or f"Inter-rater agreement per label ({confidence:.0%} bootstrap CI over items)",
        xlim=(left, 1.02),
    )
    _draw_bands(fig.axes[0], bands)
    return fig


def _draw_bands(ax, bands: list) -> None:
    """Opaque Landis-Koch bands under the grid and the estimates, and their legend above."""
    handles = []
    for lo, hi, name, col in bands:
        ax.axvspan(lo, hi, facecolor=col, lw=0, zorder=0.1)
        handles.append(Patch(facecolor=col, edgecolor=BAND_EDGE, lw=0.6, label=name))
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0),
              ncol=min(len(handles), 6), frameon=False, fontsize=9,
              title="Landis-Koch band", title_fontsize=9, alignment="left")


def save_agreement_plot(
    table: AgreementTable, path: str | Path | Sequence[str | Path], *, title: str = ""
) -> list[Path]:
    """Draw :func:`agreement_forest_plot` and write it to ``path``, in the format of its suffix.

    Parameters
    ----------
    table : AgreementTable
        From :func:`noisefloor.agreement.study.agreement_by_label`.
    path : str, Path or sequence of them
        Where to write; each suffix names the format, one of :data:`PLOT_FORMATS` (``.png`` at
        150 dpi, ``.svg``, ``.pdf``). Exactly these files are written, nothing beside them;
        missing parent directories are created.
    title : str, optional
        Figure title (default: a description of the intervals).

    Returns
    -------
    list of Path
        The files written, in the order given.

    Raises
    ------
    ValueError
        A suffix that is not a supported format (checked before anything is drawn), no path,
        or a table without results.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> from noisefloor.agreement.study import agreement_by_label
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
    ...                    "label": [1, 1, 0, 0, 1, 0]})
    >>> d = Path(tempfile.mkdtemp())
    >>> [p.name for p in save_agreement_plot(agreement_by_label(df, n_boot=0), d / "k.pdf")]
    ['k.pdf']
    >>> sorted(p.name for p in d.iterdir())
    ['k.pdf']
    """
    paths = [Path(path)] if isinstance(path, (str, Path)) else [Path(p) for p in path]
    if not paths:
        raise ValueError("no path to write the plot to")
    for p in paths:
        if p.suffix.lower() not in PLOT_FORMATS:
            raise ValueError(
                f"{p}: the plot format follows the file suffix, one of {', '.join(PLOT_FORMATS)}; "
                f"got {p.suffix or 'no suffix'!r}"
            )
    fig = agreement_forest_plot(table, title=title)
    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(p, dpi=150, bbox_inches="tight", format=p.suffix.lower()[1:])
    return paths
