"""tax_report in one call and the `report` click command (invoked directly with CliRunner)."""

import json
import os
import shutil

import pytest
from click.testing import CliRunner

from noisefloor.cli._common import jsonable
from noisefloor.cli.tax import report
from noisefloor.tax import TaxReport, tax_report
from noisefloor.tax.synthetic import write_synthetic_run

PNG = b"\x89PNG\r\n\x1a\n"


def test_report_command_writes_everything(planted, tmp_path):
    d = planted[0]
    out = tmp_path / "out"
    res = CliRunner().invoke(report, [str(d), "--out", str(out), "--labels",
                                      str(d / "judge_labels.jsonl"), "--n-boot", "50",
                                      "--permutations", "9", "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert "tax by model and family" in res.output and "pooled out-of-fold R^2" in res.output
    for stem in ("fig3_heatmap", "fig4_task_ratio", "fig5_cascade", "fig6_intervention",
                 "fig7_mixed_pairs"):
        assert (out / f"{stem}.png").read_bytes()[:8] == PNG
        assert b"<svg" in (out / f"{stem}.svg").read_bytes()[:500]
    md = (out / "report.md").read_text()
    for heading in ("Tax by model and family", "Per-task ratio gap", "Mixed pairs",
                    "Predicting the tax", "Four-stage cascade", "Prompt intervention"):
        assert heading in md
    assert "pooled OOF R^2" in md and "mean per-fold R^2" in md
    assert "Mixed pairs against same-model pairs" in md
    data = json.loads((out / "report.json").read_text())
    assert data["family_cells"][0]["tax"] <= 1 and "prediction" in data


def test_python_call_reproduces_the_command(small, tmp_path):
    d = small[0]
    # the sizes are small (what is compared is that every option reaches the same call); a
    # size or seed the command dropped would change every interval and the permutation p
    r = tax_report(d, labels=d / "judge_labels.jsonl", n_boot=50, n_permutations=9, rng=3)
    res = CliRunner().invoke(report, [str(d), "--out", str(tmp_path / "o"), "--labels",
                                      str(d / "judge_labels.jsonl"), "--n-boot", "50",
                                      "--permutations", "9", "--seed", "3", "--json"])
    assert res.exit_code == 0, res.output
    cli = json.loads(res.output)
    py = jsonable(r.to_dict())
    for key in ("task_cells", "family_cells", "stage_rates", "prediction"):
        assert cli[key] == py[key], key
    # the whole document is the library's (files: the command wrote them, the call did not)
    assert {k: v for k, v in cli.items() if k != "files"} == {
        k: v for k, v in py.items() if k != "files"}
    # one key set, with or without labels and prediction
    bare = tax_report(d, n_boot=20, n_permutations=0, predict=False)
    assert list(jsonable(bare.to_dict())) == list(cli)
    assert isinstance(r, TaxReport)
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.target = 0.5


def test_one_family_only_is_noted(tmp_path):
    write_synthetic_run(tmp_path, models={"a": 0.9, "b": 0.8, "c": 0.7},
                        tasks=[("csp_sudoku4", "csp"), ("csp_seating", "csp"),
                               ("csp_room_booking", "csp")], n_instances=6, seed=1)
    r = tax_report(tmp_path, n_boot=50, n_permutations=0)
    assert any(n.startswith("one family only (csp)") for n in r.notes)
    assert any(n.startswith("cascade unavailable: no labels and no judge") for n in r.notes)
    assert "--labels" in r.cascade_note and "_Unavailable: no labels" in r.markdown()
    assert r.stage_rates is None and r.mixed.empty and r.intervention.empty


def test_missing_transcript_is_a_clear_cli_error(small, tmp_path):
    d = tmp_path / "r"
    shutil.copytree(small[0], d)
    victim = sorted((d / "transcripts").glob("m-hi_pair_*"))[0]
    os.remove(victim)
    res = CliRunner().invoke(report, [str(d), "--out", str(tmp_path / "o"), "--n-boot", "20",
                                      "--permutations", "0"])
    assert res.exit_code == 1
    assert "trials.jsonl:" in res.output and "extra.transcript" in res.output
    assert "does not exist" in res.output
    ok = CliRunner().invoke(report, [str(d), "--out", str(tmp_path / "o"), "--n-boot", "20",
                                     "--permutations", "0", "--missing-transcripts", "omit",
                                     "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["prediction"]["missing_transcripts"] == 1


def test_transcript_without_events_names_the_option(small, tmp_path):
    # the hint names the command's option on the command line, the keyword in Python
    d = tmp_path / "r"
    shutil.copytree(small[0], d)
    victim = sorted((d / "transcripts").glob("m-hi_pair_*"))[0]
    victim.write_text("", encoding="utf-8")  # the file is there, its events are not
    res = CliRunner().invoke(report, [str(d), "--out", str(tmp_path / "o"), "--n-boot", "20",
                                      "--permutations", "0"])
    assert res.exit_code == 1
    assert "no events with rollout_key" in res.output
    assert "pass --missing-transcripts omit to leave them out" in res.output
    assert "missing=" not in res.output
    from noisefloor.tax.run import TaxRunError, read_run, read_transcripts

    with pytest.raises(TaxRunError, match="pass missing='omit' to leave them out"):
        read_transcripts(read_run(d))


def test_log_without_solo_rollouts(tmp_path):
    write_synthetic_run(tmp_path, models={"a": 0.9, "b": 0.8, "c": 0.7},
                        tasks=[("csp_sudoku4", "csp"), ("spatial_one_way", "spatial"),
                               ("relational_org_chart", "relational")], n_instances=5,
                        modes=("pair",), seed=1)
    r = tax_report(tmp_path, n_boot=20, n_permutations=0)
    assert r.family_cells["tax"].isna().all()
    assert r.family_cells["note"].str.startswith("no solo rollouts for").all()
    assert r.prediction.grouped is None
    assert "at least 3" in r.prediction.reasons["grouped"]
    res = CliRunner().invoke(report, [str(tmp_path), "--out", str(tmp_path / "o"),
                                      "--n-boot", "20", "--permutations", "0"])
    assert res.exit_code == 0, res.output
    assert "no solo rollouts for a on csp" in res.output and "tax    n/a" in res.output
