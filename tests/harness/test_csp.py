"""Task-specific checks of the CSP family (harness/tasks/csp/*.py).

The four generic properties run over every task in tests/harness/test_properties.py; this
file pins what is particular to the CSP tasks: unit and timezone conversions against
published values, the 12-hour clock, answer parsing, grading values, unique solutions at
every difficulty, and independence from the machine's local timezone.
"""

from __future__ import annotations

import os
import time
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.base import UNPARSED
from harness.manifest import TASKS_BY_FAMILY
from harness.registry import get_task, list_tasks
from harness.tasks.csp.common import (
    EliminationTask,
    parse_name_list,
    parse_pairs,
    permutations_array,
)
from harness.tasks.csp.grid import sudoku4_grids
from harness.tasks.csp.time import clock, local_stamp, parse_instant, utc_offset_text
from harness.tasks.csp.units import convert, imperial_text, parse_quantity

CSP = list_tasks("csp")
CSP_IDS = [t.name for t in CSP]


def test_family_is_the_manifests():
    # the count lives in harness/manifest.py only (test_manifest.py checks the whole suite)
    assert [t.name for t in CSP] == list(TASKS_BY_FAMILY["csp"])
    assert all(t.family == "csp" for t in CSP)


# ----- conversions against published values ----------------------------------------------
def test_us_customary_units_exact():
    # NIST Handbook 44 (2024), Appendix C: 1 avoirdupois ounce = 28.349 523 125 g,
    # 1 avoirdupois pound = 0.453 592 37 kg, 1 US fluid ounce = 29.573 529 562 5 mL,
    # 1 US cup = 8 US fluid ounces.
    assert convert(1, "ounce", "gram") == pytest.approx(28.349523125, rel=1e-12)
    assert convert(1, "pound", "kilogram") == pytest.approx(0.45359237, rel=1e-12)
    assert convert(1, "fluid_ounce", "milliliter") == pytest.approx(29.5735295625, rel=1e-12)
    assert convert(1, "cup", "fluid_ounce") == pytest.approx(8.0, rel=1e-12)


def test_imperial_text_switches_units():
    assert imperial_text(453.59237, "g") == "1.00 lb"
    assert imperial_text(100, "g") == "3.53 oz"  # 100 / 28.349523125 = 3.527...
    assert imperial_text(100, "ml") == "3.38 fl oz"  # 100 / 29.5735... = 3.381...
    assert imperial_text(236.5882365, "ml") == "1.00 cups"


@pytest.mark.parametrize(
    "text, value, unit",
    [
        ("250 g", 250.0, "g"),
        ("0.25 kg", 250.0, "g"),
        ("1 lb", 453.59237, "g"),
        ("8 fl oz", 236.5882365, "ml"),
        ("8 floz", 236.5882365, "ml"),
        ("1 cup", 236.5882365, "ml"),
        ("0.2 l", 200.0, "ml"),
        ("3.53oz", 3.53 * 28.349523125, "g"),
    ],
)
def test_parse_quantity(text, value, unit):
    v, u = parse_quantity(text)
    assert u == unit and v == pytest.approx(value, rel=1e-9)


@pytest.mark.parametrize("text", ["", "lots", "3 metres", "g 250", "250", "import os"])
def test_parse_quantity_rejects(text):
    assert parse_quantity(text) is None


def test_twelve_hour_clock_edges():
    import datetime as dt

    assert clock(dt.time(0, 0), "12h") == "12:00 AM"
    assert clock(dt.time(0, 30), "12h") == "12:30 AM"
    assert clock(dt.time(12, 0), "12h") == "12:00 PM"
    assert clock(dt.time(13, 5), "12h") == "1:05 PM"
    assert clock(dt.time(13, 5), "24h") == "13:05"


