"""The task families of the collaboration-tax suite, one subpackage each: ``spatial``,
``relational``, ``csp``.

Each family's package holds its base class (with the helpers its tasks share) and its task
modules; importing a task module registers its tasks (:func:`harness.registry.list_tasks`
imports them all). The three family bases are exported here; they, and the families, load on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.tasks.csp.common import EliminationTask
    from harness.tasks.relational.common import RelationalTask
    from harness.tasks.spatial.common import GridTask

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "EliminationTask": "csp.common",
    "GridTask": "spatial.common",
    "RelationalTask": "relational.common",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, subpackages=("csp", "relational", "spatial"))
