"""`tax report` on runs written by the real runner against the scripted server.

Every run here is made by :func:`harness.runner.run.run_tax` over HTTP (no synthetic frame):
a grader-model run, a judge whose replies never parse, and a planted-tax run whose family
taxes, recovered shares and cascade rates the report must recover.
"""

from __future__ import annotations

import functools
import json
import math
import warnings

import numpy as np
import pytest

from harness.base import UNPARSED
from harness.runner.run import RunSettings, run_tax
from harness.runner.scripted import FAILURE_PHRASES, ScriptedServer, TaxPolicy, answer_book
from noisefloor.endpoints import ModelEndpoint
from noisefloor.tax import tax_report
from noisefloor.tax.replies import JOURNAL_NAME

TASKS = ("spatial_maze_halves", "spatial_one_way", "relational_family_tree",
         "relational_org_chart", "csp_sudoku4", "csp_seating")
N = 30
#: Planted: competence per family, and grounding-failure rates per family.
COMPETENCE = {"spatial": 0.95, "relational": 0.9, "csp": 0.85}
RATES = {"spatial": {"L1": 0.3, "L3": 0.2}, "relational": {"L2": 0.2, "L4": 0.1},
         "csp": {"L4": 0.1}}
POLICY = TaxPolicy({"m": COMPETENCE}, RATES, clause_effect=0.25)


def _endpoints(server, *models):
    return [ModelEndpoint(m, (server.base_url,), concurrency=8) for m in models]


def _run(server, out, **kw):
    base = dict(tasks=TASKS, models=("m",), rollouts=N, difficulty=0, turn_cap=6,
                modes=("solo", "pair"))
    base.update(kw)
    settings = RunSettings(**base)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="no price known")
        run_tax(settings, _endpoints(server, *settings.all_models), out)
    return out


@pytest.fixture(scope="module")
def server():
    policies = {"m": "taxed", "judge": "judge", "mute-judge": "silent", "verbose": "verbose",
                "extractor": "extractor"}
    with ScriptedServer(policies, book=answer_book(TASKS, range(N), 0), tax=POLICY) as srv:
        yield srv


@pytest.fixture(scope="module")
def planted(server, tmp_path_factory):
    return _run(server, tmp_path_factory.mktemp("planted"), variants=("baseline", "all_four"))


def test_grader_model_run_is_read_and_its_share_reported(server, tmp_path):
    run = _run(server, tmp_path / "run", models=("verbose",), extractor_model="extractor",
               tasks=("csp_sudoku4", "relational_family_tree"), rollouts=4)
    rep = tax_report(run, n_boot=200, n_permutations=0)
    cells = rep.task_cells.set_index("task")
    # every answer was written in words: the grader model read all of them, the score is 1
    assert (cells["llm_share_solo"] == 1).all() and (cells["llm_share_pair"] == 1).all()
    assert (cells["solo"] == 1).all() and (cells["pair"] == 1).all()
    md = rep.markdown()  # what report.md holds, figures aside (written by the tests below)
    assert "read by the grader model" in md and "100/100" in md


def test_judge_whose_replies_never_parse_leaves_a_report_and_a_journal(planted, server,
                                                                      tmp_path):
    judge = ModelEndpoint("mute-judge", (server.base_url,), concurrency=8)
    before = server.requests
    rep = tax_report(planted, out=tmp_path, judge=judge, n_boot=100, n_permutations=0,
                     predict=False)
    n_baseline_pairs = len(TASKS) * N
    assert server.requests - before == n_baseline_pairs   # variants not labelled unless asked
    assert rep.stage_rates is None and "labelled none" in rep.cascade_note
    assert "Unavailable: the judge labelled none" in (tmp_path / "report.md").read_text()
    lines = (tmp_path / JOURNAL_NAME).read_text().splitlines()
    assert len(lines) == n_baseline_pairs
    assert {json.loads(x)["failure"]["kind"] for x in lines} == {"unparseable"}
    assert json.loads(lines[0])["reply"] == "I need to think about this some more."


def test_judge_labels_are_journalled_and_reused(planted, server, tmp_path):
    judge = ModelEndpoint("judge", (server.base_url,), concurrency=8)
    journal = tmp_path / "j.jsonl"
    before = server.requests
    first = tax_report(planted, judge=judge, judge_journal=journal, n_boot=100,
                       n_permutations=0, predict=False)
    asked = server.requests - before
    assert asked == len(TASKS) * N and first.stage_rates is not None
    # drop the last ten journal lines: a re-run asks for exactly those ten
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:-10]) + "\n")
    before = server.requests
    again = tax_report(planted, judge=judge, judge_journal=journal, n_boot=100,
                       n_permutations=0, predict=False)
    assert server.requests - before == 10
    assert again.stage_rates["k"].tolist() == first.stage_rates["k"].tolist()
    before = server.requests
    tax_report(planted, judge=judge, judge_journal=journal, judge_variants=True, n_boot=50,
               n_permutations=0, predict=False)
    assert server.requests - before == len(TASKS) * N   # the all_four pairs, only when asked


