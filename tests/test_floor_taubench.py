"""The re-runs floor of tau-bench's published gpt-4o airline trajectories, derived by hand.

``../shared/data/tau-bench/gpt-4o-airline.json`` holds 50 tasks x 4 trials of one configuration,
so its null contrasts are the six re-run pairs (trial i against trial j). This test counts
their wins, losses and ties straight from the JSON with plain Python, maps the Wilson score
interval of W / (W + L) onto the gap (DESIGN.md; Kaliyev & Maryanskyy 2026, the paper's interval),
and checks that noisefloor's floor is the largest excursion, 17.2 pp, from trial 0 vs trial 1
(9 wins, 10 losses, 31 ties).
"""

from __future__ import annotations

import itertools
import json
import math

import pytest

from noisefloor.logs import load_trials
from noisefloor.pipelines import floor_run

Z95 = 1.959963984540054  # standard normal 0.975 quantile


def _wilson(k: int, n: int) -> tuple[float, float]:
    # Wilson (1927): (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
    p = k / n
    centre = p + Z95**2 / (2 * n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n))
    return (centre - half) / (1 + Z95**2 / n), (centre + half) / (1 + Z95**2 / n)


def test_tau_bench_reruns_floor_by_hand(shared_data):
    path = shared_data / "tau-bench" / "gpt-4o-airline.json"
    success = {}
    for rec in json.loads(path.read_text()):
        success[(rec["task_id"], rec["trial"])] = abs(rec["reward"] - 1.0) <= 1e-6
    tasks = sorted({t for t, _ in success})
    assert len(tasks) == 50
    excursions = {}
    for i, j in itertools.combinations(range(4), 2):
        wins = sum(success[(t, i)] and not success[(t, j)] for t in tasks)
        losses = sum(success[(t, j)] and not success[(t, i)] for t in tasks)
        lo, hi = _wilson(wins, wins + losses)
        scale = (wins + losses) / len(tasks)
        gap_lo, gap_hi = (2 * lo - 1) * scale, (2 * hi - 1) * scale
        excursions[(i, j)] = max(gap_hi, -gap_lo)
    assert (wins, losses) == (7, 8)  # trial 2 vs trial 3, the last pair
    worst = max(excursions, key=excursions.get)
    assert worst == (0, 1)
    assert round(100 * excursions[worst], 1) == 17.2

    result = floor_run(load_trials([path])).noise_floor
    assert result.floor == pytest.approx(excursions[worst], abs=1e-9)
    assert result.envelope == pytest.approx(excursions[worst], abs=1e-9)
    assert result.basis == "null"  # no clean contrast: one configuration, no request hashes
