"""The per-label agreement forest plot writes real PNG/SVG files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from noisefloor.agreement_plot import agreement_plot_rows, save_agreement_plot
from noisefloor.cli.agreement import agreement
from noisefloor.logs.annotations import read_annotations
from noisefloor.stats.agreement_table import agreement_by_label

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "agreement"


def test_plot_files_written(tmp_path):
    table = agreement_by_label(read_annotations(FIX / "tax_annotations.csv"), judge="judge",
                               n_boot=100, rng=0)
    paths = save_agreement_plot(table, tmp_path / "agreement.png")
    assert [p.name for p in paths] == ["agreement.png", "agreement.svg"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = paths[1].read_text()
    assert "<svg" in svg
    rows = agreement_plot_rows(table)
    assert list(rows["group"].unique()) == ["L1", "L2", "L3", "L4"]
    assert rows["row"].str.contains("judge vs majority of 4").sum() == 4


def test_undefined_rows_are_labelled_not_dropped():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
                       "label": ["x"] * 6})
    rows = agreement_plot_rows(agreement_by_label(df, n_boot=0))
    assert len(rows) == 3
    assert rows["note"].tolist() == ["undefined", "undefined", "undefined"]


def test_cli_plot_option(tmp_path):
    res = CliRunner().invoke(agreement, [str(FIX / "tax_annotations.csv"), "--judge", "judge",
                                         "--n-boot", "50", "--plot", str(tmp_path / "fig.png")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "fig.png").stat().st_size > 10_000
    assert (tmp_path / "fig.svg").exists()


def test_empty_table_rejected():
    from noisefloor.agreement_plot import agreement_forest_plot
    from noisefloor.stats.agreement_table import AgreementTable

    with pytest.raises(ValueError, match="no results"):
        agreement_forest_plot(AgreementTable(results=(), judge=None, raters=(), tie="exclude"))
