"""A random-effects noise floor: pool each null contrast over seeds with a between-seed tau.

The paper's floor (:func:`noisefloor.floor.estimate.noise_floor`) sums each null contrast's W/L/T over
seeds, which treats the seeds as one large run. When the gap itself moves from seed to seed (the
noise-floor paper's pull-vs-intercept: +18 pp at seed 1, -3 pp at seed 2, a DerSimonian-Laird
tau of 13.6 pp), summing understates how far a new seed can land. This module pools the
per-seed gaps by random effects instead and reports, per contrast, the pooled interval and the
prediction interval for a new seed's gap; the floor and envelope follow the same rule as the
summed floor (the largest excursion bound over clean contrasts, and over all null contrasts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm
from statsmodels.stats.meta_analysis import combine_effects

from noisefloor.floor.null_gaps import excursion_bound
from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.pooling import gap_variance

#: What a contrast's bound is taken from.
BOUNDS = ("ci", "prediction")


@dataclass(frozen=True)
class RandomEffectsFloor(FrozenResult):
    """Result of :func:`random_effects_floor`.

    Attributes
    ----------
    floor : float
        Largest bound over clean contrasts (over all null contrasts when none is clean).
    floor_contrast : str
    envelope : float
        Largest bound over all null contrasts.
    envelope_contrast : str
    basis : str
        ``"clean"`` or ``"null"`` (no clean contrast).
    bound : str
        ``"ci"`` (the pooled interval) or ``"prediction"`` (a new seed's gap).
    method : str
        ``"dl"`` (DerSimonian-Laird) or ``"pm"`` (Paule-Mandel) estimator of tau^2.
    confidence : float
    table : pandas.DataFrame
        One row per contrast: ``contrast, clean, k, estimate, se, ci_low, ci_high, tau_squared, tau,
        pi_low, pi_high, bound, reason``.
    reason : str
        Why the floor is NaN, if it is.
    """

    _dict_keys = ("floor", "floor_contrast", "envelope", "envelope_contrast", "basis", "bound",
                  "method", "confidence", "reason", "table")
    _frame_field = "table"

    floor: float
    floor_contrast: str
    envelope: float
    envelope_contrast: str
    basis: str
    bound: str
    method: str
    confidence: float
    table: pd.DataFrame = field(repr=False)
    reason: str = ""


def _pool(y: np.ndarray, v: np.ndarray, method: str, conf: float) -> dict:
    nan = math.nan
    k = int(y.size)
    out = {"k": k, "estimate": nan, "se": nan, "ci_low": nan, "ci_high": nan, "tau_squared": nan,
           "tau": nan, "pi_low": nan, "pi_high": nan, "reason": ""}
    if k < 2:
        out["reason"] = f"random-effects pooling needs at least two seeds; got {k}"
        return out
    if np.any(v == 0):
        out["reason"] = ("a seed has zero sampling variance (all ties or all one outcome): "
                         "inverse-variance weights are undefined")
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        tau_squared = float(combine_effects(y, v, method_re=method).tau2)
    tau_squared = max(tau_squared, 0.0)  # DerSimonian-Laird truncate the moment estimate at 0
    w = 1.0 / (v + tau_squared)
    est = float(np.sum(w * y) / np.sum(w))
    se = float(1.0 / math.sqrt(np.sum(w)))
    z = float(norm.ppf(0.5 + conf / 2))
    half_pi = z * math.sqrt(tau_squared + se * se)
    out.update(estimate=est, se=se, ci_low=est - z * se, ci_high=est + z * se,
               tau_squared=tau_squared, tau=math.sqrt(tau_squared), pi_low=est - half_pi, pi_high=est + half_pi)
    return out


def random_effects_floor(null_contrasts: pd.DataFrame, *, confidence: float = 0.95,
                         method: str = "dl", bound: str = "ci") -> RandomEffectsFloor:
    """The noise floor and envelope with each null contrast pooled over seeds by random effects.

    Parameters
    ----------
    null_contrasts : pandas.DataFrame, shape (n_rows, >= 6)
        One row per (contrast, seed): ``contrast``, ``clean``, ``seed``, ``wins``, ``losses``,
        ``ties``, as :func:`noisefloor.floor.estimate.noise_floor` takes it; build it with
        :func:`~noisefloor.floor.count_table.null_contrasts_from_counts` (a count table) or
        :func:`~noisefloor.floor.nulls.certified_null_contrasts` (a log's null contrasts).
    confidence : float, default 0.95
        Level of the pooled and prediction intervals, in (0, 1).
    method : {"dl", "pm"}, default "dl"
        Estimator of the between-seed variance tau^2 (statsmodels ``combine_effects``).
    bound : {"ci", "prediction"}, default "ci"
        A contrast's bound: the excursion ``max(ci_high, -ci_low)`` of the pooled interval (the
        random-effects analogue of the summed floor), or of the prediction interval for the gap
        at a new seed.

    Returns
    -------
    RandomEffectsFloor
        A contrast with one seed, or a seed without variance, has NaN fields and a reason; the
        floor is NaN with a reason when no contrast is defined.

    Raises
    ------
    ValueError
        If a column is missing, a count is not a non-negative integer, a (contrast, seed) pair
        repeats, or an option is not one of its allowed values.

    Notes
    -----
    Per seed: gap ``y_i = (W - L) / n`` and its variance ``v_i`` (:func:`gap_variance`). With
    ``tau^2`` from DerSimonian-Laird (truncated at 0), weights ``w_i = 1 / (v_i + tau^2)``:
    ``estimate = sum w y / sum w``, ``se = 1 / sqrt(sum w)``, interval ``estimate -+ z se``,
    prediction interval ``estimate -+ z sqrt(tau^2 + se^2)`` (normal quantiles, as R
    ``metafor::predict.rma`` for a z-based model).

    References
    ----------
    DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical trials. Controlled Clinical
    Trials 7, 177-188.
    Higgins, J. P. T., Thompson, S. G. & Spiegelhalter, D. J. (2009). A re-evaluation of
    random-effects meta-analysis. JRSS A 172(1), 137-159 (prediction intervals).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"contrast": ["no_coord-intercept"] * 2 + ["pull-intercept"] * 2,
    ...                   "clean": [True, True, False, False], "seed": [1, 2, 1, 2],
    ...                   "wins": [21, 13, 27, 18], "losses": [11, 13, 9, 21],
    ...                   "ties": [68, 74, 64, 61]})
    >>> f = random_effects_floor(t)
    >>> round(f.floor, 4), round(f.envelope, 4), f.envelope_contrast
    (0.1454, 0.2822, 'pull-intercept')
    """
    conf = _validate.probability("confidence", confidence)
    _validate.choice("method", method, ("dl", "pm"))
    _validate.choice("bound", bound, BOUNDS)
    need = ("contrast", "clean", "seed", "wins", "losses", "ties")
    missing = [c for c in need if c not in null_contrasts.columns]
    if missing:
        raise ValueError(f"null_contrasts lacks column(s) {missing}; expected {list(need)}")
    if null_contrasts.duplicated(["contrast", "seed"]).any():
        r = null_contrasts[null_contrasts.duplicated(["contrast", "seed"])].iloc[0]
        raise ValueError(f"contrast {r['contrast']!r} appears more than once for seed "
                         f"{r['seed']!r}")
    rows = []
    # grouped in plain lists (first-appearance order, a missing label left out, as a groupby)
    groups: dict[Any, list[tuple]] = {}
    for rec in zip(*(null_contrasts[c].tolist() for c in need)):
        if not (rec[0] is None or rec[0] is pd.NA or rec[0] != rec[0]):
            groups.setdefault(rec[0], []).append(rec)
    for label, grp in groups.items():
        counts = [(_validate.count(f"{label} seed {s} wins", w),
                   _validate.count(f"{label} seed {s} losses", lo),
                   _validate.count(f"{label} seed {s} ties", t))
                  for _, _, s, w, lo, t in grp]
        counts = [c for c in counts if sum(c) > 0]
        y = np.array([(w - lo) / (w + lo + t) for w, lo, t in counts], dtype=float)
        v = np.array([gap_variance(*c) for c in counts], dtype=float)
        pooled = _pool(y, v, method, conf)
        lo_, hi_ = ((pooled["ci_low"], pooled["ci_high"]) if bound == "ci"
                    else (pooled["pi_low"], pooled["pi_high"]))
        rows.append({"contrast": str(label), "clean": all(bool(r[1]) for r in grp),
                     **pooled, "bound": excursion_bound(lo_, hi_)})
    cols = ["contrast", "clean", "k", "estimate", "se", "ci_low", "ci_high", "tau_squared", "tau",
            "pi_low", "pi_high", "bound", "reason"]
    table = pd.DataFrame(rows, columns=cols)

    def top(t):
        t = t[t["bound"].notna()]
        if t.empty:
            return math.nan, ""
        r = t.loc[t["bound"].idxmax()]
        return float(r["bound"]), str(r["contrast"])

    basis = "clean" if table["clean"].any() else "null"
    floor, fc = top(table[table["clean"]] if basis == "clean" else table)
    envelope, ec = top(table)
    reason = "" if fc else ("no contrast of the floor's basis has two seeds with variance: the "
                            "random-effects floor is undefined")
    return RandomEffectsFloor(floor, fc, envelope, ec, basis, bound, method, conf, table, reason)
