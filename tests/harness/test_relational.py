"""Task-specific tests of the Relational family (the generic four properties are in
``test_properties.py``): answer parsing, documented partial-credit values on hand-built
instances, per-question union necessity, all difficulties, argument validation.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.base import FINAL_MARKER, UNPARSED, Instance
from harness.registry import get_task
from harness.tasks.relational.common import (
    compact,
    jaccard,
    pair_concordance,
    parse_numbered,
    parse_sequence,
    split_set,
)

RELATIONAL = (
    "relational_alias_resolution", "relational_club_memberships", "relational_course_prerequisites", "relational_event_precedence",
    "relational_family_tree", "relational_install_order", "relational_org_chart", "relational_ownership_transfers", "relational_rail_connections",
    "relational_timeline_dates", "relational_transitive_comparison",
)
#: question tasks whose generator checks every question against each view alone
PER_QUESTION_CHECKED = (
    "relational_alias_resolution", "relational_club_memberships", "relational_course_prerequisites", "relational_family_tree", "relational_org_chart",
    "relational_rail_connections", "relational_transitive_comparison",
)
ORDER_TASKS = ("relational_event_precedence", "relational_install_order", "relational_timeline_dates")


def _only(data: dict, side: str) -> dict:
    return {**data, "facts": [f for f in data["facts"] if f["owner"] == side]}


# ----- registry ---------------------------------------------------------------------------
def test_relational_tasks_registered():
    from harness.registry import list_tasks

    names = {t.name for t in list_tasks("relational")}
    assert set(RELATIONAL) <= names
    for name in RELATIONAL:
        task = get_task(name)
        assert task.family == "relational" and task.description and task.answer_format


# ----- parsing ----------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("1: sibling; 2: cousin", ["sibling", "cousin"]),
    ("1) Anna Berg\n2) BERG, Anna.", ["Anna Berg", "BERG, Anna"]),
    ("Q1: 3; Q3 = 'none'", ["3", None, "none"]),
    ("2: b; 1: a; 1: ignored", ["a", "b"]),
    ("1. **Anna, Bruno**", ["Anna, Bruno"]),
    ("99999: x", UNPARSED),
    ("no idea", UNPARSED),
    ("", UNPARSED),
])
def test_parse_numbered(text, expected):
    assert parse_numbered(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Great Flood, Spring Fair, Harbour Fire", ["Great Flood", "Spring Fair", "Harbour Fire"]),
    ("1. net-core\n2. http-api.", ["net-core", "http-api"]),
    ("a -> b > c \u2192 d", ["a", "b", "c", "d"]),
    (" , ,", UNPARSED),
])
def test_parse_sequence(text, expected):
    assert parse_sequence(text) == expected


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.text(max_size=300))
def test_parsers_never_raise(text):
    for out in (parse_numbered(text), parse_sequence(text)):
        assert out is UNPARSED or isinstance(out, list)


def test_split_set_and_compact():
    assert split_set("Anna, Bruno and Clara") == ["Anna", "Bruno", "Clara"]
    assert split_set("none") == [] and split_set("Nobody.") == []
    assert compact("BERG, Anna") == "berganna"


# ----- scoring primitives -----------------------------------------------------------------
def test_pair_concordance_values():
    truth = ["a", "b", "c", "d"]
    assert pair_concordance(truth, truth) == 1.0
    assert pair_concordance(truth, truth[::-1]) == 0.0
    # one adjacent swap breaks 1 of the 6 pairs
    assert pair_concordance(truth, ["b", "a", "c", "d"]) == pytest.approx(5 / 6)
    # a missing item loses its 3 pairs; unknowns and repeats are ignored
    assert pair_concordance(truth, ["a", None, "b", "a", "c"]) == pytest.approx(3 / 6)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.permutations(list("abcdef")))
def test_pair_concordance_is_one_exactly_for_the_truth(perm):
    truth = list("abcdef")
    score = pair_concordance(truth, list(perm))
    assert 0.0 <= score <= 1.0
    assert (score == 1.0) == (list(perm) == truth)
    # (1 + Kendall tau) / 2 identity with the reversed order
    assert pair_concordance(truth, list(perm)[::-1]) == pytest.approx(1 - score)


def test_jaccard():
    assert jaccard(set(), set()) == 1.0
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)


# ----- hand-built instances with documented partial credit ---------------------------------
def _family_instance() -> Instance:
    people = {"Anna Berg": "BERG, Anna", "Carl Dahl": "DAHL, Carl", "Eva Falk": "FALK, Eva",
              "Gus Holm": "HOLM, Gus", "Ida Ito": "ITO, Ida"}
    data = {
        "entities": {k: {"a": k, "b": v} for k, v in people.items()},
        "facts": [
            {"owner": "a", "parent": "Anna Berg", "child": "Carl Dahl"},
            {"owner": "b", "parent": "Anna Berg", "child": "Eva Falk"},
            {"owner": "a", "parent": "Carl Dahl", "child": "Gus Holm"},
            {"owner": "b", "parent": "Eva Falk", "child": "Ida Ito"},
        ],
        "queries": [
            {"type": "term", "x": "Gus Holm", "y": "Ida Ito"},   # cousin
            {"type": "term", "x": "Gus Holm", "y": "Eva Falk"},  # aunt or uncle
            {"type": "term", "x": "Anna Berg", "y": "Ida Ito"},  # grandchild
            {"type": "term", "x": "Carl Dahl", "y": "Eva Falk"},  # sibling
        ],
    }
    return Instance("relational_family_tree", 0, 1, data, dict(get_task("relational_family_tree").conventions))


def test_family_tree_grading_values():
    task = get_task("relational_family_tree")
    inst = _family_instance()
    assert task.oracle(inst) == ["cousin", "aunt or uncle", "grandchild", "sibling"]
    def grade(text: str) -> float:
        return task.grade(inst, task.extract_answer(f"{FINAL_MARKER} {text}"))

    assert grade("1: cousin; 2: aunt; 3: grandchild; 4: sister") == 1.0  # synonyms accepted
    assert grade("1: cousin; 2: niece or nephew; 3: grandchild; 4: cousin") == 0.5
    assert grade("4: sibling") == 0.25  # missing questions score 0
    assert grade("I am not sure") == 0.0


def test_family_tree_naive_paste_reverses_b_links():
    task = get_task("relational_family_tree")
    inst = _family_instance()
    # read as 'parent of', b's 'Eva Falk is a child of Anna Berg' makes Eva Anna's parent
    assert task.naive_answer(inst) != task.oracle(inst)


def test_org_chart_accepts_either_name_form():
    task = get_task("relational_org_chart")
    inst = task.generate(11)
    truth = task.oracle(inst)
    b_forms = [inst.data["entities"][t]["b"] if t in inst.data["entities"] else t for t in truth]
    assert task.grade(inst, b_forms) == 1.0
    assert task.grade(inst, ["Nobody Known"] + truth[1:]) == pytest.approx(
        (len(truth) - 1) / len(truth))


def _install_instance() -> Instance:
    names = ["app-core", "net-kit", "log-io", "json-lite", "geo-api"]
    data = {
        "entities": {n: {"a": n, "b": "".join(p.capitalize() for p in n.split("-"))}
                     for n in names},
        "facts": [
            {"owner": "a", "package": "app-core", "dependency": "net-kit"},
            {"owner": "b", "package": "net-kit", "dependency": "log-io"},
            {"owner": "b", "package": "app-core", "dependency": "json-lite"},
            {"owner": "a", "package": "geo-api", "dependency": "log-io"},
        ],
        "queries": [],
        "target": "app-core",
    }
    return Instance("relational_install_order", 0, 1, data, dict(get_task("relational_install_order").conventions))


def test_install_order_grading_values():
    task = get_task("relational_install_order")
    inst = _install_instance()
    assert task.oracle(inst) == ["json-lite", "log-io", "net-kit", "app-core"]
    # any valid order is correct, in either naming convention
    assert task.grade(inst, ["LogIo", "NetKit", "JsonLite", "AppCore"]) == 1.0
    # right set, net-kit before its dependency log-io: 2 of 3 links kept
    assert task.grade(inst, ["json-lite", "net-kit", "log-io", "app-core"]) == pytest.approx(2 / 3)
    # an unneeded extra package: Jaccard 4/5, order intact
    assert task.grade(inst, ["geo-api", "json-lite", "log-io", "net-kit", "app-core"]) == \
        pytest.approx(4 / 5)
    # a missing package: Jaccard 3/4 and its link lost: 3/4 * 2/3
    assert task.grade(inst, ["log-io", "net-kit", "app-core"]) == pytest.approx(0.5)
    assert task.grade(inst, ["made-up", "json-lite", "log-io", "net-kit", "app-core"]) == \
        pytest.approx(4 / 5)


def test_timeline_dates_formats_and_scores():
    task = get_task("relational_timeline_dates")
    inst = task.generate(3)
    view_a, view_b = task.split(inst)
    fact = next(f for f in inst.data["facts"] if f["owner"] == "b")
    y, m, d = fact["date"].split("-")
    assert [fact["event"], f"{m}/{d}/{y}"] in view_b.data["facts"]
    fact = next(f for f in inst.data["facts"] if f["owner"] == "a")
    y, m, d = fact["date"].split("-")
    assert [fact["event"], f"{d}/{m}/{y}"] in view_a.data["facts"]
    truth = task.oracle(inst)
    swapped = [truth[1], truth[0]] + truth[2:]
    n = len(truth)
    assert task.grade(inst, swapped) == pytest.approx(1 - 1 / (n * (n - 1) / 2))


def test_club_memberships_jaccard_credit():
    task = get_task("relational_club_memberships")
    inst = task.generate(5)
    truth = task.oracle(inst)
    k = len(truth)
    first = truth[0]
    assert len(first) >= 1
    # question 1 answered with one extra wrong name: |T| / (|T| + 1)
    if inst.data["queries"][0]["kind"] == "both":
        pool = inst.data["people"]
    else:
        pool = [c for c in inst.data["entities"] if c not in inst.data["people"]]
    extra = next(x for x in pool if x not in first)
    got = task.grade(inst, [first + [extra]] + truth[1:])
    assert got == pytest.approx((k - 1 + len(first) / (len(first) + 1)) / k)
    # club tags (view b's form) are accepted as well as full names
    tags = [[inst.data["entities"][x]["b"] for x in ans] for ans in truth]
    assert task.grade(inst, tags) == 1.0


def test_ownership_accepts_initial_form_and_scores_per_item():
    task = get_task("relational_ownership_transfers")
    inst = task.generate(8)
    truth = task.oracle(inst)
    as_b = [inst.data["entities"][t]["b"] for t in truth]
    assert task.grade(inst, task.parse(task.format_answer(as_b))) == 1.0
    wrong_first = [q["origin"] for q in inst.data["queries"][:1]] + truth[1:]
    assert task.grade(inst, wrong_first) == pytest.approx((len(truth) - 1) / len(truth))


def test_rail_and_courses_integer_answers():
    rail = get_task("relational_rail_connections")
    inst = rail.generate(2)
    truth = rail.oracle(inst)
    assert all(isinstance(t, int) and t >= 2 for t in truth)
    assert rail.grade(inst, [str(t) for t in truth]) == 1.0
    assert rail.grade(inst, [t + 1 for t in truth]) == 0.0
    courses = get_task("relational_course_prerequisites")
    inst = courses.generate(4)
    truth = courses.oracle(inst)
    assert all(isinstance(t, int) and t >= 3 for t in truth)
    assert courses.grade(inst, truth[:-1]) == pytest.approx((len(truth) - 1) / len(truth))


# ----- union necessity, per question --------------------------------------------------------
@pytest.mark.parametrize("name", PER_QUESTION_CHECKED)
@pytest.mark.parametrize("difficulty", [0, 1, 2])
def test_every_question_needs_both_views(name, difficulty):
    task = get_task(name)
    for seed in range(6):
        inst = task.generate(seed, difficulty)
        truth = task._solve(inst.data)
        for side in "ab":
            alone = task._solve(_only(inst.data, side))
            for qi, (t, s) in enumerate(zip(truth, alone)):
                assert t != s, f"{name} seed {seed}: view {side} alone answers question {qi + 1}"


def _unique_topological_order(nodes, edges) -> bool:
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    order = list(nx.topological_sort(graph))
    return all(graph.has_edge(u, v) for u, v in zip(order, order[1:]))


@pytest.mark.parametrize("seed", range(8))
def test_neither_view_alone_gives_the_answer(seed):
    from harness.tasks.relational.orders import closure

    for side in "ab":
        # precedence: each view's facts leave more than one order possible
        inst = get_task("relational_event_precedence").generate(seed)
        facts = _only(inst.data, side)["facts"]
        assert not _unique_topological_order(list(inst.data["entities"]),
                                             [(f["earlier"], f["later"]) for f in facts])
        # timeline: each view dates only some of the events
        inst = get_task("relational_timeline_dates").generate(seed)
        dated = {f["event"] for f in _only(inst.data, side)["facts"]}
        assert 0 < len(dated) < len(inst.data["entities"])
        # install order: each view's dependencies give a different set to install
        inst = get_task("relational_install_order").generate(seed)
        edges = [(f["package"], f["dependency"]) for f in inst.data["facts"]]
        mine = [(f["package"], f["dependency"]) for f in _only(inst.data, side)["facts"]]
        assert closure(mine, inst.data["target"]) != closure(edges, inst.data["target"])
        # ownership: every item's chain holds sales of both views
        inst = get_task("relational_ownership_transfers").generate(seed)
        for q in inst.data["queries"]:
            owners = {f["owner"] for f in inst.data["facts"] if f["item"] == q["item"]}
            assert owners == {"a", "b"}


# ----- every difficulty, the documented round trip --------------------------------------------
@pytest.mark.parametrize("name", RELATIONAL)
def test_all_difficulties_round_trip(name):
    task = get_task(name)
    sizes = []
    for difficulty, seed in itertools.product((0, 1, 2), range(5)):
        inst = task.generate(seed, difficulty)
        truth = task.oracle(inst)
        written = f"Let me think.\n{FINAL_MARKER} {task.format_answer(truth)}"
        assert task.grade(inst, task.extract_answer(written)) == 1.0
        assert task.grade(inst, task.solve_text(task.render(inst))) == 1.0
        # ids are unique after compaction, so a name never matches two entities
        forms = [c for e in inst.data["entities"].values()
                 for c in {compact(f) for f in e.values()}]
        assert len(set(forms)) == len(forms)
        sizes.append((difficulty, len(inst.data["facts"])))
    mean = {d: sum(n for dd, n in sizes if dd == d) / 5 for d in (0, 1, 2)}
    assert mean[0] < mean[2], f"{name}: difficulty does not grow the instance {mean}"


@pytest.mark.parametrize("name", RELATIONAL)
def test_views_hold_disjoint_facts_in_own_conventions(name):
    task = get_task(name)
    inst = task.generate(21)
    va, vb = task.split(inst)
    n_a = sum(f["owner"] == "a" for f in inst.data["facts"])
    assert len(va.data["facts"]) == n_a and len(vb.data["facts"]) == len(inst.data["facts"]) - n_a
    assert n_a > 0 and len(vb.data["facts"]) > 0
    for seed in range(10):  # facts are dealt about evenly (balanced_owners)
        facts = task.generate(seed).data["facts"]
        n_a = sum(f["owner"] == "a" for f in facts)
        assert min(n_a, len(facts) - n_a) >= 0.3 * len(facts), (seed, n_a, len(facts))
    assert va.data["questions"] and vb.data["questions"]
    assert task.render_view(va) != task.render_view(vb)


@pytest.mark.parametrize("name", RELATIONAL)
def test_argument_validation(name):
    task = get_task(name)
    with pytest.raises(ValueError, match="difficulty"):
        task.generate(1, 3)
    with pytest.raises(TypeError, match="seed"):
        task.generate("1")  # type: ignore[arg-type]
    inst = task.generate(1)
    with pytest.raises(ValueError, match="keep"):
        task.counterfactual(inst, "c", 2)
    assert task.grade(inst, "1: something") == 0.0  # unparsed text is not an answer
    assert task.grade(inst, {"1": "x"}) == 0.0


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=5), inner,
                                                               max_size=3),
    max_leaves=12,
)


@pytest.mark.parametrize("name", RELATIONAL)
@settings(max_examples=30, deadline=None, derandomize=True)
@given(answer=JSONISH)
def test_grade_total_on_arbitrary_answers(name, answer):
    task = get_task(name)
    inst = task.generate(4)
    score = task.grade(inst, answer)
    assert isinstance(score, float) and 0.0 <= score <= 1.0


@pytest.mark.parametrize("name", RELATIONAL)
def test_instances_are_json_and_accept_numpy_seeds(name):
    import json

    import numpy as np

    task = get_task(name)
    inst = task.generate(np.int64(6), 2)
    assert inst == task.generate(6, 2)
    json.dumps(inst.data)
    json.dumps([v.data for v in task.split(inst)])
    json.dumps(task.oracle(inst))


@pytest.mark.parametrize("name", ["relational_alias_resolution", "relational_org_chart", "relational_ownership_transfers"])
def test_names_written_in_view_b_form_score_full_through_the_parser(name):
    task = get_task(name)
    for seed in range(5):
        inst = task.generate(seed)
        ent = inst.data["entities"]
        as_b = [ent[t]["b"] if t in ent else t for t in task.oracle(inst)]
        text = f"We agree.\n{FINAL_MARKER} " + "; ".join(
            f"{i}: {v}" for i, v in enumerate(as_b, start=1))
        assert task.grade(inst, task.extract_answer(text)) == 1.0
