"""Grid worlds of the Spatial tasks: the world format, coordinate frames and route grading.

A world is a JSON-serialisable dict (map size, terrain ``cells``, ``items`` such as start,
goal, key, door and teleporter pads; the format is documented in
:mod:`~harness.tasks.spatial.grid.routes`, which also holds the state graph, the optimal route,
:func:`grade_route` with its partial credit and :func:`parse_route`);
:mod:`~harness.tasks.spatial.grid.frames` holds :class:`Frame`, how one agent writes cells and
draws its map, and :func:`sixteen`, the answer conventions the grader accepts. This package
knows nothing of tasks or agents' views: :mod:`harness.tasks.spatial.common` builds the Spatial
family on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.tasks.spatial.grid.frames import (
        ARROWS,
        DIRS,
        ORDERS,
        ORIGINS,
        Cell,
        Frame,
        canonical,
        sixteen,
    )
    from harness.tasks.spatial.grid.routes import (
        RouteGraph,
        grade_route,
        in_bounds,
        parse_route,
        route_graph,
        score_route,
        shortest_route,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "ARROWS": "frames",
    "Cell": "frames",
    "DIRS": "frames",
    "Frame": "frames",
    "ORDERS": "frames",
    "ORIGINS": "frames",
    "RouteGraph": "routes",
    "canonical": "frames",
    "grade_route": "routes",
    "in_bounds": "routes",
    "parse_route": "routes",
    "route_graph": "routes",
    "score_route": "routes",
    "shortest_route": "routes",
    "sixteen": "frames",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
