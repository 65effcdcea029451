"""``noisefloor agreement`` end to end on fixture files."""

from __future__ import annotations

import json
import os
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
    rows = json.loads(res.output)["rows"]
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
    lines = ["item,rater2,rater3"] + [",".join(line.split(",")[i] for i in (0, 2, 3))
                                      for line in src[1:]]
    p = tmp_path / "anx.csv"
    p.write_text("\n".join(lines) + "\n")
    res = _run(p, "--metric", "cohen", "--weights", "linear", "--json", "--n-boot", "0")
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)["rows"]
    assert row["value"] == pytest.approx(0.1459, abs=5e-5)
    assert row["ci_low"] is None  # no bootstrap asked: null, not NaN
    # Declared full scale 1..6 gives another (documented) value
    res6 = _run(p, "--metric", "cohen", "--weights", "linear", "--categories", "1,2,3,4,5,6",
                "--json", "--n-boot", "0")
    assert json.loads(res6.output)["rows"][0]["value"] != pytest.approx(0.1459, abs=5e-3)


def test_undefined_agreement_is_null_with_reason(tmp_path):
    p = tmp_path / "same.csv"
    p.write_text("item,a,b,c\n1,x,x,x\n2,x,x,x\n3,x,x,x\n")
    res = _run(p, "--metric", "fleiss", "--json")
    (row,) = json.loads(res.output)["rows"]
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
                                         "--raters", "expert_1,expert_9"])
    assert res.exit_code == 1
    assert "rater(s) 'expert_9' chosen as human raters do not appear in the table" in res.output


def test_registered_in_top_level_group():
    main = pytest.importorskip("noisefloor.cli.main")  # skips if another command fails to import
    assert main.cli.get_command(None, "agreement") is agreement


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
    (row,) = json.loads(res.output)["rows"]
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


def _three_raters(tmp_path: Path) -> Path:
    p = tmp_path / "ann_wide.csv"
    p.write_text("item,alice,bob,carol\n1,y,y,n\n2,n,n,n\n3,y,n,y\n4,y,y,y\n5,,,n\n")
    return p


def test_raters_selects_two_of_three_for_cohen(tmp_path):
    # user test 2, item 12: --raters alice,bob on a file with alice, bob, carol failed with
    # "unknown rater 'carol'". It now selects: carol is ignored and the output says so.
    p = _three_raters(tmp_path)
    res = _run(p, "--metric", "cohen", "--raters", "alice,bob", "--n-boot", "0")
    assert res.exit_code == 0, res.output
    first, _, row = res.output.splitlines()[:3]
    assert first.endswith("; 13 ratings; raters alice, bob; ignored (not in --raters): carol, "
                          "5 ratings")
    # items 1-4 (item 5 has carol only): alice y,n,y,y / bob y,n,n,y -> po = 3/4,
    # pe = (3/4*2/4 + 1/4*2/4) = 1/2, kappa = (0.75 - 0.5) / 0.5 = 0.5 (by hand)
    assert row.split()[:3] == ["all", "cohen", "0.500"] and row.endswith("alice vs bob")
    assert row.split()[6:8] == ["4", "2"]  # items, raters
    (js,) = json.loads(_run(p, "--metric", "cohen", "--raters", "bob,alice", "--json",
                            "--n-boot", "0").output)["rows"]
    assert js["value"] == pytest.approx(0.5) and js["comparison"] == "bob vs alice"
    # the other raters are not read at all: carol's item 5 does not appear as a missing row
    res = _run(p, "--metric", "fleiss", "--raters", "alice,bob", "--n-boot", "0")
    assert "lack ratings" not in res.output and " 4      2 " in res.output


