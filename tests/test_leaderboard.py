"""Leaderboard audit on the published tau2-bench submissions (read in place from ../shared/data),
the gap test pinned to R prop.test, and the plan / leaderboard commands end to end."""

import json
import math

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.leaderboard.gaps import (
    DOMAIN_TASKS,
    LeaderboardError,
    compare_entries,
    gap_test,
    read_leaderboard,
    reruns_floor,
)


@pytest.fixture(scope="module")
def board_path(shared_data):
    return shared_data / "tau2-bench" / "leaderboard_submissions.json"


@pytest.fixture(scope="module")
def board(board_path):
    return read_leaderboard(board_path)


def test_reads_every_submission_and_converts_percentages(board):
    assert board.n_submissions == 65
    e = board.entries.set_index(["submission", "domain"])
    # the file: claude-3-7-sonnet_anthropic_2024-06-20 results.retail.pass_1 = 72.1 (percent)
    assert e.loc[("claude-3-7-sonnet_anthropic_2024-06-20", "retail"), "pass_1"] == pytest.approx(0.721)
    assert e.loc[("claude-3-7-sonnet_anthropic_2024-06-20", "retail"), "pass_4"] == pytest.approx(0.597)
    # results.airline is null for banking-only entries: not an entry, not a silent zero
    assert ("claude-opus-4-6_sierra_2026-05-05", "airline") not in e.index
    assert set(board.entries["n_tasks"]) <= set(DOMAIN_TASKS.values())


def test_task_counts_recover_whole_successes(board):
    # pass^1 of 4 trials on 114 retail tasks is c / 456 with c whole: a check of the task counts
    e = board.entries
    row = e[(e.submission == "gemini-3-1-flash-live-preview-thinking-high_google_2026-04-02")
            & (e.domain == "retail")].iloc[0]
    assert row["pass_1"] * 114 == pytest.approx(52.0)


@pytest.mark.parametrize("confidence, lo, hi", [
    (0.95, -0.197828257068313, 0.157828257068313),  # R: prop.test(c(35, 36), c(50, 50), correct=FALSE)
    (0.90, -0.169238177803515, 0.129238177803515),  # ... conf.level = 0.9
])
def test_gap_test_matches_r_prop_test(confidence, lo, hi):
    _, p, got_lo, got_hi = gap_test(0.70, 0.72, 50, confidence=confidence)
    assert p == pytest.approx(0.82557535933826, abs=1e-10)  # prop.test(...)$p.value
    assert (got_lo, got_hi) == pytest.approx((lo, hi), abs=1e-10)


def test_gap_test_matches_r_on_retail_counts():
    # R: prop.test(c(98, 83), c(114, 114), correct=FALSE)
    _, p, lo, hi = gap_test(98 / 114, 83 / 114, 114)
    assert p == pytest.approx(0.0140621202377384, abs=1e-10)
    assert (lo, hi) == pytest.approx((0.0279589852295593, 0.2351989095072827), abs=1e-10)


def test_same_model_resubmitted_is_an_reruns_contrast(board):
    f = reruns_floor(board)
    pairs = set(zip(f.table["a"], f.table["b"], f.table["domain"]))
    # README: claude-sonnet-4-5 and gemini-3-pro submitted by the maker and re-run by Sierra
    assert ("claude-sonnet-4-5_anthropic_2025-10-02", "claude-sonnet-4-5_sierra_2026-02-26",
            "retail") in pairs
    assert ("gemini-3-pro_google_2025-11-18", "gemini-3-pro_sierra_2026-03-02", "telecom") in pairs
    # GPT-5.2 at reasoning effort none vs high are two configurations, not a re-run
    assert not any("gpt-5-2-none" in a or "gpt-5-2-none" in b for a, b, _ in pairs)
    row = f.table[(f.table.a == "claude-sonnet-4-5_anthropic_2025-10-02")
                  & (f.table.domain == "retail")].iloc[0]
    # file: retail pass_1 86.2 (Anthropic) vs 72.37 (Sierra): +13.8 pp on 114 tasks
    assert row["gap"] == pytest.approx(0.1383)
    assert row["flagged"] and "tau2-bench version differs (0.1.3 vs 1.0.1)" in row["flags"]
    # every re-submission here differs in setup: no unflagged floor, the envelope is defined
    assert math.isnan(f.floor) and f.reason
    assert f.envelope == pytest.approx(f.table["bound"].max())
    assert f.envelope >= max(abs(f.table["gap"]))


