"""Multiplicity correction over families of contrasts: Bonferroni, Holm, Benjamini-Hochberg.

Array operations over sorted p-values (the formulas of R's ``p.adjust``), for one family
(:func:`adjust_pvalues`, :func:`holm`) or for every family of a table at once
(:func:`adjust_families`). statsmodels' ``multipletests`` computes the same values but calls
``gc.collect()`` on every call, which made a table of many small families slow; its default
method is Holm-Sidak, which noisefloor never uses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate

#: User-facing method names -> the method computed (``"bh"`` is Benjamini-Hochberg's alias).
METHODS = {"bonferroni": "bonferroni", "holm": "holm", "fdr_bh": "fdr_bh", "bh": "fdr_bh"}
#: The name a result's ``method`` field or column carries for each accepted method name (one
#: name per method: ``"bh"`` for Benjamini-Hochberg, whichever spelling was passed).
METHOD_NAMES = {"bonferroni": "bonferroni", "holm": "holm", "fdr_bh": "bh", "bh": "bh"}


@dataclass(frozen=True)
class MultiplicityResult(FrozenResult):
    """Result of :func:`adjust_pvalues`.

    Attributes
    ----------
    p_values : tuple of float
        The raw p-values, in input order (NaN kept).
    p_adjusted : tuple of float
        Adjusted p-values in input order; NaN where the raw p-value is NaN.
    method : str
        ``"bonferroni"``, ``"holm"`` or ``"bh"`` (Benjamini-Hochberg, whether passed as
        ``"bh"`` or ``"fdr_bh"``).
    m : int
        Family size used: the number of defined (non-NaN) p-values, unless ``family_size``
        was given.
    excluded : tuple of int
        Positions of NaN p-values left out of the family.
    reason : str
        Why some p-values were left out; empty when none were.

    Examples
    --------
    >>> from noisefloor.stats import adjust_pvalues
    >>> r = adjust_pvalues([0.01, 0.04, float("nan")], method="bonferroni")
    >>> r.p_adjusted, r.m, r.excluded
    ((0.02, 0.08, nan), 2, (2,))
    >>> r.reason
    '1 undefined (NaN) p-value(s) left out of the family'
    """

    p_values: tuple[float, ...]
    p_adjusted: tuple[float, ...]
    method: str
    m: int
    excluded: tuple[int, ...]
    reason: str = ""

    # hand-written: one row per p-value, with in_family
    def to_frame(self) -> pd.DataFrame:
        """One row per p-value: ``p_value, p_adjusted, in_family``.

        Returns
        -------
        pandas.DataFrame, shape (k, 3)
            Rows in input order; ``in_family`` is False for NaN p-values left out of ``m``.

        Examples
        --------
        >>> from noisefloor.stats import adjust_pvalues
        >>> adjust_pvalues([0.01, 0.04, float("nan")]).to_frame()
           p_value  p_adjusted  in_family
        0     0.01        0.02       True
        1     0.04        0.08       True
        2      NaN         NaN      False
        """
        ex = set(self.excluded)
        return pd.DataFrame(
            {
                "p_value": self.p_values,
                "p_adjusted": self.p_adjusted,
                "in_family": [i not in ex for i in range(len(self.p_values))],
            }
        )


def adjust_pvalues(
    p_values, method: str = "bonferroni", *, family_size: int | None = None
) -> MultiplicityResult:
    """Adjust a family of p-values for multiple comparisons.

    Parameters
    ----------
    p_values : array-like of float, shape (k,)
        Raw p-values in [0, 1]; NaN marks an undefined test (e.g. no untied pairs).
    method : {"bonferroni", "holm", "fdr_bh"}, default "bonferroni"
        Bonferroni, Holm step-down, or Benjamini-Hochberg false discovery rate (``"bh"`` is
        accepted as an alias of ``"fdr_bh"``).
    family_size : int, optional
        Declared family size m when the family holds more tests than are passed (only for
        Bonferroni, where ``p_adj = min(1, m p)``). Must be >= the number of defined p-values.

    Returns
    -------
    MultiplicityResult
        Adjusted p-values in input order, the method and the family size ``m`` used.

    Raises
    ------
    ValueError
        On an unknown method, p-values outside [0, 1], or a ``family_size`` smaller than the
        number of defined p-values or used with a method other than Bonferroni.

    Notes
    -----
    NaN p-values are left out of m (they are not tests) and stay NaN. Arithmetic by
    :func:`adjust_families` with one family (the formulas of R's ``p.adjust``).

    References
    ----------
    Holm, S. (1979). Scand. J. Statist. 6, 65-70. Benjamini, Y. & Hochberg, Y. (1995).
    JRSS B 57, 289-300.

    Examples
    --------
    >>> r = adjust_pvalues([0.01, 0.04, 0.03, float("nan")], method="holm")
    >>> r.m, [round(p, 2) for p in r.p_adjusted[:3]]
    (3, [0.03, 0.06, 0.06])
    """
    _validate.choice("method", method, tuple(METHODS))
    sm_method = METHODS[method]
    p = np.asarray(p_values, dtype=float).ravel()
    defined = ~np.isnan(p)
    if np.any((p[defined] < 0) | (p[defined] > 1)):
        raise ValueError(f"p_values must lie in [0, 1]; got {p[defined].tolist()}")
    k = int(defined.sum())
    adjusted = np.full_like(p, np.nan)
    m = k if family_size is None else _validate.count("family_size", family_size)
    if k or family_size is not None:
        adjusted[defined] = adjust_families(p[defined], np.zeros(k, dtype=np.int64),
                                            method=sm_method, family_size=family_size)[0]
    excluded = tuple(int(i) for i in np.flatnonzero(~defined))
    reason = (
        f"{len(excluded)} undefined (NaN) p-value(s) left out of the family" if excluded else ""
    )
    return MultiplicityResult(
        tuple(p.tolist()), tuple(adjusted.tolist()), METHOD_NAMES[method],
        m, excluded, reason,
    )


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values of one family, in array operations.

    Parameters
    ----------
    p_values : array-like of float, shape (m,)
        Raw p-values in [0, 1], none NaN.

    Returns
    -------
    numpy.ndarray of float, shape (m,)
        In input order: with ``p_(1) <= ... <= p_(m)`` sorted,
        ``adj_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))``.

    Notes
    -----
    Sort, scale, cumulative maximum, clip at 1, unsort: R's
    ``p.adjust(p, "holm")`` is ``pmin(1, cummax((n - i + 1) * p[o]))[order(o)]``. Equal p-values
    get equal adjusted values whatever their order. :func:`adjust_pvalues` adds NaN handling
    and a result object.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J.
    Statist. 6, 65-70.

    Examples
    --------
    R ``p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm")`` is 0.05 0.08 0.09 0.09 0.09:

    >>> holm([0.01, 0.02, 0.03, 0.04, 0.05]).round(12).tolist()
    [0.05, 0.08, 0.09, 0.09, 0.09]
    """
    p = np.asarray(p_values, dtype=float).ravel()
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError(f"p_values must lie in [0, 1] (no NaN); got {p.tolist()}")
    return adjust_families(p, np.zeros(len(p), dtype=np.int64), method="holm")[0]


def adjust_families(
    p_values, families, method: str = "bonferroni", *, family_size: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Adjust p-values within each family of a table, all families in one pass.

    Parameters
    ----------
    p_values : array-like of float, shape (k,)
        Raw p-values in [0, 1]; NaN marks an undefined test (left out of its family's m).
    families : array-like, shape (k,)
        Family label of each p-value (any hashable values; rows with equal labels form one
        family, which need not be contiguous).
    method : {"bonferroni", "holm", "fdr_bh"}, default "bonferroni"
        As in :func:`adjust_pvalues` (``"bh"`` is accepted for ``"fdr_bh"``).
    family_size : int, optional
        Declared size m of every family when each holds more tests than are passed (only for
        Bonferroni, ``p_adj = min(1, m p)``); must be >= the defined p-values of each family.

    Returns
    -------
    (p_adjusted, m) : tuple of numpy.ndarray, each shape (k,)
        Adjusted p-values in input order (NaN where the raw one is NaN) and the size of each
        row's family (its defined p-values; int64).

    Raises
    ------
    ValueError
        On an unknown method, p-values outside [0, 1], lengths that differ, or a
        ``family_size`` smaller than a family or used with a method other than Bonferroni.

    Notes
    -----
    The rows are sorted by (family, p) once. With ``i`` a p-value's rank within its family
    and ``m`` the family's size: Bonferroni ``min(1, m p)``; Holm the cumulative maximum of
    ``min(1, (m - i + 1) p_(i))`` over ranks; Benjamini-Hochberg the reversed cumulative
    minimum of ``min(1, m / i p_(i))``, as R's ``p.adjust`` computes them; the cumulative
    extrema are taken within families (pandas' grouped ``cummax``/``cummin``).

    References
    ----------
    Holm, S. (1979). Scand. J. Statist. 6, 65-70. Benjamini, Y. & Hochberg, Y. (1995).
    JRSS B 57, 289-300.

    Examples
    --------
    >>> p, m = adjust_families([0.01, 0.04, 0.03, 0.02, float("nan")], [1, 1, 1, 2, 2],
    ...                        method="holm")
    >>> p.round(12).tolist(), m.tolist()
    ([0.03, 0.06, 0.06, 0.02, nan], [3, 3, 3, 1, 1])
    """
    _validate.choice("method", method, tuple(METHODS))
    how = METHODS[method]
    p = np.asarray(p_values, dtype=float).ravel()
    fam = np.asarray(families).ravel()
    if len(fam) != len(p):
        raise ValueError(f"families has {len(fam)} labels for {len(p)} p-values")
    defined = ~np.isnan(p)
    if np.any((p[defined] < 0) | (p[defined] > 1)):
        raise ValueError(f"p_values must lie in [0, 1]; got {p[defined].tolist()}")
    codes = pd.factorize(fam, use_na_sentinel=False)[0] if len(fam) else np.zeros(0, int)
    n_codes = int(codes.max()) + 1 if len(codes) else 0
    sizes = np.bincount(codes[defined], minlength=n_codes).astype(np.int64)
    if family_size is not None:
        family_size = _validate.count("family_size", family_size)
        if how != "bonferroni":
            raise ValueError("family_size is only supported with method='bonferroni'")
        if len(sizes) and family_size < sizes.max():
            raise ValueError(f"family_size must be >= the number of defined p-values "
                             f"({int(sizes.max())}); got {family_size}")
    adjusted = np.full(len(p), np.nan)
    rows = np.flatnonzero(defined)
    if rows.size:
        order = rows[np.lexsort((p[rows], codes[rows]))]
        ps, gs = p[order], codes[order]
        m = sizes[gs] if family_size is None else np.full(len(order), family_size)
        first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        rank = np.arange(len(order)) - first[gs] + 1  # 1-based rank within the family
        if how == "bonferroni":
            adj = np.minimum(1.0, m * ps)
        elif how == "holm":
            adj = _grouped(np.minimum(1.0, (m - rank + 1) * ps), gs, np.maximum)
        else:  # fdr_bh: step-up, the cumulative minimum from the largest p down
            raw = np.minimum(1.0, m / rank * ps)
            adj = _grouped(raw[::-1], gs[::-1], np.minimum)[::-1]
        adjusted[order] = adj
    if family_size is not None:
        return adjusted, np.full(len(p), family_size, dtype=np.int64)
    return adjusted, sizes[codes] if len(codes) else np.zeros(0, dtype=np.int64)


def _grouped(values: np.ndarray, groups: np.ndarray, ufunc) -> np.ndarray:
    """Cumulative ``ufunc`` (maximum or minimum) of ``values`` restarting at each new label
    of ``groups`` (whose equal labels are contiguous)."""
    if len(groups) == 0 or groups[0] == groups[-1] and np.all(groups == groups[0]):
        return ufunc.accumulate(values)
    series = pd.Series(values).groupby(groups, sort=False)
    return (series.cummax() if ufunc is np.maximum else series.cummin()).to_numpy()
