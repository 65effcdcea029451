"""``noise_floor(pooling="random", tau_method=...)`` pinned to R metafor, and its invariants."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from noisefloor.floor.estimate import noise_floor
from noisefloor.floor.random_effects import random_effects_floor

#: Three seeds of one clean contrast (invented counts; with three seeds Paule-Mandel differs
#: from DerSimonian-Laird, with two it is the same estimate).
THREE_SEEDS = pd.DataFrame({"contrast": ["a-b"] * 3, "clean": [True] * 3, "seed": [1, 2, 3],
                            "wins": [21, 13, 30], "losses": [11, 13, 8], "ties": [68, 74, 62]})

# R: gv <- function(w,l,t){n<-w+l+t; pw<-w/n; pl<-l/n; (pw+pl-(pw-pl)^2)/n}
#    W <- c(21,13,30); L <- c(11,13,8); T <- c(68,74,62); y <- (W-L)/(W+L+T); v <- gv(W,L,T)
#    r <- metafor::rma(yi=y, vi=v, method=M, level=LEVEL, control=list(tol=1e-12))
#    c(r$b, r$ci.lb, r$ci.ub, r$tau2, r$pval)
METAFOR = {
    ("dl", 0.90): (0.104534067419442211, -0.000546050837888001, 0.209614185676772424,
                   0.009245652173913042, 0.101775537211710954),
    ("dl", 0.99): (0.10453406741944221, -0.06002066462031050, 0.26908879945919495,
                   0.00924565217391304, 0.10177553721171095),
    ("pm", 0.90): (0.104518417703462541, -0.000180655864681467, 0.209217491271606548,
                   0.009157071881240713, 0.100586798207596265),
    ("pm", 0.99): (0.10451841770346254, -0.05943960101159962, 0.26847643641852470,
                   0.00915707188124071, 0.10058679820759626),
}


@pytest.mark.parametrize("method, level", sorted(METAFOR))
def test_pooled_row_is_metafor(method, level):
    f = noise_floor(THREE_SEEDS, pooling="random", tau_method=method, confidence=level)
    row = f.table[f.table["level"] == "pooled"].iloc[0]
    got = (row["gap"], row["ci_low"], row["ci_high"], row["tau"] ** 2, row["p_value"])
    # DL is closed-form (1e-12); PM is iterated by statsmodels (agrees with metafor to ~1e-9)
    assert got == pytest.approx(METAFOR[method, level], abs=1e-12 if method == "dl" else 1e-8)
    assert f.floor == pytest.approx(METAFOR[method, level][2], abs=1e-8)
    assert (f.pooling, f.tau_method, f.confidence) == ("random", method, level)
    # W/L/T of the pooled row stay the summed counts; per-seed rows are the summed floor's
    assert (int(row["wins"]), int(row["losses"]), int(row["ties"])) == (64, 32, 204)
    summed = noise_floor(THREE_SEEDS, confidence=level)
    seeds = f.table["level"] == "trial"
    pd.testing.assert_frame_equal(f.table[seeds], summed.table[seeds])
    assert f.random_effects is not None and f.to_dict()["random_effects"][0]["k"] == 3


def test_summed_pooling_is_unchanged_and_has_no_random_effects():
    f = noise_floor(THREE_SEEDS)
    assert f.pooling == "summed" and f.random_effects is None
    # R: ci <- prop.test(64, 96, correct=FALSE)$conf.int; (2*ci-1)*96/300
    assert f.floor == pytest.approx(0.16188356854265251, abs=1e-12)


@pytest.mark.parametrize("kwargs, message", [
    ({"pooling": "mixed"}, "pooling must be one of 'summed', 'random'"),
    ({"pooling": "random", "tau_method": "reml"}, "tau_method must be one of 'dl', 'pm'"),
    ({"tau_method": "pm"}, "tau_method='pm' applies to pooling='random'"),
    ({"confidence": 1.0}, "confidence must be strictly between 0 and 1"),
    ({"confidence": 0.0}, "confidence must be strictly between 0 and 1"),
])
def test_bad_options_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        noise_floor(THREE_SEEDS, **kwargs)


def test_one_seed_random_floor_is_nan_with_reason():
    f = noise_floor(THREE_SEEDS.iloc[:1], pooling="random")
    assert math.isnan(f.floor) and "random-effects floor is undefined" in f.reason
    assert "at least two seeds" in f.reason


counts = st.integers(min_value=0, max_value=40)
seed_rows = st.lists(st.tuples(counts, counts, counts).filter(lambda c: c[0] + c[1] >= 1),
                     min_size=2, max_size=4)


def _table(rows) -> pd.DataFrame:
    return pd.DataFrame({"contrast": ["a-b"] * len(rows), "clean": [True] * len(rows),
                         "seed": list(range(1, len(rows) + 1)), "wins": [r[0] for r in rows],
                         "losses": [r[1] for r in rows], "ties": [r[2] for r in rows]})


@settings(max_examples=40, deadline=None)
@given(rows=seed_rows, pooling=st.sampled_from(["summed", "random"]))
# 17 wins, no loss: the Wilson upper end was 1 at 0.80 and 0.90 but 1 - 2e-16 at 0.99
@example(rows=[(1, 0, 0), (1, 0, 0), (15, 0, 0)], pooling="summed")
def test_floor_grows_with_the_level_and_the_interval_holds_the_estimate(rows, pooling):
    t = _table(rows)
    floors = [noise_floor(t, pooling=pooling, confidence=c) for c in (0.80, 0.90, 0.99)]
    defined = [f.floor for f in floors if not math.isnan(f.floor)]
    assert defined == sorted(defined)
    for f in floors:
        p = f.table[f.table["level"] == "pooled"].iloc[0]
        if not math.isnan(p["ci_low"]):
            assert p["ci_low"] - 1e-12 <= p["gap"] <= p["ci_high"] + 1e-12
            assert 0.0 <= p["p_value"] <= 1.0


@settings(max_examples=30, deadline=None)
@given(rows=seed_rows)
def test_random_floor_does_not_depend_on_which_arm_is_written_first(rows):
    t = _table(rows)
    swapped = t.assign(wins=t["losses"], losses=t["wins"], contrast="b-a")
    a, b = noise_floor(t, pooling="random"), noise_floor(swapped, pooling="random")
    assert (math.isnan(a.floor) and math.isnan(b.floor)) or a.floor == pytest.approx(b.floor)
    # and it is random_effects_floor's floor (the module noise_floor delegates to)
    ref = random_effects_floor(t).floor
    assert (math.isnan(a.floor) and math.isnan(ref)) or a.floor == pytest.approx(ref)


@pytest.mark.parametrize("call", ["floor_run", "contrast_run", "audit_run"])
@pytest.mark.parametrize("level", [0.0, 1.0, 1.2, -0.5])
def test_pipelines_refuse_a_level_outside_0_1_before_reading(call, level):
    from noisefloor import pipelines

    args = {"floor_run": ("no-such-log",), "contrast_run": ("no-such-log", "a", "b"),
            "audit_run": ()}[call]
    with pytest.raises(ValueError, match="confidence must be strictly between 0 and 1"):
        getattr(pipelines, call)(*args, confidence=level)


def test_audit_run_pooling_is_one_call(tmp_path):
    from noisefloor.pipelines import audit_run

    r = audit_run(pooling="random", tau_method="pm", confidence=0.9)
    assert (r.pooling, r.confidence, r.noise_floor.tau_method) == ("random", 0.9, "pm")
    d = r.to_dict()
    assert (d["pooling"], d["confidence"], d["tau_method"]) == ("random", 0.9, "pm")
    with pytest.raises(ValueError, match="pooling must be one of"):
        audit_run(pooling="median")