def test_raters_with_judge_and_bad_selections(tmp_path):
    p = _three_raters(tmp_path)
    res = _run(p, "--metric", "cohen", "--raters", "alice,bob", "--judge", "carol", "--n-boot", "0")
    assert "; raters alice, bob; judge carol" in res.output and "ignored" not in res.output
    assert "carol vs majority of 2" in res.output
    for raters, msg in [
        ("alice,bobb", ("rater(s) 'bobb' chosen as human raters do not appear in the table; "
                        "its raters are 'alice', 'bob', 'carol'")),
        ("alice,alice", "rater(s) 'alice' chosen more than once"),
        ("alice", "agreement needs at least two human raters; 1 chosen: 'alice'"),
    ]:
        res = CliRunner().invoke(agreement, [str(p), "--raters", raters])
        assert res.exit_code == 1 and f"Error: {p}: {msg}" in res.output, res.output
    res = CliRunner().invoke(agreement, [str(p), "--raters", "alice,bob", "--judge", "bob"])
    assert res.exit_code == 1 and "judge 'bob' is also chosen as a human rater" in res.output


def test_messages_name_cli_options_not_python_keywords(tmp_path):
    # user test 2, item 13: the Cohen row said "pass judge= / --judge".
    p = _three_raters(tmp_path)
    res = _run(p, "--metric", "all", "--n-boot", "0")  # --metric cohen alone: a usage error
    assert res.exit_code == 0, res.output
    assert "=" not in res.output.replace("kappa = 0", "")
    assert ("reason: not computed: Cohen's kappa compares two raters; there are 3 and no judge: "
            "name a judge to compare with the majority, or choose two raters") in res.output
    assert ("hint: --judge RATER compares one rater with the majority of the others; "
            "--raters A,B gives Cohen's kappa between two raters") in res.output
    # no hint where there is nothing to choose
    assert "hint:" not in _run(p, "--metric", "cohen", "--raters", "alice,bob").output
    assert "hint:" not in _run(p, "--metric", "cohen", "--judge", "carol").output
    res = _run(FIX / "tax_annotations.csv", "--judge", "judge", "--metric", "cohen",
               "--n-boot", "0")
    assert "tied majority left out (tie rule: exclude)" in res.output and "=" not in res.output
    for opt, value in (("--confidence", "1.5"), ("--confidence", "0"), ("--n-boot", "-1")):
        res = CliRunner().invoke(agreement, [str(p), opt, value])
        assert res.exit_code == 2 and f"Invalid value for '{opt}'" in res.output, res.output
    res = CliRunner().invoke(agreement, [str(p), "--level", "interval", "--metric",
                                         "krippendorff"])
    assert res.exit_code == 1
    assert "the interval level of measurement needs numeric ratings; got 'y'" in res.output
    assert "level=" not in res.output


def test_every_option_has_help_and_the_summary_is_not_cut():
    # user test 2, item 15: --confidence had no description; the root listing cut the summary
    import click

    for param in agreement.params:
        if isinstance(param, click.Option):
            assert param.help and len(param.help) > 25, param.name
    text = " ".join(CliRunner().invoke(agreement, ["--help"]).output.split())
    assert "Confidence level of the bootstrap intervals" in text
    assert "repeat the option for more than one" in text  # --plot: format from the suffix
    assert "Use only these raters" in text  # --raters is a selection
    assert not agreement.get_short_help_str(limit=45).endswith("...")
    assert agreement.get_short_help_str() == (
        "Inter-rater agreement per label: Fleiss' and Cohen's kappa, Krippendorff's alpha, ICC.")


def test_metric_cohen_without_a_pair_is_a_usage_error(tmp_path):
    # spec audit item 13: --metric cohen on three raters and no --judge printed a NaN row and
    # exited 0. Asked for explicitly with no pair defined, it is a usage error naming the options.
    p = _three_raters(tmp_path)
    for extra in ((), ("--json",), ("--raters", "alice,bob,carol")):
        res = CliRunner().invoke(agreement, [str(p), "--metric", "cohen", *extra])
        assert res.exit_code == 2, res.output
        assert "--metric cohen compares two raters, and there are 3 (alice, bob, carol) and no " \
               "judge: name one with --judge (a rater compared with the majority of the " \
               "others) or two raters with --raters" in " ".join(res.output.split())
        assert "n/a" not in res.output
    # with --metric all the Cohen row stays, NaN with its reason and the hint
    res = _run(p, "--n-boot", "0", "--json")
    assert res.exit_code == 0
    (cohen,) = [r for r in json.loads(res.output)["rows"] if r["metric"] == "cohen"]
    assert cohen["value"] is None and cohen["reason"].startswith("not computed: Cohen's kappa")
    # a pair defined either way: fine
    assert _run(p, "--metric", "cohen", "--judge", "carol", "--n-boot", "0").exit_code == 0
    assert _run(p, "--metric", "cohen", "--raters", "alice,bob", "--n-boot", "0").exit_code == 0


