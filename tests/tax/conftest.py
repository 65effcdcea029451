"""Synthetic tax runs shared by the tax tests (written once per session, small and fast)."""

from __future__ import annotations

import pytest

from noisefloor.tax.synthetic import write_synthetic_run

# two tasks per family keep every run small; the planted tax differs clearly by family
TASKS = [("spatial_maze_halves", "spatial"), ("spatial_one_way", "spatial"),
         ("relational_family_tree", "relational"), ("relational_org_chart", "relational"),
         ("csp_sudoku4", "csp"), ("csp_seating", "csp")]
MODELS = {"m-hi": 1.0, "m-mid": 0.9, "m-lo": 0.8}
FAMILY_TAX = {"spatial": 0.40, "relational": 0.22, "csp": 0.08}
VARIANTS = {"all_four": {"spatial": 0.5, "relational": 0.4, "csp": 0.4},
            "no_L4": {"spatial": 0.05, "relational": 0.4, "csp": 0.4}}


@pytest.fixture(scope="session")
def planted(tmp_path_factory):
    """A run with a planted tax per family, two variants and a mixed pair in both orders."""
    d = tmp_path_factory.mktemp("planted")
    truth = write_synthetic_run(d, models=MODELS, tasks=TASKS, n_instances=60,
                                family_tax=FAMILY_TAX, variants=VARIANTS,
                                mixed=[("m-hi", "m-lo"), ("m-lo", "m-hi")], seed=11)
    return d, truth


@pytest.fixture(scope="session")
def small(tmp_path_factory):
    """A small run with one transcript file per rollout."""
    d = tmp_path_factory.mktemp("small")
    truth = write_synthetic_run(d, models=MODELS, tasks=TASKS, n_instances=6,
                                transcripts="per_rollout", seed=3)
    return d, truth


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch):
    """The runner's and the judge's journals fsync every line (so that a power cut loses at
    most the line being written); no tax test cuts the power, and a killed process loses
    nothing the page cache holds, so here the fsync is only waiting for the disk (about 4 ms
    a line, a few seconds per run of a thousand rollouts)."""
    import os

    monkeypatch.setattr(os, "fsync", lambda fd: None)
