"""The per-label agreement forest plot writes real PNG/SVG files."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from noisefloor.agreement.study import agreement_by_label
from noisefloor.cli.agreement import agreement
from noisefloor.logs.annotations import read_annotations
from noisefloor.report.agreement_figure import agreement_plot_rows, save_agreement_plot

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "agreement"


def test_plot_files_written(tmp_path):
    table = agreement_by_label(read_annotations(FIX / "tax_annotations.csv"), judge="judge",
                               n_boot=100, rng=0)
    paths = save_agreement_plot(table, [tmp_path / "agreement.png", tmp_path / "agreement.svg"])
    assert [p.name for p in paths] == ["agreement.png", "agreement.svg"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agreement.png", "agreement.svg"]
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
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]  # nothing it was not asked for


def test_cli_plot_writes_the_format_asked_for(tmp_path):
    # user test 2, item 20: --plot x.pdf quietly wrote x.png and x.svg
    res = CliRunner().invoke(agreement, [str(FIX / "tax_annotations.csv"), "--n-boot", "0",
                                         "--plot", str(tmp_path / "x.pdf"),
                                         "--plot", str(tmp_path / "sub" / "x.SVG")])
    assert res.exit_code == 0, res.output
    assert f"plot: {tmp_path / 'x.pdf'}, {tmp_path / 'sub' / 'x.SVG'}" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub", "x.pdf"]
    assert (tmp_path / "x.pdf").read_bytes()[:5] == b"%PDF-"
    assert "<svg" in (tmp_path / "sub" / "x.SVG").read_text()
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["x.SVG"]


@pytest.mark.parametrize("name, got", [("x.jpg", "'.jpg'"), ("x", "'no suffix'")])
def test_unsupported_plot_format_is_refused_before_computing(tmp_path, name, got):
    res = CliRunner().invoke(agreement, [str(FIX / "tax_annotations.csv"),
                                         "--plot", str(tmp_path / name)])
    assert res.exit_code == 2
    assert "Invalid value for '--plot'" in res.output
    assert f"the plot format follows the file suffix, one of .png, .svg, .pdf; got {got}" \
        in res.output
    assert list(tmp_path.iterdir()) == []
    table = agreement_by_label(pd.DataFrame({"item": [1, 1], "rater": ["a", "b"],
                                             "label": [1, 0]}), n_boot=0)
    with pytest.raises(ValueError, match=f"one of .png, .svg, .pdf; got {got}"):
        save_agreement_plot(table, tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_cli_and_library_agree_on_formats():
    from noisefloor.cli.agreement import PLOT_FORMATS as CLI_FORMATS
    from noisefloor.report.agreement_figure import PLOT_FORMATS

    assert CLI_FORMATS == PLOT_FORMATS == (".png", ".svg", ".pdf")


def _cie_lightness(hex_color: str) -> float:
    """CIE L* of an sRGB colour (IEC 61966-2-1 transfer curve, D65 luminance weights)."""
    rgb = [int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return 116 * y ** (1 / 3) - 16 if y > 216 / 24389 else 24389 / 27 * y


def test_bands_are_opaque_and_step_in_lightness():
    # user test 2, item 20: "fair" and "moderate" were nearly white (alpha 0.18) and looked
    # alike. Neighbouring bands now differ by >= 5 in CIE L* from slight to almost perfect, a
    # difference that colour blindness does not remove; none is darker than L* 65, so the
    # estimates stay readable on top.
    from matplotlib.colors import to_hex

    from noisefloor.report.agreement_figure import BAND_COLORS, agreement_forest_plot

    lightness = [_cie_lightness(c) for c in BAND_COLORS]
    ramp = lightness[1:]  # slight .. almost perfect
    assert all(a - b >= 5 for a, b in pairwise(ramp)), lightness
    assert min(lightness) >= 65 and abs(lightness[0] - lightness[1]) >= 5
    table = agreement_by_label(read_annotations(FIX / "tax_annotations.csv"), judge="judge",
                               n_boot=0)
    ax = agreement_forest_plot(table).axes[0]
    spans = [p for p in ax.patches if p.get_zorder() < 0.5]
    assert [to_hex(p.get_facecolor()) for p in spans] == list(BAND_COLORS)
    assert all(p.get_alpha() in (None, 1) for p in spans)
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [
        "poor", "slight", "fair", "moderate", "substantial", "almost perfect"]


def test_empty_table_rejected():
    from noisefloor.agreement.study import AgreementTable
    from noisefloor.report.agreement_figure import agreement_forest_plot

    with pytest.raises(ValueError, match="no results"):
        agreement_forest_plot(AgreementTable(results=(), judge=None, raters=(), tie="exclude"))
