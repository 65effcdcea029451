"""Validators of the public task arguments (``seed``, ``difficulty``, ``keep``).

Every family base calls these at the top of ``generate`` and ``counterfactual``, so a bad
argument gets the same message from every task. :mod:`harness.base` re-exports them.
"""

from __future__ import annotations

import numbers
from typing import Any

from harness.vocabulary import DIFFICULTIES, SIDES


def check_seed(seed: Any) -> None:
    """Validate a ``seed`` argument.

    Parameters
    ----------
    seed : int
        Any ``int`` or NumPy integer (negative values are allowed).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If ``seed`` is not an integer (``int`` or a NumPy integer; ``bool`` is refused).

    Examples
    --------
    >>> from harness.checks import check_seed
    >>> check_seed(7)
    >>> check_seed(True)
    Traceback (most recent call last):
    ...
    TypeError: seed must be an int, got bool: True
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}: {seed!r}")


def check_seed_difficulty(seed: Any, difficulty: Any) -> None:
    """Validate the public ``generate`` arguments.

    Parameters
    ----------
    seed : int
        As for :func:`check_seed`.
    difficulty : int
        One of 0 (easy), 1 (default), 2 (hard).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If ``seed`` is not an integer (``bool`` is refused).
    ValueError
        If ``difficulty`` is not one of 0, 1, 2 (``bool`` is refused).

    Examples
    --------
    >>> from harness.checks import check_seed_difficulty
    >>> check_seed_difficulty(0, 2)
    >>> check_seed_difficulty(0, 3)
    Traceback (most recent call last):
    ...
    ValueError: difficulty must be one of (0, 1, 2), got 3
    """
    check_seed(seed)
    if isinstance(difficulty, bool) or difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")


def check_keep(keep: Any) -> None:
    """Validate the ``keep`` argument of ``counterfactual``.

    Parameters
    ----------
    keep : str
        ``"a"`` or ``"b"``: the view a counterfactual keeps unchanged.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If ``keep`` is not ``"a"`` or ``"b"``.

    Examples
    --------
    >>> from harness.checks import check_keep
    >>> check_keep("b")
    >>> check_keep("A")
    Traceback (most recent call last):
    ...
    ValueError: keep must be 'a' or 'b', got 'A'
    """
    if keep not in SIDES:
        raise ValueError(f"keep must be 'a' or 'b', got {keep!r}")
