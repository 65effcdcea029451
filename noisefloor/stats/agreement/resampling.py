"""Vectorised bootstrap over items for the agreement coefficients.

A bootstrap resample of N items drawn with replacement is, for kappa and alpha, described in
full by how many times each *kind* of item was drawn: Cohen's kappa depends on an item only
through its cell ``(label_a, label_b)``, Fleiss' kappa through its row of category counts,
Krippendorff's alpha through the multiset of values in the unit. So the items are grouped into
their U distinct patterns, a resample is a vector of U counts (multinomial with the patterns'
frequencies, exactly the distribution of the counts of a resample of items), and the
coefficient of every resample is computed at once from the counts by a matrix product. With
10^6 ratings in a few dozen patterns, 2,000 resamples take well under a second instead of
2,000 passes over the data.

When the patterns are many (U > :data:`MULTINOMIAL_MAX_PATTERNS`), items are drawn as indices
and counted per pattern instead (the same distribution; a different random stream). Memory is
bounded by drawing the resamples in chunks of at most :data:`CHUNK_CELLS` numbers.

The formulas are those of the point estimates (see :mod:`noisefloor.stats.agreement`):

* Cohen (1968): kappa = (p_o - p_e) / (1 - p_e), p_o = sum_ij w_ij p_ij,
  p_e = sum_ij w_ij p_i. p_.j, w the agreement weights.
* Fleiss (1971): kappa = (P_bar - P_e) / (1 - P_e), P_i = sum_j n_ij (n_ij - 1) / (m (m - 1)),
  P_e = sum_j p_j^2 (Randolph: 1 / k).
* Krippendorff (2011): alpha = 1 - (n - 1) sum_ck o_ck delta2_ck / sum_ck n_c n_k delta2_ck,
  with the coincidences o_ck of the units that hold at least two values.

Every coefficient is NaN on a resample where it is undefined (chance agreement 1, fewer than two
distinct values), as the point estimate is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CHUNK_CELLS",
    "MULTINOMIAL_MAX_PATTERNS",
    "Resampler",
    "bootstrap",
    "cohen_resampler",
    "fleiss_resampler",
    "krippendorff_resampler",
    "loop_resampler",
]

#: Most numbers (counts, indices) held at once by one chunk of resamples.
CHUNK_CELLS = 4_000_000
#: Most item patterns resampled by multinomial draws; above it items are drawn as indices.
MULTINOMIAL_MAX_PATTERNS = 4096
#: Most categories for which the ordinal and ratio alphas use a categories x categories
#: coincidence matrix per resample; with more, each resample is computed by the
#: ``krippendorff`` package on its items (correct, slower).
MAX_MATRIX_CATEGORIES = 150

_UNDEFINED_PE = 1.0 - 1e-12


@dataclass(frozen=True)
class Resampler:
    """Items grouped into patterns, and the coefficient of a resample from its pattern counts.

    Attributes
    ----------
    inverse : numpy.ndarray of int, shape (n_items,)
        Pattern of each item.
    n_patterns : int
        U, the number of distinct patterns.
    statistic : callable
        Maps counts of shape (B, U) (how often each pattern was drawn, rows summing to
        n_items) to the B coefficients (NaN where undefined).
    """

    inverse: np.ndarray
    n_patterns: int
    statistic: Callable[[np.ndarray], np.ndarray]


def _group(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``features`` (U, f) and each item's row index (n_items,).

    The rows in lexicographic order, as ``numpy.unique(features, axis=0)`` gives them, but
    sorted by ``numpy.lexsort`` (one sort of numbers per column, instead of one sort of the
    rows as records). Features hold no NaN.
    """
    rows = np.asarray(features)
    if rows.shape[0] == 0:
        return rows, np.zeros(0, dtype=np.intp)
    order = np.lexsort(rows.T[::-1])  # the first column is the primary key
    ordered = rows[order]
    starts = np.empty(rows.shape[0], dtype=bool)
    starts[0] = True
    starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(rows.shape[0], dtype=np.intp)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], inverse


