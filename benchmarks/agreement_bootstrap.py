"""Benchmark of the agreement bootstrap on 10^6 ratings, against the libraries it wraps.

Generates ``--items`` items x 3 raters (default 333,334 items: 1,000,002 ratings, 3 categories,
each rater agreeing with a hidden truth 70% of the time) and times, for each coefficient, the
point estimate alone (``n_boot=0``) and with ``--n-boot`` resamples (default 2,000, the
default of the library and of ``noisefloor agreement``). The bootstrap's own cost is the
difference. Times are the process's CPU seconds (``time.process_time``: on a shared machine
the figure that does not depend on the other processes); the wall time of the whole run is
printed at the end.

The peer of each coefficient is the well-kept library a user would call for it, on the same
ratings in the same run: statsmodels' ``fleiss_kappa`` on the count table, statsmodels'
``cohens_kappa`` on the 3 x 3 table of raters 1 and 2 (counted by ``numpy.bincount``;
scikit-learn's ``cohen_kappa_score`` would do as well, but importing scikit-learn sets
environment variables, which the tiny run in the test process must not), and the
``krippendorff`` package's ``alpha`` at the same level. The point estimates are checked to agree to 1e-9 (the largest difference is
printed). The peer of the interval is the plain percentile bootstrap with that library: one
call per resample of the items, drawn with replacement (the loop the library itself used
before its bootstrap was vectorised). It is timed on ``--loop-resamples`` resamples (default
5; 2,000 calls on 10^6 ratings would take minutes to hours) and its CPU per resample is
multiplied by ``--n-boot``; on those same resamples the library's vectorised statistic is
checked against the peer's value (largest difference printed). The ratios are noisefloor's CPU
over the peer's, for the point estimate alone and for the whole job (point estimate and
``--n-boot`` resamples); above 1 noisefloor is slower. What noisefloor does beyond the peer in
the point estimate is the checks of the ratings, the category order and the asymptotic
interval.

Usage: ``python benchmarks/agreement_bootstrap.py [--items 333334] [--n-boot 2000]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def cpu_timed(fn):
    """``fn()``'s result and the process CPU seconds it took."""
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=333_334)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--loop-resamples", type=int, default=5)
    ap.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = ap.parse_args()
    if args.tiny:
        args.items, args.n_boot, args.loop_resamples = 300, 20, 2
    # imported once the options are read, so that --help answers at once
    import krippendorff
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa as sm_cohen
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    from noisefloor.stats.agreement import (
        cohen_kappa,
        fleiss_kappa_from_counts,
        krippendorff_alpha,
        resampling,
    )

    wall = time.perf_counter()
    rng = np.random.default_rng(0)
    n = args.items
    truth = rng.integers(0, 3, n)
    ratings = np.where(rng.random((n, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (n, 3)))
    counts = np.stack([(ratings == c).sum(1) for c in range(3)], axis=1)
    values = ratings.astype(float)
    print(f"python {sys.version.split()[0]}, cpus {os.cpu_count()}, {n:,} items x 3 raters = "
          f"{3 * n:,} ratings, n_boot {args.n_boot:,}; CPU seconds")

    def alpha_peer(level):
        return lambda rows: krippendorff.alpha(reliability_data=values[rows].T,
                                               level_of_measurement=level)

    # name: (noisefloor at n_boot b, peer on the items `rows`, noisefloor's resampler, peer name)
    cases: dict[str, tuple[Any, Any, Any, str]] = {
        "fleiss (counts)": (
            lambda b: fleiss_kappa_from_counts(counts, n_boot=b, rng=0),
            lambda rows: sm_fleiss(counts[rows]),
            resampling.fleiss_resampler(counts, "fleiss"),
            "statsmodels fleiss_kappa"),
        "cohen (raters 1, 2)": (
            lambda b: cohen_kappa(cast(Any, ratings[:, 0]), cast(Any, ratings[:, 1]), n_boot=b,
                                  rng=0),
            lambda rows: sm_cohen(np.bincount(ratings[rows, 0] * 3 + ratings[rows, 1],
                                              minlength=9).reshape(3, 3)).kappa,
            resampling.cohen_resampler(ratings[:, 0], ratings[:, 1], 3, np.eye(3)),
            "statsmodels cohens_kappa on the bincount table"),
        **{f"krippendorff {level}": (
            lambda b, level=level: krippendorff_alpha(ratings, level=level, n_boot=b, rng=0),
            alpha_peer(level),
            resampling.krippendorff_resampler(values, level),
            f"krippendorff.alpha {level}") for level in ("nominal", "ordinal", "interval")},
    }
    every = np.arange(n)
    print(f"{'coefficient':<22} {'n_boot=0':>8} {'with boot':>9} {'boot':>6}  "
          f"{'interval':<16}  {'peer':>6} {'ratio':>6} {'|diff|':>7}")
    loops = []
    for name, (ours, peer, resampler, peer_name) in cases.items():
        t0, point = cpu_timed(lambda ours=ours: ours(0))
        t1, r = cpu_timed(lambda ours=ours: ours(args.n_boot))
        tp, value = cpu_timed(lambda peer=peer: peer(every))
        print(f"{name:<22} {t0:8.2f} {t1:9.2f} {t1 - t0:6.2f}  "
              f"[{r.ci_low:.4f}, {r.ci_high:.4f}]  {tp:6.3f} {t0 / max(tp, 1e-9):5.2f}x "
              f"{abs(point.value - value):7.1e}  peer: {peer_name}")
        # the peer's bootstrap: one library call per resample of the items
        gen = np.random.default_rng(0)
        draws = [gen.integers(0, n, n) for _ in range(args.loop_resamples)]
        tl, boot = cpu_timed(lambda peer=peer, draws=draws: [peer(rows) for rows in draws])
        vectorised = resampler.statistic(np.stack([
            np.bincount(resampler.inverse[rows], minlength=resampler.n_patterns)
            for rows in draws]).astype(float))
        loops.append((name, peer_name, t1, tp, tl / args.loop_resamples,
                      float(np.max(np.abs(vectorised - np.array(boot))))))
    print(f"\npeer of the interval: the library call once per resample, {args.loop_resamples} "
          f"resamples timed, CPU per resample x {args.n_boot:,}")
    print(f"{'coefficient':<22} {'per resample':>12} {'peer job':>9} {'noisefloor':>10} "
          f"{'ratio':>7} {'|diff|':>7}")
    for name, peer_name, t1, tp, per, diff in loops:
        job = tp + per * args.n_boot
        print(f"{name:<22} {per * 1000:10.1f}ms {job:9.1f} {t1:10.2f} {t1 / job:6.3f}x "
              f"{diff:7.1e}  peer: {peer_name} per resample")
    print("(ratio noisefloor / peer: above 1 noisefloor is slower; peer job = the peer's point "
          "estimate plus its per-resample CPU times n_boot; |diff| = largest difference from "
          "the peer on the same items)")
    print(f"whole run: {time.perf_counter() - wall:.1f} s wall")


if __name__ == "__main__":
    main()
