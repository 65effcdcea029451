"""Leaderboard tiers: the pairwise tests, Holm tiers, simultaneous rank intervals, and their error
rates on simulated leaderboards with known gaps."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.leaderboard.gaps import gap_test
from noisefloor.leaderboard.tiers import (
    holm,
    pairwise_sign_tests,
    pairwise_z_tests,
    tiers_from_pvalues,
    tiers_from_scores,
    tiers_from_shares,
    tiers_from_trials,
)
from noisefloor.stats import sign_test

BOARD = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "tau2-bench" / \
    "leaderboard_submissions.json"
sys.path.insert(0, str(Path(__file__).parent / "logs"))
from make_bench_logs import write_terminal_bench_run  # noqa: E402


def test_z_tests_are_gap_test():
    scores = np.array([0.86, 0.72, 0.70, 0.30])
    p = pairwise_z_tests(scores, np.full(4, 114.0))
    i, j = np.triu_indices(4, 1)
    for pos, (a, b) in enumerate(zip(i, j)):
        assert p[pos] == pytest.approx(gap_test(scores[a], scores[b], 114)[1], rel=1e-10)


def test_holm_is_statsmodels():
    from statsmodels.stats.multitest import multipletests
    p = np.random.default_rng(1).random(300) ** 3
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-15)


def test_sign_tests_are_sign_test():
    rng = np.random.default_rng(3)
    shares = rng.integers(0, 3, size=(4, 30)) / 2.0
    shares[1, :5] = np.nan  # entry 1 did not run five tasks
    wins, losses, ties, p = pairwise_sign_tests(shares)
    i, j = np.triu_indices(4, 1)
    for pos, (a, b) in enumerate(zip(i, j)):
        both = ~np.isnan(shares[a]) & ~np.isnan(shares[b])
        w = int((shares[a][both] > shares[b][both]).sum())
        l_ = int((shares[a][both] < shares[b][both]).sum())
        assert (wins[pos], losses[pos], ties[pos]) == (w, l_, int(both.sum()) - w - l_)
        assert p[pos] == pytest.approx(sign_test(w, l_, 0).p_value, rel=1e-10)


def test_tiers_and_rank_intervals_by_hand():
    # four entries; p-values of pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    p = np.array([0.2, 0.004, 0.001, 0.03, 0.002, 0.5])
    tiers, lo, hi, p_adjusted, sep = tiers_from_pvalues([0.9, 0.85, 0.7, 0.65], p, confidence=0.95)
    # Holm (Holm 1979): sorted 0.001*6, 0.002*5, 0.004*4, 0.03*3, 0.2*2, 0.5 -> monotone max
    assert p_adjusted.tolist() == pytest.approx([0.4, 0.016, 0.006, 0.09, 0.01, 0.5])
    # entry 0 beats 2 and 3 -> tier 2 starts at entry 2; entry 2 does not beat 3
    assert tiers.tolist() == [1, 1, 2, 2]
    # Bonferroni at 0.05 / 6 = 0.00833: pairs (0,2) (0,3) (1,3) separate ranks
    assert sep.tolist() == [False, True, True, False, True, False]
    assert lo.tolist() == [1, 1, 2, 3] and hi.tolist() == [2, 3, 4, 4]
    # at 99%: 0.01 / 6 = 0.00167 leaves only (0, 3)
    tiers99, lo99, hi99, _, _ = tiers_from_pvalues([0.9, 0.85, 0.7, 0.65], p, confidence=0.99)
    assert tiers99.tolist() == [1, 1, 1, 2] and lo99.tolist() == [1, 1, 1, 2]
    assert hi99.tolist() == [3, 4, 4, 4]


def test_scores_are_sorted_and_named():
    r = tiers_from_scores(["c", "a", "b"], [0.5, 0.9, 0.89], [1000, 1000, 1000])
    assert r.entries == ("a", "b", "c") and r.tiers == (1, 1, 2)
    assert r.to_dict()["tiers"] == [["a", "b"], ["c"]]
    with pytest.raises(ValueError, match="unique"):
        tiers_from_scores(["a", "a"], [0.5, 0.6], 10)
    with pytest.raises(ValueError, match="proportions"):
        tiers_from_scores(["a", "b"], [0.5, 1.6], 10)


def _simulate_scores(rng, rates, n):
    return rng.binomial(n, rates) / n


@pytest.mark.parametrize("confidence", [0.95, 0.90])
def test_aggregate_null_leaderboard_keeps_the_family_wise_error(confidence):
    rng = np.random.default_rng(11)
    names = [f"e{i}" for i in range(8)]
    sims, split = 400, 0
    for _ in range(sims):
        r = tiers_from_scores(names, _simulate_scores(rng, np.full(8, 0.7), 200), 200,
                              confidence=confidence)
        split += r.n_tiers > 1
    alpha = 1 - confidence
    assert split / sims <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / sims)


def _gap_rates(tier_of, names, close_pairs, far_pairs):
    """(joined among the 1 pp pairs, split among the 10 pp neighbours) in one simulation."""
    joined = sum(tier_of[names[a]] == tier_of[names[b]] for a, b in close_pairs)
    split = sum(tier_of[names[a]] != tier_of[names[b]] for a, b in far_pairs)
    return joined, split


def test_aggregate_leaderboard_with_known_gaps():
    rng = np.random.default_rng(5)
    rates = np.array([0.80, 0.79, 0.70, 0.69, 0.60, 0.59])  # 10 pp between pairs, 1 pp within
    names = [f"e{i}" for i in range(6)]
    close, far = [(0, 1), (2, 3), (4, 5)], [(1, 2), (3, 4)]
    sims, joined, split, coverage = 200, 0, 0, 0
    for _ in range(sims):
        r = tiers_from_scores(names, _simulate_scores(rng, rates, 2000), 2000)
        j, s_ = _gap_rates(dict(zip(r.entries, r.tiers)), names, close, far)
        joined, split = joined + j, split + s_
        true_rank = {n: i + 1 for i, n in enumerate(names)}
        coverage += all(lo <= true_rank[e] <= hi
                        for e, lo, hi in zip(r.entries, r.rank_low, r.rank_high))
    assert split / (sims * len(far)) >= 0.95     # 10 pp apart: different tiers
    assert joined / (sims * len(close)) >= 0.9   # 1 pp apart: one tier
    assert coverage / sims >= 0.95               # the rank intervals hold jointly


def _paired_successes(rng, rates, n_tasks, n_trials=1):
    """Success of each (entry, trial, task): a shared task difficulty shifts every entry's rate."""
    difficulty = rng.uniform(-0.25, 0.25, size=n_tasks)
    return np.array([[rng.random(n_tasks) < np.clip(rate + difficulty, 0.0, 1.0)
                      for _ in range(n_trials)] for rate in rates])


