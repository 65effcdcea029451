"""Ingest benchmark: strict loading of trial records against pyarrow (and pandas), per shape.

For each record shape it writes N synthetic records (noisefloor's JSONL schema) to a temporary
directory, then times each contender in a fresh subprocess, so that peak memory is its own:

* ``noisefloor``: :func:`noisefloor.logs.load_trials` (strict: every check of the log layer);
* ``pyarrow``: ``pyarrow.json.read_json(path)`` (no validation, multithreaded C++): the peer;
* ``validate``: :func:`noisefloor.logs.validate_logs` (collect-all, no DataFrame);
* ``read_records`` (on request): streaming :class:`~noisefloor.logs.TrialRecord` objects;
* ``pandas``: ``pandas.read_json(path, lines=True)`` (no validation);
* ``floor+audit`` (on request, plain shape): ``floor_run`` on the loaded frame and
  ``audit`` of the bundled published claims.

Shapes (``--shapes``): ``plain`` (default N = 1,000,000; no ``extra``), ``extra`` (200,000; an
``extra`` object ``{"turns": k, "cost_usd": x}`` on every record) and ``tax`` (52,800: the
records the tax runner writes, task ids such as ``spatial_key_door:0`` and a 22-key ``extra``).
Each child imports what its read runs before the clock starts (noisefloor's reader modules,
with pandas, pyarrow and pydantic; ``pyarrow.json`` for the peer), and reports the CPU seconds of
those imports apart. It reports CPU seconds (``time.process_time``: every thread of the
process), wall seconds (both around the read only, imports excluded) and peak resident memory
(``resource.getrusage``, interpreter and imports included; the RSS after imports is shown
too, and the ratio of the growth after imports). The ratios noisefloor / pyarrow are printed per shape,
then for every shape in one table at the end. Targets: CPU within 1.5x of
pyarrow, peak memory within 1.3x.

Usage::

    python benchmarks/ingest.py [--shapes plain,extra,tax] [--n N] [--repeat 1]
                                [--methods noisefloor,pyarrow] [--keep DIR] [--repo DIR]

``--n`` sets the record count of every shape (e.g. ``--n 1000`` for a quick run);
``--repo`` measures another checkout's noisefloor (its root goes first on ``sys.path``).
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


TAX_TASKS = ("spatial_key_door", "spatial_maze_halves", "csp_sudoku4", "logic_knights")
TAX_MODES = ("solo", "pair", "split_solo_a")


def write_tax_records(path: Path, n: int, seed: int = 0) -> int:
    """Write ``n`` records shaped like the tax runner's ``trials.jsonl`` (the fields of
    ``harness.runner.run.build_record``); return bytes written."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        i = 0
        while i < n:
            for mode in TAX_MODES:
                for task in TAX_TASKS:
                    if i >= n:
                        break
                    inst = i // (len(TAX_MODES) * len(TAX_TASKS))
                    model = f"model-{inst % 11:02d}"
                    infra = rng.random() < 0.005
                    rec = {
                        "schema_version": "1", "benchmark": f"tax/{task}", "model": model,
                        "protocol": mode, "seed": 7, "task_id": f"{task}:{inst}", "trial": 0,
                        "reward": None if infra else float(rng.random() < 0.8),
                        "termination_reason": "infrastructure" if infra else "final_answer",
                        "infrastructure_error": infra,
                        "first_request_sha256": hashlib.sha256(f"{i}".encode()).hexdigest(),
                        "extra": {
                            "task": task, "family": task.split("_")[0], "difficulty": 1,
                            "instance_seed": inst, "mode": mode, "model_a": model,
                            "model_b": model if mode == "pair" else None,
                            "started_by": "a" if mode == "pair" else "solo",
                            "prompt_variant": "baseline", "turns": rng.randint(1, 8),
                            "tokens_in": rng.randint(40, 4000),
                            "tokens_out": rng.randint(25, 900),
                            "cost_usd": round(rng.random() / 100, 6),
                            "latency_s": round(rng.random() * 9, 3), "retries": 0,
                            "extraction": "marker", "answer": "A:B",
                            "rollout_key": f"{model}|{mode}|{task}:{inst}|0",
                            "transcript": f"transcripts/{model}__{mode}.jsonl",
                            "error": None, "solo_view": "canonical", "token_cap": None,
                        },
                    }
                    out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                    i += 1
        return out.tell()