def test_compare_flags_setup_differences_and_places_against_floor(board):
    r = compare_entries(board, "claude-sonnet-4-5_anthropic_2025-10-02",
                        "claude-sonnet-4-5_sierra_2026-02-26", floor=0.12, envelope=0.15)
    rows = {x.domain: x for x in r.rows}
    assert set(rows) == {"airline", "retail", "telecom"}
    assert rows["airline"].verdict == "below"          # |-2.0| pp < 12
    assert rows["retail"].verdict == "inside"          # 13.83 pp in [12, 15]
    assert rows["telecom"].verdict == "inside"         # 13.13 pp
    assert rows["retail"].n_tasks == 114
    assert any("user simulator differs" in f for f in rows["retail"].flags)
    assert r.to_frame().shape[0] == 3


def test_versions_v_prefix_is_the_same_version(board):
    r = compare_entries(board, "qwen3-max_qwen_2025-10-30", "qwen3-max_qwen_2026-01-23")
    assert not any("version" in f for f in r.rows[0].flags)  # v0.1.3 and v0.1.3


def test_unknown_entry_names_the_option_and_close_matches(board):
    # a MentionError: Python spells the argument a='gpt-6', the command line --a gpt-6
    with pytest.raises(ValueError, match=r"a='gpt-6'.*holds no such entry.*close matches: GPT-5"):
        compare_entries(board, "gpt-6", "gpt-5_sierra_2025-08-09")
    with pytest.raises(ValueError, match=r"b='GPT-5.2' names 2 submissions"):
        compare_entries(board, "gpt-5_sierra_2025-08-09", "GPT-5.2")


def test_one_submission_json_and_bad_fields(tmp_path):
    sub = {"model_name": "M", "model_organization": "O", "submitting_organization": "O",
           "submission_date": "2026-01-01", "submission_type": "custom",
           "results": {"telecom": {"pass_1": 50.0, "pass_2": None}},
           "methodology": {"tau2_bench_version": "1.0.1", "user_simulator": "gpt-5.2"}}
    d = tmp_path / "m_o_2026-01-01"
    d.mkdir()
    (d / "submission.json").write_text(json.dumps(sub))
    b = read_leaderboard(d / "submission.json")
    assert b.entries["submission"].tolist() == ["m_o_2026-01-01"]
    assert math.isnan(b.entries["pass_2"].iloc[0])
    bad = dict(sub, results={"telecom": {"pass_1": 150}})
    (d / "submission.json").write_text(json.dumps(bad))
    with pytest.raises(LeaderboardError, match=r"submission.json:1: submission 'm_o_2026-01-01': "
                                               r"field results.telecom.pass_1: expected a percentage"):
        read_leaderboard(d / "submission.json")
    merged = tmp_path / "merged.json"
    merged.write_text(json.dumps({"x": sub, "y": dict(sub, results={"chess": {"pass_1": 1}})},
                                 indent=1))
    with pytest.raises(LeaderboardError, match=r"merged.json:\d+: submission 'y': field "
                                               r"results.chess: unknown domain"):
        read_leaderboard(merged)


# --- the commands -----------------------------------------------------------------------------

def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_leaderboard_command_lists_and_compares(board_path):
    r = run("leaderboard", str(board_path), "--domain", "airline")
    assert r.exit_code == 0, r.output
    assert "airline (50 tasks)" in r.output and "Re-run contrasts" in r.output
    r = run("leaderboard", str(board_path), "--a", "gemini-3-pro_google_2025-11-18",
            "--b", "gemini-3-pro_sierra_2026-03-02", "--confidence", "0.9", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)["comparison"]
    assert {row["domain"] for row in doc["rows"]} == {"airline", "retail", "telecom"}
    assert all(row["confidence"] == 0.9 for row in doc["rows"])
    assert "re-runs envelope" in doc["floor_source"]


THREE = "fixtures/leaderboard/three_entries.json"


@pytest.mark.parametrize("args, named", [
    (["--tiers", "--b", "n_a", "--floor", "0.1", "--null", "a-b"], "--b, --floor, --null do not"),
    (["--tiers", "--envelope", "0.2", "--clean", "a-b"], "--envelope, --clean do not"),
    (["--tiers", "--floor-kind", "envelope"], "--floor-kind does not apply with --tiers"),
    (["--tiers", "--floor-log", "fixtures/nulls/two_systems.jsonl"], "--floor-log does not"),
    (["--floor", "0.1"], "--floor does not apply to the listing"),
    (["--plot", "x.png"], "--plot does not apply without --tiers"),
    (["--a", "m_a", "--b", "n_a", "--floor-kind", "envelope"],
     "--floor-kind does not apply without --floor-log"),
])
def test_leaderboard_options_of_another_mode_are_refused(args, named):
    r = run("leaderboard", THREE, *args)
    assert r.exit_code == 2 and named in r.output, r.output