def _trial_frame(successes):
    """The trial records of :func:`_paired_successes`' outcomes (entry ``e`` is model ``m<e>``)."""
    n_tasks = successes.shape[2]
    rows = [pd.DataFrame({"benchmark": "b", "model": f"m{e}", "protocol": "p", "seed": 0,
                          "task_id": [f"t{t}" for t in range(n_tasks)], "trial": trial,
                          "reward": entry[trial].astype(float), "infrastructure_error": False})
            for e, entry in enumerate(successes) for trial in range(len(entry))]
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("confidence", [0.95, 0.90])
def test_paired_null_leaderboard_keeps_the_family_wise_error(confidence):
    rng = np.random.default_rng(23)
    names = [f"m{i}" for i in range(6)]
    sims, split = 400, 0
    for _ in range(sims):
        difficulty = rng.uniform(-0.25, 0.25, size=120)
        shares = (rng.random((6, 120)) < np.clip(0.6 + difficulty, 0, 1)).astype(float)
        split += tiers_from_shares(names, shares, confidence=confidence).n_tiers > 1
    alpha = 1 - confidence
    assert split / sims <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / sims)


def test_paired_leaderboard_with_known_gaps():
    rng = np.random.default_rng(29)
    rates = [0.75, 0.74, 0.65, 0.64, 0.55]
    names = [f"m{i}" for i in range(5)]
    close, far = [(0, 1), (2, 3)], [(1, 2), (3, 4)]
    sims, joined, split = 100, 0, 0
    for sim in range(sims):
        successes = _paired_successes(rng, rates, 1500)
        # the rates are those of the tiers of the entries' per-task shares; that the trial
        # records give the same tiers (one trial per task: the share is the outcome) is checked
        # on the first simulations, each of which builds a frame of 7,500 records
        r = tiers_from_shares(names, successes.mean(axis=1))
        if sim < 5:
            from_trials = tiers_from_trials(_trial_frame(successes))
            assert (from_trials.entries, from_trials.tiers) == (r.entries, r.tiers)
            assert (from_trials.rank_low, from_trials.rank_high) == (r.rank_low, r.rank_high)
            pd.testing.assert_frame_equal(from_trials.pairs, r.pairs)
        j, s_ = _gap_rates(dict(zip(r.entries, r.tiers)), names, close, far)
        joined, split = joined + j, split + s_
    assert split / (sims * len(far)) >= 0.95
    assert joined / (sims * len(close)) >= 0.9


