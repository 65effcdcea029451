"""``noisefloor compare``: A against B, the sign of the gap, the floor of the arms' re-runs."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from noisefloor.cli.main import cli
from noisefloor.compare import compare
from noisefloor.stats.validation import ParameterError


def two_systems(rng: np.random.Generator, *, n_tasks: int = 60, n_trials: int = 3,
                gain: float = 0.12, store: bool = True, names=("swarm", "baseline")) -> pd.DataFrame:
    """Own JSONL records of two systems: ``names[0]`` succeeds ``gain`` more often per task."""
    p = rng.uniform(0.2, 0.7, size=n_tasks)
    rows = []
    for protocol, shift in ((names[0], gain), (names[1], 0.0)):
        for trial in range(n_trials):
            ok = rng.random(n_tasks) < p + shift
            for i in range(n_tasks):
                row = {"benchmark": "b", "model": "m", "protocol": protocol, "seed": 1,
                       "task_id": f"t{i:03d}", "trial": trial, "reward": float(ok[i]),
                       "termination_reason": "done", "infrastructure_error": False}
                if store:
                    row["store_events_at_start"] = 0
                rows.append(row)
    return pd.DataFrame(rows)


def test_planted_gain_is_found_with_the_users_sign(tmp_path):
    trials = two_systems(np.random.default_rng(7), n_tasks=300)
    ab = compare(trials, a="swarm", b="baseline")
    ba = compare(trials, a="baseline", b="swarm")
    assert ab.by == "protocol" and 0.06 < ab.pooled.gap < 0.18
    assert ba.pooled.gap == -ab.pooled.gap
    assert (ba.pooled.wins, ba.pooled.losses) == (ab.pooled.losses, ab.pooled.wins)
    assert ab.verdict == "above" and ba.verdict == "below"
    # the same through the command line, from a JSONL file
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps({"schema_version": "1", **r}) + "\n"
                            for r in trials.to_dict(orient="records")))
    out = CliRunner().invoke(cli, ["compare", "--log", str(path), "--a", "swarm", "--b",
                                   "baseline", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["gap_direction"] == "a - b" and doc["pooled"]["gap"] == pytest.approx(ab.pooled.gap)


def test_counts_p_and_interval_by_hand():
    # 4 tasks x 1 trial: A wins on t0 and t1, loses on t2, ties on t3
    rows = [{"protocol": p, "task_id": f"t{i}", "trial": 0, "reward": r}
            for p, rewards in (("A", [1, 1, 0, 1]), ("B", [0, 0, 1, 1]))
            for i, r in enumerate(rewards)]
    got = compare(pd.DataFrame(rows), a="A", b="B")
    (trial, pooled) = got.rows
    assert (pooled.wins, pooled.losses, pooled.ties, pooled.n) == (2, 1, 1, 4)
    assert pooled.gap == pytest.approx(0.25)
    # exact two-sided sign test: scipy.stats.binomtest(2, 3, 0.5).pvalue = 1.0
    assert pooled.p_value == pytest.approx(stats.binomtest(2, 3, 0.5).pvalue)
    # Wilson-mapped interval: Wilson (lo, hi) on 2/3, mapped to ((2lo-1)*3/4, (2hi-1)*3/4)
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(2, 3, alpha=0.05, method="wilson")
    assert (pooled.ci_low, pooled.ci_high) == pytest.approx(((2 * lo - 1) * 0.75,
                                                              (2 * hi - 1) * 0.75))
    assert trial.level == "trial" and trial.trial == 0 and got.verdict == "no floor"


_PAIRS = ((0, 1), (0, 2), (1, 2))  # trial i against trial j of one arm: its re-runs


def _reruns_frame(ok: np.ndarray) -> pd.DataFrame:
    """The trial records of one re-run replicate, ``ok`` of shape (2 arms, trials, tasks), as
    :func:`two_systems` writes them (arms ``x`` and ``y``, store events recorded)."""
    arms, n_trials, n_tasks = ok.shape
    arm, trial, task = (g.ravel() for g in np.meshgrid(np.array(["x", "y"]), np.arange(n_trials),
                                                       np.arange(n_tasks), indexing="ij"))
    return pd.DataFrame({"benchmark": "b", "model": "m", "protocol": arm, "seed": 1,
                         "task_id": [f"t{i:03d}" for i in task], "trial": trial,
                         "reward": ok.ravel().astype(float), "termination_reason": "done",
                         "infrastructure_error": False, "store_events_at_start": 0})


@pytest.fixture(scope="module")
def reruns_pairs() -> dict:
    """2,000 seeded re-run pairs (60 tasks x 3 trials, one seed), simulated in arrays: both arms
    draw from the same per-task success probabilities, so any gap is run-to-run noise.

    Per pair, computed by the library on arrays of counts as :func:`compare` computes it for
    one pair: the pooled A - B counts (trial t against trial t, summed) and their sign test
    (:func:`noisefloor.stats.paired.sign_tests`), each arm's re-runs (trial i against trial j,
    summed) and the floor, the larger of the two arms' bounds (one
    :func:`noisefloor.floor.estimate.noise_floor` over all 4,000 re-run contrasts), and the
    verdict by the rule of :mod:`noisefloor.compare.result`. ``checked`` holds the pairs that
    :func:`compare` itself is run on and must agree with: the pairs whose verdict is not
    "inside" (the first 12: here all, 6 "above" and 6 "below"), the first 6 whose interval
    excludes 0 but whose gap stays inside the floor, and the first 4 pairs.
    """
    from noisefloor.floor.estimate import noise_floor
    from noisefloor.stats.paired import sign_tests

    rng = np.random.default_rng(20261201)
    reps, n_trials, n_tasks = 2000, 3, 60
    p = rng.uniform(0.2, 0.7, size=(reps, 1, 1, n_tasks))
    ok = rng.random((reps, 2, n_trials, n_tasks)) < p
    x, y = ok[:, 0], ok[:, 1]
    n = n_trials * n_tasks
    wins, losses = (x & ~y).sum(axis=(1, 2)), (~x & y).sum(axis=(1, 2))
    pooled = sign_tests(wins, losses, n - wins - losses)
    counts = {k: [] for k in ("wins", "losses", "ties")}
    for arm in (x, y):
        w = sum((arm[:, i] & ~arm[:, j]).sum(axis=1) for i, j in _PAIRS)
        lo_ = sum((~arm[:, i] & arm[:, j]).sum(axis=1) for i, j in _PAIRS)
        counts["wins"].append(w)
        counts["losses"].append(lo_)
        counts["ties"].append(len(_PAIRS) * n_tasks - w - lo_)
    labels = [f"pair {r}: {arm} re-runs" for arm in "xy" for r in range(reps)]
    nf = noise_floor(pd.DataFrame({"contrast": labels, "clean": True, "seed": None,
                                   **{k: np.concatenate(v) for k, v in counts.items()}}))
    bound = nf.table[nf.table["level"] == "pooled"].set_index("contrast")["bound"]
    floor = bound.loc[labels].to_numpy().reshape(2, reps).max(axis=0)
    gap, lo, hi = (pooled[c].to_numpy() for c in ("gap", "ci_low", "ci_high"))
    verdict = np.where((gap > floor) & (lo > 0), "above",
                       np.where((gap < -floor) & (hi < 0), "below", "inside"))
    excluded = (lo > 0) | (hi < 0)
    checked = sorted(set(np.flatnonzero(verdict != "inside")[:12].tolist()) |
                     set(np.flatnonzero(excluded & (verdict == "inside"))[:6].tolist()) |
                     set(range(4)))
    return {"verdict": verdict, "gap": gap, "ci_low": lo, "ci_high": hi, "floor": floor,
            "confidence": 0.95, "ok": ok, "checked": checked}


def test_reruns_pairs_array_simulation_is_what_compare_computes(reruns_pairs):
    # The rate tests below rest on the array simulation; compare() on the same records must
    # give the same pooled gap, interval, floor and verdict, on the pairs that are not
    # "inside" (both sides among them) and on pairs whose interval clears 0 but not the floor.
    # Fails for a compare() whose verdict drops the floor or the interval condition, or whose
    # interval or floor is at another level than the simulation's (the library's own).
    sim = reruns_pairs
    verdicts = {sim["verdict"][r] for r in sim["checked"]}
    assert {"above", "below", "inside"} <= verdicts
    for r in sim["checked"]:
        c = compare(_reruns_frame(sim["ok"][r]), a="x", b="y")
        assert (c.verdict, c.confidence) == (sim["verdict"][r], sim["confidence"]), r
        assert (c.pooled.gap, c.pooled.ci_low, c.pooled.ci_high, c.floor) == pytest.approx(
            (sim["gap"][r], sim["ci_low"][r], sim["ci_high"][r], sim["floor"][r]),
            rel=1e-12, abs=1e-12), r


def test_reruns_pairs_fire_fail_if_below_at_most_at_the_nominal_rate(reruns_pairs):
    # --fail-if below fires when the verdict is "below" (A worse beyond the noise).
    # Nominal rate: 1 - confidence = 5% (two-sided; "below" alone is at most half of it).
    fired = int((reruns_pairs["verdict"] == "below").sum())
    assert fired / len(reruns_pairs["verdict"]) <= 0.05, fired


def test_reruns_pairs_pass_fail_if_inside_at_most_at_the_nominal_rate(reruns_pairs):
    # --fail-if inside fails the gate unless the verdict is "above": it lets a change through
    # only when A is better beyond the noise. Between two arms that cannot differ, the gate's
    # error is letting one through: "above" needs the pooled interval's lower end above 0,
    # a one-sided (1 - confidence) / 2 = 2.5% event, and the gap beyond the floor besides.
    n = len(reruns_pairs["verdict"])
    confidence = reruns_pairs["confidence"]
    nominal = (1 - confidence) / 2
    passed = int((reruns_pairs["verdict"] == "above").sum())
    fired = int((reruns_pairs["verdict"] != "above").sum())
    assert passed + fired == n
    assert passed <= nominal * n, passed  # at most the nominal rate: <= 50 of 2000
    # From the other side, the gate is not absurdly conservative: the interval it rests on
    # excludes 0 (either side) on about 1 - confidence = 5% of the re-run pairs. Tolerance: the
    # central 99.8% range of Binomial(2000, 0.05), scipy.stats.binom.ppf([0.001, 0.999],
    # 2000, 0.05) = 71 .. 131. An interval at the wrong level fails: at 90% (or a one-sided
    # 95% bound used as a two-sided interval, z = 1.645) about 200 pairs exclude 0, at 99%
    # about 20; so does a conservative interval that never excludes 0, or a liberal one.
    excluded = int(((reruns_pairs["ci_low"] > 0) | (reruns_pairs["ci_high"] < 0)).sum())
    low, high = stats.binom.ppf([0.001, 0.999], n, 1 - confidence)
    assert (low, high) == (71, 131)
    assert low <= excluded <= high, excluded


# --- the minimum detectable effect, pinned to Connor (1987) --------------------------------

def _discordant_log(n_tasks: int, n_discordant: int) -> pd.DataFrame:
    """One trial of two arms over ``n_tasks`` tasks, ``n_discordant`` of them discordant (half
    won by each arm), the rest tied: p_d = n_discordant / n_tasks."""
    rows = []
    for i in range(n_tasks):
        a, b = (1.0, 0.0) if i < n_discordant // 2 else (0.0, 1.0) if i < n_discordant \
            else (1.0, 1.0)
        for protocol, reward in (("x", a), ("y", b)):
            rows.append({"protocol": protocol, "task_id": f"t{i:03d}", "trial": 0,
                         "reward": reward})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("confidence, n_below, n_above", [
    # Connor (1987), Biometrics 43(1):207-211, p. 209 worked example (p10 = 0.05, p01 = 0.45,
    # so p_d = 0.5 and a gap of 0.40; power 0.80): alpha = 0.05 needs ceiling(n) = 23 pairs
    # (n = 22.0113 before rounding up; R: pd=.5; df=-.4;
    # ((qnorm(1-.05/2)*sqrt(pd)+qnorm(.8)*sqrt(pd-df^2))/df)^2 = 22.0113244274358), and at
    # alpha = 0.01 the same R line gives n = 33.4122050934048. So at p_d = 0.5 the MDE is
    # above 0.40 with 22 (alpha 0.01: 32) paired tasks and below it with 24 (34).
    (0.95, 22, 24),
    (0.99, 32, 34),
])
def test_compare_mde_is_connors_at_two_confidence_levels(confidence, n_below, n_above):
    few = compare(_discordant_log(n_below, n_below // 2), a="x", b="y", confidence=confidence)
    many = compare(_discordant_log(n_above, n_above // 2), a="x", b="y", confidence=confidence)
    assert few.pooled.n == n_below and few.pooled.wins + few.pooled.losses == n_below // 2
    assert few.pooled.mde > 0.40 > many.pooled.mde
    # and the MDE is the root of Connor's power equation: at n and p_d it has the power asked
    from noisefloor.stats.power.planning import power_mcnemar

    for c in (few, many):
        assert power_mcnemar(c.pooled.n, c.pooled.mde, 0.5, alpha=1 - confidence) == \
            pytest.approx(0.8, abs=1e-9)
    # the column every row carries (trial rows too) is the same number at the same n
    assert few.to_frame()["mde"].tolist() == pytest.approx([few.pooled.mde] * 2)


def test_compare_mde_connor_at_a_second_power():
    # Connor (1987) closed form at power 0.90 (R: pd=.5; df=-.4;
    # ((qnorm(.975)*sqrt(pd)+qnorm(.9)*sqrt(pd-df^2))/df)^2 = 28.4401 with z_0.975 =
    # 1.959964, z_0.90 = 1.281552): with 28 pairs the MDE is above 0.40, with 30 below it.
    few = compare(_discordant_log(28, 14), a="x", b="y", power=0.9)
    many = compare(_discordant_log(30, 15), a="x", b="y", power=0.9)
    assert few.pooled.mde > 0.40 > many.pooled.mde
    # more power asks a larger effect at the same n
    assert few.pooled.mde > compare(_discordant_log(28, 14), a="x", b="y").pooled.mde


@settings(max_examples=40, deadline=None)
@given(n=st.integers(10, 400), extra=st.integers(1, 400), p_d=st.floats(0.05, 1.0),
       conf=st.floats(0.5, 0.99), more=st.floats(0.001, 0.009))
def test_mde_shrinks_with_n_and_grows_with_confidence(n, extra, p_d, conf, more):
    # compare's MDE: minimum_detectable_effect(n, test="mcnemar", p_d, alpha=1-confidence)
    from noisefloor.stats.power.planning import minimum_detectable_effect

    def mde(n, conf):
        return minimum_detectable_effect(n, test="mcnemar", p_d=p_d, alpha=1 - conf,
                                         power=0.8).gap

    base = mde(n, conf)
    if math.isnan(base):  # undetectable at this n and p_d: more tasks can only help
        return
    assert mde(n + extra, conf) <= base + 1e-12
    bigger = mde(n, conf + more)
    assert math.isnan(bigger) or bigger >= base - 1e-12


def test_declaring_the_contrast_under_test_null_is_refused():
    trials = two_systems(np.random.default_rng(1))
    with pytest.raises(ParameterError, match="declares the contrast under test null"):
        compare(trials, a="swarm", b="baseline", null_pairs=["baseline-swarm"])
    out = CliRunner().invoke(cli, ["compare", "--log", "fixtures/nulls/two_systems.jsonl",
                                   "--a", "swarm", "--b", "baseline", "--null", "swarm-baseline"])
    assert out.exit_code == 1 and "--null" in out.output and "null_pairs" not in out.output


def test_no_trial_is_left_out_without_a_line():
    trials = two_systems(np.random.default_rng(2), n_trials=3)
    trials = trials[~((trials["protocol"] == "baseline") & (trials["trial"] == 2))]
    got = compare(trials, a="swarm", b="baseline")
    assert [r.trial for r in got.trial_rows] == [0, 1]  # trial 0 is compared, never hidden
    assert any("trial 2: only swarm ran it" in n for n in got.notes)


def test_no_floor_says_what_to_run():
    trials = two_systems(np.random.default_rng(3), n_trials=1)
    got = compare(trials, a="swarm", b="baseline")
    assert got.verdict == "no floor" and math.isnan(got.floor)
    assert "at least 3 trials per task" in got.advice and "tasks" in got.advice


def test_fail_if_exit_codes(tmp_path):
    runner = CliRunner()
    base = ["compare", "--log", "fixtures/nulls/two_systems.jsonl", "--a", "swarm", "--b",
            "baseline", "--null", "swarm-swarm", "--null", "baseline-baseline"]
    inside = runner.invoke(cli, base + ["--fail-if", "inside"])
    assert inside.exit_code == 3 and "--fail-if inside: the verdict is 'inside'" in inside.output
    assert runner.invoke(cli, base + ["--fail-if", "below"]).exit_code == 0
    out = runner.invoke(cli, base + ["--out", str(tmp_path / "rep")])
    assert out.exit_code == 0
    assert (tmp_path / "rep" / "report.md").read_text().startswith("# swarm against baseline")
    assert (tmp_path / "rep" / "forest.png").stat().st_size > 0


def test_arms_must_be_one_configuration_each():
    trials = pd.concat([two_systems(np.random.default_rng(4)),
                        two_systems(np.random.default_rng(5)).assign(model="m2")])
    # by model: each arm holds two protocols, two configurations
    with pytest.raises(ParameterError, match=r"several configurations \(protocol"):
        compare(trials, a="m", b="m2", by="model")
    with pytest.raises(ParameterError, match="several columns"):
        compare(trials.assign(model=trials["protocol"]), a="swarm", b="baseline")
    with pytest.raises(ParameterError, match="not both names"):
        compare(trials, a="swarm", b="nope")


def test_two_runs_as_the_arms_directly():
    out = CliRunner().invoke(cli, ["compare", "fixtures/nulls/tau2_runA",
                                   "fixtures/nulls/tau2_modelB", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert (doc["a"], doc["b"], doc["by"]) == ("tau2_runA", "tau2_modelB", "run")
    assert {r["certified_by"] for r in doc["null_contrasts"]} == {"no store reader"}
    assert {r["arm"] for r in doc["null_contrasts"]} == {"tau2_runA", "tau2_modelB"}


def test_one_run_and_mixed_arguments_have_their_own_messages():
    one = CliRunner().invoke(cli, ["compare", "fixtures/nulls/tau2_runA"])
    assert one.exit_code == 2
    assert "give two runs, A then B" in one.output and "got 1" in one.output
    assert "not both" not in one.output
    mixed = CliRunner().invoke(cli, ["compare", "fixtures/nulls/tau2_runA",
                                     "fixtures/nulls/tau2_modelB", "--a", "x"])
    assert mixed.exit_code == 2
    assert "not both (got RUN arguments and --a)" in mixed.output


def test_two_runs_are_the_arms_whatever_their_labels():
    from noisefloor.compare.runs import compare_runs

    run_a, run_b = "fixtures/nulls/tau2_runA", "fixtures/nulls/tau2_modelB"
    plain = compare_runs(run_a, run_b)
    one = compare_runs(f"{run_a}=new", run_b)  # a label on one run only names that arm
    assert (one.a, one.b, one.by) == ("new", "tau2_modelB", "run")
    assert one.pooled == plain.pooled and one.floor == plain.floor
    assert one.sources == (f"{run_a}=new", run_b)
    both = compare_runs(f"{run_a}=x", f"{run_b}=y", null_pairs=["x-x"])
    assert (both.a, both.b, both.by, both.pooled) == ("x", "y", "run", plain.pooled)
    with pytest.raises(ParameterError, match="two runs are the two arms"):
        compare_runs(run_a, run_b, by="model")
    for by in ("protocol", "model"):
        out = CliRunner().invoke(cli, ["compare", run_a, "fixtures/nulls/tau2_runB", "--by", by])
        assert out.exit_code == 2 and "two runs are the two arms" in out.output, out.output
    out = CliRunner().invoke(cli, ["compare", f"{run_a}=foo", run_b, "--by", "run"])
    assert out.exit_code == 0 and "A = foo, B = tau2_modelB (by run)" in out.output
