"""Krippendorff's alpha for any number of raters and missing ratings, with intervals.

The ``krippendorff`` package computes alpha at the declared level of measurement; this module
adds the value order, the checks, the bootstrap interval over items and a ``reason`` where
alpha is undefined.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import krippendorff
import numpy as np

from noisefloor.stats.agreement import resampling as _boot
from noisefloor.stats.agreement.input import (
    _codes,
    _first_seen,
    _integer_array,
    _missing_mask,
    _ratings_matrix,
    _sort_key,
    _type_mask,
    check_choice,
    check_confidence,
    check_n_boot,
    ordered_categories,
    resolve_categories,
)
from noisefloor.stats.agreement.interval import _with_bootstrap
from noisefloor.stats.agreement.result import AgreementResult, _undefined

__all__ = ["LEVELS", "krippendorff_alpha"]

LEVELS = ("nominal", "ordinal", "interval", "ratio")

#: The levels as the ``krippendorff`` package types them.
_LEVEL_OF_MEASUREMENT: dict[str, Literal["nominal", "ordinal", "interval", "ratio"]] = {
    "nominal": "nominal", "ordinal": "ordinal", "interval": "interval", "ratio": "ratio"}


def _is_numeric_type(t: type) -> bool:
    """Whether a rating of type ``t`` is a number for the interval and ratio levels."""
    return issubclass(t, (int, float, np.number)) and not issubclass(t, bool)


def _pairable_agreement(codes: np.ndarray, k: int) -> tuple[float, float, int]:
    """Observed and nominal-expected exact agreement from the coincidence matrix.

    codes: item x rater float array of category codes 0 .. k-1 with NaN for missing. Returns
    (observed, expected, n_pairable_values) following Krippendorff (2011), section on the
    coincidence matrix: o_ck = sum_u (number of c-k pairs in unit u) / (m_u - 1), over the
    units u with m_u >= 2 values. Only its trace and margins are needed, and both are sums
    over units: with n_uc values c in unit u, trace(o) = sum_u (sum_c n_uc^2 - m_u) / (m_u - 1),
    n_c = sum_k o_ck = sum_u n_uc and n = sum_u m_u; computed for all units at once from the
    counts of the distinct (unit, code) pairs.
    """
    present = np.isfinite(codes)
    m = present.sum(axis=1)
    pairable = m >= 2
    if not pairable.any():
        return math.nan, math.nan, 0
    sub = codes[pairable]
    m_u = m[pairable].astype(float)
    unit, _ = np.nonzero(np.isfinite(sub))  # the unit of each value, row by row
    code = sub[np.isfinite(sub)].astype(np.int64)
    nc = np.bincount(code, minlength=k).astype(float)
    cells, n_uc = np.unique(unit * np.int64(k) + code, return_counts=True)
    square = np.bincount(cells // k, weights=n_uc.astype(float) ** 2, minlength=sub.shape[0])
    n = float(m_u.sum())
    observed = float(((square - m_u) / (m_u - 1.0)).sum() / n)
    expected = float((nc * (nc - 1)).sum() / (n * (n - 1))) if n > 1 else math.nan
    return observed, expected, int(round(n))


def krippendorff_alpha(
    ratings: Any,
    *,
    level: str,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    rng: int | np.random.Generator | None = None,
) -> AgreementResult:
    """Krippendorff's alpha for any number of raters, missing ratings allowed.

    Parameters
    ----------
    ratings : array_like or DataFrame, shape (n_items, n_raters)
        Item x rater (note: the ``krippendorff`` package takes the transpose); missing ratings
        are ``None`` or NaN. Items with fewer than two ratings are not pairable and do not
        enter alpha (counted in ``note``).
    level : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement; required, there is no default.
    categories : sequence, optional
        Value order, lowest to highest. ``"ordinal"``: required when the labels are not all
        numbers (an error otherwise; numeric labels are taken in numeric order, recorded as
        ``category_order="numeric"``). ``"nominal"``: only names the values.
        ``"interval"``/``"ratio"``: need numeric ratings; the distances are the values' own,
        so the order is ignored (``category_order="numeric"``).
    confidence : float, default 0.95
        Level of the bootstrap interval.
    n_boot : int, default 2000
        Bootstrap resamples of items; 0 disables it.
    rng : int or numpy.random.Generator, optional
        Randomness for the bootstrap.

    Returns
    -------
    AgreementResult
        ``metric="krippendorff"``, ``level`` set; ``observed_agreement`` is the share of
        pairable value pairs that are identical and ``expected_agreement`` its nominal chance
        value (both descriptive; alpha itself uses the level's distance).

    Raises
    ------
    ValueError
        Bad ``level``; non-numeric ratings at the interval/ratio level, or at the ordinal level
        without ``categories`` (see :func:`ordered_categories`); no item with two ratings; a
        label outside ``categories``.

    Notes
    -----
    alpha = 1 - D_o / D_e, observed over expected disagreement under the level's distance;
    computed by ``krippendorff.alpha`` with ``level_of_measurement`` passed explicitly. When all
    pairable values are identical D_e = 0 and alpha is undefined (NaN with a reason). The
    bootstrap resamples items (units), not pairs as in Krippendorff's own algorithm.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
    Communication Departmental Papers 43, University of Pennsylvania.

    Examples
    --------
    >>> data = [[1, 1, None], [2, 2, 3], [3, 3, 3], [2, 2, 2]]
    >>> round(krippendorff_alpha(data, level="nominal", n_boot=0).value, 3)
    0.737
    """
    check_choice("level", level, LEVELS)
    confidence = check_confidence(confidence)
    n_boot = check_n_boot(n_boot)
    arr = _ratings_matrix(ratings)
    ints = _integer_array(ratings)
    if ints is not None:  # an integer array: nothing missing, every rating a number
        missing = np.zeros(arr.shape, dtype=bool)
        cells = ints.ravel()
        present = _first_seen(cells)  # the distinct ratings, in the order first seen
    else:
        missing = _missing_mask(arr)
        cells = arr[~missing]  # the present ratings, row by row
        present = cells.tolist()
    if level in ("interval", "ratio"):
        bad = _type_mask(cells, _is_numeric_type) if ints is None else np.zeros(0, dtype=bool)
        if bad.any():
            raise ValueError(
                f"the {level} level of measurement needs numeric ratings; got "
                f"{cells[int(np.argmax(bad))]!r}. "
                "Labels that are not numbers need the nominal or ordinal level"
            )
        values = ints.astype(float) if ints is not None else (
            np.where(missing, np.nan, arr).astype(float))
        cats = (
            tuple(sorted(set(present), key=_sort_key)) if categories is None
            else tuple(categories)
        )
        resolve_categories(present, cats)
        codes_for_agreement = np.full(values.shape, np.nan)
        codes_for_agreement[~missing] = _codes(cells, {c: i for i, c in enumerate(cats)})
        domain = None
        order = "numeric"
    else:
        if level == "ordinal":
            cats, order = ordered_categories(present, categories, "ordinal alpha")
        else:
            cats, order = resolve_categories(present, categories), ""
        values = np.full(arr.shape, np.nan)
        values[~missing] = _codes(cells, {c: i for i, c in enumerate(cats)})
        codes_for_agreement = values
        domain = list(range(len(cats)))
    pairable_rows = (np.isfinite(values).sum(axis=1) >= 2)
    if not pairable_rows.any():
        raise ValueError("no item has at least two ratings, so nothing is pairable")
    po, pe, _ = _pairable_agreement(codes_for_agreement, len(cats))
    n_unpairable = int((~pairable_rows).sum())
    note = (
        f"{n_unpairable} item(s) with fewer than two ratings are not pairable and do not enter "
        "alpha"
        if n_unpairable
        else ""
    )
    base: dict[str, Any] = dict(
        metric="krippendorff",
        confidence=confidence,
        n_items=int(pairable_rows.sum()),
        n_raters=int(arr.shape[1]),
        categories=cats,
        observed_agreement=po,
        expected_agreement=pe,
        level=level,
        note=note,
        category_order=order,
    )

    def alpha_of(rows: np.ndarray) -> float:
        sub = values[rows]
        pair = np.isfinite(sub).sum(axis=1) >= 2
        vals = sub[pair]
        finite = vals[np.isfinite(vals)]
        if finite.size == 0 or np.unique(finite).size < 2:
            return math.nan
        kwargs = {"value_domain": domain} if domain is not None else {}
        return float(
            krippendorff.alpha(reliability_data=vals.T,
                               level_of_measurement=_LEVEL_OF_MEASUREMENT[level], **kwargs)
        )

    value = alpha_of(np.arange(arr.shape[0]))
    if not math.isfinite(value):
        only = cats[int(np.nanmin(codes_for_agreement[pairable_rows]))]
        return _undefined(
            f"undefined: every pairable rating is {only!r}, so expected disagreement is 0 "
            "and alpha is 0/0",
            base,
        )
    result = AgreementResult(value=value, ci_low=math.nan, ci_high=math.nan, **base)
    return _with_bootstrap(
        result, arr.shape[0], n_boot, rng,
        lambda: _boot.krippendorff_resampler(values, level)
        or _boot.loop_resampler(arr.shape[0], alpha_of))
