"""Predicting the tax of a model x task cell from conversation shape (grouped-fold ridge).

Each same-model cell contributes one row: its tax (solo mean minus pair mean) as the target and
the means of :data:`noisefloor.tax.features.FEATURES` over its baseline pair rollouts as
features. :func:`noisefloor.tax.grouped.grouped_ridge` scores the fit on held-out tasks
(``GroupKFold`` by task, penalty chosen in an inner grouped loop), and again leaving one task
out and leaving one model out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.tax.features import FEATURES, feature_table
from noisefloor.tax.run import TaxRun, read_transcripts

if TYPE_CHECKING:
    from noisefloor.tax.grouped import GroupedRidge

__all__ = ["TaxPrediction", "cell_features", "predict_tax"]


def cell_features(run: TaxRun, *, missing: str = "error") -> tuple[pd.DataFrame, list[str]]:
    """Mean conversation features of each same-model cell's baseline pair rollouts.

    Parameters
    ----------
    run : TaxRun
    missing : {"error", "omit"}, default "error"
        What to do with a pair rollout whose transcript is missing (see
        :func:`noisefloor.tax.run.read_transcripts`).

    Returns
    -------
    (features, missing_keys) : (pandas.DataFrame, list of str)
        One row per (model, task) with ``n_rollouts`` and the mean of each feature;
        the rollout keys left out for a missing transcript.
    """
    df = run.rollouts
    sel = df[(df["mode"] == "pair") & (df["variant"] == "baseline") & ~df["mixed"]
             & ~df["infrastructure_error"]]
    events, missing_keys = read_transcripts(run, sel["rollout_key"], missing=missing)
    feats = feature_table(events)
    joined = sel[["model", "task", "rollout_key"]].join(feats, on="rollout_key", how="inner")
    g = joined.groupby(["model", "task"], sort=True)
    out = g[list(FEATURES)].mean()
    out.insert(0, "n_rollouts", g.size())
    return out.reset_index(), missing_keys


@dataclass(frozen=True)
class TaxPrediction(FrozenResult):
    """Result of :func:`predict_tax`.

    Attributes
    ----------
    cells : pandas.DataFrame
        The modelled cells: ``model, task, tax`` and the features.
    n_cells_left_out : int
        Cells with an undefined tax or feature (NaN), left out of every fit; listed in
        ``left_out``.
    left_out : tuple of str
        ``"model/task"`` of those cells.
    missing_transcripts : int
        Pair rollouts left out for a missing transcript (with ``missing="omit"``).
    grouped : GroupedRidge or None
        GroupKFold by task (the headline fit: pooled out-of-fold R^2, mean per-fold R^2,
        Spearman, permutation p).
    leave_one_task_out : GroupedRidge or None
    leave_one_model_out : GroupedRidge or None
        None when fewer than 3 models (``reasons`` says so).
    reasons : dict
        ``{"grouped" | "leave_one_task_out" | "leave_one_model_out": why it is None}``.
    """

    cells: pd.DataFrame
    n_cells_left_out: int
    left_out: tuple
    missing_transcripts: int
    grouped: GroupedRidge | None
    leave_one_task_out: GroupedRidge | None
    leave_one_model_out: GroupedRidge | None
    reasons: dict

    # hand-written: one row per fitting scheme, picked fields of each fit
    def to_frame(self) -> pd.DataFrame:
        """One row per scheme: ``scheme, n, n_folds, r2_pooled_oof, r2_mean_fold,
        r2_squared_pearson, spearman_rho, spearman_p, spearman_method, r2_perm_p, reason``."""
        rows = []
        for name in ("grouped", "leave_one_task_out", "leave_one_model_out"):
            r = getattr(self, name)
            if r is None:
                rows.append({"scheme": name, "reason": self.reasons.get(name, "")})
                continue
            rows.append({"scheme": name, "n": r.n, "n_folds": r.n_folds,
                         "r2_pooled_oof": r.r2_pooled_oof, "r2_mean_fold": r.r2_mean_fold,
                         "r2_squared_pearson": r.r2_squared_pearson,
                         "spearman_rho": r.spearman.rho, "spearman_p": r.spearman.p_value,
                         "spearman_method": r.spearman.method, "r2_perm_p": r.r2_perm_p,
                         "reason": r.reason})
        return pd.DataFrame(rows)

    # hand-written: n_cells for the cells table, the fits by scheme name
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the three fits (``None`` with a reason where not fitted)."""
        return {"n_cells": len(self.cells), "n_cells_left_out": self.n_cells_left_out,
                "left_out": list(self.left_out), "missing_transcripts": self.missing_transcripts,
                "reasons": dict(self.reasons),
                **{k: (getattr(self, k).to_dict() if getattr(self, k) is not None else None)
                   for k in ("grouped", "leave_one_task_out", "leave_one_model_out")}}


def predict_tax(
    run: TaxRun, cells: pd.DataFrame, *, n_permutations: int = 199, n_folds: int = 5,
    missing: str = "error", rng: int | np.random.Generator | None = 0,
) -> TaxPrediction:
    """Grouped-fold ridge of the cell tax on conversation shape, three ways.

    Parameters
    ----------
    run : TaxRun
    cells : pandas.DataFrame
        :func:`noisefloor.tax.cells.cell_table` with ``by="task"`` (its ``tax`` is the target).
    n_permutations : int, default 199
        Permutations of the R^2 null for the GroupKFold fit (the leave-one-out fits skip it).
    n_folds : int, default 5
    missing : {"error", "omit"}, default "error"
        Missing transcripts: raise, or leave those rollouts out (counted).
    rng : int, numpy.random.Generator or None, default 0

    Returns
    -------
    TaxPrediction
    """
    # on first use: scikit-learn comes with the harness extra, and the HTML pages of every
    # command import this module (through the tax page) without predicting anything
    from noisefloor.tax.grouped import grouped_ridge

    feats, missing_keys = cell_features(run, missing=missing)
    data = cells[["model", "task", "tax"]].merge(feats, on=["model", "task"], how="left")
    cols = list(FEATURES)
    finite = np.isfinite(data[["tax"] + cols].to_numpy(dtype=float)).all(axis=1)
    left = tuple(f"{m}/{t}" for m, t in data.loc[~finite, ["model", "task"]].itertuples(index=False))
    use = data[finite].reset_index(drop=True)
    X, y = use[cols].to_numpy(dtype=float), use["tax"].to_numpy(dtype=float)
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    reasons: dict[str, str] = {}
    fits: dict[str, GroupedRidge | None] = {}
    for name, groups, scheme, perms in (
        ("grouped", use["task"].to_numpy(), "group_kfold", n_permutations),
        ("leave_one_task_out", use["task"].to_numpy(), "leave_one_group_out", 0),
        ("leave_one_model_out", use["model"].to_numpy(), "leave_one_group_out", 0),
    ):
        n_groups = len(set(groups))
        what = "models" if name == "leave_one_model_out" else "tasks"
        if n_groups < 3:
            fits[name] = None
            reasons[name] = (f"{n_groups} {what} with a defined tax and features: a grouped fit "
                             "needs at least 3")
            continue
        fits[name] = grouped_ridge(X, y, groups, scheme=scheme, n_folds=n_folds,
                                   n_permutations=perms, feature_names=cols, rng=gen)
    return TaxPrediction(cells=use, n_cells_left_out=int((~finite).sum()), left_out=left,
                         missing_transcripts=len(missing_keys), grouped=fits["grouped"],
                         leave_one_task_out=fits["leave_one_task_out"],
                         leave_one_model_out=fits["leave_one_model_out"], reasons=reasons)
