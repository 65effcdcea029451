"""The array computations of R1 (rounds) and R3 (collisions) against plain per-round and per-call
loops written here as the reference, on small random trial streams."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.monitoring import coordination_active_pass_hat_k_rounds, monitor_trials
from noisefloor.stats.monitor import collision_rate_from_calls, collision_rate_monitor

TASKS = ["a", "b", "c"]
FINGERPRINTS = [f"f{i}" for i in range(8)]


def reference_rounds(df, golden, n, k, policy, how):
    """Row-by-row: keep usable coordination-active golden trials, close a round when every task
    has n unused trials, average C(c, k) / C(n, k) over the golden tasks in sorted order."""
    pending = {t: [] for t in golden}
    ever = dict.fromkeys(golden, 0)
    values, rows, skipped = [], [], 0
    for pos, (label, row) in enumerate(df.iterrows()):
        infra = bool(row["infrastructure_error"])
        if infra and policy == "exclude":
            continue
        if math.isnan(row["reward"]) and not (infra and policy == "fail"):
            continue
        if pd.isna(row["store_events_at_start"]) or row["store_events_at_start"] <= 0:
            continue
        if row["task_id"] not in pending:
            continue
        success = abs(row["reward"] - 1.0) <= 1e-6 and not infra
        pending[row["task_id"]].append((pos, label, success))
        ever[row["task_id"]] += 1
        while all(len(q) >= n for q in pending.values()):
            block = {t: (q[-n:] if how == "latest" else q[:n]) for t, q in pending.items()}
            ratios = [math.comb(sum(s for _, _, s in block[t]), k) / math.comb(n, k)
                      for t in golden]
            values.append(float(np.mean(ratios)))
            rows.append(max((p, lab) for q in block.values() for p, lab, _ in q)[1])
            if how == "latest":
                skipped += sum(len(q) - n for q in pending.values())
                pending = {t: [] for t in golden}
            else:
                pending = {t: q[n:] for t, q in pending.items()}
    return values, rows, sum(len(q) for q in pending.values()), skipped, ever


def reference_collisions(extras, field="coordination_keys"):
    """Call by call: distinct fingerprints, and per key the number of distinct calls."""
    key_of, members = {}, {}
    distinct = colliding = 0
    n_distinct, n_colliding, rows = [], [], []
    for i, extra in enumerate(extras):
        if not isinstance(extra, dict) or extra.get(field) is None:
            continue
        rows.append(i)
        for call in extra[field]:
            fp, key = call["fingerprint"], call["key"]
            if fp in key_of:
                continue
            key_of[fp] = key
            size = members.get(key, 0)
            members[key] = size + 1
            distinct += 1
            colliding += 2 if size == 1 else (1 if size >= 2 else 0)
        n_distinct.append(distinct)
        n_colliding.append(colliding)
    collisions = tuple((key, size) for key, size in members.items() if size >= 2)
    return rows, n_distinct, n_colliding, collisions


@st.composite
def streams(draw):
    n_rows = draw(st.integers(0, 40))
    key_of = {fp: draw(st.sampled_from(["k0", "k1", "k2", "k3", "k4"])) for fp in FINGERPRINTS}
    calls = st.lists(st.sampled_from(FINGERPRINTS), max_size=3).map(
        lambda fps: {"coordination_keys": [{"key": key_of[f], "fingerprint": f, "tool": "t"}
                                           for f in fps]})
    extra = st.one_of(st.none(), st.just({}), st.just({"coordination_keys": None}), calls, calls)
    rows = [
        {
            "task_id": draw(st.sampled_from(TASKS)),
            "reward": draw(st.sampled_from([1.0, 1.0, 0.0, 0.5, float("nan")])),
            "infrastructure_error": draw(st.booleans()) and draw(st.booleans()),
            "store_events_at_start": draw(st.sampled_from([None, 0, 1, 2, 2])),
            "injections": draw(st.integers(0, 4)),
            "extra": draw(extra),
        }
        for _ in range(n_rows)
    ]
    df = pd.DataFrame(rows, columns=["task_id", "reward", "infrastructure_error",
                                     "store_events_at_start", "injections", "extra"])
    df["reward"] = df["reward"].astype(float)
    df["infrastructure_error"] = df["infrastructure_error"].astype(bool)
    df["store_events_at_start"] = pd.array(df["store_events_at_start"], dtype="Int64")
    df.index = [f"r{i}" for i in range(n_rows)]  # labels that are not positions
    return df


@settings(max_examples=150, deadline=None)
@given(df=streams(), n=st.integers(1, 3), k_minus=st.integers(0, 2),
       policy=st.sampled_from(["exclude", "fail"]), how=st.sampled_from(["latest", "blocks"]),
       golden=st.sampled_from([None, ["a"], ["a", "b"], ["a", "c", "z"]]))
def test_rounds_equal_a_per_round_loop(df, n, k_minus, policy, how, golden):
    k = max(1, n - k_minus)
    res = coordination_active_pass_hat_k_rounds(
        df, k=k, trials_per_round=n, tasks=golden, infrastructure_errors=policy, rounds=how)
    tasks = list(res.tasks)
    if golden is not None:
        assert tasks == sorted(golden)
    values, rows, pending, skipped, ever = reference_rounds(df, tasks, n, k, policy, how)
    assert list(res.values) == values  # exactly: same ratios averaged in the same order
    assert list(res.rows) == rows
    assert (res.n_pending, res.n_skipped) == (pending, skipped)
    assert bool(res.reason) == (not values)
    if not values and tasks and any(ever.values()):
        short = [t for t in tasks if ever[t] < n]
        assert f"{short[0]!r} has {ever[short[0]]}" in res.reason


@settings(max_examples=150, deadline=None)
@given(df=streams(), threshold=st.sampled_from([0.0, 0.005, 0.3]))
def test_collisions_equal_a_per_call_loop(df, threshold):
    rep = monitor_trials(df, df, sigma=0.1, window=3, collision_threshold=threshold)
    rows, n_distinct, n_colliding, collisions = reference_collisions(df["extra"].tolist())
    assert rep.excluded["R3"] == {"no_call_record": len(df) - len(rows)}
    if not rows:
        assert rep.r3 is None and rep.reasons["R3"] == "no trial carries extra.coordination_keys"
        return
    r3 = rep.r3
    assert r3 is not None
    assert list(r3.n_distinct_calls) == n_distinct
    assert list(r3.n_colliding_calls) == n_colliding
    assert r3.collisions == collisions
    rate = [c / d if d else math.nan for c, d in zip(n_colliding, n_distinct)]
    np.testing.assert_array_equal(r3.rate, rate)
    above = [r > threshold for r in rate]  # NaN compares False
    onsets = [df.index[rows[i]] for i, a in enumerate(above) if a and (i == 0 or not above[i - 1])]
    assert [a.row for a in r3.alarms] == onsets
    # the flat form and the per-trial form are one computation
    per_trial = [[(c["fingerprint"], c["key"]) for c in df["extra"].iloc[i]["coordination_keys"]]
                 for i in rows]
    loop = collision_rate_monitor(per_trial, threshold=threshold)
    pd.testing.assert_frame_equal(loop.to_frame(), r3.to_frame())
    assert loop.collisions == r3.collisions
    assert [(a.index, a.statistic) for a in loop.alarms] == [
        (a.index, a.statistic) for a in r3.alarms]


def _one_task(extras):
    n = len(extras)
    return pd.DataFrame({"task_id": "a", "reward": 1.0, "infrastructure_error": False,
                         "store_events_at_start": 1, "injections": 1, "extra": extras,
                         "source": "log.jsonl", "line": range(1, n + 1)})


def test_first_malformed_row_is_named_whichever_its_kind():
    ok = {"coordination_keys": [{"key": "k", "fingerprint": "f"}]}
    not_list = {"coordination_keys": "k"}
    bad_entry = {"coordination_keys": [{"key": "k", "fingerprint": "f"}, {"key": ""}]}
    with pytest.raises(ValueError, match=r"^log\.jsonl:2: extra\.coordination_keys\[1\] must be"):
        monitor_trials(_one_task([ok, bad_entry, not_list]), _one_task([ok]), sigma=0.1)
    with pytest.raises(ValueError, match=r"^log\.jsonl:2: extra\.coordination_keys must be a "
                                         r"list of .* got str$"):
        monitor_trials(_one_task([ok, not_list, bad_entry]), _one_task([ok]), sigma=0.1)


def test_a_call_under_two_keys_is_reported_before_a_later_malformed_call():
    with pytest.raises(ValueError, match=r"^call 'a' is logged with key 'k' at trial 0 and with "
                                         r"key 'j' at trial 1"):
        collision_rate_monitor([[("a", "k")], [("a", "j")], [("b", [])]])
    with pytest.raises(TypeError, match=r"^trial 1, call 0: call id and key must be hashable"):
        collision_rate_monitor([[("a", "k")], [("b", [])], [("a", "j")]])


def test_flat_calls_checked():
    with pytest.raises(ValueError, match="non-decreasing"):
        collision_rate_from_calls([1, 0], ["a", "b"], ["k", "k"], n_trials=2)
    with pytest.raises(ValueError, match="one length"):
        collision_rate_from_calls([0], ["a", "b"], ["k", "k"], n_trials=1)
    res = collision_rate_from_calls([], [], [], n_trials=2)
    assert res.n_distinct_calls == (0, 0) and np.isnan(res.rate).all() and not res.alarms
