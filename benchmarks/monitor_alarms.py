"""Runtime alarms (R1-R3): operating characteristics and speed. Prints figures; asserts nothing.

    python benchmarks/monitor_alarms.py

1. R1: simulated two-sided ARL of the tabular CUSUM (k = 0.5) next to Siegmund's approximation,
   in control and after shifts, for the paper's h = 1.5 and the textbook h = 4, 5.
2. R2: share of baseline-drawn streams (1,000 trials, negative binomial with the paper's mean
   of 2.77 injections per trial) that raise a false alarm, by window N; and the delay until
   the alarm after the mean doubles.
3. Speed of monitor_trials on a synthetic 100,000-trial frame with two calls per trial, and of
   its peer: the same three alarms computed directly from the same frame in the same run, the
   plainest way with pandas and numpy, without the checks, time ordering, exclusion counts and
   provenance of monitor_trials. R1: a loop over the coordination-active trials
   (``store_events_at_start > 0``, no infrastructure error) that closes a round when every
   golden task (the baseline's coordination-active tasks) has a trial, takes each task's latest
   success, then the two-sided tabular CUSUM (k = 0.5, h = 1.5, restart after an alarm) against
   the baseline rounds' mean and SD; R2: ``Series.rolling(N).quantile(0.95)`` of the injection
   counts against 1.5 x the baseline's ``numpy.quantile``; R3: the calls exploded into
   (fingerprint, key) rows, first calls kept, a key's second member counting 2 colliding calls
   and every later one 1, cumulated per trial. An alarm is the first of a run of rows above the
   threshold. Both the alarms (rule and row) and the statistics are compared, and the largest
   difference is printed; the ratio is monitor_trials' time over the peer's, CPU and wall
   (above 1: monitor_trials is slower).
"""

from __future__ import annotations

import argparse
import time

# numpy, pandas and noisefloor are imported where they are used, so that --help answers at once

#: Sizes: simulated CUSUM chains per cell, streams per window, trials in the speed frame
#: (``--tiny`` shrinks them to check that the script runs).
SIZES = {"chains": 20_000, "streams": 200, "trials": 100_000}


def nb(rng, size, mean=2.77):
    return rng.negative_binomial(2, 2 / (2 + mean), size)


def r1_table() -> None:
    from noisefloor.stats.monitor import siegmund_arl, simulate_cusum_run_lengths

    print(f"R1  two-sided tabular CUSUM, k = 0.5: ARL (simulated, {SIZES['chains']:,} chains | "
          "Siegmund)")
    print(f"    {'h':>4} " + " ".join(f"{'shift ' + str(s):>18}" for s in (0.0, 1.0, 1.5, 2.0)))
    for h in (1.5, 4.0, 5.0):
        cells = []
        for shift in (0.0, 1.0, 1.5, 2.0):
            rl = simulate_cusum_run_lengths(SIZES["chains"], k=0.5, h=h, shift=shift, rng=1)
            cells.append(f"{rl.mean():8.2f} | {siegmund_arl(shift, k=0.5, h=h):7.2f}")
        print(f"    {h:4.1f} " + " ".join(f"{c:>18}" for c in cells))


def r2_table() -> None:
    import numpy as np

    from noisefloor.stats.monitor import rolling_quantile_monitor

    rng = np.random.default_rng(17)
    base = nb(rng, 5000)
    print(
        "R2  rolling 95th percentile, alarm at >= 1.5 x baseline "
        f"(baseline q95 = {np.quantile(base, 0.95):g})"
    )
    print(
        f"    {'N':>4} {'false-alarm share (1,000-trial streams)':>42}"
        f" {'median delay after 2x':>24}"
    )
    for n in (20, 50, 100, 200):
        streams = [nb(rng, 1000) for _ in range(SIZES["streams"])]
        fa = np.mean([bool(rolling_quantile_monitor(s, base, window=n).alarms) for s in streams])
        delays = []
        for _ in range(SIZES["streams"]):
            s = np.concatenate([nb(rng, 500), 2 * nb(rng, 500)])
            after = [
                a.index
                for a in rolling_quantile_monitor(s, base, window=n).alarms
                if a.index >= 500
            ]
            delays.append(after[0] - 500 if after else np.nan)
        print(f"    {n:4d} {fa:42.3f} {np.nanmedian(delays):24.0f}")


