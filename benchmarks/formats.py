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

Usage::

    python benchmarks/formats.py [--trials 10000] [--entries 200] [--tasks 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "logs"))


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


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
        print(f"  validate_logs(job)      {t_valid:8.2f} s   {report.n_valid:,} valid, "
              f"{len(report.problems)} problem(s)")
        t_k, _ = best(lambda: (pass_hat_k(frame, 5, k_exceeds_n="exclude"),
                               pass_at_k(frame, 5, k_exceeds_n="exclude")), repeat)
        print(f"  pass^5 + pass@5         {t_k * 1e3:8.1f} ms")


def tiers(k: int, n_tasks: int, repeat: int) -> None:
    import numpy as np

    from noisefloor.leaderboard.tiers import save_tier_plot, tiers_from_scores, tiers_from_shares

    rng = np.random.default_rng(1)
    rates = np.sort(rng.uniform(0.2, 0.9, size=k))[::-1]
    names = [f"entry-{i:03d}" for i in range(k)]
    scores = rng.binomial(n_tasks, rates) / n_tasks
    t_agg, agg = best(lambda: tiers_from_scores(names, scores, n_tasks), repeat)
    print(f"tiers: {k} entries, {agg.n_pairs:,} pairs")
    print(f"  aggregate (z-tests)     {t_agg:8.3f} s   {agg.n_tiers} tiers, "
          f"{agg.n_distinguishable:,} pairs distinguishable")
    difficulty = rng.uniform(-0.2, 0.2, size=n_tasks)
    shares = (rng.random((k, n_tasks)) < np.clip(rates[:, None] + difficulty, 0, 1)).astype(float)
    t_pair, paired = best(lambda: tiers_from_shares(names, shares), repeat)
    print(f"  paired (sign tests, {n_tasks} tasks) {t_pair:6.3f} s   {paired.n_tiers} tiers, "
          f"{paired.n_distinguishable:,} pairs distinguishable")
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
