"""pass^k curves with intervals per configuration: :func:`pass_hat_k_report`.

The values are those of :func:`noisefloor.passk.pass_hat_k_table` (``noisefloor passk``); each
(configuration, k) gets the analytic interval of :func:`noisefloor.passk.pass_hat_k_interval`
(CLT over tasks, Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640). The page of
``noisefloor passk --html`` renders the result (:mod:`noisefloor.report.html.pass_hat_k_page`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from noisefloor.passk.trials import CONFIG_COLUMNS, pass_hat_k_interval
from noisefloor.results import FrozenResult

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


def pass_hat_k_report(trials: pd.DataFrame, table: pd.DataFrame, *,
                      by: Sequence[str] = CONFIG_COLUMNS, infrastructure_errors: str = "exclude",
                      k_exceeds_n: str = "nan", unequal_trials: str = "allow",
                      confidence: float = 0.95) -> PassHatKReport:
    """Group ``table`` (:func:`~noisefloor.passk.pass_hat_k_table` of ``trials``) by
    configuration (the columns ``by``, as the table was grouped) and attach each k's analytic
    interval over tasks.

    An interval is NaN with a reason when pass^k is, when fewer than two tasks enter it, or
    under ``unequal_trials="truncate"`` (the interval does not truncate).

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial records the table was computed from.
    table : pandas.DataFrame
        :func:`~noisefloor.passk.pass_hat_k_table` of ``trials`` (optionally with the
        ``pass_at_k``, ``pass_at_k_ci_low`` and ``pass_at_k_ci_high`` columns of
        :func:`~noisefloor.passk.pass_at_k_table` beside it).
    by : sequence of str, default ("benchmark", "model", "protocol", "seed")
        The configuration columns the table was grouped by.
    infrastructure_errors, k_exceeds_n, unequal_trials : str
        The policies the table was computed with.
    confidence : float, default 0.95
        Level of the intervals.

    Returns
    -------
    PassHatKReport

    Examples
    --------
    >>> import pandas as pd
    >>> from noisefloor.passk import pass_hat_k_table
    >>> t = pd.DataFrame({"task_id": [str(i // 2) for i in range(8)], "trial": [0, 1] * 4,
    ...                   "reward": [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]})
    >>> r = pass_hat_k_report(t, pass_hat_k_table(t, [1, 2]))
    >>> r.to_dict()["pass_hat_k"], round(r.groups[0]["intervals"][1]["se"], 4)
    ({1: 0.625, 2: 0.5}, 0.2394)
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
        if "pass_at_k" in g.columns:  # pass@k beside pass^k (noisefloor.passk.pass_at_k_table)
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
