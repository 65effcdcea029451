"""The power of each design at a given number of tasks (see :mod:`noisefloor.stats.power.planning`).

:func:`power_two_proportion` (two independent samples), :func:`power_mcnemar` (paired, Connor's
normal approximation) and :func:`power_sign_test` (paired, exact), with :func:`power` and
:func:`power_curve` choosing among them by name; the validators shared with the planning
functions of :mod:`noisefloor.stats.power.planning` live here too.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri
from scipy.stats import binom, norm
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from noisefloor.stats.validation import ParameterError, literal

__all__ = ["EFFECT_SIZES", "MAX_EXACT_N", "TESTS", "power", "power_curve", "power_mcnemar",
           "power_sign_test", "power_two_proportion"]

#: The designs planned for.
TESTS = ("two_proportion", "mcnemar", "sign_test")
#: Effect-size conventions of the independent two-proportion z-test.
EFFECT_SIZES = ("arcsine", "pooled")
#: Largest n searched for the exact sign test (its power is computed for each n in turn).
MAX_EXACT_N = 20_000


# ----------------------------------------------------------------------------- validation


def _bad(name: str, value, text: str) -> ParameterError:
    """A ParameterError whose message is ``text`` (mentions as ``{name}``) and the value."""
    return ParameterError(name, "", value, message=text + literal(repr(value)))


def _unit_open(name: str, value) -> float:
    v = _number(name, value)
    if not 0.0 < v < 1.0:
        raise _bad(name, value, "{" + name + "} must lie strictly between 0 and 1; got ")
    return v


def _number(name: str, value) -> float:
    if isinstance(value, bool):
        raise _bad(name, value, "{" + name + "} must be a number; got ")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise _bad(name, value, "{" + name + "} must be a number; got ") from None
    if not math.isfinite(v):
        raise _bad(name, value, "{" + name + "} must be a finite number; got ")
    return v


def _n(value) -> int:
    if isinstance(value, bool) or not float(value).is_integer() or value < 1:
        raise _bad("n", value, "{n} must be a whole number of tasks >= 1; got ")
    return int(value)


def _check(test, gap, baseline, p_d, alpha, floor, effect_size):
    if test not in TESTS:
        raise _bad("test", test, f"{{test}} must be one of {', '.join(TESTS)}; got ")
    a = _unit_open("alpha", alpha)
    f = _number("floor", floor)
    if f < 0 or f >= 1:
        raise _bad("floor", floor, "{floor} must lie in [0, 1) (a proportion, not percentage "
                   "points); got ")
    g = math.nan if gap is None else _number("gap", gap)
    if not math.isnan(g) and not -1.0 <= g <= 1.0:
        raise _bad("gap", gap, "{gap} must be a proportion in [-1, 1] (not percentage points); "
                   "got ")
    if test == "two_proportion":
        if effect_size not in EFFECT_SIZES:
            raise _bad("effect_size", effect_size,
                       f"{{effect_size}} must be one of {', '.join(EFFECT_SIZES)}; got ")
        if baseline is None:
            raise ParameterError("baseline", "given", message=(
                "{baseline} (the reference arm's success rate) is needed for "
                "{test='two_proportion'}"))
        b = _unit_open("baseline", baseline)
        if not math.isnan(g) and not 0.0 < b + g < 1.0:
            raise ParameterError("gap", "such that baseline + gap lies in (0, 1)", g,
                                 message="{baseline} + {gap} must lie strictly between 0 and "
                                 + literal(f"1; got {b} + {g} = {b + g}"))
        if f > 0 and not math.isnan(g) and g < 0:
            raise ParameterError("gap", "> 0", g, message=(
                "with {floor} plan for a gain, {gap} > 0 (the arm compared with the baseline "
                "succeeding more often); got " + literal(f"{g}")))
        if f > 0 and effect_size != "arcsine":
            raise ParameterError("effect_size", "'arcsine'", effect_size, message=(
                "{floor} is planned with {effect_size='arcsine'} only (the pooled "
                "power.prop.test approximation has no shifted null)"))
        return a, g, b, math.nan, f, effect_size
    if p_d is None:
        raise ParameterError("p_d", "given", message=(
            "{p_d} (the share of tasks on which the arms disagree) is needed for "
            + literal(f"the {test} test")))
    d = _number("p_d", p_d)
    if not 0.0 <= d <= 1.0:
        raise _bad("p_d", p_d, "{p_d} must lie in [0, 1]; got ")
    if not math.isnan(g) and abs(g) > d + 1e-12:
        raise ParameterError("gap", "at most p_d in size", g, message=(
            "the size of {gap} cannot exceed {p_d} (the gain is p10 - p01 and p_d = p10 + p01); "
            + literal(f"got {g} with {d}")))
    if f > 0 and test == "sign_test":
        raise ParameterError("floor", "0 with the sign test", f, message=(
            "{floor} is planned for the mcnemar and two_proportion tests only; the exact sign "
            "test here tests no difference"))
    if not math.isnan(g) and f > 0 and f * f >= d:
        raise ParameterError("floor", "such that floor^2 < p_d", f, message=(
            "{floor} must satisfy floor^2 < {p_d} (a gap of floor needs that many discordant "
            "tasks); " + literal(f"got floor {f}, p_d {d}")))
    return a, g, math.nan, d, f, ("connor" if test == "mcnemar" else "exact")


# ----------------------------------------------------------------------------- power functions


def _arcsine(p2: float, p1: float) -> float:
    return float(proportion_effectsize(p2, p1))


def power_two_proportion(n, baseline, gap, *, alpha=0.05, effect_size="arcsine",
                         floor=0.0) -> float:
    """Power of the independent two-proportion z-test with n tasks per arm.

    Parameters
    ----------
    n : int
        Tasks per arm, >= 1.
    baseline : float
        Success rate of the reference arm, in (0, 1).
    gap : float
        True difference of success rates ``p2 - baseline`` (proportion).
    alpha : float, default 0.05
        Two-sided significance level.
    effect_size : {"arcsine", "pooled"}, default "arcsine"
        ``"arcsine"``: Cohen's ``h = 2 asin(sqrt(p2)) - 2 asin(sqrt(p1))`` and
        ``statsmodels.stats.power.NormalIndPower`` (both tails; = R ``pwr::pwr.2p.test``).
        ``"pooled"``: the approximation of R ``power.prop.test`` (``strict = FALSE``: one tail).
    floor : float, default 0.0
        With ``floor = F > 0`` (arcsine only): power of the lower ``1 - alpha`` bound exceeding
        F, i.e. ``NormalIndPower`` at effect ``h(p2, p1) - h(p1 + F, p1)``, one-sided at
        ``alpha / 2``.

    Returns
    -------
    float
        Power in [0, 1].

    Raises
    ------
    ValueError, TypeError
        On a value outside its range, named by its keyword.

    Notes
    -----
    Arcsine: ``power = Phi(h sqrt(n/2) - z) + Phi(-h sqrt(n/2) - z)``, ``z = z_{1-alpha/2}``.
    Pooled: ``power = Phi((sqrt(n) |p1 - p2| - z sqrt(2 pbar qbar)) / sqrt(p1 q1 + p2 q2))``,
    ``pbar = (p1 + p2) / 2``.

    References
    ----------
    Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.,
    chapter 6 (the effect size h). Erlbaum.

    Examples
    --------
    >>> round(power_two_proportion(100, 0.5, 0.1), 4)  # R: pwr.2p.test(h=ES.h(.6,.5), n=100)
    0.2963
    >>> round(power_two_proportion(100, 0.5, 0.1, effect_size="pooled"), 4)  # power.prop.test
    0.2941
    """
    a, g, b, _, f, es = _check("two_proportion", gap, baseline, None, alpha, floor, effect_size)
    n = _n(n)
    return _power_2p(n, b, g, a, es, f)


def _power_2p(n: float, b: float, g: float, a: float, es: str, f: float) -> float:
    p2 = b + g
    if es == "pooled":
        pbar = (b + p2) / 2
        z = norm.isf(a / 2)
        num = math.sqrt(n) * abs(g) - z * math.sqrt(2 * pbar * (1 - pbar))
        return float(norm.cdf(num / math.sqrt(b * (1 - b) + p2 * (1 - p2))))
    h = _arcsine(p2, b)
    if f == 0:
        return float(NormalIndPower().power(h, nobs1=n, alpha=a, ratio=1.0))
    if b + f >= 1:
        return 0.0
    shifted = abs(h) - _arcsine(b + f, b)
    return float(NormalIndPower().power(shifted, nobs1=n, alpha=a / 2, ratio=1.0,
                                        alternative="larger"))


def power_mcnemar(n, gap, p_d, *, alpha=0.05, floor=0.0) -> float:
    """Power of McNemar's test on n paired tasks, by Connor's (1987) approximation.

    Parameters
    ----------
    n : int
        Paired tasks, >= 1.
    gap : float
        True paired gain ``p10 - p01`` (proportion), ``|gap| <= p_d``.
    p_d : float
        Discordance ``p10 + p01`` in [0, 1]: the share of tasks on which the arms disagree.
    alpha : float, default 0.05
        Two-sided significance level.
    floor : float, default 0.0
        With ``F > 0``: power of the lower ``1 - alpha`` bound of the gap exceeding F.

    Returns
    -------
    float
        Power in [0, 1]; NaN when ``p_d == 0`` (no discordant pair can occur).

    Raises
    ------
    ValueError, TypeError
        On a value outside its range, named by its keyword.

    Notes
    -----
    With ``D = gap``, ``z = z_{1-alpha/2}``:
    ``power = Phi((D sqrt(n) - z sqrt(p_d)) / sqrt(p_d - D^2))
    + Phi((-D sqrt(n) - z sqrt(p_d)) / sqrt(p_d - D^2))`` (Connor 1987, p. 209). With a floor F
    the null variance is ``p_d - F^2`` and only the clearing tail counts:
    ``Phi(((|D| - F) sqrt(n) - z sqrt(p_d - F^2)) / sqrt(p_d - D^2))``.

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. Biometrics 43(1), 207-211.

    Examples
    --------
    >>> round(power_mcnemar(23, -0.4, 0.5), 3)  # p10 = 0.05, p01 = 0.45
    0.819
    """
    a, g, _, d, f, _ = _check("mcnemar", gap, None, p_d, alpha, floor, None)
    return _power_connor(_n(n), g, d, a, f)


def _power_connor(n: float, g: float, d: float, a: float, f: float) -> float:
    if d == 0:
        return math.nan
    z = -ndtri(a / 2)  # norm.isf(a / 2): scipy.stats' own formula, without its per-call checks
    sd1 = math.sqrt(max(d - g * g, 0.0))
    if sd1 == 0:  # every task discordant in the same direction: the gap is known exactly
        return 1.0 if abs(g) > f else 0.0
    if f == 0:
        return float(ndtr((g * math.sqrt(n) - z * math.sqrt(d)) / sd1)
                     + ndtr((-g * math.sqrt(n) - z * math.sqrt(d)) / sd1))
    return float(ndtr(((abs(g) - f) * math.sqrt(n) - z * math.sqrt(d - f * f)) / sd1))


def _critical(m: np.ndarray, a: float) -> np.ndarray:
    # largest c with 2 * P(X <= c) <= alpha for X ~ Binomial(m, 1/2): reject when
    # min(W, m - W) <= c (scipy.stats.binomtest and R binom.test p-values for p = 1/2)
    c = binom.ppf(a / 2, m, 0.5)
    ok = 2 * binom.cdf(c, m, 0.5) <= a * (1 + 1e-7)
    return np.where(ok, c, c - 1)


def power_sign_test(n, gap, p_d, *, alpha=0.05) -> float:
    """Exact power of the two-sided sign test on n paired tasks (ties dropped).

    Parameters
    ----------
    n : int
        Paired tasks, ties included, >= 1.
    gap : float
        True paired gain ``p10 - p01`` (proportion), ``|gap| <= p_d``.
    p_d : float
        Discordance ``p10 + p01`` in [0, 1].
    alpha : float, default 0.05
        Two-sided significance level of the exact test.

    Returns
    -------
    float
        Exact power in [0, 1] (its size when ``gap == 0``).

    Raises
    ------
    ValueError, TypeError
        On a value outside its range, named by its keyword.

    Notes
    -----
    The number of untied pairs is ``M ~ Binomial(n, p_d)``; given ``M = m`` the wins are
    ``W ~ Binomial(m, q)``, ``q = (p_d + gap) / (2 p_d)``. The test rejects when
    ``2 P(X <= min(W, m - W)) <= alpha``, ``X ~ Binomial(m, 1/2)`` (the p-value of
    ``scipy.stats.binomtest``). Power ``= sum_m P(M = m) P(reject | m)``, summed exactly.
    The exact power is not monotone in n (the rejection region moves in whole steps).

    Examples
    --------
    >>> round(power_sign_test(100, 0.1, 0.3), 4)
    0.3731
    """
    a, g, _, d, _, _ = _check("sign_test", gap, None, p_d, alpha, 0.0, None)
    return _power_exact(_n(n), g, d, a)


def _power_exact(n: int, g: float, d: float, a: float) -> float:
    if d == 0:
        return 0.0
    m = np.arange(1, n + 1)
    q = min(max((d + g) / (2 * d), 0.0), 1.0)
    c = _critical(m, a)
    lower = np.where(c >= 0, binom.cdf(c, m, q), 0.0)
    upper = np.where(c >= 0, binom.sf(m - c - 1, m, q), 0.0)
    return float(np.sum(binom.pmf(m, n, d) * (lower + upper)))


def _power(test, n, g, b, d, a, f, es) -> float:
    if test == "two_proportion":
        return _power_2p(n, b, g, a, es, f)
    if test == "mcnemar":
        return _power_connor(n, g, d, a, f)
    return _power_exact(int(n), g, d, a)


def power(test, n, gap, *, baseline=None, p_d=None, alpha=0.05, effect_size="arcsine",
          floor=0.0) -> float:
    """Power of one design at n tasks and a true gain (dispatches to the three functions).

    Parameters
    ----------
    test : {"two_proportion", "mcnemar", "sign_test"}
    n : int
        Tasks (per arm for two_proportion), >= 1.
    gap : float
        True gain (proportion).
    baseline : float, optional
        Reference arm's success rate (two_proportion).
    p_d : float, optional
        Discordance (mcnemar, sign_test).
    alpha : float, default 0.05
    effect_size : {"arcsine", "pooled"}, default "arcsine"
    floor : float, default 0.0

    Returns
    -------
    float

    Examples
    --------
    >>> round(power("sign_test", 50, 0.2, p_d=0.4), 4)
    0.5467
    """
    a, g, b, d, f, es = _check(test, gap, baseline, p_d, alpha, floor, effect_size)
    return _power(test, _n(n), g, b, d, a, f, es)


def power_curve(test, ns, gap, *, baseline=None, p_d=None, alpha=0.05, effect_size="arcsine",
                floor=0.0) -> pd.DataFrame:
    """Power at each n of ``ns``.

    Parameters
    ----------
    test, gap, baseline, p_d, alpha, effect_size, floor
        As in :func:`power`.
    ns : array-like of int, shape (k,)
        Task counts, each >= 1.

    Returns
    -------
    pandas.DataFrame, shape (k, 2)
        Columns ``n`` and ``power``.

    Examples
    --------
    >>> power_curve("mcnemar", [50, 100], 0.1, p_d=0.3)["power"].round(3).tolist()
    [0.249, 0.446]
    """
    a, g, b, d, f, es = _check(test, gap, baseline, p_d, alpha, floor, effect_size)
    ns = [_n(v) for v in np.asarray(ns).ravel().tolist()]
    return pd.DataFrame({"n": ns, "power": [_power(test, v, g, b, d, a, f, es) for v in ns]})
