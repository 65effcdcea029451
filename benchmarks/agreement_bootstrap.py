"""Benchmark of the agreement bootstrap on 10^6 ratings.

Generates ``--items`` items x 3 raters (default 333,334 items: 1,000,002 ratings, 3 categories,
each rater agreeing with a hidden truth 70% of the time) and times, for each coefficient, the
point estimate alone (``n_boot=0``) and with ``--n-boot`` resamples (default 2,000, the
default of the library and of ``noisefloor agreement``). The bootstrap's own cost is the
difference. For comparison it times the loop the library used before (one pass of the
coefficient over the resampled items per resample) on ``--loop-resamples`` resamples and
extrapolates it to ``--n-boot``.

Usage: ``python benchmarks/agreement_bootstrap.py [--items 333334] [--n-boot 2000]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=333_334)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--loop-resamples", type=int, default=20)
    ap.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = ap.parse_args()
    if args.tiny:
        args.items, args.n_boot, args.loop_resamples = 300, 20, 2
    # imported once the options are read, so that --help answers at once
    import numpy as np
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    from noisefloor.stats.agreement import (
        cohen_kappa,
        fleiss_kappa_from_counts,
        krippendorff_alpha,
    )

    rng = np.random.default_rng(0)
    n = args.items
    truth = rng.integers(0, 3, n)
    ratings = np.where(rng.random((n, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (n, 3)))
    counts = np.stack([(ratings == c).sum(1) for c in range(3)], axis=1)
    print(f"python {sys.version.split()[0]}, cpus {os.cpu_count()}, {n:,} items x 3 raters = "
          f"{3 * n:,} ratings, n_boot {args.n_boot:,}")
    cases = {
        "fleiss (counts)": lambda b: fleiss_kappa_from_counts(counts, n_boot=b, rng=0),
        "cohen (raters 1, 2)": lambda b: cohen_kappa(ratings[:, 0], ratings[:, 1], n_boot=b, rng=0),
        "krippendorff nominal": lambda b: krippendorff_alpha(ratings, level="nominal", n_boot=b, rng=0),
        "krippendorff ordinal": lambda b: krippendorff_alpha(ratings, level="ordinal", n_boot=b, rng=0),
        "krippendorff interval": lambda b: krippendorff_alpha(ratings, level="interval", n_boot=b, rng=0),
    }
    print(f"{'coefficient':<24} {'n_boot=0 s':>10} {'with boot s':>11} {'boot s':>8}  interval")
    for name, run in cases.items():
        t0, _ = timed(lambda run=run: run(0))
        t1, r = timed(lambda run=run: run(args.n_boot))
        print(f"{name:<24} {t0:10.2f} {t1:11.2f} {t1 - t0:8.2f}  [{r.ci_low:.4f}, {r.ci_high:.4f}]")
    # the former loop: one statsmodels pass per resample
    gen = np.random.default_rng(0)
    t, _ = timed(lambda: [sm_fleiss(counts[gen.integers(0, n, n)]) for _ in range(args.loop_resamples)])
    print(f"\nformer loop, fleiss: {t / args.loop_resamples * 1000:.0f} ms per resample, "
          f"{t / args.loop_resamples * args.n_boot:.0f} s extrapolated to {args.n_boot:,} resamples")


if __name__ == "__main__":
    main()
