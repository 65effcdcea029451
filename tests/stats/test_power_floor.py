"""Planning against a measured floor that shrinks with n (``plan --floor-log``)."""

from __future__ import annotations

import math

from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.stats.power.functions import power
from noisefloor.stats.power.shrinking_floor import sample_size_shrinking_floor


def test_smallest_n_clears_the_floor_at_that_n():
    plan = sample_size_shrinking_floor(0.10, 0.172, 50, p_d=0.3)
    assert plan.floor_at_n == math.sqrt(50 / plan.n) * 0.172
    assert plan.achieved_power >= 0.8
    below = power("mcnemar", plan.n - 1, 0.10, p_d=0.3,
                  floor=0.172 * math.sqrt(50 / (plan.n - 1)))
    assert below < 0.8  # one task fewer falls short: n is the smallest
    # a floor already below the gap at n0 needs fewer tasks than a fixed floor at n0 would
    fixed = sample_size_shrinking_floor(0.10, 0.0, 50, p_d=0.3)
    assert fixed.n <= plan.n


def test_plan_floor_log_takes_null_and_says_what_is_held_fixed():
    out = CliRunner().invoke(cli, ["plan", "--gap", "0.1", "--p-d", "0.3", "--floor-log",
                                   "fixtures/nulls/two_systems.jsonl", "--null",
                                   "baseline-baseline"])
    assert out.exit_code == 0, out.output
    assert "held fixed in the table: the floor as measured, on n = 80 paired tasks" in out.output
    assert "with the floor shrinking as 1/sqrt(n)" in out.output and "n = " in out.output
    refused = CliRunner().invoke(cli, ["plan", "--gap", "0.1", "--p-d", "0.3", "--floor-log",
                                       "fixtures/nulls/two_systems.jsonl"])
    assert refused.exit_code == 1 and "--null" in refused.output
    assert "null_pairs" not in refused.output
    alone = CliRunner().invoke(cli, ["plan", "--gap", "0.1", "--p-d", "0.3", "--null", "a-a"])
    assert alone.exit_code == 2 and "--floor-log" in alone.output