def _ordinal_pair(tmp_path: Path) -> Path:
    # the spec-audit example: two raters on a low < mid < high scale, wide layout
    r1 = "low,mid,high,low,mid,high,mid".split(",")
    r2 = "mid,mid,high,low,high,high,low".split(",")
    p = tmp_path / "ordinal.csv"
    p.write_text("item,r1,r2\n" + "".join(f"{i},{a},{b}\n" for i, (a, b) in enumerate(zip(r1, r2))))
    return p


def test_weighted_kappa_on_text_labels_needs_categories(tmp_path):
    # Before: --weights linear silently used the alphabetical order high, low, mid (0.391).
    p = _ordinal_pair(tmp_path)
    res = CliRunner().invoke(agreement, [str(p), "--metric", "cohen", "--weights", "linear"])
    assert res.exit_code == 1
    assert "linear-weighted Cohen's kappa needs the category order declared" in res.output
    assert "--categories low,mid,high" in res.output
    res = CliRunner().invoke(agreement, [str(p), "--metric", "krippendorff", "--level",
                                         "ordinal"])
    assert res.exit_code == 1 and "ordinal Krippendorff's alpha needs the category" in res.output
    res = _run(p, "--metric", "cohen", "--weights", "linear", "--categories", "low,mid,high",
               "--n-boot", "0")
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[2].split()[:3] == ["all", "cohen", "0.512"]
    assert "scale: low < mid < high (declared by --categories)" in res.output
    (row,) = json.loads(_run(p, "--metric", "cohen", "--weights", "linear", "--categories",
                             "low,mid,high", "--n-boot", "0", "--json").output)["rows"]
    assert row["category_order"] == "declared" and row["categories"] == ["low", "mid", "high"]
    # unweighted kappa and nominal alpha need no order, and print no scale
    res = _run(p, "--n-boot", "0")
    assert res.exit_code == 0 and "scale:" not in res.output


def test_numeric_labels_show_the_numeric_scale(tmp_path):
    p = tmp_path / "num.csv"
    p.write_text("item,r1,r2\n1,1,2\n2,2,2\n3,10,10\n4,1,1\n5,2,10\n")
    res = _run(p, "--metric", "all", "--weights", "quadratic", "--level", "ordinal",
               "--n-boot", "0")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    scale = "scale: 1 < 2 < 10 (numeric order of the labels used; --categories declares unused " \
            "points)"
    assert sum(scale in line for line in lines) == 2  # the Cohen and the alpha row, not Fleiss
    (row, *_) = [r for r in json.loads(_run(p, "--metric", "cohen", "--weights", "linear",
                                            "--json", "--n-boot", "0").output)["rows"]]
    assert row["category_order"] == "numeric" and row["categories"] == [1, 2, 10]
    # a Cohen row that was not computed (three raters, no pair) shows no scale
    three = tmp_path / "three.csv"
    three.write_text("item,a,b,c\n1,1,2,2\n2,2,2,1\n3,1,1,1\n")
    res = _run(three, "--weights", "linear", "--n-boot", "0")
    assert res.exit_code == 0 and "not computed" in res.output and "scale:" not in res.output
    res = _run(p, "--metric", "krippendorff", "--level", "interval", "--n-boot", "0")
    assert "scale: 1 < 2 < 10 (numeric values; interval distances are their differences)" \
        in res.output


# --- hostile-input regressions ---

def _one_item(tmp_path):
    p = tmp_path / "one.csv"
    p.write_text("item,r1,r2,r3\ni1,yes,no,yes\n", encoding="utf-8")
    return p


