"""Mixed pairs read as two-player games: members' solo scores, the pair in each slot order.

For a mixed pair ``A+B`` (agent a runs model A, agent b model B), ``v({1})`` and ``v({2})`` are
A's and B's solo scores on each task (their same-model solo runs), ``v({1,2})`` the pair's score
in that slot order; :func:`noisefloor.stats.games.two_player_game` gives the tax against the
stronger member, the Shapley values, the share of tasks violating max-superadditivity and the
additive midpoint.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.stats.games import two_player_game
from noisefloor.tax.run import TaxRun

__all__ = ["MIXED_COLUMNS", "mixed_pair_table"]

MIXED_COLUMNS = ("pair", "model_a", "model_b", "n_tasks", "tasks_left_out", "v1", "v2", "v12",
                 "tax", "mean_task_tax", "phi1", "phi2", "midpoint", "share_violating",
                 "share_subadditive", "note")


def mixed_pair_table(run: TaxRun) -> pd.DataFrame:
    """One row per mixed pair and slot order: the game averaged over shared tasks.

    Parameters
    ----------
    run : TaxRun

    Returns
    -------
    pandas.DataFrame
        Columns :data:`MIXED_COLUMNS`: ``pair`` (``"A+B"``), the members, ``n_tasks`` (tasks
        with all three scores), ``tasks_left_out`` (tasks of the pair missing a member's solo
        run; named in ``note``), ``v1, v2, v12`` (task means), ``tax = max(v1, v2) - v12``,
        per-task mean tax, Shapley values ``phi1`` (agent a's model), ``phi2``, ``midpoint``,
        ``share_violating`` (tasks with ``v12 < max(v1, v2)``) and ``share_subadditive``. Empty
        (with these columns) when the run has no mixed pair; a pair with no task where both
        members ran solo is NaN with the reason in ``note``.

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.run import read_run
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, models={"a": 0.95, "b": 0.6}, tasks=[("csp_sudoku4", "csp")],
    ...                         n_instances=5, mixed=[("a", "b")], modes=("solo", "pair"))
    >>> t = mixed_pair_table(read_run(d))
    >>> t["pair"].tolist(), bool(abs(t.phi1[0] + t.phi2[0] - t.v12[0]) < 1e-12)
    (['a+b'], True)
    """
    df = run.rollouts
    ok = df[~df["infrastructure_error"]]
    solo = ok[(ok["mode"] == "solo") & (ok["variant"] == "baseline") & ~ok["mixed"]]
    # mean solo reward of each (model, task)
    solo_task: dict[Hashable, float] = solo.groupby(["model", "task"])["reward"].mean().to_dict()
    mixed = ok[ok["mixed"] & (ok["variant"] == "baseline")]
    rows = []
    for (name, a, b), g in mixed.groupby(["model", "model_a", "model_b"], sort=True):
        v12 = g.groupby("task")["reward"].mean()
        tasks = [t for t in v12.index if (a, t) in solo_task and (b, t) in solo_task]
        left = sorted(set(v12.index) - set(tasks))
        row: dict[str, Any] = {
            "pair": name, "model_a": a, "model_b": b, "n_tasks": len(tasks),
            "tasks_left_out": len(left),
            "note": (f"left out (a member has no solo run): {', '.join(left)}" if left else "")}
        if not tasks:
            row.update({k: math.nan for k in MIXED_COLUMNS[5:-1]})
            row["note"] = (f"no task where both {a} and {b} ran solo: the game is undefined; "
                           + row["note"])
        else:
            game = two_player_game(np.array([solo_task[(a, t)] for t in tasks]),
                                   np.array([solo_task[(b, t)] for t in tasks]),
                                   v12.loc[tasks].to_numpy())
            row.update({k: getattr(game, k) for k in MIXED_COLUMNS[5:-1]})
        rows.append(row)
    return pd.DataFrame(rows, columns=list(MIXED_COLUMNS))
