"""``--confidence`` and ``--pooling`` through the commands, pinned to R.

The interval of a contrast is the Wilson score interval on wins / (wins + losses), which is R's
``prop.test(x, n, correct = FALSE)$conf.int``, mapped onto the gap as
``((2 lo - 1)(W + L) / n, (2 hi - 1)(W + L) / n)``. The random-effects values are
``metafor::rma`` (z-based, as ``tests/test_floor_random.py``). Each R call is beside its value.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli

#: R: ci <- prop.test(34, 58, correct=FALSE, conf.level=L)$conf.int; (2*ci-1)*58/200
#: (the noise-floor paper's pooled no_coord-intercept trial-0 counts, 34/24/142)
NO_COORD_INTERCEPT_POOLED = {
    0.90: (-0.0125752455331182, 0.1081184145747704),
    0.95: (-0.0243692326090371, 0.1181574470303168),
    0.99: (-0.0467990605902336, 0.1365338680240922),
}
#: R: ci <- prop.test(27, 36, correct=FALSE, conf.level=L)$conf.int; (2*ci-1)*36/100
PULL_INTERCEPT_SEED1 = {0.90: (0.0840352972960665, 0.2508004611882574),
                        0.99: (0.0258491630293681, 0.2781271810739169)}
#: R: ci <- prop.test(9, 19, correct=FALSE, conf.level=L)$conf.int; (2*ci-1)*19/50
#: (tau-bench gpt-4o airline, default[t0]-default[t1], W/L/T 9/10/31)
TAU_BENCH_T0_T1 = {0.90: (-0.151505056831057, 0.116490960012551),
                   0.99: (-0.207948590559755, 0.178301503940739)}

PAPER_LOG = ["fixtures/seeds/paper_trial0", "--benchmark", "tau2/retail", "--model", "paper"]


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    return result


def audit_json(tmp_path, *args: str) -> dict:
    r = invoke("audit", "--out", str(tmp_path), "--no-plot", "--json", *args)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def pooled(doc: dict, contrast: str) -> dict:
    rows = [c for c in doc["noise_floor"]["contrasts"]
            if c["level"] == "pooled" and c["contrast"] == contrast]
    assert len(rows) == 1
    return rows[0]


@pytest.mark.parametrize("level", [0.90, 0.99])
def test_bundled_audit_floor_is_the_wilson_bound_at_the_level(tmp_path, level):
    doc = audit_json(tmp_path, "--confidence", str(level))
    lo, hi = NO_COORD_INTERCEPT_POOLED[level]
    assert doc["floor"] == pytest.approx(hi, abs=1e-12)
    assert doc["confidence"] == level and doc["noise_floor"]["confidence"] == level
    row = pooled(doc, "no_coord-intercept")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi), abs=1e-12)
    seed1 = [c for c in doc["noise_floor"]["contrasts"]
             if c["contrast"] == "pull-intercept" and c["seed"] == 1][0]
    assert (seed1["ci_low"], seed1["ci_high"]) == pytest.approx(PULL_INTERCEPT_SEED1[level],
                                                                abs=1e-12)


def test_level_moves_the_verdicts_and_the_text_says_it(tmp_path):
    # Reflexion's +11 pp on HumanEval is below the 95% floor (11.8 pp) and inside at 90%
    # (floor 10.8 pp, envelope 14.1 pp); the headers and the floor line name the level used, never a fixed 95%
    r = invoke("audit", "--out", str(tmp_path), "--no-plot", "--confidence", "0.9")
    assert r.exit_code == 0, r.output
    assert "floor     10.8 pp  pooled upper 90% bound of no_coord-intercept (clean)" in r.output
    assert "90% CI pp" in r.output and "95%" not in r.output
    at95 = audit_json(tmp_path)["claims"]
    at90 = audit_json(tmp_path, "--confidence", "0.9")["claims"]
    i = [i for i, c in enumerate(at95) if c["benchmark"] == "HumanEval"][0]
    assert at95[i]["paper"].startswith("Reflexion") and at95[i]["effect"] == pytest.approx(0.11)
    assert at95[i]["verdict"] == "below" and at90[i]["verdict"] == "inside"
    report = (tmp_path / "report.md").read_text()
    assert "the pooled upper 90% bound" in report and "Wilson 90% intervals" in report


@pytest.mark.parametrize("level", [0.90, 0.99])
def test_contrast_counts_interval_at_the_level(level):
    r = invoke("contrast", "--wins", "27", "--losses", "9", "--ties", "64", "--json",
               "--confidence", str(level))
    doc = json.loads(r.output)["contrasts"][0]
    assert (doc["ci_low"], doc["ci_high"]) == pytest.approx(PULL_INTERCEPT_SEED1[level],
                                                            abs=1e-12)
    text = invoke("contrast", "--wins", "27", "--losses", "9", "--ties", "64",
                  "--confidence", str(level)).output
    lo, hi = (f"{x * 100:+.1f}" for x in PULL_INTERCEPT_SEED1[level])
    assert f"{level * 100:g}% CI     [{lo}, {hi}] pp (Wilson-mapped)" in text


def test_contrast_log_interval_at_the_level(shared_data):
    log = str(shared_data / "tau-bench" / "gpt-4o-airline.json")
    r = invoke("contrast", "--log", log, "--a", "default", "--b", "default", "--trial", "0",
               "--trial-b", "1", "--confidence", "0.99", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    row = doc["contrasts"][0]
    assert doc["confidence"] == 0.99
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(TAU_BENCH_T0_T1[0.99], abs=1e-12)
    text = invoke("contrast", "--log", log, "--a", "default", "--b", "default", "--trial", "0",
                  "--trial-b", "1", "--confidence", "0.99").output
    assert "99% CI pp" in text and "[-20.8, +17.8]" in text


@pytest.mark.parametrize("level", [0.90, 0.99])
def test_floor_command_at_the_level(shared_data, level):
    log = str(shared_data / "tau-bench" / "gpt-4o-airline.json")
    doc = json.loads(invoke("floor", log, "--json", "--confidence", str(level)).output)
    assert doc["floor_contrast"] == "default[t0]-default[t1]" and doc["confidence"] == level
    # the bound is the larger excursion: here -ci_low
    assert doc["floor"] == pytest.approx(-TAU_BENCH_T0_T1[level][0], abs=1e-12)
    text = invoke("floor", log, "--confidence", str(level)).output
    assert f"; basis: null), upper {level * 100:g}% bound, counts summed over seeds" in text
    assert f"{level * 100:g}% CI pp" in text


@pytest.mark.parametrize("command", [["audit", "--no-plot"], ["floor", "fixtures/seeds/paper_trial0"],
                                     ["contrast", "--wins", "1", "--losses", "2"],
                                     ["leaderboard", "../shared/data/tau2-bench/"
                                                     "leaderboard_submissions.json"]])
@pytest.mark.parametrize("value", ["0", "1", "1.5", "-0.2", "abc"])
def test_confidence_outside_0_1_is_a_usage_error_naming_the_option(tmp_path, command, value):
    r = invoke(*command, "--confidence", value, *(["--out", str(tmp_path)]
                                                  if command[0] == "audit" else []))
    assert r.exit_code == 2, r.output
    assert "Invalid value for '--confidence'" in r.output


# R: gv <- function(w,l,t){n<-w+l+t; pw<-w/n; pl<-l/n; (pw+pl-(pw-pl)^2)/n}
#    y <- c(.10, 0); v <- c(gv(21,11,68), gv(13,13,74))       # no_coord-intercept
#    r <- metafor::rma(yi=y, vi=v, method="DL", level=95); c(r$ci.ub, r$tau2, r$pval)
NO_COORD_INTERCEPT_RE = {"ci_high": 0.145375624821025, "tau2": 0.00215,
                         "p_value": 0.3415080702827690}
#    y <- c(.18, -.03); v <- c(gv(27,9,64), gv(18,21,61))      # pull-intercept
#    r <- metafor::rma(yi=y, vi=v, method="DL", level=95); c(r$ci.ub, r$tau2, r$pval)
PULL_INTERCEPT_RE = {"ci_high": 0.282240491580901, "tau2": 0.0184665,
                     "p_value": 0.4664286674786666}


def test_bundled_audit_with_random_pooling_is_metafor(tmp_path):
    doc = audit_json(tmp_path, "--pooling", "random")
    assert doc["pooling"] == "random" and doc["tau_method"] == "dl"
    assert doc["floor"] == pytest.approx(NO_COORD_INTERCEPT_RE["ci_high"], abs=1e-12)
    assert doc["envelope"] == pytest.approx(PULL_INTERCEPT_RE["ci_high"], abs=1e-12)
    for contrast, ref in (("no_coord-intercept", NO_COORD_INTERCEPT_RE),
                          ("pull-intercept", PULL_INTERCEPT_RE)):
        row = pooled(doc, contrast)
        assert row["tau"] ** 2 == pytest.approx(ref["tau2"], abs=1e-12)
        assert row["p_value"] == pytest.approx(ref["p_value"], abs=1e-12)
    text = invoke("audit", "--out", str(tmp_path), "--no-plot", "--pooling", "random").output
    assert "floor     14.5 pp  random-effects upper 95% bound of no_coord-intercept" in text
    assert "envelope  28.2 pp  largest random-effects upper bound (pull-intercept)" in text
    assert ("pooling: random effects over seeds (DerSimonian-Laird tau; no_coord-intercept tau "
            "4.6 pp, pull-intercept tau 13.6 pp)") in text


def test_floor_of_the_two_seed_log_matches_the_count_table(tmp_path):
    """The log reproducing the paper's trial-0 counts gives the audit's floors, both poolings."""
    for pooling, floor, envelope in (("summed", NO_COORD_INTERCEPT_POOLED[0.95][1], None),
                                     ("random", NO_COORD_INTERCEPT_RE["ci_high"],
                                      PULL_INTERCEPT_RE["ci_high"])):
        r = invoke("floor", *PAPER_LOG, "--pooling", pooling, "--json")
        assert r.exit_code == 0, r.output
        doc = json.loads(r.output)
        # the log writes intercept-no_coord (the count table no_coord-intercept): a null
        # contrast's bound is its larger excursion, the same either way round
        assert doc["floor_contrast"] == "intercept-no_coord" and doc["pooling"] == pooling
        assert doc["floor"] == pytest.approx(floor, abs=1e-12)
        if envelope is not None:
            assert doc["envelope"] == pytest.approx(envelope, abs=1e-12)


def test_random_pooling_of_one_seed_is_nan_with_a_reason_not_a_floor(tmp_path, shared_data):
    log = str(shared_data / "tau-bench" / "gpt-4o-airline.json")
    doc = json.loads(invoke("floor", log, "--pooling", "random", "--json").output)
    assert doc["floor"] is None and "at least two seeds" in doc["reason"]
    r = invoke("audit", "--log", log, "--pooling", "random", "--out", str(tmp_path), "--no-plot")
    assert r.exit_code == 1
    assert "--pooling random: no floor to place claims against" in r.output
    assert "at least two seeds" in r.output


def test_tau_method_pm_and_its_usage_error(tmp_path):
    # two seeds: Paule-Mandel solves Q(tau^2) = k - 1 = 1, which for k = 2 is the DL moment
    # estimate exactly ((y1 - y2)^2 - v1 - v2) / 2; three seeds are pinned in test_floor_pooling
    doc = audit_json(tmp_path, "--pooling", "random", "--tau-method", "pm")
    assert doc["tau_method"] == "pm"
    assert doc["floor"] == pytest.approx(NO_COORD_INTERCEPT_RE["ci_high"], abs=1e-6)
    assert "Paule-Mandel tau" in invoke("floor", *PAPER_LOG, "--pooling", "random",
                                        "--tau-method", "pm").output
    r = invoke("floor", *PAPER_LOG, "--tau-method", "pm")
    assert r.exit_code == 2 and "--tau-method goes with --pooling random" in r.output
    r = invoke("audit", "--pooling", "mixed", "--out", str(tmp_path))
    assert r.exit_code == 2 and "Invalid value for '--pooling'" in r.output


def test_agreement_header_shows_the_level_used_not_a_rounded_one():
    # 0.975 was shown as "98% CI": the level shown must be the level used
    r = invoke("agreement", "fixtures/agreement/tax_annotations.csv", "--metric", "fleiss",
               "--confidence", "0.975", "--n-boot", "50")
    assert r.exit_code == 0, r.output
    assert "97.5% CI (bootstrap)" in r.output and "98% CI" not in r.output


def test_floor_log_options_build_the_floor_again(shared_data):
    # plan/leaderboard/reruns-sim --floor-log imported a helper that no longer existed (ImportError
    # reported as an internal error on every use)
    log = str(shared_data / "tau-bench" / "gpt-4o-airline.json")
    r = invoke("plan", "--gap", "0.2", "--p-d", "0.3", "--floor-log", log)
    assert r.exit_code == 0, r.output
    assert "clearing a floor of 17.2 pp (floor of" in r.output
    r = invoke("reruns-sim", "--flip-rate", "0.2", "--n-sim", "20", "--claim", "0.1",
               "--floor-log", log)
    assert r.exit_code == 0, r.output
    assert "null-gap SD" in r.output and "over 6" in r.output
