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


def test_the_tax_group_holds_its_four_commands():
    from noisefloor.cli.tax import merge, report, run, tax, view

    assert tax.list_commands(None) == ["merge", "report", "run", "view"]
    for command in (merge, report, run, view):
        assert tax.get_command(None, command.name) is command


def test_a_resume_with_tax_run_imports_none_of_the_analysis(tmp_path):
    # ``tax run`` on a directory whose journal is complete: nothing to run, so no request; the
    # analysis (``tax report``: scipy, scikit-learn, matplotlib) stays unloaded
    args = ["tax", "run", "--tasks", "csp_sudoku4", "--models", "m", "--modes", "solo",
            "--difficulty", "0", "--base-url", "http://127.0.0.1:9/v1", "--out", str(tmp_path)]
    code = ("import sys\nfrom noisefloor.cli.main import cli\nfrom harness.runner import "
            "journal as jr\nfrom harness.runner.run import RunSettings, plan_rollouts\n"
            "spec = plan_rollouts(RunSettings(tasks=('csp_sudoku4',), models=('m',), "
            "modes=('solo',), difficulty=0))[0]\n"
            "record = {'schema_version': '1', 'benchmark': 'tax/csp_sudoku4', 'model': 'm', "
            "'protocol': 'solo', 'seed': 0, 'task_id': spec.task_id, 'trial': 0, "
            "'reward': 1.0, 'termination_reason': 'final_answer', "
            "'infrastructure_error': False, 'extra': {'tokens_in': 1, 'tokens_out': 1, "
            "'cost_usd': None, 'error': None}}\n"
            f"w = jr.JournalWriter({str(tmp_path / 'journal.ndjson')!r})\n"
            "w.append({'key': spec.key, 'settings': spec.settings, 'record': record})\n"
            "w.close()\n"
            f"try:\n    cli({args!r}, prog_name='noisefloor')\nexcept SystemExit as e:\n"
            "    print('EXIT', e.code)\n"
            "heavy = [m for m in ('scipy', 'sklearn', 'matplotlib', 'statsmodels') "
            "if m in sys.modules]\nprint('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert "1 rollouts planned, 1 already done, 0 run now" in out and "EXIT 0" in out, out
    assert "HEAVY []" in out, out
