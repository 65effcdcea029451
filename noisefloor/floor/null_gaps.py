"""The spread of per-seed null gaps, invariant to how a null pair is written or named.

A null contrast compares two arms that cannot differ, so its sign is arbitrary: the spread of
its per-seed gaps (the run-to-run sigma the monitors use, and the range a reader is shown) must
not move when ``a-b`` is written ``b-a`` or a protocol is renamed. :func:`null_gap_spread`
orients each contrast by its counts, never by its labels. Used by :mod:`noisefloor.floor.estimate`
(and :func:`excursion_bound` by :mod:`noisefloor.floor.random_effects`); it reads the columns of
the floor's contrast table, so it sits in :mod:`noisefloor.floor`, not in the pure statistics.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["excursion_bound", "null_gap_spread", "spread_signs"]


def excursion_bound(ci_low: float, ci_high: float) -> float:
    """Upper bound of the gap's interval in the direction of its larger excursion.

    ``max(ci_high, -ci_low)``: for a null contrast the sign of ``a-b`` is arbitrary, so the
    floor must not depend on which arm is written first. On the noise-floor paper's
    contrasts, written in the paper's orientation, this equals the upper CI.

    Examples
    --------
    >>> excursion_bound(-0.0244, 0.1182), excursion_bound(-0.2, 0.05)
    (0.1182, 0.2)
    """
    if math.isnan(ci_low) or math.isnan(ci_high):
        return math.nan
    return max(ci_high, -ci_low)


def _seed_order(seed) -> tuple:
    return (0, int(seed), "") if isinstance(seed, (int, np.integer)) else (1, 0, str(seed))


def spread_signs(rows: pd.DataFrame) -> dict:
    """The orientation of each null contrast used for its spread, read off its counts.

    Parameters
    ----------
    rows : pandas.DataFrame, shape (n_rows, >= 5)
        Per-seed null contrasts with columns ``contrast``, ``seed``, ``wins``, ``losses`` and
        ``gap`` (see :func:`null_gap_spread`).

    Returns
    -------
    dict
        Contrast label -> ``+1.0`` or ``-1.0``: the sign that makes the contrast's gap pooled
        over seeds (summed wins minus summed losses) >= 0. A pooled gap of 0 is oriented by its
        largest per-seed gap in absolute value (the first such seed in seed order when two are
        equally large); all gaps 0: ``+1.0``. The labels play no part.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"contrast": ["b-a", "b-a", "c-a"], "seed": [1, 2, 1],
    ...                   "wins": [9, 18, 5], "losses": [27, 21, 5],
    ...                   "gap": [-0.18, -0.03, 0.0]})
    >>> spread_signs(t)
    {'b-a': -1.0, 'c-a': 1.0}
    """
    return _signs(rows["contrast"].tolist(), rows["seed"].tolist(), rows["wins"].tolist(),
                  rows["losses"].tolist(), rows["gap"].tolist())


def _signs(contrasts: list, seeds: list, wins: list, losses: list, gaps: list) -> dict:
    """:func:`spread_signs` on plain columns (lists in row order), without a DataFrame."""
    groups: dict[str, list[int]] = {}
    for i, label in enumerate(contrasts):
        groups.setdefault(str(label), []).append(i)
    signs = {}
    for label, idx in groups.items():
        net = int(sum(wins[i] for i in idx)) - int(sum(losses[i] for i in idx))
        sign = 1.0 if net > 0 else -1.0 if net < 0 else 0.0
        if sign == 0.0:
            ordered = sorted(((_seed_order(seeds[i]), float(gaps[i])) for i in idx
                              if gaps[i] == gaps[i]), key=lambda r: r[0])
            largest = max((abs(x) for _, x in ordered), default=0.0)
            first = next((x for _, x in ordered if abs(x) == largest and x != 0.0), 1.0)
            sign = 1.0 if first > 0 else -1.0
        signs[label] = sign
    return signs


def spread_of(contrasts: list, seeds: list, wins: list, losses: list,
              gaps: list) -> tuple[float, float, float]:
    """:func:`null_gap_spread` on plain columns (lists in row order), without a DataFrame.

    Parameters
    ----------
    contrasts, seeds, wins, losses, gaps : list, each of length n_rows
        The columns of :func:`null_gap_spread`'s ``rows``, in row order (a missing seed is
        ``None`` or ``pd.NA``, an undefined gap NaN).

    Returns
    -------
    (sd, low, high) : tuple of float
        As :func:`null_gap_spread`.
    """
    if not contrasts:
        return math.nan, math.nan, math.nan
    signs = _signs(contrasts, seeds, wins, losses, gaps)
    oriented = [float(x) * signs[str(c)] for c, x in zip(contrasts, gaps)]
    g = np.array([x for x in oriented if x == x], dtype=float)
    sd = float(np.sqrt(np.mean(g ** 2))) if g.size >= 2 else math.nan
    return (sd, float(g.min()) if g.size else math.nan, float(g.max()) if g.size else math.nan)


def null_gap_spread(rows: pd.DataFrame) -> tuple[float, float, float]:
    """Spread of per-seed null gaps, the same whichever way a pair is written or named.

    Parameters
    ----------
    rows : pandas.DataFrame, shape (n_rows, >= 5)
        Per-seed null contrasts (no pooled rows) with columns ``contrast``, ``seed``, ``wins``,
        ``losses`` and ``gap`` (``(wins - losses) / n``, NaN when ``n == 0``), e.g. the rows of
        :meth:`noisefloor.floor.estimate.NoiseFloor.to_frame` whose ``level`` is ``"seed"``.

    Returns
    -------
    (sd, low, high) : tuple of float
        ``sd``: root mean square of the gaps about zero, NaN with fewer than two gaps.
        ``low``, ``high``: smallest and largest gap with each contrast oriented so that its
        pooled gap (summed wins minus summed losses) is >= 0 (a pooled gap of 0: so that its
        largest per-seed gap is > 0); NaN without a gap.

    Notes
    -----
    A null contrast ``a-b`` has no meaningful sign, so neither its orientation nor the names
    of its arms may move the spread (the floor, :func:`noisefloor.floor.estimate.excursion_bound`, does
    not move either).
    ``sd = sqrt(sum g_i^2 / m)`` over the m defined per-seed gaps is invariant to flipping any
    of them; it takes the null mean, 0, as known instead of estimating it.

    What it measures: the gaps of one seed are not independent. With three protocols,
    pull-intercept = pull-no_coord + no_coord-intercept on the same tasks, so the paper's six
    per-seed trial-0 gaps carry four degrees of freedom, not six. For r arms compared pairwise
    on the same tasks, with success rates p_1..p_r, sum over pairs (p_i - p_j)^2 equals
    r sum (p_i - p_bar)^2, so the mean squared pairwise gap is 2 s^2 (s^2 the ddof=1 variance
    of the arms' rates): ``sd`` estimates sqrt(2) times the SD of one arm's success rate,
    i.e. the SD of the gap between two independent null runs, with r - 1 degrees of freedom
    per seed. It is a descriptive spread (min/max are extremes of dependent values), not an
    interval.

    References
    ----------
    Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
    Protocol for Multi-Agent LLM Benchmarks": trial-0 gaps of +18 pp on one seed and -3 pp
    on the next.

    Examples
    --------
    The paper's pull-intercept contrast at seeds 1 and 2, written either way round:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"contrast": ["pull-intercept"] * 2, "seed": [1, 2],
    ...                   "wins": [27, 18], "losses": [9, 21], "gap": [0.18, -0.03]})
    >>> sd, low, high = null_gap_spread(t)
    >>> round(sd, 6), low, high
    (0.129035, -0.03, 0.18)
    >>> flipped = t.assign(contrast="intercept-pull", wins=t["losses"], losses=t["wins"],
    ...                    gap=-t["gap"])
    >>> null_gap_spread(flipped) == null_gap_spread(t)
    True
    """
    return spread_of(rows["contrast"].tolist(), rows["seed"].tolist(), rows["wins"].tolist(),
                     rows["losses"].tolist(), rows["gap"].tolist())
