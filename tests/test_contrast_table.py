"""Every contrast table has one shape: ``level`` (trial / pooled), a nullable Int64 ``seed``
(NA when pooled, never the text "pooled"), ``certified_by`` and, where rows are placed against
a floor, ``verdict`` as columns (see docs/tables.md and noisefloor.floor.contrast_table)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from noisefloor.audit.published import read_paired_counts
from noisefloor.cli.main import cli
from noisefloor.compare import compare
from noisefloor.floor.arm_contrasts import log_contrasts, place_contrasts
from noisefloor.floor.contrast_table import LEVELS, POOLED, TRIAL, check_shape, seed_array
from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.floor.estimate import noise_floor
from noisefloor.floor.nulls import EMPTY_STORE, NO_INJECTION, certified_null_contrasts
from noisefloor.pipelines import audit_run, contrast_run, floor_run


def _log(seeds=(1, 2), protocols=("intercept", "no_coord"), n_tasks=30, n_trials=3):
    """Own records over two seeds: empty stores at trial 0 (trial-0 contrasts certified),
    no injection at any trial (each protocol's re-runs certified)."""
    rng = np.random.default_rng(5)
    rows = []
    for seed in seeds:
        for protocol in protocols:
            for trial in range(n_trials):
                for i in range(n_tasks):
                    rows.append({"benchmark": "b", "model": "m", "protocol": protocol,
                                 "seed": seed, "task_id": f"t{i:02d}", "trial": trial,
                                 "reward": float(rng.random() < 0.5),
                                 "infrastructure_error": False,
                                 "store_events_at_start": 0 if trial == 0 else 2,
                                 "injections": 0})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def log() -> pd.DataFrame:
    return _log()


def _pooled_rows_have_no_seed(frame: pd.DataFrame) -> None:
    assert set(frame["level"]) <= set(LEVELS)
    assert frame.loc[frame["level"] == POOLED, "seed"].isna().all()
    assert frame.loc[frame["level"] == TRIAL, "seed"].notna().all()  # these logs have seeds


def test_floor_tables(log):
    run = floor_run(log)
    check_shape(run.null_contrasts.table)
    table = run.to_frame()
    check_shape(table)
    _pooled_rows_have_no_seed(table)
    assert {POOLED, TRIAL} == set(table["level"])
    assert set(table["certified_by"]) == {EMPTY_STORE, NO_INJECTION}
    # a count table's null contrasts and their floor
    counts = null_contrasts_from_counts(read_paired_counts())
    check_shape(counts)
    check_shape(noise_floor(counts).to_frame())


def test_log_contrasts_and_placed_contrasts(log):
    rows = log_contrasts(log)
    check_shape(rows)
    _pooled_rows_have_no_seed(rows)
    assert (rows["certified_by"] == "").all()  # trial >= 1 of two protocols: real contrasts
    placed = place_contrasts(rows, floor_run(log).noise_floor)
    check_shape(placed, verdict=True)
    # a log without seeds: every seed NA, trial rows only
    seedless = log_contrasts(_log(seeds=(1,)).drop(columns="seed"))
    check_shape(seedless)
    assert seedless["seed"].isna().all() and set(seedless["level"]) == {TRIAL}
    # no pair shares a trial: still the shape
    check_shape(log_contrasts(log, pairs=["intercept-no_coord"], trial_indices=[]))


def test_contrast_run_certifies_pooled_rows_from_their_trial_rows(log):
    run = contrast_run(log, "no_coord", "no_coord", trials=[0], trial_b=1)
    table = run.to_frame()
    check_shape(table)
    _pooled_rows_have_no_seed(table)
    assert set(table["certified_by"]) == {NO_INJECTION}
    real = contrast_run(log, "intercept", "no_coord").to_frame()
    check_shape(real)
    assert (real["certified_by"] == "").all()
    trial0 = contrast_run(log, "intercept", "no_coord", trials=[0]).to_frame()
    assert set(trial0["certified_by"]) == {EMPTY_STORE}


def test_audit_tables(log):
    run = audit_run(logs=log)
    check_shape(run.log_contrasts, verdict=True)
    check_shape(run.null_table)
    bundled = audit_run()
    check_shape(bundled.other_contrasts)
    check_shape(bundled.noise_floor.to_frame())


def test_compare_table(log):
    c = compare(log, a="intercept", b="no_coord")
    frame = c.to_frame()
    check_shape(frame, verdict=True)
    _pooled_rows_have_no_seed(frame)
    assert frame["verdict"].iloc[-1] == c.verdict  # the pooled row's verdict is the result's
    assert (frame["certified_by"] == "").all()
    assert {r["level"] for r in c.null_contrasts} == {TRIAL}


# --- the --json of every command that prints a contrast table --------------------------

def _json_rows_have_the_shape(records: list[dict], *, verdict: bool = False) -> None:
    assert records
    for r in records:
        assert r["level"] in LEVELS
        assert r["seed"] is None or (isinstance(r["seed"], int) and r["level"] == TRIAL)
        assert isinstance(r["certified_by"], str)
        if verdict:
            assert isinstance(r["verdict"], str)
    assert any(r["level"] == POOLED for r in records)


@pytest.fixture(scope="module")
def log_file(tmp_path_factory, log) -> str:
    path = tmp_path_factory.mktemp("shape") / "trials.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for rec in log.to_dict(orient="records"):
            fh.write(json.dumps({**rec, "schema_version": "1", "termination_reason": "done"})
                     + "\n")
    return str(path)


def _json(args: list[str]) -> dict:
    r = CliRunner().invoke(cli, args + ["--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_every_commands_json(log_file, tmp_path):
    _json_rows_have_the_shape(_json(["floor", "--log", log_file])["contrasts"])
    _json_rows_have_the_shape(_json(["contrast", "--log", log_file, "--a", "intercept",
                                     "--b", "no_coord"])["contrasts"])
    doc = _json(["audit", "--log", log_file, "--no-plot", "--out", str(tmp_path / "a")])
    _json_rows_have_the_shape(doc["log_contrasts"], verdict=True)
    _json_rows_have_the_shape(doc["noise_floor"]["contrasts"])
    bundled = _json(["audit", "--no-plot", "--out", str(tmp_path / "b")])
    assert all(r["level"] == TRIAL and isinstance(r["seed"], int)
               for r in bundled["other_contrasts"])
    doc = _json(["compare", "--log", log_file, "--a", "intercept", "--b", "no_coord"])
    _json_rows_have_the_shape(doc["trials"] + [doc["pooled"]], verdict=True)


def test_the_old_pooled_seed_is_refused():
    t = pd.DataFrame({"level": ["trial", "pooled"], "seed": [1, "pooled"], "certified_by": ""})
    with pytest.raises(ValueError, match="Int64"):
        check_shape(t)
    with pytest.raises(ValueError, match="seed must be an integer or missing, got 'pooled'"):
        seed_array([1, "pooled"])
    with pytest.raises(ValueError, match="level must be one of"):
        check_shape(t.assign(seed=seed_array([1, None]), level=["seed", "pooled"]))
    with pytest.raises(ValueError, match="a pooled row has a seed"):
        check_shape(t.assign(seed=seed_array([1, 2])))
    with pytest.raises(ValueError, match="certified_by must hold strings"):
        check_shape(t.assign(seed=seed_array([1, None]), certified_by=[None, ""]))


def test_null_contrasts_are_the_one_path(log):
    # the floor of a log, from Python, is floor_run; its table is certified_null_contrasts'
    run = floor_run(log)
    direct = certified_null_contrasts(log).table
    pd.testing.assert_frame_equal(run.null_contrasts.table, direct)
    import noisefloor.floor.estimate as floor_module
    import noisefloor.pipelines as pipelines

    for gone in ("null_contrasts_from_trials", "noise_floor_from_trials", "SEED",
                 "null_contrasts_from_counts", "split_protocol_pair", "certified_null_contrasts"):
        assert not hasattr(floor_module, gone), gone
    assert not hasattr(pipelines, "_quiet_nulls")
