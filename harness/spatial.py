"""Common machinery of the Spatial tasks: a grid world split between two agents.

:class:`GridTask` implements the whole :class:`~harness.base.Task` interface for a world of
:mod:`harness.grid`; a concrete task only says how to build a world (``make_world``), who holds
which cell (the ``owner`` grid inside the world: ``"a"``, ``"b"`` or ``"*"`` for both) and how
each agent writes coordinates (``make_frames``). Items are held by the owner of their cell.

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
    """``h`` strings of ``w`` characters, ``#`` with probability ``density``, else ``.``."""
    return ["".join("#" if rng.random() < density else "." for _ in range(w)) for _ in range(h)]


def owner_grid(h: int, w: int, kind: str, rng: random.Random | None = None) -> list[str]:
    """Who holds each cell: ``cols`` (a: left half), ``rows`` (a: top half), ``random``."""
    if kind == "cols":
        return ["a" * (w // 2) + "b" * (w - w // 2) for _ in range(h)]
    if kind == "rows":
        return ["a" * w if r < h // 2 else "b" * w for r in range(h)]
    if kind == "random":
        return ["".join(rng.choice("ab") for _ in range(w)) for _ in range(h)]
    raise ValueError(f"owner kind must be cols, rows or random, got {kind!r}")


def set_cell(cells: list[str], r: int, c: int, ch: str) -> None:
    cells[r] = cells[r][:c] + ch + cells[r][c + 1:]


def free_cell(
    rng: random.Random, world: dict, agent: str | None, taken: set, where=None
) -> list[int] | None:
    """A random open cell held by ``agent`` (any if None), not in ``taken``, satisfying
    ``where(r, c)`` if given; None if there is none."""
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
    makes the world invalid. Returns ``world``."""
    taken = {cell for _, cell in item_cells(world["items"])}
    for name, agent in wanted.items():
        cell = free_cell(rng, world, agent, taken, (where or {}).get(name))
        if cell is not None:
            world["items"][name] = cell
    return world


def carve_maze(rng: random.Random, n: int, braid: float) -> list[str]:
    """A perfect maze on an ``n`` x ``n`` grid (n odd; passages on even coordinates) carved by
    randomised depth-first search, then braided: each remaining inner wall between two
    passages is removed with probability ``braid`` (creating loops)."""
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
    """(name, cell) for every item, one entry per teleporter pad."""
    out = []
    for name, pos in items.items():
        if name.islower():
            out.extend((name, tuple(p)) for p in pos)
        else:
            out.append((name, tuple(pos)))
    return out


class GridTask(Task):
    """Base of the Spatial tasks (see the module docstring). Subclasses implement
    :meth:`make_world` and may override :meth:`make_frames` and the ``*_extra`` hooks."""

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
    #: items held through ``view_extra`` rather than by the owner of their cell
    hidden_items: tuple[str, ...] = ()

    # ----- hooks -------------------------------------------------------------------------
    def make_world(self, rng: random.Random, difficulty: int) -> dict:
        """A candidate world (may be invalid; ``generate`` retries)."""
        raise NotImplementedError

    def make_frames(self, rng: random.Random, world: dict) -> tuple[Frame, Frame]:
        """Two different coordinate frames for agents a and b (default: two of the sixteen)."""
        fa, fb = rng.sample(sixteen(world["h"], world["w"]), 2)
        return fa, fb

    def refit_frames(self, world: dict, frames: dict, keep: str) -> dict:
        """Frames of a counterfactual world (default: unchanged)."""
        return frames

    def finalize(self, world: dict) -> dict:
        """Derive dependent fields after a merge (default: nothing)."""
        return world

    def extra_valid(self, world: dict, rg: RouteGraph) -> bool:
        return True

    def view_extra(self, world: dict, agent: str, frame: Frame) -> dict:
        return {}

    def render_extra(self, view_data: dict) -> str:
        return ""

    def merge_extra(self, orig: dict, fresh: dict, keep: str, merged: dict) -> None:
        return None

    def naive_extra(self, views: tuple[View, View], fa: Frame, world: dict) -> None:
        """Add to the naively pasted ``world`` whatever the views hold outside cells/items."""
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
        return self.extra_valid(world, rg)

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

        Raises
        ------
        TypeError
            If ``seed`` is not an int.
        ValueError
            If ``difficulty`` is not 0, 1 or 2.
        """
        check_seed(seed)
        if isinstance(difficulty, bool) or difficulty not in SIZES:
            raise ValueError(f"difficulty must be one of {sorted(SIZES)}, got {difficulty!r}")
        rng = random.Random(int(seed))
        for _ in range(2000):
            world = self.finalize(self.make_world(rng, difficulty))
            if self._valid(world):
                fa, fb = self.make_frames(rng, world)
                frames = {"a": fa.to_dict(), "b": fb.to_dict()}
                return self._instance(int(seed), difficulty, world, frames)
        raise RuntimeError(f"{self.name}: no valid world for seed {seed} after 2000 tries")

    # ----- views -------------------------------------------------------------------------
    @staticmethod
    def frame(data: dict, agent: str) -> Frame:
        return Frame(**data["frames"][agent])

    def split(self, instance: Instance) -> tuple[View, View]:
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
            data.update(self.view_extra(world, agent, fr))
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
        """Each view's coordinate frame in words (see :meth:`harness.grid.Frame.summary`)."""
        return [f"{agent}: {Frame(**frame).summary()}"
                for agent, frame in sorted(instance.conventions.items())]

    def render_view(self, view: View) -> str:
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
        extra = self.render_extra(d)
        if extra:
            lines.append(extra)
        return "\n".join(lines)

    # ----- answers -----------------------------------------------------------------------
    def oracle(self, instance: Instance) -> list[list[int]]:
        return shortest_route(instance.data["world"])

    def parse(self, text: str) -> Any:
        route = parse_route(text)
        return UNPARSED if route is None else route

    def grade(self, instance: Instance, answer: Any) -> float:
        if answer is None or answer is UNPARSED:
            return 0.0
        return grade_route(instance.data["world"], answer)

    def format_answer(self, answer: Any) -> str:
        return json.dumps(answer)

    def corrupt(self, instance: Instance, answer: Any) -> Any:
        """The first two cells only: a complete route needs at least ``min_hops + 1`` cells."""
        return list(answer[:2])

    # ----- probes ------------------------------------------------------------------------
    def counterfactual(self, instance: Instance, keep: str, seed: int) -> Instance:
        if keep not in ("a", "b"):
            raise ValueError(f"keep must be 'a' or 'b', got {keep!r}")
        check_seed(seed)
        orig = instance.data["world"]
        kept_view = self.split(instance)["ab".index(keep)]
        rng = random.Random(int(seed))
        owner = orig["owner"]
        mine = lambda cell: owner[cell[0]][cell[1]] in (keep, "*")  # noqa: E731
        for _ in range(2000):
            fresh = self.make_world(rng, instance.difficulty)
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
            self.merge_extra(orig, fresh, keep, merged)
            merged = self.finalize(merged)
            if not self._valid(merged):
                continue
            frames = self.refit_frames(merged, instance.data["frames"], keep)
            cand = self._instance(instance.seed, instance.difficulty, merged, frames)
            if self.split(cand)["ab".index(keep)] == kept_view:
                return cand
        raise RuntimeError(f"{self.name}: no counterfactual completion for seed {seed}")

    def naive_answer(self, instance: Instance) -> Any:
        """Paste both views reading every coordinate in view a's frame (unknown cells open)."""
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
        self.naive_extra((va, vb), fa, world)
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
        """Read the MAP drawing of :meth:`render` back into a world and solve it."""
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
    """``frame`` shifted so that ``cell`` is written (0, 0)."""
    p, q = replace(frame, p0=0, q0=0).to_view(*cell)
    return replace(frame, p0=p, q0=q)
