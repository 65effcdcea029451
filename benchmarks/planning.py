"""Speed of the planning estimators: the re-runs false-positive simulation and the exact sign-test
sample-size search, plus the rates the simulation gives at the noise-floor paper's design.

For each setting: wall-clock and CPU seconds, and simulated runs per second; the rates are
printed beside the exact size of one Bonferroni-corrected sign test for comparison.

Each is printed beside its peer, the same job written directly with numpy and scipy, run on
the same input in the same run and timed the same way; the ratio is noisefloor's CPU over the
peer's (above 1: noisefloor is slower):

- ``simulate_reruns``: the same outcomes drawn from the same generator (one array of uniforms,
  the stream ``simulate_reruns`` draws in chunks), wins and losses of every contrast counted
  with numpy, and each distinct (wins, losses) pair tested once by ``scipy.stats.binomtest``
  (the reference exact test); the five rates are checked to be equal.
- ``sample_size(test="sign_test")``: the plain search, n = 1, 2, ... until the exact power
  reaches the target, the power at n summed over the number of discordant tasks with the
  critical value of each taken from ``scipy.stats.binomtest`` (no normal-approximation start,
  no bisection). It finds the smallest n whose power reaches the target; noisefloor's search
  returns that n too unless the power's saw-tooth reaches the target further below than it
  looks (the n and the power at it are compared).

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


def direct_rates(p, n_sim: int, alpha: float = 0.05, seed: int = 0) -> dict:
    """The peer of ``simulate_reruns`` (2 seeds, 3 arms): numpy draws, binomtest p-values."""
    import numpy as np
    from scipy.stats import binomtest

    p = np.asarray(p, dtype=float)
    out = np.random.default_rng(seed).random((n_sim, 2, 3, p.size)) < p
    pairs = [(0, 1), (0, 2), (1, 2)]
    wins = np.stack([(out[:, :, i] & ~out[:, :, j]).sum(-1) for i, j in pairs], axis=-1)
    losses = np.stack([(~out[:, :, i] & out[:, :, j]).sum(-1) for i, j in pairs], axis=-1)

    def significant(w, lo):
        cells, inverse = np.unique(np.stack([w.ravel(), lo.ravel()], axis=1), axis=0,
                                   return_inverse=True)
        pv = np.array([binomtest(int(a), int(a + b)).pvalue if a + b else 1.0
                       for a, b in cells])
        return (np.minimum(1.0, 3 * pv[inverse.ravel()]) <= alpha).reshape(w.shape)

    sig, pooled = significant(wins, losses), significant(wins.sum(1), losses.sum(1))
    return {"single_seed_rate": sig.mean(), "single_seed_any_rate": sig.any(-1).mean(),
            "experiment_any_rate": sig.any(-1).any(-1).mean(),
            "pooled_rate": pooled.mean(), "pooled_any_rate": pooled.any(-1).mean()}


def scan_sample_size(gap: float, p_d: float, alpha: float = 0.05,
                     power: float = 0.8) -> tuple[int, float]:
    """The peer of ``sample_size(test="sign_test")``: n = 1, 2, ... until the exact power of
    the two-sided sign test (critical values from binomtest) reaches ``power``."""
    import numpy as np
    from scipy.stats import binom, binomtest

    q = (p_d + gap) / (2 * p_d)  # P(a win | a discordant task)
    crit = [-1]  # crit[m]: reject when min(W, L) <= crit[m] among m untied pairs
    n = 0
    while True:
        n += 1
        c = crit[-1]  # the critical value does not decrease with m
        while c + 1 <= n // 2 and binomtest(c + 1, n).pvalue <= alpha:
            c += 1
        crit.append(c)
        m, cm = np.arange(n + 1), np.array(crit)
        reject = np.where(cm >= 0, binom.cdf(cm, m, q) + binom.sf(m - cm - 1, m, q), 0.0)
        achieved = float(np.sum(binom.pmf(m, n, p_d) * reject))
        if achieved >= power:
            return n, achieved


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
    peer, pwall, pcpu = timed(lambda: direct_rates(p, args.n_sim, seed=0))
    exact1 = power_sign_test(args.tasks, 0.0, args.flip_rate, alpha=0.05 / 3)
    exact2 = power_sign_test(2 * args.tasks, 0.0, args.flip_rate, alpha=0.05 / 3)
    print(f"simulate_reruns: {args.n_sim} runs x 2 seeds x 3 contrasts x {args.tasks} tasks: "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU, {args.n_sim / wall:,.0f} runs/s")
    print(f"  one contrast at one seed   {sim.single_seed_rate:.4f}  (exact size {exact1:.4f})")
    print(f"  any contrast at one seed   {sim.single_seed_any_rate:.4f}")
    print(f"  any single-seed contrast   {sim.experiment_any_rate:.4f}")
    print(f"  one contrast, pooled       {sim.pooled_rate:.4f}  (exact size {exact2:.4f})")
    print(f"  any contrast, pooled       {sim.pooled_any_rate:.4f}")
    diff = max(abs(getattr(sim, k) - v) for k, v in peer.items())
    print(f"  peer: the same draws with numpy + scipy binomtest per distinct (W, L): "
          f"{pwall:.2f} s wall, {pcpu:.2f} s CPU; five rates, largest difference {diff:.1e}")
    print(f"  ratio noisefloor / peer: CPU {cpu / max(pcpu, 1e-9):.2f}x, "
          f"wall {wall / max(pwall, 1e-9):.2f}x")
    for gap, pd_ in designs:
        plan, wall, cpu = timed(lambda g=gap, d=pd_: sample_size(g, test="sign_test", p_d=d))
        (n_peer, power_peer), pwall, pcpu = timed(lambda g=gap, d=pd_: scan_sample_size(g, d))
        print(f"sample_size(sign_test, gap={gap}, p_d={pd_}): n = {plan.n} "
              f"(stable from {plan.n_stable}); {wall:.2f} s wall, {cpu:.2f} s CPU")
        print(f"  peer: scan n = 1, 2, ... with binomtest critical values: n = {n_peer} "
              f"({'same' if n_peer == plan.n else 'DIFFERENT'}), power difference "
              f"{abs(power_peer - plan.achieved_power):.1e}; {pwall:.2f} s wall, {pcpu:.2f} s CPU")
        print(f"  ratio noisefloor / peer: CPU {cpu / max(pcpu, 1e-9):.3f}x, "
              f"wall {wall / max(pwall, 1e-9):.3f}x")

if __name__ == "__main__":
    main()
