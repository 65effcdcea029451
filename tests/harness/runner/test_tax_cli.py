"""``noisefloor tax run`` / ``tax merge`` through click, against the scripted loopback server."""

from __future__ import annotations

import json

from click.testing import CliRunner

from noisefloor.cli.main import cli


def _invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _config(tmp_path, server, body=""):
    path = tmp_path / "run.toml"
    path.write_text(f"""
[run]
tasks = ["csp_sudoku4"]
modes = ["solo", "pair"]
rollouts = 2
difficulty = 0
turn_cap = 4
out = "runs/first"

[[models]]
name = "solver"
base_urls = ["{server.base_url}"]
concurrency = 2
price_input_per_mtok = 0.15
price_output_per_mtok = 0.6

[[models]]
name = "silent"
base_urls = ["{server.base_url}", "{server.base_url}"]
{body}""")
    return path


def test_run_from_a_config_with_json_summary_and_progress(server, tmp_path):
    config = _config(tmp_path, server)
    res = _invoke("tax", "run", "--config", str(config), "--models", "solver",
                  "--pair-models", "solver+silent", "--json", "--progress")
    assert res.exit_code == 0, res.output + res.stderr
    doc = json.loads(res.stdout)
    # 2 instances x (solo, pair) of solver + 2 x both slot orders of the mixed pair, and
    # the solos of the pair's member that --models does not list (silent): the game needs them
    assert (doc["planned"], doc["ran"], doc["missing"]) == (10, 10, 0)
    assert doc["out_dir"] == str(tmp_path / "runs" / "first")  # relative to the config file
    assert doc["cost_usd"] is None  # 'silent' has no price: unknown, never 0
    assert "warning: no price known for model 'silent'" in res.stderr
    assert "rollout" in res.stderr and "errors 0" in res.stderr  # the tqdm bar, on stderr
    cells = {(c["model"], c["protocol"]): c for c in doc["cells"]}
    assert cells[("solver", "solo")]["mean_reward"] == 1.0
    assert cells[("silent+solver", "pair")]["turn_caps"] == 2
    assert cells[("silent", "solo")]["turn_caps"] == 2
    assert {s["base_url"] for s in doc["endpoint_stats"]} == {server.base_url}

    # command-line options win over [run]; a resume of the same directory runs nothing
    res = _invoke("tax", "run", "--config", str(config), "--models", "solver", "--modes", "solo",
                  "--out", str(tmp_path / "runs" / "first"))
    assert res.exit_code == 0, res.stderr
    assert "2 rollouts planned, 2 already done, 0 run now" in res.stdout
    assert "solver     solo  2       1.000" in res.stdout


def test_errors_name_the_file_the_field_or_the_option(server, tmp_path):
    config = _config(tmp_path, server, "concurrency = 0\n")
    res = _invoke("tax", "run", "--config", str(config), "--models", "solver")
    assert res.exit_code == 1
    assert "run.toml: models[1].concurrency: Input should be greater than or equal to 1" \
        in res.stderr
    res = _invoke("tax", "run", "--tasks", "csp_sudoku4", "--models", "m", "--out",
                  str(tmp_path / "x"))
    assert res.exit_code == 2 and "model 'm' has no endpoint: give --base-url" in res.stderr
    res = _invoke("tax", "run", "--tasks", "csp_sudoku4", "--models", "solver", "--base-url",
                  server.base_url, "--out", str(tmp_path / "y"), "--shard", "3/2")
    assert res.exit_code == 1 and "shard must be 'i/n' with 1 <= i <= n, got '3/2'" in res.stderr
    res = _invoke("tax", "run", "--tasks", "csp_sudoku4", "--models", "solver", "--base-url",
                  server.base_url, "--out", str(tmp_path / "y"), "--pair-models", "solver")
    assert res.exit_code == 2 and "expected A+B, got 'solver'" in res.stderr


def test_shards_then_merge_on_the_command_line(server, tmp_path):
    common = ["tax", "run", "--tasks", "csp_sudoku4", "--models", "solver", "--difficulty", "0",
              "--rollouts", "3", "--base-url", server.base_url, "--no-progress"]
    for i in (1, 2):
        res = _invoke(*common, "--out", str(tmp_path / f"s{i}"), "--shard", f"{i}/2")
        assert res.exit_code == 0, res.stderr
        assert f"(shard {i}/2)" in res.stdout
    res = _invoke("tax", "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out",
                  str(tmp_path / "all"), "--json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["records"] == 6
    res = _invoke("passk", str(tmp_path / "all" / "trials.jsonl"), "--k", "1")
    assert res.exit_code == 0, res.stderr
    assert "tax/csp_sudoku4" in res.stdout
    res = _invoke("contrast", "--log", str(tmp_path / "all" / "trials.jsonl"), "--a", "solo",
                  "--b", "pair", "--trial", "0")
    assert res.exit_code == 0, res.stderr
    assert "0/0/3" in res.stdout  # the solver solves both modes: three ties


def test_pair_models_without_solo_mode_warns_naming_the_members_and_option(server, tmp_path):
    res = _invoke("tax", "run", "--tasks", "csp_sudoku4", "--pair-models", "solver+silent",
                  "--modes", "pair", "--base-url", server.base_url, "--out", str(tmp_path / "z"),
                  "--rollouts", "1", "--turn-cap", "2")
    assert res.exit_code == 0, res.output
    assert "runs no solo rollout of solver, silent" in res.stderr and "--modes" in res.stderr
