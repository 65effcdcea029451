"""Ingest benchmark: strict loading of 1,000,000 trial records against pandas and pyarrow.

Writes N synthetic trial records (noisefloor's JSONL schema, default N = 1,000,000) to a
temporary directory, then times, each in a fresh subprocess so that peak memory is its own:

* ``noisefloor``: :func:`noisefloor.logs.load_trials` (strict: every check of the log layer);
* ``validate``: :func:`noisefloor.logs.validate_logs` (collect-all, no DataFrame);
* ``read_records`` (on request): streaming :class:`~noisefloor.logs.TrialRecord` objects;
* ``pandas``: ``pandas.read_json(path, lines=True)`` (no validation);
* ``pyarrow``: ``pyarrow.json.read_json(path)`` (no validation, multithreaded C++);
* ``floor+audit`` (when :mod:`noisefloor.floor` and :mod:`noisefloor.audit` import):
  ``noise_floor_from_trials`` on the loaded frame and ``audit`` of the bundled published claims.

Peak memory is the subprocess's maximum resident set size (``resource.getrusage``), interpreter
and imports included. Targets: strict loading faster than pandas, within 3x of
pyarrow, peak memory under 2 GB.

Usage::

    python benchmarks/ingest.py [--n 1000000] [--repeat 1] [--keep DIR] [--with-extra]
                                [--methods noisefloor,validate,pandas,pyarrow,floor+audit]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROTOCOLS = ("no_coord", "pull", "intercept")
SEEDS = (1, 2)
TRIALS = (0, 1)


def write_records(path: Path, n: int, seed: int = 0, with_extra: bool = False) -> int:
    """Write ``n`` synthetic TrialRecord lines shaped like the paper's runs; return bytes.

    With ``with_extra`` every record carries an ``extra`` object (``{"turns": k,
    "cost_usd": x}``), which takes the loader off its Arrow fast path.
    """
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        i = 0
        task = 0
        while i < n:
            task_id = f"{task:05d}"
            base = hashlib.sha256(task_id.encode()).hexdigest()
            for seed_ in SEEDS:
                for trial in TRIALS:
                    for protocol in PROTOCOLS:
                        if i >= n:
                            break
                        infra = rng.random() < 0.01
                        sha = base if protocol != "pull" else hashlib.sha256(
                            (task_id + "pull").encode()).hexdigest()
                        rec = {
                            "schema_version": "1",
                            "benchmark": "tau2/retail",
                            "model": "claude-haiku-4-5",
                            "protocol": protocol,
                            "seed": seed_,
                            "task_id": task_id,
                            "trial": trial,
                            "reward": None if infra else float(rng.random() < 0.54),
                            "termination_reason": ("harness_error:timeout" if infra
                                                   else "user_stop"),
                            "infrastructure_error": infra,
                            "store_events_at_start": 0 if trial == 0 else rng.randint(0, 8),
                            "injections": 0 if protocol != "intercept" else rng.randint(0, 3),
                            "first_request_sha256": sha if trial == 0 else None,
                            "extra": ({"turns": rng.randint(2, 30),
                                       "cost_usd": round(rng.random() / 10, 4)}
                                      if with_extra else None),
                        }
                        out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                        i += 1
            task += 1
        written = out.tell()
    return written


_CHILD = r"""
import json, resource, sys, time
method, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
extra = {}
if method == "noisefloor":
    from noisefloor.logs import load_trials
    t0 = time.perf_counter()
    df = load_trials(path)
    rows = len(df)
elif method == "validate":
    from noisefloor.logs import validate_logs
    t0 = time.perf_counter()
    rows = validate_logs(path).n_valid
elif method == "read_records":
    from noisefloor.logs import read_records
    t0 = time.perf_counter()
    rows = sum(1 for _ in read_records(path))
elif method == "pandas":
    import pandas as pd
    t0 = time.perf_counter()
    df = pd.read_json(path, lines=True)
    rows = len(df)
elif method == "pyarrow":
    import pyarrow.json as pj
    t0 = time.perf_counter()
    table = pj.read_json(path)
    rows = table.num_rows
