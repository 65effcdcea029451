"""Frame level: time order, coordination-active pass^k rounds, and monitor_trials end to end."""

from __future__ import annotations

import json
import math
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.logs import load_trials
from noisefloor.monitoring import (
    coordination_active_pass_hat_k_rounds,
    monitor_trials,
    order_trials,
)
from noisefloor.stats.monitor import tabular_cusum

UTC = timezone.utc  # datetime.UTC needs Python 3.11

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "monitor"


def _frame(rows, **const):
    df = pd.DataFrame(rows)
    for key, value in const.items():
        df[key] = value
    return df


# --------------------------------------------------------------------------- order_trials


def test_file_order_without_time_stamps():
    df = pd.DataFrame({"trial": [2, 0, 1], "extra": [None, {"x": 1}, None]})
    assert order_trials(df) is df


def test_time_stamps_order_records_stably():
    stamps = ["2026-01-02T00:00:00+00:00", "2026-01-01T12:00:00", "2026-01-02T01:00:00+01:00"]
    df = pd.DataFrame({"trial": [0, 1, 2], "extra": [{"timestamp": t} for t in stamps]})
    # third is 2026-01-02T00:00Z, equal to the first: the tie keeps file order
    assert order_trials(df)["trial"].tolist() == [1, 0, 2]


def test_partial_or_bad_time_stamps_name_the_line():
    df = pd.DataFrame(
        {
            "trial": [0, 1],
            "extra": [{"timestamp": "2026-01-01"}, {}],
            "source": "a.jsonl",
            "line": [1, 2],
        }
    )
    with pytest.raises(ValueError, match=r"a.jsonl:2: extra.timestamp is missing"):
        order_trials(df)
    df["extra"] = [{"timestamp": "2026-01-01"}, {"timestamp": "yesterday"}]
    with pytest.raises(ValueError, match=r"a.jsonl:2: extra.timestamp = 'yesterday' is not an ISO"):
        order_trials(df)


# --------------------------------------------------------------------------- rounds


def test_rounds_pass_hat_k_hand_computed():
    # Two tasks, n = 3 coordination-active trials per round, k = 2.
    # Round 0: a has 2/3 successes -> C(2,2)/C(3,2) = 1/3; b has 3/3 -> 1.  Mean 2/3.
    # Round 1: a 3/3 -> 1; b 1/3 -> 0.  Mean 1/2.  One trial of a is left pending.
    rewards = {"a": [1, 0, 1, 1, 1, 1, 0], "b": [1, 1, 1, 0, 1, 0]}
    rows = []
    for i in range(7):
        for t in ("a", "b"):
            if i < len(rewards[t]):
                rows.append({"task_id": t, "reward": float(rewards[t][i])})
    df = _frame(rows, infrastructure_error=False, store_events_at_start=2)
    res = coordination_active_pass_hat_k_rounds(df, k=2, trials_per_round=3)
    assert res.values == pytest.approx((2 / 3, 1 / 2))
    assert res.tasks == ("a", "b") and res.n_pending == 1
    # the second round is completed by b's 6th trial (row 11), the later of the two blocks
    assert res.rows == (5, 11)
    assert res.to_frame()["pass_hat_k"].tolist() == pytest.approx([2 / 3, 1 / 2])


def test_rounds_exclusions_are_counted_not_silent():
    df = pd.DataFrame(
        {
            "task_id": ["a", "a", "a", "a", "a", "b"],
            "reward": [1.0, 1.0, float("nan"), 0.0, 1.0, 1.0],
            "infrastructure_error": [False, True, False, False, False, False],
            "store_events_at_start": pd.array([0, 3, 3, pd.NA, 2, 1], dtype="Int64"),
        }
    )
    res = coordination_active_pass_hat_k_rounds(df, tasks=["a"])
    assert res.excluded == {
        "infrastructure_error": 1,
        "reward_null": 1,
        "store_unknown": 1,
        "store_empty": 1,
        "not_golden": 1,
    }
    assert res.values == (1.0,)
    failing = coordination_active_pass_hat_k_rounds(df, tasks=["a"], infrastructure_errors="fail")
    assert failing.values == (0.0, 1.0) and failing.excluded["infrastructure_error"] == 0


