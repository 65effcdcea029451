"""The prompt intervention: stage clauses as prompt variants, and the recovered share of the tax.

The four clause texts and the five variants (``all_four`` and the leave-one-out ``no_L1`` ...
``no_L4``) are the runner's prompt-variants file (``harness/runner/data/variants.toml``, read by
``harness.runner.variants.load_variants``): the analysis needs only the variant names that the
rollouts carry, never the texts. The runner appends a variant's addition to each agent's system prompt and writes its
rollouts with protocol ``pair+<variant>``. The recovered share of a family is
``(pair_variant - pair_baseline) / (solo - pair_baseline)`` on the instances run in all three
arms, with the percentile interval of a bootstrap that resamples instances within each
model x task cell (the cells are fixed, as the estimand's tasks are).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.stats.hierarchical import percentile_interval, task_weighted_means
from noisefloor.stats.stratified import stratified_bootstrap
from noisefloor.tax.run import TaxRun

__all__ = ["VARIANT_ORDER", "figure6_markdown", "recovered_share_table"]

VARIANT_ORDER = ("all_four", "no_L1", "no_L2", "no_L3", "no_L4")
STAGES = ("L1", "L2", "L3", "L4")


def recovered_share_table(
    run: TaxRun, *, n_boot: int = 2000, confidence: float = 0.95,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Recovered share of the tax for every prompt variant in the run, per family and overall.

    Parameters
    ----------
    run : TaxRun
    n_boot : int, default 2000
    confidence : float, default 0.95
    rng : int, numpy.random.Generator or None, default 0

    Returns
    -------
    pandas.DataFrame
        One row per (variant, family) plus ``family == "all"``: ``n_cells`` (model x task
        cells), ``n_instances`` (instances with all three arms), ``solo``, ``pair_baseline``,
        ``pair_variant`` (cell-weighted means), ``recovered``, ``ci_low``, ``ci_high``,
        ``half_width`` (``(ci_high - ci_low) / 2``), ``note``. NaN with a reason where the
        baseline tax is not positive (the share is undefined) or no instance has all three
        arms. Empty (with these columns) when the run has no variant rollouts.

    Notes
    -----
    ``recovered = (V - B) / (S - B)`` with S, B, V the means over model x task cells (each the
    mean over its paired instances) of solo, baseline pair and variant pair; the bootstrap
    (:func:`noisefloor.stats.stratified.stratified_bootstrap`) resamples instances within
    each cell, keeping the cells fixed, and recomputes the ratio (replicates with
    ``S - B <= 0`` are undefined and dropped; more than half dropped gives a NaN interval).

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.run import read_run
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, models={"m": 0.95}, tasks=[("spatial_one_way", "spatial")],
    ...                         n_instances=30, variants={"all_four": {"spatial": 0.5}},
    ...                         modes=("solo", "pair"), seed=2)
    >>> t = recovered_share_table(read_run(d), n_boot=200)
    >>> t[["variant", "family", "n_instances"]].values.tolist()
    [['all_four', 'spatial', 30], ['all_four', 'all', 30]]
    """
    cols = ["variant", "family", "n_cells", "n_instances", "solo", "pair_baseline",
            "pair_variant", "recovered", "ci_low", "ci_high", "half_width", "note"]
    df = run.rollouts
    ok = df[~df["infrastructure_error"] & ~df["mixed"]]
    variants = [v for v in ok.loc[ok["mode"] == "pair", "variant"].unique() if v != "baseline"]
    if not variants:
        return pd.DataFrame(columns=cols)
    keys = ["model", "task", "family", "instance"]
    solo = ok[(ok["mode"] == "solo") & (ok["variant"] == "baseline")].groupby(keys)["reward"].mean()
    base = ok[(ok["mode"] == "pair") & (ok["variant"] == "baseline")].groupby(keys)["reward"].mean()
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    order = {v: i for i, v in enumerate(VARIANT_ORDER)}
    rows = []
    for v in sorted(variants, key=lambda x: (order.get(x, 99), x)):
        var = ok[(ok["mode"] == "pair") & (ok["variant"] == v)].groupby(keys)["reward"].mean()
        joined = pd.concat([solo.rename("s"), base.rename("b"), var.rename("v")], axis=1,
                           join="inner").reset_index()
        fams = [f for f in run.families if f in set(joined["family"])]
        for fam in fams + ["all"]:
            g = joined if fam == "all" else joined[joined["family"] == fam]
            rows.append(_share_row(v, fam, g, n_boot, confidence, gen))
        if joined.empty:
            rows.append({"variant": v, "family": "all", "n_cells": 0, "n_instances": 0,
                         **{k: math.nan for k in cols[4:11]},
                         "note": f"no instance was run solo, as a baseline pair and under {v}"})
    return pd.DataFrame(rows, columns=cols)


