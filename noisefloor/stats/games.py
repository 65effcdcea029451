"""The two-player cooperative game of a paired execution: tax, Shapley values, superadditivity.

A pair of agents (players 1 and 2) is read as a cooperative game ``(N, v)`` with
``N = {1, 2}``: ``v({i})`` is what agent i scores alone on the full instance and ``v({1,2})``
what the pair scores on the split instance (all on the grader's [0, 1] scale). Arrays in,
results out; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from noisefloor.results import FrozenResult

__all__ = ["TwoPlayerGame", "shapley_values", "two_player_game"]


def _as_unit_array(name: str, value: Any) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a scalar or a 1-D array, got shape {arr.shape}")
    arr = np.atleast_1d(arr)
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one value, got an empty array")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers in [0, 1], got {arr.tolist()!r}")
    if np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"{name} must lie in [0, 1] (grader scores), got {arr.tolist()!r}")
    return arr


@dataclass(frozen=True)
class TwoPlayerGame(FrozenResult):
    """Result of :func:`two_player_game`, averaged over the tasks given.

    Attributes
    ----------
    n_tasks : int
        Number of (v1, v2, v12) triples (tasks) read.
    v1, v2, v12 : float
        Mean over tasks of ``v({1})``, ``v({2})`` and ``v({1,2})``.
    tax : float
        ``max(v1, v2) - v12`` computed on the task means (the paper's definition applied to
        the suite-level game).
    mean_task_tax : float
        Mean over tasks of the per-task ``max(v1_t, v2_t) - v12_t`` (differs from ``tax`` when
        the stronger member changes from task to task).
    phi1, phi2 : float
        Shapley values of the suite-level game, ``phi_i = (v_i + v12 - v_j) / 2``.
    midpoint : float
        Additive midpoint ``(v1 + v2) / 2``: what the pair would score if pairing averaged.
    share_violating : float
        Share of tasks with ``v12_t < max(v1_t, v2_t)`` (max-superadditivity violated, i.e. a
        positive per-task tax, Proposition 2 of the collaboration-tax paper).
    share_subadditive : float
        Share of tasks with ``v12_t < v1_t + v2_t`` (Proposition 4's hypothesis).
    """

    n_tasks: int
    v1: float
    v2: float
    v12: float
    tax: float
    mean_task_tax: float
    phi1: float
    phi2: float
    midpoint: float
    share_violating: float
    share_subadditive: float


def shapley_values(v1: Any, v2: Any, v12: Any) -> tuple[np.ndarray, np.ndarray]:
    """Shapley values of two-player games, elementwise.

    Parameters
    ----------
    v1, v2, v12 : float or array_like, shape (n,)
        ``v({1})``, ``v({2})``, ``v({1,2})`` on [0, 1].

    Returns
    -------
    (phi1, phi2) : tuple of numpy.ndarray, shape (n,)

    Notes
    -----
    With two players there are two orderings: player i joining first adds ``v({i})``, joining
    second adds ``v({1,2}) - v({j})``; the Shapley value averages them,
    ``phi_i = (v({i}) + v({1,2}) - v({j})) / 2`` (collaboration-tax paper, Proposition 3).

    References
    ----------
    Shapley, L. S. (1953). A value for n-person games. In Kuhn & Tucker (eds.),
    Contributions to the Theory of Games II, 307-317. Princeton University Press.

    Examples
    --------
    The paper's Figure 2 widget default, v1 = 0.869, v2 = 0.352, v12 = 0.731:

    >>> p1, p2 = shapley_values(0.869, 0.352, 0.731)
    >>> round(float(p1[0]), 3), round(float(p2[0]), 3)
    (0.624, 0.107)
    """
    a = _as_unit_array("v1", v1)
    b = _as_unit_array("v2", v2)
    c = _as_unit_array("v12", v12)
    if not (a.shape == b.shape == c.shape):
        raise ValueError(f"v1, v2 and v12 must have the same length, got {a.size}, {b.size}, "
                         f"{c.size}")
    return (a + c - b) / 2.0, (b + c - a) / 2.0


def two_player_game(v1: Any, v2: Any, v12: Any) -> TwoPlayerGame:
    """Tax, Shapley values and max-superadditivity of a pair over a set of tasks.

    Parameters
    ----------
    v1, v2 : float or array_like, shape (n_tasks,)
        Each member's solo score on the full instance, per task, on [0, 1].
    v12 : float or array_like, shape (n_tasks,)
        The pair's score on the split instance, per task (one slot order), on [0, 1].

    Returns
    -------
    TwoPlayerGame

    Raises
    ------
    ValueError
        Empty, non-finite, out-of-range or unequal-length inputs.

    Notes
    -----
    ``tax = max(v1, v2) - v12`` (Definition, collaboration-tax paper section 2);
    ``phi_i = (v_i + v12 - v_j) / 2`` (Proposition 3); efficiency ``phi1 + phi2 = v12``;
    ``phi_i - v_i = (v12 - v1 - v2) / 2`` for both i, so subadditivity ``v12 < v1 + v2``
    implies ``phi_i < v_i`` for both members by the same amount (Proposition 4).

    References
    ----------
    Shapley, L. S. (1953). A value for n-person games. Contributions to the Theory of Games II.

    Examples
    --------
    >>> g = two_player_game([0.869], [0.352], [0.731])
    >>> round(g.tax, 3), round(g.phi1, 3), round(g.phi2, 3), round(g.midpoint, 4)
    (0.138, 0.624, 0.107, 0.6105)
    >>> g.share_violating, g.share_subadditive
    (1.0, 1.0)
    """
    a = _as_unit_array("v1", v1)
    b = _as_unit_array("v2", v2)
    c = _as_unit_array("v12", v12)
    if not (a.shape == b.shape == c.shape):
        raise ValueError(f"v1, v2 and v12 must have the same length, got {a.size}, {b.size}, "
                         f"{c.size}")
    m1, m2, m12 = float(a.mean()), float(b.mean()), float(c.mean())
    phi1, phi2 = (m1 + m12 - m2) / 2.0, (m2 + m12 - m1) / 2.0
    return TwoPlayerGame(
        n_tasks=int(a.size), v1=m1, v2=m2, v12=m12, tax=max(m1, m2) - m12,
        mean_task_tax=float(np.mean(np.maximum(a, b) - c)), phi1=phi1, phi2=phi2,
        midpoint=(m1 + m2) / 2.0,
        share_violating=float(np.mean(c < np.maximum(a, b))),
        share_subadditive=float(np.mean(c < a + b)),
    )
