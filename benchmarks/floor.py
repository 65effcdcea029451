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

The peer, timed the same way on the same frame in the same run, is the same sign tests and floor
computed directly with pandas and scipy, the way a user would without noisefloor: infrastructure
errors dropped, success as a reward within 1e-6 of 1, the trial-0 protocol pairs and the re-runs
of ``no_coord`` (the null contrasts this layout makes, known in advance rather than certified
from the records) paired by a pandas ``unstack`` and counted by a ``groupby``, then
``scipy.stats.binomtest`` and statsmodels' Wilson interval per row and per contrast's summed
counts (``benchmarks/per_call.py``'s peer of ``noise_floor``), the interval mapped to the gap,
the floor the largest bound of the clean pooled contrasts and the envelope of all. Its W/L/T,
p-values, floor and envelope are checked against ``floor_run``'s and the largest difference is
printed; the ratio is noisefloor's best CPU over the peer's best CPU (above 1: noisefloor is
slower). What noisefloor does beyond the peer is the certification of every candidate contrast
from the records (the store, the injections, the first requests) and the checks of the frame.

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


def direct_floor(frame: pd.DataFrame) -> dict:
    """The peer: W/L/T of the layout's null contrasts, their sign tests, the floor and envelope,
    with pandas and scipy directly (no certification, no checks)."""
    import pandas as pd
    from per_call import bare_floor

    ok = frame[~frame["infrastructure_error"]]
    success = ((ok["reward"] - 1.0).abs() <= 1e-6).astype(float)
    wide = success.set_axis(pd.MultiIndex.from_arrays(
        [ok["seed"], ok["trial"], ok["task_id"], ok["protocol"]])).unstack("protocol")
    trial0 = wide.xs(0, level="trial")
    pairs = {("intercept", "no_coord"): True, ("intercept", "pull"): False,
             ("no_coord", "pull"): False}
    rows: list[dict] = []

    def count(name: str, clean: bool, a: pd.Series, b: pd.Series) -> None:
        both = pd.concat([a, b], axis=1, keys=["a", "b"]).dropna()
        d = both["a"] - both["b"]
        by = pd.DataFrame({"wins": d > 0, "losses": d < 0, "ties": d == 0}).groupby(level="seed")
        rows.extend({"contrast": name, "clean": clean, **r}
                    for r in by.sum().reset_index().to_dict("records"))

    for (a, b), clean in pairs.items():
        count(f"{a}-{b}", clean, trial0[a], trial0[b])
    reruns = wide["no_coord"].unstack("trial")
    count("no_coord[t0]-no_coord[t1]", True, reruns[0], reruns[1])
    table = pd.DataFrame(rows).sort_values(["contrast", "seed"], ignore_index=True)
    tests = bare_floor(table)
    pooled = table.groupby("contrast", sort=False)[["wins", "losses", "ties"]].sum()
    bound = {}
    for (name, c), (_, (lo, hi)) in zip(pooled.iterrows(), tests[len(table):]):
        scale = (c["wins"] + c["losses"]) / (c["wins"] + c["losses"] + c["ties"])
        bound[name] = max(abs((2 * lo - 1) * scale), abs((2 * hi - 1) * scale))
    bounds = pd.Series(bound)
    is_clean = table.groupby("contrast", sort=False)["clean"].first()
    return {"table": table, "p_values": [t[0] for t in tests],
            "floor": float(bounds[is_clean].max()), "envelope": float(bounds.max())}


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

    def best_of(fn):
        """The last result of ``repeat`` runs of ``fn``, their wall and CPU seconds."""
        times, cpu = [], []
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            out = fn()
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        return out, times, cpu

    warm = trial_frame(1200)  # first calls import and set up: one untimed call of each first
    floor_run(warm)
    direct_floor(warm)
    run, times, cpu = best_of(lambda: floor_run(frame))
    peer, peer_times, peer_cpu = best_of(lambda: direct_floor(frame))
    nf = run.noise_floor
    print(json.dumps({"rows": len(frame), "seconds_best": min(times), "seconds": times,
                      "cpu_seconds_best": min(cpu),
                      "null_contrasts": len(run.null_contrasts.table),
                      "skipped": len(run.skipped), "floor": nf.floor,
                      "floor_contrast": nf.floor_contrast, "envelope": nf.envelope}, indent=1))
    # the peer's counts, p-values, floor and envelope against floor_run's
    cols = ["contrast", "seed", "wins", "losses", "ties"]
    ours = run.null_contrasts.table[cols].astype({"seed": "int64"}).sort_values(
        ["contrast", "seed"], ignore_index=True)
    same_rows = ours.astype(str).equals(peer["table"][cols].astype(str))
    tests = nf.to_frame()
    key = tests["contrast"] + "/" + tests["seed"].astype("string").fillna("pooled")
    p_ours = dict(zip(key, tests["p_value"]))
    peer_keys = ([f"{c}/{s}" for c, s in zip(peer["table"]["contrast"], peer["table"]["seed"])]
                 + [f"{c}/pooled" for c in peer["table"]["contrast"].unique()])
    diff = max([abs(p_ours[k] - p) for k, p in zip(peer_keys, peer["p_values"])]
               + [abs(nf.floor - peer["floor"]), abs(nf.envelope - peer["envelope"])])
    print(f"peer: pandas unstack/groupby + scipy binomtest + statsmodels Wilson on the same "
          f"frame: {min(peer_cpu):.3f} s CPU, {min(peer_times):.3f} s wall (best of {args.repeat})")
    print(f"peer agrees: W/L/T rows {'identical' if same_rows else 'DIFFER'} "
          f"({len(ours)} rows); largest difference of p-values, floor and envelope {diff:.1e}")
    print(f"ratio noisefloor / peer: CPU {min(cpu) / max(min(peer_cpu), 1e-9):.2f}x, "
          f"wall {min(times) / max(min(peer_times), 1e-9):.2f}x")

if __name__ == "__main__":
    main()
