"""The random-effects floor pinned to R metafor (rma, method = "DL"; predict) on the noise-floor
paper's trial-0 counts."""

import math

import pandas as pd
import pytest

from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.floor.random_effects import random_effects_floor


@pytest.fixture(scope="module")
def null(shared_data):
    counts = pd.read_csv(shared_data / "noise-floor-paper" / "paired_counts.csv")
    return null_contrasts_from_counts(counts)


# R: gv <- function(w,l,t){n<-w+l+t; pw<-w/n; pl<-l/n; (pw+pl-(pw-pl)^2)/n}
#    y <- c(.18, -.03); v <- c(gv(27,9,64), gv(18,21,61))
#    r <- metafor::rma(yi=y, vi=v, method="DL", level=95); p <- predict(r)
#    c(r$b, r$se, r$ci.lb, r$ci.ub, r$tau2, p$pi.lb, p$pi.ub)
PULL_INTERCEPT = {
    95: (0.0764642857142857, 0.104989789348045, -0.12931192015233, 0.282240491580901, 0.0184665,
         -0.260109846109905, 0.413038417538477),
    90: (0.0764642857142857, 0.104989789348045, -0.0962285500877178, 0.249157121516289, 0.0184665,
         -0.205997629829015, 0.358926201257586),
}
# the same for no_coord-intercept, seeds (21, 11, 68) and (13, 13, 74)
NO_COORD_INTERCEPT = {
    95: (0.0475, 0.0499374608885954, -0.0503756248210246, 0.145375624821025, 0.00215,
         -0.0860618747944126, 0.181061874794413),
    90: (0.0475, 0.0499374608885954, -0.0346398136633535, 0.129639813663354, 0.00215,
         -0.06458865872583, 0.15958865872583),
}


@pytest.mark.parametrize("level", [95, 90])
def test_matches_metafor_dl(null, level):
    f = random_effects_floor(null, confidence=level / 100)
    t = f.table.set_index("contrast")
    for label, ref in (("pull-intercept", PULL_INTERCEPT[level]),
                       ("no_coord-intercept", NO_COORD_INTERCEPT[level])):
        row = t.loc[label]
        got = (row.estimate, row.se, row.ci_low, row.ci_high, row.tau_squared, row.pi_low, row.pi_high)
        assert got == pytest.approx(ref, abs=1e-10)
    # floor: the clean contrast's excursion bound; envelope: the largest over all
    assert f.floor == pytest.approx(NO_COORD_INTERCEPT[level][3], abs=1e-10)
    assert f.envelope == pytest.approx(PULL_INTERCEPT[level][3], abs=1e-10)
    assert f.floor_contrast == "no_coord-intercept" and f.envelope_contrast == "pull-intercept"


def test_tau_of_pull_intercept_is_the_papers_13_6_pp(null):
    t = random_effects_floor(null).table.set_index("contrast")
    assert round(t.loc["pull-intercept", "tau"], 3) == 0.136


def test_prediction_bound_is_wider(null):
    ci = random_effects_floor(null)
    pi = random_effects_floor(null, bound="prediction")
    assert pi.envelope == pytest.approx(PULL_INTERCEPT[95][6], abs=1e-10)
    assert pi.floor >= ci.floor and pi.envelope >= ci.envelope


def test_one_seed_is_nan_with_reason():
    t = pd.DataFrame({"contrast": ["a-b"], "clean": [True], "seed": [1], "wins": [5],
                      "losses": [2], "ties": [10]})
    f = random_effects_floor(t)
    assert math.isnan(f.floor) and f.reason
    assert "at least two seeds" in f.table["reason"].iloc[0]
    with pytest.raises(ValueError, match="bound must be one of"):
        random_effects_floor(t, bound="max")
