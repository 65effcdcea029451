"""The hooks a Spatial task fills in: :class:`GridHooks`, base of
:class:`~harness.tasks.spatial.common.GridTask`.

Template-method hooks, the same style as the Relational and CSP bases: underscore-prefixed
methods declared here, :meth:`GridHooks._build` abstract, every other hook with a documented
default. :class:`~harness.tasks.spatial.common.GridTask` implements the :class:`~harness.base.Task`
interface on top of them.
"""

from __future__ import annotations

import random
from abc import abstractmethod

from harness.base import Task, View
from harness.tasks.spatial.grid import Frame, RouteGraph, sixteen


class GridHooks(Task):
    """What a Spatial task says about itself (see :class:`~harness.tasks.spatial.common.GridTask`).

    Required: :meth:`_build` (a candidate world). Optional, with defaults: :meth:`_make_frames`,
    :meth:`_refit_frames`, :meth:`_finalize`, :meth:`_extra_valid`, :meth:`_view_extra`,
    :meth:`_render_extra`, :meth:`_merge_extra` and :meth:`_misread`.
    """

    @abstractmethod
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
            A world of :mod:`harness.tasks.spatial.grid` plus ``owner`` (one ``a``/``b``/``*``
            per cell).

        Examples
        --------
        >>> import random
        >>> from harness.registry import get_task
        >>> world = get_task("spatial_obstacles_split")._build(random.Random(0), 0)
        >>> sorted(world), world["h"], world["items"]
        (['cells', 'h', 'items', 'owner', 'w'], 6, {'S': [1, 0], 'G': [1, 5]})
        """

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
        >>> from harness.tasks.spatial.grid import route_graph
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
        >>> from harness.tasks.spatial.grid import Frame
        >>> a, b = task.split(instance)
        >>> pasted = {"h": 6, "w": 6, "items": {}}
        >>> task._misread((a, b), Frame(**a.data["frame"]), pasted)
        >>> pasted["items"], world["items"]
        ({'G': [9, 4], 'S': [0, 2]}, {'S': [4, 2], 'G': [1, 4]})
        """
        return None
