"""The task interface every collaboration-tax task implements.

A task turns a seed into an :class:`Instance` (the whole problem, what the solo control
reads), splits it into two private :class:`View` objects whose union is necessary for the
answer, renders each as text, states the prompts, and grades an answer deterministically on
[0, 1]. Answers are plain JSON-serialisable Python values whose shape each task documents in
``answer_format``.

Reference: "The Collaboration Tax" (``shared/seeds/000_605de23d438c090f.txt``), sections 1 and 7.
"""

from __future__ import annotations

import json
import numbers
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

#: Message prefix that marks the partner's messages in a collaborative dialogue.
OTHER_AGENT_PREFIX = "[other agent]:"
#: Termination marker: the line that commits the pair (or the solo agent) to an answer.
FINAL_MARKER = "FINAL ANSWER:"

DIFFICULTIES = (0, 1, 2)
DEFAULT_DIFFICULTY = 1

FAMILIES = ("spatial", "relational", "csp")
#: What the prompts call each family's puzzles.
PUZZLE_KINDS = {"spatial": "map", "relational": "logic", "csp": "constraint"}


SIDES = ("a", "b")


def check_seed(seed: Any) -> None:
    """Validate a ``seed`` argument.

    Raises
    ------
    TypeError
        If ``seed`` is not an integer (``int`` or a NumPy integer; ``bool`` is refused).
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}: {seed!r}")


def check_seed_difficulty(seed: Any, difficulty: Any) -> None:
    """Validate the public ``generate`` arguments.

    Raises
    ------
    TypeError
        If ``seed`` is not an integer (``bool`` is refused).
    ValueError
        If ``difficulty`` is not one of 0, 1, 2 (``bool`` is refused).
    """
    check_seed(seed)
    if isinstance(difficulty, bool) or difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")


def check_keep(keep: Any) -> None:
    """Validate the ``keep`` argument of ``counterfactual``.

    Raises
    ------
    ValueError
        If ``keep`` is not ``"a"`` or ``"b"``.
    """
    if keep not in SIDES:
        raise ValueError(f"keep must be 'a' or 'b', got {keep!r}")


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
    """

    agent: str
    data: dict[str, Any]
    conventions: dict[str, Any] = field(default_factory=dict)


