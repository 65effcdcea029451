"""Compare benchmark: ``compare`` on 1,000,000 loaded trial records, and the re-runs alarm rate.

Builds N trial records in memory with the columns and dtypes of
:func:`noisefloor.logs.load_trials` (default N = 1,000,000: 2 systems x 2 seeds x 3 trials x
83,334 tasks, ``store_events_at_start`` 0 so each arm's re-runs are certified, 1%
infrastructure errors, system A succeeding 12 pp more often), then times
:func:`noisefloor.compare.compare` on the frame (arm selection, pairing, sign tests, MDEs,
each arm's certified re-runs and the floor) and measures the peak memory it allocates
(``tracemalloc``). Target: under 2 s and 1 GB, on par with ``benchmarks/floor.py``.

Peer: the same comparison written directly with pandas and scipy, on the same frame in the same
run, as a user without this tool would write it: one ``pivot_table`` of reward by (seed, task)
x (system, trial), per seed and trial the wins / losses / ties of A against B on the tasks both
scored, pooled over them, each with ``scipy.stats.binomtest``'s exact sign-test p, and each
arm's re-run contrasts (trial i against trial j, per seed: the floor's input counts). Both are
timed in CPU seconds (``time.process_time``, best of ``--repeat``), and the two are checked to
agree: the same W/L/T on every row and every re-run contrast, p-values and the pooled gap to
1e-9. ``compare`` does more than the peer (the MDE of every row, the certification of the
re-runs, the floor's Wilson-mapped bounds, the per-task flips), so the ratio is an upper bound
on its overhead for the shared work.

``--reruns N`` (default 200) also simulates N re-run pairs (both arms from one per-task success
probability, 60 tasks x 3 trials, one seed) and prints how often ``--fail-if below`` would fire
(verdict ``below``) and ``--fail-if inside`` would pass (verdict ``above``), each wrong under
re-runs and nominally at most ``(1 - confidence) / 2``, and how often the pooled interval excludes 0
(nominally ``1 - confidence``, with the central 99.8% binomial range of that rate).

Usage::

    python benchmarks/compare.py [--n 1000000] [--repeat 3] [--reruns 200]
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used, so that --help answers at once
    import pandas as pd

SYSTEMS = ("swarm", "baseline")
SEEDS = (1, 2)
TRIALS = (0, 1, 2)


def trial_frame(n: int, seed: int = 0, gain: float = 0.12) -> pd.DataFrame:
    """``n`` trial records (the first ``n`` of the layout) as load_trials would return them."""
    import numpy as np
    import pandas as pd

    from noisefloor.logs.records.frame import string_array

    rng = np.random.default_rng(seed)
    per_task = len(SYSTEMS) * len(SEEDS) * len(TRIALS)
    n_tasks = -(-n // per_task)
    task = np.repeat(np.arange(n_tasks), per_task)[:n]
    combo = np.tile(np.arange(per_task), n_tasks)[:n]
    seed_i, rest = np.divmod(combo, len(TRIALS) * len(SYSTEMS))
    trial, sys_i = np.divmod(rest, len(SYSTEMS))
    p = rng.uniform(0.2, 0.7, size=n_tasks)[task] + np.where(sys_i == 0, gain, 0.0)
    infra = rng.random(n) < 0.01
    reward = np.where(infra, np.nan, (rng.random(n) < p).astype(float))
    protocol = np.array(SYSTEMS)[sys_i]
    return pd.DataFrame({
        "schema_version": string_array(["1"] * n),
        "benchmark": string_array(["mybench"] * n),
        "model": string_array(["m"] * n),
        "protocol": string_array(protocol),
        "seed": pd.array(np.array(SEEDS)[seed_i], dtype="Int64"),
        "task_id": string_array(np.char.zfill(task.astype(str), 6)),
        "trial": trial.astype(np.int64),
        "reward": reward,
        "termination_reason": string_array(np.where(infra, "harness_error", "done")),
        "infrastructure_error": infra,
        "store_events_at_start": pd.array(np.zeros(n, dtype=np.int64), dtype="Int64"),
        "injections": pd.array([None] * n, dtype="Int64"),
        "first_request_sha256": string_array([None] * n),
        "extra": np.full(n, None, dtype=object),
        "source": string_array(["synthetic.jsonl"] * n),
        "line": np.arange(1, n + 1, dtype=np.int64),
        "run": string_array(["synthetic"] * n),
        "logged_protocol": string_array(protocol),
        "configuration": string_array([None] * n),
    })


def reruns_rates(n_pairs: int, seed: int = 1, confidence: float = 0.95) -> dict:
    """How often each ``--fail-if`` gate decides wrongly over ``n_pairs`` re-run pairs.

    ``--fail-if below`` fires on verdict ``below`` (its error under re-runs: firing); ``--fail-if
    inside`` passes only on ``above`` (its error under re-runs: passing). Nominal: at most
    ``(1 - confidence) / 2`` each (a one-sided tail of the pooled interval; the floor makes
    the verdicts stricter still). ``interval_excludes_0_rate`` is how often the pooled interval
    the verdicts rest on excludes 0, nominally ``1 - confidence``.
    """
    import numpy as np
    from scipy.stats import binom

    from noisefloor.compare import compare

    rng = np.random.default_rng(seed)
    verdicts, excluded = [], 0
    per_task = len(SYSTEMS) * len(SEEDS) * len(TRIALS)
    for _ in range(n_pairs):
        frame = trial_frame(60 * per_task, seed=int(rng.integers(2**31)), gain=0.0)
        frame = frame[frame["seed"] == SEEDS[0]]  # 60 tasks x 3 trials x 2 arms, one seed
        c = compare(frame, a="swarm", b="baseline", confidence=confidence)
        verdicts.append(c.verdict)
        excluded += bool(c.pooled.ci_low > 0 or c.pooled.ci_high < 0)
    v = np.array(verdicts)
    alpha = 1 - confidence
    return {"reruns_pairs": n_pairs, "reruns_tasks": 60, "reruns_trials": len(TRIALS),
            "fail_if_below_fires_rate": float((v == "below").mean()),
            "fail_if_inside_passes_rate": float((v == "above").mean()),
            "fail_if_inside_fires_rate": float((v != "above").mean()),
            "nominal_gate_error_rate": alpha / 2,
            "interval_excludes_0_rate": excluded / n_pairs,
            "nominal_interval_excludes_0_rate": alpha,
            "binomial_99.8pct_range_of_nominal": [
                float(x) / n_pairs for x in binom.ppf([0.001, 0.999], n_pairs, alpha)]}


def direct_peer(frame: pd.DataFrame, a: str = "swarm", b: str = "baseline") -> dict:
    """The paired comparison and the re-run counts with pandas and scipy alone (see above).

    Returns ``{"rows": {(seed, trial) or "pooled": (wins, losses, ties, gap, p)},
    "reruns": {(arm, seed, trial_i, trial_j): (wins, losses, ties)}}``.
    """
    from scipy.stats import binomtest

    ok = frame[~frame["infrastructure_error"]]
    wide = ok.pivot_table(index=["seed", "task_id"], columns=["protocol", "trial"],
                          values="reward", aggfunc="first", observed=True)

    def wlt(x, y) -> tuple[int, int, int]:
        both = x.notna() & y.notna()
        x, y = x[both], y[both]
        return int((x > y).sum()), int((x < y).sum()), int((x == y).sum())

    def row(w: int, lo: int, t: int) -> tuple:
        n = w + lo + t
        p = binomtest(w, w + lo).pvalue if w + lo else float("nan")
        return (w, lo, t, (w - lo) / n if n else float("nan"), p)

    rows: dict[Any, tuple] = {}
    reruns: dict[tuple, tuple[int, int, int]] = {}
    total = [0, 0, 0]
    for seed, part in wide.groupby(level="seed"):
        seed = int(seed)  # type: ignore[call-overload]
        trials = sorted({int(t) for t in part.columns.get_level_values("trial")})
        for t in trials:
            counts = wlt(part[(a, t)], part[(b, t)])
            rows[(seed, t)] = row(*counts)
            total = [x + y for x, y in zip(total, counts)]
        for arm in (a, b):
            for i, ti in enumerate(trials):
                for tj in trials[i + 1:]:
                    reruns[(arm, seed, ti, tj)] = wlt(part[(arm, ti)],
                                                                      part[(arm, tj)])
    rows["pooled"] = row(*total)
    return {"rows": rows, "reruns": reruns}


def peer_difference(result, peer: dict) -> float:
    """Largest difference between ``compare``'s result and the peer's; raises if counts differ."""
    ours = {("pooled" if r.level == "pooled" else (int(r.seed), int(r.trial))):
            (r.wins, r.losses, r.ties, r.gap, r.p_value) for r in result.rows}
    reruns = {(r["arm"], r["seed"], r["trial_a"], r["trial_b"]):
              (r["wins"], r["losses"], r["ties"]) for r in result.null_contrasts}
    if ours.keys() != peer["rows"].keys() or reruns != peer["reruns"]:
        raise SystemExit("peer check failed: compare and the pandas + scipy peer disagree on "
                         "the rows or the re-run counts")
    diff = 0.0
    for key, values in ours.items():
        other = peer["rows"][key]
        if values[:3] != other[:3]:
            raise SystemExit(f"peer check failed: W/L/T of {key}: {values[:3]} != {other[:3]}")
        diff = max(diff, abs(values[3] - other[3]), abs(values[4] - other[4]))
    if diff > 1e-9:
        raise SystemExit(f"peer check failed: gap or p differ by {diff:.3g}")
    return diff


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reruns", type=int, default=200,
                        help="Re-run pairs to simulate for the --fail-if rates (0: none)")
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args()
    if args.tiny:
        args.n, args.repeat, args.reruns = 2_000, 1, 2
    from noisefloor.compare import compare

    frame = trial_frame(args.n)
    compare(frame.head(1000), a="swarm", b="baseline")  # imports out of the timing
    times, cpu = [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = compare(frame, a="swarm", b="baseline")
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    direct_peer(frame.head(1000))  # imports out of the timing
    peer_cpu, peer_times = [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        peer = direct_peer(frame)
        peer_times.append(time.perf_counter() - t0)
        peer_cpu.append(time.process_time() - c0)
    diff = peer_difference(result, peer)
    tracemalloc.start()
    compare(frame, a="swarm", b="baseline")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out = {"rows": len(frame), "seconds_best": min(times), "seconds": times,
           "cpu_seconds_best": min(cpu), "peak_allocated_mb": peak / 2**20,
           "pooled_gap": result.pooled.gap, "floor": result.floor, "verdict": result.verdict,
           "peer": "pandas pivot_table + scipy binomtest, same rows and re-run counts",
           "peer_cpu_seconds_best": min(peer_cpu), "peer_seconds_best": min(peer_times),
           "ratio_cpu": min(cpu) / min(peer_cpu),
           "peer_largest_difference": diff}
    if args.reruns:
        out.update(reruns_rates(args.reruns))
    print(json.dumps(out, indent=1))
    print(f"peer: pandas pivot_table + scipy binomtest on the same {len(frame):,} records "
          f"{min(peer_cpu):.3f} s CPU (compare {min(cpu):.3f} s CPU)")
    print(f"ratio noisefloor / peer: CPU {min(cpu) / min(peer_cpu):.2f}x; largest difference "
          f"{diff:.1e} (same W/L/T on {len(peer['rows'])} rows and {len(peer['reruns'])} "
          "re-run contrasts)")


if __name__ == "__main__":
    main()
