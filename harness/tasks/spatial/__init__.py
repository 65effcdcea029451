"""The Spatial family of the collaboration-tax suite: grid worlds split into two views.

The family base :class:`harness.spatial.GridTask` and its grid machinery live in
:mod:`harness.spatial`; the modules here each hold tasks (walls, rules, frames), registered by
name on import. The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.tasks.spatial.frames import (
        LANDMARKS,
        Landmarks,
        LocalView,
        RotatedView,
        TileStitch,
    )
    from harness.tasks.spatial.rules import KeyDoor, OneWay, Teleporters, TwoGoals, WeightedTerrain
    from harness.tasks.spatial.walls import MAZE_SIZES, MazeHalves, ObstaclesSplit

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "KeyDoor": "rules",
    "LANDMARKS": "frames",
    "Landmarks": "frames",
    "LocalView": "frames",
    "MAZE_SIZES": "walls",
    "MazeHalves": "walls",
    "ObstaclesSplit": "walls",
    "OneWay": "rules",
    "RotatedView": "frames",
    "Teleporters": "rules",
    "TileStitch": "frames",
    "TwoGoals": "rules",
    "WeightedTerrain": "rules",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
