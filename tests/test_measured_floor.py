"""``noisefloor.pipelines.measured.measured_floor``: the floor reading ``plan``/``leaderboard``
``--floor-log`` use, computed in the library (the CLI only reads options and renders)."""

from __future__ import annotations

import pytest

from noisefloor.pipelines import floor_run
from noisefloor.pipelines.measured import measured_floor, required_floor
from noisefloor.stats.validation import MentionError

LOG = dict(logs="fixtures/logs/paper", benchmark="tau2/retail", model="m")


def test_the_floor_and_envelope_are_floor_runs_with_their_contrast_and_n():
    run = floor_run(LOG["logs"], benchmark="tau2/retail", model="m")
    nf = run.noise_floor
    floor = measured_floor(LOG["logs"], benchmark="tau2/retail", model="m")
    envelope = measured_floor(LOG["logs"], "envelope", benchmark="tau2/retail", model="m")
    # same source as floor_run's doctest: the fixture's floor is 0.25 (intercept-no_coord)
    assert (floor.value, floor.contrast) == (0.25, "intercept-no_coord") == (
        nf.floor, nf.floor_contrast)
    assert (envelope.value, envelope.contrast) == (nf.envelope, nf.envelope_contrast)
    assert envelope.value > floor.value
    # n: the most paired tasks at one seed of the contrast that sets the reading
    table = run.null_contrasts.table
    rows = table[table["contrast"] == "intercept-no_coord"]
    assert floor.n_tasks == int((rows["wins"] + rows["losses"] + rows["ties"]).max()) == 4
    assert floor.reason == "" and floor.to_dict()["kind"] == "floor"


def test_the_level_moves_the_reading():
    # the envelope is an upper bound at the level: wider at 99% than at 90% (the fixture's
    # floor, 0.25, is the same at both levels on its four tasks)
    lo, hi = (measured_floor(LOG["logs"], "envelope", benchmark="tau2/retail", model="m",
                             confidence=c) for c in (0.90, 0.99))
    assert lo.value < hi.value and (lo.confidence, hi.confidence) == (0.90, 0.99)
    assert lo.value == floor_run(LOG["logs"], benchmark="tau2/retail", model="m",
                                 confidence=0.90).noise_floor.envelope


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="kind"):
        measured_floor(LOG["logs"], "median", benchmark="tau2/retail", model="m")


def _tied_log(path):
    """Two protocols certified null at trial 0 (identical first requests) with every task
    tied: the floor is a contrast without one informative pair, so it is undefined."""
    import json

    with open(path, "w", encoding="utf-8") as fh:
        for i in range(5):
            for protocol in ("no_coord", "intercept"):
                fh.write(json.dumps({
                    "schema_version": "1", "benchmark": "tau2/retail", "model": "m",
                    "protocol": protocol, "seed": 1, "task_id": f"t{i}", "trial": 0,
                    "reward": 1.0, "termination_reason": None, "infrastructure_error": False,
                    "store_events_at_start": 0, "injections": 0,
                    "first_request_sha256": "a" * 64}) + "\n")
    return str(path)


def test_required_floor_is_the_measured_floor_with_its_source_line():
    m = required_floor(LOG["logs"], benchmark="tau2/retail", model="m")
    assert m == measured_floor(LOG["logs"], benchmark="tau2/retail", model="m")
    assert m.source == "floor of fixtures/logs/paper (intercept-no_coord)"
    # labelled logs read as typed; a level other than 0.95 is named in the line
    m = required_floor([("fixtures/logs/paper", None)], "envelope", confidence=0.9,
                       benchmark="tau2/retail", model="m")
    assert m.contrast and m.source == (
        f"envelope of fixtures/logs/paper ({m.contrast}, upper 90% bound)")
    assert m.to_dict()["source"] == m.source


def test_required_floor_refuses_an_undefined_floor_naming_the_logs_and_the_remedy(tmp_path):
    log = _tied_log(tmp_path / "tied.jsonl")
    undefined = measured_floor(log)
    assert undefined.value != undefined.value and undefined.reason  # NaN with a reason
    assert undefined.source.startswith(f"floor of {log} (undefined: ")
    with pytest.raises(MentionError) as info:
        required_floor(log)
    text = str(info.value)
    assert text.startswith(f"floor_logs= {log}: no floor can be read (")
    assert "null_pairs=" in text and undefined.reason in text
    # a front end spells the mentions as its options
    spelled = info.value.render(lambda name, value: {"floor_logs": "--floor-log",
                                                     "null_pairs": "--null"}[name])
    assert spelled.startswith(f"--floor-log {log}: ") and "with --null (" in spelled
    # the same log with the pair declared null but nothing untied is still undefined, so the
    # refusal does not depend on how the pair was certified
    with pytest.raises(MentionError):
        required_floor(log, null_pairs=["no_coord-intercept"])
