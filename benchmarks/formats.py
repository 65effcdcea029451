"""Benchmark: reading 10,000 Harbor trial files, and tiering a 200-entry leaderboard.

* ``harbor``: writes one Harbor job folder of N trials (default 10,000: 2,000 tasks x 5
  attempts, 1% of them raising an exception) with the tests' generator
  (``tests/logs/make_bench_logs.py``, the tool's documented data model), then times
  :func:`noisefloor.logs.detect_format` on the folder, :func:`noisefloor.logs.load_trials` and
  :func:`noisefloor.logs.validate_logs` on it, and pass^k / pass@k on the frame.
* ``tiers``: a simulated leaderboard of K entries (default 200): from aggregate rates
  (:func:`noisefloor.leaderboard.tiers.tiers_from_scores`, K (K - 1) / 2 = 19,900 unpaired
  z-tests, Holm, rank intervals) and from per-task results over T tasks
  (:func:`noisefloor.leaderboard.tiers.tiers_from_shares`, 19,900 paired sign tests), and
  the figure (:func:`noisefloor.leaderboard.tiers.save_tier_plot`).

Each timing is the best of ``--repeat`` runs (wall clock, ``time.perf_counter``).

Peers, timed the same way on the same input in the same run, and checked to agree:

* Harbor: the plainest reader, the standard library's :func:`json.load` on every trial
  folder's ``result.json`` with no validation (task, reward or none, exception, start time;
  attempts numbered by start time), which is what a user would write to get the rewards out.
  The rows must be the same (task, attempt, reward to 1e-9, the same trials without a
  reward); ``load_trials`` also validates every field, builds the typed frame and keeps the
  extras, which is what the ratio prices.
* tiers: the 19,900 tests and the Holm adjustment done pair by pair with the well-kept
  libraries: ``statsmodels.stats.proportion.proportions_ztest`` (aggregate) or
  ``scipy.stats.binomtest`` (paired sign tests), then
  ``statsmodels.stats.multitest.multipletests(method="holm")``. The p-values and Holm
  p-values must agree to 1e-9 and the same pairs be distinguishable.

Usage::

    python benchmarks/formats.py [--trials 10000] [--entries 200] [--tasks 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "logs"))


T = TypeVar("T")


def best(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def ratio_line(name: str, ours: float, peer: float, diff: float) -> str:
    return (f"  ratio noisefloor / peer ({name}): wall {ours / peer:.3g}x; largest difference "
            f"{diff:.1e}")


def read_harbor_plainly(job: Path) -> list[tuple[str, int, float | None]]:
    """(task, attempt, reward or None) of every trial folder: ``json.load``, no validation."""
    import json

    trials = []
    for result in sorted(job.glob("*/result.json")):
        with open(result, encoding="utf-8") as f:
            d = json.load(f)
        verifier = d.get("verifier_result")
        reward = None if d.get("exception_info") or not verifier else verifier["rewards"]["reward"]
        trials.append((d["task_name"], d["started_at"], d["trial_name"], reward))
    trials.sort(key=lambda t: (t[0], t[1], t[2]))
    out, attempt, last = [], 0, None
    for task, _, _, reward in trials:
        attempt = attempt + 1 if task == last else 0
        last = task
        out.append((task, attempt, reward))
    return out


def harbor_difference(frame, rows: list[tuple[str, int, float | None]]) -> float:
    """Largest reward difference between ``load_trials``' frame and the plain reader's rows;
    exits if they hold different trials or disagree on which have no reward."""
    import math

    ours = {(t, int(k)): r for t, k, r in zip(frame["task_id"], frame["trial"], frame["reward"])}
    peer = {(t, k): (math.nan if r is None else float(r)) for t, k, r in rows}
    if ours.keys() != peer.keys() or len(ours) != len(frame):
        sys.exit("peer check failed: load_trials and the plain json reader hold different trials")
    diff = 0.0
    for key, value in ours.items():
        other = peer[key]
        if math.isnan(value) != math.isnan(other):
            sys.exit(f"peer check failed: {key}: reward {value} against {other}")
        if not math.isnan(value):
            diff = max(diff, abs(value - other))
    if diff > 1e-9:
        sys.exit(f"peer check failed: rewards differ by {diff:.3g}")
    return diff


def harbor(n_trials: int, repeat: int) -> None:
    import numpy as np
    from make_bench_logs import write_harbor_job

    from noisefloor.logs import detect_format, load_trials, validate_logs
    from noisefloor.passk.trials import pass_at_k, pass_hat_k

    rng = np.random.default_rng(0)
    attempts = 5
    n_tasks = max(1, n_trials // attempts)
    trials = []
    for t in range(n_tasks):
        rate = rng.uniform(0.1, 0.9)
        for _ in range(attempts):
            exception = "AgentSetupError" if rng.random() < 0.01 else None
            reward = None if exception else float(rng.random() < rate)
            trials.append((f"task-{t:05d}", reward, exception))
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        job = write_harbor_job(Path(tmp), "job", trials[:n_trials])
        written = time.perf_counter() - start
        size = sum(p.stat().st_size for p in job.glob("*/result.json"))
        print(f"harbor: {len(trials[:n_trials]):,} trial folders, {size / 1e6:.1f} MB of "
              f"result.json (written in {written:.1f} s)")
        t_detect, fmt = best(lambda: detect_format(job), repeat)
        print(f"  detect_format(job)      {t_detect * 1e3:8.1f} ms  -> {fmt}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_load, frame = best(lambda: load_trials(job), repeat)
            t_valid, report = best(lambda: validate_logs(job), repeat)
        print(f"  load_trials(job)        {t_load:8.2f} s   {len(frame):,} rows, "
              f"{len(frame) / t_load:,.0f} trials/s")
        t_peer, rows = best(lambda: read_harbor_plainly(job), repeat)  # json: imported already
        diff = harbor_difference(frame, rows)
        print(f"  peer: json.load of every result.json, no validation {t_peer:8.2f} s   "
              f"{len(rows):,} rows, {len(rows) / t_peer:,.0f} trials/s")
        print(ratio_line("load_trials", t_load, t_peer, diff) + " (reward; same trials)")
        print(f"  validate_logs(job)      {t_valid:8.2f} s   {report.n_valid:,} valid, "
              f"{len(report.problems)} problem(s)")
        t_k, _ = best(lambda: (pass_hat_k(frame, 5, k_exceeds_n="exclude"),
                               pass_at_k(frame, 5, k_exceeds_n="exclude")), repeat)
        print(f"  pass^5 + pass@5         {t_k * 1e3:8.1f} ms")


def holm_peer_aggregate(names, scores, n_tasks: int) -> dict:
    """Pair by pair: statsmodels ``proportions_ztest`` then ``multipletests`` Holm."""
    import numpy as np
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportions_ztest

    keys, p = [], []
    counts = np.rint(np.asarray(scores) * n_tasks)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            pooled = (counts[i] + counts[j]) / (2 * n_tasks)
            keys.append(frozenset((names[i], names[j])))
            p.append(proportions_ztest([counts[i], counts[j]], [n_tasks, n_tasks])[1]
                     if 0 < pooled < 1 else np.nan)
    return _holm(keys, p, multipletests)


def holm_peer_paired(names, shares) -> dict:
    """Pair by pair: scipy ``binomtest`` on the untied tasks, then ``multipletests`` Holm."""
    import numpy as np
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    keys, p = [], []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            w = int((shares[i] > shares[j]).sum())
            n = w + int((shares[i] < shares[j]).sum())
            keys.append(frozenset((names[i], names[j])))
            p.append(binomtest(w, n).pvalue if n else np.nan)
    return _holm(keys, p, multipletests)


def _holm(keys, p, multipletests) -> dict:
    import numpy as np

    p = np.asarray(p, dtype=float)
    adjusted = multipletests(np.where(np.isnan(p), 1.0, p), method="holm")[1]  # NaN: no evidence
    return {key: (pv, pa) for key, pv, pa in zip(keys, p, adjusted)}


def tiers_difference(result, peer: dict) -> float:
    """Largest difference in p and Holm p between a tiering and its peer; exits on a pair
    missing, a NaN mismatch or a different distinguishable verdict."""
    import numpy as np

    pairs = result.pairs
    keys = [frozenset(k) for k in zip(pairs["a"], pairs["b"])]
    if set(keys) != peer.keys() or len(keys) != len(peer):
        sys.exit("peer check failed: the tiering and its peer test different pairs")
    p_peer = np.array([peer[k][0] for k in keys])
    a_peer = np.array([peer[k][1] for k in keys])
    p_ours, a_ours = pairs["p_value"].to_numpy(float), pairs["p_adjusted"].to_numpy(float)
    if not np.array_equal(np.isnan(p_ours), np.isnan(p_peer)):
        sys.exit("peer check failed: the tiering and its peer disagree on undefined p-values")
    if not np.array_equal(a_ours < 1 - 0.95, a_peer < 1 - 0.95):
        sys.exit("peer check failed: different pairs distinguishable (Holm)")
    diff = float(max(np.nanmax(np.abs(p_ours - p_peer), initial=0.0),
                     np.max(np.abs(a_ours - a_peer), initial=0.0)))
    if diff > 1e-9:
        sys.exit(f"peer check failed: p-values differ by {diff:.3g}")
    return diff


def tiers(k: int, n_tasks: int, repeat: int) -> None:
    import numpy as np

    from noisefloor.leaderboard.tiers import save_tier_plot, tiers_from_scores, tiers_from_shares

    rng = np.random.default_rng(1)
    rates = np.sort(rng.uniform(0.2, 0.9, size=k))[::-1]
    names = [f"entry-{i:03d}" for i in range(k)]
    scores = rng.binomial(n_tasks, rates) / n_tasks
    holm_peer_aggregate(names[:2], scores[:2], n_tasks)  # the peer's imports out of the timing
    holm_peer_paired(names[:2], np.eye(2))
    t_agg, agg = best(lambda: tiers_from_scores(names, scores, n_tasks), repeat)
    print(f"tiers: {k} entries, {agg.n_pairs:,} pairs")
    print(f"  aggregate (z-tests)     {t_agg:8.3f} s   {agg.n_tiers} tiers, "
          f"{agg.n_distinguishable:,} pairs distinguishable")
    t_peer, peer = best(lambda: holm_peer_aggregate(names, scores, n_tasks), repeat)
    diff = tiers_difference(agg, peer)
    print(f"  peer: statsmodels proportions_ztest per pair + multipletests holm {t_peer:8.3f} s")
    print(ratio_line("aggregate", t_agg, t_peer, diff) + " (p and Holm p; same pairs "
          "distinguishable)")
    difficulty = rng.uniform(-0.2, 0.2, size=n_tasks)
    shares = (rng.random((k, n_tasks)) < np.clip(rates[:, None] + difficulty, 0, 1)).astype(float)
    t_pair, paired = best(lambda: tiers_from_shares(names, shares), repeat)
    print(f"  paired (sign tests, {n_tasks} tasks) {t_pair:6.3f} s   {paired.n_tiers} tiers, "
          f"{paired.n_distinguishable:,} pairs distinguishable")
    t_peer, peer = best(lambda: holm_peer_paired(names, shares), repeat)
    diff = tiers_difference(paired, peer)
    print(f"  peer: scipy binomtest per pair + statsmodels multipletests holm {t_peer:8.3f} s")
    print(ratio_line("paired", t_pair, t_peer, diff) + " (p and Holm p; same pairs "
          "distinguishable)")
    with tempfile.TemporaryDirectory() as tmp:
        t_plot, _ = best(lambda: save_tier_plot(agg, str(Path(tmp) / "tiers.png")), 1)
    print(f"  figure (png)            {t_plot:8.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args()
    if args.tiny:
        args.trials, args.entries, args.tasks, args.repeat = 50, 10, 20, 1
    harbor(args.trials, args.repeat)
    tiers(args.entries, args.tasks, args.repeat)


if __name__ == "__main__":
    main()
