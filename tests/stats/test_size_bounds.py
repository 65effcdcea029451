"""plan and reruns-sim refuse or bound sizes they cannot serve, naming the option and the limit,
instead of running for minutes or dying in MemoryError/OverflowError."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.stats import snr
from noisefloor.stats.power.functions import MAX_EXACT_N
from noisefloor.stats.power.planning import MAX_PLAN_N, minimum_detectable_effect, plan, sample_size
from noisefloor.stats.validation import ParameterError


@pytest.mark.parametrize("gap", [1e-300, 1e-12])
def test_a_vanishing_gain_is_a_plan_with_a_reason(gap):
    for test, kw in (("mcnemar", {"p_d": 0.3}), ("sign_test", {"p_d": 0.3}),
                     ("two_proportion", {"baseline": 0.5})):
        p = sample_size(gap, test=test, **kw)
        assert p.n == -1 and ("MAX_PLAN_N" in p.reason or "MAX_EXACT_N" in p.reason), p.reason


def test_the_exact_test_is_not_computed_past_its_limit():
    p = minimum_detectable_effect(MAX_EXACT_N + 1, test="sign_test", p_d=0.32)
    assert p.gap != p.gap and "up to n = 20,000 (MAX_EXACT_N)" in p.reason
    # McNemar's closed form serves any n up to MAX_PLAN_N (Connor 1987: the MDE shrinks as
    # 1/sqrt(n); at n = 10^6 and p_d = 0.32 it is about 0.16 pp)
    mde = minimum_detectable_effect(10**6, test="mcnemar", p_d=0.32).gap
    assert 0.0014 < mde < 0.0018
    with pytest.raises(ParameterError, match=r"n must be a whole number of tasks in \[1, "
                                             r"1,000,000,000,000\]"):
        minimum_detectable_effect(MAX_PLAN_N + 1, test="mcnemar", p_d=0.32)
    assert len(plan(n=10**9, p_d=0.32).plans) == 2


def test_reruns_sim_refuses_what_it_cannot_draw_and_chunks_the_rest(monkeypatch):
    with pytest.raises(ParameterError, match=r"one simulated experiment would draw "
                                             r"300,000,000 outcomes"):
        snr.simulate_reruns([0.5] * 100, n_seeds=10**6)
    with pytest.raises(ParameterError, match=r"would draw 12,000,000,000 outcomes .* more "
                                             r"than the 2,000,000,000"):
        snr.simulate_reruns([0.5] * 10**6, n_sim=2000)
    # chunked over experiments: the same result as all at once when one chunk holds them
    whole = snr.simulate_reruns([0.3, 0.5, 0.7] * 10, n_sim=64, rng=5)
    monkeypatch.setattr(snr, "RERUN_CHUNK_DRAWS", 6 * 30 * 64)
    assert snr.simulate_reruns([0.3, 0.5, 0.7] * 10, n_sim=64, rng=5) == whole
    monkeypatch.setattr(snr, "RERUN_CHUNK_DRAWS", 6 * 30 * 7)  # 7 experiments per chunk
    chunked = snr.simulate_reruns([0.3, 0.5, 0.7] * 10, n_sim=64, rng=5)
    assert 0 <= chunked.single_seed_rate <= chunked.experiment_any_rate <= 1
    assert chunked.n_sim == 64


def test_the_cli_names_the_options():
    run = CliRunner().invoke
    res = run(cli, ["reruns-sim", "--flip-rate", "0.3", "--seeds", "1000000"])
    assert res.exit_code == 1 and "lower --seeds, --arms or the number of tasks" in res.output
    res = run(cli, ["plan", "--n", "10000000000000", "--p-d", "0.32"])
    assert res.exit_code == 1 and "--n must be a whole number of tasks" in res.output
