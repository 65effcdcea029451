"""A contrast is null only when something certifies it, and runs and models
as contrast arms (section 2). Fixtures: ``fixtures/nulls/`` (``make_fixtures.py`` beside them).

Reference values are counted from the fixture files with plain Python (json, no noisefloor),
and the floor's bound is the Wilson interval of statsmodels
(``proportion_confint(w, w + l, alpha, method="wilson")``, Wilson 1927) mapped onto the gap as
the noise-floor paper does (Kaliyev & Maryanskyy 2026), at two confidence levels.
"""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from noisefloor.floor.estimate import noise_floor
from noisefloor.floor.nulls import (
    DECLARED,
    EMPTY_STORE,
    NO_INJECTION,
    NO_STORE_READER,
    NoNullContrastError,
    certified_null_contrasts,
)
from noisefloor.logs import load_trials
from noisefloor.pipelines import contrast_run, floor_run


@pytest.fixture(scope="module")
def nulls_dir(fixtures_dir):
    return fixtures_dir / "nulls"


def _success(reward: float) -> bool:
    return abs(reward - 1.0) <= 1e-6


def _wlt(a: dict, b: dict) -> tuple[int, int, int]:
    """W/L/T of a-b over the tasks of both dicts task -> success."""
    tasks = sorted(set(a) & set(b))
    wins = sum(a[t] and not b[t] for t in tasks)
    losses = sum(b[t] and not a[t] for t in tasks)
    return wins, losses, len(tasks) - wins - losses


def _mapped_bound(w: int, losses: int, t: int, confidence: float) -> float:
    lo, hi = proportion_confint(w, w + losses, alpha=1 - confidence, method="wilson")
    scale = (w + losses) / (w + losses + t)
    return max((2 * hi - 1) * scale, -(2 * lo - 1) * scale)


# --- section 1: the two failing cases ---------------------------------------------------------

def test_two_systems_without_store_fields_have_no_null_contrast(nulls_dir):
    # baseline vs swarm (swarm truly +12 pp): the old code took baseline-swarm at trial 0 as a
    # null contrast and put the floor at 28.2 pp, so every real gain came out "below"
    trials = load_trials(nulls_dir / "two_systems.jsonl")
    with pytest.raises(NoNullContrastError) as info:
        certified_null_contrasts(trials)
    message = str(info.value)
    assert "baseline-swarm at trial 0" in message and "a contrast of two systems" in message
    for remedy in ("store_events_at_start", "first_request_sha256", "null_pairs="):
        assert remedy in message


def test_two_systems_contrast_is_a_real_contrast_counted_by_hand(nulls_dir):
    records = [json.loads(x) for x in (nulls_dir / "two_systems.jsonl").read_text().splitlines()]
    arms = defaultdict(dict)
    for r in records:
        arms[(r["protocol"], r["trial"])][r["task_id"]] = _success(r["reward"])
    expected = _wlt(arms[("swarm", 0)], arms[("baseline", 0)])
    run = contrast_run(nulls_dir / "two_systems.jsonl", "swarm", "baseline", trials=[0])
    row = run.contrasts.iloc[0]
    assert (row["wins"], row["losses"], row["ties"]) == expected
    assert row["certified_by"] == ""  # a real contrast: nothing certifies it null


def test_declaring_only_the_baseline_reruns_gives_a_floor_from_them_alone(nulls_dir):
    records = [json.loads(x) for x in (nulls_dir / "two_systems.jsonl").read_text().splitlines()]
    arms = defaultdict(dict)
    for r in records:
        arms[(r["protocol"], r["trial"])][r["task_id"]] = _success(r["reward"])
    w, losses, t = _wlt(arms[("baseline", 0)], arms[("baseline", 1)])
    for confidence in (0.95, 0.90):
        run = floor_run(nulls_dir / "two_systems.jsonl", null_pairs=["baseline-baseline"],
                        confidence=confidence)
        table = run.null_contrasts.table
        assert table["contrast"].tolist() == ["baseline[t0]-baseline[t1]"]
        assert table["certified_by"].tolist() == [DECLARED]
        assert (int(table["wins"][0]), int(table["losses"][0]),
                int(table["ties"][0])) == (w, losses, t)
        assert run.noise_floor.floor == pytest.approx(_mapped_bound(w, losses, t, confidence),
                                                      abs=1e-12)
        # the uncertified candidates are listed with their reasons, never dropped silently
        assert {r["contrast"] for r in run.skipped} == {"baseline-swarm", "swarm[t0]-swarm[t1]"}