def test_leaderboard_options_of_another_mode_are_refused_in_python():
    from noisefloor.pipelines.leaderboard import leaderboard_run
    from noisefloor.stats.validation import ParameterError

    with pytest.raises(ParameterError, match="ranks the whole leaderboard"):
        leaderboard_run(THREE, tiers=True, floor=0.1)
    with pytest.raises(ParameterError, match="no a=/b= to compare"):
        leaderboard_run(THREE, null_pairs=("a-b",), floor_logs=["x.jsonl"])


def test_leaderboard_tiers_html_writes_the_tiers_page(tmp_path):
    page = tmp_path / "tiers.html"
    r = run("leaderboard", THREE, "--tiers", "--html", str(page))
    assert r.exit_code == 0, r.output
    text = page.read_text()
    assert "tau2-bench leaderboard: tiers" in text and "3 entries in 1 tier(s)" in text
    assert "m_b" in text and "rank 95% (simultaneous)" in text


def test_leaderboard_command_unknown_entry_names_option(board_path):
    r = run("leaderboard", str(board_path), "--a", "nope-model", "--b", "GPT-5")
    assert r.exit_code != 0
    assert "--a nope-model" in r.output and "no such entry" in r.output


def test_plan_command_json_and_text():
    r = run("plan", "--gap", "0.1", "--p-d", "0.3", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert [p["n"] for p in doc["plans"]] == [234, 249]
    r = run("plan", "--n", "100", "--baseline", "0.5")
    assert r.exit_code == 0 and "+19.3" in r.output  # MDE, R pwr.2p.test(n=100, power=.8)


@pytest.mark.parametrize("args, option", [
    (("--gap", "0.1", "--p-d", "0.3", "--power", "1.5"), "--power must lie strictly between 0 and 1"),
    (("--gap", "0.1", "--p-d", "1.5"), "--p-d must lie in [0, 1]"),
    (("--gap", "0.1", "--p-d", "0.3", "--alpha", "0"), "--alpha must lie strictly between 0 and 1"),
])
def test_plan_bad_input_names_the_option(args, option):
    r = run("plan", *args)
    assert r.exit_code != 0 and option in r.output


def test_plan_plot_is_written(tmp_path):
    out = tmp_path / "power.png"
    r = run("plan", "--gap", "0.1", "--p-d", "0.3", "--baseline", "0.5", "--floor", "0.03",
            "--plot", str(out))
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_reruns_sim_command_json_and_claim():
    r = run("reruns-sim", "--flip-rate", "0.36", "--n-sim", "300", "--seed", "2",
            "--claim", "0.06", *[a for g in ["0.10", "0", "0.08", "-0.03", "0.18", "-0.03"]
                                 for a in ("--null-gap", g)],
            "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["simulation"]["m"] == 3 and doc["simulation"]["n_tasks"] == 100
    assert doc["claim"]["percentile"] == 50.0  # R: ecdf(abs(g))(0.06)
    again = json.loads(run("reruns-sim", "--flip-rate", "0.36", "--n-sim", "300", "--seed",
                           "2", "--json").output)
    assert again["simulation"] == doc["simulation"]  # the same --seed, the same rates


def test_reruns_sim_bad_flip_rate_names_option():
    r = run("reruns-sim", "--flip-rate", "0.7")
    assert r.exit_code != 0 and "--flip-rate must be in [0, 0.5]" in r.output


def test_leaderboard_text_says_why_a_value_is_undefined_and_labels_the_envelope():
    out = run("leaderboard", THREE).output
    assert "n/a pp" not in out
    assert ("  floor     n/a (every re-run pair differs in tau2 version, user simulator or "
            "submission type" in out)
    assert "  re-run gaps SD n/a (1 re-run gap(s): the SD needs two)" in out
    out = run("leaderboard", THREE, "--a", "m_a", "--b", "n_a").output
    assert "placed against the envelope: 19.8 pp (leaderboard re-runs envelope" in out
    assert "floor: 19.8" not in out and "vs envelope" in out
    out = run("leaderboard", THREE, "--a", "m_a", "--b", "n_a", "--floor", "0.1").output
    assert "placed against the floor: 10.0 pp (--floor)" in out and "vs floor" in out
    assert "n/a pp" not in run("leaderboard", THREE, "--tiers").output