def _share_row(v: str, fam: str, g: pd.DataFrame, n_boot: int, confidence: float,
               gen: np.random.Generator) -> dict[str, Any]:
    cell = (g["model"] + "\x1f" + g["task"]).to_numpy()
    vals = g[["s", "b", "v"]].to_numpy()
    s, b, w = task_weighted_means(vals, cell)
    row: dict[str, Any] = {"variant": v, "family": fam, "n_cells": len(set(cell)),
                           "n_instances": len(g), "solo": float(s),
                           "pair_baseline": float(b), "pair_variant": float(w), "note": ""}
    if s - b <= 0:
        row.update(recovered=math.nan, ci_low=math.nan, ci_high=math.nan, half_width=math.nan,
                   note=f"baseline tax {s - b:+.3f} is not positive: the recovered share is "
                   "undefined")
        return row
    reps = stratified_bootstrap(vals, cell, n_boot=n_boot, rng=gen)
    den = reps[:, 0] - reps[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, (reps[:, 2] - reps[:, 1]) / den, np.nan)
    lo, hi = percentile_interval(r, confidence)
    row.update(recovered=float((w - b) / (s - b)), ci_low=lo, ci_high=hi,
               half_width=(hi - lo) / 2 if math.isfinite(lo) else math.nan)
    if not math.isfinite(lo):
        row["note"] = "more than half the bootstrap replicates had no positive tax: no interval"
    return row


def figure6_markdown(table: pd.DataFrame) -> str:
    """The paper's Figure 6 table in Markdown: recovered share (%) with half-widths as subscripts.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`recovered_share_table`.

    Returns
    -------
    str
        Rows: variants (``all_four``, ``no_L1`` ... in that order); columns: families then
        ``all``; each cell ``38.3<sub>±5.1</sub>`` in percentage points, the column maximum in
        bold, ``n/a`` where undefined.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"variant": ["all_four", "no_L1"], "family": ["csp", "csp"],
    ...                   "recovered": [0.383, 0.2], "half_width": [0.051, 0.04]})
    >>> print(figure6_markdown(t))
    | variant | csp |
    |---|---|
    | all_four | **38.3<sub>±5.1</sub>** |
    | no_L1 | 20.0<sub>±4.0</sub> |
    """
    if table.empty:
        return "_No prompt-variant rollouts in the run._"
    fams = list(dict.fromkeys(table["family"]))
    variants = list(dict.fromkeys(table["variant"]))
    best = {}
    for f in fams:
        col = table.loc[table["family"] == f, "recovered"].astype(float)
        best[f] = col.max() if col.notna().any() else math.nan
    lines = ["| variant | " + " | ".join(fams) + " |", "|---" * (len(fams) + 1) + "|"]
    for v in variants:
        cells = []
        for f in fams:
            hit = table[(table["variant"] == v) & (table["family"] == f)]
            if hit.empty or not math.isfinite(float(hit["recovered"].iloc[0])):
                cells.append("n/a")
                continue
            r, h = float(hit["recovered"].iloc[0]), float(hit["half_width"].iloc[0])
            text = f"{100 * r:.1f}" + (f"<sub>±{100 * h:.1f}</sub>" if math.isfinite(h) else "")
            cells.append(f"**{text}**" if r == best[f] else text)
        lines.append(f"| {v} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
