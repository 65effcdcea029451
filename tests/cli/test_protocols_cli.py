"""``noisefloor protocols run``: options and ``--config`` are checked before anything runs."""

from __future__ import annotations

from click.testing import CliRunner

from noisefloor.cli.main import cli


def _run(tmp_path, *args, config=None):
    argv = ["protocols", "run", "--out", str(tmp_path / "out"), *args]
    if config is not None:
        path = tmp_path / "run.toml"
        path.write_text(config)
        argv += ["--config", str(path)]
    return CliRunner().invoke(cli, argv)


def test_a_model_needs_a_base_url(tmp_path):
    r = _run(tmp_path, "--agent-model", "m")
    assert r.exit_code == 2 and "--base-url: no base URL for model 'm'" in r.output


def test_config_models_and_protocols_tables_are_read_and_checked(tmp_path):
    config = ('[protocols]\ntrials = 0\n\n[[models]]\nname = "m"\nbase_urls = ["http://127.0.0.1:1/v1"]\n'
              "price_input_per_mtok = 1.0\nprice_output_per_mtok = 2.0\n")
    r = _run(tmp_path, "--agent-model", "m", config=config)
    # the model's URL came from [[models]]; the [protocols] default reached the settings
    assert r.exit_code == 2 and "--trials must be an integer >= 1, got 0" in r.output
    r = _run(tmp_path, "--agent-model", "m", config='[protocols]\nturns = 3\n')
    assert r.exit_code == 2 and "unknown [protocols] key(s) ['turns']" in r.output
    r = _run(tmp_path, "--agent-model", "m", config='[models]\nname = 1\n[extra]\n')
    assert r.exit_code == 2 and "unknown table(s) ['extra']" in r.output


def test_bad_protocol_and_judged_writer_without_a_model_are_usage_errors(tmp_path):
    r = _run(tmp_path, "--agent-model", "m", "--base-url", "http://127.0.0.1:1/v1",
             "--protocols", "no_coord,magic")
    assert r.exit_code == 2 and "--protocols must be distinct names among" in r.output
    r = _run(tmp_path, "--agent-model", "m", "--base-url", "http://127.0.0.1:1/v1",
             "--writer", "judged")
    assert r.exit_code == 2 and "--writer judged needs --refine-model" in r.output


def test_json_is_the_run_result_through_the_one_writer(tmp_path, monkeypatch):
    import json

    from noisefloor.cli._common import jsonable
    from noisefloor.protocols.tau2 import run as tau2_run

    result = tau2_run.ProtocolRunResult(
        out=tmp_path / "out", simulations=4, ran=4, infrastructure_errors=0,
        events_written={"intercept": 2}, results={"intercept": tmp_path / "r.json"},
        trials_path=tmp_path / "out" / "trials.jsonl", success={"intercept/0": (1, 2)})
    monkeypatch.setattr(tau2_run, "run_protocols", lambda *a, **k: result)
    r = _run(tmp_path, "--agent-model", "m", "--base-url", "http://127.0.0.1:1/v1", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == jsonable(result.to_dict())
