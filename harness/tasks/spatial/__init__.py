"""The Spatial family of the collaboration-tax suite: grid worlds split into two views.

:mod:`~harness.tasks.spatial.grid` holds the grid worlds (their format, the coordinate frames
of the sixteen answer conventions, the state graph and route grading) and knows nothing of
tasks; :mod:`~harness.tasks.spatial.common` holds the family base :class:`GridTask` (with its
hooks, the world-building helpers and the map's text) on top of it; the other modules each hold
tasks (``walls``, ``rules``, ``frames``), registered by name on import. The names below are
imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.tasks.spatial.common import (
        DENSITY,
        LEGEND,
        SIZES,
        GridHooks,
        GridTask,
        carve_maze,
        draw_map,
        drop_off_map_items,
        egocentric,
        free_cell,
        item_cells,
        legend_text,
        merge_worlds,
        owner_grid,
        paste_views,
        place,
        read_map,
        set_cell,
        wall_grid,
    )
    from harness.tasks.spatial.frames import (
        LANDMARKS,
        Landmarks,
        LocalView,
        RotatedView,
        TileStitch,
    )
    from harness.tasks.spatial.grid import (
        ARROWS,
        DIRS,
        ORDERS,
        ORIGINS,
        Cell,
        Frame,
        RouteGraph,
        canonical,
        grade_route,
        in_bounds,
        parse_route,
        route_graph,
        score_route,
        shortest_route,
        sixteen,
    )
    from harness.tasks.spatial.rules import (
        KeyDoor,
        OneWay,
        Teleporters,
        TwoGoals,
        WeightedTerrain,
    )
    from harness.tasks.spatial.walls import (
        MAZE_SIZES,
        MazeHalves,
        ObstaclesSplit,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "ARROWS": "grid",
    "Cell": "grid",
    "DENSITY": "common",
    "DIRS": "grid",
    "Frame": "grid",
    "GridHooks": "common",
    "GridTask": "common",
    "KeyDoor": "rules",
    "LANDMARKS": "frames",
    "LEGEND": "common",
    "Landmarks": "frames",
    "LocalView": "frames",
    "MAZE_SIZES": "walls",
    "MazeHalves": "walls",
    "ORDERS": "grid",
    "ORIGINS": "grid",
    "ObstaclesSplit": "walls",
    "OneWay": "rules",
    "RotatedView": "frames",
    "RouteGraph": "grid",
    "SIZES": "common",
    "Teleporters": "rules",
    "TileStitch": "frames",
    "TwoGoals": "rules",
    "WeightedTerrain": "rules",
    "canonical": "grid",
    "carve_maze": "common",
    "draw_map": "common",
    "drop_off_map_items": "common",
    "egocentric": "common",
    "free_cell": "common",
    "grade_route": "grid",
    "in_bounds": "grid",
    "item_cells": "common",
    "legend_text": "common",
    "merge_worlds": "common",
    "owner_grid": "common",
    "parse_route": "grid",
    "paste_views": "common",
    "place": "common",
    "read_map": "common",
    "route_graph": "grid",
    "score_route": "grid",
    "set_cell": "common",
    "shortest_route": "grid",
    "sixteen": "grid",
    "wall_grid": "common",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
