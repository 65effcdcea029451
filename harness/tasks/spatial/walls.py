"""Spatial tasks whose friction is the wall layout itself: maze halves, split obstacles."""

from __future__ import annotations

import random
from typing import Any

from harness.registry import register
from harness.tasks.spatial.common import (
    DENSITY,
    SIZES,
    GridTask,
    carve_maze,
    owner_grid,
    place,
    wall_grid,
)

MAZE_SIZES = {0: 7, 1: 9, 2: 11}


@register
class MazeHalves(GridTask):
    """A braided maze cut down the middle: agent a holds the western half (and S), agent b the
    eastern half (and G); each writes coordinates in a different one of the sixteen frames."""

    name = "spatial_maze_halves"
    description = "Maze cut in two: a holds the west half with S, b the east half with G."

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        n = MAZE_SIZES[difficulty]
        world: dict[str, Any]
        world = {"h": n, "w": n, "cells": carve_maze(rng, n, braid=0.15),
                 "owner": owner_grid(n, n, "cols"), "items": {}}
        return place(rng, world, {"S": "a", "G": "b"})


@register
class ObstaclesSplit(GridTask):
    """An open field whose cells are dealt at random to the two agents: each knows the
    obstacles on its own cells only. S lies on one of a's cells, G on one of b's."""

    name = "spatial_obstacles_split"
    description = "Obstacle field dealt cell by cell at random between the two agents."

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w = SIZES[difficulty]
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": wall_grid(rng, h, w, DENSITY[difficulty] + 0.05),
                 "owner": owner_grid(h, w, "random", rng), "items": {}}
        return place(rng, world, {"S": "a", "G": "b"})
