"""Regressions from the second new-user test (/work/notes/usertest2.md) in noisefloor.logs."""

from pathlib import Path

from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.logs import validate_logs

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "logs"


def test_duplicate_rows_are_not_counted_as_valid(tmp_path):
    # usertest2 item 18: 30 records plus a copy of line 2 gave "31 valid record(s)".
    lines = (FIX / "trials.jsonl").read_text().splitlines()
    log = tmp_path / "dup.jsonl"
    log.write_text("\n".join(lines + [lines[1], lines[1]]) + "\n")
    report = validate_logs(log)
    assert report.n_valid == len(lines)
    assert [p.kind for p in report.problems] == ["duplicate_row", "duplicate_row"]
    out = CliRunner().invoke(cli, ["log", "validate", str(log)]).output
    assert out.splitlines()[-1] == (f"1 file(s), {len(lines)} valid record(s), "
                                    "0 truncated line(s): 2 problem(s)")
