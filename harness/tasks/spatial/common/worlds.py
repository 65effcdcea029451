"""Building grid worlds for the Spatial tasks: walls, owners, items, mazes, frames per agent.

The random draws every spatial generator composes (:func:`wall_grid`, :func:`owner_grid`,
:func:`place`, :func:`carve_maze`, ...), the map sizes and wall densities per difficulty, and
:func:`egocentric`. :mod:`harness.tasks.spatial.common` re-exports every name.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from harness.base import View
from harness.tasks.spatial.grid import ARROWS, Frame

SIZES = {0: (6, 6), 1: (8, 8), 2: (10, 10)}
DENSITY = {0: 0.18, 1: 0.24, 2: 0.28}


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
    >>> from harness.tasks.spatial.common.worlds import wall_grid
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
    >>> from harness.tasks.spatial.common.worlds import owner_grid
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
    >>> from harness.tasks.spatial.common.worlds import set_cell
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
    >>> from harness.tasks.spatial.common.worlds import free_cell
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
    >>> from harness.tasks.spatial.common.worlds import place
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
    >>> from harness.tasks.spatial.common.worlds import carve_maze
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
    >>> from harness.tasks.spatial.common.worlds import item_cells
    >>> item_cells({"S": [0, 0], "a": [[1, 1], [2, 2]]})
    [('S', (0, 0)), ('a', (1, 1)), ('a', (2, 2))]
    """
    out: list[tuple[str, tuple[int, int]]] = []
    for name, pos in items.items():
        if name.islower():
            out.extend((name, tuple(p)) for p in pos)
        else:
            out.append((name, tuple(pos)))
    return out


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
    >>> from harness.tasks.spatial.common.worlds import egocentric
    >>> from harness.tasks.spatial.grid import Frame
    >>> f = egocentric(Frame("bottom-left", "col-row", 1, th=3, tw=4), (1, 2))
    >>> f.to_view(1, 2), f.to_view(0, 2), (f.p0, f.q0)
    ((0, 0), (0, 1), (3, 2))
    """
    p, q = replace(frame, p0=0, q0=0).to_view(*cell)
    return replace(frame, p0=p, q0=q)


# ----- combining worlds: counterfactual completion and the naive paste ---------------------
def merge_worlds(orig: dict, fresh: dict, keep: str, hidden_items: tuple[str, ...] = ()) -> dict:
    """Agent ``keep``'s cells and items from ``orig``, everything else from ``fresh``.

    Parameters
    ----------
    orig, fresh : dict
        Worlds of the same size; ``orig["owner"]`` says who holds each cell.
    keep : {"a", "b"}
        The agent whose cells (and cells held by both, ``"*"``) come from ``orig``.
    hidden_items : tuple of str, default ()
        Items not held through their cell (the task carries them in its extra view data).

    Returns
    -------
    dict
        ``fresh`` with the merged ``cells`` and ``items`` and ``orig``'s ``owner``; an item of
        ``orig`` wins over an item of the same name in ``fresh``.

    Examples
    --------
    >>> from harness.tasks.spatial.common.worlds import merge_worlds
    >>> orig = {"h": 1, "w": 2, "cells": ["#."], "owner": ["ab"], "items": {"S": [0, 1]}}
    >>> fresh = {"h": 1, "w": 2, "cells": [".#"], "owner": ["ba"], "items": {"G": [0, 0]}}
    >>> merged = merge_worlds(orig, fresh, "a")
    >>> merged["cells"], merged["owner"], merged["items"]
    (['##'], ['ab'], {})
    """
    owner = orig["owner"]

    def mine(cell: tuple[int, int]) -> bool:
        return owner[cell[0]][cell[1]] in (keep, "*")

    cells = [
        "".join(
            orig["cells"][r][c] if mine((r, c)) else fresh["cells"][r][c] for c in range(orig["w"])
        )
        for r in range(orig["h"])
    ]
    items: dict[str, Any] = {}
    for src, want in ((orig, True), (fresh, False)):
        for name, cell in item_cells(src["items"]):
            if mine(cell) == want and name not in hidden_items:
                if name.islower():
                    items.setdefault(name, []).append(list(cell))
                else:
                    items.setdefault(name, list(cell))
    return {**fresh, "cells": cells, "items": items, "owner": orig["owner"]}


def paste_views(va: View, vb: View, h: int, w: int) -> dict:
    """The naive paste: both views' cells and items read as if written in view a's frame.

    Cells nobody holds are open; view a's own facts win collisions; an arrow of view b is
    turned back by view a's rotation. Items may fall off the map (see
    :func:`drop_off_map_items`); ``cells`` is a list of lists until then.

    Parameters
    ----------
    va, vb : View
        The two views of a spatial instance (``data`` with ``frame``, ``cells``, ``items``).
    h, w : int
        Map size in rows and columns.

    Returns
    -------
    dict
        A world ``{"h", "w", "cells", "items"}`` in the canonical frame.
    """
    fa = Frame(**va.data["frame"])
    cells = [["."] * w for _ in range(h)]
    world: dict[str, Any] = {"h": h, "w": w, "items": {}, "cells": cells}
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
    return world


def drop_off_map_items(world: dict) -> dict:
    """Finish a pasted world: items off the map (or pads without a partner) are dropped, the
    cells become strings and every remaining item stands on an open cell.

    Parameters
    ----------
    world : dict
        As :func:`paste_views` returns it (after the task's ``_misread``).

    Returns
    -------
    dict
        The same dict, modified.
    """
    h, w = world["h"], world["w"]
    world["cells"] = ["".join(row) for row in world["cells"]]
    for name, pos in list(world["items"].items()):
        cells_ = pos if name.islower() else [pos]
        if any(not (0 <= r < h and 0 <= c < w) for r, c in cells_) or (
            name.islower() and len(pos) != 2
        ):
            del world["items"][name]
    for _, (r, c) in item_cells(world["items"]):
        set_cell(world["cells"], r, c, ".")
    return world