def test_one_item_has_no_interval_and_says_why(tmp_path):
    res = _run(_one_item(tmp_path), "--metric", "fleiss", "--n-boot", "200")
    assert res.exit_code == 0, res.output
    assert "-0.500" in res.output and "[n/a, n/a]" in res.output
    assert "[-0.500, -0.500]" not in res.output
    assert "no CI: one item: a bootstrap over items resamples the same item" in res.output
    rows = json.loads(_run(_one_item(tmp_path), "--metric", "krippendorff", "--json").output)["rows"]
    assert rows[0]["ci_low"] is None and rows[0]["ci_reason"].startswith("one item")


def _blocker(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x", encoding="utf-8")
    return blocker


@pytest.mark.parametrize("where", ["file_in_the_way", "unwritable"])
def test_plot_into_a_folder_that_cannot_be_made_is_one_clear_line(tmp_path, where):
    if where == "file_in_the_way":
        target = _blocker(tmp_path) / "sub" / "x.png"
    else:
        if os.geteuid() == 0:
            target = Path("/proc/nope/x.png")  # root may write anywhere else
        else:
            ro = tmp_path / "ro"
            ro.mkdir(mode=0o500)
            target = ro / "sub" / "x.png"
    res = CliRunner().invoke(agreement, [str(_one_item(tmp_path)), "--plot", str(target)])
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "Traceback" not in res.output
    assert f"--plot {target}: cannot write the plot: " in res.output
    assert "[Errno" not in res.output


def test_audit_out_names_the_path_the_same_way(tmp_path):
    from noisefloor.cli.audit import audit

    target = _blocker(tmp_path) / "report"
    res = CliRunner().invoke(audit, ["--out", str(target)])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert f"{target}: Not a directory (a file stands where a folder is needed)" in res.output


def test_randolph_json_and_text_say_why_there_is_no_z(tmp_path):
    # "z": null, "p_value": null came with "reason": "" and nothing else
    p = _diagnoses_wide(tmp_path)
    res = _run(p, "--metric", "fleiss", "--randolph", "--json", "--n-boot", "0")
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)["rows"]
    assert row["metric"] == "randolph" and row["reason"] == ""
    assert row["z"] is None and row["p_value"] is None and row["se_null"] is None
    assert "Fleiss, Nee and Landis" in row["null_reason"]
    assert "free-marginal" in row["null_reason"]
    text = _run(p, "--metric", "fleiss", "--randolph", "--n-boot", "0").output
    assert "z(H0): no z-test: the null standard error of Fleiss, Nee and Landis" in text
    fleiss = json.loads(_run(p, "--metric", "fleiss", "--json", "--n-boot", "0").output)["rows"][0]
    assert fleiss["null_reason"] == ""


