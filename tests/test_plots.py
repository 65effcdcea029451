"""Forest plots are real image files with the rows, bounds and text a reader needs."""

import math

import pandas as pd
import pytest
from matplotlib.text import Text

from noisefloor.audit.published import read_claims, read_paired_counts
from noisefloor.audit.verdicts import audit
from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.floor.estimate import noise_floor
from noisefloor.report.forest import (
    audit_forest,
    audit_rows,
    forest_plot,
    interval_text,
    save_figure,
)


def texts(fig):
    return [t.get_text() for t in fig.findobj(Text)]


def test_open_and_missing_bounds_are_drawn_not_dropped(tmp_path):
    rows = pd.DataFrame({
        "label": ["closed", "open right", "missing", "no estimate"],
        "estimate": [0.05, 0.1, 0.02, float("nan")],
        "ci_low": [-0.02, 0.0, float("nan"), float("nan")],
        "ci_high": [0.12, math.inf, float("nan"), float("nan")],
    })
    fig = forest_plot(rows, scale=100)
    shown = texts(fig)
    assert "+10.0 [+0.0, inf]" in shown
    assert "+2.0 [n/a]" in shown and "n/a [n/a]" in shown
    assert {"closed", "open right", "missing", "no estimate"} <= set(shown)
    # the open bound is an arrow annotation
    arrows = [t for t in fig.axes[0].texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == 1
    png, svg = save_figure(fig, tmp_path, "f")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert "<svg" in svg.read_text()[:500]


def test_missing_column_raises():
    with pytest.raises(ValueError, match="'nope'"):
        forest_plot(pd.DataFrame({"label": ["a"], "estimate": [0], "ci_low": [0], "ci_high": [0]}),
                    annotation="nope")
    with pytest.raises(ValueError, match="empty"):
        forest_plot(pd.DataFrame(columns=["label", "estimate", "ci_low", "ci_high"]))


def test_interval_text():
    assert interval_text(0.18, 0.0643, 0.261, scale=100) == "+18.0 [+6.4, +26.1]"
    assert interval_text(0.1, -math.inf, 0.2, scale=100) == "+10.0 [-inf, +20.0]"


def test_audit_forest_has_every_claim_and_contrast(tmp_path):
    nf = noise_floor(null_contrasts_from_counts(read_paired_counts()))
    result = audit(read_claims(), nf)
    rows = audit_rows(result)
    assert len(rows) == 9 + 10  # 6 per-seed + 3 pooled null contrasts, 10 claims
    fig = audit_forest(result)
    shown = "\n".join(texts(fig))
    # ratios with two decimals (13.5 / 11.82 = 1.14; it printed "1.1x")
    assert "W/L/T 45/30/125" in shown and "inside (1.14x floor)" in shown
    assert "noise floor ±11.8 pp" in shown
    paths = save_figure(fig, tmp_path, "forest")
    assert all(p.stat().st_size > 0 for p in paths)


# --- one seed is drawn once; a log's own contrasts are drawn ----------------

def _one_seed_audit():
    t = pd.DataFrame({"contrast": ["no_coord-intercept", "pull-intercept"], "clean": [True, False],
                      "seed": [1, 1], "wins": [21, 27], "losses": [11, 9], "ties": [68, 64]})
    nf = noise_floor(t)
    return audit(read_claims(), nf), nf


def test_one_seed_null_contrasts_are_drawn_once(tmp_path):
    result, nf = _one_seed_audit()
    rows = audit_rows(result, nf)
    null = rows[rows["section"].str.startswith("Null contrasts")]
    assert list(null["section"].unique()) == ["Null contrasts, one seed"]
    assert len(null) == 2 and null["label"].is_unique
    shown = texts(audit_forest(result, nf))
    assert "Null contrasts, pooled over seeds" not in shown and "Null contrasts, per seed" not in shown
    # with two seeds both sections remain (the bundled audit: 3 pooled + 6 per seed)
    two = audit_rows(audit(read_claims(), noise_floor(null_contrasts_from_counts(read_paired_counts()))))
    assert (two["section"] == "Null contrasts, pooled over seeds").sum() == 3


def test_log_contrasts_are_drawn_with_their_verdicts(tmp_path):
    from noisefloor.audit.verdicts import place_contrasts

    result, nf = _one_seed_audit()
    own = place_contrasts(pd.DataFrame({
        "level": ["trial"], "seed": [1], "trial": [1], "subset": ["coordination_active"], "contrast": ["b-a"],
        "wins": [2], "losses": [6], "ties": [20], "gap": [-4 / 28], "ci_low": [-0.33],
        "ci_high": [0.08]}), nf)
    rows = audit_rows(result, nf, own)
    row = rows[rows["section"] == "Contrasts in this log (gap placed)"].iloc[0]
    assert row["label"] == "b-a, trial 1, coord.-active, seed 1"
    assert row["note"].startswith("W/L/T 2/6/20  below (") and "(<6 pairs)" not in row["note"]
    fig = audit_forest(result, nf, log_contrasts=own)
    assert "-14.3 [-33.0, +8.0]   W/L/T 2/6/20  below (0.75x floor)" in texts(fig)
    assert all(p.stat().st_size > 0 for p in save_figure(fig, tmp_path, "own"))


# --- plots and tables a reader trusts ------------------------------------

def _bundled():
    nf = noise_floor(null_contrasts_from_counts(read_paired_counts()))
    return audit(read_claims(), nf), nf


def _legend(fig):
    leg = fig.axes[0].get_legend()
    return [t.get_text() for t in leg.get_texts()]


def test_long_labels_end_in_an_ellipsis():
    from noisefloor.audit.verdicts import place_contrasts
    from noisefloor.report.forest import LABEL_WIDTH

    result, nf = _one_seed_audit()
    own = place_contrasts(pd.DataFrame({
        "level": ["trial"], "seed": [1], "trial": [1], "subset": ["all"],
        "contrast": ["a_very_long_protocol_name_for_the_baseline-another_long_variant_name"],
        "wins": [2], "losses": [6], "ties": [20], "gap": [-4 / 28], "ci_low": [-0.33],
        "ci_high": [0.08]}), nf)
    label = audit_rows(result, nf, own).query("kind == 'log'")["label"].iloc[0]
    assert len(label) == LABEL_WIDTH and label.endswith("…")
    assert label.startswith("a_very_long_protocol_name_for_the_baseline-another_lo")
    # short labels are untouched
    assert "Reflexion (2023): ALFWorld" in set(audit_rows(result, nf)["label"])


def test_a_users_claims_are_not_titled_published(tmp_path):
    from noisefloor.report.forest import BUNDLED_CLAIMS_SECTION, CLAIMS_SECTION

    result, nf = _bundled()
    assert CLAIMS_SECTION in texts(audit_forest(result, nf))
    assert not any(t.startswith("Published") for t in texts(audit_forest(result, nf)))
    assert BUNDLED_CLAIMS_SECTION in texts(audit_forest(result, nf,
                                                        claims_section=BUNDLED_CLAIMS_SECTION))
    claims = tmp_path / "mine.csv"
    claims.write_text("paper,benchmark,effect_high,unit\nours,tau2 retail,9,pp\n")
    from click.testing import CliRunner

    from noisefloor.cli.main import cli
    out = tmp_path / "o"
    res = CliRunner().invoke(cli, ["audit", "--claims", str(claims), "--out", str(out)])
    assert res.exit_code == 0, res.output
    svg = (out / "forest.svg").read_text()
    assert "Published claims" not in svg and "Claims (end farthest" in svg


def test_a_claimed_range_is_drawn_unlike_a_confidence_interval():
    result, nf = _bundled()
    rows = audit_rows(result, nf)
    terrarium = rows[rows["label"].str.startswith("Terrarium")].iloc[0]
    assert terrarium["style"] == "range" and (rows.query("kind == 'null'")["style"] == "ci").all()
    fig = audit_forest(result, nf)
    shown = texts(fig)
    # the text says range, not [low, high]; the bar is thick and pale, a CI line is not
    assert "+2.7 (range +1.0 to +2.7)   below (0.23x floor)" in shown
    assert "+18.0 [+6.4, +26.1]   W/L/T 27/9/64" in shown
    # a single reported number has no bracket at all (it read "+22.0 [n/a]", like a missing CI)
    assert "+22.0   above (1.86x floor)" in shown
    widths = {round(float(c.get_linewidth()[0]), 1) for c in fig.axes[0].collections
              if hasattr(c, "get_segments") and c.get_segments()}
    assert {2.2, 7.0} <= widths
    assert "claimed range (not a CI)" in _legend(fig)


def test_legend_has_the_null_markers_and_only_the_verdicts_drawn():
    result, nf = _bundled()
    legend = _legend(audit_forest(result, nf))
    assert "null contrast (95% CI)" in legend
    assert {"claim below", "claim inside", "claim above"} <= set(legend)  # 7, 1 and 2 claims
    # two claims, both below (CA-MCP +1.2, AgentVerse +1.8): the unused entries go, and with
    # no claimed range drawn the range entry goes too
    few = audit(read_claims().iloc[[0, 2]], nf)
    assert {v.verdict for v in few.verdicts} == {"below"}
    legend = _legend(audit_forest(few, nf))
    assert "claim below" in legend and "claim inside" not in legend
    assert "claim above" not in legend and "claimed range (not a CI)" not in legend


def test_above_is_explained_where_a_null_gap_exceeds_the_envelope():
    from noisefloor.report.forest import above_note

    result, nf = _bundled()
    # Kaliyev & Maryanskyy (2026): pull-intercept +18 pp at seed 1, envelope 15.3 pp
    note = above_note(nf)
    assert "pull-intercept at seed 1: +18.0 pp" in note and "15.3 pp, pooled over seeds" in note
    assert any(note[:40] in t for t in texts(audit_forest(result, nf)))
    # no per-seed gap beyond the envelope: no note
    one_result, one_nf = _one_seed_audit()
    assert above_note(one_nf) == ""
    assert not any("'above' = beyond" in t for t in texts(audit_forest(one_result, one_nf)))
