"""``--floor-log`` of ``plan``, ``reruns-sim`` and ``leaderboard``: the floor of a trial log.

Regression: the three options imported a helper from
``noisefloor.cli.floor`` after the pipelines moved into the library and that helper was
removed, so every ``--floor-log`` call ended in an internal ImportError (found by mypy).
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from tests.cli.null_logs import SEED_1, SEED_2, write_clean_null_log


def _run(*args):
    res = CliRunner().invoke(cli, list(args))
    assert res.exit_code == 0, res.output
    return res


def test_plan_floor_log_is_the_wilson_mapped_floor(tmp_path):
    one = write_clean_null_log(tmp_path / "one.jsonl", {1: SEED_1})
    doc = json.loads(_run("plan", "--gap", "0.6", "--p-d", "0.7", "--floor-log", one,
                          "--json").output)
    # R: prop.test(4, 5, correct = FALSE)$conf.int[2] = 0.9637759 (Wilson upper of W/(W+L));
    # mapped to the gap: (2 * 0.9637759 - 1) * (4 + 1) / 10
    assert doc["plans"][0]["floor"] == pytest.approx((2 * 0.9637759 - 1) * 5 / 10, abs=1e-6)
    assert doc["floor_source"] == f"floor of {one} (intercept-no_coord)"

    two = write_clean_null_log(tmp_path / "two.jsonl", {1: SEED_1, 2: SEED_2})
    doc = json.loads(_run("plan", "--gap", "0.6", "--p-d", "0.7", "--floor-log", two,
                          "--json").output)
    # seeds pooled, W=5, L=3, n=20. R: prop.test(5, 8, correct = FALSE)$conf.int[2] = 0.8631557
    assert doc["plans"][0]["floor"] == pytest.approx((2 * 0.8631557 - 1) * 8 / 20, abs=1e-6)


def test_leaderboard_floor_log_names_the_log(tmp_path, shared_data):
    board = shared_data / "tau2-bench" / "leaderboard_submissions.json"
    log = write_clean_null_log(tmp_path / "one.jsonl", {1: SEED_1})
    doc = json.loads(_run("leaderboard", str(board), "--a", "gemini-3-pro_google_2025-11-18",
                          "--b", "gemini-3-pro_sierra_2026-03-02", "--floor-log", log,
                          "--json").output)
    assert doc["comparison"]["floor_source"] == f"floor of {log} (intercept-no_coord)"


def test_reruns_sim_claim_rates_against_the_logs_null_gaps(tmp_path):
    log = write_clean_null_log(tmp_path / "two.jsonl", {1: SEED_1, 2: SEED_2})
    doc = json.loads(_run("reruns-sim", "--flip-rate", "0.2", "--tasks", "10", "--claim", "0.1",
                          "--floor-log", log, "--json").output)
    claim = doc["claim"]
    # per-seed null gaps (W - L) / n: 3/10 and -1/10; their sample SD is sqrt(0.08)
    assert claim["n_null"] == 2
    assert claim["null_gap_sd"] == pytest.approx(math.sqrt(0.08), rel=1e-12)
    assert claim["snr"] == pytest.approx(0.1 / math.sqrt(0.08), rel=1e-12)


@pytest.mark.parametrize("command", ["plan", "leaderboard"])
def test_an_undefined_floor_is_refused_naming_the_options(tmp_path, shared_data, command):
    # every task tied at trial 0 of a certified pair: the floor has no informative pair
    log = write_clean_null_log(tmp_path / "tied.jsonl", {1: [(1.0, 1.0)] * 5})
    board = shared_data / "tau2-bench" / "leaderboard_submissions.json"
    args = (["plan", "--gap", "0.1", "--p-d", "0.3"] if command == "plan" else
            ["leaderboard", str(board), "--a", "gemini-3-pro_google_2025-11-18",
             "--b", "gemini-3-pro_sierra_2026-03-02"])
    res = CliRunner().invoke(cli, args + ["--floor-log", log])
    assert res.exit_code == 1, res.output
    assert f"--floor-log {log}: no floor can be read (" in res.output
    assert "with --null (" in res.output and "null_pairs" not in res.output


RUN_A = "fixtures/nulls/tau2_runA"  # a tau2-bench run directory, no JSONL


@pytest.mark.parametrize("args", [
    ["plan", "--gap", "0.1", "--p-d", "0.9", "--floor-log", RUN_A, "--json"],
    ["leaderboard", "fixtures/leaderboard/three_entries.json", "--a", "m_a", "--b", "n_a",
     "--floor-log", RUN_A, "--json"],
    ["reruns-sim", "--flip-rate", "0.1", "--n-sim", "20", "--claim", "0.1", "--floor-log",
     RUN_A, "--json"],
])
def test_floor_log_takes_the_log_options_of_every_log_reader(args):
    auto = json.loads(_run(*args).output)
    assert json.loads(_run(*args, "--format", "tau2", "--allow-nan").output) == auto
    wrong = CliRunner().invoke(cli, [*args, "--format", "jsonl"])  # the format reaches the reader
    assert wrong.exit_code == 1 and "tau2_runA" in wrong.output, wrong.output


@pytest.mark.parametrize("args, named", [
    (["plan", "--gap", "0.1", "--p-d", "0.9", "--format", "tau2"],
     "--format does not apply without --floor-log"),
    (["reruns-sim", "--flip-rate", "0.1", "--score", "x", "--model", "m"],
     "--score, --model do not apply without --log or --floor-log"),
    (["leaderboard", "fixtures/leaderboard/three_entries.json", "--tiers", "--allow-nan"],
     "--allow-nan does not apply without --log"),
])
def test_log_options_without_a_log_are_refused(args, named):
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2 and named in res.output, res.output


@pytest.mark.parametrize("kind, word", [("floor", "a floor"), ("envelope", "an envelope")])
def test_plan_names_the_floor_kind_it_clears(kind, word):
    # `--floor-kind envelope` was printed as "clearing a floor of ..." and "the floor as
    # measured": the number is the envelope, and the text says so (fixture: two re-runs of
    # no_coord on 3 tasks, whose one null contrast gives 33.3 pp)
    out = CliRunner().invoke(cli, ["plan", "--gap", "0.2", "--p-d", "0.3", "--floor-log",
                                   "fixtures/logs/trials.jsonl", "--floor-kind", kind]).output
    assert f"clearing {word} of 33.3 pp ({kind} of fixtures/logs/trials.jsonl" in out
    assert f"held fixed in the table: the {kind} as measured, on n = 3 paired tasks" in out
