"""Each report kind's command line and the pattern of a number tied to --json (shared by the
HTML page tests)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from noisefloor.cli.main import cli

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
ROOT = Path(__file__).resolve().parents[2]

#: Report kind -> command line (without --json / --html); {tax} is a synthetic tax run. The
#: audits pass --no-plot: the page draws its own forest (SVG) from the result, so the
#: matplotlib files, most of an audit's time, change nothing the page tests check.
COMMANDS = {
    "audit": ["audit", "--out", "{tmp}/audit", "--no-plot"],
    "audit-log": ["audit", "--log", "fixtures/logs/paper", "--benchmark", "tau2/retail",
                  "--model", "m", "--out", "{tmp}/audit-log", "--no-plot"],
    "floor": ["floor", "fixtures/logs/paper", "--benchmark", "tau2/retail", "--model", "m"],
    "contrast": ["contrast", "--log", "fixtures/logs/paper", "--a", "no_coord", "--b",
                 "intercept", "--benchmark", "tau2/retail", "--model", "m"],
    "passk": ["passk", "fixtures/logs/paper", "--benchmark", "tau2/retail", "--model", "m"],
    "leaderboard": ["leaderboard", str(DATA / "tau2-bench" / "leaderboard_submissions.json"),
                    "--a", "gpt-4.1", "--b", "o4-mini"],
    "leaderboard-list": ["leaderboard",
                         str(DATA / "tau2-bench" / "leaderboard_submissions.json"),
                         "--domain", "airline"],
    "agreement": ["agreement", "fixtures/agreement/tax_annotations.csv", "--n-boot", "200"],
    "plan": ["plan", "--gap", "0.1", "--p-d", "0.3", "--baseline", "0.5", "--floor", "0.05"],
    "compare": ["compare", "--log", "fixtures/nulls/two_systems.jsonl", "--a", "swarm", "--b",
                "baseline", "--null", "swarm-swarm", "--null", "baseline-baseline"],
    "tax": ["tax", "report", "{tax}", "--labels", "{tax}/judge_labels.jsonl", "--n-boot", "100",
            "--permutations", "9", "--out", "{tmp}/tax-out"],
}


def run_cli(args: list[str]) -> str:
    """Run the CLI; return stdout (fails on a non-zero exit)."""
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


NUM = re.compile(r'<span class="nf-num" data-key="([^"]*)" data-fmt="([^"]*)" '
                 r'data-value="([^"]*)">([^<]*)</span>')