def test_rounds_reasons_and_errors():
    df = _frame(
        [{"task_id": "a", "reward": 1.0}], infrastructure_error=False, store_events_at_start=0
    )
    assert "no coordination-active trial" in coordination_active_pass_hat_k_rounds(df).reason
    short = coordination_active_pass_hat_k_rounds(df.assign(store_events_at_start=1), trials_per_round=2)
    assert short.values == () and "'a' has 1" in short.reason
    with pytest.raises(ValueError, match="k must be at most trials_per_round"):
        coordination_active_pass_hat_k_rounds(df, k=2, trials_per_round=1)
    with pytest.raises(ValueError, match="lacks column"):
        coordination_active_pass_hat_k_rounds(df.drop(columns="reward"))
    with pytest.raises(TypeError, match="not a single string"):
        coordination_active_pass_hat_k_rounds(df, tasks="a")


@settings(max_examples=40, deadline=None)
@given(outcomes=st.lists(st.booleans(), min_size=12, max_size=12), k=st.integers(1, 2))
def test_pass_hat_k_rounds_bounded_and_non_increasing_in_k(outcomes, k):
    df = _frame(
        [{"task_id": f"t{i % 2}", "reward": float(o)} for i, o in enumerate(outcomes)],
        infrastructure_error=False,
        store_events_at_start=1,
    )
    lo = coordination_active_pass_hat_k_rounds(df, k=k, trials_per_round=3).values
    hi = coordination_active_pass_hat_k_rounds(df, k=k + 1, trials_per_round=3).values
    assert len(lo) == len(hi) == 2
    assert all(0.0 <= b <= a <= 1.0 for a, b in zip(lo, hi))


# --------------------------------------------------------------------------- monitor_trials


def _synthetic(n_rounds, p_success, rng, *, injections=None, degrade_from=None):
    rows = []
    for r in range(n_rounds):
        p = p_success if degrade_from is None or r < degrade_from else 0.05
        for t in range(20):
            rows.append(
                {
                    "task_id": f"t{t}",
                    "trial": 1,
                    "seed": r,
                    "reward": float(rng.random() < p),
                    "injections": int(rng.poisson(2.77)) if injections is None else injections,
                }
            )
    return _frame(
        rows, infrastructure_error=False, store_events_at_start=2, protocol="intercept", extra=None
    )


def test_monitor_r1_fires_at_the_round_of_the_shift():
    rng = np.random.default_rng(8)
    base = _synthetic(10, 0.6, rng)
    mon = _synthetic(12, 0.6, rng, degrade_from=8)
    rep = monitor_trials(mon, base, sigma=0.08, cusum_h=4.0, window=40)
    r1 = [a for a in rep.alarms if a.rule == "R1"]
    # pass^1 falls from ~0.6 to ~0.05 at round 8: a drop of ~7 sigma, caught on that round
    assert r1 and r1[0].index == 8 and r1[0].direction == "lower"
    assert r1[0].row == mon.index[8 * 20 + 19]  # the last trial of round 8 completed it
    assert rep.r1.sigma_source == "parameter"
    assert rep.r1.target == pytest.approx(np.mean(rep.r1_baseline_rounds.values))


def test_monitor_quiet_on_a_stream_drawn_from_the_baseline():
    rng = np.random.default_rng(9)
    base = _synthetic(30, 0.6, rng)
    mon = _synthetic(12, 0.6, rng)
    rep = monitor_trials(mon, base, cusum_h=5.0, window=100)
    assert rep.alarms == ()
    assert rep.r1.sigma_source == "sd of 30 baseline rounds (ddof 1)"
    assert rep.reasons == {"R3": "no trial carries extra.coordination_keys"}


def test_monitor_reasons_instead_of_silent_results():
    rng = np.random.default_rng(1)
    base = _synthetic(1, 0.6, rng)
    rep = monitor_trials(_synthetic(2, 0.6, rng), base)
    assert rep.r1 is None and "fewer than two rounds" in rep.reasons["R1"]
    flat = _synthetic(3, 1.0, rng)
    assert "do not vary" in monitor_trials(flat, flat).reasons["R1"]
    empty_store = base.assign(store_events_at_start=0)
    assert "baseline: no coordination-active" in monitor_trials(base, empty_store).reasons["R1"]
    no_inj = base.assign(injections=pd.array([pd.NA] * len(base), dtype="Int64"))
    rep = monitor_trials(no_inj, base, sigma=0.1)
    assert rep.r2 is None and rep.excluded["R2"]["injections_null"] == len(base)


