"""Routes on a grid world: the world format, the state graph, the optimal route, grading.

:class:`RouteGraph` is the weighted state graph of a world (networkx Dijkstra gives the
optimum); :func:`grade_route` scores a route answer in all sixteen conventions of
:func:`~harness.tasks.spatial.grid.frames.sixteen` with the partial credit described below;
:func:`parse_route` reads a route from text. :mod:`harness.tasks.spatial.grid` re-exports
every name.

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

Route answers are accepted in any of the sixteen conventions (4 origin corners x 2 axis orders
x 2 index bases); :func:`grade_route` scores the answer under each and keeps the best.

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

import json
import re
from functools import lru_cache
from typing import Any

import networkx as nx

from harness.tasks.spatial.grid.frames import ARROWS, DIRS, Cell, sixteen


def in_bounds(world: dict, r: int, c: int) -> bool:
    """True when canonical ``(r, c)`` lies on the ``world["h"]`` x ``world["w"]`` map.

    Parameters
    ----------
    world : dict
        A world (see the module docstring); only ``h`` and ``w`` are read.
    r, c : int

    Returns
    -------
    bool

    Examples
    --------
    >>> from harness.tasks.spatial.grid.routes import in_bounds
    >>> in_bounds({"h": 2, "w": 3}, 1, 2), in_bounds({"h": 2, "w": 3}, 2, 0)
    (True, False)
    """
    return 0 <= r < world["h"] and 0 <= c < world["w"]


class RouteGraph:
    """Weighted state graph of a world, built with networkx.

    A state is ``(r, c, key, way)``: the cell, whether the key was visited and whether the
    waypoint was visited (flags are fixed to 1 when the world has no key / no waypoint).

    Parameters
    ----------
    world : dict
        A world (see the module docstring) with at least ``S`` and ``G`` items.

    Attributes
    ----------
    start : tuple
        Start state ``(r, c, key, way)``.
    goal : (int, int)
        Goal cell.
    graph : networkx.DiGraph
        States reachable from the start, edges weighted by entry cost, goal states linked to
        :attr:`SINK` at cost 0.

    Raises
    ------
    KeyError
        If ``S`` or ``G`` is missing.

    Examples
    --------
    A key-and-door corridor: the route must fetch the key west of the start first.

    >>> from harness.tasks.spatial.grid.routes import RouteGraph
    >>> rg = RouteGraph({"h": 1, "w": 4, "cells": ["...."],
    ...                  "items": {"S": [0, 1], "K": [0, 0], "D": [0, 2], "G": [0, 3]}})
    >>> rg.start
    (0, 1, 0, 1)
    >>> rg.shortest()
    (4, [(0, 1), (0, 0), (0, 1), (0, 2), (0, 3)])
    """

    SINK = ("sink",)

    def __init__(self, world: dict) -> None:
        self.world = world
        items = world["items"]
        self.cells = world["cells"]
        self.item_at: dict[Cell, str] = {}
        self.partner: dict[Cell, Cell] = {}
        for name, pos in items.items():
            if name.islower():
                a, b = (tuple(pos[0]), tuple(pos[1]))
                self.partner[a], self.partner[b] = b, a
            else:
                self.item_at[tuple(pos)] = name
        self.start = (*items["S"], 0 if "K" in items else 1, 0 if "X" in items else 1)
        self.goal = tuple(items["G"])
        seen = {self.start}
        stack = [self.start]
        edges = []
        while stack:
            state = stack.pop()
            if (state[0], state[1]) == self.goal and state[3]:
                edges.append((state, self.SINK, 0))
            for nxt, cost in self._moves(state):
                edges.append((state, nxt, cost))
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        self.graph = nx.DiGraph()
        self.graph.add_node(self.start)
        self.graph.add_weighted_edges_from(edges)
        self._to_goal: dict | None = None
        self._best: tuple | None = None

    def _enter(self, state: tuple, r: int, c: int) -> tuple | None:
        if not in_bounds(self.world, r, c):
            return None
        ch = self.cells[r][c]
        if ch == "#":
            return None
        name = self.item_at.get((r, c))
        key, way = state[2], state[3]
        if name == "D" and not key:
            return None
        if name == "K":
            key = 1
        if name == "X":
            way = 1
        return (r, c, key, way)

    def _moves(self, state: tuple) -> list[tuple[tuple, int]]:
        r, c = state[0], state[1]
        ch = self.cells[r][c]
        dirs = [ARROWS.index(ch)] if ch in ARROWS else range(4)
        out = []
        for d in dirs:
            dr, dc = DIRS[d]
            nxt = self._enter(state, r + dr, c + dc)
            if nxt is not None:
                ch = self.cells[nxt[0]][nxt[1]]
                out.append((nxt, int(ch) if ch.isdigit() else 1))
        if (r, c) in self.partner:
            nxt = self._enter(state, *self.partner[(r, c)])
            if nxt is not None:
                out.append((nxt, 1))
        return out

    def step(self, state: tuple, cell: Cell) -> tuple[tuple, int] | None:
        """The state and cost reached by moving from ``state`` to ``cell``; None if illegal.

        Parameters
        ----------
        state : tuple
            ``(r, c, key, way)``.
        cell : (int, int)
            Target cell: a 4-neighbour or the partner teleporter pad.

        Returns
        -------
        (tuple, int) or None
            The next state and the entry cost of ``cell``.

        Examples
        --------
        >>> from harness.tasks.spatial.grid.routes import RouteGraph
        >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
        >>> rg = RouteGraph(world)
        >>> rg.step(rg.start, (0, 0)), rg.step(rg.start, (1, 1))
        (((0, 0, 1, 1), 1), None)
        """
        for nxt, cost in self._moves(state):
            if (nxt[0], nxt[1]) == tuple(cell):
                return nxt, cost
        return None

    def shortest(self) -> tuple[float, list[Cell]] | None:
        """Optimal cost and route (list of cells) from the start; None if unreachable.

        Returns
        -------
        (float, list of (int, int)) or None
            Cost (sum of entry costs, the start excluded) and the cells, start first. Memoised.

        Examples
        --------
        >>> from harness.tasks.spatial.grid.routes import RouteGraph
        >>> RouteGraph({"h": 1, "w": 3, "cells": ["..3"],
        ...             "items": {"S": [0, 0], "G": [0, 2]}}).shortest()
        (4, [(0, 0), (0, 1), (0, 2)])
        >>> print(RouteGraph({"h": 1, "w": 3, "cells": [".#."],
        ...                   "items": {"S": [0, 0], "G": [0, 2]}}).shortest())
        None
        """
        if self.SINK not in self.graph:
            return None
        if self._best is None:
            cost, path = nx.single_source_dijkstra(self.graph, self.start, self.SINK)
            self._best = (cost, [(s[0], s[1]) for s in path[:-1]])
        return self._best

    def to_goal(self) -> dict:
        """Optimal remaining cost from every state that can still reach the goal.

        Returns
        -------
        dict
            ``{state: cost}``, including :attr:`SINK` at 0; empty when the goal is unreachable.
            Memoised.

        Examples
        --------
        >>> from harness.tasks.spatial.grid.routes import RouteGraph
        >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
        >>> rg = RouteGraph(world)
        >>> remaining = rg.to_goal()
        >>> remaining[rg.start], remaining[(0, 1, 1, 1)], remaining[(1, 2, 1, 1)]
        (4, 2, 0)
        """
        if self._to_goal is None:
            if self.SINK not in self.graph:
                self._to_goal = {}
            else:
                self._to_goal = nx.single_source_dijkstra_path_length(
                    self.graph.reverse(copy=False), self.SINK
                )
        return self._to_goal

    def hops(self) -> int | None:
        """Fewest steps (ignoring costs) from the start to a goal state; None if unreachable.

        Returns
        -------
        int or None

        Examples
        --------
        >>> from harness.tasks.spatial.grid.routes import RouteGraph
        >>> RouteGraph({"h": 1, "w": 3, "cells": ["..3"],
        ...             "items": {"S": [0, 0], "G": [0, 2]}}).hops()
        2
        """
        if self.SINK not in self.graph:
            return None
        return nx.shortest_path_length(self.graph, self.start, self.SINK) - 1


@lru_cache(maxsize=64)
def _cached_graph(key: tuple) -> RouteGraph:
    h, w, cells, items = key
    return RouteGraph({"h": h, "w": w, "cells": list(cells), "items": json.loads(items)})


def route_graph(world: dict) -> RouteGraph:
    """The :class:`RouteGraph` of ``world``, memoised on its content (the same world is
    typically searched by the generator's validity check, the oracle and the grader).

    Parameters
    ----------
    world : dict
        A world; ``h``, ``w``, ``cells`` and ``items`` form the cache key (64 most recent).

    Returns
    -------
    RouteGraph
        Shared between equal worlds: do not mutate it.

    Examples
    --------
    >>> from harness.tasks.spatial.grid.routes import route_graph
    >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
    >>> route_graph(world) is route_graph(dict(world)), route_graph(world).hops()
    (True, 4)
    """
    items = json.dumps(world["items"], sort_keys=True)
    key = (world["h"], world["w"], tuple(world["cells"]), items)
    return _cached_graph(key)


def shortest_route(world: dict) -> list[list[int]] | None:
    """An optimal route as a list of ``[r, c]`` (canonical); None if the goal is unreachable.

    Parameters
    ----------
    world : dict

    Returns
    -------
    list of [int, int] or None
        Start first, goal last.

    Examples
    --------
    >>> from harness.tasks.spatial.grid.routes import shortest_route
    >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
    >>> shortest_route(world)
    [[1, 0], [0, 0], [0, 1], [0, 2], [1, 2]]
    >>> print(shortest_route({"h": 1, "w": 3, "cells": [".#."],
    ...                       "items": {"S": [0, 0], "G": [0, 2]}}))
    None
    """
    best = route_graph(world).shortest()
    return None if best is None else [list(cell) for cell in best[1]]


def score_route(rg: RouteGraph, route: list[Cell | None], optimum: float) -> float:
    """Score a canonical route (see the module docstring for the partial-credit rule).

    Parameters
    ----------
    rg : RouteGraph
    route : list of (int, int) or None
        Canonical cells; ``None`` marks a cell off the map (an illegal step). The start may be
        omitted.
    optimum : float
        Optimal cost ``D`` (``rg.shortest()[0]``).

    Returns
    -------
    float
        In [0, 1]: ``D / cost`` for a complete legal route, the discounted progress of the
        legal prefix otherwise.

    Examples
    --------
    >>> from harness.tasks.spatial.grid.routes import RouteGraph, score_route
    >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
    >>> rg = RouteGraph(world)
    >>> score_route(rg, [(1, 0), (0, 0), (0, 1), (0, 2), (1, 2)], 4)
    1.0
    >>> score_route(rg, [(0, 0), (0, 1)], 4)  # halfway, no detour: (4 - 2) / (4 + 1)
    0.4
    >>> round(score_route(rg, [(0, 0), (0, 1), (0, 2), (1, 2), (0, 2), (1, 2)], 4), 6)  # 4 / 6
    0.666667
    """
    if not route:
        return 0.0
    to_goal = rg.to_goal()
    state = rg.start
    if route[0] is not None and tuple(route[0]) == (state[0], state[1]):
        route = route[1:]
    best = to_goal.get(state, optimum)
    spent_at_best = 0
    spent = 0
    legal = True
    for cell in route:
        if cell is None:
            legal = False
            break
        moved = rg.step(state, cell)
        if moved is None:
            legal = False
            break
        state, cost = moved
        spent += cost
        remaining = to_goal.get(state, float("inf"))
        if remaining < best:
            best, spent_at_best = remaining, spent
    if legal and spent > 0 and to_goal.get(state) == 0 and (state[0], state[1]) == rg.goal:
        return min(1.0, optimum / spent)
    progress = optimum - best
    if progress <= 0 or spent_at_best <= 0:
        return 0.0
    return (progress / (optimum + 1)) * min(1.0, progress / spent_at_best)


def grade_route(world: dict, answer: Any) -> float:
    """Best :func:`score_route` of ``answer`` over the :func:`sixteen` conventions.

    ``answer`` is a sequence of 2-number pairs; anything else (``None``, ``UNPARSED``, junk)
    scores 0.0.

    Parameters
    ----------
    world : dict
    answer : object
        A list of ``[a, b]`` integer pairs in any of the sixteen conventions.

    Returns
    -------
    float
        In [0, 1]; 0.0 also when the goal is unreachable.

    Examples
    --------
    The optimal route written (column, row), 1-based from the bottom-left corner:

    >>> from harness.tasks.spatial.grid.routes import grade_route
    >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
    >>> grade_route(world, [[1, 1], [1, 2], [2, 2], [3, 2], [3, 1]])
    1.0
    >>> grade_route(world, "[[1, 0], [0, 0]]"), grade_route(world, None)
    (0.0, 0.0)
    """
    pairs = _as_pairs(answer)
    if not pairs:
        return 0.0
    rg = route_graph(world)
    best = rg.shortest()
    if best is None:
        return 0.0
    optimum = best[0]
    h, w = world["h"], world["w"]
    top = 0.0
    for frame in sixteen(h, w):
        route: list[Cell | None] = []
        for p, q in pairs:
            r, c = frame.to_canon(p, q)
            route.append((r, c) if 0 <= r < h and 0 <= c < w else None)
        top = max(top, score_route(rg, route, optimum))
        if top == 1.0:
            break
    return top


def _as_pairs(answer: Any) -> list[Cell] | None:
    if not isinstance(answer, (list, tuple)):
        return None
    out = []
    for item in answer:
        if (
            isinstance(item, (list, tuple))
            and len(item) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item)
        ):
            out.append((item[0], item[1]))
        else:
            return None
    return out


_PAIR = re.compile(r"[\[(]\s*(-?\d{1,4})\s*,\s*(-?\d{1,4})\s*[\])]")
#: What may stand between the cells of a route: brackets, commas, arrows, whitespace.
_ROUTE_REST = re.compile(r"[\s,;\[\]()|>\-\u2013\u2192]*")


def parse_route(text: Any) -> list[list[int]] | None:
    """Every ``(a, b)`` or ``[a, b]`` pair in ``text``, in order; None if there is none or
    the text holds anything besides the pairs, brackets, commas, arrows and whitespace.

    Parameters
    ----------
    text : object
        Answer text; a non-string gives ``None``. Numbers have at most 4 digits and may be
        negative.

    Returns
    -------
    list of [int, int] or None

    Examples
    --------
    >>> from harness.tasks.spatial.grid.routes import parse_route
    >>> parse_route("[[0, 0], [0, 1]] -> (1,1)")
    [[0, 0], [0, 1], [1, 1]]
    >>> parse_route("[[0, 0], [0, 1]] then (1,1)") is None
    True
    >>> parse_route("go north") is None
    True
    """
    if not isinstance(text, str):
        return None
    if not _ROUTE_REST.fullmatch(_PAIR.sub(" ", text)):
        return None  # something besides cells and separators: not read completely
    pairs = [[int(a), int(b)] for a, b in _PAIR.findall(text)]
    return pairs or None
