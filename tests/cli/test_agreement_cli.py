"""``noisefloor agreement`` end to end on fixture files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from noisefloor.cli.agreement import agreement

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "agreement"
KEYS = ["label", "metric", "value", "ci_low", "ci_high", "n_items", "n_raters",
        "observed_agreement", "reason"]


def _run(*args: str):
    return CliRunner().invoke(agreement, [str(a) for a in args], catch_exceptions=False)


def test_json_per_label_keys_and_values():
    res = _run(FIX / "tax_annotations.csv", "--judge", "judge", "--json", "--n-boot", "100")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert len(rows) == 12
    assert list(rows[0])[:9] == KEYS
    assert [r["label"] for r in rows[::3]] == ["L1", "L2", "L3", "L4"]
    assert all(r["ci_low"] <= r["value"] <= r["ci_high"] for r in rows)


def test_text_output_mentions_bands_and_notes():
    res = _run(FIX / "tax_annotations.csv", "--judge", "judge", "--metric", "cohen",
               "--n-boot", "50")
    assert res.exit_code == 0, res.output
    assert "judge vs majority of 4" in res.output
    assert "tied majority left out" in res.output
    assert "Landis & Koch (1977)" in res.output


def test_wide_table_weighted_cohen_matches_irr(tmp_path):
    # irr anxiety data, raters 2 and 3 only (wide layout): R irr::kappa2(anxiety[,2:3], "equal")
    # gives 0.1459.
    src = (FIX / "irr_anxiety.csv").read_text().splitlines()
    lines = ["item,rater2,rater3"] + [",".join(l.split(",")[i] for i in (0, 2, 3)) for l in src[1:]]
    p = tmp_path / "anx.csv"
    p.write_text("\n".join(lines) + "\n")
    res = _run(p, "--metric", "cohen", "--weights", "linear", "--json", "--n-boot", "0")
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert row["value"] == pytest.approx(0.1459, abs=5e-5)
    assert row["ci_low"] is None  # no bootstrap asked: null, not NaN
    # Declared full scale 1..6 gives another (documented) value
    res6 = _run(p, "--metric", "cohen", "--weights", "linear", "--categories", "1,2,3,4,5,6",
                "--json", "--n-boot", "0")
    assert json.loads(res6.output)[0]["value"] != pytest.approx(0.1459, abs=5e-3)


def test_undefined_agreement_is_null_with_reason(tmp_path):
    p = tmp_path / "same.csv"
    p.write_text("item,a,b,c\n1,x,x,x\n2,x,x,x\n3,x,x,x\n")
    res = _run(p, "--metric", "fleiss", "--json")
    (row,) = json.loads(res.output)
    assert row["value"] is None and row["observed_agreement"] == 1.0
    assert "undefined" in row["reason"]
    text = _run(p, "--metric", "fleiss").output
    assert "n/a" in text and "reason: undefined" in text


def test_bad_input_is_a_clean_error(tmp_path):
    p = tmp_path / "dup.csv"
    p.write_text("item,rater,label\n1,a,x\n1,a,y\n")
    res = CliRunner().invoke(agreement, [str(p)])
    assert res.exit_code == 1
    assert "dup.csv:3: field" in res.output and "rated twice" in res.output
    assert "Traceback" not in res.output
    res = CliRunner().invoke(agreement, [str(FIX / "tax_annotations.csv"), "--judge", "gpt"])
    assert res.exit_code == 1 and "judge 'gpt' is not a rater" in res.output
    res = CliRunner().invoke(agreement, [str(FIX / "tax_annotations.csv"),
                                         "--raters", "expert_1,expert_2"])
    assert res.exit_code == 1 and "unknown rater" in res.output


def test_registered_in_top_level_group():
    main = pytest.importorskip("noisefloor.cli.main")  # skips if another command fails to import
    assert main.cli.commands["agreement"] is agreement


def _diagnoses_wide(tmp_path: Path) -> Path:
    """Fleiss (1971) diagnoses (R irr::diagnoses) as a wide table: item, one column per rater."""
    lines = (FIX / "fleiss1971_diagnoses_counts.csv").read_text().splitlines()
    cats = lines[0].split(",")[1:]
    out = ["item," + ",".join(f"rater{j}" for j in range(1, 7))]
    for line in lines[1:]:
        item, *counts = line.split(",")
        labels = [c for c, n in zip(cats, counts) for _ in range(int(n))]
        out.append(item + "," + ",".join(labels))
    p = tmp_path / "diagnoses.csv"
    p.write_text("\n".join(out) + "\n")
    return p


def test_fleiss_z_test_matches_irr_json_and_text(tmp_path):
    p = _diagnoses_wide(tmp_path)
    res = _run(p, "--metric", "fleiss", "--json", "--n-boot", "0")
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert list(row)[:9] == KEYS  # documented keys first, unchanged
    # R irr: kappam.fleiss(diagnoses) -> Kappa = 0.43, z = 17.7, p-value = 0
    assert round(row["value"], 2) == 0.43
    assert round(row["z"], 1) == 17.7
    assert 0 < row["p_value"] < 1.1e-16
    assert row["se_null"] == pytest.approx(row["value"] / row["z"])
    text = _run(p, "--metric", "all", "--n-boot", "0").output
    header, fleiss_line = text.splitlines()[1:3]
    assert "z(H0)" in header and fleiss_line.split()[:3] == ["all", "fleiss", "0.430"]
    assert "17.7" in fleiss_line.split()
    assert "gives no interval" in text  # the footer says what z(H0) is and is not
    kripp_line = next(line for line in text.splitlines() if " krippendorff " in line)
    assert kripp_line.split()[5] == "-"  # no z-test for alpha


def test_long_file_missing_label_names_file_column_and_layout(tmp_path):
    # user test 2, item 11: "item,rater / 1,a" failed with "agreement needs at least two human
    # raters; got ['rater']" (read as wide, no file, no column).
    p = tmp_path / "e1.csv"
    p.write_text("item,rater\n1,a\n")
    res = CliRunner().invoke(agreement, [str(p)])
    assert res.exit_code == 1
    assert (f"Error: {p}:1: field 'label': no 'label' column: a long-layout file needs item, "
            "rater, label[, category]; read as wide layout it has one rater column 'rater'"
            ) in res.output
    assert "Traceback" not in res.output
    # asked for explicitly, the wide reading is used, and the error says which layout and why
    res = CliRunner().invoke(agreement, [str(p), "--layout", "wide"])
    assert res.exit_code == 1
    assert f"Error: {p}: agreement needs at least two human raters; the table has 1: 'rater' " \
           "(read in wide layout, as asked)" in res.output


def test_first_line_says_which_layout_and_why(tmp_path):
    res = _run(FIX / "tax_annotations.csv", "--metric", "fleiss", "--n-boot", "0")
    assert res.output.splitlines()[0].startswith(
        f"{FIX / 'tax_annotations.csv'}: long layout, since the header has item, rater, label; "
        "2000 ratings; raters expert_1")
    p = tmp_path / "w.csv"
    p.write_text("item,a,b\n1,x,x\n2,y,x\n")
    first = _run(p, "--metric", "fleiss", "--n-boot", "0").output.splitlines()[0]
    assert first == (f"{p}: wide layout, since the header has no rater or label column, so each "
                     "other column is a rater; 4 ratings; raters a, b")
    assert _run(p, "--layout", "wide", "--n-boot", "0").output.startswith(
        f"{p}: wide layout, as asked;")
    res = CliRunner().invoke(agreement, [str(p), "--layout", "long"])
    assert res.exit_code == 1 and "field 'rater': no 'rater' column" in res.output
