"""trials.jsonl never falls behind the journal: rebuilt when a run starts, refused by the
reader when stale, rebuilt (and said) by ``tax report``; transcript paths stay inside the
run folder."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from harness.runner import journal as jr
from harness.runner.journal import rebuild_trials
from harness.runner.merge import merge_runs
from harness.runner.run import RunSettings, run_tax
from noisefloor.cli.main import cli
from noisefloor.tax.run import TaxRunError, read_run, trials_behind_journal
from tests.harness.runner.conftest import endpoints_for


def _settings(rollouts):
    return RunSettings(tasks=("csp_sudoku4", "spatial_one_way"), models=("solver",),
                       modes=("solo", "pair"), rollouts=rollouts, difficulty=0, turn_cap=6)


def _lines(path):
    return len((path / jr.TRIALS).read_text().splitlines())


@pytest.fixture()
def interrupted(server, tmp_path):
    """A directory in the state a kill leaves: the journal holds 12 rollouts, trials.jsonl
    (and its note) the 4 of an earlier, smaller run."""
    d = tmp_path / "run"
    run_tax(_settings(1), endpoints_for(server, "solver"), d)
    old = tmp_path / "old"
    old.mkdir()
    for name in (jr.TRIALS, jr._STAMP):
        shutil.copy(d / name, old / name)
    run_tax(_settings(3), endpoints_for(server, "solver"), d)
    for name in (jr.TRIALS, jr._STAMP):
        shutil.copy(old / name, d / name)
    assert _lines(d) == 4 and len(jr.read_journal(d / jr.JOURNAL).entries) == 12
    return d


def test_the_reader_refuses_records_older_than_the_journal(interrupted):
    assert "older than its journal" in trials_behind_journal(interrupted / jr.TRIALS)
    with pytest.raises(TaxRunError, match=r"trials.jsonl: field 'trials': older than its "
                                          r"journal \(built from [\d,]+ bytes of "
                                          r"journal.ndjson, which now holds [\d,]+\)"):
        read_run(interrupted)
    with pytest.raises(TaxRunError, match="older than its journal"):
        read_run(interrupted / jr.TRIALS)


def test_rebuild_catches_up_once(interrupted):
    assert rebuild_trials(interrupted) == (4, 12)
    assert _lines(interrupted) == 12 and trials_behind_journal(interrupted / jr.TRIALS) is None
    assert rebuild_trials(interrupted) == (12, 12)  # current: left alone
    assert len(read_run(interrupted).rollouts) == 12


def test_a_resume_rebuilds_before_it_runs(interrupted, server):
    # a resume that grows the plan: the records are current from its start on (a kill
    # during it cannot leave the 4-record file)
    seen = []

    def on_progress(p):
        if not seen:
            seen.append(_lines(interrupted))

    result = run_tax(_settings(4), endpoints_for(server, "solver"), interrupted,
                     on_progress=on_progress)
    assert result.ran == 4 and seen == [12] and _lines(interrupted) == 16


def test_tax_report_rebuilds_and_says_so(interrupted, tmp_path):
    res = CliRunner().invoke(
        cli, ["tax", "report", str(interrupted), "--out", str(tmp_path / "rep"),
              "--no-predict", "--n-boot", "20", "--permutations", "0"])
    assert res.exit_code == 0, res.output
    assert "older than its journal" in res.stderr
    assert "rebuilt it from the journal: 12 records (it held 4 records)" in res.stderr
    assert _lines(interrupted) == 12


def test_tax_report_call_rebuilds_with_the_runner_given(interrupted):
    from noisefloor.tax import tax_report

    with pytest.raises(TaxRunError, match="older than its journal"):
        tax_report(interrupted, predict=False, n_boot=20, n_permutations=0)
    rep = tax_report(interrupted, predict=False, n_boot=20, n_permutations=0,
                     rebuild_stale=rebuild_trials)
    (note,) = rep.rebuilt
    assert "rebuilt it from the journal: 12 records (it held 4 records)" in note
    assert rep.to_dict()["rebuilt"] == [note] and rep.n_rollouts == 12


def test_merge_notes_what_its_records_were_built_from(server, tmp_path):
    run_tax(_settings(1), endpoints_for(server, "solver"), tmp_path / "a")
    merge_runs([tmp_path / "a"], tmp_path / "m")
    assert trials_behind_journal(tmp_path / "m" / jr.TRIALS) is None


@pytest.mark.parametrize("rel", ["../../etc/passwd", "/etc/passwd", "transcripts/../../x"])
def test_a_transcript_path_must_stay_inside_the_run_folder(server, tmp_path, rel):
    d = tmp_path / "run"
    run_tax(_settings(1), endpoints_for(server, "solver"), d)
    records = [json.loads(line) for line in (d / jr.TRIALS).read_text().splitlines()]
    records[1]["extra"]["transcript"] = rel
    (d / "bad.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(TaxRunError, match=r"bad.jsonl:2: field 'extra.transcript': "
                                          + f"'{rel}' is not a path inside the run folder"):
        read_run(d / "bad.jsonl")
    with pytest.raises(jr.JournalError, match="is not a path inside the run folder"):
        jr.read_transcript(d, records[1])
