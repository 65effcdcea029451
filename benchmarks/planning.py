"""Speed of the planning estimators: the A/A false-positive simulation and the exact sign-test
sample-size search, plus the rates the simulation gives at the noise-floor paper's design.

For each setting: wall-clock and CPU seconds, and simulated runs per second; the rates are
printed beside the exact size of one Bonferroni-corrected sign test for comparison.

Usage::

    python benchmarks/planning.py [--n-sim 20000] [--flip-rate 0.36] [--tasks 100]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-sim", type=int, default=20000)
    ap.add_argument("--flip-rate", type=float, default=0.36)
    ap.add_argument("--tasks", type=int, default=100)
    ap.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = ap.parse_args()
    designs: tuple[tuple[float, float], ...] = ((0.1, 0.3), (0.06, 0.36), (0.03, 0.36))
    if args.tiny:  # one design of the sample-size search: the same code, a fraction of the time
        args.n_sim, args.tasks, designs = 200, 20, designs[:1]
    # imported once the options are read, so that --help answers at once
    from noisefloor.stats.power.planning import power_sign_test, sample_size
    from noisefloor.stats.snr import flip_rate_to_success_prob, simulate_reruns

    p = [flip_rate_to_success_prob(args.flip_rate)] * args.tasks
    sim, wall, cpu = timed(lambda: simulate_reruns(p, n_sim=args.n_sim, rng=0))
    exact1 = power_sign_test(args.tasks, 0.0, args.flip_rate, alpha=0.05 / 3)
    exact2 = power_sign_test(2 * args.tasks, 0.0, args.flip_rate, alpha=0.05 / 3)
    print(f"simulate_reruns: {args.n_sim} runs x 2 seeds x 3 contrasts x {args.tasks} tasks: "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU, {args.n_sim / wall:,.0f} runs/s")
    print(f"  one contrast at one seed   {sim.single_seed_rate:.4f}  (exact size {exact1:.4f})")
    print(f"  any contrast at one seed   {sim.single_seed_any_rate:.4f}")
    print(f"  any single-seed contrast   {sim.experiment_any_rate:.4f}")
    print(f"  one contrast, pooled       {sim.pooled_rate:.4f}  (exact size {exact2:.4f})")
    print(f"  any contrast, pooled       {sim.pooled_any_rate:.4f}")
    for gap, pd_ in designs:
        plan, wall, cpu = timed(lambda g=gap, d=pd_: sample_size(g, test="sign_test", p_d=d))
        print(f"sample_size(sign_test, gap={gap}, p_d={pd_}): n = {plan.n} "
              f"(stable from {plan.n_stable}); {wall:.2f} s wall, {cpu:.2f} s CPU")


if __name__ == "__main__":
    main()
