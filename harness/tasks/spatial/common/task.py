"""The Spatial family base :class:`GridTask`: a grid world split between two agents.

:class:`GridTask` implements the whole :class:`~harness.base.Task` interface for a world of
:mod:`harness.tasks.spatial.grid`; a concrete task only says how to build a world
(``_build``), who holds which cell (the ``owner`` grid inside the world: ``"a"``, ``"b"`` or
``"*"`` for both) and how each agent writes coordinates (``_make_frames``). Items are held by
the owner of their cell.

- ``split`` gives each agent the cells and items it holds, written in its own :class:`Frame`;
- ``render`` draws the full map in the canonical frame (what the solo control reads);
- ``render_view`` draws the agent's part in its own frame, ``?`` for cells it does not hold;
- ``oracle`` is Dijkstra on the state graph; ``grade`` is
  :func:`harness.tasks.spatial.grid.grade_route` (sixteen conventions, partial credit by
  progress along a valid route);
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
from typing import Any

from harness.base import DEFAULT_DIFFICULTY, UNPARSED, Instance, View, check_seed
from harness.tasks.spatial.common.hooks import GridHooks
from harness.tasks.spatial.common.text import draw_map, legend_text, read_map
from harness.tasks.spatial.common.worlds import (
    SIZES,
    drop_off_map_items,
    item_cells,
    merge_worlds,
    paste_views,
)
from harness.tasks.spatial.grid import (
    ARROWS,
    Frame,
    canonical,
    grade_route,
    parse_route,
    route_graph,
    shortest_route,
)

__all__ = ["GridTask"]


class GridTask(GridHooks):
    """Base of the Spatial tasks (see the module docstring). Subclasses implement the hook
    :meth:`~harness.tasks.spatial.common.hooks.GridHooks._build` and may override the other hooks of
    :class:`~harness.tasks.spatial.common.hooks.GridHooks`.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("spatial_obstacles_split")
    >>> instance = task.generate(0, difficulty=0)
    >>> route = task.oracle(instance)
    >>> route
    [[1, 0], [1, 1], [1, 2], [1, 3], [1, 4], [1, 5]]
    >>> task.grade(instance, route), round(task.grade(instance, task.corrupt(instance, route)), 6)
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

    # ----- generation --------------------------------------------------------------------
    def _valid(self, world: dict) -> bool:
        items = world["items"]
        if "S" not in items or "G" not in items:
            return False
        seen = set()
        for _name, (r, c) in item_cells(items):
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
        """The :class:`~harness.tasks.spatial.grid.Frame` of ``agent`` from ``instance.data``.

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
            draw_map(fr, lookup),
            "Legend:",
            legend_text(set(lookup.values())),
            "Items: " + ", ".join(f"{n} at {list(c)}" for n, c in item_cells(world["items"])),
        ]
        if world.get("landmarks"):
            lines.append("Landmarks: " + ", ".join(
                f"the {n} at {pos}" for n, pos in sorted(world["landmarks"].items())))
        return "\n".join(lines)

    def describe_conventions(self, instance: Instance) -> list[str]:
        """Each view's coordinate frame in words (see
        :meth:`harness.tasks.spatial.grid.Frame.summary`).

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
            lines += ["YOUR MAP", draw_map(fr, lookup), "Legend:", legend_text(seen)]
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
        route = shortest_route(instance.data["world"])
        if route is None:  # generate() keeps only worlds whose goal is reachable
            raise ValueError(f"{self.name}: the goal is unreachable in this instance")
        return route

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
        """:func:`harness.tasks.spatial.grid.grade_route` of ``answer``; 0.0 for ``None`` or
        ``UNPARSED``.

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
        for _ in range(2000):
            fresh = self._build(rng, instance.difficulty)
            if (fresh["h"], fresh["w"]) != (orig["h"], orig["w"]):
                continue
            merged = merge_worlds(orig, fresh, keep, self.hidden_items)
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
        world = paste_views(va, vb, instance.data["world"]["h"], instance.data["world"]["w"])
        self._misread((va, vb), fa, world)
        world = drop_off_map_items(world)
        if "S" not in world["items"] or "G" not in world["items"]:
            return None
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
        world = read_map(text)
        return None if world is None else shortest_route(world)
