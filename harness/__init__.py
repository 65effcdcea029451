"""The collaboration-tax harness: split-view tasks with deterministic graders, and their runner.

A task is registered by name (:func:`get_task`, :func:`list_tasks`; the manifest
:data:`TASK_NAMES` says which exist) and offers the same interface, :class:`Task`, so a runner
can drive any of them in the three modes of the collaboration-tax paper: solo on the full
instance, and a pair of agents on the two views; its vocabulary (:data:`FAMILIES`,
:data:`DIFFICULTIES`, the dialogue markers) is in :mod:`harness.vocabulary`. :mod:`harness.tasks`
holds the three families, :mod:`harness.runner` runs them against model endpoints. The names
below load on first use, so importing a leaf module such as :mod:`harness.vocabulary` or
:mod:`harness.manifest` loads no other module of the harness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from harness.answer_text import normalise_answer
    from harness.base import SOLO_VIEWS, UNPARSED, Instance, Task, View
    from harness.checks import check_keep, check_seed, check_seed_difficulty
    from harness.manifest import TASK_NAMES, TASKS_BY_FAMILY, family_counts, family_of
    from harness.registry import get_task, list_tasks, register
    from harness.vocabulary import DEFAULT_DIFFICULTY, DIFFICULTIES, FAMILIES, SIDES

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "DEFAULT_DIFFICULTY": "vocabulary",
    "DIFFICULTIES": "vocabulary",
    "FAMILIES": "vocabulary",
    "Instance": "base",
    "SIDES": "vocabulary",
    "SOLO_VIEWS": "base",
    "TASKS_BY_FAMILY": "manifest",
    "TASK_NAMES": "manifest",
    "Task": "base",
    "UNPARSED": "base",
    "View": "base",
    "check_keep": "checks",
    "check_seed": "checks",
    "check_seed_difficulty": "checks",
    "family_counts": "manifest",
    "family_of": "manifest",
    "get_task": "registry",
    "list_tasks": "registry",
    "normalise_answer": "answer_text",
    "register": "registry",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, subpackages=("runner", "tasks"))
