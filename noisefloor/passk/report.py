"""pass^k and pass@k per configuration, with intervals, in one result.

:func:`pass_hat_k_report_from_logs` is ``noisefloor passk`` in one call on the log paths;
:func:`pass_hat_k_report_from_trials` does the same on trials already loaded: the values of
:func:`noisefloor.passk.pass_hat_k_table` and :func:`noisefloor.passk.pass_at_k_table`, and for
each (configuration, k) the analytic interval of :func:`noisefloor.passk.pass_hat_k_interval`
(CLT over tasks, Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640), gathered by
:func:`pass_hat_k_report` into one :class:`PassHatKReport`. Its ``to_dict()`` is the command's
``--json``; the page of ``noisefloor passk --html`` renders it
(:mod:`noisefloor.report.html.pass_hat_k`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from noisefloor.passk.trials import (
    CONFIG_COLUMNS,
    default_max_k,
    pass_at_k_table,
    pass_hat_k_interval,
    pass_hat_k_table,
)
from noisefloor.results import FrozenResult

__all__ = ["PassHatKReport", "pass_hat_k_report", "pass_hat_k_report_from_logs",
           "pass_hat_k_report_from_trials"]


@dataclass(frozen=True)
class PassHatKReport(FrozenResult):
    """pass^k (and pass@k) of each configuration with intervals.

    ``to_dict()`` is ``{"groups": [...], "confidence": ...}`` whatever the number of
    configurations (the document of ``noisefloor passk --json``): every configuration, the
    only one included, is one entry of ``groups`` with the same keys.

    Attributes
    ----------
    groups : tuple of dict
        One per configuration, each with the same keys: the configuration's columns
        (``keys``), ``run`` (the run its trials come from; None when there is no ``run``
        column, or when ``keys`` leaves it out and the trials come from several runs),
        ``pass_hat_k`` (k -> value), ``pass_at_k`` (k -> value) and ``pass_at_k_interval``
        (k -> ``[low, high]``) when the table carried pass@k (always, from
        :func:`pass_hat_k_report_from_trials`), ``n_tasks``, ``n_infrastructure_errors``,
        ``infrastructure_errors``, ``details`` (every field of each k's
        :class:`~noisefloor.stats.passk.PassHatK`, and pass@k's) and ``intervals``
        (k -> ``ci_low, ci_high, se, confidence, method, reason``).
    keys : tuple of str
        The configuration columns the groups were formed by (not in ``to_dict()``: every
        group carries them).
    confidence : float
        Level of the intervals.
    """

    _dict_keys = ("groups", "confidence")

    groups: tuple = field(repr=False)
    keys: tuple = ()
    confidence: float = 0.95

    @property
    def n_infrastructure_errors(self) -> int:
        """Infrastructure-error trials over every configuration (left out of pass^k under
        ``infrastructure_errors="exclude"``, counted as failures under ``"fail"``)."""
        return int(sum(g["n_infrastructure_errors"] for g in self.groups))

    @property
    def n_trials_truncated(self) -> int:
        """Trials beyond each task's first m dropped to equalise trial counts, over every
        configuration (``unequal_trials="truncate"``; 0 otherwise)."""
        return sum(int(g["details"][0]["n_trials_truncated"]) for g in self.groups
                   if g["details"])

    def details_frame(self) -> pd.DataFrame:
        """One row per (configuration, k): the configuration columns, then every field of
        ``details`` (the table ``noisefloor passk`` prints its columns from)."""
        return pd.DataFrame([{**{c: g[c] for c in self.keys}, **d}
                             for g in self.groups for d in g["details"]])

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
    >>> r.groups[0]["pass_hat_k"], round(r.groups[0]["intervals"][1]["se"], 4)
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
        # every group names its run (one shape): the grouping key, or the one run of its trials
        runs: list = (sel["run"].dropna().unique().tolist()
                      if "run" in sel.columns and "run" not in cfg else [])
        run = {} if "run" in cfg else {"run": runs[0] if len(runs) == 1 else None}
        groups.append({**cfg, **run, "pass_hat_k": {int(k): v for k, v in zip(g["k"], g["value"])},
                       **at_k,
                       "n_tasks": int(g["n_tasks"].iloc[0]),
                       "n_infrastructure_errors": int(g["n_infrastructure_errors"].iloc[0]),
                       "infrastructure_errors": infrastructure_errors,
                       "details": g.drop(columns=list(keys)).to_dict(orient="records"),
                       "intervals": intervals})
    return PassHatKReport(groups=tuple(groups), keys=keys, confidence=confidence)


def pass_hat_k_report_from_trials(trials: pd.DataFrame, ks: Sequence[int] = (), *,
                                  infrastructure_errors: str = "exclude",
                                  k_exceeds_n: str = "nan", unequal_trials: str = "allow",
                                  confidence: float = 0.95) -> PassHatKReport:
    """pass^k and pass@k of every configuration in ``trials``: ``noisefloor passk`` in one call.

    A configuration is one (benchmark, model, protocol, seed); when ``trials`` hold several
    runs (the ``run`` column), each run is a configuration of its own (two runs of one
    configuration are two samples of it, never merged, as ``noisefloor floor`` keeps them).

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records (:func:`noisefloor.logs.load_trials`).
    ks : sequence of int, default ()
        Values of k; empty: 1 up to :func:`~noisefloor.passk.default_max_k` (the most trials
        any task has as pass^k counts them, after the policies below).
    infrastructure_errors, k_exceeds_n, unequal_trials : str
        As for :func:`~noisefloor.passk.pass_hat_k`.
    confidence : float, default 0.95
        Level of the pass^k and pass@k intervals over tasks.

    Returns
    -------
    PassHatKReport
        Its ``to_dict()`` is the document ``noisefloor passk --json`` prints.

    Raises
    ------
    ValueError
        What :func:`~noisefloor.passk.pass_hat_k` refuses: a missing column, a duplicate
        (task, trial), an invalid policy, a task with fewer than k trials under
        ``k_exceeds_n="error"``, unequal trial counts under ``unequal_trials="error"``; a
        ``confidence`` not strictly between 0 and 1.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "task_id": ["1", "1", "2", "2"] * 2,
    ...                   "trial": [0, 1] * 4, "reward": [1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0]})
    >>> r = pass_hat_k_report_from_trials(t)
    >>> [(g["model"], g["pass_hat_k"], g["pass_at_k"]) for g in r.groups]
    [('a', {1: 0.75, 2: 0.5}, {1: 0.75, 2: 1.0}), ('b', {1: 0.25, 2: 0.0}, {1: 0.25, 2: 0.5})]
    >>> list(r.to_dict())
    ['groups', 'confidence']
    """
    several_runs = "run" in trials.columns and trials["run"].nunique() > 1
    by = CONFIG_COLUMNS + (("run",) if several_runs else ())
    ks = tuple(dict.fromkeys(int(k) for k in ks))  # in order, without repeats
    if not ks:
        # as pass^k counts trials: after the infrastructure-error policy, without never-run
        # trials, after truncation; every trial dropped: k = 1, reported as NaN with the reason
        ks = tuple(range(1, default_max_k(trials, by=by,
                                          infrastructure_errors=infrastructure_errors,
                                          unequal_trials=unequal_trials) + 1))
    policies: dict[str, Any] = dict(infrastructure_errors=infrastructure_errors,
                                    k_exceeds_n=k_exceeds_n, unequal_trials=unequal_trials)
    table = pass_hat_k_table(trials, ks, by=by, **policies)
    at = pass_at_k_table(trials, ks, by=by, confidence=confidence, **policies)
    table["pass_at_k"] = at["value"].to_numpy()
    table["pass_at_k_ci_low"] = at["ci_low"].to_numpy()
    table["pass_at_k_ci_high"] = at["ci_high"].to_numpy()
    table["pass_at_k_se"] = at["se"].to_numpy()
    return pass_hat_k_report(trials, table, by=by, confidence=confidence, **policies)


def pass_hat_k_report_from_logs(logs: Any, ks: Sequence[int] = (), *, format: str | None = None,
                                allow_nan: bool = False, benchmark: str | None = None,
                                model: str | None = None, protocol: str | None = None,
                                score: str | None = None, infrastructure_errors: str = "exclude",
                                k_exceeds_n: str = "nan", unequal_trials: str = "allow",
                                confidence: float = 0.95) -> PassHatKReport:
    """pass^k and pass@k of every configuration in trial logs: ``noisefloor passk LOGS`` in one
    call.

    Parameters
    ----------
    logs : path, ``"PATH=LABEL"``, (path, label), a sequence of them, or pandas.DataFrame
        The logs (each path one run, see :func:`noisefloor.logs.load_trials`), or trials
        already loaded.
    ks : sequence of int, default ()
        As for :func:`pass_hat_k_report_from_trials`.
    format, allow_nan, benchmark, model, protocol, score
        As for :func:`noisefloor.logs.load_trials`.
    infrastructure_errors, k_exceeds_n, unequal_trials, confidence
        As for :func:`pass_hat_k_report_from_trials`.

    Returns
    -------
    PassHatKReport
        Its ``to_dict()`` is the document ``noisefloor passk --json`` prints.

    Raises
    ------
    LogValidationError, ValueError
        A bad log or option; logs without any trial record.

    Examples
    --------
    >>> r = pass_hat_k_report_from_logs("fixtures/logs/paper", (1, 2), benchmark="tau2/retail",
    ...                                 model="m")
    >>> len(r.groups), sorted(r.groups[0]["pass_hat_k"])
    (3, [1, 2])
    """
    from noisefloor.logs.load import read_log_trials

    trials = read_log_trials(logs, format=format, allow_nan=allow_nan, benchmark=benchmark,
                             model=model, protocol=protocol, score=score)
    return pass_hat_k_report_from_trials(trials, ks, infrastructure_errors=infrastructure_errors,
                                         k_exceeds_n=k_exceeds_n, unequal_trials=unequal_trials,
                                         confidence=confidence)
