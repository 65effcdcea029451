"""R1: the two-sided tabular CUSUM, pinned to Montgomery's worked example and ARL table."""

from __future__ import annotations

import math
from dataclasses import FrozenInstanceError, dataclass

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from noisefloor.stats.monitor import siegmund_arl, simulate_cusum_run_lengths, tabular_cusum

# Montgomery, D. C. (2009), Introduction to Statistical Quality Control, 6th ed., Example 9.1
# (data of Table 9.1, tabular CUSUM of Table 9.2): mu0 = 10, sigma = 1, k = 0.5, h = 5; the
# first 20 observations are N(10, 1), the last 10 N(11, 1). Montgomery reports C+_29 = 5.28 > H,
# the first signal, with N+ = 7 (the upward run began after observation 22).
MONTGOMERY_9_1 = [
    9.45,
    7.99,
    9.29,
    11.66,
    12.16,
    10.18,
    8.04,
    11.46,
    9.20,
    10.34,
    9.03,
    11.47,
    10.51,
    9.40,
    10.08,
    9.37,
    10.62,
    10.31,
    8.52,
    10.84,
    10.90,
    9.33,
    12.29,
    11.50,
    10.60,
    11.08,
    10.38,
    11.62,
    11.31,
    10.52,
]


def test_montgomery_example_9_1():
    res = tabular_cusum(MONTGOMERY_9_1, target=10.0, sigma=1.0, k=0.5, h=5.0, restart=False)
    first = res.alarms[0]
    assert first.index + 1 == 29  # Montgomery: first signal at sample 29
    assert first.direction == "upper"
    assert first.statistic == pytest.approx(5.28, abs=0.005)  # Montgomery: C+_29 = 5.28
    assert first.threshold == 5.0
    # N+ = 7: C+ was last zero at observation 22 (Montgomery's estimate of the shift's onset)
    assert res.c_plus[21] == 0.0 and all(c > 0 for c in res.c_plus[22:29])
    assert not any(c > 5.0 for c in res.c_minus)
    assert res.reference_value == 0.5 and res.decision_interval == 5.0


def _brook_evans_arl(k: float, h: float, shift: float = 0.0, states: int = 300) -> float:
    """One-sided upper CUSUM ARL by the Brook & Evans (1972) Markov chain: an independent method."""
    w = 2.0 * h / (2 * states - 1)
    mids = np.arange(states) * w
    c = mids[:, None]
    upper = norm.cdf(mids[None, :] + w / 2 - c + k - shift)
    lower = norm.cdf(mids[None, :] - w / 2 - c + k - shift)
    p = upper - lower
    p[:, 0] = norm.cdf(w / 2 - mids + k - shift)
    return float(np.linalg.solve(np.eye(states) - p, np.ones(states))[0])


@pytest.mark.parametrize("h, montgomery", [(4.0, 168.0), (5.0, 465.0)])
def test_textbook_arl0_values_are_consistent(h, montgomery):
    # Montgomery (2009) Table 9.3, k = 1/2: two-sided ARL0 = 168 (h = 4) and 465 (h = 5).
    # Checked two ways: Brook & Evans (1972) Markov chain (one-sided ARL halved for the two-sided
    # in-control scheme, Lucas & Crosier 1982), and Siegmund's (1985) approximation, which
    # overstates ARL0 by < 1 %.
    assert _brook_evans_arl(0.5, h) / 2 == pytest.approx(montgomery, rel=0.003)
    assert siegmund_arl(0.0, k=0.5, h=h) == pytest.approx(montgomery, rel=0.01)


# Montgomery (2009) Table 9.3: two-sided ARL of the tabular CUSUM with k = 1/2, by shift (sigma).
MONTGOMERY_TABLE_9_3 = {
    4.0: {
        0.0: 168.0,
        0.25: 74.2,
        0.5: 26.6,
        0.75: 13.3,
        1.0: 8.38,
        1.5: 4.75,
        2.0: 3.34,
        2.5: 2.62,
        3.0: 2.19,
        4.0: 1.71,
    },
    5.0: {
        0.0: 465.0,
        0.25: 139.0,
        0.5: 38.0,
        0.75: 17.0,
        1.0: 10.4,
        1.5: 5.75,
        2.0: 4.01,
        2.5: 3.11,
        3.0: 2.57,
        4.0: 2.01,
    },
}


