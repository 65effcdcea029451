"""Registry of tasks by name.

Tasks register themselves with the :func:`register` class decorator when their module is
imported; :func:`list_tasks` imports every module of :mod:`harness.tasks` first, so the registry
is complete whichever task a caller asks for. Which tasks there should be is declared in
:mod:`harness.manifest`; a test checks that the two agree.
"""

from __future__ import annotations

import importlib
import pkgutil

from harness.base import Task
from harness.vocabulary import FAMILIES

_REGISTRY: dict[str, type[Task]] = {}


def register(cls: type[Task]) -> type[Task]:
    """Class decorator: add a :class:`~harness.base.Task` subclass to the registry.

    Parameters
    ----------
    cls : type
        A :class:`~harness.base.Task` subclass with class attributes ``name`` (non-empty str)
        and ``family`` (one of ``spatial``, ``relational``, ``csp``).

    Returns
    -------
    type
        ``cls`` itself, unchanged (so it works as a decorator). Registering the same class
        twice is a no-op.

    Raises
    ------
    ValueError
        If ``name`` is missing or empty, the name is already taken by another class, or the
        family is not one of ``spatial``, ``relational``, ``csp``.

    Examples
    --------
    Re-registering a registered class is allowed; a second class under a taken name is not:

    >>> from harness.registry import get_task, register
    >>> cls = type(get_task("csp_sudoku4"))
    >>> register(cls) is cls
    True
    >>> class Clash(cls):
    ...     pass
    >>> register(Clash)
    Traceback (most recent call last):
    ...
    ValueError: task name 'csp_sudoku4' is already registered by <class '...'>
    >>> class NoFamily(cls):
    ...     name, family = "no_family_demo", "games"
    >>> register(NoFamily)
    Traceback (most recent call last):
    ...
    ValueError: task 'no_family_demo': family must be one of ('spatial', 'relational', 'csp'), got 'games'
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
    # harness.tasks is imported here, not at module level: its modules import harness.base,
    # so a module-level import would tie the two packages in a circle
    tasks = importlib.import_module("harness.tasks")
    for mod in pkgutil.walk_packages(tasks.__path__, prefix="harness.tasks."):
        importlib.import_module(mod.name)


def list_tasks(family: str | None = None) -> list[Task]:
    """All registered tasks (instances), ordered by family then name.

    Imports every module of :mod:`harness.tasks` first, so the list is complete.

    Parameters
    ----------
    family : {"spatial", "relational", "csp"}, optional
        Keep only tasks of this family; default all. An unknown family gives an empty list.

    Returns
    -------
    list of Task
        A fresh instance of each registered task, families in the order spatial, relational,
        csp, names sorted within a family.

    Examples
    --------
    >>> from harness.registry import list_tasks
    >>> [t.name for t in list_tasks("csp")][:3]
    ['csp_budget_currency', 'csp_delivery_windows', 'csp_graph_colouring']
    >>> from harness.manifest import TASK_NAMES, TASKS_BY_FAMILY
    >>> [t.name for t in list_tasks()] == list(TASK_NAMES)
    True
    >>> len(list_tasks("spatial")) == len(TASKS_BY_FAMILY["spatial"]), list_tasks()[0].family
    (True, 'spatial')
    """
    _load_all()
    order = {f: i for i, f in enumerate(FAMILIES)}
    tasks = [cls() for cls in _REGISTRY.values() if family is None or cls.family == family]
    return sorted(tasks, key=lambda t: (order[t.family], t.name))


def get_task(name: str) -> Task:
    """The task registered under ``name``.

    Parameters
    ----------
    name : str
        Registered task name, e.g. ``"csp_sudoku4"`` (see :func:`list_tasks`).

    Returns
    -------
    Task
        A fresh instance of the task class.

    Raises
    ------
    KeyError
        With the list of known names, if ``name`` is not registered.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> task.family, task.puzzle_kind
    ('csp', 'constraint')
    >>> task.oracle(task.generate(seed=0, difficulty=0))
    '3412/1243/4321/2134'
    >>> task.grade(task.generate(0, difficulty=0), "3412/1243/4321/2134")
    1.0
    >>> get_task("sudoku")
    Traceback (most recent call last):
    ...
    KeyError: "unknown task 'sudoku'; known tasks: csp_budget_currency, ..."
    """
    if name not in _REGISTRY:  # a registered task is returned without walking the package
        _load_all()
    if name not in _REGISTRY:
        raise KeyError(f"unknown task {name!r}; known tasks: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]()
