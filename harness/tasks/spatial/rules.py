"""Spatial tasks with movement rules: key and door, waypoint order, one-way streets,
teleporters, weighted terrain."""

from __future__ import annotations

import random
from typing import Any

from harness.registry import register
from harness.tasks.spatial.common import (
    DENSITY,
    SIZES,
    GridTask,
    free_cell,
    owner_grid,
    place,
    set_cell,
    wall_grid,
)
from harness.tasks.spatial.grid import ARROWS


def _walled_halves(rng: random.Random, difficulty: int) -> tuple[int, int, int, list[str]]:
    """(h, w, mid, cells): a wall grid a little sparser than usual, with a solid north-south
    wall down column ``mid = w // 2``."""
    h, w = SIZES[difficulty]
    mid = w // 2
    cells = wall_grid(rng, h, w, DENSITY[difficulty] - 0.05)
    for r in range(h):
        set_cell(cells, r, mid, "#")
    return h, w, mid, cells


@register
class KeyDoor(GridTask):
    """A wall runs north-south through the middle with one door D. Agent a holds the northern
    half (S, D); agent b the southern half (the key K west of the wall, G east of it)."""

    name = "spatial_key_door"
    description = "Locked door in a dividing wall: a knows S and the door, b knows the key and G."
    objective = (
        "Find a shortest route from S to G. The door D is locked until the route has visited "
        "the key K."
    )

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w, mid, cells = _walled_halves(rng, difficulty)
        door = rng.randrange(0, h // 2)
        set_cell(cells, door, mid, ".")
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": cells, "owner": owner_grid(h, w, "rows"),
                 "items": {"D": [door, mid]}}
        west, east = (lambda r, c: c < mid), (lambda r, c: c > mid)
        return place(rng, world, {"S": "a", "K": "b", "G": "b"},
                     {"S": west, "K": west, "G": east})

    def _extra_valid(self, world, rg) -> bool:
        return "K" in world["items"]


@register
class TwoGoals(GridTask):
    """Visit a waypoint before the goal: agent a holds the west half (S and G), agent b the
    east half with the waypoint X, so the route crosses the cut twice."""

    name = "spatial_two_goals"
    description = "Two goals in order: reach b's waypoint X, then a's goal G."
    objective = "Find a shortest route from S that visits X and then ends on G."

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w = SIZES[difficulty]
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": wall_grid(rng, h, w, DENSITY[difficulty]),
                 "owner": owner_grid(h, w, "cols"), "items": {}}
        return place(rng, world, {"S": "a", "G": "a", "X": "b"})

    def _extra_valid(self, world, rg) -> bool:
        return "X" in world["items"]


@register
class OneWay(GridTask):
    """Streets with one-way cells (arrows); a holds the west half and S, b the east half and G.
    In each agent's drawing an arrow points the way it is drawn on that agent's map."""

    name = "spatial_one_way"
    description = "One-way streets: arrow cells may only be left in the arrow's direction."
    objective = (
        "Find a shortest route from S to G. An arrow cell may be entered from any side but only "
        "left in the direction of its arrow."
    )

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w = SIZES[difficulty]
        cells = [
            "".join(rng.choice(ARROWS) if ch == "." and rng.random() < 0.3 else ch for ch in row)
            for row in wall_grid(rng, h, w, DENSITY[difficulty] - 0.05)
        ]
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": cells, "owner": owner_grid(h, w, "cols"), "items": {}}
        return place(rng, world, {"S": "a", "G": "b"})

    def _extra_valid(self, world, rg) -> bool:
        return any(ch in ARROWS for row in world["cells"] for ch in row)


@register
class Teleporters(GridTask):
    """A solid north-south wall separates a's west half (S) from b's east half (G); only
    teleporter pads cross it. Each agent sees the pads on its own side, labelled by letter."""

    name = "spatial_teleporters"
    description = "Teleporter pairs across a solid wall: each agent knows the pads on its side."
    objective = (
        "Find a shortest route from S to G. Stepping from a teleporter pad to the other pad with "
        "the same letter is a single step."
    )

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w, mid, cells = _walled_halves(rng, difficulty)
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": cells, "owner": owner_grid(h, w, "cols"), "items": {}}
        west, east = (lambda r, c: c < mid), (lambda r, c: c > mid)
        letters = "abc"[: 2 + (difficulty > 0)]
        taken: set = set()
        for letter in letters:
            one = free_cell(rng, world, "a", taken, west)
            two = free_cell(rng, world, "b", taken, east)
            if one and two:
                world["items"][letter] = [one, two]
        return place(rng, world, {"S": "a", "G": "b"}, {"S": west, "G": east})

    def _extra_valid(self, world, rg) -> bool:
        return sum(name.islower() for name in world["items"]) >= 2


@register
class WeightedTerrain(GridTask):
    """Every open cell has an entry cost 1-9; a holds the northern half (S), b the southern
    half (G). The answer is a cheapest route; a longer but cheaper route beats a short one."""

    name = "spatial_weighted_terrain"
    description = "Weighted terrain: cheapest route over cells costing 1-9 to enter."
    objective = (
        "Find a cheapest route from S to G: entering a cell costs its digit (S, G and '.' cost 1)."
    )

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w = SIZES[difficulty]
        cells = [
            "".join(ch if ch == "#" else rng.choice("1112223456789") for ch in row)
            for row in wall_grid(rng, h, w, DENSITY[difficulty] - 0.1)
        ]
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": cells, "owner": owner_grid(h, w, "rows"), "items": {}}
        place(rng, world, {"S": "a", "G": "b"})
        for r, c in world["items"].values():
            set_cell(world["cells"], r, c, ".")
        return world
