"""``noisefloor.monitoring.sigma``: the R1 sigma from a floor of the same deployment,
in the library (``noisefloor monitor --floor-log`` only reads its options and renders)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from noisefloor.logs import load_trials
from noisefloor.monitoring import FloorSigma, floor_sigma, monitor_trials
from noisefloor.monitoring.sigma import labels_differ
from noisefloor.pipelines import floor_run
from noisefloor.stats.validation import MentionError

PAPER = "fixtures/logs/paper"
LABELS = dict(benchmark="tau2/retail", model="m")


def _log(path, *, model="m", seeds=(0, 1), tasks=30, rng_seed=4):
    """Trial 0 of two protocols with empty stores (a certified null contrast) at each seed."""
    rng = np.random.default_rng(rng_seed)
    with open(path, "w", encoding="utf-8") as fh:
        for seed in seeds:
            for protocol in ("no_coord", "intercept"):
                for t in range(tasks):
                    fh.write(json.dumps({
                        "schema_version": "1", "benchmark": "tau2/retail", "model": model,
                        "protocol": protocol, "seed": seed, "task_id": f"t{t}", "trial": 0,
                        "reward": float(rng.random() < 0.5), "termination_reason": None,
                        "infrastructure_error": False, "store_events_at_start": 0,
                        "injections": 0}) + "\n")
    return str(path)


def test_sigma_is_the_null_gap_sd_of_the_floor_of_the_logs():
    trials = load_trials(PAPER, **LABELS)
    s = floor_sigma(PAPER, trials, **LABELS)
    nf = floor_run(PAPER, **LABELS).noise_floor
    # the same floor as `noisefloor floor` computes: its null_gap_sd, over its per-seed gaps
    assert s.sigma == nf.null_gap_sd and s.sigma > 0
    assert s.n_null == int((nf.table["level"] == "trial").sum()) == 4
    assert s.logs == PAPER and isinstance(s, FloorSigma)
    with pytest.raises(AttributeError):
        s.sigma = 0.1  # type: ignore[misc]  # frozen
    assert s.to_dict()["sigma"] == s.sigma and s.to_dict()["noise_floor"]["floor"] == nf.floor
    # a trial frame gives the same reading as its paths
    assert floor_sigma(trials, trials).sigma == s.sigma


def test_the_floor_is_the_unit_of_r1_with_its_source(tmp_path):
    log = _log(tmp_path / "floor.jsonl", model="demo-model")
    monitored = load_trials("fixtures/monitor/monitored.jsonl")
    s = floor_sigma(log, monitored)
    # two seeds: the SD (ddof 1) of two gaps is |g1 - g2| / sqrt(2)
    gaps = s.noise_floor.table.query("level == 'trial'")["gap"].to_numpy()
    assert len(gaps) == 2 and s.sigma == pytest.approx(abs(gaps[0] - gaps[1]) / math.sqrt(2))
    rep = monitor_trials(monitored, load_trials("fixtures/monitor/baseline.jsonl"),
                         sigma=s.noise_floor)
    assert rep.r1 is not None and rep.r1.sigma == s.sigma
    assert rep.r1.sigma_source == "null_gap_sd of NoiseFloor"


def test_another_model_or_benchmark_is_refused_naming_both(tmp_path):
    other = _log(tmp_path / "other.jsonl", model="m2")
    monitored = load_trials(_log(tmp_path / "mon.jsonl"))
    with pytest.raises(MentionError) as info:
        floor_sigma(other, monitored)
    text = str(info.value)
    assert text.startswith(f"floor_logs= {other}: the floor's logs are model m2 (the monitored "
                           "trials: m)")
    assert text.endswith("or sigma=")
    spelled = info.value.render(lambda n, v: {"floor_logs": "--floor-log", "sigma": "--sigma"}[n])
    assert spelled.startswith(f"--floor-log {other}: ") and spelled.endswith("or --sigma")


def test_labels_differ_compares_benchmark_and_model_only():
    a = pd.DataFrame({"benchmark": ["b", "b"], "model": ["m", "m"], "protocol": ["x", "y"]})
    assert labels_differ(a, a.assign(protocol="z")) == []
    assert labels_differ(a, a.assign(benchmark="c", model="n")) == [
        "benchmark b (the monitored trials: c)", "model m (the monitored trials: n)"]
    # a label missing on one side is not compared (nothing to contradict)
    assert labels_differ(a.drop(columns="model"), a.assign(model="n")) == []


def test_no_null_contrast_and_an_unusable_sd_are_refused(tmp_path):
    monitored = load_trials(_log(tmp_path / "mon.jsonl"))
    # one seed: a single per-seed null gap has no SD
    one = _log(tmp_path / "one.jsonl", seeds=(0,))
    with pytest.raises(MentionError, match=r"null_gap_sd is nan, not a usable sigma .*1 "
                                           r"per-seed null contrast\(s\)\); pass sigma= instead"):
        floor_sigma(one, monitored)
    # no certificate (no store_events_at_start): the floor's own error, its remedies kept as
    # mentions under the logs' name
    rows = [json.loads(line) for line in open(_log(tmp_path / "x.jsonl"), encoding="utf-8")]
    uncertified = tmp_path / "uncertified.jsonl"
    uncertified.write_text("".join(json.dumps({**r, "store_events_at_start": None}) + "\n"
                                   for r in rows))
    with pytest.raises(MentionError) as info:
        floor_sigma(str(uncertified), monitored)
    assert str(info.value).startswith(f"floor_logs= {uncertified}: no null contrast can be formed")
    assert "--null" in info.value.render(lambda n, v: "--null" if n == "null_pairs" else n)
