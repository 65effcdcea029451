"""Runtime alarms (R1-R3): operating characteristics and speed. Prints figures; asserts nothing.

    python benchmarks/monitor_alarms.py

1. R1: simulated two-sided ARL of the tabular CUSUM (k = 0.5) next to Siegmund's approximation,
   in control and after shifts, for the paper's h = 1.5 and the textbook h = 4, 5.
2. R2: share of baseline-drawn streams (1,000 trials, negative binomial with the paper's mean
   of 2.77 injections per trial) that raise a false alarm, by window N; and the delay until
   the alarm after the mean doubles.
3. Speed of monitor_trials on a synthetic 100,000-trial frame with two calls per trial.
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
    t0 = time.perf_counter()
    rep = monitor_trials(frame, base, window=200)
    dt = time.perf_counter() - t0
    print(
        f"speed: monitor_trials on {n:,} trials ({2 * n:,} calls, N = 200): {dt:.2f} s "
        f"({dt / n * 1e6:.1f} us per trial); {len(rep.alarms)} alarm(s)"
    )


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
