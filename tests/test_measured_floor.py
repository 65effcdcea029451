"""``noisefloor.pipelines.measured.measured_floor``: the floor reading ``plan``/``leaderboard``
``--floor-log`` use, computed in the library (the CLI only reads options and renders)."""

from __future__ import annotations

import pytest

from noisefloor.pipelines import floor_run
from noisefloor.pipelines.measured import measured_floor

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