SHAPES = {"plain": 1_000_000, "extra": 200_000, "tax": 52_800}


def write_shape(path: Path, shape: str, n: int) -> int:
    if shape == "tax":
        return write_tax_records(path, n)
    return write_records(path, n, with_extra=shape == "extra")


_CHILD = r"""
import json, resource, sys, time
method, path = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
extra = {}
i0 = time.process_time()
if method in ("noisefloor", "validate", "read_records", "floor+audit"):
    # the modules the read runs, imported before the clock starts (as pyarrow.json is)
    import noisefloor.logs.load as nl
    extra["module"] = nl.__file__
    if method == "floor+audit":
        from noisefloor.pipelines import floor_run
        from noisefloor.audit.verdicts import audit
        from noisefloor.audit.published import read_claims
elif method == "pandas":
    import pandas as pd
elif method == "pyarrow":
    import pyarrow.json as pj
extra["import_cpu"] = time.process_time() - i0
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0, c0 = time.perf_counter(), time.process_time()
if method == "noisefloor":
    rows = len(nl.load_trials(path))
elif method == "validate":
    rows = nl.validate_logs(path).n_valid
elif method == "read_records":
    rows = sum(1 for _ in nl.read_records(path))
elif method == "pandas":
    rows = len(pd.read_json(path, lines=True))
elif method == "pyarrow":
    rows = pj.read_json(path).num_rows
elif method == "floor+audit":
    df = nl.load_trials(path)
    t0, c0 = time.perf_counter(), time.process_time()
    floor = floor_run(df).noise_floor
    t1 = time.perf_counter()
    result = audit(read_claims(), floor)
    extra.update(floor_s=t1 - t0, audit_s=time.perf_counter() - t1)
    rows = len(df)
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
print(json.dumps({"method": method, "seconds": seconds, "cpu": cpu, "peak_bytes": peak,
                  "base_bytes": base, "rows": rows, **extra}))
"""

REPO = Path(__file__).resolve().parents[1]


