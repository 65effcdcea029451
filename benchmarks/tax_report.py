"""Benchmark: the full tax report on a synthetic run of 52,800 rollouts with transcripts.

11 models x 32 tasks x 50 rollouts x 3 modes (solo, pair, split_solo_a), one instance per
rollout, shard transcripts, judge labels for every pair rollout. The run is written once (timed
separately); the report (:func:`noisefloor.tax.tax_report` with ``out=``: cells by task, family
and model with 2,000 bootstrap replicates each, mixed pairs, the grouped ridge with 199
permutations plus leave-one-task-out and leave-one-model-out, stage rates, figures, Markdown,
JSON, CSV) runs in a fresh subprocess whose peak resident memory (``resource.getrusage``,
interpreter and imports included) is reported. Targets: under 60 s, under 4 GB.

Peer: the report's per-cell statistics done with scipy alone. In this process, on the same
instance table, :func:`noisefloor.tax.cells.cell_table` (``by="task"``: every model x task cell's
tax, paired Student interval, ratio gap with its bootstrap percentile interval, sign test) is
timed against a per-cell loop of ``scipy.stats.ttest_rel`` (the tax interval),
``scipy.stats.bootstrap`` (``paired=True``, percentile, the same replicates and the same
generator, so the same draws) and ``scipy.stats.binomtest`` (the sign test): the job a user
would otherwise write with the standard scientific library. Both are timed in CPU seconds
(``time.process_time``, as the report itself), and the two are checked to agree (every value
to 1e-9, same cells).

(``--tiny``: 3 models x 8 tasks, 4 instances, 20 replicates, 9 permutations.)

Usage::

    python benchmarks/tax_report.py [--instances 50] [--keep DIR] [--n-boot 2000]
                                    [--permutations 199]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run from a checkout: this tree's noisefloor, not the installed one

MODELS = {f"model-{i:02d}": c for i, c in enumerate(
    (0.99, 0.97, 0.95, 0.93, 0.9, 0.87, 0.84, 0.8, 0.76, 0.72, 0.66))}

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[5])
t0 = time.perf_counter()
from noisefloor.tax import tax_report
t1 = time.perf_counter()
c1 = time.process_time()
run_dir, out_dir, n_boot, perms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
r = tax_report(run_dir, out=out_dir, labels=run_dir + "/judge_labels.jsonl", n_boot=n_boot,
               n_permutations=perms, rng=0)
t2 = time.perf_counter()
c2 = time.process_time()
g = r.prediction.grouped
print(json.dumps({"import_s": t1 - t0, "report_s": t2 - t1, "report_cpu_s": c2 - c1,
                  "n_rollouts": r.n_rollouts,
                  "files": len(r.files),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "r2_pooled_oof": g.r2_pooled_oof, "r2_mean_fold": g.r2_mean_fold,
                  "spearman": g.spearman.rho}))
"""