def test_timezones_follow_daylight_saving():
    # US daylight saving time 2026 starts Sunday 8 March at 02:00 local (10:00 UTC in Los
    # Angeles); the EU switches on Sunday 29 March at 01:00 UTC (Energy Policy Act of 2005;
    # Directive 2000/84/EC). India has no DST and is UTC+05:30.
    la = {"timezone": "America/Los_Angeles", "clock": "12h"}
    assert local_stamp("2026-03-08", 9 * 60 + 30, la) == "Sunday, March 8, 1:30 AM"
    assert local_stamp("2026-03-08", 10 * 60 + 30, la) == "Sunday, March 8, 3:30 AM"
    paris = {"timezone": "Europe/Paris", "clock": "24h"}
    assert local_stamp("2026-03-29", 0, paris) == "Sun 29 Mar 01:00"
    assert local_stamp("2026-03-29", 60, paris) == "Sun 29 Mar 03:00"
    assert utc_offset_text("2026-06-01", 0, "Asia/Kolkata") == "UTC+05:30"
    assert utc_offset_text("2026-01-15", 0, "America/St_Johns") == "UTC-03:30"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-03-10 14:30 UTC", "2026-03-10 14:30"),
        ("2026-03-10T14:30Z", "2026-03-10 14:30"),
        ("2026-03-10 09:30 +09:00", "2026-03-10 00:30"),
        ("2026-03-10 2:30 PM UTC", "2026-03-10 14:30"),
        ("2026-03-10 12:15 AM UTC", "2026-03-10 00:15"),
        ("2026-07-01 09:00 Europe/London", "2026-07-01 08:00"),
        ("2026-03-10 10:00 UTC-4", "2026-03-10 14:00"),
        ("2026-03-10 14:30", "2026-03-10 14:30"),  # no zone: read as UTC, as the format asks
    ],
)
def test_parse_instant(text, expected):
    assert f"{parse_instant(text):%Y-%m-%d %H:%M}" == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "tomorrow at noon",
        "2026-13-40 10:00 UTC",
        "2026-03-10 25:00 UTC",
        "2026-03-10 13:00 PM UTC",
        None,
        42,
    ],
)
def test_parse_instant_rejects(text):
    assert parse_instant(text) is None


# ----- enumerations ----------------------------------------------------------------------
def test_sudoku4_has_288_grids():
    # The number of 4x4 Sudoku grids is 288 (e.g. Felgenhauer & Jarvis 2006, "Mathematics of
    # Sudoku I", introduction).
    grids = sudoku4_grids()
    assert grids.shape == (288, 16)
    assert len({tuple(g) for g in grids.tolist()}) == 288


def test_permutations_are_factorial():
    assert permutations_array(5).shape == (120, 5)
    assert (np.sort(permutations_array(4), axis=1) == np.arange(4)).all()


# ----- uniqueness and union necessity at every difficulty ---------------------------------
ELIM = [t for t in CSP if isinstance(t, EliminationTask)]


@pytest.mark.parametrize("task", ELIM, ids=[t.name for t in ELIM])
@pytest.mark.parametrize("difficulty", [0, 1, 2])
def test_unique_solution_and_neither_view_alone(task, difficulty):
    for seed in range(6):
        inst = task.generate(seed, difficulty)
        assert len(task._survivors(inst)) == 1
        setup = inst.data["setup"]
        cands = task._candidates(setup)
        for side in "ab":
            alone = np.ones(len(cands), dtype=bool)
            for c in inst.data["constraints"][side]:
                alone &= task._mask(setup, cands, c)
            assert alone.sum() >= 2, f"{task.name} seed {seed}: view {side} alone is enough"


@pytest.mark.parametrize("task", CSP, ids=CSP_IDS)
def test_every_difficulty_generates_and_scores(task):
    for difficulty in (0, 2):
        inst = task.generate(11, difficulty)
        assert inst.difficulty == difficulty
        assert task.grade(inst, task.oracle(inst)) == 1.0


@pytest.mark.parametrize("task", CSP, ids=CSP_IDS)
def test_bad_arguments_raise(task):
    with pytest.raises(ValueError, match="difficulty"):
        task.generate(1, 3)
    with pytest.raises(ValueError, match="difficulty"):
        task.generate(1, True)
    with pytest.raises(TypeError, match="seed"):
        task.generate("1")
    with pytest.raises(ValueError, match="keep"):
        task.counterfactual(task.generate(1), "c", 0)


@pytest.mark.parametrize("task", CSP, ids=CSP_IDS)
def test_independent_of_machine_timezone(task):
    before = [task.render(task.generate(s)) for s in range(3)]
    old = os.environ.get("TZ")
    try:
        os.environ["TZ"] = "Pacific/Kiritimati"
        time.tzset()
        after = [task.render(task.generate(s)) for s in range(3)]
    finally:
        if old is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old
        time.tzset()
    assert before == after


@pytest.mark.parametrize("task", CSP, ids=CSP_IDS)
@settings(max_examples=10, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1))
def test_format_parse_round_trip(task, seed):
    inst = task.generate(seed)
    truth = task.oracle(inst)
    assert task.grade(inst, task.parse(task.format_answer(truth))) == 1.0


