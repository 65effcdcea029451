"""Paired contrasts and the coordination-active subset from per-trial records."""

import pandas as pd
import pytest

from noisefloor.floor.active import (
    coordination_active_contrast,
    coordination_active_pass_hat_k,
    coordination_active_tasks,
)
from noisefloor.floor.pairing import paired_contrast


def make(rows):
    return pd.DataFrame(rows, columns=["protocol", "task_id", "trial", "reward"])


def test_counts_and_unpaired_tasks_listed():
    t = make([("a", "1", 0, 1.0), ("a", "2", 0, 0.0), ("a", "3", 0, 1.0), ("a", "9", 0, 1.0),
              ("b", "1", 0, 0.0), ("b", "2", 0, 1.0), ("b", "3", 0, 1.0), ("b", "8", 0, 0.0)])
    c = paired_contrast(t, "a", "b")
    assert (c.wins, c.losses, c.ties, c.n) == (1, 1, 1, 3)
    assert c.tasks_only_a == ("9",) and c.tasks_only_b == ("8",)
    assert c.label == "a-b"


def test_infrastructure_errors_excluded_and_listed():
    t = make([("a", "1", 0, float("nan")), ("a", "2", 0, 1.0), ("b", "1", 0, 1.0), ("b", "2", 0, 0.0)])
    t["infrastructure_error"] = [True, False, False, False]
    c = paired_contrast(t, "a", "b")
    assert c.tasks_excluded == ("1",) and (c.wins, c.losses, c.ties) == (1, 0, 0)
    c_fail = paired_contrast(t, "a", "b", infrastructure_errors="fail")
    assert (c_fail.wins, c_fail.losses) == (1, 1)


def test_rerun_contrast_labels_trials():
    t = make([("x", "1", 0, 1.0), ("x", "1", 1, 0.0)])
    c = paired_contrast(t, "x", "x", trial=0, trial_b=1)
    assert c.label == "x[t0]-x[t1]" and c.wins == 1
    with pytest.raises(ValueError, match="with itself"):
        paired_contrast(t, "x", "x")


def test_errors_name_the_problem():
    t = make([("a", "1", 0, 1.0), ("a", "1", 0, 0.0), ("b", "1", 0, 1.0)])
    with pytest.raises(ValueError, match="more than once"):
        paired_contrast(t, "a", "b")
    with pytest.raises(ValueError, match="no records for protocol 'c'"):
        paired_contrast(t.iloc[2:], "b", "c")
    seeds = make([("a", "1", 0, 1.0), ("b", "1", 0, 1.0)]).assign(seed=[1, 2])
    with pytest.raises(ValueError, match="seed"):
        paired_contrast(seeds, "a", "b")


def _two_trials():
    rows = []
    # tasks 1-4 fail trial 0 in both arms; 5 fails only in p; 6 succeeds in both.
    t0 = {"p": [0, 0, 0, 0, 0, 1], "q": [0, 0, 0, 0, 1, 1]}
    t1 = {"p": [1, 1, 0, 0, 1, 1], "q": [0, 1, 1, 0, 1, 1]}
    for proto in ("p", "q"):
        for i in range(6):
            rows.append((proto, str(i + 1), 0, float(t0[proto][i])))
            rows.append((proto, str(i + 1), 1, float(t1[proto][i])))
    return make(rows)


def test_coordination_active_subset_and_contrast():
    t = _two_trials()
    assert coordination_active_tasks(t, "p", "q") == ("1", "2", "3", "4")
    c = coordination_active_contrast(t, "p", "q")
    assert (c.wins, c.losses, c.ties) == (1, 1, 2) and c.trial_a == 1


def test_coordination_active_by_store():
    t = _two_trials()
    t["store_events_at_start"] = [0 if tr == 0 else (3 if tid in "12" else 0)
                                  for tid, tr in zip(t["task_id"], t["trial"])]
    assert coordination_active_tasks(t, "p", "q", definition="store") == ("1", "2")
    r = coordination_active_pass_hat_k(t[t["protocol"] == "p"], 1)
    assert r.value == 1.0 and r.n_tasks == 2
    with pytest.raises(ValueError, match="store_events_at_start"):
        coordination_active_tasks(_two_trials(), "p", "q", definition="store")


def test_coordination_active_subset_ignores_infrastructure_errors_at_trial_0():
    # Noise-floor paper, "The coordination-active subset": tasks where both protocols *failed*
    # trial 0. An infrastructure error is not a failure (the attempt never finished, so no
    # negative knowledge was written), even when the frame carries reward 0 for it.
    t = _two_trials()
    t["infrastructure_error"] = False
    t.loc[(t["protocol"] == "p") & (t["task_id"] == "2") & (t["trial"] == 0),
          "infrastructure_error"] = True
    assert coordination_active_tasks(t, "p", "q") == ("1", "3", "4")
    c = coordination_active_contrast(t, "p", "q")
    assert c.n == 3


def test_infrastructure_error_with_reward_one_is_a_failure_under_fail():
    # an endpoint failure is never a score: under "fail" it is a failed trial whatever reward
    # the log carries, as pass_hat_k counts it; under "exclude" its task is left out
    import numpy as np
    import pandas as pd

    from noisefloor.floor.nulls import certified_null_contrasts
    from noisefloor.floor.pairing import paired_contrast
    from noisefloor.passk import pass_hat_k
    from noisefloor.stats.passk import trial_outcomes

    t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1", "2", "1", "2"],
                      "trial": 0, "reward": [1.0, 1.0, 0.0, 1.0],
                      "infrastructure_error": [True, False, False, False]})
    fail = paired_contrast(t, "x", "y", infrastructure_errors="fail")
    assert (fail.wins, fail.losses, fail.ties) == (0, 0, 2)
    keep = paired_contrast(t, "x", "y", infrastructure_errors="exclude")
    assert (keep.wins, keep.losses, keep.ties, keep.tasks_excluded) == (0, 0, 1, ("1",))
    x = t[t["protocol"] == "x"]
    assert pass_hat_k(x, 1, infrastructure_errors="fail").value == 0.5
    # the null contrasts' pairing follows the same rule
    nc = certified_null_contrasts(t, null_pairs=["x-y"], infrastructure_errors="fail")
    row = nc.table.iloc[0]
    assert (row["wins"], row["losses"], row["ties"]) == (0, 0, 2)
    np.testing.assert_array_equal(trial_outcomes([1.0], [True], "fail"), [0.0])


def test_paired_contrast_interval_follows_confidence():
    # 7 wins, 13 losses, 0 ties built from trial records; R: prop.test(7, 20, conf.level = .9,
    # correct = FALSE)$conf.int = 0.2022600401 0.5334873112
    rows = [("x", str(i), 1.0 if i < 7 else 0.0) for i in range(20)]
    rows += [("y", str(i), 0.0 if i < 7 else 1.0) for i in range(20)]
    t = pd.DataFrame(rows, columns=["protocol", "task_id", "reward"]).assign(trial=0)
    c = paired_contrast(t, "x", "y", confidence=0.90)
    assert (c.wins, c.losses, c.ties) == (7, 13, 0)
    assert c.ci_low == pytest.approx(2 * 0.2022600401 - 1, abs=1e-9)
    assert c.ci_high == pytest.approx(2 * 0.5334873112 - 1, abs=1e-9)
