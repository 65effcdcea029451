"""The root group loads command modules lazily: ``noisefloor --help`` imports no heavy library."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from noisefloor.cli.main import COMMANDS, cli

REPO = Path(__file__).resolve().parents[2]


def test_help_lists_every_command_with_its_summary():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert f"  {name} " in result.output


def test_every_listed_command_loads_under_its_name():
    for name, (module, attr, summary) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attr)
        assert command.name == name, (name, command.name)
        assert cli.get_command(None, name) is command
        assert summary and len(summary) <= 90
        assert command.short_help == summary, (name, command.short_help)


def test_top_level_help_imports_neither_pandas_nor_scipy():
    # A fresh interpreter: the parent test process has pandas loaded already.
    code = ("import sys\nfrom noisefloor.cli.main import cli\n"
            "try:\n    cli(['--help'], prog_name='noisefloor')\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('pandas', 'scipy', 'numpy', 'matplotlib', 'statsmodels') "
            "if m in sys.modules]\nprint('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert "HEAVY []" in out, out


def test_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(cli, ["no-such-command"])
    assert result.exit_code == 2 and "No such command" in result.output