# ----- task-specific grading ----------------------------------------------------------------
def _inst(name, seed=0, difficulty=1):
    task = get_task(name)
    return task, task.generate(seed, difficulty)


def test_seating_grade_counts_guests_in_their_chair():
    task, inst = _inst("csp_seating")
    truth = task.oracle(inst)  # 5 guests
    swapped = [truth[1], truth[0]] + truth[2:]
    assert task.grade(inst, swapped) == pytest.approx(3 / 5)
    assert task.grade(inst, truth[:4]) == pytest.approx(4 / 5)  # last guest missing
    assert task.grade(inst, list(reversed(truth))) < 1.0
    assert task.parse("1. Ada, 2. Bruno -> Chiara") == ["Ada", "Bruno", "Chiara"]
    assert task.parse("I am not sure who sits where") is UNPARSED


def test_seating_door_numbering_reverses_order():
    task, inst = _inst("csp_seating", seed=3)
    a, b = task.split(inst)
    assert "numbered 1 to 5 starting at the window end" in task.render_view(a)
    assert "numbered 0 to 4 starting at the door end" in task.render_view(b)
    guests, n = inst.data["setup"]["guests"], inst.data["setup"]["n"]
    c = {"t": "seat", "g": 0, "p": 0}  # canonical: window-end chair
    assert (
        task._sentence(inst.data["setup"], inst.conventions["a"], c)
        == f"{guests[0]} sits in chair 1."
    )
    assert (
        task._sentence(inst.data["setup"], inst.conventions["b"], c)
        == f"{guests[0]} sits in chair {n - 1}."
    )


def test_sudoku_grade_is_fraction_of_cells():
    task, inst = _inst("csp_sudoku4")
    truth = task.oracle(inst)
    cells = list(truth.replace("/", ""))
    cells[0] = "1" if cells[0] != "1" else "2"
    wrong = "/".join("".join(cells[i : i + 4]) for i in range(0, 16, 4))
    assert task.grade(inst, wrong) == pytest.approx(15 / 16)
    assert task.parse("[[1,2,3,4],[3,4,1,2],[2,1,4,3],[4,3,2,1]]") == "1234/3412/2143/4321"
    assert task.parse("1234 3412 2143 432") is UNPARSED
    assert task.parse("1234/3412/2143/4325") is UNPARSED


def test_sudoku_views_use_their_frames():
    task, inst = _inst("csp_sudoku4", seed=3)
    a, b = task.split(inst)
    assert all(f.startswith("(row ") for f in a.data["facts"])
    assert all(f.startswith("(x=") for f in b.data["facts"])
    # a given at canonical cell (row 0, column 3) is (x=3, y=3) in view b's frame
    c = {"t": "given", "cell": 3, "d": 2}
    lines = task._view_lines(inst.data["setup"], inst.conventions["b"], [c])
    assert lines["facts"] == ["(x=3, y=3) = 2"]


def test_colouring_grade_is_fraction_of_constraints():
    task, inst = _inst("csp_graph_colouring")
    truth = task.oracle(inst)
    n_cons = len(inst.data["constraints"]["a"]) + len(inst.data["constraints"]["b"])
    assert task.grade(inst, {}) == 0.0
    wrong = dict(truth)
    town = next(iter(wrong))
    wrong[town] = next(c for c in ("red", "green", "blue") if c != truth[town])
    score = task.grade(inst, wrong)
    assert 0.0 <= score < 1.0
    assert score * n_cons == pytest.approx(round(score * n_cons))
    assert task.parse("Ashby = Red; Bexley: green") == {"Ashby": "red", "Bexley": "green"}
    assert task.parse("Ashby is probably red") is UNPARSED


def test_colouring_b_uses_alphabetical_indices():
    task, inst = _inst("csp_graph_colouring", seed=3)
    towns = inst.data["setup"]["towns"]
    b = task.split(inst)[1]
    assert "alphabetical order" in task.render_view(b)
    assert not any(t in task.render_view(b) for t in towns)


