"""Spatial specifics: the sixteen answer conventions, frames, movement rules, partial credit.

The partial-credit values are worked by hand from the rule documented in
:mod:`harness.tasks.spatial.grid` (complete legal route: D / cost; otherwise
(D - d_min) / (D + 1) * (D - d_min) / c_min, the second factor 1 along an optimal route).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.base import UNPARSED, Instance
from harness.manifest import TASKS_BY_FAMILY
from harness.registry import get_task, list_tasks
from harness.tasks.spatial.common import GridTask
from harness.tasks.spatial.common.text import read_map
from harness.tasks.spatial.common.worlds import (
    drop_off_map_items,
    item_cells,
    merge_worlds,
    owner_grid,
    paste_views,
    place,
    wall_grid,
)
from harness.tasks.spatial.grid import (
    Frame,
    RouteGraph,
    grade_route,
    parse_route,
    score_route,
    shortest_route,
    sixteen,
)

SPATIAL = list_tasks("spatial")
IDS = [t.name for t in SPATIAL]
COMMON = dict(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

# A 3 x 5 room: S at (1, 0), G at (1, 4), a wall at (1, 2): the shortest route is 6 steps
# around the wall (D = 6).
ROOM = {"h": 3, "w": 5, "cells": [".....", "..#..", "....."],
        "items": {"S": [1, 0], "G": [1, 4]}}
BEST = [[1, 0], [1, 1], [0, 1], [0, 2], [0, 3], [1, 3], [1, 4]]


def test_family_is_the_manifests():
    # the count lives in harness/manifest.py only (test_manifest.py checks the whole suite)
    assert [t.name for t in SPATIAL] == list(TASKS_BY_FAMILY["spatial"])
    assert all(isinstance(t, GridTask) for t in SPATIAL)


def test_shortest_route_and_full_credit():
    assert len(shortest_route(ROOM)) == 7
    assert grade_route(ROOM, BEST) == 1.0
    assert grade_route(ROOM, BEST[1:]) == 1.0  # start cell may be omitted


@pytest.mark.parametrize("frame", sixteen(3, 5), ids=lambda f: f"{f.origin}/{f.order}/{f.base}")
def test_correct_route_in_each_of_sixteen_conventions_scores_one(frame: Frame):
    written = [list(frame.to_view(r, c)) for r, c in BEST]
    assert grade_route(ROOM, written) == 1.0


@pytest.mark.parametrize("frame", sixteen(3, 5), ids=lambda f: f"{f.origin}/{f.order}/{f.base}")
def test_wrong_route_in_each_of_sixteen_conventions_scores_below_one(frame: Frame):
    through_wall = [[1, 0], [1, 1], [1, 2], [1, 3], [1, 4]]
    written = [list(frame.to_view(r, c)) for r, c in through_wall]
    # legal prefix (1,0)->(1,1) gets one step closer: remaining 5 of D = 6 -> (6 - 5) / 7
    assert grade_route(ROOM, written) == pytest.approx(1 / 7)


def test_sixteen_frames_are_distinct_maps():
    images = {tuple(f.to_view(r, c) for r in range(3) for c in range(5)) for f in sixteen(3, 5)}
    assert len(images) == 16


def test_partial_credit_values():
    # stops after 3 steps of 6: remaining optimal cost 3 -> (6 - 3) / (6 + 1)
    assert grade_route(ROOM, BEST[:4]) == pytest.approx(3 / 7)
    # complete but with a detour of 2 extra steps: D / cost = 6 / 8
    detour = [[1, 0], [0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [1, 4]]
    assert grade_route(ROOM, detour) == 1.0  # also 6 steps: another shortest route
    longer = [[1, 0], [2, 0], [2, 1], [1, 1], [0, 1], [0, 2], [0, 3], [1, 3], [1, 4]]
    assert grade_route(ROOM, longer) == pytest.approx(6 / 8)
    # a route that never moves closer, or starts elsewhere, earns nothing
    assert grade_route(ROOM, [[1, 0]]) == 0.0
    assert canon_score(ROOM, [[2, 4], [1, 4]]) == 0.0
    # walking past the goal is not an answer: best progress 6 of 6 -> 6 / 7 < 1
    assert grade_route(ROOM, BEST + [[2, 4]]) == pytest.approx(6 / 7)
    # the long route walked past the goal: G first reached at cost 8, so
    # 6 / 7 * 6 / 8 = 9 / 14, below the 6 / 8 it earns when it stops on G
    assert grade_route(ROOM, longer + [[2, 4]]) == pytest.approx(9 / 14)
    assert grade_route(ROOM, longer + [[2, 4]]) < grade_route(ROOM, longer)
    # a detour that then stops short: best state (0, 2) (remaining 3) first reached at cost 5
    # instead of 3: 3 / 7 * 3 / 5 = 9 / 35
    wander = [[1, 0], [2, 0], [2, 1], [1, 1], [0, 1], [0, 2]]
    assert canon_score(ROOM, wander) == pytest.approx(9 / 35)
    for bad in (None, UNPARSED, [], "[[1, 0]]", [[1, 0, 2]], [[True, 0]]):
        assert grade_route(ROOM, bad) == 0.0


def canon_score(world, route):
    """Score in the canonical frame only (grade_route also tries the other 15 frames, which
    on tiny symmetric maps can read a wrong route as a better partial one)."""
    rg = RouteGraph(world)
    return score_route(rg, [tuple(c) for c in route], rg.shortest()[0])


def test_movement_rules():
    door = {"h": 1, "w": 5, "cells": ["....."],
            "items": {"S": [0, 1], "K": [0, 0], "D": [0, 2], "G": [0, 4]}}
    # the key is behind the start: the only correct route fetches it first (cost 5)
    assert shortest_route(door) == [[0, 1], [0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]
    assert grade_route(door, [[0, 1], [0, 2], [0, 3], [0, 4]]) == 0.0  # locked door
    tele = {"h": 1, "w": 5, "cells": ["..#.."],
            "items": {"S": [0, 0], "G": [0, 4], "a": [[0, 1], [0, 3]]}}
    assert shortest_route(tele) == [[0, 0], [0, 1], [0, 3], [0, 4]]
    oneway = {"h": 2, "w": 3, "cells": ["...", ".<."], "items": {"S": [1, 0], "G": [1, 2]}}
    # (1, 1) may only be left westwards, so the route must go over row 0
    assert shortest_route(oneway) == [[1, 0], [0, 0], [0, 1], [0, 2], [1, 2]]
    # entering (1, 1) is legal but leaving it eastwards is not; from (1, 1) the goal is 5 away
    # (worse than the start's 4), so the legal prefix earns (4 - 4) / 5 = 0
    assert canon_score(oneway, [[1, 0], [1, 1], [1, 2]]) == 0.0
    # read with the origin at the bottom-left, the same numbers are a legal walk along row 0
    # that stops one step short: (4 - 1) / 5
    assert grade_route(oneway, [[1, 0], [1, 1], [1, 2]]) == pytest.approx(3 / 5)
    weighted = {"h": 2, "w": 3, "cells": [".9.", "..."], "items": {"S": [0, 0], "G": [0, 2]}}
    assert shortest_route(weighted) == [[0, 0], [1, 0], [1, 1], [1, 2], [0, 2]]
    # straight across is complete and legal but costs 9 + 1 = 10 against the optimum 4
    assert canon_score(weighted, [[0, 0], [0, 1], [0, 2]]) == pytest.approx(4 / 10)
    way = {"h": 1, "w": 4, "cells": ["...."], "items": {"S": [0, 1], "X": [0, 3], "G": [0, 0]}}
    assert shortest_route(way) == [[0, 1], [0, 2], [0, 3], [0, 2], [0, 1], [0, 0]]


@settings(max_examples=60, **COMMON)
@given(
    frame=st.builds(Frame, origin=st.sampled_from(("top-left", "top-right", "bottom-left",
                                                   "bottom-right")),
                    order=st.sampled_from(("row-col", "col-row")), base=st.integers(0, 1),
                    th=st.integers(1, 9), tw=st.integers(1, 9), rot=st.integers(0, 3),
                    r0=st.integers(-3, 3), c0=st.integers(-3, 3), p0=st.integers(-5, 5),
                    q0=st.integers(-5, 5)),
    r=st.integers(-10, 10), c=st.integers(-10, 10),
)
def test_frame_round_trip(frame: Frame, r: int, c: int):
    assert frame.to_canon(*frame.to_view(r, c)) == (r, c)


def test_rotation_turns_arrows_and_north():
    fr = Frame(th=2, tw=3, rot=1)
    assert fr.dims == (3, 2) and fr.north_side() == "right"
    assert fr.arrow(0) == ">"  # north is drawn pointing right after a clockwise quarter turn
    assert fr.canon_to_draw(0, 0) == (0, 1)


def test_parse_route():
    assert parse_route("[[0, 0], [0,1], (1, 1)]") == [[0, 0], [0, 1], [1, 1]]
    assert parse_route("(0, 0) -> (0, 1) \u2192 (1, 1)") == [[0, 0], [0, 1], [1, 1]]
    # a route must be read completely: words between the cells leave it unparsed
    assert parse_route("FINAL ANSWER: [[0, 0], [0,1], (1, 1)]") is None
    assert parse_route("[[0, 0], [0, 1]] and then [1, 1]") is None
    assert parse_route("row 3 col 4") is None
    assert get_task("spatial_maze_halves").parse("no idea") is UNPARSED


@pytest.mark.parametrize("task", SPATIAL, ids=IDS)
@pytest.mark.parametrize("difficulty", [0, 2])
def test_other_difficulties_are_solvable(task, difficulty):
    for seed in range(3):
        inst = task.generate(seed, difficulty)
        assert task.grade(inst, task.oracle(inst)) == 1.0
        assert task.grade(inst, task.solve_text(task.render(inst))) == 1.0


@pytest.mark.parametrize("task", SPATIAL, ids=IDS)
@settings(max_examples=5, **COMMON)
@given(seed=st.integers(0, 2**31 - 1))
def test_oracle_accepted_in_both_agents_frames(task, seed):
    """Full credit for the oracle route written in any of the sixteen frames."""
    inst = task.generate(seed)
    world = inst.data["world"]
    route = task.oracle(inst)
    for frame in sixteen(world["h"], world["w"]):
        assert task.grade(inst, [list(frame.to_view(r, c)) for r, c in route]) == 1.0
    truncated = route[:-1]
    for frame in sixteen(world["h"], world["w"]):
        assert task.grade(inst, [list(frame.to_view(r, c)) for r, c in truncated]) < 1.0


def test_views_hold_complementary_cells():
    task = get_task("spatial_maze_halves")
    inst = task.generate(11)
    a, b = task.split(inst)
    n = inst.data["world"]["h"] * inst.data["world"]["w"]
    assert len(a.data["cells"]) + len(b.data["cells"]) == n
    assert "S" in a.data["items"] and "G" in b.data["items"]
    assert "?" in task.render_view(a) and "YOUR MAP" in task.render_view(b)


def test_bad_arguments_raise():
    task = get_task("spatial_one_way")
    with pytest.raises(ValueError, match="difficulty"):
        task.generate(0, 7)
    with pytest.raises(ValueError, match="keep"):
        task.counterfactual(task.generate(0), "c", 1)
    with pytest.raises(TypeError, match="seed"):
        task.generate("7")
    with pytest.raises(ValueError, match="difficulty"):
        task.generate(0, True)
    import numpy as np

    assert task.generate(np.int64(5)) == task.generate(5)


@settings(max_examples=60, **COMMON)
@given(task=st.sampled_from(IDS), seed=st.integers(0, 10_000),
       moves=st.lists(st.integers(0, 7), min_size=1, max_size=40))
def test_finishing_a_route_always_pays(task, seed, moves):
    """A legal but unfinished walk scores strictly below the same walk cut at its closest
    approach and completed optimally (score D / (c_min + d_min)), and strictly below 1:
    stopping short or walking past the goal never beats finishing."""
    world = get_task(task).generate(seed).data["world"]
    rg = RouteGraph(world)
    optimum = rg.shortest()[0]
    to_goal = rg.to_goal()
    state = rg.start
    walk = [(state[0], state[1])]
    best, spent, spent_at_best = to_goal.get(state, optimum), 0, 0
    for m in moves:
        options = rg._moves(state)
        if not options:
            break
        state, cost = options[m % len(options)]
        spent += cost
        walk.append((state[0], state[1]))
        if to_goal.get(state, float("inf")) < best:
            best, spent_at_best = to_goal[state], spent
    score = score_route(rg, walk, optimum)
    assert 0.0 <= score <= 1.0
    complete = to_goal.get(state) == 0 and (state[0], state[1]) == rg.goal
    if not complete and best < optimum:
        assert score < 1.0
        assert score < optimum / (spent_at_best + best)


# ----- world helpers moved out of GridTask: merge, paste, drawing and reading back -------
_WORLD_SEEDS = st.integers(min_value=0, max_value=10**6)


def _world(seed: int, kind: str, size: tuple[int, int] | None = None) -> dict:
    rng = random.Random(seed)
    h, w = size or (rng.randint(2, 6), rng.randint(2, 6))
    world = {"h": h, "w": w, "cells": wall_grid(rng, h, w, 0.3),
             "owner": owner_grid(h, w, kind, rng), "items": {}}
    return place(rng, world, {"S": "a", "G": "b"})


@settings(max_examples=40, **COMMON)
@given(seed=_WORLD_SEEDS, other=_WORLD_SEEDS, keep=st.sampled_from("ab"),
       kind=st.sampled_from(["cols", "rows", "random"]))
def test_merge_worlds_takes_the_kept_agents_cells_from_the_original(seed, other, keep, kind):
    orig = _world(seed, kind)
    fresh = _world(other, kind, (orig["h"], orig["w"]))
    fresh = {**fresh, "cells": [("." * orig["w"]) for _ in range(orig["h"])]}
    merged = merge_worlds(orig, fresh, keep)
    for r in range(orig["h"]):
        for c in range(orig["w"]):
            mine = orig["owner"][r][c] in (keep, "*")
            want = orig["cells"][r][c] if mine else "."
            assert merged["cells"][r][c] == want
    kept = {(n, cell) for n, cell in item_cells(orig["items"])
            if orig["owner"][cell[0]][cell[1]] in (keep, "*")}
    assert kept <= set(item_cells(merged["items"]))
    assert merged["owner"] == orig["owner"]


@settings(max_examples=40, **COMMON)
@given(seed=_WORLD_SEEDS, kind=st.sampled_from(["cols", "rows", "random"]))
def test_read_map_reads_back_what_render_draws(seed, kind):
    world = _world(seed, kind)
    task = get_task("spatial_obstacles_split")
    inst = Instance(task.name, 0, 1, {"world": world, "frames": {}}, {})
    back = read_map(task.render(inst))
    cells = ["".join("." if (r, c) in {tuple(p) for p in world["items"].values()} else ch
                     for c, ch in enumerate(row)) for r, row in enumerate(world["cells"])]
    assert back == {"h": world["h"], "w": world["w"], "cells": cells, "items": world["items"]}


def test_pasting_views_in_view_a_frame_misplaces_view_b():
    # spatial_obstacles_split, seed 0, difficulty 0: the docstring example of naive_answer
    task = get_task("spatial_obstacles_split")
    inst = task.generate(0, difficulty=0)
    va, vb = task.split(inst)
    world = drop_off_map_items(paste_views(va, vb, 6, 6))
    assert world["items"]["S"] == inst.data["world"]["items"]["S"]  # a's own item: right
    assert world["items"]["G"] != inst.data["world"]["items"]["G"]  # b's, misread: wrong
    assert shortest_route(world) == task.naive_answer(inst)
