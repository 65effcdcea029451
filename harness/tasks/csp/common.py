"""Shared machinery of the CSP family: unique-solution generation by constraint elimination.

Most CSP tasks share one shape. A *setup* (the entities, the domains, the two views' surface
conventions) fixes a finite set of candidate assignments, enumerated once with python-constraint
from the structural rules (every guest in one seat, each Sudoku row a permutation, ...). The
generator draws a hidden target among them and adds atomic constraints that are true of the
target, alternating between the two views, until exactly one candidate survives the union while
each view alone still leaves at least two. The oracle does not know the target: it filters the
candidates by every constraint of both views and returns the single survivor.

``instance.data`` is ``{"setup": {...}, "constraints": {"a": [...], "b": [...]}}``; each
constraint is a small JSON dict in canonical form (UTC minutes, grams, 0-based positions), and
each view renders it in its own conventions (local time, ounces, 1-based seats from the other
end, ...).

The knapsack and budget tasks are optimisation problems with their own base
(:mod:`harness.tasks.csp.optimisation`); the answer readers live in
:mod:`harness.tasks.csp.answers` and are re-exported here.

References
----------
.. [1] *The Collaboration Tax*, EMNLP 2026, section 1: CSP agents "hold constraints expressed
   in different units, formats, or timezones".
"""

from __future__ import annotations

import random
from abc import abstractmethod
from functools import lru_cache
from typing import Any

import numpy as np

from harness.base import (
    DIFFICULTIES,
    SIDES,
    UNPARSED,
    Instance,
    Task,
    View,
    check_keep,
    check_seed_difficulty,
)
from harness.tasks.csp.answers import (
    WORD,
    OrderAnswer,
    canonical_name,
    first_line_block,
    parse_name_list,
    parse_pairs,
    position_vector,
    word_list,
)
from harness.tasks.csp.notebooks import read_notebooks

__all__ = [  # the validators and answer readers are re-exported for the CSP task modules
    "DIFFICULTIES", "SIDES", "UNPARSED", "WORD", "EliminationTask", "Instance", "OrderAnswer",
    "Task", "View", "canonical_name", "check_keep", "check_seed_difficulty", "first_line_block",
    "parse_name_list", "parse_pairs", "permutations_array", "position_vector", "read_only_array",
    "solutions_array", "word_list",
]

#: Proposals drawn per greedy step; the one that removes most candidates is kept.
_PROPOSALS_PER_STEP = 4
#: Greedy steps without an admissible proposal before the attempt is restarted.
_MAX_FAILED_STEPS = 30
#: Restarts before generation gives up (never reached in the tests; a bug guard).
_MAX_ATTEMPTS = 200


def solutions_array(problem: Any, variables: list[str]) -> np.ndarray:
    """All solutions of a python-constraint ``Problem`` as an int array, shape (M, len(variables)).

    Rows are sorted lexicographically so the order never depends on the solver's search order.
    """
    sols = problem.getSolutions()
    arr = np.array([[s[v] for v in variables] for s in sols], dtype=np.int64)
    if arr.size == 0:
        return arr.reshape(0, len(variables))
    order = np.lexsort(arr.T[::-1])
    return arr[order]


@lru_cache(maxsize=64)
def permutations_array(n: int) -> np.ndarray:
    """All permutations of ``range(n)``, shape (n!, n): row m gives the position of item i.

    Enumerated by python-constraint (``AllDifferentConstraint``) and cached.
    """
    import constraint  # deferred third-party import (only generation needs it), not a cycle

    problem = constraint.Problem()
    names = [f"x{i}" for i in range(n)]
    problem.addVariables(names, list(range(n)))
    problem.addConstraint(constraint.AllDifferentConstraint(), names)
    return read_only_array(solutions_array(problem, names))


def read_only_array(arr: np.ndarray) -> np.ndarray:
    """``arr`` as a column-major (masks read columns), read-only array, fit to be cached."""
    arr = np.asfortranarray(arr)
    arr.setflags(write=False)
    return arr


