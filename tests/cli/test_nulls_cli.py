"""audit, floor and contrast on certified null contrasts, labelled runs and models,
and the audit's terminal output and report.md carrying the same content."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.pipelines import audit_run
from noisefloor.report.text import claim_facts, floor_facts, log_contrast_facts


@pytest.fixture(scope="module")
def nulls_dir(fixtures_dir):
    return fixtures_dir / "nulls"


def invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


@pytest.mark.parametrize("command", ["floor", "audit"])
def test_nothing_certified_is_an_error_naming_the_remedies(command, nulls_dir, tmp_path):
    args = [command, "--log", nulls_dir / "two_systems.jsonl"]
    if command == "audit":
        args += ["--out", tmp_path]
    r = invoke(*args)
    assert r.exit_code == 1
    assert "no null contrast can be formed: nothing certifies any of the 3 candidate" in r.output
    assert "declare a pair you know cannot differ with --null as 'a-b'" in r.output
    assert "null_pairs" not in r.output  # the library keyword is shown as the option


def test_declared_null_is_said_in_text_and_json(nulls_dir):
    log = nulls_dir / "two_systems.jsonl"
    r = invoke("floor", log, "--null", "baseline-baseline")
    assert r.exit_code == 0, r.output
    assert "certified null by: declared null by the user (every null contrast)" in r.output
    assert "skipped: 2 pair(s) nothing certifies as null" in r.output
    doc = json.loads(invoke("floor", "--log", log, "--null", "baseline-baseline", "--json").output)
    assert [c["certified_by"] for c in doc["contrasts"]] == ["declared null by the user"] * 2
    assert {s["contrast"] for s in doc["skipped"]} == {"baseline-swarm", "swarm[t0]-swarm[t1]"}
    assert all(s["reason"] for s in doc["skipped"])


def test_floor_of_two_tau2_runs(nulls_dir):
    r = invoke("floor", nulls_dir / "tau2_runA", "--log", nulls_dir / "tau2_runB", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    labels = {c["contrast"] for c in doc["contrasts"] if c["level"] == "trial"}
    assert "default@tau2_runA[t0]-default@tau2_runB[t0]" in labels and len(labels) == 4


def test_contrast_of_labelled_runs_and_of_models(nulls_dir):
    a, b, m = (nulls_dir / n for n in ("tau2_runA", "tau2_runB", "tau2_modelB"))
    r = invoke("contrast", "--log", f"{a}=baseline", "--log", f"{b}=variant", "--a", "variant",
               "--b", "baseline", "--trial", 0, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["by"] == "protocol" and doc["contrasts"][0]["contrast"] == "variant-baseline"
    assert doc["contrasts"][0]["certified_by"] == ""
    r = invoke("contrast", "--log", a, "--log", m, "--a", "claude-haiku-4-5", "--b",
               "gpt-4.1-mini", "--by", "model")
    assert r.exit_code == 0 and "models paired by task and trial" in r.output
    assert "claude-haiku-4-5-gpt-4.1-mini" in r.output


def test_contrast_reruns_says_what_certifies_it(shared_data):
    log = shared_data / "tau-bench" / "gpt-4o-airline.json"
    r = invoke("contrast", "--log", log, "--a", "default", "--b", "default", "--trial", 0,
               "--trial-b", 1)
    assert r.exit_code == 0, r.output
    row = [line for line in r.output.splitlines() if "default[t0]-default[t1]" in line][0]
    assert "9/10/31" in row and row.rstrip().endswith("no store reader")
    bad = invoke("contrast", "--log", log, "--a", "default", "--b", "x", "--trial-b", 1)
    assert bad.exit_code == 2 and "--trial-b goes with --a = --b" in bad.output


def test_log_spec_errors(tmp_path):
    r = invoke("floor", "--log", tmp_path / "missing.json=baseline")
    assert r.exit_code == 2 and "missing.json' does not exist" in r.output
    r = invoke("floor", f"{tmp_path / 'x.json'}=")
    assert r.exit_code == 2 and "a labelled log is written PATH=LABEL" in r.output


def test_null_options_go_with_logs(tmp_path):
    r = invoke("audit", "--null", "a-b", "--out", tmp_path)
    assert r.exit_code == 2 and "--null, --no-trial0, --no-reruns, --by, --a and --b go with --log" in r.output
    r = invoke("contrast", "--wins", 3, "--losses", 1, "--null", "a-b")
    assert r.exit_code == 2 and "go with --log" in r.output


def _fact_texts(run):
    nf = run.noise_floor
    facts = [t for _, t in floor_facts(nf, run.null_table, run.skipped)]
    if run.from_logs:
        from noisefloor.cli._common import option_spelling
        from noisefloor.cli.audit import audit as audit_command

        # notes mention options: spelled as the command spells them
        facts += [t for _, t in log_contrast_facts(run, option_spelling(audit_command))]
    head, claims, flagged = claim_facts(run)
    return facts + [head] + [t for _, t in claims] + flagged


@pytest.mark.parametrize("logs", [None, "paper"])
def test_terminal_and_report_md_carry_the_same_content(logs, fixtures_dir, tmp_path):
    args = ["audit", "--out", tmp_path, "--no-plot"]  # the facts are text; the plot adds none
    kwargs = {}
    if logs:
        path = fixtures_dir / "logs" / logs
        args += ["--log", path, "--benchmark", "tau2/retail", "--model", "m"]
        kwargs = {"logs": [path], "benchmark": "tau2/retail", "model": "m"}
    text = invoke(*args).output
    report = (tmp_path / "report.md").read_text()
    run = audit_run(**kwargs)
    facts = _fact_texts(run)
    assert any(f.startswith("left out:") for f in facts) == bool(logs)
    assert any(f.startswith("skipped:") for f in facts) == bool(logs)
    assert any(f.startswith("certified null by:") for f in facts)
    for fact in facts:
        assert fact in text, fact
        # Markdown capitalises the first letter (and escapes a leading '*')
        assert fact[1:] in report, fact
    # the tables too: every contrast of the floor appears in both
    for label in run.noise_floor.to_frame()["contrast"]:
        assert label in text and f"| {label}" in report
