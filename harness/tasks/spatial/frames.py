"""Spatial tasks whose friction is the reference frame: landmarks as origins, overlapping
tiles, egocentric local views, a rotated view."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from harness.registry import register
from harness.tasks.spatial.common import (
    DENSITY,
    SIZES,
    GridTask,
    egocentric,
    owner_grid,
    place,
    wall_grid,
)
from harness.tasks.spatial.grid import Frame, sixteen

LANDMARKS = ("well", "tower", "oak", "statue", "mill")


def _vec_to_view(fr: Frame, dr: int, dc: int) -> tuple[int, int]:
    p0, q0 = fr.to_view(0, 0)
    p, q = fr.to_view(dr, dc)
    return p - p0, q - q0


def _vec_to_canon(fr: Frame, dp: int, dq: int) -> tuple[int, int]:
    r0, c0 = fr.to_canon(0, 0)
    r, c = fr.to_canon(dp, dq)
    return r - r0, c - c0


@register
class Landmarks(GridTask):
    """Agent a holds the whole map and where the landmarks are; agent b knows where S and G
    are only as offsets from two landmarks, written in b's own frame (so b's offsets must be
    turned into a's frame before they can be placed)."""

    name = "spatial_landmarks"
    description = "a holds the map and landmarks; b holds S and G as offsets from landmarks."
    hidden_items = ("S", "G")

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w = SIZES[difficulty]
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": wall_grid(rng, h, w, DENSITY[difficulty]),
                 "owner": owner_grid(h, w, "cols"), "items": {}}
        world["owner"] = ["a" * w for _ in range(h)]
        names = rng.sample(LANDMARKS, 3)
        place(rng, world, {n: "a" for n in ("L1", "L2", "L3", "S", "G")})
        spots = [world["items"].pop(k, None) for k in ("L1", "L2", "L3")]
        world["landmarks"] = {n: p for n, p in zip(names, spots) if p is not None}
        world["anchors"] = {}
        if len(world["landmarks"]) == 3 and "S" in world["items"] and "G" in world["items"]:
            for item, ref in zip("SG", rng.sample(names, 2)):
                (r, c), (lr, lc) = world["items"][item], world["landmarks"][ref]
                world["anchors"][item] = [ref, r - lr, c - lc]
        return world

    def _finalize(self, world: dict) -> dict:
        items = {k: v for k, v in world["items"].items() if k not in "SG"}
        for item, (ref, dr, dc) in world.get("anchors", {}).items():
            if ref in world.get("landmarks", {}):
                lr, lc = world["landmarks"][ref]
                items[item] = [lr + dr, lc + dc]
        return {**world, "items": items}

    def _extra_valid(self, world, rg) -> bool:
        taken = {tuple(p) for p in world["landmarks"].values()}
        return len(taken) == 3 and all(world["cells"][r][c] == "." for r, c in taken)

    def _merge_extra(self, orig: dict, fresh: dict, keep: str, merged: dict) -> None:
        merged["landmarks"] = (orig if keep == "a" else fresh)["landmarks"]
        merged["anchors"] = (orig if keep == "b" else fresh)["anchors"]

    def _view_extra(self, world: dict, agent: str, frame: Frame) -> dict:
        if agent == "a":
            return {"landmarks": {n: list(frame.to_view(*p))
                                  for n, p in sorted(world["landmarks"].items())}}
        return {"anchors": {k: [ref, *_vec_to_view(frame, dr, dc)]
                            for k, (ref, dr, dc) in sorted(world["anchors"].items())}}

    def _render_extra(self, d: dict) -> str:
        if "landmarks" in d:
            return "Landmarks: " + ", ".join(
                f"the {n} at ({p}, {q})" for n, (p, q) in d["landmarks"].items())
        parts = [f"{k} = the {ref}'s coordinates + ({dp}, {dq})"
                 for k, (ref, dp, dq) in d["anchors"].items()]
        return ("You do not know the map or where the landmarks are, but you know (offsets in "
                "your own coordinates): " + "; ".join(parts) + ".")

    def _misread(self, views, fa: Frame, world: dict) -> None:
        va, vb = views
        for k, (ref, dp, dq) in vb.data.get("anchors", {}).items():
            if ref in va.data.get("landmarks", {}):
                lr, lc = fa.to_canon(*va.data["landmarks"][ref])
                dr, dc = _vec_to_canon(fa, dp, dq)
                world["items"][k] = [lr + dr, lc + dc]