def test_monitor_rejects_mixed_protocols_and_bad_call_records():
    rng = np.random.default_rng(2)
    base = _synthetic(3, 0.6, rng)
    mixed = pd.concat([base, base.assign(protocol="pull")], ignore_index=True)
    with pytest.raises(ValueError, match="holds 2 protocols .*choose one with protocol="):
        monitor_trials(mixed, base)
    rep = monitor_trials(mixed, mixed, protocol="pull", sigma=0.1)
    assert rep.n_trials == len(base) and rep.n_baseline_trials == len(base)
    # a protocol the baseline does not hold would filter it to nothing: refused, not monitored
    with pytest.raises(ValueError, match="protocol='pull' matches no trial of the baseline "
                                         r"\(it holds intercept\)"):
        monitor_trials(mixed, base, protocol="pull", sigma=0.1)
    bad = base.assign(
        extra=[{"coordination_keys": [{"key": "k"}]}] * len(base),
        source="m.jsonl",
        line=range(1, len(base) + 1),
    )
    with pytest.raises(
        ValueError, match=r'm.jsonl:1: extra.coordination_keys\[0\] .*"fingerprint"'
    ):
        monitor_trials(bad, base)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def logs():
    return (load_trials(FIXTURES / "monitored.jsonl"), load_trials(FIXTURES / "baseline.jsonl"))


def test_fixture_logs_raise_each_alarm_where_they_were_built_to(logs):
    mon, base = logs
    rep = monitor_trials(mon, base, window=30)
    first = {}
    for a, p in zip(rep.alarms, rep.provenance):
        first.setdefault(a.rule, (a, p))
    # R1: success drops from round 6 (rows 120-139); round 6 is completed by g10's trial 1
    a, p = first["R1"]
    assert (a.index, p["line"], p["task_id"], p["trial"]) == (6, 140, "g10", 1)
    # the target and sigma are the baseline rounds' mean and SD
    assert a.threshold == pytest.approx(1.5 * np.std(rep.r1_baseline_rounds.values, ddof=1))
    # R2: injections triple from row 160; with N = 30 the rolling 95th percentile crosses
    # 1.5 x the baseline's (6 -> threshold 9) at row 167
    a, p = first["R2"]
    assert rep.r2.baseline_quantile == 6.0 and rep.r2.threshold == 9.0
    assert (a.index, p["line"]) == (167, 168)
    # R3: one {"amount": 10} / {"amount": 10.0} pair in round 10 is 2 of 418 calls (0.48 %,
    # quiet); the second pair (round 11, g02 trial 1, row 223) makes 4 of 452 (0.88 %)
    assert rep.r3.rate[207] == pytest.approx(2 / 418)
    a, p = first["R3"]
    assert (a.index, p["line"], p["task_id"]) == (223, 224, "g02")
    assert a.statistic == pytest.approx(4 / 452)
    # the baseline monitored against itself stays quiet with the textbook h = 5 and N = 100; with
    # N = 30 the window's 95th percentile is noisy enough for one false R2 onset (row 143) --
    # the small-window weakness measured in benchmarks/monitor_alarms.py
    assert monitor_trials(base, base, window=100, cusum_h=5.0).alarms == ()
    noisy = monitor_trials(base, base, window=30, cusum_h=5.0).alarms
    assert [(a.rule, a.index) for a in noisy] == [("R2", 143)]


def test_time_stamps_restore_the_order_of_shuffled_lines(logs, tmp_path):
    mon, base = logs
    lines = (FIXTURES / "monitored.jsonl").read_text().splitlines()
    start = datetime(2026, 11, 1, tzinfo=UTC)
    stamped = []
    for i, line in enumerate(lines):
        rec = json.loads(line)
        rec["extra"]["timestamp"] = (start + timedelta(minutes=7 * i)).isoformat()
        stamped.append(json.dumps(rec))
    random.Random(0).shuffle(stamped)
    path = tmp_path / "shuffled.jsonl"
    path.write_text("\n".join(stamped) + "\n")
    ordered = monitor_trials(mon, base, window=30)
    shuffled = monitor_trials(load_trials(path), base, window=30)
    assert shuffled.order == "extra.timestamp" and ordered.order == "file order"
    assert [(a.rule, a.index, a.statistic) for a in shuffled.alarms] == [
        (a.rule, a.index, a.statistic) for a in ordered.alarms
    ]
    assert [p["position"] for p in shuffled.provenance] == [
        p["position"] for p in ordered.provenance
    ]


