"""Per-call benchmark: ``noise_floor`` and ``compare`` on small tables.

The other benchmarks time one call on a million records; this one times the fixed cost of a
call on the small tables that interactive use and the property tests feed them:

- :func:`noisefloor.floor.estimate.noise_floor` on a four-row null-contrast table (two
  contrasts at two seeds, the counts of the noise-floor paper's trial-0 contrasts), with
  ``pooling="summed"`` and ``pooling="random"``;
- :func:`noisefloor.compare.compare` on a re-run pair of 60 tasks x 3 trials at one seed (both
  arms drawn from one per-task success probability, re-runs certified by an empty store).

Prints milliseconds per call, wall clock and process CPU (on a shared machine the CPU figure is
the one that does not depend on the other processes), as JSON, and each call's CPU as a ratio
to its peer: the same arithmetic written directly with scipy and statsmodels, without the
checks, certification and tables (for ``noise_floor``: an exact sign test and a Wilson interval
per row and per pooled contrast; for ``compare``: per-task success shares of each arm with
pandas and one sign test over the tasks).

Usage::

    python benchmarks/per_call.py [--calls 50] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used, so that --help answers at once
    import pandas as pd


def null_table() -> pd.DataFrame:
    """Two null contrasts at two seeds (the paper's trial-0 W/L/T)."""
    import pandas as pd

    return pd.DataFrame({"contrast": ["no_coord-intercept"] * 2 + ["pull-intercept"] * 2,
                         "clean": [True, True, False, False], "seed": [1, 2, 1, 2],
                         "wins": [21, 13, 27, 18], "losses": [11, 13, 9, 21],
                         "ties": [68, 74, 64, 61]})


def reruns_trials(n_tasks: int = 60, n_trials: int = 3, seed: int = 0) -> pd.DataFrame:
    """Trial records of two arms ``x`` and ``y`` that cannot differ (one success probability
    per task), ``store_events_at_start`` 0 so each arm's re-runs are certified null."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n_tasks)
    rows = [{"benchmark": "bench", "model": "m", "protocol": arm, "seed": 1,
             "task_id": f"t{i:03d}", "trial": t, "reward": float(rng.random() < p[i]),
             "store_events_at_start": 0}
            for arm in ("x", "y") for t in range(n_trials) for i in range(n_tasks)]
    return pd.DataFrame(rows)


def per_call(fn, calls: int) -> dict:
    """Milliseconds per call of ``fn()`` (one warm-up call first), wall and CPU."""
    fn()
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        fn()
    return {"wall_ms": round((time.perf_counter() - wall) / calls * 1000, 2),
            "cpu_ms": round((time.process_time() - cpu) / calls * 1000, 2)}


def bare_floor(table: pd.DataFrame) -> list:
    """The peer of ``noise_floor``: scipy's exact sign test and statsmodels' Wilson interval of
    each row and of each contrast's summed counts."""
    from scipy.stats import binomtest
    from statsmodels.stats.proportion import proportion_confint

    rows = list(zip(table["wins"], table["losses"]))
    summed = table.groupby("contrast", sort=False)[["wins", "losses"]].sum()
    rows += list(zip(summed["wins"], summed["losses"]))
    return [(binomtest(int(w), int(w + lo)).pvalue,
             proportion_confint(int(w), int(w + lo), method="wilson")) for w, lo in rows]


def bare_compare(trials: pd.DataFrame) -> float:
    """The peer of ``compare``: each arm's per-task success share, then a sign test of the
    task-level differences."""
    from scipy.stats import binomtest

    shares = trials.pivot_table(index="task_id", columns="protocol", values="reward")
    diff = shares["x"] - shares["y"]
    wins, losses = int((diff > 0).sum()), int((diff < 0).sum())
    return binomtest(wins, wins + losses).pvalue if wins + losses else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--tiny", action="store_true",
                        help="a tiny size that only checks the script runs (the test suite's)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.tiny:
        args.calls = 1
    from noisefloor.compare import compare
    from noisefloor.floor.estimate import noise_floor

    table, trials = null_table(), reruns_trials()
    figures = {
        "calls": args.calls,
        "noise_floor_summed": per_call(lambda: noise_floor(table), args.calls),
        "noise_floor_random": per_call(lambda: noise_floor(table, pooling="random"), args.calls),
        "compare_60x3": per_call(lambda: compare(trials, a="x", b="y"), args.calls),
        "peer_bare_floor": per_call(lambda: bare_floor(table), args.calls),
        "peer_bare_compare": per_call(lambda: bare_compare(trials), args.calls),
    }
    peer_floor = max(figures["peer_bare_floor"]["cpu_ms"], 1e-3)
    peer_compare = max(figures["peer_bare_compare"]["cpu_ms"], 1e-3)
    figures["cpu_ratio_to_peer"] = {
        "noise_floor_summed": round(figures["noise_floor_summed"]["cpu_ms"] / peer_floor, 2),
        "noise_floor_random": round(figures["noise_floor_random"]["cpu_ms"] / peer_floor, 2),
        "compare_60x3": round(figures["compare_60x3"]["cpu_ms"] / peer_compare, 2),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"per call, over {args.calls} calls{'':<9} CPU ms   wall ms")
    for name in ("noise_floor_summed", "noise_floor_random", "compare_60x3", "peer_bare_floor",
                 "peer_bare_compare"):
        print(f"  {name:<28} {figures[name]['cpu_ms']:8.2f}  {figures[name]['wall_ms']:8.2f}")
    peers = {"noise_floor_summed": "peer_bare_floor", "noise_floor_random": "peer_bare_floor",
             "compare_60x3": "peer_bare_compare"}
    for name, ratio in figures["cpu_ratio_to_peer"].items():
        print(f"ratio {name} / peer ({peers[name]}): CPU {ratio:.2f}x")


if __name__ == "__main__":
    main()
