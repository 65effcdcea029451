"""``noisefloor compare``: A against B, the sign of the gap, the floor of the arms' re-runs."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
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


def test_aa_pairs_fire_fail_if_below_at_most_at_the_nominal_rate():
    # 200 seeded A/A pairs: both arms draw from the same per-task success probabilities;
    # --fail-if below fires when the verdict is "below". Nominal rate: 1 - confidence = 5%.
    rng = np.random.default_rng(20261201)
    fired = 0
    for _ in range(200):
        trials = two_systems(rng, n_tasks=60, n_trials=3, gain=0.0, names=("x", "y"))
        fired += compare(trials, a="x", b="y").verdict == "below"
    # the rate's one-sided 95% binomial bound must not exceed the nominal 5%
    assert fired / 200 <= 0.05, fired


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