class Task(ABC):
    """Base class of a split-view task. Subclass it and decorate with :func:`harness.register`.

    Subclasses set the class attributes ``name``, ``family`` (one of :data:`FAMILIES`),
    ``description`` (one line) and ``answer_format`` (how to write an answer after the
    termination marker, with an example), and implement the abstract methods.
    """

    name: ClassVar[str]
    family: ClassVar[str]
    description: ClassVar[str]
    answer_format: ClassVar[str]

    # ----- the problem ---------------------------------------------------------------
    @abstractmethod
    def generate(self, seed: int, difficulty: int = DEFAULT_DIFFICULTY) -> Instance:
        """Deterministically generate an instance from ``seed`` (use ``random.Random(seed)``
        or ``numpy.random.default_rng(seed)``; never global state)."""

    @abstractmethod
    def split(self, instance: Instance) -> tuple[View, View]:
        """Partition the instance into two views whose union is necessary for the answer."""

    @abstractmethod
    def render(self, instance: Instance) -> str:
        """The full instance as text: everything the solo control reads."""

    @abstractmethod
    def render_view(self, view: View) -> str:
        """One view as text, exactly as that agent reads it."""

    @abstractmethod
    def oracle(self, instance: Instance) -> Any:
        """The correct answer (by BFS, topological sort, constraint solving, ...)."""

    @abstractmethod
    def parse(self, text: str) -> Any:
        """Parse an answer written in ``answer_format``; return :data:`UNPARSED` when the text
        cannot be read. Must never raise on arbitrary text."""

    @abstractmethod
    def grade(self, instance: Instance, answer: Any) -> float:
        """Deterministic score on [0, 1]: 1.0 exactly for a correct answer, documented partial
        credit otherwise, 0.0 for no answer (``None`` or :data:`UNPARSED`)."""

    @abstractmethod
    def counterfactual(self, instance: Instance, keep: str, seed: int) -> Instance:
        """Union-necessity probe: a new instance that keeps view ``keep`` ("a" or "b")
        exactly as it is and regenerates the other half from ``seed``. For some seeds the
        oracle answer of the result must differ from ``oracle(instance)``."""

    # ----- prompts (shared wording; tasks may extend) ---------------------------------
    @property
    def puzzle_kind(self) -> str:
        """What the prompts call the puzzle ("map", "logic", "constraint"): the family name
        is project vocabulary, not something an agent should have to interpret."""
        return PUZZLE_KINDS.get(self.family, self.family)

    def describe_conventions(self, instance: Instance) -> list[str]:
        """One line per view naming its declared conventions, for people (``harness show``).

        The default joins ``key: value`` pairs of ``instance.conventions``; tasks whose
        conventions are codes (the spatial frames) override it.
        """
        return [
            f"{agent}: " + "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in conv.items())
            for agent, conv in sorted(instance.conventions.items())
        ]

    def solo_prompt(self, instance: Instance) -> str:
        """System+user prompt of the solo control on the full instance."""
        return (
            f"You are solving a {self.puzzle_kind} puzzle on your own.\n\n"
            f"{self.render(instance)}\n\n"
            f"When you are sure, write one line that starts with '{FINAL_MARKER}' followed by "
            f"your answer in this format: {self.answer_format}"
        )

    def agent_prompt(self, view: View) -> str:
        """Prompt of one collaborating agent: its private view, the partner's message prefix
        and the termination marker with the answer format."""
        return (
            f"You and another agent are solving a {self.puzzle_kind} puzzle together. Each of you "
            "holds a private part of the information; neither part is enough on its own, and "
            "the other agent may describe things in different conventions than yours.\n"
            f"Messages from your partner arrive prefixed with '{OTHER_AGENT_PREFIX}'. Whatever "
            "you write is sent to your partner.\n\n"
            f"Your private information:\n{self.render_view(view)}\n\n"
            f"When both of you agree, either of you ends the dialogue by writing one line that "
            f"starts with '{FINAL_MARKER}' followed by the answer in this format: "
            f"{self.answer_format}"
        )

    # ----- answers -------------------------------------------------------------------
    def extract_answer(self, text: str) -> Any:
        """Find the last termination marker in ``text`` and parse what follows it.

        Returns :data:`UNPARSED` when there is no marker or the parser cannot read it.
        """
        if not isinstance(text, str):
            return UNPARSED
        matches = list(re.finditer(re.escape(FINAL_MARKER), text, flags=re.IGNORECASE))
        if not matches:
            return UNPARSED
        tail = text[matches[-1].end():].strip()
        try:
            return self.parse(tail)
        except Exception:  # a parser bug must not crash a run; the answer is unreadable
            return UNPARSED

    # ----- optional hooks used by the property tests (tests/harness/test_properties.py) --
    def format_answer(self, answer: Any) -> str:
        """Write ``answer`` as text in ``answer_format`` (what follows the termination marker).

        The default is ``json.dumps(answer)``. The property tests check the round trip
        ``grade(instance, parse(format_answer(oracle(instance)))) == 1`` only for tasks that
        override this method.
        """
        return json.dumps(answer)

    def corrupt(self, instance: Instance, answer: Any) -> Any:
        """A wrong variant of a correct ``answer``; the property tests require that it scores
        below 1. Override it when the generic mutation below may stay correct for your task.

        Default: a list or tuple of two or more items is reversed (or loses its last item if
        reversing changes nothing), a one-item list becomes empty, a dict gets its first value
        replaced by the string ``"<corrupted>"``, a string gets ``"<corrupted>"`` appended, a
        bool is negated, a number gets 1 added.
        """
        if isinstance(answer, (list, tuple)):
            items = list(answer)
            if len(items) >= 2:
                rev = items[::-1]
                return rev if rev != items else items[:-1]
            return []
        if isinstance(answer, dict):
            if not answer:
                return {"<corrupted>": "<corrupted>"}
            out = dict(answer)
            out[next(iter(out))] = "<corrupted>"
            return out
        if isinstance(answer, str):
            return answer + "<corrupted>"
        if isinstance(answer, bool):
            return not answer
        if isinstance(answer, (int, float)):
            return answer + 1
        return UNPARSED

    def naive_answer(self, instance: Instance) -> Any:
        """Surface-friction probe: the answer a solver gets by pasting the two views together
        verbatim, reading every fact of view ``b`` as if it were written in view ``a``'s
        conventions, and solving that (``None`` if the pasted problem has no answer).

        Return ``NotImplemented`` (the default) when the task cannot define it; the
        surface-friction test then only checks that the declared conventions differ.
        """
        return NotImplemented

    def solve_text(self, text: str) -> Any:
        """A solver that reads only the full rendering ``render(instance)`` and returns the
        answer; ``NotImplemented`` (the default) when the task has none. Used by the
        solo-tractability test to show the rendering contains everything needed.
        """
        return NotImplemented

    def views(self, seed: int, difficulty: int = DEFAULT_DIFFICULTY) -> tuple[Instance, View, View]:
        """Convenience: generate and split in one call."""
        instance = self.generate(seed, difficulty)
        a, b = self.split(instance)
        return instance, a, b
