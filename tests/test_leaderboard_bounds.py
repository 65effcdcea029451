"""Leaderboard files read strictly and in bounded work: duplicate keys refused, proportions
written where percentages belong detected, the re-runs floor computed column-wise (equal to
gap_test pair by pair) and refused past its pair limit, a non-finite --floor refused."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.cli.main import cli
from noisefloor.leaderboard import gaps as lb
from noisefloor.leaderboard.entries import leaderboard_from_submissions
from noisefloor.leaderboard.gaps import LeaderboardError, gap_test, read_leaderboard, reruns_floor


def _sub(name, p1, sim="gpt-4.1", version="1.0.1", effort=None):
    return {"model_name": name, "results": {"airline": {"pass_1": p1}, "retail": {"pass_1": p1}},
            "reasoning_effort": effort,
            "methodology": {"tau2_bench_version": version, "user_simulator": sim}}


def test_a_duplicate_key_is_refused_with_its_line(tmp_path):
    path = tmp_path / "lb.json"
    path.write_text('{"a": {"model_name": "M", "results": {}},\n'
                    ' "b": {"model_name": "N", "results": {}, "results": {}}}')
    with pytest.raises(LeaderboardError, match=r"lb.json:2: key 'results' occurs twice in one "
                                               r"object"):
        read_leaderboard(path)


def test_proportions_where_percentages_belong_are_detected(tmp_path):
    path = tmp_path / "lb.json"
    path.write_text(json.dumps({"a": _sub("M", 86.2), "b": _sub("N", 0.862)}, indent=1))
    with pytest.raises(LeaderboardError, match=r"submission 'b': field results.airline.pass_1: "
                                               r"0.862 and every other pass\^k .* look like "
                                               r"proportions.*write 0.862 as 86.2"):
        read_leaderboard(path)
    # a submission at 0 % and 1 % (whole numbers) is a percentage that happens to be small
    ok = leaderboard_from_submissions({"a": _sub("M", 1.0), "b": _sub("N", 0.0)})
    assert sorted(ok.entries["pass_1"]) == [0.0, 0.0, 0.01, 0.01]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["M", "m ", "N"]), st.integers(0, 100),
                          st.sampled_from(["gpt-4.1", "gpt-5"]),
                          st.sampled_from([None, "high", "low"])), min_size=2, max_size=9),
       st.sampled_from([0.8, 0.95]))
def test_the_column_wise_floor_equals_gap_test_pair_by_pair(subs, confidence):
    board = leaderboard_from_submissions(
        {f"s{i}": _sub(n, float(p), sim, effort=e) for i, (n, p, sim, e) in enumerate(subs)})
    table = reruns_floor(board, confidence=confidence).table
    for row in table.itertuples():
        z, p, lo, hi = gap_test(row.pass_1_a, row.pass_1_b, row.n_tasks, confidence=confidence)
        for got, want in ((row.z, z), (row.p_value, p), (row.ci_low, lo), (row.ci_high, hi)):
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-9)


def test_the_floor_refuses_more_pairs_than_its_limit(monkeypatch):
    board = leaderboard_from_submissions({f"s{i}": _sub("M", 50.0 + i) for i in range(5)})
    monkeypatch.setattr(lb, "MAX_RERUN_PAIRS", 9)  # 2 domains x 10 pairs = 20
    with pytest.raises(ValueError, match=r"holds 20 re-run pairs of re-submissions, more than the "
                                         r"9 .*model 'm' alone is submitted 5 times"):
        reruns_floor(board)


@pytest.mark.parametrize("option", ["--floor", "--envelope"])
def test_a_non_finite_floor_is_refused(tmp_path, option):
    path = tmp_path / "lb.json"
    path.write_text(json.dumps({"a": _sub("M", 60.0), "b": _sub("N", 70.0)}))
    args = ["leaderboard", str(path), "--a", "a", "--b", "b", "--floor", "0.1", option, "nan"]
    if option == "--floor":
        args = args[:-4] + ["--floor", "nan"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2 and f"{option} must be a finite proportion, got nan" \
                                  in res.output
