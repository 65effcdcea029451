"""Messages the command line shows name ``--options``, never Python keywords (``gap=``).

The planning checks (noisefloor.stats.power.functions, noisefloor.stats.power.planning) and the audit's
pooling refusal raise :class:`~noisefloor.stats.validation.ParameterError`; Python callers
read the same message with keywords.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.stats.power.planning import plan

KEYWORD = re.compile(r"\b[a-z][a-z_]*=")


@pytest.mark.parametrize("args, expected", [
    (["--gap", "0.5", "--p-d", "0.2"], "the size of --gap cannot exceed --p-d"),
    (["--gap", "0.1"], "give --p-d for the paired tests"),
    (["--gap", "0.1", "--test", "two_proportion", "--p-d", "0.3"],
     "--baseline (the reference arm's success rate) is needed for --test two_proportion"),
    (["--gap", "5", "--p-d", "0.3"], "--gap must be a proportion in [-1, 1]"),
    (["--gap", "0.1", "--p-d", "1.5"], "--p-d must lie in [0, 1]; got 1.5"),
    (["--gap", "0.1", "--p-d", "0.3", "--floor", "0.6"], "--floor must satisfy floor^2 < --p-d"),
    (["--gap", "0.1", "--p-d", "0.3", "--alpha", "1.5"], "--alpha must lie strictly between"),
])
def test_plan_refusals_name_options(args, expected):
    r = CliRunner().invoke(cli, ["plan", *args])
    assert r.exit_code != 0 and expected in r.output, r.output
    assert not KEYWORD.search(r.output), r.output


def test_python_callers_read_keywords():
    with pytest.raises(ValueError, match=r"the size of gap= cannot exceed p_d="):
        plan(gap=0.5, p_d=0.2)
    with pytest.raises(ValueError, match=r"baseline= \(the reference arm's success rate\) is "
                                         r"needed for test='two_proportion'"):
        plan(gap=0.1, tests=("two_proportion",))


def test_audit_random_pooling_refusal_names_options(tmp_path):
    r = CliRunner().invoke(cli, ["audit", "--pooling", "random", "--log",
                                 "fixtures/nulls/two_systems.jsonl", "--null",
                                 "baseline-baseline", "--no-plot", "--out", str(tmp_path)])
    assert r.exit_code != 0 and "--pooling random: no floor" in r.output
    assert "(--pooling summed)" in r.output and not KEYWORD.search(r.output), r.output
