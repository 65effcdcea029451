"""Grid worlds, coordinate frames and route grading shared by the Spatial tasks.

The frames live in :mod:`harness.grid_frames`, the routes and their grading in
:mod:`harness.grid_routes`; this module documents the world format and re-exports both.

A *world* is a JSON-serialisable dict describing a rectangular map in the canonical frame
(``(row, column)``, 0-based, row 0 at the top = north, column 0 at the left = west):

``h``, ``w``
    Map size in rows and columns.
``cells``
    ``h`` strings of ``w`` terrain characters: ``#`` wall, ``.`` open (entry cost 1), ``1``-``9``
    open with that entry cost, ``^ > v <`` one-way cell (open, cost 1, may only be *left* in the
    arrow's direction).
``items``
    Single-letter names mapped to a cell ``[r, c]``: ``S`` start, ``G`` goal, ``X`` waypoint that
    must be visited before ``G`` counts, ``K`` key, ``D`` door (passable only once ``K`` has been
    visited); a lowercase letter maps to a *pair* of cells ``[[r1, c1], [r2, c2]]``, a teleporter:
    from either pad one step (cost 1) reaches the other. Item cells are open with cost 1.

Routes are lists of cells. A route is *correct* when every step is legal (4-neighbour move or
teleporter jump, no wall, no door without the key, one-way cells left only along their arrow),
it ends in a goal state (on ``G`` with ``X`` visited, if there is one) and its cost equals the
optimum found by Dijkstra (:func:`networkx.single_source_dijkstra`).

Route answers are accepted in any of the sixteen conventions of :func:`sixteen` (4 origin corners x 2 axis
orders x 2 index bases); :func:`grade_route` scores the answer under each and keeps the best.

Partial credit (:func:`score_route`), with ``D`` the optimal cost from the start:

- a legal route that ends in a goal state scores ``D / cost`` (1.0 exactly when optimal);
- otherwise the legal prefix (up to the first illegal step) is credited for how far along a
  valid route it got, discounted by the detour it took to get there:
  ``(D - d_min) / (D + 1) * (D - d_min) / c_min``, where ``d_min`` is the smallest remaining
  optimal cost-to-goal over the states the prefix visited and ``c_min`` the cost the prefix had
  spent when it first reached such a state. The second factor is 1 along an optimal route, so a
  prefix of an optimal route scores ``(D - d_min) / (D + 1)``. This is 0 for a route that never
  gets closer than the start, strictly below 1 for any route that is not complete, and strictly
  below ``D / (c_min + d_min)``, the score of the same prefix completed optimally: finishing a
  route always pays (a route that reaches ``G`` and then steps off scores less than the same
  route stopped on ``G``);
- ``None``, :data:`~harness.base.UNPARSED` or an empty route scores 0.

Routes may omit the start cell (it is prepended when the first cell is not the start).

Examples
--------
>>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
>>> shortest_route(world)
[[1, 0], [0, 0], [0, 1], [0, 2], [1, 2]]
>>> grade_route(world, [[1, 0], [0, 0], [0, 1], [0, 2], [1, 2]])
1.0
>>> grade_route(world, [(1, 1), (1, 2), (2, 2), (3, 2), (3, 1)])  # (col, row), 1-based, bottom-left
1.0
>>> grade_route(world, [[1, 0], [0, 0], [0, 1]])  # stops 2 steps short of D = 4
0.4
"""

from __future__ import annotations

from harness.grid_frames import (
    ARROWS,
    DIRS,
    ORDERS,
    ORIGINS,
    Cell,
    Frame,
    canonical,
    sixteen,
)
from harness.grid_routes import (
    RouteGraph,
    grade_route,
    in_bounds,
    parse_route,
    route_graph,
    score_route,
    shortest_route,
)

__all__ = [
    "ARROWS", "DIRS", "ORDERS", "ORIGINS", "Cell", "Frame", "RouteGraph", "canonical",
    "grade_route", "in_bounds", "parse_route", "route_graph", "score_route", "shortest_route",
    "sixteen",
]