def run_child(method: str, path: Path, repo: Path = REPO) -> dict:
    """Run one contender in a fresh interpreter; return its JSON report."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, method, str(path), str(repo)],
                          capture_output=True, text=True, check=False, cwd=repo)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["(no message)"]
        return {"method": method, "error": last[0]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


KNOWN = ("noisefloor", "pyarrow", "validate", "read_records", "pandas", "floor+audit")


def measure_shape(shape: str, n: int, directory: Path, methods: list[str], repeat: int,
                  repo: Path) -> dict | None:
    path = directory / f"{shape}.jsonl"
    t0 = time.perf_counter()
    size = write_shape(path, shape, n)
    print(f"\n== {shape}: {n:,} records, {size / 2**20:.1f} MiB "
          f"(written in {time.perf_counter() - t0:.1f} s)")
    results = {}
    for method in methods:
        runs = [run_child(method, path, repo) for _ in range(repeat)]
        ok = [r for r in runs if "error" not in r]
        results[method] = min(ok, key=lambda r: r["cpu"]) if ok else runs[0]
    print(f"{'method':<14}{'CPU s':>8}{'wall s':>8}{'peak RSS MiB':>14}"
          f"{'after imports':>15}{'import CPU s':>14}{'rows':>11}")
    for method in methods:
        r = results[method]
        if "error" in r:
            print(f"{method:<14}  failed: {r['error']}")
            continue
        print(f"{method:<14}{r['cpu']:>8.2f}{r['seconds']:>8.2f}{r['peak_bytes'] / 2**20:>14.0f}"
              f"{r['base_bytes'] / 2**20:>15.0f}{r['import_cpu']:>14.2f}{r['rows']:>11,}")
    fa = results.get("floor+audit", {"error": "not run"})
    if "error" not in fa:
        print(f"  (floor {fa['floor_s']:.2f} s, audit {fa['audit_s']:.3f} s, loading excluded)")
    nf, par = results.get("noisefloor"), results.get("pyarrow")
    if nf and par and "error" not in nf and "error" not in par:
        cpu = nf["cpu"] / par["cpu"]
        wall = nf["seconds"] / par["seconds"]
        peak = nf["peak_bytes"] / par["peak_bytes"]
        grown = ((nf["peak_bytes"] - nf["base_bytes"])
                 / max(par["peak_bytes"] - par["base_bytes"], 1))
        print(f"noisefloor / peer (pyarrow.json.read_json) ({shape}): CPU {cpu:.2f}x "
              "(target <= 1.5: "
              f"{'met' if cpu <= 1.5 else 'NOT met'}), wall {wall:.2f}x, peak RSS {peak:.2f}x "
              f"(target <= 1.3: {'met' if peak <= 1.3 else 'NOT met'}), growth after imports "
              f"{grown:.2f}x")
        return {"shape": shape, "n": n, "cpu": cpu, "wall": wall, "peak": peak, "grown": grown,
                "nf_cpu": nf["cpu"], "pa_cpu": par["cpu"], "nf_peak": nf["peak_bytes"],
                "pa_peak": par["peak_bytes"]}
    return None


def print_summary(rows: list[dict]) -> None:
    """One table of every shape's ratios against pyarrow (the issue's targets)."""
    print("\n== noisefloor / pyarrow, every shape (targets: CPU <= 1.5x, peak RSS <= 1.3x)")
    print(f"{'shape':<7}{'records':>10}{'CPU s':>8}{'pyarrow':>9}{'CPU ratio':>11}"
          f"{'peak MiB':>10}{'pyarrow':>9}{'RSS ratio':>11}{'growth':>8}")
    for r in rows:
        print(f"{r['shape']:<7}{r['n']:>10,}{r['nf_cpu']:>8.2f}{r['pa_cpu']:>9.2f}"
              f"{r['cpu']:>10.2f}x{r['nf_peak'] / 2**20:>10.0f}{r['pa_peak'] / 2**20:>9.0f}"
              f"{r['peak']:>10.2f}x{r['grown']:>7.2f}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", default="plain,extra,tax",
                        help="comma-separated subset of plain, extra, tax")
    parser.add_argument("--n", type=int, default=None,
                        help="records per shape (default: plain 1,000,000, extra 200,000, "
                             "tax 52,800)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per contender; the one with least CPU is reported")
    parser.add_argument("--keep", type=Path, default=None,
                        help="write the files into this directory and keep them")
    parser.add_argument("--with-extra", action="store_true",
                        help="the same as --shapes extra (kept for old command lines)")
    parser.add_argument("--methods", default="noisefloor,pyarrow",
                        help="comma-separated subset of " + ", ".join(KNOWN))
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="checkout whose noisefloor is measured (default: this one)")
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args(argv)
    if args.tiny:
        args.n, args.repeat = 500, 1
    if (args.n is not None and args.n < 1) or args.repeat < 1:
        parser.error("--n and --repeat must be >= 1")
    shapes = ["extra"] if args.with_extra else [s for s in args.shapes.split(",") if s]
    if not shapes or not set(shapes) <= set(SHAPES):
        parser.error(f"--shapes must be a subset of {','.join(SHAPES)}")
    methods = [m for m in args.methods.split(",") if m]
    if not methods or not set(methods) <= set(KNOWN):
        parser.error(f"--methods must be a subset of {','.join(KNOWN)}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, noisefloor from "
          f"{args.repo}; each contender in its own subprocess, best of {args.repeat}")
    tmp = None
    if args.keep is None:
        tmp = tempfile.TemporaryDirectory(prefix="noisefloor-ingest-")
        directory = Path(tmp.name)
    else:
        directory = args.keep
        directory.mkdir(parents=True, exist_ok=True)
    try:
        rows = [measure_shape(shape, args.n or SHAPES[shape], directory, methods, args.repeat,
                              args.repo.resolve()) for shape in shapes]
        if any(rows):
            print_summary([r for r in rows if r])
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
