"""Grid worlds, coordinate frames and route grading shared by the Spatial tasks.

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

Route answers are accepted in any of :data:`SIXTEEN` conventions (4 origin corners x 2 axis
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

import json
import re
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import product
from typing import Any

import networkx as nx

#: Compass directions as (row step, column step) in the canonical frame: north, east, south, west.
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))
#: One-way arrows in the order of :data:`DIRS`.
ARROWS = "^>v<"
ORIGINS = ("top-left", "top-right", "bottom-left", "bottom-right")
ORDERS = ("row-col", "col-row")
_SIDES = ("top", "right", "bottom", "left")  # drawing side of north after 0..3 clockwise turns

Cell = tuple[int, int]


@dataclass(frozen=True)
class Frame:
    """How one agent writes coordinates and draws its map.

    Canonical ``(r, c)`` goes through: subtract the tile corner ``(r0, c0)``; turn the tile
    ``rot`` quarter-turns clockwise (the drawing); read the drawing row/column counted from the
    ``origin`` corner; order them (``row-col`` or ``col-row``); add ``base``; subtract the
    post-offset ``(p0, q0)`` (egocentric frames put the agent's own cell at ``(0, 0)``).

    Attributes
    ----------
    origin : str
        Corner of the drawing where counting starts, one of :data:`ORIGINS`.
    order : str
        ``"row-col"`` (first number counts rows) or ``"col-row"`` (first counts columns, x/y).
    base : int
        0 or 1.
    th, tw : int
        Tile size in canonical rows and columns (the whole map unless tiles are used).
    rot : int
        Clockwise quarter-turns of the drawing relative to north-up.
    r0, c0 : int
        Canonical cell at the tile's top-left corner.
    p0, q0 : int
        Post-offset subtracted from the final coordinates.

    Examples
    --------
    >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
    >>> f.to_view(0, 0), f.to_canon(*f.to_view(2, 3))
    ((1, 3), (2, 3))
    """

    origin: str = "top-left"
    order: str = "row-col"
    base: int = 0
    th: int = 1
    tw: int = 1
    rot: int = 0
    r0: int = 0
    c0: int = 0
    p0: int = 0
    q0: int = 0

    @property
    def dims(self) -> tuple[int, int]:
        """Drawing size (rows, columns) after rotation.

        Examples
        --------
        >>> from harness.grid import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.dims, turned.dims
        ((3, 4), (4, 3))
        """
        return (self.tw, self.th) if self.rot % 2 else (self.th, self.tw)

    # canonical <-> drawing -----------------------------------------------------------
    def canon_to_draw(self, r: int, c: int) -> Cell:
        """Canonical cell -> (row, column) of the turned drawing, 0-based from its top-left.

        Parameters
        ----------
        r, c : int
            Canonical row and column.

        Returns
        -------
        (int, int)

        Examples
        --------
        After one clockwise quarter-turn of a 3 x 4 map the north-west corner is drawn at the
        top-right:

        >>> from harness.grid import Frame
        >>> Frame(rot=1, th=3, tw=4).canon_to_draw(0, 0)
        (0, 2)
        """
        i, j, h, w = r - self.r0, c - self.c0, self.th, self.tw
        for _ in range(self.rot % 4):
            i, j, h, w = j, h - 1 - i, w, h
        return i, j

    def draw_to_canon(self, i: int, j: int) -> Cell:
        """Inverse of :meth:`canon_to_draw`.

        Parameters
        ----------
        i, j : int
            Drawing row and column, 0-based from the drawing's top-left.

        Returns
        -------
        (int, int)
            Canonical ``(r, c)``.

        Examples
        --------
        >>> from harness.grid import Frame
        >>> f = Frame(rot=1, th=3, tw=4)
        >>> f.draw_to_canon(0, 2), f.draw_to_canon(*f.canon_to_draw(2, 3))
        ((0, 0), (2, 3))
        """
        dh, dw = self.dims
        for _ in range(self.rot % 4):
            i, j, dh, dw = dw - 1 - j, i, dw, dh
        return i + self.r0, j + self.c0

    # drawing <-> view coordinates ----------------------------------------------------
    def draw_to_view(self, i: int, j: int) -> Cell:
        """Drawing cell -> this frame's written coordinates (origin, order, base, offset).

        Parameters
        ----------
        i, j : int
            Drawing row and column, 0-based from the drawing's top-left.

        Returns
        -------
        (int, int)

        Examples
        --------
        >>> from harness.grid import Frame
        >>> Frame("bottom-left", "col-row", 1, th=3, tw=4).draw_to_view(0, 0)
        (1, 3)
        """
        dh, dw = self.dims
        row = i if self.origin.startswith("top") else dh - 1 - i
        col = j if self.origin.endswith("left") else dw - 1 - j
        p, q = (row, col) if self.order == "row-col" else (col, row)
        return p + self.base - self.p0, q + self.base - self.q0

    def view_to_draw(self, p: int, q: int) -> Cell:
        """Inverse of :meth:`draw_to_view`.

        Parameters
        ----------
        p, q : int
            Coordinates as written in this frame.

        Returns
        -------
        (int, int)
            Drawing row and column (may lie outside the drawing).

        Examples
        --------
        >>> from harness.grid import Frame
        >>> Frame("bottom-left", "col-row", 1, th=3, tw=4).view_to_draw(1, 3)
        (0, 0)
        """
        dh, dw = self.dims
        p, q = p - self.base + self.p0, q - self.base + self.q0
        row, col = (p, q) if self.order == "row-col" else (q, p)
        i = row if self.origin.startswith("top") else dh - 1 - row
        j = col if self.origin.endswith("left") else dw - 1 - col
        return i, j

    def to_view(self, r: int, c: int) -> Cell:
        """Canonical cell -> this frame's coordinates.

        Parameters
        ----------
        r, c : int
            Canonical row and column.

        Returns
        -------
        (int, int)

        Examples
        --------
        >>> from harness.grid import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.to_view(0, 0), f.to_view(2, 3)
        ((1, 3), (4, 1))
        """
        return self.draw_to_view(*self.canon_to_draw(r, c))

    def to_canon(self, p: int, q: int) -> Cell:
        """This frame's coordinates -> canonical cell (may lie outside the map).

        Parameters
        ----------
        p, q : int
            Coordinates as written in this frame.

        Returns
        -------
        (int, int)
            Canonical ``(r, c)``; no bounds check.

        Examples
        --------
        >>> from harness.grid import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.to_canon(1, 3), f.to_canon(0, 0)
        ((0, 0), (3, -1))
        """
        return self.draw_to_canon(*self.view_to_draw(p, q))

    def north_side(self) -> str:
        """Side of the drawing where north lies.

        Returns
        -------
        {"top", "right", "bottom", "left"}

        Examples
        --------
        >>> from harness.grid import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.north_side(), turned.north_side()
        ('top', 'right')
        """
        return _SIDES[self.rot % 4]

    def arrow(self, d: int) -> str:
        """Arrow character, as drawn in this frame, of canonical direction index ``d``.

        Parameters
        ----------
        d : int
            Index into :data:`DIRS` (0 north, 1 east, 2 south, 3 west).

        Returns
        -------
        str
            One of ``^ > v <``.

        Examples
        --------
        >>> from harness.grid import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.arrow(0), turned.arrow(0), turned.arrow(3)
        ('^', '>', '^')
        """
        return ARROWS[(d + self.rot) % 4]

    def summary(self) -> str:
        """One line naming this frame's conventions, for people reading an instance.

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.grid import Frame
        >>> Frame("bottom-left", "col-row", 1, th=3, tw=4).summary()
        '(column, row), 1-based, origin at the bottom-left corner'
        >>> Frame(rot=1, th=3, tw=4).summary()
        '(row, column), 0-based, origin at the top-left corner, drawing turned (north on the right side)'
        """
        first, second = ("row", "column") if self.order == "row-col" else ("column", "row")
        parts = [f"({first}, {second})", f"{self.base}-based",
                 f"origin at the {self.origin} corner"]
        if self.p0 or self.q0:
            parts.append(f"relative to the agent's own cell (offset {self.p0}, {self.q0})")
        if self.rot % 4:
            parts.append(f"drawing turned (north on the {self.north_side()} side)")
        if self.r0 or self.c0:
            parts.append(f"tile {self.th}x{self.tw} starting at canonical cell ({self.r0}, {self.c0})")
        return ", ".join(parts)

    def describe(self) -> str:
        """One paragraph explaining the coordinates, as an agent reads it.

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.grid import Frame
        >>> print(Frame(rot=1, th=3, tw=4).describe())
        Coordinates are written (row, column), counted from 0 at the top-left corner of your drawing: row numbers grow downwards and column numbers grow to the right on your drawing. Your drawing is turned: north is at the right of it.
        """
        first, second = ("row", "column") if self.order == "row-col" else ("column", "row")
        vert, horiz = self.origin.split("-")
        rows_grow = "downwards" if vert == "top" else "upwards"
        cols_grow = "to the right" if horiz == "left" else "to the left"
        text = (
            f"Coordinates are written ({first}, {second}), counted from {self.base} at the "
            f"{self.origin} corner of your drawing: row numbers grow {rows_grow} and column "
            f"numbers grow {cols_grow} on your drawing."
        )
        if self.p0 or self.q0:
            text += (
                " They are relative to your own position, which is (0, 0); negative numbers "
                "are allowed."
            )
        if self.rot % 4:
            text += f" Your drawing is turned: north is at the {self.north_side()} of it."
        else:
            text += " North is at the top of your drawing."
        return text

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (the declared conventions of a view).

        Returns
        -------
        dict
            One key per field: ``origin, order, base, th, tw, rot, r0, c0, p0, q0``.

        Examples
        --------
        >>> from harness.grid import Frame
        >>> d = Frame("bottom-left", "col-row", 1, th=3, tw=4).to_dict()
        >>> d["origin"], d["order"], d["base"], Frame(**d) == Frame("bottom-left", "col-row", 1, th=3, tw=4)
        ('bottom-left', 'col-row', 1, True)
        """
        return {name: getattr(self, name) for name in _FRAME_FIELDS}


_FRAME_FIELDS = tuple(f.name for f in fields(Frame))


@lru_cache(maxsize=256)
def sixteen(h: int, w: int) -> tuple[Frame, ...]:
    """The sixteen answer conventions for an ``h`` x ``w`` map: 4 origin corners x 2 axis
    orders x 2 index bases, north up, no offsets.

    Parameters
    ----------
    h, w : int
        Map size in rows and columns.

    Returns
    -------
    tuple of Frame
        Memoised; origins in the order of :data:`ORIGINS`, then orders, then bases 0, 1.

    Examples
    --------
    >>> from harness.grid import sixteen
    >>> sixteen(3, 4)[1].summary()
    '(row, column), 1-based, origin at the top-left corner'
    >>> len(sixteen(3, 4)), len(set(sixteen(3, 4)))
    (16, 16)
    """
    return tuple(
        Frame(o, a, b, th=h, tw=w) for o, a, b in product(ORIGINS, ORDERS, (0, 1))
    )


def canonical(h: int, w: int) -> Frame:
    """The canonical frame: (row, column), 0-based, top-left, north up.

    Parameters
    ----------
    h, w : int
        Map size in rows and columns.

    Returns
    -------
    Frame
        ``to_view`` and ``to_canon`` are the identity.

    Examples
    --------
    >>> from harness.grid import canonical
    >>> f = canonical(3, 4)
    >>> f.to_view(2, 1), f.to_canon(2, 1), f.summary()
    ((2, 1), (2, 1), '(row, column), 0-based, origin at the top-left corner')
    """
    return Frame("top-left", "row-col", 0, th=h, tw=w)


# ----- world semantics -------------------------------------------------------------------
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
    >>> from harness.grid import in_bounds
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

    >>> from harness.grid import RouteGraph
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
        >>> from harness.grid import RouteGraph
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
        >>> from harness.grid import RouteGraph
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
        >>> from harness.grid import RouteGraph
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
        >>> from harness.grid import RouteGraph
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
    >>> from harness.grid import route_graph
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
    >>> from harness.grid import shortest_route
    >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
    >>> shortest_route(world)
    [[1, 0], [0, 0], [0, 1], [0, 2], [1, 2]]
    >>> print(shortest_route({"h": 1, "w": 3, "cells": [".#."],
    ...                       "items": {"S": [0, 0], "G": [0, 2]}}))
    None
    """
    best = route_graph(world).shortest()
    return None if best is None else [list(cell) for cell in best[1]]


def score_route(rg: RouteGraph, route: list[Cell], optimum: float) -> float:
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
    >>> from harness.grid import RouteGraph, score_route
    >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "items": {"S": [1, 0], "G": [1, 2]}}
    >>> rg = RouteGraph(world)
    >>> score_route(rg, [(1, 0), (0, 0), (0, 1), (0, 2), (1, 2)], 4)
    1.0
    >>> score_route(rg, [(0, 0), (0, 1)], 4)  # halfway, no detour: (4 - 2) / (4 + 1)
    0.4
    >>> score_route(rg, [(0, 0), (0, 1), (0, 2), (1, 2), (0, 2), (1, 2)], 4)  # cost 6
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

    >>> from harness.grid import grade_route
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
        route = []
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


def parse_route(text: Any) -> list[list[int]] | None:
    """Every ``(a, b)`` or ``[a, b]`` pair in ``text``, in order; None if there is none.

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
    >>> from harness.grid import parse_route
    >>> parse_route("FINAL ANSWER: [[0, 0], [0, 1]] then (1,1)")
    [[0, 0], [0, 1], [1, 1]]
    >>> parse_route("go north") is None
    True
    """
    if not isinstance(text, str):
        return None
    pairs = [[int(a), int(b)] for a, b in _PAIR.findall(text)]
    return pairs or None
