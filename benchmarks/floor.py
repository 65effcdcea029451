"""Floor benchmark: the noise floor of 1,000,000 loaded trial records.

Builds N trial records in memory with the columns and dtypes of
:func:`noisefloor.logs.load_trials` (default N = 1,000,000: 3 protocols x 2 seeds x 2 trials x
83,334 tasks, shaped like the noise-floor paper's runs: the store empty at trial 0 and populated
at trial 1, no_coord injecting nothing, no_coord and intercept sharing first requests at trial
0, 1% infrastructure errors), then times :func:`noisefloor.pipelines.floor_run` on the frame
(the certification and pairing of every null contrast, the sign tests and the floor). Loading is
timed by ``benchmarks/ingest.py``. Target: under 1 s. Wall-clock seconds and the
process's CPU seconds are printed (on a shared machine the CPU figure is the one that does not
depend on the other processes).

Usage::

    python benchmarks/floor.py [--n 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used, so that --help answers at once
    import pandas as pd

PROTOCOLS = ("no_coord", "pull", "intercept")
SEEDS = (1, 2)
TRIALS = (0, 1)


def trial_frame(n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` trial records (the first ``n`` of the layout) as load_trials would return them."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    per_task = len(PROTOCOLS) * len(SEEDS) * len(TRIALS)
    n_tasks = -(-n // per_task)
    task = np.repeat(np.arange(n_tasks), per_task)[:n]
    combo = np.tile(np.arange(per_task), n_tasks)[:n]
    seed_i, rest = np.divmod(combo, len(TRIALS) * len(PROTOCOLS))
    trial, prot_i = np.divmod(rest, len(PROTOCOLS))
    protocol = np.array(PROTOCOLS)[prot_i]
    infra = rng.random(n) < 0.01
    reward = np.where(infra, np.nan, (rng.random(n) < 0.5).astype(float))
    store = np.where(trial == 0, 0, 3)
    injections = np.where((protocol == "no_coord") | (trial == 0), 0, 2)
    task_id = pd.array(np.char.zfill(task.astype(str), 6), dtype="str")
    first = np.where((protocol == "pull") & (trial == 0), "b" * 64, "a" * 64)
    return pd.DataFrame({
        "schema_version": pd.array(["1"] * n, dtype="str"),
        "benchmark": pd.array(["tau2/retail"] * n, dtype="str"),
        "model": pd.array(["m"] * n, dtype="str"),
        "protocol": pd.array(protocol, dtype="str"),
        "seed": pd.array(np.array(SEEDS)[seed_i], dtype="Int64"),
        "task_id": task_id,
        "trial": trial.astype(np.int64),
        "reward": reward,
        "termination_reason": pd.array(np.where(infra, "harness_error", "user_stop"), dtype="str"),
        "infrastructure_error": infra,
        "store_events_at_start": pd.array(store, dtype="Int64"),
        "injections": pd.array(injections, dtype="Int64"),
        "first_request_sha256": pd.array(first, dtype="str"),
        "extra": np.full(n, None, dtype=object),
        "source": pd.array(["synthetic.jsonl"] * n, dtype="str"),
        "line": np.arange(1, n + 1, dtype=np.int64),
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args()
    if args.tiny:
        args.n, args.repeat = 2_000, 1
    from noisefloor.pipelines import floor_run

    frame = trial_frame(args.n)
    times, cpu = [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        run = floor_run(frame)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    nf = run.noise_floor
    print(json.dumps({"rows": len(frame), "seconds_best": min(times), "seconds": times,
                      "cpu_seconds_best": min(cpu),
                      "null_contrasts": len(run.null_contrasts.table),
                      "skipped": len(run.skipped), "floor": nf.floor,
                      "floor_contrast": nf.floor_contrast, "envelope": nf.envelope}, indent=1))


if __name__ == "__main__":
    main()