def test_paper_key_set_without_store_at_start_makes_no_reruns_from_a_populated_store(nulls_dir):
    # the old code read "no store logged" as an inactive reader and made pull[t0]-pull[t1] an
    # re-run null (floor 35.5 pp) although pull's store was populated at trial 1
    logs = nulls_dir / "paper_keys"
    trials = load_trials(logs, benchmark="tau2/retail", model="m")
    assert "store_events_at_end" in trials["extra"].iloc[0]
    assert trials["store_events_at_start"].isna().all()
    with pytest.raises(NoNullContrastError, match="Remedies"):
        certified_null_contrasts(trials)
    run = floor_run(logs, benchmark="tau2/retail", model="m", null_pairs=["no_coord-no_coord"])
    assert run.to_frame()["contrast"].unique().tolist() == ["no_coord[t0]-no_coord[t1]"]
    skipped = {r["contrast"]: r["reason"] for r in run.skipped}
    assert "pull[t0]-pull[t1]" in skipped and "reader may have acted" in skipped["pull[t0]-pull[t1]"]
    assert "intercept-pull" in skipped  # trial 0 across protocols: nothing certified it either


def test_store_at_start_zero_certifies_trial0_and_not_a_populated_rerun(nulls_dir, tmp_path):
    # the same log with store_events_at_start recorded: trial 0 empty, trial 1 populated
    for protocol in ("no_coord", "pull", "intercept"):
        src = nulls_dir / "paper_keys" / protocol / "trials.jsonl"
        lines = [json.loads(x) for x in src.read_text().splitlines()]
        for x in lines:
            x["store_events_at_start"] = 0 if x["trial"] == 0 or protocol == "no_coord" else 2
        (tmp_path / protocol).mkdir()
        (tmp_path / protocol / "trials.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines))
    run = floor_run(tmp_path, benchmark="tau2/retail", model="m")
    cert = dict(zip(run.to_frame()["contrast"], run.to_frame()["certified_by"]))
    assert cert == {"intercept-no_coord": EMPTY_STORE, "intercept-pull": EMPTY_STORE,
                    "no_coord-pull": EMPTY_STORE, "no_coord[t0]-no_coord[t1]": EMPTY_STORE}
    assert [r["contrast"] for r in run.skipped] == ["intercept[t0]-intercept[t1]",
                                                    "pull[t0]-pull[t1]"]


def test_a_missing_store_value_is_not_an_empty_store():
    # the old reader filled a missing store_events_at_start with 0
    t = pd.DataFrame({"protocol": ["x"] * 4, "task_id": ["1", "2"] * 2, "trial": [0, 0, 1, 1],
                      "reward": [1.0, 0.0, 0.0, 0.0],
                      "store_events_at_start": pd.array([0, 0, 0, None], dtype="Int64")})
    with pytest.raises(NoNullContrastError, match="missing on some paired records"):
        certified_null_contrasts(t)


def test_the_tau_bench_reruns_is_certified_by_having_no_store_reader(shared_data):
    run = floor_run(shared_data / "tau-bench" / "gpt-4o-airline.json")
    assert set(run.to_frame()["certified_by"]) == {NO_STORE_READER}
    assert round(100 * run.noise_floor.floor, 1) == 17.2  # tests/test_floor_taubench.py


def test_no_injection_certifies_a_rerun_only():
    t = pd.DataFrame({"protocol": ["x"] * 4 + ["y"] * 4, "task_id": ["1", "2"] * 4,
                      "trial": [0, 0, 1, 1] * 2, "reward": [1.0, 0.0, 0.0, 1.0] * 2,
                      "injections": 0})
    null = certified_null_contrasts(t)
    assert dict(zip(null.table["contrast"], null.table["certified_by"])) == {
        "x[t0]-x[t1]": NO_INJECTION, "y[t0]-y[t1]": NO_INJECTION}
    assert [r["contrast"] for r in null.skipped] == ["x-y"]


# --- section 2: runs and models as arms -------------------------------------------------------

def _tau2_success(path) -> dict:
    doc = json.loads(path.read_text())
    out = defaultdict(dict)
    for sim in doc["simulations"]:
        out[sim["trial"]][sim["task_id"]] = _success(sim["reward_info"]["reward"])
    return out


def test_two_tau2_runs_of_one_configuration_are_two_runs_not_duplicates(nulls_dir):
    a, b = nulls_dir / "tau2_runA", nulls_dir / "tau2_runB"
    trials = load_trials([a, b])  # each path given is one run, kept apart by ``run``
    assert set(trials["run"]) == {"tau2_runA", "tau2_runB"} and set(trials["seed"]) == {300}
    ra, rb = _tau2_success(a / "results.json"), _tau2_success(b / "results.json")
    run = floor_run([a, b])
    frame = run.to_frame()
    table = frame[frame["level"] == "trial"].set_index("contrast")
    for confidence in (0.95, 0.90):
        nf = floor_run([a, b], confidence=confidence).noise_floor
        bounds = [_mapped_bound(*_wlt(x, y), confidence)
                  for x, y in ((ra[0], rb[0]), (ra[1], rb[1]), (ra[0], ra[1]), (rb[0], rb[1]))]
        assert nf.floor == pytest.approx(max(bounds), abs=1e-12)
    across = table.loc["default@tau2_runA[t0]-default@tau2_runB[t0]"]
    assert (across["wins"], across["losses"], across["ties"]) == _wlt(ra[0], rb[0])
    assert set(table["certified_by"]) == {NO_STORE_READER}


def test_labelled_runs_are_arms_and_their_contrast_is_not_null(nulls_dir):
    a, b = nulls_dir / "tau2_runA", nulls_dir / "tau2_runB"
    ra, rb = _tau2_success(a / "results.json"), _tau2_success(b / "results.json")
    run = contrast_run([f"{a}=baseline", f"{b}=variant"], "variant", "baseline", trials=[0, 1])
    got = [(int(r.trial), int(r.wins), int(r.losses), int(r.ties), r.certified_by)
           for r in run.contrasts.itertuples()]
    assert got == [(0, *_wlt(rb[0], ra[0]), ""), (1, *_wlt(rb[1], ra[1]), "")]
    # the labels replace the protocol; the run's own stays in logged_protocol, and the
    # re-runs of each labelled run are null pairs (a tau2 run has no store reader)
    trials = load_trials([(a, "baseline"), (b, "variant")])
    assert set(trials["logged_protocol"]) == {"default"}
    null = certified_null_contrasts(trials)
    assert set(null.table["contrast"]) == {"baseline[t0]-baseline[t1]", "variant[t0]-variant[t1]"}
    assert [r["contrast"] for r in null.skipped] == ["baseline-variant"]


def test_contrast_by_model(nulls_dir):
    a, m = nulls_dir / "tau2_runA", nulls_dir / "tau2_modelB"
    ra, rm = _tau2_success(a / "results.json"), _tau2_success(m / "results.json")
    for by in ("model", None):  # None: inferred, both arms are models of the log
        run = contrast_run([a, m], "claude-haiku-4-5", "gpt-4.1-mini", by=by, trials=[0, 1])
        assert run.by == "model"
        rows = run.contrasts
        assert rows["protocol"].tolist() == ["default", "default"]
        assert [(int(r.wins), int(r.losses), int(r.ties)) for r in rows.itertuples()] == [
            _wlt(rm[0], ra[0]), _wlt(rm[1], ra[1])]


def test_reruns_contrast_of_one_configuration_across_trials(shared_data):
    # tests/test_floor_taubench.py counts trial 0 vs trial 1 of the tau-bench log by hand: 9/10/31
    log = shared_data / "tau-bench" / "gpt-4o-airline.json"
    run = contrast_run(log, "default", "default", trials=[0], trial_b=1)
    row = run.contrasts.iloc[0]
    assert row["contrast"] == "default[t0]-default[t1]"
    assert (row["wins"], row["losses"], row["ties"]) == (9, 10, 31)
    assert row["certified_by"] == NO_STORE_READER
    every = contrast_run(log, "default", "default")
    assert len(every.contrasts) == 6  # every pair of the four trials


def test_a_label_on_a_log_of_several_protocols_is_refused(fixtures_dir):
    with pytest.raises(ValueError, match="label 'x' names one arm, but the log holds records of 3 "
                                         "protocols"):
        load_trials([(fixtures_dir / "logs" / "paper", "x")], benchmark="b", model="m")


def test_a_log_given_twice_is_named(nulls_dir):
    with pytest.raises(Exception, match="read twice"):
        load_trials([nulls_dir / "tau2_runA", (nulls_dir / "tau2_runA", "x")])


# --- properties ---------------------------------------------------------------------------------

@st.composite
def _logs(draw):
    n_tasks = draw(st.integers(2, 6))
    protocols = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, max_size=3,
                              unique=True))
    rewards = draw(st.lists(st.booleans(), min_size=2 * n_tasks * len(protocols),
                            max_size=2 * n_tasks * len(protocols)))
    rows = [{"protocol": p, "task_id": str(i), "trial": tr, "seed": 1}
            for p in protocols for tr in (0, 1) for i in range(n_tasks)]
    t = pd.DataFrame(rows)
    t["reward"] = np.array(rewards, dtype=float)
    return t


