"""Pooling one contrast over seeds: summed counts, or random effects over per-seed gaps."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.paired import SignTest, sign_test


def pool_counts(counts, *, confidence: float = 0.95) -> SignTest:
    """Pool a contrast over seeds by summing its W/L/T counts (the noise-floor paper's method).

    Parameters
    ----------
    counts : iterable of (wins, losses, ties)
        One triple per seed, each count a non-negative int.
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    SignTest
        :func:`~noisefloor.stats.paired.sign_test` on the summed counts.

    Raises
    ------
    ValueError
        If ``counts`` is empty or an item is not a triple.

    Examples
    --------
    Pull vs intercept at trial 0, seeds 1 and 2 of the noise-floor paper (n = 200):

    >>> r = pool_counts([(27, 9, 64), (18, 21, 61)])
    >>> r.wins, r.losses, r.ties, r.gap, round(min(1.0, 3 * r.p_value), 3)
    (45, 30, 125, 0.075, 0.316)
    """
    triples = [tuple(c) for c in counts]
    if not triples:
        raise ValueError("counts must hold at least one (wins, losses, ties) triple; got none")
    for i, c in enumerate(triples):
        if len(c) != 3:
            raise ValueError(f"counts[{i}] must be a (wins, losses, ties) triple; got {c!r}")
    w = sum(_validate.count(f"counts[{i}].wins", c[0]) for i, c in enumerate(triples))
    lo = sum(_validate.count(f"counts[{i}].losses", c[1]) for i, c in enumerate(triples))
    t = sum(_validate.count(f"counts[{i}].ties", c[2]) for i, c in enumerate(triples))
    return sign_test(w, lo, t, confidence=confidence)


def gap_variance(wins: int, losses: int, ties: int) -> float:
    """Sampling variance of the signed gap ``(W - L) / n`` (NaN when ``n == 0``).

    Parameters
    ----------
    wins, losses, ties : int
        Paired outcome counts of one seed, each >= 0.

    Returns
    -------
    float
        Plug-in variance of the gap in squared proportion units; NaN when ``n = W + L + T``
        is 0.

    Raises
    ------
    TypeError, ValueError
        If a count is not a non-negative integer.

    Notes
    -----
    The gap is the mean of per-task differences d in {+1, -1, 0}; with ``p_w = W/n``,
    ``p_l = L/n``: ``Var(gap) = (p_w + p_l - (p_w - p_l)^2) / n`` (plug-in multinomial
    variance of a mean).

    Examples
    --------
    >>> round(gap_variance(27, 9, 64), 6)
    0.003276
    """
    w = _validate.count("wins", wins)
    lo = _validate.count("losses", losses)
    t = _validate.count("ties", ties)
    n = w + lo + t
    if n == 0:
        return math.nan
    pw, pl = w / n, lo / n
    return (pw + pl - (pw - pl) ** 2) / n


@dataclass(frozen=True)
class RandomEffectsPool(FrozenResult):
    """Result of :func:`pool_random_effects`.

    Attributes
    ----------
    estimate : float
        Random-effects pooled gap (proportion).
    ci_low, ci_high : float
        Normal-theory interval of the pooled gap at ``confidence``.
    tau_squared, tau : float
        Between-seed variance of the true gap and its square root (proportion units).
    i2 : float
        Higgins' I^2, share of variation due to heterogeneity (0..1).
    q : float
        Cochran's Q heterogeneity statistic.
    k : int
        Number of seeds pooled.
    method : str
        Estimator of tau^2: ``"dl"`` (DerSimonian-Laird) or ``"pm"`` (Paule-Mandel).
    confidence : float
        Interval level.
    reason : str
        Why the result is NaN, if it is.

    Examples
    --------
    >>> from noisefloor.stats import pool_random_effects
    >>> r = pool_random_effects([0.18, -0.03], [0.0036, 0.0031])
    >>> round(r.tau, 4), round(r.i2, 3), round(r.q, 3)
    (0.1367, 0.848, 6.582)
    >>> pool_random_effects([0.1], [0.01]).reason
    'random-effects pooling needs at least two seeds; got 1'
    """

    estimate: float
    ci_low: float
    ci_high: float
    tau_squared: float
    tau: float
    i2: float
    q: float
    k: int
    method: str
    confidence: float = 0.95
    reason: str = ""


def pool_random_effects(
    gaps, variances, *, method: str = "dl", confidence: float = 0.95
) -> RandomEffectsPool:
    """Random-effects pooling of per-seed gaps, reporting the between-seed tau.

    Parameters
    ----------
    gaps : array-like of float, shape (k,)
        Per-seed signed gaps (proportions).
    variances : array-like of float, shape (k,)
        Their sampling variances (e.g. :func:`gap_variance`), each > 0.
    method : {"dl", "pm"}, default "dl"
        DerSimonian-Laird or Paule-Mandel estimator of tau^2.
    confidence : float, default 0.95
        Level of the normal-theory interval ``estimate -/+ z_{(1+confidence)/2} * se``.

    Returns
    -------
    RandomEffectsPool
        NaN fields with a ``reason`` when fewer than two seeds are given or a variance is 0.

    Raises
    ------
    ValueError
        If the shapes differ, a value is not finite, or a variance is negative.

    Notes
    -----
    DerSimonian-Laird in closed form (the values of
    ``statsmodels.stats.meta_analysis.combine_effects(method_re="dl")``); Paule-Mandel by
    ``combine_effects(method_re="pm")``. With weights ``w_i = 1/v_i``, ``Q = sum w_i (y_i - ybar_w)^2`` and DerSimonian-Laird
    ``tau^2 = max(0, (Q - (k - 1)) / (sum w - sum w^2 / sum w))``; the pooled estimate uses
    weights ``1 / (v_i + tau^2)``. statsmodels does not truncate the DerSimonian-Laird
    moment estimate at zero; this function does (then the pooled estimate and interval are
    the fixed-effect ones).

    References
    ----------
    DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical trials. Controlled Clinical
    Trials 7, 177-188.

    Examples
    --------
    The noise-floor paper's seed-1 and seed-2 pull-intercept gaps (R metafor:
    ``rma(c(.18, -.03), c(.0036, .0031), method = "DL", level = 90)``):

    >>> r = pool_random_effects([0.18, -0.03], [0.0036, 0.0031], confidence=0.90)
    >>> round(r.estimate, 6), round(r.tau_squared, 4), r.k
    (0.07381, 0.0187, 2)
    >>> round(r.ci_low, 6), round(r.ci_high, 6)
    (-0.098889, 0.246508)
    """
    _validate.choice("method", method, ("dl", "pm"))
    conf = _validate.probability("confidence", confidence)
    y = np.asarray(gaps, dtype=float).ravel()
    v = np.asarray(variances, dtype=float).ravel()
    if y.shape != v.shape:
        raise ValueError(f"gaps and variances must have the same length; got {y.size} and {v.size}")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(v))):
        raise ValueError("gaps and variances must be finite numbers")
    if np.any(v < 0):
        raise ValueError(f"variances must be >= 0; got {v.tolist()}")
    k = int(y.size)
    nan = math.nan
    if k < 2:
        return RandomEffectsPool(nan, nan, nan, nan, nan, nan, nan, k, method, conf,
                                 f"random-effects pooling needs at least two seeds; got {k}")
    if np.any(v == 0):
        return RandomEffectsPool(nan, nan, nan, nan, nan, nan, nan, k, method, conf,
                                 "a seed has zero sampling variance (all ties or all one outcome); "
                                 "inverse-variance weights are undefined")
    if method == "pm":
        return _paule_mandel(y, v, k, conf)
    # DerSimonian-Laird in closed form (numpy): the values statsmodels' combine_effects gives,
    # without loading statsmodels for the floor's default pooling
    w = 1.0 / v
    sw = float(w.sum())
    ybar = float((w * y).sum()) / sw
    q = float((w * (y - ybar) ** 2).sum())
    c = sw - float((w**2).sum()) / sw
    tau_squared = (q - (k - 1)) / c
    if tau_squared <= 0.0:  # truncated at 0: the fixed-effect model
        estimate, se, tau_squared, i2 = ybar, math.sqrt(1.0 / sw), 0.0, 0.0
    else:
        wr = 1.0 / (v + tau_squared)
        estimate = float((wr * y).sum()) / float(wr.sum())
        se, i2 = math.sqrt(1.0 / float(wr.sum())), max(0.0, (q - (k - 1)) / q)
    crit = float(-ndtri((1.0 - conf) / 2.0))
    return RandomEffectsPool(estimate, estimate - crit * se, estimate + crit * se, tau_squared,
                             math.sqrt(tau_squared), i2, q, k, method, conf, "")


def _paule_mandel(y: np.ndarray, v: np.ndarray, k: int, conf: float) -> RandomEffectsPool:
    """Paule-Mandel pooling by ``statsmodels.stats.meta_analysis.combine_effects``."""
    from statsmodels.stats.meta_analysis import combine_effects

    with np.errstate(divide="ignore", invalid="ignore"):
        res = combine_effects(y, v, method_re="pm", alpha=1.0 - conf)
        # summary_frame has its own alpha (default 0.05) and ignores the one given to
        # combine_effects: without it every level gave the 95% interval
        frame = res.summary_frame(alpha=1.0 - conf)
    tau_squared = float(res.tau2)
    if tau_squared <= 0.0:
        # with tau^2 = 0 the random-effects model is the fixed-effect model
        row = frame.loc["fixed effect"]
        estimate, tau_squared, i2 = float(res.mean_effect_fe), 0.0, 0.0
    else:
        row = frame.loc["random effect"]
        estimate, i2 = float(res.mean_effect_re), max(0.0, float(res.i2))
    return RandomEffectsPool(
        estimate, float(row["ci_low"]), float(row["ci_upp"]), tau_squared,
        math.sqrt(tau_squared), i2, float(res.q), k, "pm", conf, "",
    )