@functools.cache
def _shortfall(family):
    """Mean over the family's tasks and instances of 1 - grade(wrong answer): a failed
    rollout commits to the task's corrupted answer, which may earn partial credit."""
    from harness.registry import get_task

    per_task = []
    for name in TASKS:
        task = get_task(name)
        if task.family != family:
            continue
        lost = []
        for seed in range(N):
            inst = task.generate(seed, 0)
            wrong = task.read_answer(task.format_answer(task.corrupt(inst, task.oracle(inst))),
                                     inst)
            lost.append(1 - task.grade(inst, None if wrong is UNPARSED else wrong))
        per_task.append(np.mean(lost))
    return float(np.mean(per_task))


def _expected_tax(family, clauses=()):
    """Planted tax: c (1 - prod_k (1 - r_k)) times the score a failure loses."""
    return POLICY.expected_tax("m", family, clauses) * _shortfall(family)


def test_planted_tax_is_recovered_inside_the_intervals(planted, server, tmp_path):
    judge = ModelEndpoint("judge", (server.base_url,), concurrency=8)
    rep = tax_report(planted, out=tmp_path, judge=judge, n_boot=2000, n_permutations=0,
                     confidence=0.95, rng=1)
    fam = rep.family_cells.set_index("family")
    for family in ("spatial", "relational", "csp"):
        want = _expected_tax(family)
        row = fam.loc[family]
        assert row.ci_low <= want <= row.ci_high, (family, want, row.ci_low, row.ci_high)
        assert row.tax > 0
    # the ordering planted (spatial > relational > csp) is what is estimated
    assert fam.loc["spatial", "tax"] > fam.loc["relational", "tax"] > fam.loc["csp", "tax"]
    iv = rep.intervention.set_index(["variant", "family"])
    for family in ("spatial", "relational", "csp"):
        base = _expected_tax(family)
        with_clauses = _expected_tax(family, ("L1", "L2", "L3", "L4"))
        want = (base - with_clauses) / base
        row = iv.loc[("all_four", family)]
        assert row.ci_low <= want <= row.ci_high, (family, want, row.ci_low, row.ci_high)
    rates = rep.stage_rates.set_index(["family", "stage", "outcome"])
    # a stage the policy never fails is never labelled; a planted one is, in failed rollouts
    assert rates.loc[("csp", "L1", "failed"), "k"] == 0
    assert rates.loc[("spatial", "L1", "failed"), "rate"] > 0.3
    assert (rates.xs("success", level="outcome")["k"] == 0).all()
    md = (tmp_path / "report.md").read_text()
    assert "fig5_cascade.png" in md and "fig6_intervention.png" in md


def test_trace_phrases_are_what_the_judge_reads():
    srv = ScriptedServer({"judge": "judge"})
    text = "[agent a]: " + FAILURE_PHRASES["L2"] + " FINAL ANSWER: x"
    reply = json.loads(srv.reply("judge", [{"role": "system", "content": "audit"},
                                           {"role": "user", "content": text}]))
    assert reply == {"L1": 0, "L2": 1, "L3": 0, "L4": 0}
    assert math.isclose(POLICY.expected_tax("m", "spatial"), 0.95 * (1 - 0.7 * 0.8))
    assert np.isclose(POLICY.rate("spatial", "L1", clause=True), 0.075)


def test_solo_view_is_one_rule_and_both_is_an_explicit_recorded_option(planted, server,
                                                                      tmp_path):
    """Every family's solo control reads one canonical form unless --solo-view both; the
    record says which; on the planted run the family ordering is the same under both (the
    scripted model does not pay a conversion cost, so the rendering cannot make the order).
    The canonical run is the planted run (canonical is the default view)."""
    from harness.registry import get_task
    from harness.runner import journal as jr

    assert RunSettings(tasks=TASKS, models=("m",)).solo_view == "canonical"
    taxes = {}
    for view in ("canonical", "both"):
        out = planted if view == "canonical" else _run(server, tmp_path / view, solo_view=view,
                                                       rollouts=20)
        records = [json.loads(x) for x in (out / "trials.jsonl").read_text().splitlines()]
        assert {r["extra"]["solo_view"] for r in records} == {view}
        solo = next(r for r in records if r["extra"]["mode"] == "solo"
                    and r["extra"]["family"] == "csp")
        task = get_task(solo["extra"]["task"])
        inst = task.generate(solo["extra"]["instance_seed"], 0)
        system = jr.read_transcript(out, solo)[0]["content"]
        shown = task.render(inst) if view == "canonical" else task.render_both(inst)
        assert shown in system
        assert ("different conventions" in system) == (view == "both")
        rep = tax_report(out, n_boot=100, n_permutations=0, predict=False)
        taxes[view] = rep.family_cells.set_index("family")["tax"]
    order = {v: list(t.sort_values(ascending=False).index) for v, t in taxes.items()}
    assert order["canonical"] == order["both"] == ["spatial", "relational", "csp"]