@pytest.mark.parametrize("h", [4.0, 5.0])
def test_montgomery_table_9_3_by_brook_evans(h):
    # Two-sided ARL = 1 / (1/ARL+ + 1/ARL-) (Lucas & Crosier 1982), each half by Brook & Evans.
    for shift, table in MONTGOMERY_TABLE_9_3[h].items():
        up, lo = _brook_evans_arl(0.5, h, shift), _brook_evans_arl(0.5, h, -shift)
        assert 1 / (1 / up + 1 / lo) == pytest.approx(table, rel=0.01, abs=0.01), shift


@pytest.mark.parametrize("h", [4.0, 5.0])
def test_siegmund_matches_montgomery_for_small_shifts(h):
    # Siegmund's approximation (what CusumResult.arl0 reports) is within 1.5 % of Montgomery's
    # Table 9.3 up to a 1-sigma shift; it is coarser for large shifts (3.22 vs 3.34 at 2 sigma).
    for shift in (0.0, 0.25, 0.5, 0.75, 1.0):
        assert siegmund_arl(shift, k=0.5, h=h) == pytest.approx(
            MONTGOMERY_TABLE_9_3[h][shift], rel=0.015
        ), shift


@pytest.mark.parametrize("h, chains, montgomery", [(4.0, 6000, 168.0), (5.0, 3000, 465.0)])
def test_simulated_in_control_arl_matches_montgomery_table_9_3(h, chains, montgomery):
    # Vectorised simulation of the two-sided chart on N(0, 1) data, fixed seed. Reference:
    # Montgomery (2009) Table 9.3 (k = 1/2). Tolerance: 4 Monte Carlo standard errors.
    rl = simulate_cusum_run_lengths(chains, k=0.5, h=h, rng=20261130)
    assert rl.max() <= 100_000  # nothing censored
    se = rl.std(ddof=1) / math.sqrt(chains)
    assert abs(rl.mean() - montgomery) < 4 * se, (rl.mean(), se)


def test_simulated_arl_of_the_papers_setting():
    # h = 1.5 (the paper's "alarm at +-1.5 sigma"), k = 0.5: Brook & Evans gives a one-sided ARL
    # of 21.09, two-sided 10.54 (halved; a two-dimensional Brook-Evans chain on (C+, C-) with
    # 80 x 80 states, too slow for a test, gave 10.543 too); Siegmund's approximation gives
    # 10.72 (reported as CusumResult.arl0).
    rl = simulate_cusum_run_lengths(20_000, k=0.5, h=1.5, rng=7)
    se = rl.std(ddof=1) / math.sqrt(rl.size)
    reference = _brook_evans_arl(0.5, 1.5) / 2
    assert reference == pytest.approx(10.54, abs=0.01)
    assert abs(rl.mean() - reference) < 4 * se
    assert tabular_cusum([0.0], target=0.0, sigma=1.0).arl0 == pytest.approx(10.72, abs=0.01)


def test_tabular_cusum_alarm_spacing_matches_simulated_arl():
    # The production recursion (tabular_cusum, restart after each alarm) on one long in-control
    # stream: the gaps between alarms are i.i.d. run lengths, so their mean estimates ARL0 of the
    # same (k, h); compared with Brook & Evans' 10.54 for h = 1.5.
    x = np.random.default_rng(3).standard_normal(60_000)
    res = tabular_cusum(x, target=0.0, sigma=1.0, k=0.5, h=1.5)
    idx = np.array(sorted({a.index for a in res.alarms}))
    gaps = np.diff(np.concatenate([[-1], idx]))
    se = gaps.std(ddof=1) / math.sqrt(gaps.size)
    assert abs(gaps.mean() - 10.54) < 4 * se, (gaps.mean(), se)


def test_simulated_out_of_control_arl():
    # Montgomery (2009) Table 9.3: k = 1/2, h = 5, shift of 1 sigma -> ARL 10.4.
    rl = simulate_cusum_run_lengths(4000, k=0.5, h=5.0, shift=1.0, rng=11)
    se = rl.std(ddof=1) / math.sqrt(rl.size)
    assert abs(rl.mean() - 10.4) < 4 * se