def test_meeting_grade_counts_rules():
    task, inst = _inst("csp_meeting_timezones")
    truth = task.oracle(inst)
    assert truth.endswith(" UTC")
    n_rules = len(inst.data["constraints"]["a"]) + len(inst.data["constraints"]["b"]) + 2
    later = task.corrupt(inst, truth)
    score = task.grade(inst, later)
    assert score < 1.0 and (score * n_rules) == pytest.approx(round(score * n_rules))
    # the same instant written with a local offset is the same answer
    t = parse_instant(truth)
    assert (
        task.grade(
            inst,
            task.parse(f"{t.astimezone(ZoneInfo('Asia/Tokyo')):%Y-%m-%d %H:%M} Asia/Tokyo"),
        )
        == 1.0
    )
    # off the half-hour grid violates the grid rule even if the calendars allow it
    off = f"{t:%Y-%m-%d} {t.hour:02d}:{(t.minute + 10) % 60:02d} UTC"
    assert task.grade(inst, off) < 1.0


def test_meeting_views_in_their_own_timezones():
    task, inst = _inst("csp_meeting_timezones", seed=3)
    a, b = task.split(inst)
    za, zb = inst.conventions["a"]["timezone"], inst.conventions["b"]["timezone"]
    assert za != zb
    assert za in task.render_view(a) and zb not in task.render_view(a)
    assert zb in task.render_view(b) and (
        "AM" in task.render_view(b) or "PM" in task.render_view(b)
    )


def test_delivery_grade_and_parse():
    task, inst = _inst("csp_delivery_windows")
    truth = task.oracle(inst)
    assert task.grade(inst, truth[1:] + truth[:1]) == 0.0  # everyone one slot off
    assert task.grade(inst, [truth[0]]) == pytest.approx(1 / len(truth))
    assert task.parse("Ada → Bruno → Chiara") == ["Ada", "Bruno", "Chiara"]


def test_room_booking_grade_and_naive_reading():
    task, inst = _inst("csp_room_booking")
    truth = task.oracle(inst)
    rooms = inst.data["setup"]["rooms"]
    wrong = dict(truth)
    first = next(iter(wrong))
    wrong[first] = next(r for r in rooms if r != truth[first])
    assert task.grade(inst, wrong) == pytest.approx((len(truth) - 1) / len(truth))
    assert task.parse("Apollo: Cedar; Borealis = Aspen") == {"Apollo": "Cedar", "Borealis": "Aspen"}
    # "1:30 PM" read on a 24-hour clock becomes 01:30
    c = {"t": "booked", "r": 0, "s": 13 * 60 + 30, "e": 15 * 60}
    assert task._misread(inst.data["setup"], inst.conventions, c)["s"] == 90


def test_room_booking_views_differ_in_clock():
    task, inst = _inst("csp_room_booking", seed=2)
    a, b = task.split(inst)
    ta, tb = task.render_view(a), task.render_view(b)
    assert "PM" not in ta and "AM" not in ta
    assert "PM" in tb or "AM" in tb


def test_roster_grade_parse_and_index_base():
    task, inst = _inst("csp_shift_roster")
    truth = task.oracle(inst)
    assert list(truth)[0] == "Day 1 early"
    text = task.format_answer(truth).replace("Day 1 early", "DAY 1 Early shift")
    assert task.grade(inst, task.parse(text)) == 1.0
    wrong = dict(truth)
    k1, k2 = "Day 1 early", "Day 1 late"
    wrong[k1], wrong[k2] = truth[k2], truth[k1]
    assert task.grade(inst, wrong) == pytest.approx((len(truth) - 2) / len(truth))
    a, b = task.split(inst)
    assert "day 0" not in task.render_view(a) and "day 0" in task.render_view(b)


def test_recipe_accepts_imperial_answers():
    task, inst = _inst("csp_recipe_units")
    truth = task.oracle(inst)
    imperial = {}
    for k, v in truth.items():
        value, unit = v.split()
        imperial[k] = imperial_text(float(value), unit)
    assert task.grade(inst, task.parse(task.format_answer(imperial))) == 1.0
    first = next(iter(truth))
    wrong = dict(truth, **{first: "999 g"})
    assert task.grade(inst, wrong) == pytest.approx((len(truth) - 1) / len(truth))
    assert task.parse("flour=250 g; sugar: 3.53 oz") == {
        "flour": "250 g",
        "sugar": "100.074 g",
    }  # 3.53 * 28.349523125 = 100.0738


