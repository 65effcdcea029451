"""The collaboration tax per cell: model x task and model x family, with intervals and tests.

For a model and a set of instances run both solo (full instance) and as a same-model pair (split
instance) with the baseline prompt, ``tax = solo mean - pair mean`` over the instances observed
in both modes, ``ratio gap = tax / solo``. Intervals come from the paired bootstrap over
instances (a family: tasks, then instances within tasks, tasks weighted equally); the exact sign
test compares solo and pair on paired instances. Negative cells are kept: the solo control is a
fallible stand-in for the centralised optimum (Proposition 1's caveat), so a pair can beat it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.stats.hierarchical import percentile_interval, task_weighted_means
from noisefloor.stats.paired import sign_test
from noisefloor.stats.stratified import stratified_bootstrap, stratified_t_interval
from noisefloor.tax.run import TaxRun

__all__ = ["NEGATIVE_NOTE", "cell_table", "instance_table", "task_table"]

NEGATIVE_NOTE = ("negative tax: the pair beat this solo control; the solo control is a fallible "
                 "stand-in for the centralised optimum (Proposition 1's caveat), not evidence "
                 "that splitting the information helped")
CELL_COLUMNS = ("model", "task", "family", "n_tasks", "n_instances", "n_solo_only", "n_pair_only",
                "n_infrastructure_errors", "solo", "pair", "split_solo", "tax", "ratio_gap",
                "ci_low", "ci_high", "ratio_ci_low", "ratio_ci_high", "wins", "losses", "ties",
                "sign_p", "below_target", "llm_share_solo", "llm_share_pair",
                "unreadable_share_solo", "unreadable_share_pair", "tokens_solo", "tokens_pair",
                "cost_solo", "cost_pair", "tax_per_1k_tokens", "note")
#: Per-instance means carried from :func:`instance_table` into the cells (mean over the cell's
#: paired instances): how answers were read, and the spend per rollout.
_SPEND = ("llm_solo", "llm_pair", "unreadable_solo", "unreadable_pair", "tokens_solo",
          "tokens_pair", "cost_solo", "cost_pair")


def instance_table(run: TaxRun, *, variant: str = "baseline") -> pd.DataFrame:
    """Per-instance mean reward of each (model, mode) for same-model rollouts.

    Parameters
    ----------
    run : TaxRun
    variant : str, default "baseline"
        Prompt variant of the pair rollouts to take (solo rollouts always use the baseline).

    Returns
    -------
    pandas.DataFrame
        One row per (model, task, family, instance) with columns ``solo``, ``pair``,
        ``split_solo`` (NaN where a mode has no rollout with a reward), ``n_infra``
        (infrastructure errors among the instance's rollouts, left out of the means), and per
        mode (solo, pair) ``llm_*`` / ``unreadable_*`` (share of the rollouts whose answer
        the grader model read / nobody could read), ``tokens_*`` and ``cost_*`` (mean tokens
        and USD per rollout; NaN without usage or price).

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.run import read_run
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, models={"m": 0.9}, tasks=[("csp_sudoku4", "csp")],
    ...                         n_instances=3)
    >>> list(instance_table(read_run(d))["instance"])
    ['csp_sudoku4:0', 'csp_sudoku4:1', 'csp_sudoku4:2']
    """
    df = run.rollouts
    homo = df[~df["mixed"]]
    solo = homo[(homo["mode"] == "solo") & (homo["variant"] == "baseline")]
    pair = homo[(homo["mode"] == "pair") & (homo["variant"] == variant)]
    split = homo[homo["mode"].str.startswith("split_solo") & (homo["variant"] == "baseline")]
    keys = ["model", "task", "family", "instance"]
    parts = []
    for name, part in (("solo", solo), ("pair", pair), ("split_solo", split)):
        g = part.groupby(keys, sort=False)
        parts.append(g["reward"].mean().rename(name))
        parts.append(g["infrastructure_error"].sum().rename(f"infra_{name}"))
        if name == "split_solo":
            continue
        ok = part[~part["infrastructure_error"]]
        g = ok.assign(_llm=(ok["extraction"] == "llm").astype(float),
                      _unread=(ok["extraction"] == "unreadable").astype(float)
                      ).groupby(keys, sort=False)
        parts += [g["_llm"].mean().rename(f"llm_{name}"),
                  g["_unread"].mean().rename(f"unreadable_{name}"),
                  g["tokens"].mean().rename(f"tokens_{name}"),
                  g["cost_usd"].mean().rename(f"cost_{name}")]
    out = pd.concat(parts, axis=1).reset_index()
    for name in ("solo", "pair", "split_solo"):
        out[f"infra_{name}"] = out[f"infra_{name}"].fillna(0).astype(int)
    out["n_infra"] = out["infra_solo"] + out["infra_pair"] + out["infra_split_solo"]
    return out.drop(columns=["infra_solo", "infra_pair", "infra_split_solo"])


def _stats_block(values: np.ndarray, groups: np.ndarray | None, n_boot: int,
                 rng: np.random.Generator, confidence: float) -> dict[str, Any]:
    s, p = task_weighted_means(values, groups)
    d = values[:, 0] - values[:, 1]
    t = stratified_t_interval(d, groups, confidence=confidence)
    reps = stratified_bootstrap(values, groups, n_boot=n_boot, rng=rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio_r = np.where(reps[:, 0] > 0, (reps[:, 0] - reps[:, 1]) / reps[:, 0], np.nan)
    rlo, rhi = percentile_interval(ratio_r, confidence)
    st = sign_test(int((d > 1e-12).sum()), int((d < -1e-12).sum()), int((np.abs(d) <= 1e-12).sum()))
    return {"solo": float(s), "pair": float(p), "tax": float(s - p),
            "ratio_gap": float((s - p) / s) if s > 0 else math.nan,
            "ci_low": t.ci_low, "ci_high": t.ci_high, "ratio_ci_low": rlo, "ratio_ci_high": rhi,
            "wins": st.wins, "losses": st.losses, "ties": st.ties, "sign_p": st.p_value,
            "ci_note": t.reason}


def _spend(row: dict[str, Any], g: pd.DataFrame) -> None:
    """How answers were read and what the rollouts spent, averaged over the cell's instances;
    the tax per 1,000 tokens compares the score each mode earns per 1,000 tokens."""
    for col in _SPEND:
        vals = g[col].to_numpy(dtype=float) if col in g.columns else np.array([])
        vals = vals[np.isfinite(vals)]
        name = col.replace("llm_", "llm_share_").replace("unreadable_", "unreadable_share_")
        row[name] = float(vals.mean()) if vals.size else math.nan
    ts, tp = row["tokens_solo"], row["tokens_pair"]
    ok = all(math.isfinite(v) for v in (ts, tp, row.get("solo", math.nan),
                                       row.get("pair", math.nan))) and ts > 0 and tp > 0
    row["tax_per_1k_tokens"] = 1000 * (row["solo"] / ts - row["pair"] / tp) if ok else math.nan


def _undefined(reason: str) -> dict[str, Any]:
    d: dict[str, Any] = {k: math.nan for k in ("solo", "pair", "tax", "ratio_gap", "ci_low", "ci_high",
                               "ratio_ci_low", "ratio_ci_high", "sign_p")}
    d.update(wins=0, losses=0, ties=0, note=reason)
    return d


def _note(row: dict[str, Any], target: float) -> str:
    notes = []
    if row.get("note"):
        return row["note"]
    if row.get("ci_note"):
        notes.append(f"no interval: {row['ci_note']}")
    if math.isnan(row["ratio_gap"]) and row["solo"] == 0:
        notes.append("solo score 0: the ratio gap is undefined")
    if row["tax"] < 0:
        notes.append(NEGATIVE_NOTE)
    if row["solo"] < target:
        notes.append(f"exploratory: solo score {row['solo']:.3f} misses the solo-tractability "
                     f"target {target:g}")
    return "; ".join(notes)


def cell_table(
    run: TaxRun, *, by: str = "task", target: float = 0.8, n_boot: int = 2000,
    confidence: float = 0.95, rng: int | np.random.Generator | None = 0,
    instances: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Tax of every (model, task) or (model, family) cell of the same-model baseline runs.

    Parameters
    ----------
    run : TaxRun
    by : {"task", "family", "model"}, default "task"
        Cell resolution: model x task (bootstrap over instances), model x family (tasks, then
        instances; tasks weighted equally) or model overall (all tasks, same scheme).
    target : float, default 0.8
        Solo-tractability target: a cell whose solo mean is below it is marked
        ``below_target`` and noted as exploratory.
    n_boot : int, default 2000
        Bootstrap replicates per cell (ratio-gap intervals).
    confidence : float, default 0.95
        Level of every interval (tax and ratio gap).
    rng : int, numpy.random.Generator or None, default 0
        Source of the bootstrap draws (cells are visited in sorted order, so a seed fixes
        every interval).
    instances : pandas.DataFrame, optional
        A precomputed :func:`instance_table` (saves recomputing it).

    Returns
    -------
    pandas.DataFrame
        One row per cell, columns :data:`CELL_COLUMNS` (``task`` is ``"all"`` for family and
        model cells, ``family`` is ``"all"`` for model cells; ``n_tasks`` tasks pooled): paired
        instance counts, instances observed
        only solo or only as a pair (left out of the paired estimate and counted here),
        infrastructure errors left out, the means, ``tax``, ``ratio_gap``, their intervals,
        the sign-test counts (win = solo scored higher on an instance) and exact p, and a
        ``note`` saying why a value is NaN, that a negative tax is kept, or that the cell is
        exploratory. A cell with no solo (or no pair) rollouts is NaN with that reason.
        Reading and spend (means over the cell's paired instances): ``llm_share_solo`` /
        ``llm_share_pair`` (share of rollouts whose answer the grader model read),
        ``unreadable_share_*`` (share nobody could read, graded as no answer), ``tokens_*``
        and ``cost_*`` (tokens and USD per rollout, NaN without usage or a price) and
        ``tax_per_1k_tokens = 1000 (solo / tokens_solo - pair / tokens_pair)``: how much more
        score the solo control earns per 1,000 tokens than the pair.

    Notes
    -----
    Cell estimate ``tax = (1/T) sum_t [mean_i solo_ti - mean_i pair_ti]`` over paired instances
    i of task t (T = 1 for a task cell). The tasks are fixed (the benchmark's), the instances
    a sample: the tax interval is the stratified Student interval
    (:func:`noisefloor.stats.stratified.stratified_t_interval`: the paired t interval for a
    task cell; Welch-Satterthwaite degrees of freedom over tasks for a family or model cell;
    Student 1908, Satterthwaite 1946, Cochran 1977 section 5), whose coverage is within 2
    points of 0.90 and 0.95 on simulated runs of 10-32 tasks with 5-50 instances each. When
    every paired difference is equal (no spread) or a task has one paired instance, the
    interval is NaN and the note says why. The ratio gap ``tax / solo`` has the percentile
    interval of a bootstrap that resamples instances within tasks
    (:func:`noisefloor.stats.stratified.stratified_bootstrap`). Sign test on the
    per-instance differences (ties: equal instance means).

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.run import read_run
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, models={"m": 0.9}, tasks=[("csp_sudoku4", "csp")],
    ...                         n_instances=10, seed=1)
    >>> c = cell_table(read_run(d), n_boot=200, rng=0).iloc[0]
    >>> int(c.n_instances), int(c.wins + c.losses + c.ties), bool(c.ci_low <= c.tax <= c.ci_high)
    (10, 10, True)
    """
    if by not in ("task", "family", "model"):
        raise ValueError(f"by must be 'task', 'family' or 'model', got {by!r}")
    if not 0 <= target <= 1:
        raise ValueError(f"target must be a score in [0, 1], got {target!r}")
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    inst = instance_table(run) if instances is None else instances
    key2 = {"task": "task", "family": "family", "model": None}[by]
    rows = []
    group_cols = ["model"] + ([key2] if key2 else [])
    for key, g in inst.groupby(group_cols, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        model = key[0]
        second = key[1] if key2 else "all"
        row: dict[str, Any] = {"model": model, "task": second if by == "task" else
                               (g["task"].iloc[0] if g["task"].nunique() == 1 else ""),
                               "family": g["family"].iloc[0] if by == "task" else second}
        row["n_tasks"] = int(g["task"].nunique())
        if by != "task":
            row["task"] = "all"
        has_s, has_p = g["solo"].notna(), g["pair"].notna()
        both = g[has_s & has_p]
        row.update(n_instances=len(both), n_solo_only=int((has_s & ~has_p).sum()),
                   n_pair_only=int((has_p & ~has_s).sum()),
                   n_infrastructure_errors=int(g["n_infra"].sum()),
                   split_solo=float(g["split_solo"].mean()) if g["split_solo"].notna().any()
                   else math.nan)
        where = f"{model} on {second}" if key2 else f"{model}"
        if not has_s.any():
            row.update(_undefined(f"no solo rollouts for {where}: the tax is undefined"))
        elif not has_p.any():
            row.update(_undefined(f"no same-model pair rollouts for {where}: the tax is "
                                  "undefined"))
        elif both.empty:
            row.update(_undefined(f"solo and pair rollouts of {where} share no instance: "
                                  "no paired estimate"))
        else:
            groups = None if by == "task" else both["task"].to_numpy()
            row.update(_stats_block(both[["solo", "pair"]].to_numpy(), groups, n_boot, gen,
                                    confidence))
            row["note"] = ""
        _spend(row, both if len(both) else g)
        row["below_target"] = bool(row["solo"] < target) if not math.isnan(row["solo"]) else False
        row["note"] = _note(row, target) if not math.isnan(row["solo"]) else row["note"]
        row.pop("ci_note", None)
        rows.append(row)
    out = pd.DataFrame(rows, columns=list(CELL_COLUMNS))
    if by == "family":
        order = {"spatial": 0, "relational": 1, "csp": 2}
        out = out.sort_values(["model", "family"], key=lambda s: s.map(order).fillna(9)
                              if s.name == "family" else s, kind="stable").reset_index(drop=True)
    return out


def task_table(cells: pd.DataFrame, *, target: float = 0.8) -> pd.DataFrame:
    """Per-task ratio gap averaged over models (the paper's Figure 4), exploratory tasks marked.

    Parameters
    ----------
    cells : pandas.DataFrame
        :func:`cell_table` with ``by="task"``.
    target : float, default 0.8
        A task whose solo score, averaged over models, is below it is ``exploratory`` (the
        paper's dagger: its ratio is inflated by a small denominator).

    Returns
    -------
    pandas.DataFrame
        One row per task sorted by ``ratio_gap`` descending: ``task, family, n_models, solo,
        pair, tax, ratio_gap, exploratory`` (means over the models with a defined cell).

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"model": ["a", "b"], "task": ["t", "t"], "family": ["csp", "csp"],
    ...                       "solo": [0.9, 0.7], "pair": [0.6, 0.5], "tax": [0.3, 0.2],
    ...                       "ratio_gap": [1 / 3, 2 / 7]})
    >>> row = task_table(cells).iloc[0]
    >>> round(float(row.tax), 3), round(float(row.solo), 3), bool(row.exploratory)
    (0.25, 0.8, False)
    """
    ok = cells[np.isfinite(cells["tax"].to_numpy(dtype=float))]
    g = ok.groupby(["task", "family"], sort=False)
    out = pd.DataFrame({
        "n_models": g["model"].nunique(), "solo": g["solo"].mean(), "pair": g["pair"].mean(),
        "tax": g["tax"].mean(), "ratio_gap": g["ratio_gap"].mean(),
    }).reset_index()
    out["exploratory"] = out["solo"] < target
    return out.sort_values("ratio_gap", ascending=False, kind="stable").reset_index(drop=True)