@settings(max_examples=40, deadline=None)
@given(_logs(), st.randoms(use_true_random=False))
def test_without_store_fields_nothing_is_null_and_with_an_empty_store_all_is(t, random):
    with pytest.raises(NoNullContrastError):
        certified_null_contrasts(t)
    empty = t.assign(store_events_at_start=0)
    null = certified_null_contrasts(empty)
    assert set(null.table["certified_by"]) == {EMPTY_STORE} and not null.skipped
    # the rows' order does not change the counts
    shuffled = empty.sample(frac=1.0, random_state=random.randint(0, 2**31 - 1))
    again = certified_null_contrasts(shuffled)
    pd.testing.assert_frame_equal(again.table.reset_index(drop=True),
                                  null.table.reset_index(drop=True))
    # a populated store at trial 1 leaves the trial-0 contrasts and removes every re-run
    populated = empty.assign(store_events_at_start=np.where(empty["trial"] == 1, 3, 0))
    kinds = set(certified_null_contrasts(populated).table["kind"])
    assert kinds == {"trial0"}


def test_floor_from_counts_is_certified_by_the_table():
    from noisefloor.audit.published import read_paired_counts
    from noisefloor.floor.count_table import null_contrasts_from_counts
    from noisefloor.floor.nulls import COUNT_TABLE

    nf = noise_floor(null_contrasts_from_counts(read_paired_counts()))
    assert set(nf.to_frame()["certified_by"]) == {COUNT_TABLE}
    assert round(nf.floor, 3) == 0.118  # Kaliyev & Maryanskyy (2026): about 12 pp


