"""Multiplicity correction over a family of contrasts (statsmodels ``multipletests``).

statsmodels' default method is Holm-Sidak; noisefloor always passes ``method`` explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from noisefloor.stats import validation as _validate

#: User-facing method names -> statsmodels names.
METHODS = {"bonferroni": "bonferroni", "holm": "holm", "fdr_bh": "fdr_bh", "bh": "fdr_bh"}


@dataclass(frozen=True)
class MultiplicityResult:
    """Result of :func:`adjust_pvalues`.

    Attributes
    ----------
    p_values : tuple of float
        The raw p-values, in input order (NaN kept).
    p_adjusted : tuple of float
        Adjusted p-values in input order; NaN where the raw p-value is NaN.
    method : str
        ``"bonferroni"``, ``"holm"`` or ``"fdr_bh"`` (Benjamini-Hochberg).
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

    def to_dict(self) -> dict:
        """Plain-dict view (tuples become lists; NaN stays NaN).

        Returns
        -------
        dict
            Keys ``p_values, p_adjusted, method, m, excluded, reason``.

        Examples
        --------
        >>> from noisefloor.stats import adjust_pvalues
        >>> adjust_pvalues([0.01, 0.04], method="holm").to_dict()
        {'p_values': [0.01, 0.04], 'p_adjusted': [0.02, 0.04], 'method': 'holm', 'm': 2,
         'excluded': [], 'reason': ''}
        """
        return {
            "p_values": list(self.p_values),
            "p_adjusted": list(self.p_adjusted),
            "method": self.method,
            "m": self.m,
            "excluded": list(self.excluded),
            "reason": self.reason,
        }

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
    ``statsmodels.stats.multitest.multipletests(p, method=...)``.

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
    m = k
    if family_size is not None:
        family_size = _validate.count("family_size", family_size)
        if sm_method != "bonferroni":
            raise ValueError("family_size is only supported with method='bonferroni'")
        if family_size < k:
            raise ValueError(
                f"family_size must be >= the number of defined p-values ({k}); got {family_size}"
            )
        m = family_size
        adjusted[defined] = np.minimum(1.0, p[defined] * m)
    elif k:
        adjusted[defined] = multipletests(p[defined], method=sm_method)[1]
    excluded = tuple(int(i) for i in np.flatnonzero(~defined))
    reason = (
        f"{len(excluded)} undefined (NaN) p-value(s) left out of the family" if excluded else ""
    )
    return MultiplicityResult(
        tuple(p.tolist()), tuple(adjusted.tolist()), "fdr_bh" if method == "bh" else method,
        m, excluded, reason,
    )
