"""The task interface every collaboration-tax task implements.

A task turns a seed into an :class:`Instance` (the whole problem, what the solo control
reads), splits it into two private :class:`View` objects whose union is necessary for the
answer, renders each as text, states the prompts, and grades an answer deterministically on
[0, 1]. Answers are plain JSON-serialisable Python values whose shape each task documents in
``answer_format``.

This module is the harness's public face: besides :class:`Task` it re-exports the shared
vocabulary (:mod:`harness.vocabulary`), the argument validators (:mod:`harness.checks`) and
the values a task passes around (:mod:`harness.instance`), so ``from harness.base import ...``
reaches all of them.

References
----------
.. [1] *The Collaboration Tax*, EMNLP 2026, sections 1 (the four task properties) and 7.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from harness.answer_text import AnswerReading
from harness.checks import check_keep, check_seed, check_seed_difficulty
from harness.instance import UNPARSED, Instance, View
from harness.vocabulary import (
    DEFAULT_DIFFICULTY,
    DIFFICULTIES,
    FAMILIES,
    FINAL_MARKER,
    OTHER_AGENT_PREFIX,
    PUZZLE_KINDS,
    SIDES,
)

#: What the solo control may read: one canonical form, or both views' own conventions.
SOLO_VIEWS = ("canonical", "both")

__all__ = [
    "DEFAULT_DIFFICULTY",
    "DIFFICULTIES",
    "FAMILIES",
    "FINAL_MARKER",
    "OTHER_AGENT_PREFIX",
    "PUZZLE_KINDS",
    "SIDES",
    "SOLO_VIEWS",
    "UNPARSED",
    "Instance",
    "Task",
    "View",
    "check_keep",
    "check_seed",
    "check_seed_difficulty",
]


class Task(AnswerReading, ABC):
    """Base class of a split-view task. Subclass it and decorate with :func:`harness.register`.

    Subclasses set the class attributes ``name``, ``family`` (one of :data:`FAMILIES`),
    ``description`` (one line) and ``answer_format`` (how to write an answer after the
    termination marker, with an example), and implement the abstract methods.

    Examples
    --------
    The whole life of one instance with a registered task:

    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
    >>> answer = task.oracle(instance)
    >>> answer
    '3412/1243/4321/2134'
    >>> reply = "We agree. FINAL ANSWER: " + task.format_answer(answer)
    >>> task.grade(instance, task.extract_answer(reply))
    1.0
    >>> task.grade(instance, task.corrupt(instance, answer))
    0.0
    """

    name: ClassVar[str]
    family: ClassVar[str]
    description: ClassVar[str]
    answer_format: ClassVar[str]

    # ----- the problem ---------------------------------------------------------------
    @abstractmethod
    def generate(self, seed: int, difficulty: int = DEFAULT_DIFFICULTY) -> Instance:
        """Deterministically generate an instance from ``seed`` (use ``random.Random(seed)``
        or ``numpy.random.default_rng(seed)``; never global state).

        Parameters
        ----------
        seed : int
            Any integer; the same (seed, difficulty) gives an equal instance.
        difficulty : {0, 1, 2}, default 1
            Easy, default, hard.

        Returns
        -------
        Instance

        Raises
        ------
        TypeError, ValueError
            As :func:`check_seed_difficulty`.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
        >>> task.generate(3, 0) == task.generate(3, 0), task.generate(3, 0) == task.generate(4, 0)
        (True, False)
        """

    @abstractmethod
    def split(self, instance: Instance) -> tuple[View, View]:
        """Partition the instance into two views whose union is necessary for the answer.

        Parameters
        ----------
        instance : Instance
            An instance of this task.

        Returns
        -------
        (View, View)
            The views of agents ``"a"`` and ``"b"``, in that order.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> [(v.agent, len(v.data["facts"])) for v in task.split(instance)]
        [('a', 3), ('b', 3)]
        """

    @abstractmethod
    def render(self, instance: Instance) -> str:
        """The full instance as text in one canonical form: what the solo control reads.

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        str
            Every fact of both views in one set of conventions (Spatial: the canonical frame;
            Relational: agent a's wording; CSP: notebook 1's conventions).
            :meth:`render_both` keeps each view's own.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> print(task.render(instance).splitlines()[0])
        4x4 Sudoku
        >>> task.solve_text(task.render(instance)) == task.oracle(instance)
        True
        """

    @abstractmethod
    def render_view(self, view: View) -> str:
        """One view as text, exactly as that agent reads it.

        Parameters
        ----------
        view : View

        Returns
        -------
        str

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> a, _ = task.split(instance)
        >>> print(task.render_view(a).splitlines()[-1])
          3. (row 4, column 2) = 1
        """

    @abstractmethod
    def oracle(self, instance: Instance) -> Any:
        """The correct answer (by BFS, topological sort, constraint solving, ...).

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        object
            A JSON-serialisable value in the shape ``answer_format`` documents; it grades 1.0.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> task.oracle(instance), task.grade(instance, task.oracle(instance))
        ('3412/1243/4321/2134', 1.0)
        """

    @abstractmethod
    def parse(self, text: str) -> Any:
        """Parse an answer written in ``answer_format``; return :data:`UNPARSED` unless the
        whole text reads as an answer (no item skipped, no trailing remark). Must never raise
        on arbitrary text. :meth:`read_answer` normalises the decoration models add first.

        Parameters
        ----------
        text : str
            What follows the termination marker.

        Returns
        -------
        object
            The answer, or :data:`UNPARSED`.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
        >>> task.parse("3412/1243/4321/2134"), task.parse("no idea")
        ('3412/1243/4321/2134', UNPARSED)
        """

    @abstractmethod
    def grade(self, instance: Instance, answer: Any) -> float:
        """Deterministic score on [0, 1]: 1.0 exactly for a correct answer, documented partial
        credit otherwise, 0.0 for no answer (``None`` or :data:`UNPARSED`).

        Parameters
        ----------
        instance : Instance
        answer : object
            A parsed answer, ``None`` or :data:`UNPARSED`.

        Returns
        -------
        float
            Score in [0, 1].

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> task.grade(instance, "3412/1243/4321/2134"), task.grade(instance, None)
        (1.0, 0.0)
        """

    @abstractmethod
    def counterfactual(self, instance: Instance, keep: str, seed: int) -> Instance:
        """Union-necessity probe: a new instance that keeps view ``keep`` ("a" or "b")
        exactly as it is and regenerates the other half from ``seed``. For some seeds the
        oracle answer of the result must differ from ``oracle(instance)``.

        Parameters
        ----------
        instance : Instance
        keep : {"a", "b"}
            The view kept unchanged.
        seed : int
            Seed of the regenerated half.

        Returns
        -------
        Instance

        Raises
        ------
        ValueError
            If ``keep`` is not ``"a"`` or ``"b"`` (:func:`check_keep`).

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> other = task.counterfactual(instance, "a", 5)
        >>> task.split(other)[0] == task.split(instance)[0]
        True
        >>> task.oracle(other), task.oracle(instance)
        ('1243/3412/4321/2134', '3412/1243/4321/2134')
        """

    # ----- prompts (shared wording; tasks may extend) ---------------------------------
    @property
    def puzzle_kind(self) -> str:
        """What the prompts call the puzzle ("map", "logic", "constraint"): the family name
        is project vocabulary, not something an agent should have to interpret.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> get_task("csp_sudoku4").puzzle_kind, get_task("spatial_one_way").puzzle_kind
        ('constraint', 'map')
        """
        return PUZZLE_KINDS.get(self.family, self.family)

    def describe_conventions(self, instance: Instance) -> list[str]:
        """One line per view naming its declared conventions, for people (``harness show``).

        The default joins ``key: value`` pairs of ``instance.conventions``; tasks whose
        conventions are codes (the spatial frames) override it.

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        list of str
            One line per agent, ``"a: ..."`` then ``"b: ..."``.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> for line in task.describe_conventions(instance):
        ...     print(line)
        a: index base: 1; origin: top-left; axis order: row, column
        b: index base: 0; origin: bottom-left; axis order: x (column), y (row)
        """
        return [
            f"{agent}: " + "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in conv.items())
            for agent, conv in sorted(instance.conventions.items())
        ]

    def render_both(self, instance: Instance) -> str:
        """The full instance with each view in its own conventions (the ``both`` solo view).

        The default writes the two views' renderings one after the other under a heading that
        says their conventions differ; the CSP bases write their two notebooks.

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("relational_family_tree")
        >>> a, b = task.split(task.generate(0))
        >>> all(task.render_view(v) in task.render_both(task.generate(0)) for v in (a, b))
        True
        """
        a, b = self.split(instance)
        return (
            "The information comes from two sources that use different conventions; each "
            "states its own. Together they determine exactly one answer.\n\n"
            f"--- Source 1 ---\n{self.render_view(a)}\n\n"
            f"--- Source 2 ---\n{self.render_view(b)}"
        )

    def solo_prompt(self, instance: Instance, solo_view: str = "canonical") -> str:
        """System+user prompt of the solo control on the full instance.

        Parameters
        ----------
        instance : Instance
        solo_view : {"canonical", "both"}, default "canonical"
            What the solo control reads: the merged instance in one canonical form
            (:meth:`render`, every family alike: the paper's "full instance"), or both views
            in their own conventions (:meth:`render_both`), which makes the solo control pay
            the conversion cost too.

        Returns
        -------
        str
            The rendering of the instance between an opening line and the answer instructions.

        Raises ValueError for an unknown ``solo_view``.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> prompt = task.solo_prompt(instance)
        >>> print(prompt.splitlines()[0])
        You are solving a constraint puzzle on your own.
        >>> task.render(instance) in prompt, "FINAL ANSWER:" in prompt
        (True, True)
        """
        if solo_view not in SOLO_VIEWS:
            raise ValueError(f"solo_view must be one of {', '.join(SOLO_VIEWS)}, "
                             f"got {solo_view!r}")
        text = self.render(instance) if solo_view == "canonical" else self.render_both(instance)
        return (
            f"You are solving a {self.puzzle_kind} puzzle on your own.\n\n"
            f"{text}\n\n"
            f"When you are sure, write one line that starts with '{FINAL_MARKER}' followed by "
            f"your answer in this format: {self.answer_format}"
        )

    def agent_prompt(self, view: View) -> str:
        """Prompt of one collaborating agent: its private view, the partner's message prefix
        and the termination marker with the answer format.

        Parameters
        ----------
        view : View

        Returns
        -------
        str

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> a, b = task.split(instance)
        >>> prompt = task.agent_prompt(a)
        >>> "[other agent]:" in prompt, task.render_view(a) in prompt, task.render_view(b) in prompt
        (True, True, False)
        """
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

    def split_solo_prompt(self, view: View) -> str:
        """Prompt of the split_solo control: one agent with one view and no partner (the
        control that shows a view alone does not determine the answer).

        Parameters
        ----------
        view : View

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("csp_sudoku4")
        >>> a, _ = task.split(task.generate(0, 0))
        >>> prompt = task.split_solo_prompt(a)
        >>> print(prompt.splitlines()[0])
        You are solving a constraint puzzle on your own, holding only part of the information about it; no one can give you the rest.
        >>> task.render_view(a) in prompt, "[other agent]:" in prompt
        (True, False)
        """
        return (
            f"You are solving a {self.puzzle_kind} puzzle on your own, holding only part of the "
            "information about it; no one can give you the rest.\n\n"
            f"Your information:\n{self.render_view(view)}\n\n"
            f"When you are sure, write one line that starts with '{FINAL_MARKER}' followed by "
            f"your answer in this format: {self.answer_format}"
        )

    # ----- answers: extract_answer, read_answer, recognises (harness.answer_text) -----
    # ----- optional hooks used by the property tests (tests/harness/test_properties.py) --
    def format_answer(self, answer: Any) -> str:
        """Write ``answer`` as text in ``answer_format`` (what follows the termination marker).

        The default is ``json.dumps(answer)``. The property tests check the round trip
        ``grade(instance, parse(format_answer(oracle(instance)))) == 1`` only for tasks that
        override this method.

        Parameters
        ----------
        answer : object
            An answer in the task's parsed shape.

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("csp_knapsack_units")
        >>> task.format_answer(["cooler", "guitar", "kettle"])
        'cooler, guitar, kettle'
        """
        return json.dumps(answer)

    def corrupt(self, instance: Instance, answer: Any) -> Any:
        """A wrong variant of a correct ``answer``; the property tests require that it scores
        below 1. Override it when the generic mutation below may stay correct for your task.

        Default: a list or tuple of two or more items is reversed (or loses its last item if
        reversing changes nothing), a one-item list becomes empty, a dict gets its first value
        replaced by the string ``"<corrupted>"``, a string gets ``"<corrupted>"`` appended, a
        bool is negated, a number gets 1 added; any other value becomes :data:`UNPARSED`.

        Parameters
        ----------
        instance : Instance
        answer : object
            A correct answer.

        Returns
        -------
        object
            The wrong variant.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> task.corrupt(instance, "3412/1243/4321/2134")
        '3412/1243/4321/2134<corrupted>'
        >>> task.corrupt(instance, [1, 2, 3]), task.corrupt(instance, {"x": 1}), task.corrupt(instance, 4)
        ([3, 2, 1], {'x': '<corrupted>'}, 5)
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

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        object
            The naive answer, ``None``, or ``NotImplemented``.

        Examples
        --------
        Pasting notebook 2's (x, y) cells into notebook 1's (row, column) frame gives an
        unsolvable grid:

    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> print(task.naive_answer(instance))
        None
        """
        return NotImplemented

    def solve_text(self, text: str) -> Any:
        """A solver that reads only the full rendering ``render(instance)`` and returns the
        answer; ``NotImplemented`` (the default) when the task has none. Used by the
        solo-tractability test to show the rendering contains everything needed.

        Parameters
        ----------
        text : str
            ``render(instance)``.

        Returns
        -------
        object
            The answer, or ``NotImplemented``.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> instance = task.generate(seed=0, difficulty=0)
        >>> task.solve_text(task.render(instance))
        '3412/1243/4321/2134'
        """
        return NotImplemented

    def views(self, seed: int, difficulty: int = DEFAULT_DIFFICULTY) -> tuple[Instance, View, View]:
        """Convenience: generate and split in one call.

        Parameters
        ----------
        seed : int
        difficulty : {0, 1, 2}, default 1

        Returns
        -------
        (Instance, View, View)
            ``generate(seed, difficulty)`` and its two views.

        Raises
        ------
        TypeError, ValueError
            As :meth:`generate`.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
        >>> instance, a, b = task.views(0, difficulty=0)
        >>> instance.seed, a.agent, b.agent
        (0, 'a', 'b')
        """
        instance = self.generate(seed, difficulty)
        a, b = self.split(instance)
        return instance, a, b
