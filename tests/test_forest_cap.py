"""Issue 13: a 10,000-row count table draws a capped forest plot, and --no-plot draws none."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.audit.published import read_claims, read_paired_counts
from noisefloor.audit.verdicts import audit
from noisefloor.cli.main import cli
from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.floor.estimate import noise_floor
from noisefloor.report.forest import (
    MAX_FOREST_ROWS,
    ForestRowsLeftOutWarning,
    audit_forest,
    cap_forest_rows,
)


def _counts(tmp_path, seeds):
    rng = np.random.default_rng(0)
    lines = ["seed,trial,subset,contrast,wins,losses,ties"]
    for seed in range(1, seeds + 1):
        for contrast in ("no_coord-intercept", "pull-no_coord", "pull-intercept"):
            w, losses = rng.integers(5, 25, 2)
            lines.append(f"{seed},0,all,{contrast},{w},{losses},{100 - w - losses}")
    p = tmp_path / "counts.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_a_large_audit_draws_at_most_the_cap_and_says_what_it_left_out(tmp_path):
    nf = noise_floor(null_contrasts_from_counts(read_paired_counts(_counts(tmp_path, 200))))
    result = audit(read_claims(), nf)
    with pytest.warns(ForestRowsLeftOutWarning, match=r"drew 60 of 613 rows \(Null contrasts, per seed: 553 of 600"):
        fig = audit_forest(result, nf)
    ax = fig.axes[0]
    assert len(ax.get_yticklabels()) == MAX_FOREST_ROWS
    texts = [t.get_text() for t in fig.texts] + [t.get_text() for t in ax.texts]
    assert any(t.startswith("Left out of the picture: 553 of 613 rows") for t in texts)
    assert "Null contrasts, per seed: 47 of 600 drawn (farthest from 0)" in texts
    assert fig.get_figheight() < 0.42 * 70 + 3  # the figure no longer grows with the table
    # every claim and every pooled row is still drawn
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert sum(":" in lab for lab in labels) == len(result.verdicts)


def test_a_small_audit_is_drawn_whole(tmp_path, recwarn):
    nf = noise_floor(null_contrasts_from_counts(read_paired_counts()))
    audit_forest(audit(read_claims(), nf), nf)
    assert not [w for w in recwarn if issubclass(w.category, ForestRowsLeftOutWarning)]


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 40), min_size=1, max_size=5), cap=st.integers(1, 50),
       seed=st.integers(0, 2**16))
def test_cap_invariants(sizes, cap, seed):
    rng = np.random.default_rng(seed)
    sections = [f"s{i}" for i, n in enumerate(sizes) for _ in range(n)]
    est = rng.normal(0, 0.1, len(sections))
    rows = pd.DataFrame({"section": sections, "estimate": est, "ci_low": est - 0.05,
                         "ci_high": est + 0.05, "order": np.arange(len(sections))})
    kept, left_out = cap_forest_rows(rows, cap)
    assert len(kept) <= max(cap, len(sizes))  # at least one row per section
    assert kept["order"].is_monotonic_increasing  # original order kept
    if len(rows) <= cap:
        assert kept is rows and left_out == {}
    for name, (drawn, total) in left_out.items():
        assert total == sizes[int(name[1:])] and drawn < total
        mine = kept[kept["section"].str.startswith(name + ":")]
        theirs = rows[(rows["section"] == name) & ~rows["order"].isin(kept["order"])]
        # what is drawn lies at least as far from 0 as anything left out
        assert np.abs(mine["estimate"]).min() + 0.05 >= np.abs(theirs["estimate"]).max() + 0.05 - 1e-12
    # a section that was not capped keeps every row
    for i, n in enumerate(sizes):
        if f"s{i}" not in left_out:
            assert (kept["section"] == f"s{i}").sum() == n


def test_cap_rejects_a_bad_max_rows():
    rows = pd.DataFrame({"section": ["a"], "estimate": [0.0], "ci_low": [0.0], "ci_high": [0.0]})
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="max_rows must be an integer >= 1"):
            cap_forest_rows(rows, bad)


def test_audit_no_plot_writes_the_report_only(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["audit", "--no-plot", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["report.md"]
    report = (out / "report.md").read_text()
    assert "forest.png" not in report and "Wrote " + str(out / "report.md") in result.output
