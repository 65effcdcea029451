"""A bootstrap over items that cannot vary gives no interval (NaN + ci_reason), never a zero-width one.

Regression: one item gave Fleiss' kappa
-0.500 with the "interval" [-0.500, -0.500] and Krippendorff's alpha 0.000 with [0.000, 0.000].
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.agreement.study import SUMMARY_KEYS, agreement_by_label
from noisefloor.stats.agreement import (
    MIN_BOOTSTRAP_ITEMS,
    cohen_kappa,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    krippendorff_alpha,
)

ONE_ITEM = np.array([["yes", "no", "yes"]], dtype=object)


def test_minimum_is_two_items():
    assert MIN_BOOTSTRAP_ITEMS == 2


def test_one_item_fleiss_and_alpha_have_a_value_but_no_interval():
    # Fleiss (1971) on one item rated yes/no/yes: P_bar = 1/3, P_e = (2/3)^2 + (1/3)^2 = 5/9,
    # kappa = (1/3 - 5/9) / (1 - 5/9) = -0.5 (hand computation from the definition).
    fleiss = fleiss_kappa(ONE_ITEM, n_boot=500, rng=0)
    # Krippendorff (2011), nominal: D_o = D_e = 2/3 on a single unit, alpha = 0.
    alpha = krippendorff_alpha(ONE_ITEM, level="nominal", n_boot=500, rng=0)
    assert fleiss.value == pytest.approx(-0.5) and alpha.value == pytest.approx(0.0)
    for r in (fleiss, alpha):
        assert math.isnan(r.ci_low) and math.isnan(r.ci_high)
        assert r.ci_reason.startswith("one item: a bootstrap over items")
        assert r.n_boot == 0  # no resample was drawn
        assert r.reason == ""  # the value itself is defined


def test_every_resample_identical_is_no_interval():
    # perfect agreement: each resample gives 1 (or is undefined when it holds one category)
    data = np.array([[c, c] for c in "ababab"], dtype=object)
    for r in (cohen_kappa(data[:, 0], data[:, 1], n_boot=300, rng=1),
              fleiss_kappa(data, n_boot=300, rng=1),
              krippendorff_alpha(data, level="nominal", n_boot=300, rng=1)):
        assert r.value == pytest.approx(1.0)
        assert math.isnan(r.ci_low) and math.isnan(r.ci_high)
        assert "every bootstrap resample gave the same value (1.000" in r.ci_reason
        assert r.n_boot == 300 and 0 < r.n_boot_undefined < 300


def test_two_unanimous_items_give_no_interval():
    # two items, each rated unanimously but in different categories: kappa = 1; a resample is
    # either the same item twice (one category: undefined) or both items (kappa = 1)
    r = fleiss_kappa_from_counts([[3, 0], [0, 3]], n_boot=200, rng=0)
    assert r.value == pytest.approx(1.0)
    assert math.isnan(r.ci_low) and "same value (1.000" in r.ci_reason


def test_undefined_on_every_resample_is_named():
    # with one resample, some seeds draw the same item twice: undefined on every resample
    seeds = [s for s in range(20)
             if fleiss_kappa_from_counts([[3, 0], [0, 3]], n_boot=1, rng=s).n_boot_undefined == 1]
    assert seeds
    r = fleiss_kappa_from_counts([[3, 0], [0, 3]], n_boot=1, rng=seeds[0])
    assert math.isnan(r.ci_low) and r.ci_reason.startswith("the coefficient is undefined on all 1")


def test_interval_still_given_when_resamples_vary():
    a = list("aabbabbaabab")
    b = list("abbbaabaabba")
    r = cohen_kappa(a, b, n_boot=300, rng=0)
    assert r.ci_reason == "" and r.ci_low < r.value < r.ci_high


def test_n_boot_zero_says_why_there_is_no_interval():
    # NaN plus a reason: a point estimate alone must not read as an interval that failed
    r = fleiss_kappa(ONE_ITEM, n_boot=0)
    assert math.isnan(r.ci_low) and math.isnan(r.ci_high)
    assert r.ci_reason == "no bootstrap resamples were asked for, so no interval is given"


def test_table_and_frame_carry_ci_reason():
    df = pd.DataFrame({"item": [1, 1, 1], "rater": ["a", "b", "c"], "label": ["y", "n", "y"]})
    table = agreement_by_label(df, metrics=("fleiss", "krippendorff"), n_boot=100, rng=0)
    frame = table.to_frame()
    assert "ci_reason" in SUMMARY_KEYS and list(frame.columns[: len(SUMMARY_KEYS)]) == list(SUMMARY_KEYS)
    assert frame["ci_reason"].str.startswith("one item").all()
    assert frame["ci_low"].isna().all()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 8), st.integers(2, 4), st.data())
def test_no_interval_is_ever_zero_width(n_items, n_raters, data):
    cells = data.draw(st.lists(st.integers(0, 2), min_size=n_items * n_raters,
                               max_size=n_items * n_raters))
    m = np.array(cells, dtype=object).reshape(n_items, n_raters)
    for r in (fleiss_kappa(m, n_boot=60, rng=0),
              krippendorff_alpha(m, level="nominal", n_boot=60, rng=0),
              cohen_kappa(m[:, 0], m[:, 1], n_boot=60, rng=0)):
        if math.isfinite(r.ci_low):
            assert r.ci_low < r.ci_high and r.ci_reason == ""
        elif math.isfinite(r.value):
            assert r.ci_reason  # a defined value without an interval always says why
