"""Regressions from the second new-user test (/work/notes/usertest2.md): log options shared by
every command, clean warnings and messages, help texts, passk --k lists."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TAU2_DIR = FIXTURES / "logs" / "tau2_dir"


def _run(*args):
    # click >= 8.2 keeps stderr apart (result.stdout / result.stderr; result.output is both).
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def test_passk_infrastructure_errors_fail_still_counts_them():
    # usertest2 item 17: under --infrastructure-errors fail the row showed 0.
    r = _run("passk", TAU2_DIR, "--k", "1", "--infrastructure-errors", "fail")
    assert r.exit_code == 0, r.output
    header, row = r.stdout.splitlines()[:2]
    assert row.split()[header.split().index("n_infrastructure_errors")] == "1"
    assert row.split()[header.split().index("n_trials")] == "6"
    assert "1 infrastructure-error trial(s) counted as failed trials" in r.stdout
    doc = json.loads(_run("passk", TAU2_DIR, "--k", "1", "--infrastructure-errors", "fail",
                          "--json").stdout)
    assert doc["groups"][0]["n_infrastructure_errors"] == 1
    assert doc["groups"][0]["infrastructure_errors"] == "fail"
    excluded = _run("passk", TAU2_DIR, "--k", "1").stdout
    assert "1 infrastructure-error trial(s) dropped before counting" in excluded


def test_passk_k_accepts_a_comma_list_and_repetition():
    # usertest2 item 15: --k 1,2,3 gave "not a valid integer range".
    doc = json.loads(_run("passk", TAU2_DIR, "--k", "1,2", "--k", "3", "--k", "2",
                          "--json").stdout)
    assert list(doc["pass_hat_k"]) == ["1", "2", "3"]
    bad = _run("passk", TAU2_DIR, "--k", "1,x")
    assert bad.exit_code == 2 and "comma-separated list" in bad.stderr + bad.output
    assert _run("passk", TAU2_DIR, "--k", "0").exit_code == 2
