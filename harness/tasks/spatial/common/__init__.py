"""The Spatial family base: :class:`GridTask`, a grid world split between two agents.

:class:`GridTask` (:mod:`~harness.tasks.spatial.common.task`) implements the whole
:class:`~harness.base.Task` interface once and calls the hooks declared on
:class:`GridHooks` (:mod:`~harness.tasks.spatial.common.hooks`) that a task fills in; the
random draws a task composes to build its world (walls, owners, items, mazes, egocentric
frames), the counterfactual merge and the naive paste are in
:mod:`~harness.tasks.spatial.common.worlds`, and drawing a map with its legend and reading it
back in :mod:`~harness.tasks.spatial.common.text`. It stands on the grid worlds of
:mod:`harness.tasks.spatial.grid`, as the Relational and CSP bases stand in their families'
``common`` modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.tasks.spatial.common.hooks import GridHooks
    from harness.tasks.spatial.common.task import GridTask
    from harness.tasks.spatial.common.text import LEGEND, draw_map, legend_text, read_map
    from harness.tasks.spatial.common.worlds import (
        DENSITY,
        SIZES,
        carve_maze,
        drop_off_map_items,
        egocentric,
        free_cell,
        item_cells,
        merge_worlds,
        owner_grid,
        paste_views,
        place,
        set_cell,
        wall_grid,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "DENSITY": "worlds",
    "GridHooks": "hooks",
    "GridTask": "task",
    "LEGEND": "text",
    "SIZES": "worlds",
    "carve_maze": "worlds",
    "draw_map": "text",
    "drop_off_map_items": "worlds",
    "egocentric": "worlds",
    "free_cell": "worlds",
    "item_cells": "worlds",
    "legend_text": "text",
    "merge_worlds": "worlds",
    "owner_grid": "worlds",
    "paste_views": "worlds",
    "place": "worlds",
    "read_map": "text",
    "set_cell": "worlds",
    "wall_grid": "worlds",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
