"""The noise floor and envelope, pinned to the noise-floor paper's published figures."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.audit.published import read_paired_counts
from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.floor.estimate import excursion_bound, noise_floor
from noisefloor.floor.nulls import certified_null_contrasts
from noisefloor.pipelines import floor_run


def _null_table(trials, **kwargs):
    """The certified null contrasts of a log, as the table the floor is built from."""
    return certified_null_contrasts(trials, **kwargs).table


def _floor(trials, **kwargs):
    """The floor of a log: the one path, :func:`noisefloor.pipelines.floor_run`."""
    return floor_run(trials, **kwargs).noise_floor


@pytest.fixture(scope="module")
def paper_floor():
    return noise_floor(null_contrasts_from_counts(read_paired_counts()))


def test_floor_and_envelope_match_paper(paper_floor):
    # Kaliyev & Maryanskyy (2026): clean-contrast pooled upper CI "about 12 pp"; the largest
    # pooled upper CI "about 15 pp".
    assert round(paper_floor.floor, 3) == 0.118 and paper_floor.floor_contrast == "no_coord-intercept"
    assert round(paper_floor.envelope, 3) == 0.153 and paper_floor.envelope_contrast == "pull-intercept"
    assert paper_floor.basis == "clean"


def test_per_seed_bonferroni_matches_paper(paper_floor):
    # Same source: seed 1 pull-intercept p_corr = 0.012, seed 2 p_corr = 1.0, pooled 0.316.
    # (the table's seed is a nullable integer and pooled rows have level "pooled")
    frame = paper_floor.to_frame()
    t = frame[frame["level"] == "trial"].set_index(["contrast", "seed"])
    pooled = frame[frame["level"] == "pooled"].set_index("contrast")
    assert str(frame["seed"].dtype) == "Int64" and pooled["seed"].isna().all()
    assert round(t.loc[("pull-intercept", 1), "p_adjusted"], 3) == 0.012
    assert t.loc[("pull-intercept", 2), "p_adjusted"] == 1.0
    assert round(pooled.loc["pull-intercept", "p_adjusted"], 3) == 0.316
    # "no trial-0 contrast is significant after Bonferroni ... pooled"
    assert (pooled["p_adjusted"] > 0.05).all()


def test_spread_and_informative_pairs(paper_floor):
    # Paper: null gaps of +18 pp on one seed and -3 pp on the next.
    assert paper_floor.null_gap_max == pytest.approx(0.18)
    assert paper_floor.null_gap_min == pytest.approx(-0.03)
    # Paper's six per-seed trial-0 gaps (each contrast's pooled gap is positive as printed):
    # root mean square about 0, sqrt(0.0506 / 6) = 0.09183 (see null_gap_spread)
    gaps = [0.10, 0.08, 0.18, 0.0, -0.03, -0.03]
    assert paper_floor.null_gap_sd == pytest.approx(math.sqrt(np.mean(np.square(gaps))))
    assert round(paper_floor.null_gap_sd, 5) == 0.09183
    # the dependence it accounts for: pull-intercept = pull-no_coord + no_coord-intercept at
    # each seed (the same tasks), and for three arms the mean squared pairwise gap is twice the
    # ddof=1 variance of the arms' success rates: seed 1 rates differ by 0.10, 0.08, 0.18
    rates = np.array([0.0, 0.10, 0.18])  # intercept, no_coord, pull (relative to intercept)
    seed1 = [0.10, 0.08, 0.18]
    assert seed1[2] == pytest.approx(seed1[0] + seed1[1])
    assert np.mean(np.square(seed1)) == pytest.approx(2 * np.var(rates, ddof=1))
    assert paper_floor.n_informative == 21 + 11 + 18 + 10 + 27 + 9 + 13 + 13 + 15 + 18 + 18 + 21
    assert paper_floor.n_seeds == 2 and set(paper_floor.per_seed_floor) == {1, 2}


def test_per_seed_summary_matches_paper(paper_floor):
    # Kaliyev & Maryanskyy (2026): two runs that should not differ differ by up to +18 pp on
    # one seed (pull-intercept, seed 1) and -3 pp on the next (seed 2). Seed-level bounds from
    # the Wilson-mapped intervals the paper's table lists: clean contrast [-1.1, +18.9] at seed
    # 1 and [-9.3, +9.3] at seed 2; pull-intercept [+6.4, +26.1] and [-14.4, +8.9].
    ps = paper_floor.per_seed().set_index("seed")
    assert list(ps.index) == [1, 2]
    assert ps.loc[1, "null_gap_max"] == pytest.approx(0.18)
    assert ps.loc[2, "null_gap_min"] == pytest.approx(-0.03)
    assert round(ps.loc[1, "floor"], 3) == 0.189 and round(ps.loc[2, "floor"], 3) == 0.093
    assert round(ps.loc[1, "envelope"], 3) == 0.261 and round(ps.loc[2, "envelope"], 3) == 0.144
    assert ps["n_informative"].sum() == paper_floor.n_informative
    assert dict(ps["floor"]) == pytest.approx(paper_floor.per_seed_floor)
    assert paper_floor.to_dict()["per_seed"][0]["seed"] == 1


def test_shared_csv_gives_same_floor(shared_data, paper_floor):
    f = noise_floor(null_contrasts_from_counts(
        read_paired_counts(shared_data / "noise-floor-paper" / "paired_counts.csv")))
    assert f.floor == paper_floor.floor and f.envelope == paper_floor.envelope


def test_orientation_does_not_change_floor():
    a = pd.DataFrame({"contrast": ["x-y"], "clean": [True], "seed": [1], "wins": [34],
                      "losses": [24], "ties": [142]})
    b = a.assign(contrast=["y-x"], wins=[24], losses=[34])
    assert noise_floor(a).floor == pytest.approx(noise_floor(b).floor)


def test_no_clean_contrast_falls_back_with_reason():
    t = pd.DataFrame({"contrast": ["x-y"], "clean": [False], "seed": [1], "wins": [3],
                      "losses": [2], "ties": [5]})
    f = noise_floor(t)
    assert f.basis == "null" and f.floor == f.envelope and "certified clean" in f.reason


def test_all_ties_floor_is_nan_with_reason():
    t = pd.DataFrame({"contrast": ["x-y"], "clean": [True], "seed": [1], "wins": [0],
                      "losses": [0], "ties": [10]})
    f = noise_floor(t)
    assert math.isnan(f.floor) and "undefined" in f.reason
    assert math.isnan(f.null_gap_sd)


def test_bad_tables():
    with pytest.raises(ValueError, match="empty"):
        noise_floor(pd.DataFrame(columns=["contrast", "clean", "seed", "wins", "losses", "ties"]))
    with pytest.raises(ValueError, match="lacks"):
        noise_floor(pd.DataFrame({"contrast": ["x-y"]}))
    bad = pd.DataFrame({"contrast": ["x-y"], "clean": [True], "seed": [1], "wins": [-1],
                        "losses": [0], "ties": [1]})
    with pytest.raises(ValueError, match="wins"):
        noise_floor(bad)


def test_excursion_bound():
    assert excursion_bound(-0.2, 0.1) == 0.2
    assert math.isnan(excursion_bound(float("nan"), float("nan")))


def _trials(protocols=("no_coord", "intercept"), trials=2, n=30, seed=0, store=False):
    rng = np.random.default_rng(seed)
    rows = []
    for p in protocols:
        for tr in range(trials):
            for task in range(n):
                rows.append({"benchmark": "b", "model": "m", "protocol": p, "seed": 1,
                             "task_id": f"{task:03d}", "trial": tr,
                             "reward": float(rng.random() < 0.5), "infrastructure_error": False,
                             "store_events_at_start": (3 if store and tr > 0 else 0),
                             "first_request_sha256": f"{task:064x}"})
    return pd.DataFrame(rows)


def test_from_trials_trial0_and_reruns():
    t = _trials()
    null = _null_table(t)
    kinds = dict(zip(null["contrast"], null["kind"]))
    assert kinds == {"intercept-no_coord": "trial0", "intercept[t0]-intercept[t1]": "reruns",
                     "no_coord[t0]-no_coord[t1]": "reruns"}
    # identical first_request_sha256 on every task certifies the trial-0 contrast clean
    assert null.set_index("contrast").loc["intercept-no_coord", "clean"]
    assert (null[["wins", "losses", "ties"]].sum(axis=1) == 30).all()


def test_from_trials_skips_reruns_with_populated_store():
    null = _null_table(_trials(store=True))
    assert list(null["kind"]) == ["trial0"]


def test_from_trials_keeps_reruns_whose_reader_injected_nothing():
    # no_coord writes its store but never reads it: its re-runs are null pairs even though the
    # store is populated at trial 1; intercept injected warnings at trial 1, so its re-run pair
    # is not null, and it is listed as skipped, not silently dropped.
    t = _trials(store=True)
    t["injections"] = 0
    t.loc[(t["protocol"] == "intercept") & (t["trial"] == 1) & (t["task_id"] < "010"),
          "injections"] = 2
    result = certified_null_contrasts(t)
    null = result.table
    assert dict(zip(null["contrast"], null["kind"])) == {
        "intercept-no_coord": "trial0", "no_coord[t0]-no_coord[t1]": "reruns"}
    skipped = [r for r in result.skipped if r["kind"] == "reruns"]
    assert [r["contrast"] for r in skipped] == ["intercept[t0]-intercept[t1]"]
    assert "injected" in skipped[0]["reason"]
    # injections not logged on some task: the pair cannot be certified, so it is skipped
    t.loc[(t["protocol"] == "no_coord") & (t["task_id"] == "003"), "injections"] = None
    result = certified_null_contrasts(t)
    assert list(result.table["kind"]) == ["trial0"]
    assert len([r for r in result.skipped if r["kind"] == "reruns"]) == 2


def test_from_trials_user_named_clean_pair():
    t = _trials().drop(columns=["first_request_sha256"])
    null = _null_table(t, clean_pairs=["no_coord-intercept"], reruns=False)
    assert null["clean"].all()
    f = _floor(t, clean_pairs=[("no_coord", "intercept")], reruns=False)
    assert f.basis == "clean"


def test_from_trials_needs_a_null_contrast():
    one = _trials(protocols=("x",), trials=1)
    with pytest.raises(ValueError, match="no null contrast"):
        _null_table(one)


def test_named_clean_contrast_must_exist():
    counts = read_paired_counts()
    with pytest.raises(ValueError, match="'no_coord-intercpt' is not among"):
        null_contrasts_from_counts(counts, clean=("no_coord-intercpt",))
    # either orientation names the same contrast
    assert null_contrasts_from_counts(counts, clean=("intercept-no_coord",))["clean"].sum() == 2
    # by default the paper's clean contrast is used when present, and none otherwise
    other = counts[counts["contrast"] != "no_coord-intercept"]
    assert not null_contrasts_from_counts(other)["clean"].any()
    with pytest.raises(ValueError, match="'x-y' splits into no two of them. Protocols in the "
                                         "log: intercept, no_coord"):
        _null_table(_trials(), clean_pairs=["x-y"])
    # both protocols in the log, but one never ran trial 0
    t = _trials(protocols=("no_coord", "intercept", "late"))
    t = t[~((t["protocol"] == "late") & (t["trial"] == 0))]
    with pytest.raises(ValueError, match="clean pair no_coord-late is not a trial-0 contrast"):
        _null_table(t, clean_pairs=["no_coord-late"])


# --- hostile inputs ---------------------------------------------------------------------------

@pytest.mark.parametrize("label", ["nonsense", "a-", "-b", ("only",)])
def test_clean_pair_must_be_written_a_b(label):
    with pytest.raises(ValueError, match="clean pair must name two protocols as 'a-b'"):
        _null_table(_trials(), clean_pairs=[label])


def _counts(rows, source=None):
    t = pd.DataFrame(rows, columns=["seed", "trial", "subset", "contrast", "wins", "losses",
                                    "ties", "line"])
    if source:
        t.attrs["source"] = source
    return t


def test_a_pair_given_both_ways_is_an_error_naming_both_lines():
    t = _counts([(1, 0, "all", "a-b", 3, 2, 1, 2), (1, 0, "all", "b-a", 2, 3, 1, 3)], "c.csv")
    with pytest.raises(ValueError, match=r"c.csv:3: field 'contrast': 'b-a' is 'a-b' \(c.csv:2\)"):
        null_contrasts_from_counts(t)
    # the same pair at another seed is fine
    ok = _counts([(1, 0, "all", "a-b", 3, 2, 1, 2), (2, 0, "all", "b-a", 2, 3, 1, 3)])
    assert len(null_contrasts_from_counts(ok)) == 2


def test_a_count_beyond_64_bits_is_a_located_error_not_an_overflow():
    big = 10**20
    t = _counts([(1, 0, "all", "a-b", 3, 2, 1, 2), (1, 1, "all", "a-b", big, 2, 1, 3)], "c.csv")
    with pytest.raises(ValueError, match=r"c.csv:3: field 'wins': expected an integer in \[0, 2\*\*63\)"):
        null_contrasts_from_counts(t)
    t = _counts([(1, big, "all", "a-b", 3, 2, 1, 2), (1, 0, "all", "a-b", 3, 2, 1, 3)])
    assert len(null_contrasts_from_counts(t)) == 1  # a huge trial index is simply not trial 0


# --- a floor on almost no data is cautioned --------------------------------

def _one(wins, losses, ties, clean=True, seeds=(1,)):
    return pd.DataFrame({"contrast": ["x-y"] * len(seeds), "clean": [clean] * len(seeds),
                         "seed": list(seeds), "wins": [wins] * len(seeds),
                         "losses": [losses] * len(seeds), "ties": [ties] * len(seeds)})


def test_minimum_informative_pairs_is_where_the_sign_test_can_first_reach_005():
    # The documented threshold: the smallest two-sided exact sign-test p with k untied pairs is
    # 2 * 0.5**k (all k one way); scipy's binomtest agrees. k = 5 gives 0.0625, k = 6 0.03125.
    from scipy.stats import binomtest

    from noisefloor.floor.estimate import MIN_INFORMATIVE_PAIRS
    assert binomtest(MIN_INFORMATIVE_PAIRS - 1, MIN_INFORMATIVE_PAIRS - 1).pvalue > 0.05
    assert binomtest(MIN_INFORMATIVE_PAIRS, MIN_INFORMATIVE_PAIRS).pvalue < 0.05


def test_floor_on_one_informative_pair_is_cautioned():
    f = noise_floor(_one(1, 0, 4))
    assert f.n_informative_floor == 1
    assert "rests on 1 informative (untied) pair, fewer than 6" in f.caution
    assert "single null contrast at a single seed" in f.caution
    assert f.to_dict()["caution"] == f.caution and f.to_dict()["n_informative_floor"] == 1


def test_floor_counts_the_floor_contrast_pooled_over_seeds():
    # 3 untied pairs per seed, two seeds: 6 pooled, enough; one replicate, so no single-contrast caution
    f = noise_floor(_one(2, 1, 7, seeds=(1, 2)))
    assert f.n_informative_floor == 6 and f.caution == ""
    # the paper's floor: no_coord-intercept pooled 34 + 24 untied pairs
    paper = noise_floor(null_contrasts_from_counts(read_paired_counts()))
    assert paper.n_informative_floor == 58 and paper.caution == ""


def test_single_null_contrast_with_enough_pairs_is_still_cautioned():
    f = noise_floor(_one(20, 10, 70))
    assert "fewer than" not in f.caution and "single null contrast" in f.caution


def test_undefined_floor_gets_a_reason_not_a_caution():
    f = noise_floor(_one(0, 0, 10))
    assert math.isnan(f.floor) and "undefined" in f.reason and f.caution == ""


# --- a user-named clean contrast keeps the user's order ------------------

def test_named_clean_pair_from_trials_is_oriented_as_written():
    t = _trials().drop(columns=["first_request_sha256"])
    default = _null_table(t, reruns=False).iloc[0]
    named = _null_table(t, clean_pairs=["no_coord-intercept"], reruns=False).iloc[0]
    assert default["contrast"] == "intercept-no_coord"  # sorted order when nothing is named
    assert named["contrast"] == "no_coord-intercept" and named["clean"]
    assert (named["wins"], named["losses"], named["ties"]) == (
        default["losses"], default["wins"], default["ties"])
    # the floor is the larger excursion, so it does not move; the gap changes sign
    f_named = noise_floor(_null_table(t, clean_pairs=["no_coord-intercept"],
                                                     reruns=False))
    assert f_named.floor_contrast == "no_coord-intercept"
    assert f_named.floor == pytest.approx(_floor(
        t, clean_pairs=["intercept-no_coord"], reruns=False).floor)


def test_named_clean_contrast_from_counts_is_oriented_as_written():
    counts = read_paired_counts()
    flipped = null_contrasts_from_counts(counts, clean=("intercept-no_coord",))
    rows = flipped[flipped["clean"]].set_index("seed")
    # the paper's no_coord-intercept seed 1 is 21/11/68: written the other way it is 11/21/68
    assert list(rows["contrast"]) == ["intercept-no_coord"] * 2
    assert tuple(rows.loc[1, ["wins", "losses", "ties"]]) == (11, 21, 68)
    f = noise_floor(flipped)
    assert round(f.floor, 3) == 0.118 and f.floor_contrast == "intercept-no_coord"
    # as written in the table: unchanged
    same = null_contrasts_from_counts(counts, clean=("no_coord-intercept",))
    assert tuple(same.iloc[0][["contrast", "wins", "losses"]]) == ("no_coord-intercept", 21, 11)


def test_no_null_contrast_message_names_only_the_kinds_asked_for():
    t = _trials(protocols=("x",), trials=2)
    with pytest.raises(ValueError, match="needs trial 0 of two protocols$"):
        _null_table(t, reruns=False)
    with pytest.raises(ValueError, match="both kinds are switched off"):
        _null_table(t, trial0=False, reruns=False)


# --- protocol names containing '-' ----------

def test_clean_pair_split_where_both_sides_are_protocols_of_the_log():
    t = _trials(protocols=("no-coord", "intercept", "pull")).drop(columns="first_request_sha256")
    null = _null_table(t, clean_pairs=["no-coord-intercept"], reruns=False)
    assert null[null["clean"]]["contrast"].tolist() == ["no-coord-intercept"]
    row = null.set_index("contrast").loc["no-coord-intercept"]
    assert row["clean"] and row["kind"] == "trial0"
    # the other way round is the same pair, oriented as written
    flipped = _null_table(t, clean_pairs=["intercept-no-coord"], reruns=False)
    assert "intercept-no-coord" in set(flipped["contrast"])
    assert flipped.set_index("contrast").loc["intercept-no-coord", "wins"] == row["losses"]


def test_clean_pair_that_splits_two_ways_is_an_error_listing_protocols():
    t = _trials(protocols=("a", "b-c", "a-b", "c"))
    with pytest.raises(ValueError, match=r"clean pair 'a-b-c' is ambiguous: it reads as 'a' vs "
                                         r"'b-c' and as 'a-b' vs 'c', all protocols of the log "
                                         r"\(a, a-b, b-c, c\)"):
        _null_table(t, clean_pairs=["a-b-c"])
    # a tuple is never ambiguous
    t = t.drop(columns="first_request_sha256")  # clean only when named
    null = _null_table(t, clean_pairs=[("a-b", "c")], reruns=False)
    assert null[null["clean"]]["contrast"].tolist() == ["a-b-c"]
    # (the output label "a-b-c" is shared by a vs b-c and a-b vs c)
    assert null["contrast"].tolist().count("a-b-c") == 2


def test_clean_pair_that_fits_no_split_lists_the_protocols():
    t = _trials(protocols=("no-coord", "intercept"))
    with pytest.raises(ValueError, match="'no-coord-pull' splits into no two of them. Protocols "
                                         "in the log: intercept, no-coord"):
        _null_table(t, clean_pairs=["no-coord-pull"])


def test_count_table_clean_label_with_dashed_protocols_is_reversed_correctly():
    rows = [(1, 0, "all", "no-coord-intercept", 5, 2, 20, 2),
            (1, 0, "all", "pull-intercept", 3, 3, 20, 3)]
    # written the other way round from the table: found by the split no-coord | intercept
    null = null_contrasts_from_counts(_counts(rows), clean=("intercept-no-coord",))
    row = null[null["clean"]].iloc[0]
    assert (row["contrast"], row["wins"], row["losses"]) == ("intercept-no-coord", 2, 5)
    assert null["clean"].sum() == 1
    # as written in the table: no split needed
    same = null_contrasts_from_counts(_counts(rows), clean=("no-coord-intercept",))
    assert same[same["clean"]].iloc[0]["wins"] == 5


def test_count_table_reversed_twin_with_dashed_protocols_is_found():
    rows = [(1, 0, "all", "no-coord-intercept", 5, 2, 20, 2),
            (1, 0, "all", "intercept-no-coord", 2, 5, 20, 3)]
    with pytest.raises(ValueError, match="written the other way round for the same seed"):
        null_contrasts_from_counts(_counts(rows, source="c.csv"))


def test_count_table_clean_label_matching_two_reversals_is_an_error():
    rows = [(1, 0, "all", "b-c-a", 5, 2, 20, 2), (2, 0, "all", "c-a-b", 3, 3, 20, 3)]
    with pytest.raises(ValueError, match=r"clean contrast 'a-b-c' is ambiguous: .* 'b-c-a' or "
                                         r"'c-a-b' of the table"):
        null_contrasts_from_counts(_counts(rows), clean=("a-b-c",))


def test_count_table_clean_label_absent_lists_the_contrasts():
    rows = [(1, 0, "all", "no-coord-intercept", 5, 2, 20, 2)]
    with pytest.raises(ValueError, match="'no-coord-pull' is not among the null .* "
                                         "no-coord-intercept"):
        null_contrasts_from_counts(_counts(rows), clean=("no-coord-pull",))


def test_spread_does_not_move_with_the_typed_orientation():
    # the sign of a null contrast is arbitrary: writing the clean pair the other way round
    # flips its displayed gap, but the spread (and the sigma the monitors take from it) and
    # the floor stay where they were
    t = _trials()
    plain = _floor(t)
    typed = _floor(t, clean_pairs=["no_coord-intercept"])
    assert typed.to_frame().iloc[0]["contrast"] == "no_coord-intercept"
    assert typed.to_frame().iloc[0]["gap"] == -plain.to_frame().iloc[0]["gap"]
    for name in ("null_gap_sd", "null_gap_min", "null_gap_max", "floor", "envelope"):
        assert getattr(typed, name) == pytest.approx(getattr(plain, name), nan_ok=True), name
    assert typed.per_seed().equals(plain.per_seed())
    counts = read_paired_counts()
    plain = noise_floor(null_contrasts_from_counts(counts))
    typed = noise_floor(null_contrasts_from_counts(counts, clean=("intercept-no_coord",)))
    assert typed.null_gap_sd == pytest.approx(plain.null_gap_sd)
    assert (typed.null_gap_min, typed.null_gap_max) == (plain.null_gap_min, plain.null_gap_max)


def test_per_seed_follows_the_basis_and_single_clean_contrast_is_cautioned():
    # no clean contrast: the floor falls back to all null contrasts, and per_seed() agrees
    t = _trials().drop(columns=["first_request_sha256"])
    nf = _floor(t)
    assert nf.basis == "null"
    assert nf.per_seed()["floor"].tolist() == pytest.approx(list(nf.per_seed_floor.values()))
    # one clean contrast at one seed, beside re-runs: still no replicate of the floor itself
    t = _trials()
    t.loc[t["trial"] == 1, "first_request_sha256"] = "f" * 64  # re-runs: requests differ
    nf = _floor(t)
    assert nf.basis == "clean" and len(nf.to_frame()) > 1
    assert "single null contrast at a single seed (the only clean one)" in nf.caution


def test_pair_given_both_ways_outside_trial_0_is_refused(tmp_path, shared_data):
    # a trial-1 (coordination-active) pair given both ways would be counted twice by the audit's
    # "other contrasts" and widen its Bonferroni family
    src = (shared_data / "noise-floor-paper" / "paired_counts.csv").read_text().splitlines()
    rows = [line for line in src if not line.startswith("#")]
    rows.append("claude-haiku-4-5,tau2-retail,1,1,coordination_active,no_coord-pull,6,2,20")
    path = tmp_path / "pc2.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(ValueError, match=r"pc2\.csv:\d+: field 'contrast': 'no_coord-pull' is "
                                         r"'pull-no_coord' .* same seed, trial and subset"):
        null_contrasts_from_counts(read_paired_counts(path))


def test_tau_is_nan_with_a_reason_when_a_seed_has_zero_gap_variance():
    # seed 2 is all ties: its gap (0) has sampling variance 0, so the inverse-variance weights
    # of DerSimonian & Laird (1986) are undefined; tau was NaN with an empty reason
    t = pd.DataFrame({"contrast": ["x-y", "x-y"], "clean": [True, True], "seed": [1, 2],
                      "wins": [5, 0], "losses": [2, 0], "ties": [13, 20]})
    pooled = noise_floor(t).to_frame().set_index("level").loc["pooled"]
    assert math.isnan(pooled["tau"])
    assert "tau undefined: a seed has zero sampling variance" in pooled["reason"]
    one = noise_floor(t.iloc[:1]).to_frame().set_index("level").loc["pooled"]
    assert math.isnan(one["tau"]) and "at least two seeds; got 1" in one["reason"]


def _flip_and_rename(table, flips, names):
    """Write some contrasts the other way round (wins and losses swap) and rename protocols."""
    rows = table.to_dict(orient="records")
    for rec in rows:
        a, b = rec["contrast"].split("-")
        a, b = names.get(a, a), names.get(b, b)
        if flips.get(rec["contrast"], False):
            a, b = b, a
            rec["wins"], rec["losses"] = rec["losses"], rec["wins"]
        rec["contrast"] = f"{a}-{b}"
    return pd.DataFrame(rows, index=table.index, columns=table.columns)


_count = st.integers(0, 40)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(_count, _count, _count), min_size=6, max_size=6),
       st.lists(st.booleans(), min_size=3, max_size=3),
       st.permutations(["zeta", "alpha", "mu"]))
def test_spread_is_invariant_to_orientation_and_protocol_names(counts, flips, renamed):
    # three contrasts of three protocols at two seeds; any of them written the other way round
    # and the protocols renamed (which reorders them): the floor never moved, now the spread
    # (sd, min, max and the per-seed min/max) does not either
    labels = ["p-q", "p-r", "q-r"]
    t = pd.DataFrame([{"contrast": labels[i % 3], "clean": i % 3 == 0, "seed": 1 + i // 3,
                       "wins": w, "losses": lo, "ties": ti}
                      for i, (w, lo, ti) in enumerate(counts)])
    other = _flip_and_rename(t, dict(zip(labels, flips)), dict(zip("pqr", renamed)))
    a, b = noise_floor(t), noise_floor(other)
    for name in ("null_gap_sd", "null_gap_min", "null_gap_max", "floor", "envelope"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), nan_ok=True), name
    cols = ["null_gap_min", "null_gap_max"]
    assert np.allclose(a.per_seed()[cols].to_numpy(float), b.per_seed()[cols].to_numpy(float),
                       equal_nan=True)
