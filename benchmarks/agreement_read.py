"""Agreement on 10^6 ratings: reading the annotation CSV against ``pandas.read_csv``, and the total.

Writes a long-layout annotation CSV (``item,rater,label``; default 1,000,000 ratings: 333,334
items x 3 raters, labels 1-5) and times, each in a fresh subprocess:

* ``noisefloor``: :func:`noisefloor.logs.annotations.read_annotations` (every check: blank
  rows, field counts, empty cells, repeated ratings; labels parsed);
* ``pandas``: ``pandas.read_csv(path)`` (no checks): the peer;
* ``total``: ``python -m noisefloor agreement FILE`` (reading, Fleiss, Cohen and Krippendorff
  with ``--n-boot`` bootstrap resamples, the table), CPU from ``RUSAGE_CHILDREN``.

CPU seconds (``time.process_time``, every thread) and wall seconds cover the read only, imports
excluded. The read and its peer run ``--repeat`` times in turn (A B A B ...) and the medians are
printed: on a shared machine one run of either can be off by half. Target: the read within 2x
of ``pandas.read_csv``.

``--shuffle`` writes the ratings in random order: the duplicate-rating check then hashes the
item column instead of reading it as runs of a file sorted by item.

Usage::

    python benchmarks/agreement_read.py [--n 1000000] [--n-boot 2000] [--repo DIR]
                                        [--methods noisefloor,pandas,total] [--repeat 3]
                                        [--shuffle]

``--n 1000`` makes a quick run; ``--repo`` measures another checkout's noisefloor.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, sys, time
method, path, repo = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, repo)
if method == "noisefloor":
    from noisefloor.logs.annotations import read_annotations
else:
    import pandas as pd
t0, c0 = time.perf_counter(), time.process_time()
rows = len(read_annotations(path)) if method == "noisefloor" else len(pd.read_csv(path))
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "rows": rows}))
"""


def write_ratings(path: Path, n: int, seed: int = 0, shuffle: bool = False) -> int:
    """Write ``n`` ratings (3 raters per item, labels 1-5 near a hidden truth), in item order
    or shuffled; return bytes."""
    rng = random.Random(seed)
    raters = ("ann", "bob", "cy")
    lines = []
    for i in range(n):
        item, r = divmod(i, 3)
        if r == 0:
            truth = rng.randint(1, 5)
        label = truth if rng.random() < 0.7 else rng.randint(1, 5)
        lines.append(f"item{item:07d},{raters[r]},{label}\n")
    if shuffle:
        rng.shuffle(lines)
    with open(path, "w", encoding="utf-8") as out:
        out.write("item,rater,label\n")
        out.writelines(lines)
        return out.tell()


def child(method: str, path: Path, repo: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD, method, str(path), str(repo)],
                          capture_output=True, text=True, check=False, cwd=repo)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["(no message)"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median_of(runs: list[dict]) -> dict:
    """The median CPU and wall seconds of repeated runs (the first error, if any run failed)."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    return {"cpu": statistics.median(r["cpu"] for r in runs),
            "seconds": statistics.median(r["seconds"] for r in runs), "rows": runs[0]["rows"]}


def total(path: Path, repo: Path, n_boot: int) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "noisefloor", "agreement", str(path),
                           "--n-boot", str(n_boot)], capture_output=True, text=True,
                          check=False, cwd=repo)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["(no message)"])[-1]}
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"seconds": wall, "cpu": cpu, "rows": None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="ratings to write")
    ap.add_argument("--n-boot", type=int, default=2000,
                    help="bootstrap resamples of the total run (the CLI's default)")
    ap.add_argument("--methods", default="noisefloor,pandas,total",
                    help="comma-separated subset of noisefloor, pandas, total")
    ap.add_argument("--repo", type=Path, default=REPO,
                    help="checkout whose noisefloor is measured (default: this one)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of the read and of pandas.read_csv, in turn; medians printed")
    ap.add_argument("--shuffle", action="store_true",
                    help="ratings in random order rather than sorted by item")
    ap.add_argument("--tiny", action="store_true",
                    help="a tiny size that only checks the script runs (the test suite's)")
    args = ap.parse_args(argv)
    if args.tiny:
        args.n, args.n_boot, args.repeat = 300, 10, 1
    methods = [m for m in args.methods.split(",") if m]
    if args.n < 3 or not methods or not set(methods) <= {"noisefloor", "pandas", "total"}:
        ap.error("--n must be >= 3 and --methods a subset of noisefloor,pandas,total")
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    repo = args.repo.resolve()
    with tempfile.TemporaryDirectory(prefix="noisefloor-agreement-") as tmp:
        path = Path(tmp) / "ratings.csv"
        size = write_ratings(path, args.n, shuffle=args.shuffle)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, noisefloor from {repo}; "
              f"{args.n:,} ratings{' (shuffled)' if args.shuffle else ''}, "
              f"{size / 2**20:.1f} MiB; each in its own subprocess, median of {args.repeat}")
        runs: dict[str, list[dict]] = {m: [] for m in methods if m != "total"}
        for _ in range(args.repeat):  # in turn, so a change in the machine's load hits both
            for m in runs:
                runs[m].append(child(m, path, repo))
        results = {m: median_of(r) for m, r in runs.items()}
        if "total" in methods:
            results["total"] = total(path, repo, args.n_boot)
    print(f"{'method':<28}{'CPU s':>8}{'wall s':>8}")
    labels = {"noisefloor": "noisefloor read_annotations", "pandas": "pandas.read_csv",
              "total": f"noisefloor agreement (n_boot {args.n_boot})"}
    for m in methods:
        r = results[m]
        if "error" in r:
            print(f"{labels[m]:<28}  failed: {r['error']}")
        else:
            print(f"{labels[m]:<28}{r['cpu']:>8.2f}{r['seconds']:>8.2f}")
    nf, pd_ = results.get("noisefloor"), results.get("pandas")
    if nf and pd_ and "error" not in nf and "error" not in pd_:
        cpu, wall = nf["cpu"] / pd_["cpu"], nf["seconds"] / pd_["seconds"]
        print(f"read / peer (pandas.read_csv): CPU {cpu:.2f}x (target <= 2: "
              f"{'met' if cpu <= 2 else 'NOT met'}), wall {wall:.2f}x")
    failed = [labels[m] for m in methods if "error" in results[m]]
    if failed:  # the table is printed whole; the exit status says a contender failed
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
