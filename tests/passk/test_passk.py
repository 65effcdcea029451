"""pass^k pinned to tau-bench's published figures on its own gpt-4o airline log."""

import json
import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.passk import pass_hat_k, pass_hat_k_table


@pytest.fixture(scope="module")
def airline(shared_data):
    # Read the raw file directly: this test pins the estimator, not the log reader.
    items = json.loads((shared_data / "tau-bench" / "gpt-4o-airline.json").read_text())
    return pd.DataFrame({"task_id": [str(i["task_id"]) for i in items],
                         "trial": [i["trial"] for i in items],
                         "reward": [float(i["reward"]) for i in items]})


@pytest.mark.parametrize("k,published", [(1, 0.420), (2, 0.273), (3, 0.220), (4, 0.200)])
def test_gpt4o_airline_matches_published(airline, k, published):
    # shared/data/tau-bench/README.md: published pass^1..4 for this file = 0.420, 0.273, 0.220,
    # 0.200 (tau-bench estimator, per task C(c,k)/C(n,k) averaged over tasks).
    r = pass_hat_k(airline, k)
    assert round(r.value, 3) == published
    assert r.n_tasks == 50 and r.trials_min == r.trials_max == 4


def test_partial_reward_is_never_a_success():
    t = pd.DataFrame({"task_id": ["a", "a"], "trial": [0, 1], "reward": [0.999, 1 - 5e-7]})
    assert pass_hat_k(t, 1).value == 0.5


def test_infrastructure_errors_excluded_and_counted():
    t = pd.DataFrame({"task_id": ["a", "a", "a"], "trial": [0, 1, 2],
                      "reward": [1.0, float("nan"), 0.0],
                      "infrastructure_error": [False, True, False]})
    r = pass_hat_k(t, 1)
    assert r.value == 0.5 and r.n_infrastructure_errors == 1 and r.n_trials == 2
    r_fail = pass_hat_k(t, 1, infrastructure_errors="fail")
    assert r_fail.value == pytest.approx(1 / 3) and r_fail.infrastructure_errors == "fail"
    # Usertest 2 item 17: under "fail" the count still says how many there were (it showed 0).
    assert r_fail.n_infrastructure_errors == 1 and r_fail.n_trials == 3


def test_not_run_trials_counted_separately():
    t = pd.DataFrame({"task_id": ["a", "a"], "trial": [0, 1], "reward": [1.0, float("nan")]})
    r = pass_hat_k(t, 1)
    assert r.value == 1.0 and r.n_not_run == 1


def test_k_greater_than_n_is_explicit():
    t = pd.DataFrame({"task_id": ["a", "a", "b"], "trial": [0, 1, 0], "reward": [1.0, 1.0, 1.0]})
    r = pass_hat_k(t, 2)
    assert math.isnan(r.value) and "exceeds" in r.reason and r.k == 2
    ex = pass_hat_k(t, 2, k_exceeds_n="exclude")
    assert ex.value == 1.0 and ex.tasks_excluded == ("b",) and ex.n_tasks_used == 1
    with pytest.raises(ValueError, match="k_exceeds_n"):
        pass_hat_k(t, 2, k_exceeds_n="error")


def test_unequal_trials_recorded():
    t = pd.DataFrame({"task_id": ["a", "a", "a", "b", "b"], "trial": [0, 1, 2, 0, 1],
                      "reward": [1.0, 0.0, 1.0, 1.0, 1.0]})
    r = pass_hat_k(t, 2)
    assert (r.trials_min, r.trials_max) == (2, 3)
    assert r.value == pytest.approx((1 / 3 + 1) / 2)
    assert (r.unequal_trials, r.n_trials_truncated) == ("allow", 0)
    # truncate: task a keeps its first two trials (by trial index: 1.0, 0.0) -> C(1,2)/C(2,2)=0
    cut = pass_hat_k(t.iloc[::-1], 2, unequal_trials="truncate")
    assert (cut.trials_min, cut.trials_max, cut.n_trials, cut.n_trials_truncated) == (2, 2, 4, 1)
    assert cut.value == pytest.approx((0 + 1) / 2)
    assert pass_hat_k(t, 1, unequal_trials="truncate").value == pytest.approx((1 / 2 + 1) / 2)
    with pytest.raises(ValueError, match=r"unequal numbers of counted trials \(2 to 3; e\.g\. "
                                         r"task 'b' has 2\)"):
        pass_hat_k(t, 1, unequal_trials="error")
    # a balanced run is untouched by every policy
    bal = t[t["trial"] < 2]
    assert {pass_hat_k(bal, 2, unequal_trials=u).value for u in ("allow", "truncate", "error")} \
        == {pass_hat_k(bal, 2).value}
    with pytest.raises(ValueError, match="unequal_trials"):
        pass_hat_k(t, 1, unequal_trials="drop")


