"""Per-label agreement as a forest plot, drawn with :func:`noisefloor.plots.forest_plot`.

One section per label (e.g. failure stage L1-L4), one row per coefficient with its bootstrap
interval, the Landis and Koch (1977) bands shaded behind, and a dashed line at 0 (chance
agreement). Consumes an :class:`~noisefloor.stats.agreement_table.AgreementTable`; computes
nothing.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from noisefloor.plots import forest_plot, save_figure
from noisefloor.stats.agreement import LANDIS_KOCH_BANDS
from noisefloor.stats.agreement_table import AgreementTable

__all__ = ["agreement_forest_plot", "agreement_plot_rows", "save_agreement_plot"]

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
BAND_COLORS = ("#b2182b", "#ef8a62", "#fddbc7", "#d1e5f0", "#67a9cf", "#2166ac")


def agreement_plot_rows(table: AgreementTable) -> pd.DataFrame:
    """The rows the plot draws: ``group, row, value, ci_low, ci_high, note, color``.

    ``row`` names the coefficient and who was compared; ``note`` gives the items used and the
    Landis-Koch band, or the reason when the value is undefined.

    Examples
    --------
    >>> import pandas as pd
    >>> from noisefloor.stats.agreement_table import agreement_by_label
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
        From :func:`noisefloor.stats.agreement_table.agreement_by_label`.
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
    return forest_plot(
        rows,
        label="row",
        estimate="value",
        ci_low="ci_low",
        ci_high="ci_high",
        annotation="note",
        group="group",
        color="color",
        bands=bands,
        reference=0.0,
        scale=1.0,
        digits=2,
        xlabel="agreement (kappa / alpha); 0 = chance, 1 = perfect",
        title=title
        or f"Inter-rater agreement per label ({confidence:.0%} bootstrap CI over items)",
        xlim=(left, 1.02),
    )


def save_agreement_plot(table: AgreementTable, path: str | Path, *, title: str = "") -> list[Path]:
    """Draw :func:`agreement_forest_plot` and write ``<path stem>.png`` and ``.svg``.

    Parameters
    ----------
    path : str or Path
        Target; its suffix (if any) is replaced by ``.png`` and ``.svg``.

    Returns
    -------
    list of Path
        The two files written.
    """
    path = Path(path)
    fig = agreement_forest_plot(table, title=title)
    return save_figure(fig, path.parent, path.stem if path.suffix else path.name)