@register
class TileStitch(GridTask):
    """Two map tiles that overlap by two rows: a holds the northern tile (S), b the southern
    tile (G), each with coordinates local to its own tile and in its own frame."""

    name = "spatial_tile_stitch"
    description = "Two overlapping map tiles (2 shared rows), each in its own local coordinates."
    objective = (
        "Find a shortest route from S to G. Answer in coordinates of the whole map (both tiles "
        "stitched together)."
    )

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w = SIZES[difficulty]
        top = h // 2 - 1
        owner = ["a" * w if r < top else "*" * w if r < top + 2 else "b" * w for r in range(h)]
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": wall_grid(rng, h, w, DENSITY[difficulty]),
                 "owner": owner, "items": {}}
        return place(rng, world, {"S": "a", "G": "b"})

    def _make_frames(self, rng: random.Random, world: dict) -> tuple[Frame, Frame]:
        h, w = world["h"], world["w"]
        top = h // 2 - 1
        fa, fb = rng.sample(sixteen(h, w), 2)
        return replace(fa, th=top + 2), replace(fb, th=h - top, r0=top)

    def _view_extra(self, world: dict, agent: str, frame: Frame) -> dict:
        side, other = ("north", "south") if agent == "a" else ("south", "north")
        return {"tile": (
            f"Your tile is the {side}ern part of a map of {world['h']} rows and {world['w']} "
            f"columns; the other agent's tile is the {other}ern part. The two tiles overlap: "
            f"your 2 {other}ernmost rows are the same cells as the other agent's 2 {side}ernmost "
            "rows. Your coordinates are local to your tile.")}

    def _render_extra(self, d: dict) -> str:
        return d["tile"]


@register
class LocalView(GridTask):
    """Each agent stands on the map (a on S, b on G) and sees only the cells nearer to itself
    than to the other agent, in egocentric coordinates (its own cell is (0, 0))."""

    name = "spatial_local_view"
    description = "Each agent sees only the cells nearest to itself, in egocentric coordinates."

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w = SIZES[difficulty]
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": wall_grid(rng, h, w, DENSITY[difficulty]),
                 "owner": ["a" * w] * h, "items": {}}
        place(rng, world, {"S": "a", "G": "a"})
        if "S" in world["items"] and "G" in world["items"]:
            (sr, sc), (gr, gc) = world["items"]["S"], world["items"]["G"]
            world["owner"] = [
                "".join("a" if abs(r - sr) + abs(c - sc) <= abs(r - gr) + abs(c - gc) else "b"
                        for c in range(w))
                for r in range(h)
            ]
        return world

    def _make_frames(self, rng: random.Random, world: dict) -> tuple[Frame, Frame]:
        fa, fb = rng.sample(sixteen(world["h"], world["w"]), 2)
        return egocentric(fa, world["items"]["S"]), egocentric(fb, world["items"]["G"])

    def _refit_frames(self, world: dict, frames: dict, keep: str) -> dict:
        other = "b" if keep == "a" else "a"
        fr = replace(Frame(**frames[other]), p0=0, q0=0)
        pos = world["items"]["G" if other == "b" else "S"]
        return {keep: frames[keep], other: egocentric(fr, pos).to_dict()}

    def _view_extra(self, world: dict, agent: str, frame: Frame) -> dict:
        pos = world["items"]["S" if agent == "a" else "G"]
        absolute = replace(frame, p0=0, q0=0).to_view(*pos)
        return {"position": list(absolute), "stands_on": "S" if agent == "a" else "G"}

    def _render_extra(self, d: dict) -> str:
        p, q = d["position"]
        return (
            f"You stand on {d['stands_on']}, which is (0, 0) of your coordinates. Without the "
            f"shift to your own position (same corner, order and base, counted over the whole "
            f"map) your cell is ({p}, {q})."
        )


@register
class RotatedView(GridTask):
    """Agent a holds the west half (S), agent b the east half (G); b's map is drawn turned a
    quarter or three quarters clockwise, so b's up is not north and b's arrows turn with it."""

    name = "spatial_rotated_view"
    description = "b's half of the map is drawn rotated a quarter turn (its up is not north)."

    def _build(self, rng: random.Random, difficulty: int) -> dict:
        h, w = SIZES[difficulty]
        world: dict[str, Any]
        world = {"h": h, "w": w, "cells": wall_grid(rng, h, w, DENSITY[difficulty]),
                 "owner": owner_grid(h, w, "cols"), "items": {}}
        return place(rng, world, {"S": "a", "G": "b"})

    def _make_frames(self, rng: random.Random, world: dict) -> tuple[Frame, Frame]:
        fa, fb = rng.sample(sixteen(world["h"], world["w"]), 2)
        return fa, replace(fb, rot=rng.choice((1, 3)))