def scipy_cells(inst, n_boot: int, confidence: float = 0.95, rng: int = 0):
    """The model x task cells of :func:`noisefloor.tax.cells.cell_table` with scipy alone.

    The cells are visited in the same sorted order with one generator, so
    ``scipy.stats.bootstrap`` draws the same resamples as the report (one
    ``integers(0, n, (n_boot, n))`` call per cell); replicates with a zero solo mean (ratio
    undefined) are left out of the percentile interval, as the report does.
    """
    import math

    import numpy as np
    import pandas as pd
    from scipy import stats

    def ratio_gap(solo, pair, axis=-1):
        s, p = solo.mean(axis=axis), pair.mean(axis=axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(s > 0, (s - p) / s, np.nan)

    gen = np.random.default_rng(rng)
    q = [(1 - confidence) / 2, (1 + confidence) / 2]
    rows = []
    for (model, task), g in inst.groupby(["model", "task"], sort=True):
        both = g[g["solo"].notna() & g["pair"].notna()]
        if both.empty:
            continue
        solo, pair = both["solo"].to_numpy(float), both["pair"].to_numpy(float)
        d = solo - pair
        if len(d) > 1 and d.std() > 0:
            ci = stats.ttest_rel(solo, pair).confidence_interval(confidence)
            lo, hi = float(ci.low), float(ci.high)
        else:
            lo = hi = math.nan
        boot = stats.bootstrap((solo, pair), ratio_gap, paired=True, vectorized=True,
                               n_resamples=n_boot, method="percentile", rng=gen)
        reps = boot.bootstrap_distribution
        ok = reps[np.isfinite(reps)]
        rlo, rhi = (np.quantile(ok, q) if ok.size and ok.size >= 0.5 * reps.size
                    else (math.nan, math.nan))
        wins, losses = int((d > 1e-12).sum()), int((d < -1e-12).sum())
        # every instance tied: no sign test (NaN, as the report)
        p = stats.binomtest(wins, wins + losses).pvalue if wins + losses else math.nan
        rows.append({"model": model, "task": task, "tax": float(d.mean()), "ci_low": lo,
                     "ci_high": hi, "ratio_ci_low": float(rlo), "ratio_ci_high": float(rhi),
                     "sign_p": float(p)})
    return pd.DataFrame(rows)


def peer(run_dir: Path, n_boot: int) -> None:
    """Time the report's model x task cells against :func:`scipy_cells`; print the ratio."""
    import warnings

    import numpy as np

    from noisefloor.tax.cells import cell_table, instance_table
    from noisefloor.tax.run import read_run

    run = read_run(run_dir)
    inst = instance_table(run)
    c0 = time.process_time()
    ours = cell_table(run, by="task", n_boot=n_boot, rng=0, instances=inst)
    ours_cpu = time.process_time() - c0
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's warning on a NaN replicate (left out below)
        theirs = scipy_cells(inst, n_boot)
    peer_cpu = time.process_time() - c0
    ours = ours.dropna(subset=["tax"]).reset_index(drop=True)
    cols = ["tax", "ci_low", "ci_high", "ratio_ci_low", "ratio_ci_high", "sign_p"]
    if list(zip(ours["model"], ours["task"])) != list(zip(theirs["model"], theirs["task"])):
        sys.exit("peer check failed: scipy's cells are not the report's cells")
    a, b = ours[cols].to_numpy(float), theirs[cols].to_numpy(float)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        sys.exit("peer check failed: the report and scipy disagree on which values are NaN")
    diff = float(np.nanmax(np.abs(a - b))) if np.isfinite(a).any() else 0.0
    if diff > 1e-9:
        sys.exit(f"peer check failed: the report and scipy differ by {diff:.3g}")
    print(f"model x task cells ({len(ours)}, {n_boot:,} bootstrap replicates each):")
    print(f"  noisefloor cell_table(by='task')                             {ours_cpu:8.3f} s CPU")
    print(f"  peer: scipy ttest_rel + bootstrap + binomtest, per cell, same draws "
          f"{peer_cpu:5.3f} s CPU")
    print(f"  ratio noisefloor / peer: CPU {ours_cpu / peer_cpu:.2f}x; largest difference "
          f"{diff:.1e} (tax, intervals, sign p over {len(ours)} cells)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=50)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--keep", type=Path, default=None, help="write the run here and keep it")
    ap.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = ap.parse_args()
    from harness.manifest import TASK_NAMES, family_of

    models = MODELS
    tasks = [(n, family_of(n)) for n in TASK_NAMES]
    if args.tiny:  # 3 models x 8 tasks (all 3 families): every stage, on 24 cells instead of 352
        args.instances, args.n_boot, args.permutations = 4, 20, 9
        models = dict(list(MODELS.items())[::5])
        tasks = tasks[::4]
    from noisefloor.tax.synthetic import write_synthetic_run

    tmp = tempfile.TemporaryDirectory()
    run_dir = args.keep or Path(tmp.name) / "run"
    t = time.perf_counter()
    write_synthetic_run(run_dir, models=models, tasks=tasks,
                        n_instances=args.instances, seed=0)
    gen_s = time.perf_counter() - t
    size = sum(p.stat().st_size for p in run_dir.rglob("*") if p.is_file()) / 2**20
    n_lines = sum(1 for _ in open(run_dir / "trials.jsonl", "rb"))
    print(f"synthetic run: {n_lines:,} records, {size:,.0f} MiB with transcripts and labels, "
          f"written in {gen_s:.1f} s")
    out_dir = Path(tmp.name) / "report"
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(run_dir), str(out_dir),
                           str(args.n_boot), str(args.permutations), str(REPO)],
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    if proc.returncode:
        sys.exit(proc.stderr)
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"tax report: {res['report_s']:.1f} s (CPU {res['report_cpu_s']:.1f} s; imports "
          f"{res['import_s']:.1f} s, subprocess wall {wall:.1f} s), peak RSS "
          f"{res['peak_rss_mb']:,.0f} MiB, {res['files']} files")
    print(f"  ridge on {len(models) * len(tasks)} cells: pooled OOF R^2 {res['r2_pooled_oof']:.3f}, "
          f"mean per-fold R^2 {res['r2_mean_fold']:.3f}, Spearman {res['spearman']:.3f}")
    ok_t = wall < 60
    ok_m = res["peak_rss_mb"] < 4096
    print(f"targets: under 60 s {'met' if ok_t else 'MISSED'}; under 4 GB "
          f"{'met' if ok_m else 'MISSED'}", flush=True)
    peer(run_dir, args.n_boot)
    tmp.cleanup()


if __name__ == "__main__":
    main()