def test_the_command_and_agreement_by_label_give_the_same_intervals_by_default():
    # one call reproduces the command: the library's default resample count is the command's
    # (it was 1,000 against the command's 2,000, so the same seed gave other intervals)
    from noisefloor.agreement.study import agreement_by_label
    from noisefloor.logs.annotations import read_annotations

    res = _run(FIX / "tax_annotations.csv", "--judge", "judge", "--metric", "fleiss", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["rows"]
    frame = agreement_by_label(read_annotations(FIX / "tax_annotations.csv"), judge="judge",
                               metrics=("fleiss",), rng=0).to_frame()
    assert [r["ci_low"] for r in rows] == frame["ci_low"].tolist()
    assert [r["ci_high"] for r in rows] == frame["ci_high"].tolist()


def test_the_library_call_refuses_what_the_command_refuses(tmp_path):
    """agreement_study does the checks the command relies on: no Cohen pair, and a statistics
    error naming the file and the layout it was read in (spelled as options by the command)."""
    import pickle

    from noisefloor.agreement import AgreementStudyError, NoCohenPairError, agreement_study

    p = _three_raters(tmp_path)
    with pytest.raises(NoCohenPairError, match="metric='cohen' compares two raters") as err:
        agreement_study(p, metric="cohen")
    assert err.value.raters == ("alice", "bob", "carol")
    with pytest.raises(AgreementStudyError) as err2:
        agreement_study(p, raters=["alice"], n_boot=0)
    assert str(err2.value).startswith(f"{p}: ") and str(err2.value).endswith(
        "(read in wide layout, since the header has no rater or label column, so each other "
        "column is a rater)")
    assert str(pickle.loads(pickle.dumps(err2.value))) == str(err2.value)


def test_metric_icc_refuses_the_kappa_options_it_would_ignore():
    # --metric icc took --weights, --level, --categories, --tie, --randolph and --n-boot and
    # ignored them (exit 0): a usage error names the ones given; their defaults are no error
    scores = FIX / "shrout_fleiss1979_scores.csv"
    res = CliRunner().invoke(agreement, [str(scores), "--metric", "icc", "--weights", "linear"])
    assert res.exit_code == 2, res.output
    assert "--weights does not apply with --metric icc" in res.output
    res = CliRunner().invoke(agreement, [str(scores), "--metric", "icc", "--level", "nominal",
                                         "--categories", "1,2", "--tie", "lowest", "--randolph",
                                         "--n-boot", "0", "--seed", "3"])
    assert res.exit_code == 2, res.output
    assert "--level, --categories, --tie, --randolph, --n-boot, --seed do not apply" in res.output
    assert _run(scores, "--metric", "icc", "--confidence", "0.9").exit_code == 0


def test_the_cohen_pair_error_is_the_library_message_spelled_as_options(tmp_path, monkeypatch):
    # the command rendered its own rewording of NoCohenPairError; it now renders the library's
    # message (error_text), its parameter mentions spelled as this command's options
    import noisefloor.cli.agreement as cli_agreement
    from noisefloor.agreement import NoCohenPairError

    def refuse(path, **kwargs):
        raise NoCohenPairError("judge", "a rater", message=(
            "no pair in this file: {judge}, {raters} or {metric='fleiss'}"))

    monkeypatch.setattr(cli_agreement, "agreement_study", refuse)
    res = CliRunner().invoke(agreement, [str(_three_raters(tmp_path)), "--metric", "cohen"])
    assert res.exit_code == 2, res.output
    assert "Error: no pair in this file: --judge, --raters or --metric fleiss" in res.output


def test_given_means_command_line_or_environment_for_every_refusal():
    """A value from the configuration's default map is no option the user gave: neither the
    agreement command nor the shared refusal (leaderboard's, the log options') refuses it."""
    import click

    from noisefloor.cli._logs import refuse_unused

    scores = str(FIX / "shrout_fleiss1979_scores.csv")
    res = CliRunner().invoke(agreement, [scores, "--metric", "icc"],
                             default_map={"weights": "linear"})
    assert res.exit_code == 0, res.output

    @click.command()
    @click.option("--plot", default=None)
    @click.pass_context
    def cmd(ctx, plot):
        refuse_unused(ctx, ("plot",), "here", "no figure")

    assert CliRunner().invoke(cmd, [], default_map={"plot": "x.png"}).exit_code == 0
    res = CliRunner().invoke(cmd, [], env={"P_PLOT": "x.png"}, auto_envvar_prefix="P")
    assert res.exit_code == 2 and "--plot does not apply here: no figure" in res.output


def test_agreement_study_refuses_the_kappa_parameters_with_icc():
    """metric="icc" ignored weights, level, tie, n_boot, ...: they are refused by name, their
    defaults are no error."""
    from noisefloor.agreement.from_file import agreement_study

    scores = FIX / "shrout_fleiss1979_scores.csv"
    with pytest.raises(ValueError, match=r"weights=, n_boot="):
        agreement_study(scores, metric="icc", weights="linear", n_boot=0)
    with pytest.raises(ValueError, match=r"tie="):
        agreement_study(scores, metric="icc", tie="lowest")
    assert agreement_study(scores, metric="icc", weights="none", n_boot=2000, rng=0).table