def bootstrap(resampler: Resampler, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """The coefficient on ``n_boot`` resamples of the items, drawn with replacement.

    Parameters
    ----------
    resampler : Resampler
    n_boot : int
        Number of resamples, >= 1.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (n_boot,)
        NaN where the coefficient is undefined on a resample.

    Examples
    --------
    >>> import numpy as np
    >>> r = fleiss_resampler(np.array([[3, 0], [0, 3], [2, 1], [1, 2]]), "fleiss")
    >>> boot = bootstrap(r, 1000, np.random.default_rng(0))
    >>> boot.shape, bool(np.nanmin(boot) >= -1.0), bool(np.nanmax(boot) <= 1.0)
    ((1000,), True, True)
    """
    n_items = int(resampler.inverse.size)
    u = int(resampler.n_patterns)
    out = np.empty(n_boot)
    if u <= MULTINOMIAL_MAX_PATTERNS:
        freq = np.bincount(resampler.inverse, minlength=u).astype(float)
        pvals = freq / n_items
        chunk = max(1, CHUNK_CELLS // max(u, 1))
        for start in range(0, n_boot, chunk):
            size = min(chunk, n_boot - start)
            counts = rng.multinomial(n_items, pvals, size=size).astype(float)
            out[start:start + size] = resampler.statistic(counts)
        return out
    chunk = max(1, CHUNK_CELLS // max(n_items, u))
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        drawn = resampler.inverse[rng.integers(0, n_items, size=(size, n_items))]
        offset = (np.arange(size) * u)[:, None]
        counts = np.bincount((drawn + offset).ravel(), minlength=size * u).reshape(size, u)
        out[start:start + size] = resampler.statistic(counts.astype(float))
    return out


def loop_resampler(n_items: int, statistic_of_rows: Callable[[np.ndarray], float]) -> Resampler:
    """Every item its own pattern; each resample is computed from its expanded item indices.

    For coefficients without a vectorised form; as slow as a loop over resamples.
    """
    items = np.arange(n_items)

    def statistic(counts: np.ndarray) -> np.ndarray:
        return np.array([statistic_of_rows(np.repeat(items, row.astype(np.int64)))
                         for row in counts])

    return Resampler(items, n_items, statistic)


def cohen_resampler(ia: np.ndarray, ib: np.ndarray, k: int, agreement_weights: np.ndarray) -> Resampler:
    """Resampler of Cohen's kappa: an item's pattern is its cell ``(ia, ib)`` of the k x k table.

    Parameters
    ----------
    ia, ib : numpy.ndarray of int, shape (n_items,)
        Category index given by each rater.
    k : int
        Number of categories.
    agreement_weights : numpy.ndarray, shape (k, k)
        1 on the diagonal; ``1 - |i-j|/(k-1)`` (linear) or its square form (quadratic).

    Returns
    -------
    Resampler

    Examples
    --------
    >>> import numpy as np
    >>> r = cohen_resampler(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]), 2, np.eye(2))
    >>> [round(float(x), 3) for x in r.statistic(np.array([[1.0, 1.0, 2.0]]))]
    [0.5]
    """
    cells, inverse = _group((ia * k + ib).reshape(-1, 1))
    cells = cells[:, 0]
    rows, cols = cells // k, cells % k
    w_cell = agreement_weights[rows, cols]
    onehot_r = np.eye(k)[rows]  # (U, k)
    onehot_c = np.eye(k)[cols]

    def statistic(counts: np.ndarray) -> np.ndarray:
        n = counts.sum(axis=1)
        po = counts @ w_cell / n
        pr, pc = counts @ onehot_r / n[:, None], counts @ onehot_c / n[:, None]
        pe = np.einsum("bi,ij,bj->b", pr, agreement_weights, pc)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (po - pe) / (1.0 - pe)
        kappa[pe >= _UNDEFINED_PE] = np.nan
        return kappa

    return Resampler(inverse, cells.size, statistic)


def fleiss_resampler(counts: np.ndarray, method: str) -> Resampler:
    """Resampler of Fleiss' (or Randolph's) kappa: an item's pattern is its row of counts.

    Parameters
    ----------
    counts : numpy.ndarray of int, shape (n_items, k)
        Raters per item and category; every row sums to the same m >= 2.
    method : {"fleiss", "randolph"}

    Returns
    -------
    Resampler

    Examples
    --------
    >>> import numpy as np
    >>> r = fleiss_resampler(np.array([[3, 0], [0, 3], [2, 1]]), "fleiss")
    >>> r.n_patterns, [round(float(x), 4) for x in r.statistic(np.array([[1.0, 1.0, 1.0]]))]
    (3, [0.55])
    """
    patterns, inverse = _group(np.asarray(counts))
    patterns = patterns.astype(float)
    m = patterns[0].sum()
    k = patterns.shape[1]
    p_item = (patterns * (patterns - 1)).sum(axis=1) / (m * (m - 1))

    def statistic(w: np.ndarray) -> np.ndarray:
        n = w.sum(axis=1)
        p_bar = w @ p_item / n
        if method == "randolph":
            pe = np.full(w.shape[0], 1.0 / k)
        else:
            p = w @ patterns / (n * m)[:, None]
            pe = (p**2).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (p_bar - pe) / (1.0 - pe)
        kappa[pe >= _UNDEFINED_PE] = np.nan
        return kappa

    return Resampler(inverse, patterns.shape[0], statistic)


def _unit_counts(values: np.ndarray, domain: np.ndarray) -> np.ndarray:
    """Per unit, how many of its values fall on each point of ``domain``: (n_units, K) ints."""
    n_units, k = values.shape[0], domain.size
    present = np.isfinite(values)
    unit = np.broadcast_to(np.arange(n_units)[:, None], values.shape)[present]
    code = np.searchsorted(domain, values[present])
    return np.bincount(unit * k + code, minlength=n_units * k).reshape(n_units, k)


def krippendorff_resampler(values: np.ndarray, level: str) -> Resampler | None:
    """Resampler of Krippendorff's alpha, or None where no vectorised form is used.

    Parameters
    ----------
    values : numpy.ndarray of float, shape (n_units, n_raters)
        The value of each rating (a category's code for nominal and ordinal, the number for
        interval and ratio), NaN where missing.
    level : {"nominal", "ordinal", "interval", "ratio"}

    Returns
    -------
    Resampler or None
        None for the ordinal and ratio levels with more than
        :data:`MAX_MATRIX_CATEGORIES` distinct values.

    Notes
    -----
    Nominal and interval alphas need a few sums per unit: with m_u values in unit u, the
    nominal disagreement of the unit is m_u - sum_c n_uc (n_uc - 1) / (m_u - 1), the interval
    one (2 m_u sum x^2 - 2 (sum x)^2) / (m_u - 1), and the expected disagreements follow from
    the totals (n^2 - sum_c n_c^2, and 2 n sum x^2 - 2 (sum x)^2). The ordinal and ratio
    alphas sum the units' coincidence matrices (the ordinal distance depends on the
    resample's marginals).

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([[0, 0, np.nan], [1, 1, 2], [2, 2, 2], [1, 1, 1]], dtype=float)
    >>> r = krippendorff_resampler(v, "nominal")
    >>> [round(float(x), 3) for x in r.statistic(np.ones((1, r.n_patterns)))]
    [0.737]
    """
    m = np.isfinite(values).sum(axis=1).astype(float)
    pairable = m >= 2
    if level == "interval":
        finite = values[np.isfinite(values) & pairable[:, None]]
        shift = float(finite.mean()) if finite.size else 0.0
        x = np.where(pairable[:, None], values - shift, np.nan)
        s1 = np.nansum(x, axis=1)
        s2 = np.nansum(x * x, axis=1)
        mm = np.where(pairable, m, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.where(pairable, (2 * mm * s2 - 2 * s1 * s1) / (mm - 1), 0.0)
        features = np.column_stack([mm, np.where(pairable, s1, 0.0), np.where(pairable, s2, 0.0), d])
        patterns, inverse = _group(features)
        pm, ps1, ps2, pd_ = patterns.T

        def statistic(w: np.ndarray) -> np.ndarray:
            n, do = w @ pm, w @ pd_
            t1, t2 = w @ ps1, w @ ps2
            de = 2 * n * t2 - 2 * t1 * t1
            with np.errstate(divide="ignore", invalid="ignore"):
                alpha = 1.0 - (n - 1) * do / de
            alpha[~(de > 1e-9 * np.maximum(n * t2, 1e-300))] = np.nan
            return alpha

        return Resampler(inverse, patterns.shape[0], statistic)

    domain = np.unique(values[np.isfinite(values)])
    counts = _unit_counts(values, domain)
    counts[~pairable] = 0
    k = domain.size
    if level == "nominal":
        mm = counts.sum(axis=1).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            trace = np.where(mm >= 2, (counts * (counts - 1)).sum(axis=1) / (mm - 1), 0.0)
        patterns, inverse = _group(np.column_stack([mm, trace, counts]))
        pm, ptr, pc = patterns[:, 0], patterns[:, 1], patterns[:, 2:]

        def statistic(w: np.ndarray) -> np.ndarray:
            n = w @ pm
            nc = w @ pc
            do = n - w @ ptr
            de = n * n - (nc**2).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                alpha = 1.0 - (n - 1) * do / de
            alpha[(nc > 0).sum(axis=1) < 2] = np.nan
            return alpha

        return Resampler(inverse, patterns.shape[0], statistic)

    if k > MAX_MATRIX_CATEGORIES:
        return None
    patterns, inverse = _group(counts)
    patterns = patterns.astype(float)
    mu = patterns.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(mu >= 2, 1.0 / (mu - 1), 0.0)
    coinc = (patterns[:, :, None] * patterns[:, None, :]
             - patterns[:, :, None] * np.eye(k)[None]) * scale[:, None, None]
    coinc = coinc.reshape(patterns.shape[0], k * k)
    if level == "ratio":
        vc, vk = domain[:, None], domain[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            fixed = np.where(vc + vk == 0, 0.0, ((vc - vk) / (vc + vk)) ** 2)
    else:
        fixed = None

    def matrix_statistic(w: np.ndarray) -> np.ndarray:
        o = (w @ coinc).reshape(-1, k, k)
        nc = o.sum(axis=2)
        n = nc.sum(axis=1)
        if fixed is None:  # ordinal: (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 for c <= k
            cum = np.cumsum(nc, axis=1)
            lo = np.minimum.outer(np.arange(k), np.arange(k))
            hi = np.maximum.outer(np.arange(k), np.arange(k))
            between = cum[:, hi] - cum[:, lo] + nc[:, lo]
            delta = (between - (nc[:, :, None] + nc[:, None, :]) / 2.0) ** 2
        else:
            delta = fixed[None]
        do = (o * delta).sum(axis=(1, 2))
        de = (nc[:, :, None] * nc[:, None, :] * delta).sum(axis=(1, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = 1.0 - (n - 1) * do / de
        alpha[(nc > 0).sum(axis=1) < 2] = np.nan
        return alpha

    return Resampler(inverse, patterns.shape[0], matrix_statistic)