def test_report_views(logs):
    mon, base = logs
    rep = monitor_trials(mon, base, window=30)
    frame = rep.to_frame()
    assert {
        "rule",
        "index",
        "statistic",
        "threshold",
        "direction",
        "row",
        "position",
        "task_id",
        "trial",
        "source",
        "line",
    } <= set(frame.columns)
    assert len(frame) == len(rep.alarms)
    d = rep.to_dict()
    assert d["order"] == "file order" and len(d["alarms"]) == len(rep.alarms)
    assert d["r1"]["sigma_source"].startswith("sd of 8 baseline rounds")
    json.dumps(d, default=str)  # JSON-ready apart from NaN handling
    assert math.isnan(d["r2"]["statistic"][0])


def test_floor_result_supplies_sigma(logs):
    import dataclasses

    from noisefloor.floor.estimate import NoiseFloor

    mon, base = logs
    fields = {f.name: math.nan for f in dataclasses.fields(NoiseFloor)}
    try:
        floor = NoiseFloor(**{**fields, "null_gap_sd": 0.05})
    except TypeError:  # the floor's signature changed: build the duck-typed equivalent
        pytest.skip("NoiseFloor cannot be built field by field")
    rep = monitor_trials(mon, base, sigma=floor, window=30)
    assert rep.r1.sigma == 0.05 and rep.r1.sigma_source == "null_gap_sd of NoiseFloor"
    direct = tabular_cusum(rep.r1_rounds.values, target=rep.r1.target, sigma=0.05, h=1.5)
    assert [a.index for a in rep.r1.alarms] == [a.index for a in direct.alarms]


def test_latest_and_blocks_policies_differ_when_a_task_activates_late():
    # task a is coordination-active from the start (4 trials: 1, 1, 0, 0), b only at the end.
    df = _frame(
        [{"task_id": "a", "reward": r} for r in (1.0, 1.0, 0.0, 0.0)]
        + [{"task_id": "b", "reward": 0.0}],
        infrastructure_error=False,
        store_events_at_start=1,
    )
    latest = coordination_active_pass_hat_k_rounds(df)
    blocks = coordination_active_pass_hat_k_rounds(df, rounds="blocks")
    # latest: one round at b's trial, with a's newest trial (0) -> (0 + 0) / 2; 3 passed over
    assert latest.values == (0.0,) and latest.rows == (4,) and latest.n_skipped == 3
    # blocks: a's first trial pairs with b's first -> (1 + 0) / 2; 3 of a's trials wait
    assert blocks.values == (0.5,) and blocks.rows == (4,) and blocks.n_pending == 3
    assert blocks.n_skipped == 0 and latest.n_pending == 0
    with pytest.raises(ValueError, match="rounds must be one of"):
        coordination_active_pass_hat_k_rounds(df, rounds="newest")


def test_monitor_rejects_a_baseline_of_another_protocol():
    rng = np.random.default_rng(3)
    base = _synthetic(3, 0.6, rng)
    other = base.assign(protocol="no_coord")
    with pytest.raises(ValueError, match="protocol no_coord but the baseline is protocol intercept"):
        monitor_trials(other, base, sigma=0.1)


def test_monitor_rejects_a_baseline_of_another_benchmark():
    rng = np.random.default_rng(4)
    base = _synthetic(3, 0.6, rng).assign(benchmark="tau2/retail")
    with pytest.raises(ValueError, match="benchmark tau2/airline but the baseline is benchmark "
                                         "tau2/retail"):
        monitor_trials(base.assign(benchmark="tau2/airline"), base, sigma=0.1)


def test_monitor_r1_reasons_say_why_nothing_was_usable():
    rng = np.random.default_rng(5)
    base = _synthetic(3, 0.6, rng)
    # every baseline trial an infrastructure error: not an empty store, and the reason says so
    infra = base.assign(infrastructure_error=True, reward=np.nan)
    reason = monitor_trials(base, infra, sigma=0.1).reasons["R1"]
    assert reason.startswith("baseline: no coordination-active trial")
    assert f"left out: {len(base)} infrastructure_error" in reason
    # a baseline whose tasks never occur in the monitored logs
    other = base.assign(task_id="zz" + base["task_id"].astype(str))
    reason = monitor_trials(base, other, sigma=0.1).reasons["R1"]
    assert "none of the" in reason and "golden task(s) ('zz" in reason
    assert reason.endswith("no golden task occurs in the monitored logs at all")