class EliminationTask(Task):
    """Base of the CSP tasks whose answer is the unique candidate left by all constraints.

    Template-method hooks (the same style as :class:`~harness.tasks.spatial.common.GridTask` and
    :class:`~harness.tasks.relational.common.RelationalTask`): subclasses implement the
    abstract hooks :meth:`_build`, :meth:`_candidates`, :meth:`_propose`, :meth:`_mask`,
    :meth:`_view_lines`, :meth:`_answer_of`, :meth:`_vector_of`, :meth:`_misread` and
    :meth:`_solve_notebooks`, plus :meth:`parse`; :meth:`_proposals_per_step`,
    :meth:`_keep_redundant`, :meth:`_priority` and :meth:`_target_ok` have defaults. The
    default :meth:`grade` is the fraction of answer positions (seats, cells, slots...) equal to
    the oracle's; tasks override it when another partial credit means more.
    """

    family = "csp"

    # ----- to implement ----------------------------------------------------------------
    @abstractmethod
    def _build(self, rng: random.Random, difficulty: int) -> tuple[dict, dict]:
        """Draw the shared setup and the two views' conventions ``{"a": {...}, "b": {...}}``."""

    @abstractmethod
    def _candidates(self, setup: dict) -> np.ndarray:
        """All structurally valid assignments, int array (M, n)."""

    @abstractmethod
    def _propose(self, rng: random.Random, setup: dict, target: np.ndarray, side: str) -> dict:
        """A random atomic constraint (JSON dict) that ``target`` satisfies, for view ``side``."""

    @abstractmethod
    def _mask(self, setup: dict, cands: np.ndarray, c: dict) -> np.ndarray:
        """Boolean array (M,): which candidate rows satisfy constraint ``c``."""

    @abstractmethod
    def _view_lines(self, setup: dict, conv: dict, constraints: list[dict]) -> dict:
        """``{"intro": [str], "facts": [str]}``: the view's text in its own conventions."""

    @abstractmethod
    def _answer_of(self, setup: dict, vector: np.ndarray) -> Any:
        """The documented answer value for a candidate row."""

    @abstractmethod
    def _vector_of(self, setup: dict, answer: Any) -> np.ndarray | None:
        """Candidate row for a parsed answer, with -1 where a position is missing or unknown;
        ``None`` if the answer has the wrong shape altogether."""

    @abstractmethod
    def _misread(self, setup: dict, conventions: dict, c: dict) -> dict | None:
        """View b's constraint ``c`` as a solver reads it in view a's conventions (the naive
        paste of :meth:`naive_answer`); ``None`` when the pasted sentence names nothing."""

    @abstractmethod
    def _solve_notebooks(self, books: list[dict]) -> Any:
        """The answer, re-derived from the two notebooks of ``render(instance)`` alone
        (:func:`~harness.tasks.csp.notebooks.read_notebooks`); ``ValueError`` naming any line it
        cannot read. Elimination tasks rebuild the setup and the canonical constraints and
        return :meth:`_unique`."""

    #: Title line of the rendered puzzle.
    title: str = "Puzzle"

    def _proposals_per_step(self, difficulty: int) -> int:
        return _PROPOSALS_PER_STEP

    def _keep_redundant(self, difficulty: int) -> bool:
        """Whether to keep facts the others already imply (easier puzzles); default no."""
        return False

    def _priority(self, c: dict) -> int:
        """Preference among proposals: a higher priority wins over a larger elimination."""
        return 0

    def _target_ok(self, setup: dict, row: np.ndarray) -> bool:
        """Whether a candidate may serve as hidden target (e.g. uses every colour)."""
        return True

    def _draw_target(
        self, rng: random.Random, setup: dict, cands: np.ndarray, idx: np.ndarray
    ) -> np.ndarray:
        """A uniformly drawn admissible target among rows ``idx`` (falls back to any row)."""
        for _ in range(100):
            row = cands[idx[rng.randrange(len(idx))]]
            if self._target_ok(setup, row):
                return row
        return row

    # ----- generation ------------------------------------------------------------------
    def generate(self, seed: int, difficulty: int = 1) -> Instance:
        check_seed_difficulty(seed, difficulty)
        rng = random.Random(int(seed))
        for _ in range(_MAX_ATTEMPTS):
            setup, conventions = self._build(rng, difficulty)
            cands = self._candidates(setup)
            if len(cands) < 3:  # structurally (nearly) forced: nothing to split
                continue
            target = self._draw_target(rng, setup, cands, np.arange(len(cands)))
            empty: dict[str, list] = {"a": [], "b": []}
            built = self._eliminate(rng, setup, cands, target, empty, SIDES, difficulty)
            if built is not None:
                return Instance(
                    self.name,
                    int(seed),
                    difficulty,
                    {"setup": setup, "constraints": built},
                    conventions,
                )
        raise RuntimeError(f"{self.name}: no unique instance after {_MAX_ATTEMPTS} attempts")

    def _eliminate(
        self,
        rng: random.Random,
        setup: dict,
        cands: np.ndarray,
        target: np.ndarray,
        fixed: dict[str, list],
        free: tuple[str, ...],
        difficulty: int,
    ) -> dict[str, list] | None:
        """Greedy elimination: add constraints true of ``target`` to the ``free`` sides until
        the union leaves one candidate and each side alone leaves at least two."""
        alive = {s: np.ones(len(cands), dtype=bool) for s in SIDES}
        out = {s: list(fixed[s]) for s in SIDES}
        for s in SIDES:
            for c in out[s]:
                alive[s] &= self._mask(setup, cands, c)
        if alive["a"].sum() < 2 or alive["b"].sum() < 2:
            return None
        union = alive["a"] & alive["b"]
        failures, turn = 0, 0
        while union.sum() > 1:
            side = free[turn % len(free)]
            turn += 1
            best, best_key = None, None
            for _ in range(self._proposals_per_step(difficulty)):
                c = self._propose(rng, setup, target, side)
                m = self._mask(setup, cands, c)
                if (alive[side] & m).sum() < 2:
                    continue
                gain = int(union.sum() - (union & m).sum())
                key = (self._priority(c), gain)
                if gain > 0 and (best_key is None or key > best_key):
                    best, best_key, best_mask = c, key, m
            if best is None:
                failures += 1
                if failures > _MAX_FAILED_STEPS:
                    return None
                continue
            out[side].append(best)
            alive[side] &= best_mask
            union &= best_mask
        if union.sum() != 1 or not np.array_equal(cands[np.flatnonzero(union)[0]], target):
            return None
        if self._keep_redundant(difficulty):
            return out
        return self._prune(setup, cands, out, free)

    def _prune(
        self, setup: dict, cands: np.ndarray, out: dict[str, list], free: tuple[str, ...]
    ) -> dict[str, list]:
        """Drop constraints of the free sides that the others already imply (in order), so
        each notebook holds no redundant line; uniqueness of the union is preserved."""
        masks = {s: [self._mask(setup, cands, c) for c in out[s]] for s in SIDES}
        for side in free:
            i = 0
            while i < len(out[side]):
                keep = np.ones(len(cands), dtype=bool)
                for s in SIDES:
                    for j, m in enumerate(masks[s]):
                        if not (s == side and j == i):
                            keep &= m
                if keep.sum() == 1:
                    del out[side][i]
                    del masks[side][i]
                else:
                    i += 1
        return out

    def counterfactual(self, instance: Instance, keep: str, seed: int) -> Instance:
        """Keep view ``keep`` exactly (the shared setup and its constraints) and regenerate the
        other view's constraints around a new hidden target drawn uniformly from the candidates
        the kept view allows; the answer changes whenever the new target differs."""
        check_keep(keep)
        other = "b" if keep == "a" else "a"
        rng = random.Random(f"{self.name}:counterfactual:{keep}:{int(seed)}")
        setup = instance.data["setup"]
        kept = list(instance.data["constraints"][keep])
        cands = self._candidates(setup)
        allowed = np.ones(len(cands), dtype=bool)
        for c in kept:
            allowed &= self._mask(setup, cands, c)
        idx = np.flatnonzero(allowed)
        for _ in range(_MAX_ATTEMPTS):
            target = self._draw_target(rng, setup, cands, idx)
            built = self._eliminate(
                rng, setup, cands, target, {keep: kept, other: []}, (other,), instance.difficulty
            )
            if built is not None:
                return Instance(
                    self.name,
                    instance.seed,
                    instance.difficulty,
                    {"setup": setup, "constraints": built},
                    instance.conventions,
                )
        raise RuntimeError(f"{self.name}: no counterfactual completion for seed {seed}")

    # ----- views and text --------------------------------------------------------------
    def split(self, instance: Instance) -> tuple[View, View]:
        setup = instance.data["setup"]
        views = []
        for s in SIDES:
            conv = instance.conventions[s]
            lines = self._view_lines(setup, conv, instance.data["constraints"][s])
            views.append(View(s, lines, dict(conv)))
        return views[0], views[1]

    def render_view(self, view: View) -> str:
        intro = "\n".join(view.data["intro"])
        facts = "\n".join(f"  {i}. {f}" for i, f in enumerate(view.data["facts"], 1))
        return f"{intro}\nYour constraints:\n{facts}"

    def render(self, instance: Instance) -> str:
        """The full instance in one canonical form: every constraint of both views written in
        view a's conventions (two sections, one set of conventions), as the Spatial and
        Relational solo controls read theirs. :meth:`render_both` keeps each view's own."""
        setup = instance.data["setup"]
        conv = instance.conventions["a"]
        parts = [View(s, self._view_lines(setup, conv, instance.data["constraints"][s]),
                      dict(conv)) for s in SIDES]
        return (
            f"{self.title}\n\nThe constraints come from two notebooks, both written in the "
            "same conventions, stated in each. Together they determine exactly one answer.\n\n"
            f"--- Notebook 1 ---\n{self.render_view(parts[0])}\n\n"
            f"--- Notebook 2 ---\n{self.render_view(parts[1])}"
        )

    def render_both(self, instance: Instance) -> str:
        """The full instance with each view in its own conventions (the ``both`` solo view)."""
        a, b = self.split(instance)
        return (
            f"{self.title}\n\nThe constraints come from two notebooks that use different "
            "conventions; each notebook states its own. Together they determine exactly one "
            "answer.\n\n"
            f"--- Notebook 1 ---\n{self.render_view(a)}\n\n"
            f"--- Notebook 2 ---\n{self.render_view(b)}"
        )

    # ----- solving and grading ---------------------------------------------------------
    def _survivors(self, instance: Instance) -> np.ndarray:
        setup = instance.data["setup"]
        cands = self._candidates(setup)
        keep = np.ones(len(cands), dtype=bool)
        for s in SIDES:
            for c in instance.data["constraints"][s]:
                keep &= self._mask(setup, cands, c)
        return cands[keep]

    def oracle_vector(self, instance: Instance) -> np.ndarray:
        """The unique candidate row satisfying every constraint of both views.

        Raises
        ------
        ValueError
            If the instance does not have exactly one solution (a corrupted instance).
        """
        sols = self._survivors(instance)
        if len(sols) != 1:
            raise ValueError(f"{self.name}: instance has {len(sols)} solutions, expected 1")
        return sols[0]

    def oracle(self, instance: Instance) -> Any:
        return self._answer_of(instance.data["setup"], self.oracle_vector(instance))

    def solve_text(self, text: str) -> Any:
        """Solve from the full rendering alone (:meth:`_solve_notebooks`); raises
        ``ValueError`` naming a line it cannot read."""
        return self._solve_notebooks(read_notebooks(text))

    def _unique(self, setup: dict, constraints: list[dict]) -> Any:
        """The answer of the only candidate that satisfies every constraint (text solvers).

        Raises
        ------
        ValueError
            If the constraints leave no candidate or several.
        """
        cands = self._candidates(setup)
        keep = np.ones(len(cands), dtype=bool)
        for c in constraints:
            keep &= self._mask(setup, cands, c)
        if keep.sum() != 1:
            raise ValueError(f"text describes {int(keep.sum())} solutions, expected 1")
        return self._answer_of(setup, cands[np.flatnonzero(keep)[0]])

    def naive_answer(self, instance: Instance) -> Any:
        """Surface-friction probe: view b's facts read verbatim in view a's conventions (via the
        task's :meth:`_misread`), solved together with view a's; ``None`` when that pasted
        puzzle does not determine an answer (no solution, or several)."""
        setup = instance.data["setup"]
        cands = self._candidates(setup)
        keep = np.ones(len(cands), dtype=bool)
        for c in instance.data["constraints"]["a"]:
            keep &= self._mask(setup, cands, c)
        for c in instance.data["constraints"]["b"]:
            c2 = self._misread(setup, instance.conventions, c)
            if c2 is None:
                return None
            keep &= self._mask(setup, cands, c2)
        if keep.sum() != 1:
            return None
        return self._answer_of(setup, cands[np.flatnonzero(keep)[0]])

    def grade(self, instance: Instance, answer: Any) -> float:
        """Fraction of positions of the answer equal to the unique solution's (0 if unreadable)."""
        if answer is None or answer is UNPARSED:
            return 0.0
        try:
            vec = self._vector_of(instance.data["setup"], answer)
        except (TypeError, ValueError, KeyError, AttributeError):
            return 0.0
        if vec is None:
            return 0.0
        truth = self.oracle_vector(instance)
        if len(vec) != len(truth):
            return 0.0
        return float(np.mean(np.asarray(vec) == truth))
