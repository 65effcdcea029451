"""The examples of docs/audit.md, docs/floor.md and docs/contrast.md are real: each
``$ noisefloor ...`` command is run again and must print what the page shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli

REPO = Path(__file__).resolve().parents[1]
PAGES = ("audit.md", "floor.md", "contrast.md")


def _examples():
    for page in PAGES:
        text = (REPO / "docs" / page).read_text()
        for block in re.findall(r"```\n(.*?)```", text, flags=re.S):
            chunks = re.split(r"^\$ noisefloor ", block, flags=re.M)[1:]
            for chunk in chunks:
                command, _, output = chunk.partition("\n")
                yield pytest.param(command, output, id=f"{page}: {command[:60]}")


@pytest.mark.parametrize("command, expected", list(_examples()))
def test_documented_output_is_what_the_command_prints(command, expected, tmp_path, monkeypatch,
                                                      shared_data):
    monkeypatch.chdir(REPO)
    args = shlex.split(command)
    if args[0] == "audit":
        args += ["--out", str(tmp_path)]
    result = CliRunner().invoke(cli, args)
    got = [line for line in result.output.splitlines() if not line.startswith("Wrote ")]
    want = [line for line in expected.splitlines() if not line.startswith("Wrote ")]
    assert got == want
