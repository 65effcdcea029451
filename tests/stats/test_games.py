"""Two-player cooperative game: pinned to the collaboration-tax paper's figures; Hypothesis axioms."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from noisefloor.stats.games import shapley_values, two_player_game


def test_widget_default_of_figure_2():
    # Collaboration-tax paper, Figure 2 widget default: v({1}) = 0.869, v({2}) = 0.352,
    # v({1,2}) = 0.731. Proposition 3 closed form by hand: phi_1 = (0.869 + 0.731 - 0.352) / 2
    # = 0.624, phi_2 = (0.352 + 0.731 - 0.869) / 2 = 0.107; tax = 0.869 - 0.731 = 0.138.
    g = two_player_game(0.869, 0.352, 0.731)
    assert g.phi1 == pytest.approx(0.624, abs=1e-12)
    assert g.phi2 == pytest.approx(0.107, abs=1e-12)
    assert g.tax == pytest.approx(0.138, abs=1e-12)
    assert g.midpoint == pytest.approx(0.6105, abs=1e-12)
    # the pair lands above the midpoint, below its strongest member (paper, section 6)
    assert g.midpoint < g.v12 < max(g.v1, g.v2)
    assert g.share_violating == 1.0


def test_proposition_4_note_nano_gpt5():
    # Paper, Proposition 4 note: on nano x gpt-5, gpt-5 is credited 0.668 against solo 0.932.
    # phi_i - v_i = (v12 - v1 - v2) / 2 is the same for both members, so the loss is 0.264 for
    # each: any (v_nano, v12) with v12 - v_nano = 2 * 0.668 - 0.932 = 0.404 reproduces it.
    v_gpt5 = 0.932
    for v_nano in (0.2, 0.3, 0.45):
        v12 = v_nano + 0.404
        p_nano, p_gpt5 = shapley_values(v_nano, v_gpt5, v12)
        assert float(p_gpt5[0]) == pytest.approx(0.668, abs=1e-12)
        assert float(p_gpt5[0]) - v_gpt5 == pytest.approx(float(p_nano[0]) - v_nano, abs=1e-12)
        assert float(p_gpt5[0]) - v_gpt5 == pytest.approx(-0.264, abs=1e-12)


def test_per_task_tax_differs_from_suite_tax():
    # the stronger member changes between tasks: suite-level max(v1, v2) - v12 = 0.5 - 0.5 = 0,
    # per-task taxes 0.8 - 0.5 and 0.8 - 0.5 average 0.3
    g = two_player_game([0.8, 0.2], [0.2, 0.8], [0.5, 0.5])
    assert g.tax == pytest.approx(0.3 - 0.3)
    assert g.mean_task_tax == pytest.approx(0.3)
    assert g.share_violating == 1.0


@pytest.mark.parametrize("bad", [[], [1.5], [math.nan], [[0.1]]])
def test_bad_input_is_refused(bad):
    with pytest.raises(ValueError):
        two_player_game(bad, bad, bad)


def test_unequal_lengths_refused():
    with pytest.raises(ValueError, match="same length"):
        two_player_game([0.1, 0.2], [0.3], [0.4])


unit = st.floats(0, 1, allow_nan=False)


@given(unit, unit, unit)
def test_efficiency_and_symmetry(v1, v2, v12):
    p1, p2 = shapley_values(v1, v2, v12)
    assert float(p1[0] + p2[0]) == pytest.approx(v12, abs=1e-12)          # efficiency
    q2, q1 = shapley_values(v2, v1, v12)                                    # swap the players
    assert float(q1[0]) == pytest.approx(float(p1[0]), abs=1e-12)           # symmetry
    if v1 == v2:
        assert float(p1[0]) == pytest.approx(float(p2[0]), abs=1e-12)


@given(unit, unit, unit)
def test_proposition_4(v1, v2, v12):
    p1, p2 = shapley_values(v1, v2, v12)
    if v12 < v1 + v2 - 1e-12:
        assert p1[0] < v1 and p2[0] < v2
    assert float(p1[0] - v1) == pytest.approx(float(p2[0] - v2), abs=1e-12)


@given(st.lists(st.tuples(unit, unit, unit), min_size=1, max_size=20))
def test_tax_sign_is_max_superadditivity(rows):
    a, b, c = (np.array(x) for x in zip(*rows))
    g = two_player_game(a, b, c)
    assert (g.tax > 0) == (g.v12 < max(g.v1, g.v2))          # Proposition 2
    assert 0 <= g.share_violating <= 1
    assert g.phi1 + g.phi2 == pytest.approx(g.v12, abs=1e-12)