def test_errors():
    t = pd.DataFrame({"task_id": ["a", "a"], "trial": [0, 0], "reward": [1.0, 0.0]})
    with pytest.raises(ValueError, match="duplicate"):
        pass_hat_k(t, 1)
    with pytest.raises(ValueError, match="k must be"):
        pass_hat_k(t.iloc[:1], 0)
    mixed = pd.DataFrame({"task_id": ["a", "a"], "trial": [0, 0], "reward": [1.0, 0.0],
                          "protocol": ["x", "y"]})
    with pytest.raises(ValueError, match="protocol"):
        pass_hat_k(mixed, 1)
    with pytest.raises(ValueError, match="infrastructure_errors"):
        pass_hat_k(t.iloc[:1], 1, infrastructure_errors="drop")


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA])
def test_a_missing_task_label_is_an_error_not_a_task_named_nan(missing):
    from noisefloor.stats.passk import count_trials

    with pytest.raises(ValueError, match="task is missing at position 2"):
        count_trials(["a", "a", missing, "b"], [1.0, 0.0, 1.0, 1.0])
    t = pd.DataFrame({"task_id": ["a", missing], "trial": [0, 0], "reward": [1.0, 1.0]})
    with pytest.raises(ValueError, match="task is missing at position 1"):
        pass_hat_k(t, 1)
    # the texts "None" and "nan" are labels like any other
    assert count_trials(["None", "nan"], [1.0, 0.0]).tasks == ("None", "nan")


def test_table_per_configuration():
    t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1"] * 4,
                      "trial": [0, 1, 0, 1], "reward": [1.0, 0.0, 0.0, 0.0]})
    tab = pass_hat_k_table(t, [1, 2])
    assert tab[["protocol", "k", "value"]].values.tolist() == [
        ["x", 1, 0.5], ["x", 2, 0.0], ["y", 1, 0.0], ["y", 2, 0.0]]


@st.composite
def runs(draw):
    n_tasks = draw(st.integers(1, 8))
    n = draw(st.integers(1, 6))
    rewards = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n_tasks * n,
                            max_size=n_tasks * n))
    return pd.DataFrame({"task_id": [str(i // n) for i in range(n_tasks * n)],
                         "trial": [i % n for i in range(n_tasks * n)], "reward": rewards}), n


@settings(max_examples=100, deadline=None)
@given(runs())
def test_non_increasing_in_k_and_in_unit_interval(run):
    t, n = run
    values = [pass_hat_k(t, k).value for k in range(1, n + 1)]
    assert all(0 <= v <= 1 for v in values)
    assert all(a >= b - 1e-12 for a, b in zip(values, values[1:]))


@settings(max_examples=50, deadline=None)
@given(runs(), st.randoms())
def test_row_order_does_not_matter(run, rnd):
    t, n = run
    order = list(range(len(t)))
    rnd.shuffle(order)
    assert pass_hat_k(t.iloc[order], 1).value == pytest.approx(pass_hat_k(t, 1).value)


def _one_task_all_infrastructure_errors(airline):
    t = airline.assign(infrastructure_error=False)
    lost = t["task_id"] == t["task_id"].iloc[0]
    t.loc[lost, "infrastructure_error"] = True
    t.loc[lost, "reward"] = float("nan")
    return t, str(t["task_id"].iloc[0])


def test_task_without_counted_trial_follows_k_exceeds_n(airline):
    # A task whose every trial was an infrastructure error has 0 < k counted trials: it used to
    # be dropped silently whatever k_exceeds_n said (even "error").
    t, lost = _one_task_all_infrastructure_errors(airline)
    with pytest.raises(ValueError, match=r"1 task\(s\), 1 of them with no counted trial .* "
                                         rf"task '{lost}' has 0; pass k_exceeds_n="):
        pass_hat_k(t, 1, k_exceeds_n="error")
    nan = pass_hat_k(t, 1)
    assert math.isnan(nan.value) and "1 of them with no counted trial" in nan.reason
    ex = pass_hat_k(t, 2, k_exceeds_n="exclude")
    assert ex.tasks_excluded == (lost,) and ex.n_tasks_used == 49 and ex.n_tasks == 50
    assert "1 with no counted trial" in ex.reason
    # the tau-bench estimator over the 49 other tasks, by hand: mean C(c, 2) / C(4, 2)
    rest = airline[airline["task_id"] != lost]
    c = rest.groupby("task_id")["reward"].apply(lambda r: int((r == 1.0).sum()))
    assert ex.value == pytest.approx(sum(math.comb(int(x), 2) for x in c) / (6 * 49), abs=1e-12)
    # under "fail" the task's four errors are four failed trials, so it is counted (as 0)
    fail = pass_hat_k(t, 1, infrastructure_errors="fail", k_exceeds_n="error")
    assert fail.n_tasks_used == 50 and fail.tasks_excluded == ()
