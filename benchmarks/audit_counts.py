"""Benchmark of ``noisefloor audit --counts`` on a large paired-count table.

Measures, for a generated table of ``--rows`` rows (three contrasts per seed at trials 0 and 1,
100 tasks per seed): the library steps in one process (reading the table, the null contrasts
and the floor, the sign tests of the other contrasts, the audit, the report, the forest plot
capped at ``MAX_FOREST_ROWS`` rows and saving it), then the whole command as a subprocess,
with and without ``--no-plot``, reporting wall time and the child's peak resident memory.

Before the cap the plot drew every row: 10,000 rows ran past 300 s at 9.8 GB.

Usage: ``python benchmarks/audit_counts.py [--rows 10000]``
"""

from __future__ import annotations

import argparse
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

import numpy as np  # noqa: E402


def make_table(path: Path, rows: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    lines = ["model,benchmark,seed,trial,subset,contrast,wins,losses,ties"]
    s = 0
    while len(lines) - 1 < rows:
        s += 1
        for trial in (0, 1):
            for contrast in ("no_coord-intercept", "pull-no_coord", "pull-intercept"):
                w, l = rng.integers(5, 25, 2)
                lines.append(f"m,b,{s},{trial},all,{contrast},{w},{l},{100 - w - l}")
    path.write_text("\n".join(lines[: rows + 1]) + "\n")


def in_process(table_path: Path, out: Path) -> None:
    from noisefloor.audit import audit
    from noisefloor.count_table import null_contrasts_from_counts
    from noisefloor.floor import noise_floor
    from noisefloor.plots import audit_forest, save_figure
    from noisefloor.published import read_claims, read_paired_counts
    from noisefloor.report import audit_report
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
    others = sign_test_table(rest.drop(columns=["line"]))
    lap(f"sign_test_table ({len(rest):,} rows)")
    result = audit(read_claims(), nf)
    lap("audit (10 claims)")
    audit_report(result, nf, source="bench", claims_source="bundled", others=others)
    lap("audit_report")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = audit_forest(result, nf)
    lap(f"audit_forest ({len(fig.axes[0].get_yticklabels())} rows drawn)")
    save_figure(fig, out, "forest")
    lap("save_figure (png + svg)")
    print(f"{'step':<40} {'seconds':>8}")
    for name, sec in steps:
        print(f"{name:<40} {sec:8.2f}")


def command(table_path: Path, out: Path, extra: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "noisefloor", "audit", "--counts", str(table_path),
                    "--out", str(out), *extra], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024  # kB -> MB (Linux); the largest child so far


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, cpus {os.cpu_count()}, rows {args.rows:,}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        table = tmp / "counts.csv"
        make_table(table, args.rows)
        in_process(table, tmp / "lib")
        print()
        print(f"{'command':<44} {'seconds':>8} {'peak MB':>8}")
        for extra in (["--no-plot"], []):
            wall, peak = command(table, tmp / "cli", extra)
            name = "noisefloor audit --counts FILE " + " ".join(extra)
            print(f"{name:<44} {wall:8.2f} {peak:8.0f}")


if __name__ == "__main__":
    main()