def test_knapsack_grade_is_value_ratio_and_zero_if_overweight():
    task, inst = _inst("csp_knapsack_units")
    truth = task.oracle(inst)
    items = {it["name"]: it for it in inst.data["a"]["items"] + inst.data["b"]["items"]}
    best = sum(items[n]["value"] for n in truth)
    fewer = truth[:-1]
    assert task.grade(inst, fewer) == pytest.approx(sum(items[n]["value"] for n in fewer) / best)
    assert task.grade(inst, sorted(items)) == 0.0  # everything: overweight
    assert task.grade(inst, truth + ["unicorn"]) == 0.0  # not a listed item
    assert task.grade(inst, truth + truth[:1]) == 0.0  # an item twice
    assert task.parse("none") == []
    assert task.parse("tent, rope and a lamp") is UNPARSED


def test_knapsack_pounds_rendering():
    task, inst = _inst("csp_knapsack_units")
    b = task.split(inst)[1]
    first = inst.data["b"]["items"][0]
    assert f"{first['grams'] / 453.59237:.2f} lb" in b.data["facts"][0]


def test_budget_grade_and_currency():
    task, inst = _inst("csp_budget_currency")
    truth = task.oracle(inst)
    cat = next(iter(truth))
    wrong = dict(truth, **{cat: "Nothing"})
    assert task.grade(inst, wrong) == pytest.approx((len(truth) - 1) / len(truth))
    assert inst.conventions["a"]["currency"] == "EUR"
    assert inst.conventions["b"]["currency"] in {"USD", "GBP", "JPY", "SEK"}
    assert "1 EUR =" in task.render_view(task.split(inst)[0])


def test_parse_helpers():
    assert parse_pairs('{"a": "x", "b": "y"}') == [("a", "x"), ("b", "y")]
    assert parse_pairs("no pairs here") is None
    assert parse_name_list("```\n1) Ada\n2) Bruno\n```") == ["Ada", "Bruno"]
    assert parse_name_list(None) is None


# ----- invariants (Hypothesis) -------------------------------------------------------------
@pytest.mark.parametrize("task", ELIM, ids=[t.name for t in ELIM])
@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), pick=st.integers(0, 10**9))
def test_only_the_solution_scores_one(task, seed, pick):
    """Any structurally valid assignment scores in [0, 1], and 1 exactly when it is the
    unique solution (so partial credit never reaches full credit)."""
    inst = task.generate(seed)
    setup = inst.data["setup"]
    cands = task._candidates(setup)
    truth = task.oracle_vector(inst)
    for row in (cands[pick % len(cands)], truth):
        score = task.grade(inst, task._answer_of(setup, row))
        assert 0.0 <= score <= 1.0
        assert (score == 1.0) == bool(np.array_equal(row, truth))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), mask=st.integers(0, 2**8 - 1))
def test_knapsack_only_best_load_scores_one(seed, mask):
    task = get_task("csp_knapsack_units")
    inst = task.generate(seed)
    names = [it["name"] for it in inst.data["a"]["items"] + inst.data["b"]["items"]]
    load = sorted(n for i, n in enumerate(names) if mask >> i & 1)
    score = task.grade(inst, load)
    assert 0.0 <= score <= 1.0
    assert (score == 1.0) == (load == task.oracle(inst))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), picks=st.lists(st.integers(0, 2), min_size=4, max_size=4))
def test_budget_only_best_plan_scores_one(seed, picks):
    task = get_task("csp_budget_currency")
    inst = task.generate(seed)
    options = {**inst.data["a"]["options"], **inst.data["b"]["options"]}
    plan = {c: ops[p % len(ops)]["name"] for (c, ops), p in zip(options.items(), picks)}
    score = task.grade(inst, plan)
    assert 0.0 <= score <= 1.0
    assert (score == 1.0) == (plan == task.oracle(inst))


@pytest.mark.parametrize("task", CSP, ids=CSP_IDS)
def test_counterfactual_is_deterministic(task):
    inst = task.generate(5)
    for keep in "ab":
        assert task.counterfactual(inst, keep, 3) == task.counterfactual(inst, keep, 3)


@pytest.mark.parametrize("task", CSP, ids=CSP_IDS)
def test_instances_and_views_are_json(task):
    import json

    for difficulty in (0, 1, 2):
        inst = task.generate(2, difficulty)
        assert json.loads(json.dumps(inst.data)) == inst.data
        assert json.loads(json.dumps(inst.conventions)) == inst.conventions
        for view in task.split(inst):
            assert json.loads(json.dumps(view.data)) == view.data
        assert json.loads(json.dumps(task.oracle(inst))) == task.oracle(inst)
