"""Fixtures of the HTML page tests: each report kind's page (--html) and its --json, and a
small synthetic tax run."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the helper modules nf_pages, nf_browser

from nf_pages import COMMANDS, ROOT, run_cli


@pytest.fixture(scope="session")
def tax_run(tmp_path_factory) -> Path:
    """A small synthetic tax run with a prompt variant and a mixed pair."""
    from noisefloor.tax.synthetic import write_synthetic_run

    d = tmp_path_factory.mktemp("taxrun")
    write_synthetic_run(d, tasks=[("spatial_maze_halves", "spatial"),
                                  ("relational_family_tree", "relational"),
                                  ("csp_sudoku4", "csp")], n_instances=6,
                        variants={"explicit": {"spatial": 0.5, "relational": 0.3, "csp": 0.2}},
                        mixed=[("model-hi", "model-lo")])
    return d


@pytest.fixture(scope="session")
def reports(tmp_path_factory, tax_run) -> dict[str, tuple[Path, object]]:
    """Each kind's page (written by --html) and its --json document (printed by the same run)."""
    tmp = tmp_path_factory.mktemp("pages")
    out: dict[str, tuple[Path, object]] = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for kind, args in COMMANDS.items():
            args = [a.format(tmp=tmp, tax=tax_run) for a in args]
            page = tmp / f"{kind}.html"
            # one run writes the page and prints the --json document of the same result
            doc = json.loads(run_cli([*args, f"--html={page}", "--json"]))
            out[kind] = (page, doc)
    finally:
        os.chdir(cwd)
    return out