elif method == "floor+audit":
    from noisefloor.logs import load_trials
    df = load_trials(path)
    from noisefloor.floor import noise_floor_from_trials
    from noisefloor.audit import audit
    from noisefloor.published import read_claims
    t0 = time.perf_counter()
    floor = noise_floor_from_trials(df)
    t1 = time.perf_counter()
    result = audit(read_claims(), floor)
    t2 = time.perf_counter()
    extra = {"floor_s": t1 - t0, "audit_s": t2 - t1, "floor": float(floor.floor),
             "envelope": float(floor.envelope)}
    rows = len(df)
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
print(json.dumps({"method": method, "seconds": seconds, "peak_bytes": peak, "rows": rows,
                  **extra}))
"""


def run_child(method: str, path: Path) -> dict:
    """Run one contender in a fresh interpreter; return its JSON report."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, method, str(path)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["(no message)"]
        return {"method": method, "error": last[0]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="records to write")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per contender; the fastest is reported")
    parser.add_argument("--keep", type=Path, default=None,
                        help="write the file into this directory and keep it")
    parser.add_argument("--with-extra", action="store_true",
                        help="give every record an 'extra' object (the slower, "
                             "record-by-record validation path)")
    parser.add_argument("--methods", default="noisefloor,validate,pandas,pyarrow,floor+audit",
                        help="comma-separated subset of noisefloor, validate, read_records, "
                             "pandas, pyarrow, floor+audit")
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args(argv)
    if args.tiny:
        args.n, args.repeat = 500, 1
    if args.n < 1 or args.repeat < 1:
        parser.error("--n and --repeat must be >= 1")

    tmp = None
    if args.keep is None:
        tmp = tempfile.TemporaryDirectory(prefix="noisefloor-ingest-")
        directory = Path(tmp.name)
    else:
        directory = args.keep
        directory.mkdir(parents=True, exist_ok=True)
    path = directory / "trials.jsonl"
    try:
        t0 = time.perf_counter()
        size = write_records(path, args.n, with_extra=args.with_extra)
        print(f"wrote {args.n:,} records, {size / 2**20:.1f} MiB, to {path} "
              f"in {time.perf_counter() - t0:.1f} s")
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; "
              f"each contender in its own subprocess, best of {args.repeat}")
        results = {}
        known = ("noisefloor", "validate", "read_records", "pandas", "pyarrow", "floor+audit")
        methods = [m for m in args.methods.split(",") if m]
        if not set(methods) <= set(known):
            parser.error(f"--methods must be a subset of {','.join(known)}")
        for method in methods:
            runs = [run_child(method, path) for _ in range(args.repeat)]
            ok = [r for r in runs if "error" not in r]
            results[method] = (min(ok, key=lambda r: r["seconds"]) if ok else runs[0])
        print()
        print(f"{'method':<14}{'seconds':>10}{'peak RSS MiB':>14}{'rows':>12}")
        for method in methods:
            r = results[method]
            if "error" in r:
                print(f"{method:<14}  skipped: {r['error']}")
                continue
            print(f"{method:<14}{r['seconds']:>10.2f}{r['peak_bytes'] / 2**20:>14.0f}"
                  f"{r['rows']:>12,}")
        fa = results.get("floor+audit", {"error": "not run"})
        if "error" not in fa:
            print(f"  (floor {fa['floor_s']:.2f} s, audit {fa['audit_s']:.3f} s; time excludes "
                  f"loading; floor = {fa['floor']:.3f}, envelope = {fa['envelope']:.3f})")
        missing = {"error": "not run"}
        nf, pdr, par = (results.get(m, missing) for m in ("noisefloor", "pandas", "pyarrow"))
        if all("error" not in r for r in (nf, pdr, par)):
            print()
            vs_pd = nf["seconds"] / pdr["seconds"]
            vs_pa = nf["seconds"] / par["seconds"]
            peak = nf["peak_bytes"] / 2**30
            print(f"strict / pandas  = {vs_pd:.2f}x  (target < 1: "
                  f"{'met' if vs_pd < 1 else 'NOT met'})")
            print(f"strict / pyarrow = {vs_pa:.2f}x  (target <= 3: "
                  f"{'met' if vs_pa <= 3 else 'NOT met'})")
            print(f"strict peak RSS  = {peak:.2f} GiB (target < 2: "
                  f"{'met' if peak < 2 else 'NOT met'})")
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
