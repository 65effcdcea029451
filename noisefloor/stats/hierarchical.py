"""Paired (and two-level) bootstrap of arm means over instances nested in tasks.

A collaboration-tax cell compares arms (solo, pair, a pair under a prompt variant) on the same
instances. The paired bootstrap resamples instances, keeping each instance's arms together;
a family-level mean (tasks weighted equally) resamples tasks, then instances within each drawn
task (the two-stage cluster bootstrap). Arrays in, replicate matrices out; the caller turns the
replicated arm means into any statistic (tax, ratio gap, recovered share) and takes
percentile intervals with :func:`percentile_interval`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["percentile_interval", "task_weighted_means", "two_stage_bootstrap"]


def _generator(rng: int | np.random.Generator | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be an int, a numpy Generator or None, got {type(rng).__name__}")


def _check(values: Any, groups: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    v = np.asarray(values, dtype=float)
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[0] == 0:
        raise ValueError(f"values must be (n_instances, n_arms) with n_instances >= 1, got "
                         f"shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite: keep only instances observed in every arm")
    g = np.zeros(v.shape[0], dtype=int) if groups is None else np.asarray(groups)
    if g.shape != (v.shape[0],):
        raise ValueError(f"groups must have one label per instance ({v.shape[0]}), got shape "
                         f"{g.shape}")
    labels, codes = np.unique(g, return_inverse=True)
    return v, codes.astype(np.int64), labels


def task_weighted_means(values: Any, groups: Any = None) -> np.ndarray:
    """Mean of each arm over groups (tasks) weighted equally, instances within a group equally.

    Parameters
    ----------
    values : array_like, shape (n_instances, n_arms) or (n_instances,)
        Per-instance scores of each arm (instances observed in every arm).
    groups : array_like, shape (n_instances,) or None
        Task of each instance; None treats all instances as one task.

    Returns
    -------
    numpy.ndarray, shape (n_arms,)

    Examples
    --------
    >>> task_weighted_means([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]], ["a", "a", "b"]).tolist()
    [0.5, 0.25]
    """
    v, codes, labels = _check(values, groups)
    sums = np.zeros((labels.size, v.shape[1]))
    np.add.at(sums, codes, v)
    counts = np.bincount(codes, minlength=labels.size)[:, None]
    return (sums / counts).mean(axis=0)


def two_stage_bootstrap(
    values: Any, groups: Any = None, *, n_boot: int = 2000,
    rng: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Bootstrap replicates of :func:`task_weighted_means`: tasks, then instances within tasks.

    Parameters
    ----------
    values : array_like, shape (n_instances, n_arms) or (n_instances,)
        Per-instance scores; each row is one instance with all its arms (paired resampling).
    groups : array_like, shape (n_instances,) or None, default None
        Task of each instance. None (or a single task) gives the one-stage paired bootstrap over
        instances.
    n_boot : int, default 2000
        Replicates.
    rng : int, numpy.random.Generator or None
        Source of randomness; the same seed gives the same replicates.

    Returns
    -------
    numpy.ndarray, shape (n_boot, n_arms)
        Replicated task-weighted arm means.

    Raises
    ------
    ValueError
        Empty or non-finite values, groups of the wrong length, ``n_boot < 1``.

    Notes
    -----
    Replicate b: draw T tasks with replacement from the T tasks; for each draw j of task t draw
    ``n_t`` instances of t with replacement and average them per arm; average the T draws.
    With one task this is Efron's paired bootstrap of the instance means. Two-stage resampling
    carries both the between-task and the within-task variance into the interval of a
    family-level mean (Davison & Hinkley 1997, section 3.8).

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    Davison, A. C. & Hinkley, D. V. (1997). Bootstrap Methods and their Application, section
    3.8 (hierarchical data). Cambridge University Press.

    Examples
    --------
    >>> reps = two_stage_bootstrap([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]], n_boot=5, rng=0)
    >>> reps.shape
    (5, 2)
    """
    v, codes, labels = _check(values, groups)
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    gen = _generator(rng)
    n_tasks = labels.size
    order = np.argsort(codes, kind="stable")
    sv = v[order]
    counts = np.bincount(codes, minlength=n_tasks)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    draws: npt.NDArray[np.int64]
    if n_tasks == 1:
        draws = np.zeros((n_boot, 1), dtype=np.int64)
    else:
        draws = gen.integers(0, n_tasks, size=(n_boot, n_tasks))
    flat = draws.ravel()
    out = np.empty((flat.size, v.shape[1]))
    for t in range(n_tasks):
        where = np.flatnonzero(flat == t)
        if where.size == 0:
            continue
        n_t = counts[t]
        pick = starts[t] + gen.integers(0, n_t, size=(where.size, n_t))
        out[where] = sv[pick].mean(axis=1)
    return out.reshape(n_boot, draws.shape[1], v.shape[1]).mean(axis=1)


def percentile_interval(replicates: Any, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval, ignoring replicates where the statistic is undefined.

    Parameters
    ----------
    replicates : array_like, shape (n_boot,)
        Bootstrap replicates of a statistic (NaN where undefined in a replicate, e.g. a ratio
        with a zero denominator).
    confidence : float, default 0.95

    Returns
    -------
    (low, high) : tuple of float
        The ``(1 - c)/2`` and ``(1 + c)/2`` quantiles of the finite replicates; NaN when fewer
        than half the replicates are finite.

    Examples
    --------
    >>> [round(x, 6) for x in percentile_interval(list(range(101)), 0.9)]
    [5.0, 95.0]
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    r = np.asarray(replicates, dtype=float).ravel()
    ok = r[np.isfinite(r)]
    if ok.size == 0 or ok.size < 0.5 * r.size:
        return (math.nan, math.nan)
    lo, hi = np.quantile(ok, [(1 - confidence) / 2, (1 + confidence) / 2])
    return (float(lo), float(hi))
