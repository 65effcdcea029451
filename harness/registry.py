"""Registry of tasks by name.

Tasks register themselves with the :func:`register` class decorator when their module is
imported; :func:`list_tasks` imports every module of :mod:`harness.tasks` first, so the registry
is complete whichever task a caller asks for.
"""

from __future__ import annotations

import importlib
import pkgutil

from harness.base import FAMILIES, Task

_REGISTRY: dict[str, type[Task]] = {}


def register(cls: type[Task]) -> type[Task]:
    """Class decorator: add a :class:`~harness.base.Task` subclass to the registry.

    Raises
    ------
    ValueError
        If the name is already taken or the family is not one of ``spatial``, ``relational``,
        ``csp``.
    """
    name = getattr(cls, "name", None)
    if not name:
        raise ValueError(f"{cls.__qualname__} has no `name`")
    if getattr(cls, "family", None) not in FAMILIES:
        raise ValueError(f"task {name!r}: family must be one of {FAMILIES}, got {cls.family!r}")
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"task name {name!r} is already registered by {_REGISTRY[name]!r}")
    _REGISTRY[name] = cls
    return cls


def _load_all() -> None:
    import harness.tasks as pkg

    for mod in pkgutil.walk_packages(pkg.__path__, prefix="harness.tasks."):
        importlib.import_module(mod.name)


def list_tasks(family: str | None = None) -> list[Task]:
    """All registered tasks (instances), ordered by family then name."""
    _load_all()
    order = {f: i for i, f in enumerate(FAMILIES)}
    tasks = [cls() for cls in _REGISTRY.values() if family is None or cls.family == family]
    return sorted(tasks, key=lambda t: (order[t.family], t.name))


def get_task(name: str) -> Task:
    """The task registered under ``name``.

    Raises
    ------
    KeyError
        With the list of known names, if ``name`` is not registered.
    """
    _load_all()
    if name not in _REGISTRY:
        raise KeyError(f"unknown task {name!r}; known tasks: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]()
