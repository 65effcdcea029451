"""The values a task passes around: :class:`Instance`, :class:`View` and :data:`UNPARSED`.

:mod:`harness.base` re-exports every name; import them from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar


class _Unparsed:
    """Sentinel for free text the task's parser could not read as an answer (scores 0)."""

    _instance: ClassVar[_Unparsed | None] = None

    def __new__(cls) -> _Unparsed:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNPARSED"

    def __bool__(self) -> bool:
        return False


UNPARSED = _Unparsed()


@dataclass(frozen=True)
class Instance:
    """One generated problem.

    Attributes
    ----------
    task : str
        Registered task name.
    seed : int
        Seed it was generated from; the same (task, seed, difficulty) gives the same instance.
    difficulty : int
        0 (easy), 1 (default) or 2 (hard).
    data : dict
        Task-specific content (JSON-serialisable): the complete problem.
    conventions : dict
        Declared surface conventions of each view, ``{"a": {...}, "b": {...}}`` (origin corner,
        axis order, index base, naming, unit, timezone, date format, ...). The two must differ
        in at least one key.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
    >>> instance.task, instance.seed, instance.difficulty
    ('csp_sudoku4', 0, 0)
    >>> instance.conventions["a"]["origin"], instance.conventions["b"]["origin"]
    ('top-left', 'bottom-left')
    >>> task.generate(seed=0, difficulty=0) == instance
    True
    """

    task: str
    seed: int
    difficulty: int
    data: dict[str, Any]
    conventions: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class View:
    """One agent's private half of an instance.

    Attributes
    ----------
    agent : str
        ``"a"`` or ``"b"``.
    data : dict
        The facts this agent holds, already expressed in its own conventions.
    conventions : dict
        This view's surface conventions (same as ``instance.conventions[agent]``).

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
    >>> a, b = task.split(instance)
    >>> a.agent, a.conventions == instance.conventions["a"]
    ('a', True)
    >>> b.data["facts"]
    ['(x=3, y=0) = 4', '(x=3, y=1) = 1', '(x=1, y=3) = 4']
    """

    agent: str
    data: dict[str, Any]
    conventions: dict[str, Any] = field(default_factory=dict)
