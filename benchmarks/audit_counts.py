"""Benchmark of ``noisefloor audit --counts`` on a large paired-count table.

Measures, for a generated table of ``--rows`` rows (three contrasts per seed at trials 0 and 1,
100 tasks per seed): the sign tests, Wilson-mapped intervals and Bonferroni correction of the
whole table in array operations (``sign_test_table``) against its peer, the same statistics row
by row (``scipy.stats.binomtest`` and statsmodels ``proportion_confint`` per row,
``multipletests`` per family: the computation before the table was vectorised), with the ratio
and the largest difference between the two; then the library steps in one process (reading
the table, the null contrasts and the floor, the audit and its text report, the forest plot
capped at ``MAX_FOREST_ROWS`` rows and saving it), then the whole command as a subprocess,
with and without ``--no-plot``, reporting wall time and the child's peak resident memory.

Before the cap the plot drew every row: 10,000 rows ran past 300 s at 9.8 GB.

Usage: ``python benchmarks/audit_counts.py [--rows 10000] [--repo PATH ...] [--tiny]`` (``--tiny``: 12 rows, a
few seconds, the size the test suite runs).
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def make_table(path: Path, rows: int, seed: int = 0) -> None:
    import numpy as np

    rng = np.random.default_rng(seed)
    lines = ["model,benchmark,seed,trial,subset,contrast,wins,losses,ties"]
    s = 0
    while len(lines) - 1 < rows:
        s += 1
        for trial in (0, 1):
            for contrast in ("no_coord-intercept", "pull-no_coord", "pull-intercept"):
                w, losses = rng.integers(5, 25, 2)
                lines.append(f"m,b,{s},{trial},all,{contrast},{w},{losses},{100 - w - losses}")
    path.write_text("\n".join(lines[: rows + 1]) + "\n")


def per_row(rest):
    """The peer: one scipy/statsmodels call per row and per family, as before vectorising."""
    import numpy as np
    import pandas as pd
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    p, lo_, hi_ = [], [], []
    for w, lo, t in zip(rest["wins"], rest["losses"], rest["ties"]):
        m, n = w + lo, w + lo + t
        p.append(min(1.0, binomtest(int(w), int(m), 0.5).pvalue))
        a, b = proportion_confint(int(w), int(m), alpha=0.05, method="wilson")
        lo_.append((2 * a - 1) * m / n)
        hi_.append((2 * b - 1) * m / n)
    out = pd.DataFrame({"p_value": p, "ci_low": lo_, "ci_high": hi_}, index=rest.index)
    out["p_adjusted"] = np.nan
    for _, g in out.groupby([rest["seed"], rest["trial"], rest["subset"]], sort=False):
        out.loc[g.index, "p_adjusted"] = multipletests(g["p_value"].to_numpy(),
                                                       method="bonferroni")[1]
    return out


def sign_test_step(table) -> None:
    import numpy as np

    from noisefloor.floor.contrast_table import FAMILY
    from noisefloor.stats.paired import sign_test_table

    rest = table[~((table["trial"] == 0) & (table["subset"] == "all"))].drop(columns=["line"])
    sign_test_table(rest.iloc[:3], family=FAMILY)  # warm: load the code paths
    vec = math.inf
    for _ in range(3):  # best of three: milliseconds are at the mercy of the machine's load
        t = time.perf_counter()
        fast = sign_test_table(rest, family=FAMILY)
        vec = min(vec, time.perf_counter() - t)
    t = time.perf_counter()
    slow = per_row(rest)
    row = time.perf_counter() - t
    cols = ["p_value", "p_adjusted", "ci_low", "ci_high"]
    diff = float(np.nanmax(np.abs(fast[cols].to_numpy() - slow[cols].to_numpy())))
    print(f"sign tests + Wilson + Bonferroni over {len(rest):,} rows:")
    print(f"  vectorised (sign_test_table)            {vec * 1e3:10.1f} ms")
    print(f"  peer: per row (binomtest, proportion_confint, multipletests per family) "
          f"{row * 1e3:.1f} ms")
    print(f"  ratio peer (per row) / vectorised       {row / vec:10.0f}x   "
          f"(largest difference {diff:.1e})")


def in_process(table_path: Path, out: Path) -> None:
    from noisefloor.audit.published import read_claims, read_paired_counts
    from noisefloor.audit.verdicts import audit
    from noisefloor.floor.contrast_table import FAMILY
    from noisefloor.floor.count_table import null_contrasts_from_counts
    from noisefloor.floor.estimate import noise_floor
    from noisefloor.report.forest import audit_forest, save_figure
    from noisefloor.stats.paired import sign_test_table

    steps = []
    t = time.perf_counter()

    def lap(name):
        nonlocal t
        now = time.perf_counter()
        steps.append((name, now - t))
        t = now

    table = read_paired_counts(table_path)
    lap("read_paired_counts")
    null = null_contrasts_from_counts(table)
    nf = noise_floor(null)
    lap("null contrasts + noise_floor")
    rest = table[~((table["trial"] == 0) & (table["subset"] == "all"))]
    sign_test_table(rest.drop(columns=["line"]), family=FAMILY)
    lap(f"sign_test_table ({len(rest):,} rows)")
    result = audit(read_claims(), nf)
    lap("audit (10 claims)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = audit_forest(result, nf)
    lap(f"audit_forest ({len(fig.axes[0].get_yticklabels())} rows drawn)")
    save_figure(fig, out, "forest")
    lap("save_figure (png + svg)")
    print(f"{'step':<40} {'seconds':>8}")
    for name, sec in steps:
        print(f"{name:<40} {sec:8.2f}")


def command(table_path: Path, out: Path, extra: list[str], repo: Path = REPO
            ) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "noisefloor", "audit", "--counts", str(table_path),
                    "--out", str(out), *extra], cwd=repo, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024  # kB -> MB (Linux); the largest child so far


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--tiny", action="store_true", help="12 rows: checks that the script runs")
    ap.add_argument("--repo", type=Path, action="append", default=None,
                    help="checkout whose command is timed (python -m noisefloor from its root; "
                         "repeatable, e.g. before and after a change); default this one")
    args = ap.parse_args()
    if args.tiny:
        args.rows = 12
    print(f"python {sys.version.split()[0]}, cpus {os.cpu_count()}, rows {args.rows:,}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        table = tmp / "counts.csv"
        make_table(table, args.rows)
        from noisefloor.audit.published import read_paired_counts

        sign_test_step(read_paired_counts(table))
        print()
        in_process(table, tmp / "lib")
        print()
        print(f"{'command':<44} {'seconds':>8} {'peak MB':>8}  checkout")
        for extra in (["--no-plot"], [])[: 1 if args.tiny else 2]:
            for repo in args.repo or [REPO]:
                wall, peak = command(table, tmp / "cli", extra, repo)
                name = "noisefloor audit --counts FILE " + " ".join(extra)
                print(f"{name:<44} {wall:8.2f} {peak:8.0f}  {repo}")


if __name__ == "__main__":
    main()
