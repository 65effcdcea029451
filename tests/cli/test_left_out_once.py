"""the 'left out' totals of contrast --log and audit --log count each task once.

With several seeds, log_contrasts adds rows pooled over seeds (their counts are the per-seed
counts summed) and, in audit, coordination-active rows (a subset of the trial-1 tasks). Adding
up every row counted one excluded task two or three times.
"""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from noisefloor.audit.verdicts import left_out_totals, log_contrasts
from noisefloor.cli.main import cli


def _two_seed_log(path):
    """2 seeds, 2 trials, 12 tasks; task T0 of intercept is an infrastructure error at every
    trial of both seeds, task T11 of no_coord is missing at trial 1 of seed 2."""
    lines = []
    for seed in (1, 2):
        for protocol in ("no_coord", "intercept"):
            for trial in (0, 1):
                for i in range(12):
                    if protocol == "no_coord" and i == 11 and seed == 2 and trial == 1:
                        continue
                    infra = protocol == "intercept" and i == 0
                    lines.append(json.dumps({
                        "schema_version": "1", "benchmark": "b", "model": "m", "seed": seed,
                        "protocol": protocol, "task_id": f"T{i}", "trial": trial,
                        "infrastructure_error": infra,
                        "reward": None if infra else float((i + trial + seed) % 3 == 0),
                        "termination_reason": "user_stop",
                        # an empty store certifies the null contrasts (a log that does
                        # not record the store has none)
                        "store_events_at_start": 0}))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def two(tmp_path):
    return _two_seed_log(tmp_path / "two.jsonl")


def test_left_out_totals_empty_table_is_zero():
    assert left_out_totals(pd.DataFrame(columns=["seed", "trial", "subset", "contrast",
                                                 "n_only_a", "n_only_b", "n_excluded"])) == {
        "n_only_a": 0, "n_only_b": 0, "n_excluded": 0}


def test_log_contrasts_totals_skip_pooled_and_subset_rows(two):
    from noisefloor.logs import load_trials

    rows = log_contrasts(load_trials(two), coordination_active=True)
    # the rows themselves keep every detail: per seed, pooled, and the subset rows
    assert set(map(str, rows["seed"])) == {"1", "2", "<NA>"}
    assert list(rows.loc[rows["seed"].isna(), "level"].unique()) == ["pooled"]
    assert set(rows["subset"]) == {"all", "coordination_active"}
    assert int(rows["n_excluded"].sum()) > 2  # what the old code printed
    # one excluded task per seed at trial 1 (T0), one task in one arm only (seed 2)
    assert left_out_totals(rows) == {"n_only_a": 1, "n_only_b": 0, "n_excluded": 2}


def test_contrast_log_counts_each_excluded_task_once(two):
    run = CliRunner()
    text = run.invoke(cli, ["contrast", "--log", str(two), "--a", "intercept", "--b", "no_coord"])
    assert text.exit_code == 0, text.output
    assert "pooled" in text.output
    assert ("left out: 1 task(s) present in one arm only, 2 with an infrastructure error"
            in text.output)
    out = run.invoke(cli, ["contrast", "--log", str(two), "--a", "intercept", "--b", "no_coord",
                           "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.output)
    assert d["left_out"] == {"n_only_a": 1, "n_only_b": 0, "n_excluded": 2}
    # per-row detail kept: seed 1, seed 2 and pooled rows each carry their own counts
    per_row = {(r["level"], r["seed"]): r["n_excluded"] for r in d["contrasts"]}
    assert per_row == {("trial", 1): 1, ("trial", 2): 1, ("pooled", None): 2}


def test_audit_log_counts_each_excluded_task_once(two, tmp_path):
    run = CliRunner()
    args = ["audit", "--log", str(two), "--out", str(tmp_path / "o"), "--no-plot"]
    text = run.invoke(cli, args)
    assert text.exit_code == 0, text.output
    line = [x for x in text.output.splitlines()
            if "left out:" in x and "present in one arm only" in x and "log_contrasts" in x]
    assert len(line) == 1, text.output
    assert "1 task(s) present in one arm only, 2 with an infrastructure error" in line[0]
    out = run.invoke(cli, args + ["--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.output)
    assert d["log_contrasts_left_out"] == {"n_only_a": 1, "n_only_b": 0, "n_excluded": 2}
    assert sum(r["n_excluded"] for r in d["log_contrasts"]) > 2  # rows keep their detail
