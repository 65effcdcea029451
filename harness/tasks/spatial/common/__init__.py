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

__all__ = [
    "DENSITY", "LEGEND", "SIZES", "GridHooks", "GridTask", "carve_maze", "draw_map",
    "drop_off_map_items", "egocentric", "free_cell", "item_cells", "legend_text", "merge_worlds",
    "owner_grid", "paste_views", "place", "read_map", "set_cell", "wall_grid",
]
