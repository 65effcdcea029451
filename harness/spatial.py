"""Common machinery of the Spatial tasks: a grid world split between two agents.

:class:`GridTask` implements the whole :class:`~harness.base.Task` interface for a world of
:mod:`harness.grid`; a concrete task only says how to build a world (``_build``), who holds
which cell (the ``owner`` grid inside the world: ``"a"``, ``"b"`` or ``"*"`` for both) and how
each agent writes coordinates (``_make_frames``). Items are held by the owner of their cell.

- ``split`` gives each agent the cells and items it holds, written in its own :class:`Frame`;
- ``render`` draws the full map in the canonical frame (what the solo control reads);
- ``render_view`` draws the agent's part in its own frame, ``?`` for cells it does not hold;
- ``oracle`` is Dijkstra on the state graph; ``grade`` is :func:`harness.grid.grade_route`
  (sixteen conventions, partial credit by progress along a valid route);
- ``counterfactual`` keeps one agent's cells and items and takes the rest from a fresh world;
- ``naive_answer`` pastes view ``b`` as if it were written in view ``a``'s frame and solves it;
- ``solve_text`` reads the map back from ``render`` and solves it.

Examples
--------
>>> from harness.registry import get_task
>>> task = get_task("spatial_maze_halves")
>>> inst = task.generate(3)
>>> task.grade(inst, task.oracle(inst))
1.0
>>> task.grade(inst, task.solve_text(task.render(inst)))
1.0
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from typing import Any

from harness.base import DEFAULT_DIFFICULTY, UNPARSED, Instance, Task, View, check_seed
from harness.grid import (
    ARROWS,
    RouteGraph,
    Frame,
    canonical,
    grade_route,
    parse_route,
    route_graph,
    shortest_route,
    sixteen,
)

SIZES = {0: (6, 6), 1: (8, 8), 2: (10, 10)}
DENSITY = {0: 0.18, 1: 0.24, 2: 0.28}
_ROW = re.compile(r"^\s*(-?\d+) \|(.*)$")

LEGEND = {
    "#": "# wall",
    ".": ". open cell",
    "?": "? a cell you do not know",
    "S": "S start",
    "G": "G goal",
    "X": "X waypoint: the route must visit X before it ends on G",
    "K": "K key",
    "D": "D door: locked, it can only be entered after the route has visited K",
    "arrow": "^ > v < one-way cell: you may leave it only in the arrow's direction",
    "digit": "1-9 entry cost of that cell (every other open cell costs 1)",
    "pad": "a-h teleporter pads: from a pad, one step (cost 1) takes you to the other pad "
    "with the same letter",
}


def wall_grid(rng: random.Random, h: int, w: int, density: float) -> list[str]:
    """``h`` strings of ``w`` characters, ``#`` with probability ``density``, else ``.``.

    Parameters
    ----------
    rng : random.Random
        Source of randomness (row by row, left to right).
    h, w : int
        Rows and columns.
    density : float
        Probability in [0, 1] that a cell is a wall.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import random
    >>> from harness.spatial import wall_grid
    >>> wall_grid(random.Random(0), 2, 5, 0.3)
    ['...#.', '.....']
    """
    return ["".join("#" if rng.random() < density else "." for _ in range(w)) for _ in range(h)]


def owner_grid(h: int, w: int, kind: str, rng: random.Random | None = None) -> list[str]:
    """Who holds each cell: ``cols`` (a: left half), ``rows`` (a: top half), ``random``.

    Parameters
    ----------
    h, w : int
        Rows and columns.
    kind : {"cols", "rows", "random"}
        ``cols``: a holds the ``w // 2`` western columns; ``rows``: a holds the ``h // 2``
        northern rows; ``random``: each cell dealt to a or b with probability 1/2.
    rng : random.Random, optional
        Required for ``kind="random"``.

    Returns
    -------
    list of str
        ``h`` strings of ``w`` characters ``a``/``b``.

    Raises
    ------
    ValueError
        For another ``kind``.

    Examples
    --------
    >>> from harness.spatial import owner_grid
    >>> owner_grid(2, 5, "cols"), owner_grid(3, 2, "rows")
    (['aabbb', 'aabbb'], ['aa', 'bb', 'bb'])
    >>> owner_grid(2, 2, "diagonal")
    Traceback (most recent call last):
    ...
    ValueError: owner kind must be cols, rows or random, got 'diagonal'
    """
    if kind == "cols":
        return ["a" * (w // 2) + "b" * (w - w // 2) for _ in range(h)]
    if kind == "rows":
        return ["a" * w if r < h // 2 else "b" * w for r in range(h)]
    if kind == "random":
        if rng is None:
            raise ValueError("owner kind 'random' deals cells at random: pass rng "
                             "(a random.Random seeded from the instance seed)")
        return ["".join(rng.choice("ab") for _ in range(w)) for _ in range(h)]
    raise ValueError(f"owner kind must be cols, rows or random, got {kind!r}")


def set_cell(cells: list[str], r: int, c: int, ch: str) -> None:
    """Replace the character at ``(r, c)`` of a list of row strings, in place.

    Parameters
    ----------
    cells : list of str
        Row strings; ``cells[r]`` is rebuilt.
    r, c : int
    ch : str
        One character.

    Returns
    -------
    None

    Examples
    --------
    >>> from harness.spatial import set_cell
    >>> cells = ["...", "..."]
    >>> set_cell(cells, 1, 2, "#")
    >>> cells
    ['...', '..#']
    """
    cells[r] = cells[r][:c] + ch + cells[r][c + 1:]


def free_cell(
    rng: random.Random, world: dict, agent: str | None, taken: set, where=None
) -> list[int] | None:
    """A random open cell held by ``agent`` (any if None), not in ``taken``, satisfying
    ``where(r, c)`` if given; None if there is none.

    Parameters
    ----------
    rng : random.Random
    world : dict
        With ``h``, ``w``, ``cells`` and ``owner``; open means ``.`` or a cost digit.
    agent : {"a", "b"} or None
    taken : set of (int, int)
        Cells already used; the chosen cell is added to it.
    where : callable, optional
        ``where(r, c) -> bool`` extra filter.

    Returns
    -------
    [int, int] or None

    Examples
    --------
    >>> import random
    >>> from harness.spatial import free_cell
    >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "owner": ["aab", "abb"]}
    >>> taken = {(0, 2)}
    >>> free_cell(random.Random(0), world, "b", taken), sorted(taken)
    ([1, 2], [(0, 2), (1, 2)])
    >>> print(free_cell(random.Random(0), world, "a", {(0, 0), (0, 1), (1, 0)}))
    None
    """
    cand = [
        (r, c)
        for r in range(world["h"])
        for c in range(world["w"])
        if world["cells"][r][c] in ".123456789"
        and (agent is None or world["owner"][r][c] == agent)
        and (r, c) not in taken
        and (where is None or where(r, c))
    ]
    if not cand:
        return None
    cell = rng.choice(cand)
    taken.add(cell)
    return list(cell)


def place(rng: random.Random, world: dict, wanted: dict, where: dict | None = None) -> dict:
    """Put each item ``name -> agent`` on a free open cell held by that agent (``where`` maps a
    name to an extra ``(r, c) -> bool`` filter); items that find no cell are left out, which
    makes the world invalid. Returns ``world``.

    Parameters
    ----------
    rng : random.Random
    world : dict
        Modified in place: ``world["items"]`` gains the placed items.
    wanted : dict
        Item name -> agent whose cells it goes on (``None`` for any).
    where : dict, optional
        Item name -> ``(r, c) -> bool`` filter.

    Returns
    -------
    dict
        ``world`` itself.

    Examples
    --------
    >>> import random
    >>> from harness.spatial import place
    >>> world = {"h": 2, "w": 3, "cells": ["...", ".#."], "owner": ["aab", "abb"], "items": {}}
    >>> place(random.Random(1), world, {"S": "a", "G": "b"})["items"]
    {'S': [0, 0], 'G': [0, 2]}
    """
    taken = {cell for _, cell in item_cells(world["items"])}
    for name, agent in wanted.items():
        cell = free_cell(rng, world, agent, taken, (where or {}).get(name))
        if cell is not None:
            world["items"][name] = cell
    return world


def carve_maze(rng: random.Random, n: int, braid: float) -> list[str]:
    """A perfect maze on an ``n`` x ``n`` grid (n odd; passages on even coordinates) carved by
    randomised depth-first search, then braided: each remaining inner wall between two
    passages is removed with probability ``braid`` (creating loops).

    Parameters
    ----------
    rng : random.Random
    n : int
        Side length, odd.
    braid : float
        Probability in [0, 1] of removing each remaining wall between two passages.

    Returns
    -------
    list of str
        ``n`` strings of ``#`` and ``.``.

    Examples
    --------
    With ``braid=1`` only the pillars at odd (row, column) remain:

    >>> import random
    >>> from harness.spatial import carve_maze
    >>> carve_maze(random.Random(0), 5, braid=1.0)
    ['.....', '.#.#.', '.....', '.#.#.', '.....']
    >>> sum(row.count(".") for row in carve_maze(random.Random(0), 5, braid=0.0))
    17
    """
    grid = [["#"] * n for _ in range(n)]
    stack = [(0, 0)]
    grid[0][0] = "."
    while stack:
        r, c = stack[-1]
        nbrs = [(r + dr, c + dc) for dr, dc in ((-2, 0), (2, 0), (0, -2), (0, 2))
                if 0 <= r + dr < n and 0 <= c + dc < n and grid[r + dr][c + dc] == "#"]
        if not nbrs:
            stack.pop()
            continue
        nr, nc = rng.choice(nbrs)
        grid[(r + nr) // 2][(c + nc) // 2] = "."
        grid[nr][nc] = "."
        stack.append((nr, nc))
    for r in range(n):
        for c in range(n):
            if grid[r][c] == "#" and (r % 2) != (c % 2) and rng.random() < braid:
                grid[r][c] = "."
    return ["".join(row) for row in grid]


def item_cells(items: dict) -> list[tuple[str, tuple[int, int]]]:
    """(name, cell) for every item, one entry per teleporter pad.

    Parameters
    ----------
    items : dict
        ``world["items"]``: uppercase name -> ``[r, c]``, lowercase name -> two cells.

    Returns
    -------
    list of (str, (int, int))

    Examples
    --------
    >>> from harness.spatial import item_cells
    >>> item_cells({"S": [0, 0], "a": [[1, 1], [2, 2]]})
    [('S', (0, 0)), ('a', (1, 1)), ('a', (2, 2))]
    """
    out = []
    for name, pos in items.items():
        if name.islower():
            out.extend((name, tuple(p)) for p in pos)
        else:
            out.append((name, tuple(pos)))
    return out


class GridTask(Task):
    """Base of the Spatial tasks (see the module docstring). Subclasses implement
    :meth:`_build` and may override :meth:`_make_frames` and the ``*_extra`` hooks.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("spatial_obstacles_split")
    >>> instance = task.generate(0, difficulty=0)
    >>> route = task.oracle(instance)
    >>> route
    [[1, 0], [1, 1], [1, 2], [1, 3], [1, 4], [1, 5]]
    >>> task.grade(instance, route), task.grade(instance, task.corrupt(instance, route))
    (1.0, 0.166667)
    """

    family = "spatial"
    objective = (
        "Find a shortest route from S to G, moving one cell up, down, left or right per step."
    )
    answer_format = (
        "a JSON list of [row, column] cells from S to G inclusive, rows counted from 0 at the top "
        "(north) and columns from 0 at the left (west), e.g. [[0, 0], [0, 1], [1, 1]]; the same "
        "route written consistently from another corner, as (column, row) or 1-based is "
        "accepted too."
    )
    min_hops = 3
    #: items held through ``_view_extra`` rather than by the owner of their cell
    hidden_items: tuple[str, ...] = ()

    # ----- hooks -------------------------------------------------------------------------
    def _build(self, rng: random.Random, difficulty: int) -> dict:
        """A candidate world (may be invalid; ``generate`` retries).

        Parameters
        ----------
        rng : random.Random
            The generator's random source.
        difficulty : {0, 1, 2}

        Returns
        -------
        dict
            A world of :mod:`harness.grid` plus ``owner`` (one ``a``/``b``/``*`` per cell).

        Raises
        ------
        NotImplementedError
            In the base class.

        Examples
        --------
        >>> import random
        >>> from harness.registry import get_task
        >>> world = get_task("spatial_obstacles_split")._build(random.Random(0), 0)
        >>> sorted(world), world["h"], world["items"]
        (['cells', 'h', 'items', 'owner', 'w'], 6, {'S': [1, 0], 'G': [1, 5]})
        """
        raise NotImplementedError

    def _make_frames(self, rng: random.Random, world: dict) -> tuple[Frame, Frame]:
        """Two different coordinate frames for agents a and b (default: two of the sixteen).

        Parameters
        ----------
        rng : random.Random
        world : dict

        Returns
        -------
        (Frame, Frame)

        Examples
        --------
        >>> import random
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> fa, fb = task._make_frames(random.Random(0), {"h": 6, "w": 6})
        >>> fa.summary(), fb.summary()
        ('(row, column), 0-based, origin at the bottom-right corner', '(column, row), 1-based, origin at the bottom-right corner')
        """
        fa, fb = rng.sample(sixteen(world["h"], world["w"]), 2)
        return fa, fb

    def _refit_frames(self, world: dict, frames: dict, keep: str) -> dict:
        """Frames of a counterfactual world (default: unchanged).

        Parameters
        ----------
        world : dict
            The merged counterfactual world.
        frames : dict
            ``{"a": frame dict, "b": frame dict}`` of the original instance.
        keep : {"a", "b"}
            The view kept unchanged.

        Returns
        -------
        dict
            Frames for the new instance; the kept agent's frame must not change.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> frames = instance.data["frames"]
        >>> task._refit_frames(instance.data["world"], frames, "a") is frames
        True
        """
        return frames

    def _finalize(self, world: dict) -> dict:
        """Derive dependent fields after a merge (default: nothing).

        Parameters
        ----------
        world : dict

        Returns
        -------
        dict
            The world with derived fields filled in.

        Examples
        --------
        ``spatial_landmarks`` derives S and G from landmark positions and offsets:

        >>> from harness.registry import get_task
        >>> task = get_task("spatial_landmarks")
        >>> instance = task.generate(0, difficulty=0)
        >>> world = instance.data["world"]
        >>> world["anchors"]["S"], world["landmarks"]["oak"]
        (['oak', 2, -1], [2, 3])
        >>> task._finalize({**world, "items": {}})["items"]
        {'S': [4, 2], 'G': [1, 4]}
        """
        return world

    def _extra_valid(self, world: dict, rg: RouteGraph) -> bool:
        """Task-specific validity check of a generated world (default: always valid).

        Parameters
        ----------
        world : dict
        rg : RouteGraph
            The world's state graph.

        Returns
        -------
        bool

        Examples
        --------
        >>> from harness.grid import route_graph
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> task._extra_valid(instance.data["world"], route_graph(instance.data["world"]))
        True
        """
        return True

    def _view_extra(self, world: dict, agent: str, frame: Frame) -> dict:
        """Extra view data of ``agent`` beyond its cells and items (default: none).

        Parameters
        ----------
        world : dict
        agent : {"a", "b"}
        frame : Frame
            The agent's frame; positions must be written in it.

        Returns
        -------
        dict
            Merged into ``View.data``.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_landmarks")
        >>> instance = task.generate(0, difficulty=0)
        >>> world = instance.data["world"]
        >>> task._view_extra(world, "b", task.frame(instance.data, "b"))
        {'anchors': {'G': ['statue', -2, 4], 'S': ['oak', 1, -2]}}
        """
        return {}

    def _render_extra(self, view_data: dict) -> str:
        """Text for the extra view data, appended by :meth:`render_view` (default: none).

        Parameters
        ----------
        view_data : dict
            ``View.data``.

        Returns
        -------
        str
            Empty for nothing to add.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_landmarks")
        >>> instance = task.generate(0, difficulty=0)
        >>> world = instance.data["world"]
        >>> a, b = task.split(instance)
        >>> task._render_extra(a.data)
        'Landmarks: the oak at (2, 2), the statue at (3, 5), the well at (2, 3)'
        """
        return ""

    def _merge_extra(self, orig: dict, fresh: dict, keep: str, merged: dict) -> None:
        """Counterfactual: copy extra fields into ``merged`` from the kept or the fresh world.

        Parameters
        ----------
        orig, fresh : dict
            The original world and a freshly generated one.
        keep : {"a", "b"}
        merged : dict
            Modified in place.

        Returns
        -------
        None

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_landmarks")
        >>> instance = task.generate(0, difficulty=0)
        >>> world = instance.data["world"]
        >>> merged = {}
        >>> task._merge_extra(world, {"landmarks": {}, "anchors": {}}, "a", merged)
        >>> merged["landmarks"] == world["landmarks"], merged["anchors"]
        (True, {})
        """
        return None

    def _misread(self, views: tuple[View, View], fa: Frame, world: dict) -> None:
        """Add to the naively pasted ``world`` whatever the views hold outside cells/items.

        Parameters
        ----------
        views : (View, View)
        fa : Frame
            View a's frame, in which view b's facts are (mis)read.
        world : dict
            The pasted world, modified in place.

        Returns
        -------
        None

        Examples
        --------
        Reading b's landmark offsets in a's frame puts S and G in the wrong places:

        >>> from harness.registry import get_task
        >>> task = get_task("spatial_landmarks")
        >>> instance = task.generate(0, difficulty=0)
        >>> world = instance.data["world"]
        >>> from harness.grid import Frame
        >>> a, b = task.split(instance)
        >>> pasted = {"h": 6, "w": 6, "items": {}}
        >>> task._misread((a, b), Frame(**a.data["frame"]), pasted)
        >>> pasted["items"], world["items"]
        ({'G': [9, 4], 'S': [0, 2]}, {'S': [4, 2], 'G': [1, 4]})
        """
        return None

    # ----- generation --------------------------------------------------------------------
    def _valid(self, world: dict) -> bool:
        items = world["items"]
        if "S" not in items or "G" not in items:
            return False
        seen = set()
        for name, (r, c) in item_cells(items):
            if not (0 <= r < world["h"] and 0 <= c < world["w"]):
                return False
            if world["cells"][r][c] != "." or (r, c) in seen:
                return False
            seen.add((r, c))
        for name, pos in items.items():
            if name.islower() and len(pos) != 2:
                return False
        rg = route_graph(world)
        hops = rg.hops()
        if hops is None or hops < max(self.min_hops, world["w"] // 2):
            return False
        return self._extra_valid(world, rg)

    def _instance(self, seed: int, difficulty: int, world: dict, frames: dict) -> Instance:
        return Instance(
            task=self.name,
            seed=seed,
            difficulty=difficulty,
            data={"world": world, "frames": frames},
            conventions={k: dict(v) for k, v in frames.items()},
        )

    def generate(self, seed: int, difficulty: int = DEFAULT_DIFFICULTY) -> Instance:
        """Deterministic instance for ``seed`` (``random.Random(seed)``; retries until the
        world is valid: items on distinct open cells, goal reachable, at least
        ``max(min_hops, w // 2)`` steps away).

        Parameters
        ----------
        seed : int
        difficulty : {0, 1, 2}, default 1
            Map size 6 x 6, 8 x 8 or 10 x 10 (mazes have their own sizes).

        Returns
        -------
        Instance
            ``data`` holds ``world`` and ``frames`` (``{"a": ..., "b": ...}`` frame dicts).

        Raises
        ------
        TypeError
            If ``seed`` is not an int.
        ValueError
            If ``difficulty`` is not 0, 1 or 2.
        RuntimeError
            If no valid world is found in 2000 tries.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> instance.data["world"]["cells"]
        ['......', '......', '......', '......', '.#....', '.....#']
        >>> instance.data["frames"]["a"]["origin"], instance.data["frames"]["b"]["order"]
        ('top-right', 'col-row')
        """
        check_seed(seed)
        if isinstance(difficulty, bool) or difficulty not in SIZES:
            raise ValueError(f"difficulty must be one of {sorted(SIZES)}, got {difficulty!r}")
        rng = random.Random(int(seed))
        for _ in range(2000):
            world = self._finalize(self._build(rng, difficulty))
            if self._valid(world):
                fa, fb = self._make_frames(rng, world)
                frames = {"a": fa.to_dict(), "b": fb.to_dict()}
                return self._instance(int(seed), difficulty, world, frames)
        raise RuntimeError(f"{self.name}: no valid world for seed {seed} after 2000 tries")

    # ----- views -------------------------------------------------------------------------
    @staticmethod
    def frame(data: dict, agent: str) -> Frame:
        """The :class:`~harness.grid.Frame` of ``agent`` from ``instance.data``.

        Parameters
        ----------
        data : dict
            ``instance.data``.
        agent : {"a", "b"}

        Returns
        -------
        Frame

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> task.frame(instance.data, "a").summary()
        '(row, column), 0-based, origin at the top-right corner'
        """
        return Frame(**data["frames"][agent])

    def split(self, instance: Instance) -> tuple[View, View]:
        """Each agent's cells and items, written in its own frame.

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        (View, View)
            ``data`` holds ``frame``, ``size`` (drawing rows, columns), ``cells`` (``[p, q,
            char]``, arrows turned with the drawing), ``items`` and any :meth:`_view_extra`.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> a, b = task.split(instance)
        >>> a.data["items"], b.data["items"], len(a.data["cells"]) + len(b.data["cells"])
        ({'S': [1, 5]}, {'G': [0, 4]}, 36)
        """
        world = instance.data["world"]
        out = []
        for agent in "ab":
            fr = self.frame(instance.data, agent)
            own = {
                (r, c)
                for r in range(world["h"])
                for c in range(world["w"])
                if world["owner"][r][c] in (agent, "*")
            }
            cells = []
            for r, c in sorted(own):
                ch = world["cells"][r][c]
                if ch in ARROWS:
                    ch = fr.arrow(ARROWS.index(ch))
                cells.append([*fr.to_view(r, c), ch])
            items: dict[str, Any] = {}
            for name, cell in item_cells(world["items"]):
                if cell in own and name not in self.hidden_items:
                    pos = list(fr.to_view(*cell))
                    if name.islower():
                        items.setdefault(name, []).append(pos)
                    else:
                        items[name] = pos
            data = {"frame": fr.to_dict(), "size": list(fr.dims), "cells": sorted(cells),
                    "items": items}
            data.update(self._view_extra(world, agent, fr))
            out.append(View(agent=agent, data=data, conventions=dict(instance.conventions[agent])))
        return out[0], out[1]

    # ----- rendering ---------------------------------------------------------------------
    @staticmethod
    def _draw(fr: Frame, lookup: dict) -> str:
        dh, dw = fr.dims
        first_is_row = fr.order == "row-col"
        # draw_to_view(i, j) is separable: one coordinate depends on i, the other on j
        row_lab = [fr.draw_to_view(i, 0)[0 if first_is_row else 1] for i in range(dh)]
        col_lab = [fr.draw_to_view(0, j)[1 if first_is_row else 0] for j in range(dw)]
        lines = ["     " + "".join(f"{v:>4}" for v in col_lab)]
        for label in row_lab:
            if first_is_row:
                row = [lookup.get((label, q), "?") for q in col_lab]
            else:
                row = [lookup.get((p, label), "?") for p in col_lab]
            lines.append(f"{label:>3} |" + "".join(f"{ch:>4}" for ch in row))
        return "\n".join(lines)

    @staticmethod
    def _legend(chars: set) -> str:
        keys = [k for k in "#.?SGXKD" if k in chars]
        if chars & set(ARROWS):
            keys.append("arrow")
        if chars & set("123456789"):
            keys.append("digit")
        if chars & set("abcdefgh"):
            keys.append("pad")
        return "\n".join(f"  {LEGEND[k]}" for k in keys)

    def render(self, instance: Instance) -> str:
        """The whole map in the canonical frame, with legend and item list (the solo view).

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> print("\\n".join(task.render(instance).splitlines()[2:6]))
        MAP
                0   1   2   3   4   5
          0 |   .   .   .   .   .   .
          1 |   S   .   .   .   .   G
        """
        world = instance.data["world"]
        fr = canonical(world["h"], world["w"])
        lookup = {
            (r, c): world["cells"][r][c] for r in range(world["h"]) for c in range(world["w"])
        }
        for name, cell in item_cells(world["items"]):
            lookup[cell] = name
        lines = [
            self.objective,
            f"The map has {world['h']} rows and {world['w']} columns. {fr.describe()}",
            "MAP",
            self._draw(fr, lookup),
            "Legend:",
            self._legend(set(lookup.values())),
            "Items: " + ", ".join(f"{n} at {list(c)}" for n, c in item_cells(world["items"])),
        ]
        if world.get("landmarks"):
            lines.append("Landmarks: " + ", ".join(
                f"the {n} at {pos}" for n, pos in sorted(world["landmarks"].items())))
        return "\n".join(lines)

    def describe_conventions(self, instance: Instance) -> list[str]:
        """Each view's coordinate frame in words (see :meth:`harness.grid.Frame.summary`).

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        list of str

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> for line in task.describe_conventions(instance):
        ...     print(line)
        a: (row, column), 0-based, origin at the top-right corner
        b: (column, row), 0-based, origin at the bottom-right corner
        """
        return [f"{agent}: {Frame(**frame).summary()}"
                for agent, frame in sorted(instance.conventions.items())]

    def render_view(self, view: View) -> str:
        """One agent's part of the map, drawn and labelled in its own frame, ``?`` elsewhere.

        Parameters
        ----------
        view : View

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> a, _ = task.split(instance)
        >>> print("\\n".join(task.render_view(a).splitlines()[2:5]))
        YOUR MAP
                5   4   3   2   1   0
          0 |   ?   .   ?   ?   .   ?
        >>> task.render_view(a).splitlines()[-1]
        'Items you know: S at (1, 5)'
        """
        d = view.data
        fr = Frame(**d["frame"])
        lookup = {(p, q): ch for p, q, ch in d["cells"]}
        for name, pos in d["items"].items():
            for cell in pos if name.islower() else [pos]:
                lookup[tuple(cell)] = name
        seen = set(lookup.values()) | ({"?"} if len(lookup) < fr.dims[0] * fr.dims[1] else set())
        item_text = []
        for name, pos in sorted(d["items"].items()):
            for cell in pos if name.islower() else [pos]:
                item_text.append(f"{name} at ({cell[0]}, {cell[1]})")
        lines = [
            self.objective,
            f"Your drawing has {d['size'][0]} rows and {d['size'][1]} columns. {fr.describe()}",
        ]
        if lookup:
            lines += ["YOUR MAP", self._draw(fr, lookup), "Legend:", self._legend(seen)]
        else:
            lines.append("You hold no cell of the map.")
        lines.append("Items you know: " + (", ".join(item_text) if item_text else "none"))
        extra = self._render_extra(d)
        if extra:
            lines.append(extra)
        return "\n".join(lines)

    # ----- answers -----------------------------------------------------------------------
    def oracle(self, instance: Instance) -> list[list[int]]:
        """An optimal route, canonical ``[r, c]`` cells from S to G (Dijkstra).

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        list of [int, int]

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> task.oracle(instance)
        [[1, 0], [1, 1], [1, 2], [1, 3], [1, 4], [1, 5]]
        """
        return shortest_route(instance.data["world"])

    def parse(self, text: str) -> Any:
        """Every ``[a, b]`` / ``(a, b)`` pair in ``text``; :data:`~harness.base.UNPARSED` if none.

        Parameters
        ----------
        text : str

        Returns
        -------
        list of [int, int] or UNPARSED

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> task.parse("[[1, 0], [1, 1]]"), task.parse("go east")
        ([[1, 0], [1, 1]], UNPARSED)
        """
        route = parse_route(text)
        return UNPARSED if route is None else route

    def grade(self, instance: Instance, answer: Any) -> float:
        """:func:`harness.grid.grade_route` of ``answer``; 0.0 for ``None`` or ``UNPARSED``.

        Parameters
        ----------
        instance : Instance
        answer : list of [int, int], None or UNPARSED

        Returns
        -------
        float
            In [0, 1].

        Examples
        --------
        The optimal route written in agent a's frame (origin top-right) still scores 1:

        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> fa = task.frame(instance.data, "a")
        >>> in_a = [list(fa.to_view(r, c)) for r, c in task.oracle(instance)]
        >>> in_a[:2], task.grade(instance, in_a), task.grade(instance, None)
        ([[1, 5], [1, 4]], 1.0, 0.0)
        """
        if answer is None or answer is UNPARSED:
            return 0.0
        return grade_route(instance.data["world"], answer)

    def format_answer(self, answer: Any) -> str:
        """The route as JSON text.

        Parameters
        ----------
        answer : list of [int, int]

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.registry import get_task
        >>> get_task("spatial_obstacles_split").format_answer([[1, 0], [1, 1]])
        '[[1, 0], [1, 1]]'
        """
        return json.dumps(answer)

    def corrupt(self, instance: Instance, answer: Any) -> Any:
        """The first two cells only: a complete route needs at least ``min_hops + 1`` cells.

        Parameters
        ----------
        instance : Instance
        answer : list of [int, int]

        Returns
        -------
        list of [int, int]

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> task.corrupt(instance, task.oracle(instance))
        [[1, 0], [1, 1]]
        """
        return list(answer[:2])

    # ----- probes ------------------------------------------------------------------------
    def counterfactual(self, instance: Instance, keep: str, seed: int) -> Instance:
        """Keep one agent's cells and items; take the rest from a world generated from ``seed``.

        Parameters
        ----------
        instance : Instance
        keep : {"a", "b"}
        seed : int

        Returns
        -------
        Instance
            Valid, with the kept view unchanged.

        Raises
        ------
        ValueError
            If ``keep`` is not ``"a"`` or ``"b"``.
        TypeError
            If ``seed`` is not an int.
        RuntimeError
            If no valid completion is found in 2000 tries.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> other = task.counterfactual(instance, "b", 1)
        >>> task.split(other)[1] == task.split(instance)[1]
        True
        >>> task.counterfactual(instance, "c", 1)
        Traceback (most recent call last):
        ...
        ValueError: keep must be 'a' or 'b', got 'c'
        """
        if keep not in ("a", "b"):
            raise ValueError(f"keep must be 'a' or 'b', got {keep!r}")
        check_seed(seed)
        orig = instance.data["world"]
        kept_view = self.split(instance)["ab".index(keep)]
        rng = random.Random(int(seed))
        owner = orig["owner"]
        mine = lambda cell: owner[cell[0]][cell[1]] in (keep, "*")  # noqa: E731
        for _ in range(2000):
            fresh = self._build(rng, instance.difficulty)
            if (fresh["h"], fresh["w"]) != (orig["h"], orig["w"]):
                continue
            cells = [
                "".join(
                    orig["cells"][r][c] if mine((r, c)) else fresh["cells"][r][c]
                    for c in range(orig["w"])
                )
                for r in range(orig["h"])
            ]
            items: dict[str, Any] = {}
            for src, want in ((orig, True), (fresh, False)):
                for name, cell in item_cells(src["items"]):
                    if mine(cell) == want and name not in self.hidden_items:
                        if name.islower():
                            items.setdefault(name, []).append(list(cell))
                        else:
                            items.setdefault(name, list(cell))
            merged = {**fresh, "cells": cells, "items": items, "owner": orig["owner"]}
            self._merge_extra(orig, fresh, keep, merged)
            merged = self._finalize(merged)
            if not self._valid(merged):
                continue
            frames = self._refit_frames(merged, instance.data["frames"], keep)
            cand = self._instance(instance.seed, instance.difficulty, merged, frames)
            if self.split(cand)["ab".index(keep)] == kept_view:
                return cand
        raise RuntimeError(f"{self.name}: no counterfactual completion for seed {seed}")

    def naive_answer(self, instance: Instance) -> Any:
        """Paste both views reading every coordinate in view a's frame (unknown cells open).

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        list of [int, int] or None
            The optimal route of the pasted map, ``None`` when S or G falls off it or G is
            unreachable.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> naive = task.naive_answer(instance)
        >>> naive, task.grade(instance, naive)
        ([[1, 0], [0, 0], [0, 1]], 0.0)
        """
        va, vb = self.split(instance)
        fa = Frame(**va.data["frame"])
        h, w = instance.data["world"]["h"], instance.data["world"]["w"]
        cells = [["."] * w for _ in range(h)]
        world: dict[str, Any] = {"h": h, "w": w, "items": {}}
        for view in (vb, va):  # a's own facts win collisions
            for p, q, ch in view.data["cells"]:
                r, c = fa.to_canon(p, q)
                if 0 <= r < h and 0 <= c < w:
                    if ch in ARROWS:
                        ch = ARROWS[(ARROWS.index(ch) - fa.rot) % 4]
                    cells[r][c] = ch
            for name, pos in view.data["items"].items():
                for cell in pos if name.islower() else [pos]:
                    r, c = fa.to_canon(*cell)
                    if name.islower():
                        world["items"].setdefault(name, []).append([r, c])
                    else:
                        world["items"][name] = [r, c]
        self._misread((va, vb), fa, world)
        world["cells"] = ["".join(row) for row in cells]
        for name, pos in list(world["items"].items()):
            cells_ = pos if name.islower() else [pos]
            if any(not (0 <= r < h and 0 <= c < w) for r, c in cells_) or (
                name.islower() and len(pos) != 2
            ):
                del world["items"][name]
        if "S" not in world["items"] or "G" not in world["items"]:
            return None
        for name, (r, c) in item_cells(world["items"]):
            set_cell(world["cells"], r, c, ".")
        return shortest_route(world)

    def solve_text(self, text: str) -> Any:
        """Read the MAP drawing of :meth:`render` back into a world and solve it.

        Parameters
        ----------
        text : str
            Output of :meth:`render`.

        Returns
        -------
        list of [int, int] or None
            ``None`` when the text holds no MAP drawing.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("spatial_obstacles_split")
        >>> instance = task.generate(0, difficulty=0)
        >>> task.solve_text(task.render(instance)) == task.oracle(instance)
        True
        >>> print(task.solve_text("no map here"))
        None
        """
        rows = []
        started = False
        for line in text.splitlines():
            if line.strip() == "MAP":
                started = True
                continue
            m = _ROW.match(line) if started else None
            if m:
                rows.append(m.group(2).split())
            elif started and rows:
                break
        if not rows:
            return None
        cells, items = [], {}
        for r, row in enumerate(rows):
            line = ""
            for c, ch in enumerate(row):
                if ch.isalpha() and ch not in "v":
                    if ch.islower():
                        items.setdefault(ch, []).append([r, c])
                    else:
                        items[ch] = [r, c]
                    ch = "."
                line += ch
            cells.append(line)
        world = {"h": len(cells), "w": len(cells[0]), "cells": cells, "items": items}
        return shortest_route(world)


def egocentric(frame: Frame, cell: tuple[int, int]) -> Frame:
    """``frame`` shifted so that ``cell`` is written (0, 0).

    Parameters
    ----------
    frame : Frame
        Any frame; its offsets are replaced.
    cell : (int, int)
        Canonical cell of the agent.

    Returns
    -------
    Frame

    Examples
    --------
    >>> from harness.grid import Frame
    >>> from harness.spatial import egocentric
    >>> f = egocentric(Frame("bottom-left", "col-row", 1, th=3, tw=4), (1, 2))
    >>> f.to_view(1, 2), f.to_view(0, 2), (f.p0, f.q0)
    ((0, 0), (0, 1), (3, 2))
    """
    p, q = replace(frame, p0=0, q0=0).to_view(*cell)
    return replace(frame, p0=p, q0=q)