@st.composite
def _ragged_logs(draw):
    """Two protocols x two trials with missing tasks, rewards without value and infrastructure
    errors."""
    rows = []
    for p in ("a", "b"):
        for tr in (0, 1):
            for i in range(draw(st.integers(1, 6))):
                kind = draw(st.sampled_from(["ok", "fail", "none", "infra"]))
                rows.append({"protocol": p, "task_id": str(draw(st.integers(0, 7))) + f"-{i}"
                             if draw(st.booleans()) else str(i), "trial": tr,
                             "reward": {"ok": 1.0, "fail": 0.0}.get(kind, float("nan")),
                             "infrastructure_error": kind == "infra"})
    t = pd.DataFrame(rows).drop_duplicates(["protocol", "trial", "task_id"])
    return t.reset_index(drop=True)


@settings(max_examples=60, deadline=None)
@given(_ragged_logs(), st.sampled_from(["exclude", "fail"]))
def test_vectorised_pairing_counts_as_paired_contrast_does(t, infra):
    # the per-pair join of noisefloor.floor.pairing.paired_contrast is the definition the
    # vectorised pairing (noisefloor.floor.pairing) must keep: W/L/T and every left-out count
    from noisefloor.floor.pairing import paired_contrast

    null = certified_null_contrasts(t, null_pairs=["a-b", "a-a", "b-b"],
                                    infrastructure_errors=infra).table
    for r in null.itertuples():
        c = paired_contrast(t, r.a, r.b, trial=r.trial_a, trial_b=r.trial_b,
                            infrastructure_errors=infra)
        assert (r.wins, r.losses, r.ties) == (c.wins, c.losses, c.ties)
        assert (r.n_only_a, r.n_only_b, r.n_excluded) == (
            len(c.tasks_only_a), len(c.tasks_only_b), len(c.tasks_excluded))