def speed() -> None:
    import numpy as np
    import pandas as pd

    from noisefloor.monitoring import monitor_trials

    rng = np.random.default_rng(3)
    n, tasks = SIZES["trials"], 50
    frame = pd.DataFrame(
        {
            "task_id": [f"t{i % tasks}" for i in range(n)],
            "protocol": "intercept",
            "reward": (rng.random(n) < 0.5).astype(float),
            "infrastructure_error": False,
            "store_events_at_start": pd.array(rng.integers(0, 3, n), dtype="Int64"),
            "injections": pd.array(nb(rng, n), dtype="Int64"),
            "extra": [
                {
                    "coordination_keys": [
                        {"key": f"k{2 * i}", "fingerprint": f"f{2 * i}"},
                        {"key": f"k{2 * i + 1}", "fingerprint": f"f{2 * i + 1}"},
                    ]
                }
                for i in range(n)
            ],
        }
    )
    base = frame.iloc[: n // 5]  # the first fifth (20,000 of 100,000) is the baseline
    monitor_trials(frame.iloc[:1000], frame.iloc[:400], window=50)  # untimed first calls
    direct_alarms(frame.iloc[:1000], frame.iloc[:400], window=50)
    t0, c0 = time.perf_counter(), time.process_time()
    rep = monitor_trials(frame, base, window=200)
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    peer = direct_alarms(frame, base, window=200)
    pt, pc = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"speed: monitor_trials on {n:,} trials ({2 * n:,} calls, N = 200): {dt:.2f} s "
        f"({dt / n * 1e6:.1f} us per trial), {dc:.2f} s CPU; {len(rep.alarms)} alarm(s)"
    )
    r1, r2, r3 = rep.r1, rep.r2, rep.r3
    assert r1 is not None and r2 is not None and r3 is not None, rep.reasons  # all three run
    ours = sorted((a.rule, int(a.row)) for a in rep.alarms)
    same = ours == peer["alarms"]
    diff = max(
        float(np.nanmax(np.abs(np.array(r1.c_plus) - peer["c_plus"]), initial=0.0)),
        float(np.nanmax(np.abs(np.array(r1.c_minus) - peer["c_minus"]), initial=0.0)),
        float(np.nanmax(np.abs(np.array(r2.statistic) - peer["r2"]), initial=0.0)),
        float(np.nanmax(np.abs(np.array(r3.rate) - peer["r3"]), initial=0.0)),
    )
    print(
        f"peer: the same alarms directly with pandas/numpy (a loop for the R1 rounds, "
        f"rolling quantile, exploded calls): {pt:.2f} s, {pc:.2f} s CPU; alarms "
        f"{'identical' if same else 'DIFFER'} ({len(peer['alarms'])}), largest difference of "
        f"the R1-R3 statistics {diff:.1e}"
    )
    print(f"ratio monitor_trials / peer: CPU {dc / max(pc, 1e-9):.2f}x, "
          f"wall {dt / max(pt, 1e-9):.2f}x")
    if not same:
        print(f"  monitor_trials {ours[:10]}\n  peer           {peer['alarms'][:10]}")


def direct_alarms(frame, base, *, window: int) -> dict:
    """The peer of ``monitor_trials`` on a frame in time order with a 0..n-1 index."""
    import numpy as np
    import pandas as pd

    def rising(above: np.ndarray) -> np.ndarray:
        return np.flatnonzero(above & ~np.concatenate([[False], above[:-1]]))

    def active(f):
        return f[(f["store_events_at_start"].fillna(0) > 0) & ~f["infrastructure_error"]]

    def rounds(f, golden: set) -> tuple[np.ndarray, list]:
        values, rows, latest = [], [], {}
        for row, task, reward in zip(f.index, f["task_id"], f["reward"]):
            if task not in golden:
                continue
            latest[task] = abs(reward - 1.0) <= 1e-6
            if len(latest) == len(golden):
                values.append(np.mean(list(latest.values())))
                rows.append(row)
                latest = {}
        return np.array(values), rows

    golden = set(active(base)["task_id"])
    base_values, _ = rounds(active(base), golden)
    values, rows = rounds(active(frame), golden)
    target, sd = base_values.mean(), base_values.std(ddof=1)
    hh, up, lo = 1.5 * sd, target + 0.5 * sd, target - 0.5 * sd
    cp = cm = 0.0
    c_plus, c_minus, alarms = [], [], []
    for x, row in zip(values, rows):
        cp, cm = max(0.0, x - up + cp), max(0.0, lo - x + cm)
        c_plus.append(cp)
        c_minus.append(cm)
        alarms += [("R1", row)] * (int(cp > hh) + int(cm > hh))
        if cp > hh or cm > hh:
            cp = cm = 0.0
    inj = frame["injections"].astype(float)
    stat = inj.rolling(window).quantile(0.95).to_numpy()
    thr = 1.5 * np.quantile(base["injections"].astype(float), 0.95)
    alarms += [("R2", int(frame.index[i])) for i in rising(np.nan_to_num(stat) >= thr)]
    calls = pd.DataFrame([(t, c["fingerprint"], c["key"]) for t, e in enumerate(frame["extra"])
                          for c in e["coordination_keys"]], columns=["trial", "fp", "key"])
    first = calls.drop_duplicates("fp")
    member = first.groupby("key").cumcount().to_numpy()
    add = pd.Series(np.where(member == 1, 2, (member >= 2).astype(int)), index=first["trial"])
    per = pd.DataFrame({"d": 1, "c": add}).groupby(level=0).sum().reindex(range(len(frame)),
                                                                         fill_value=0)
    rate = (per["c"].cumsum() / per["d"].cumsum()).to_numpy()
    alarms += [("R3", int(frame.index[i])) for i in rising(np.nan_to_num(rate) > 0.005)]
    return {"alarms": sorted(alarms), "c_plus": np.array(c_plus), "c_minus": np.array(c_minus),
            "r2": stat, "r3": rate}

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true",
                        help="a tiny size that only checks the script runs (the test suite's)")
    if parser.parse_args(argv).tiny:
        SIZES.update(chains=20, streams=5, trials=2_000)
    r1_table()
    r2_table()
    speed()


if __name__ == "__main__":
    main()