def test_fires_at_expected_trial_on_a_shifted_stream():
    # 20 in-control rounds at mu0, then pass^k drops by one sigma. With k = 0.5 the lower sum
    # grows by 0.5 sigma per round: 0.5, 1.0, 1.5 (not > 1.5), 2.0 -> alarm on the 4th shifted
    # round, index 23; with restart it fires again every 4th round.
    mu0, sigma = 0.40, 0.06
    x = [mu0] * 20 + [mu0 - sigma] * 10
    res = tabular_cusum(x, target=mu0, sigma=sigma)
    assert [a.index for a in res.alarms] == [23, 27]
    assert all(a.direction == "lower" for a in res.alarms)
    assert res.alarms[0].statistic == pytest.approx(2.0 * sigma)
    assert res.alarms[0].threshold == pytest.approx(1.5 * sigma)
    no_restart = tabular_cusum(x, target=mu0, sigma=sigma, restart=False)
    assert [a.index for a in no_restart.alarms] == list(range(23, 30))


def test_fires_soon_after_a_noisy_shift_and_not_before():
    rng = np.random.default_rng(42)
    sigma = 0.05
    x = np.concatenate([rng.normal(0.5, sigma, 40), rng.normal(0.5 + 3 * sigma, sigma, 20)])
    res = tabular_cusum(x, target=0.5, sigma=sigma, k=0.5, h=5.0)
    # h = 5: in-control ARL 465, so 40 quiet rounds; a 3-sigma rise is caught within a few
    # rounds (Montgomery Table 9.3: ARL 2.57 at a 3-sigma shift).
    assert res.alarms, "no alarm after a 3-sigma shift"
    assert 40 <= res.alarms[0].index <= 45
    assert res.alarms[0].direction == "upper"


def _brook_evans_cdf(k: float, h: float, n: int, states: int = 300) -> float:
    """P(one-sided upper run length <= n) in control, from the Brook & Evans chain."""
    w = 2.0 * h / (2 * states - 1)
    mids = np.arange(states) * w
    c = mids[:, None]
    p = norm.cdf(mids[None, :] + w / 2 - c + k) - norm.cdf(mids[None, :] - w / 2 - c + k)
    p[:, 0] = norm.cdf(w / 2 - mids + k)
    alive = np.zeros(states)
    alive[0] = 1.0
    for _ in range(n):
        alive = alive @ p
    return 1.0 - alive.sum()


def test_quiet_on_streams_drawn_from_the_baseline():
    # 1000 streams of 30 rounds drawn from the in-control (baseline) distribution, h = 5. A stream
    # raises a false alarm with probability between P+ and 2 P+ (union bound), P+ = P(one-sided
    # run length <= 30) = 0.0256 by Brook & Evans; allow 4 binomial standard errors either side.
    rng = np.random.default_rng(2026)
    streams = rng.normal(0.42, 0.05, (1000, 30))
    alarmed = [bool(tabular_cusum(s, target=0.42, sigma=0.05, h=5.0).alarms) for s in streams]
    p_one = _brook_evans_cdf(0.5, 5.0, 30)
    assert p_one == pytest.approx(0.0256, abs=0.0005)
    se = math.sqrt(2 * p_one / 1000)
    assert p_one - 4 * se <= np.mean(alarmed) <= 2 * p_one + 4 * se, np.mean(alarmed)


def test_sigma_from_a_floor_result():
    @dataclass(frozen=True)
    class FakeFloor:  # stands for noisefloor.floor.estimate.NoiseFloor: only null_gap_sd is read
        null_gap_sd: float

    res = tabular_cusum([0.1, 0.2], target=0.15, sigma=FakeFloor(0.04))
    assert res.sigma == 0.04 and res.sigma_source == "null_gap_sd of FakeFloor"
    assert res.decision_interval == pytest.approx(0.06)
    with pytest.raises(ValueError, match="null_gap_sd"):
        tabular_cusum([0.1], target=0.1, sigma=FakeFloor(float("nan")))


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"sigma": 0.0}, ValueError, "sigma must be > 0"),
        ({"sigma": -1.0}, ValueError, "sigma"),
        ({"sigma": "a"}, TypeError, "sigma must be a real number"),
        ({"h": 0.0}, ValueError, "h must be > 0"),
        ({"k": -0.1}, ValueError, "k must be >= 0"),
        ({"target": float("nan")}, ValueError, "target must be finite"),
        ({"restart": 1}, TypeError, "restart must be a bool"),
    ],
)
def test_bad_parameters_raise(kwargs, exc, match):
    args = {"target": 0.0, "sigma": 1.0} | kwargs
    with pytest.raises(exc, match=match):
        tabular_cusum([0.0, 1.0], **args)


