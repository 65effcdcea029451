"""Commands import only what they use: checked in a fresh interpreter (``sys.modules``).

A count-only ``contrast`` needs pandas and scipy.special, never matplotlib, statsmodels,
scipy.stats or the log readers; ``audit`` on the bundled data draws its figures (matplotlib)
but loads neither statsmodels nor scipy.stats (its sign tests and DerSimonian-Laird pooling
are closed forms on scipy.special's kernels). Speed itself is measured by
benchmarks/cli_startup.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

WATCHED = ("matplotlib", "statsmodels", "scipy.stats", "noisefloor.logs.load", "pydantic",
           "noisefloor.report.forest", "noisefloor.floor.estimate", "pandas", "scipy")


def loaded(args: list[str] | None) -> set[str]:
    """Which of :data:`WATCHED` a fresh interpreter holds after importing the CLI (and running
    ``noisefloor ARGS`` when given)."""
    code = ("import json, sys\nimport noisefloor.cli.main as m\n"
            f"args = {args!r}\n"
            "if args is not None:\n"
            "    try:\n        m.cli(args, prog_name='noisefloor')\n"
            "    except SystemExit as e:\n        assert not e.code, e.code\n"
            f"print('LOADED', json.dumps([w for w in {WATCHED!r} if w in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("LOADED "))
    return set(json.loads(line[len("LOADED "):]))


def test_importing_the_cli_loads_no_library():
    assert loaded(None) == set()


def test_count_only_contrast_loads_no_plotting_statsmodels_or_readers():
    mods = loaded(["contrast", "--wins", "27", "--losses", "9", "--ties", "64",
                   "--family-size", "3"])
    assert {"pandas", "scipy"} <= mods  # it did run the test
    # the floor's module loads (the contrast's table shares the floor's columns; a few ms on top
    # of scipy.special, which the sign test needs anyway); the audit, plots and readers do not
    assert not mods & {"matplotlib", "statsmodels", "scipy.stats", "noisefloor.logs.load",
                       "pydantic", "noisefloor.report.forest", "noisefloor.pipelines.audit",
                       "noisefloor.audit.published"}, mods


@pytest.mark.slow
def test_bundled_audit_loads_matplotlib_but_not_statsmodels(tmp_path):
    mods = loaded(["audit", "--out", str(tmp_path)])
    assert (tmp_path / "forest.png").exists()
    assert {"matplotlib", "noisefloor.floor.estimate", "noisefloor.report.forest"} <= mods
    assert not mods & {"statsmodels", "scipy.stats", "noisefloor.logs.load", "pydantic"}, mods


def test_audit_without_plot_loads_no_matplotlib(tmp_path):
    # --no-plot draws nothing: the text's note on null gaps beyond the envelope is the text
    # renderer's, not the forest plot's
    mods = loaded(["audit", "--out", str(tmp_path), "--no-plot"])
    assert not (tmp_path / "forest.png").exists()
    assert "noisefloor.floor.estimate" in mods  # it did run the audit
    assert not mods & {"matplotlib", "noisefloor.report.forest", "statsmodels"}, mods