def test_paired_entries_from_trial_logs_cli(tmp_path):
    runs = tmp_path / "runs"
    tasks = [f"task-{i}" for i in range(40)]
    rng = np.random.default_rng(2)
    for model, rate in (("good", 0.9), ("good-too", 0.88), ("weak", 0.3)):
        outcomes = {t: [bool(rng.random() < rate) for _ in range(3)] for t in tasks}
        write_terminal_bench_run(runs, f"run-{model}", outcomes, model=model)
    plot = tmp_path / "tiers.png"
    result = CliRunner().invoke(cli, ["leaderboard", "--tiers", "--log", str(runs), "--plot",
                                      str(plot)])
    assert result.exit_code == 0, result.output
    assert "3 entries in 2 tier(s)" in result.output and "paired exact sign test" in result.output
    assert plot.stat().st_size > 10_000
    doc = json.loads(CliRunner().invoke(cli, ["leaderboard", "--tiers", "--log", str(runs),
                                              "--json"]).output)
    (part,) = doc["tiers"]
    assert part["tiers"][-1] == ["weak"] and part["n_pairs"] == 3
    assert {"wins", "losses", "ties", "p_adjusted"} <= part["pairs"][0].keys()


@pytest.mark.skipif(not BOARD.exists(), reason="shared data not found")
def test_aggregate_leaderboard_cli():
    result = CliRunner().invoke(cli, ["leaderboard", str(BOARD), "--tiers", "--domain",
                                      "retail", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    (part,) = doc["tiers"]
    assert part["domain"] == "retail" and part["n_entries"] == 42
    assert part["n_pairs"] == 42 * 41 // 2
    entries = part["entries"]
    assert all(e["rank_low"] <= e["rank"] <= e["rank_high"] for e in entries)
    assert [e["tier"] for e in entries] == sorted(e["tier"] for e in entries)
    assert "reruns_floor" in doc and doc["reruns_floor"]["envelope"] > 0
    bad = CliRunner().invoke(cli, ["leaderboard", str(BOARD), "--tiers", "--a", "x", "--b", "y"])
    assert bad.exit_code != 0 and "--a, --b do not apply with --tiers" in bad.output
    bad = CliRunner().invoke(cli, ["leaderboard", "--tiers"])
    assert bad.exit_code != 0 and "--log" in bad.output