def test_bad_observations_raise():
    with pytest.raises(ValueError, match="position 1 is nan"):
        tabular_cusum([0.0, float("nan")], target=0.0, sigma=1.0)
    with pytest.raises(ValueError, match="1-D"):
        tabular_cusum([[0.0]], target=0.0, sigma=1.0)


def test_result_is_frozen_with_views():
    res = tabular_cusum([0.0, -3.0], target=0.0, sigma=1.0)
    with pytest.raises(FrozenInstanceError):
        res.k = 1.0  # type: ignore[misc]
    frame = res.to_frame()
    assert list(frame.columns) == ["index", "x", "c_plus", "c_minus", "alarm"]
    assert frame["alarm"].tolist() == ["", "lower"]
    d = res.to_dict()
    assert d["c_minus"] == [0.0, 2.5] and d["alarms"][0]["direction"] == "lower"
    assert res.alarms[0].to_frame().shape == (1, 6)


def test_siegmund_arl_validates_and_is_symmetric():
    assert siegmund_arl(0.7, k=0.5, h=4.0) == pytest.approx(siegmund_arl(-0.7, k=0.5, h=4.0))
    assert siegmund_arl(0.0, k=0.5, h=4.0, sided="upper") == pytest.approx(
        2 * siegmund_arl(0.0, k=0.5, h=4.0)
    )
    with pytest.raises(ValueError, match="sided must be one of"):
        siegmund_arl(0.0, sided="both")


finite = st.floats(-10, 10, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    x=st.lists(finite, min_size=1, max_size=40),
    shift=finite,
    scale=st.floats(0.1, 10),
    k=st.floats(0, 2),
    h=st.floats(0.1, 6),
)
def test_properties(x, shift, scale, k, h):
    base = tabular_cusum(x, target=0.0, sigma=1.0, k=k, h=h)
    # A sum lying on the decision interval H (to rounding) may alarm (and restart) in one
    # parametrisation and not in the rescaled one: equivariance holds only off that boundary.
    assume(all(abs(c - h) > 1e-6 for c in base.c_plus + base.c_minus))
    assert all(c >= 0 for c in base.c_plus + base.c_minus)
    # location-scale equivariance: (x*scale + shift, target shift, sigma scale) -> sums * scale
    moved = tabular_cusum([v * scale + shift for v in x], target=shift, sigma=scale, k=k, h=h)
    np.testing.assert_allclose(moved.c_plus, np.multiply(base.c_plus, scale), atol=1e-6 * scale)
    # mirror symmetry: negating the deviations swaps the upper and lower sums
    mirror = tabular_cusum([-v for v in x], target=0.0, sigma=1.0, k=k, h=h)
    np.testing.assert_allclose(mirror.c_plus, base.c_minus, atol=1e-9)
    flip = {"upper": "lower", "lower": "upper"}
    assert [(a.index, flip[a.direction]) for a in mirror.alarms] == [
        (a.index, a.direction) for a in base.alarms
    ]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.floats(0, 1.5), h=st.floats(0.2, 3), shift=finite)
def test_simulation_agrees_with_the_recursion(seed, k, h, shift):
    # simulate_cusum_run_lengths (vectorised Lindley form, tiny blocks to exercise the carry)
    # equals the first alarm of tabular_cusum on the same draws.
    rl = simulate_cusum_run_lengths(1, k=k, h=h, shift=shift / 5, rng=seed, max_length=300, block=7)
    # Re-draw what the simulator drew for its single chain: blocks of 7 from one generator.
    gen = np.random.default_rng(seed)
    draws = np.concatenate([gen.standard_normal((1, 7))[0] for _ in range(43)])[:300] + shift / 5
    res = tabular_cusum(draws, target=0.0, sigma=1.0, k=k, h=h, restart=False)
    expected = res.alarms[0].index + 1 if res.alarms else 301
    assert rl[0] == expected


@settings(max_examples=60, deadline=None)
@given(delta=st.floats(-0.01, 0.01), h=st.floats(0.1, 6))
def test_siegmund_is_continuous_through_zero_drift(delta, h):
    # regression: k = shift + tiny drift once cancelled to 0 and divided by zero (Hypothesis)
    b = h + 1.166
    value = siegmund_arl(0.0, k=abs(delta), h=h, sided="upper")
    assert math.isfinite(value) and value == pytest.approx(b * b, rel=0.1)
    assert siegmund_arl(0.0, k=abs(delta), h=h) == pytest.approx(value / 2)
