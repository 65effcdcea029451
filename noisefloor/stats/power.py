"""Power, sample size and minimum detectable effect (MDE) for a gain in success rate.

Three designs, the ones an evaluation of two configurations can run:

- ``"two_proportion"``: two independent samples of n tasks each (the z-test of two
  proportions). Cohen's arcsine effect size ``h`` (statsmodels ``NormalIndPower``, as R's
  ``pwr::pwr.2p.test``) or the pooled-variance normal approximation of R's
  ``power.prop.test``.
- ``"mcnemar"``: n paired tasks, both configurations run on each (McNemar's test), by Connor's
  (1987) normal approximation. It needs the discordance ``p_d``: the share of tasks on which
  the two configurations disagree.
- ``"sign_test"``: the same paired design tested with the exact sign test on the untied pairs
  (the noise-floor paper's test); power by exact enumeration over the number of discordant
  pairs and the wins among them (scipy.stats.binom).

A gain ``gap`` is a difference of success rates, a proportion in [-1, 1]; for the paired designs
``gap = p10 - p01`` (tasks a wins minus tasks a loses, per task) and ``p_d = p10 + p01``.

Floor-aware planning: with ``floor = F > 0`` a gain *clears the floor* when the lower end of its
two-sided ``1 - alpha`` interval lies above F, i.e. a one-sided test of ``gap <= F`` at level
``alpha / 2``; the power is the probability of that event. With ``F = 0`` this is the usual
two-sided test (both tails counted, as statsmodels and Connor do).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import optimize  # type: ignore[import-untyped]  # no py.typed
from scipy.stats import binom, norm  # type: ignore[import-untyped]  # no py.typed
from statsmodels.stats.power import NormalIndPower  # type: ignore[import-untyped]  # no py.typed
from statsmodels.stats.proportion import proportion_effectsize  # type: ignore[import-untyped]  # no py.typed

#: The designs planned for.
TESTS = ("two_proportion", "mcnemar", "sign_test")
#: Effect-size conventions of the independent two-proportion z-test.
EFFECT_SIZES = ("arcsine", "pooled")
#: Largest n searched for the exact sign test (its power is computed for each n in turn).
MAX_EXACT_N = 20_000


@dataclass(frozen=True)
class PowerPlan:
    """Result of :func:`sample_size` and :func:`minimum_detectable_effect`.

    Attributes
    ----------
    test : str
        ``"two_proportion"``, ``"mcnemar"`` or ``"sign_test"``.
    solve_for : str
        ``"n"`` (:func:`sample_size`) or ``"gap"`` (:func:`minimum_detectable_effect`).
    n : int
        Tasks: per arm for ``two_proportion``, pairs for the paired tests. The smallest whole n
        reaching ``power`` when solving for n (-1 when none exists, see ``reason``); the n given
        when solving for the gap.
    n_exact : float
        The continuous solution of the normal approximation (NaN for the exact sign test, and
        when solving for the gap).
    n_stable : int
        Exact sign test only: the smallest n from which every larger n up to
        ``n + max(20, n // 100)`` also reaches ``power`` (its exact power is saw-toothed in n);
        equals ``n`` for the normal approximations.
    gap : float
        The true gain planned for (proportion); when solving for the gap, the MDE: the smallest
        gain that reaches ``power`` at n (NaN with ``reason`` when none does).
    baseline : float
        Success rate of the reference arm (two_proportion; NaN otherwise).
    p_d : float
        Discordance of the paired designs (NaN for two_proportion).
    alpha : float
        Two-sided significance level.
    power : float
        Target power.
    achieved_power : float
        Power at the reported n and gap.
    floor : float
        The floor the gain must clear (0: the usual test of no difference).
    effect_size : str
        ``"arcsine"`` or ``"pooled"`` (two_proportion), ``"connor"`` (mcnemar), ``"exact"``
        (sign_test).
    reason : str
        Why a field is NaN or n is -1; empty otherwise.
    """

    test: str
    solve_for: str
    n: int
    n_exact: float
    n_stable: int
    gap: float
    baseline: float
    p_d: float
    alpha: float
    power: float
    achieved_power: float
    floor: float
    effect_size: str
    reason: str = ""

    def to_dict(self) -> dict:
        """Plain-dict view, one key per field (JSON-ready; NaN stays NaN).

        Returns
        -------
        dict

        Examples
        --------
        >>> sample_size(0.1, test="mcnemar", p_d=0.3).to_dict()["n"]
        234
        """
        return asdict(self)

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame with one column per field.

        Returns
        -------
        pandas.DataFrame, shape (1, 14)

        Examples
        --------
        >>> sample_size(0.1, test="mcnemar", p_d=0.3).to_frame().shape
        (1, 14)
        """
        return pd.DataFrame([self.to_dict()])


# ----------------------------------------------------------------------------- validation


def _unit_open(name: str, value) -> float:
    v = _number(name, value)
    if not 0.0 < v < 1.0:
        raise ValueError(f"{name}= must lie strictly between 0 and 1; got {value!r}")
    return v


def _number(name: str, value) -> float:
    if isinstance(value, bool):
        raise TypeError(f"{name}= must be a number; got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name}= must be a number; got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name}= must be a finite number; got {value!r}")
    return v


def _n(value) -> int:
    if isinstance(value, bool) or not float(value).is_integer() or value < 1:
        raise ValueError(f"n= must be a whole number of tasks >= 1; got {value!r}")
    return int(value)


def _check(test, gap, baseline, p_d, alpha, floor, effect_size):
    if test not in TESTS:
        raise ValueError(f"test= must be one of {', '.join(TESTS)}; got {test!r}")
    a = _unit_open("alpha", alpha)
    f = _number("floor", floor)
    if f < 0 or f >= 1:
        raise ValueError(f"floor= must lie in [0, 1) (a proportion, not percentage points); "
                         f"got {floor!r}")
    g = math.nan if gap is None else _number("gap", gap)
    if not math.isnan(g) and not -1.0 <= g <= 1.0:
        raise ValueError(f"gap= must be a proportion in [-1, 1] (not percentage points); "
                         f"got {gap!r}")
    if test == "two_proportion":
        if effect_size not in EFFECT_SIZES:
            raise ValueError(f"effect_size= must be one of {', '.join(EFFECT_SIZES)}; "
                             f"got {effect_size!r}")
        if baseline is None:
            raise ValueError("baseline= (the reference arm's success rate) is needed for "
                             "test='two_proportion'")
        b = _unit_open("baseline", baseline)
        if not math.isnan(g) and not 0.0 < b + g < 1.0:
            raise ValueError(f"baseline= + gap= must lie strictly between 0 and 1; got "
                             f"{b} + {g} = {b + g}")
        if f > 0 and not math.isnan(g) and g < 0:
            raise ValueError("with floor= plan for a gain, gap= > 0 (the arm compared with the "
                             f"baseline succeeding more often); got gap={g}")
        if f > 0 and effect_size != "arcsine":
            raise ValueError("floor= is planned with effect_size='arcsine' only (the pooled "
                             "power.prop.test approximation has no shifted null)")
        return a, g, b, math.nan, f, effect_size
    if p_d is None:
        raise ValueError(f"p_d= (the share of tasks on which the arms disagree) is needed for "
                         f"test={test!r}")
    d = _number("p_d", p_d)
    if not 0.0 <= d <= 1.0:
        raise ValueError(f"p_d= must lie in [0, 1]; got {p_d!r}")
    if not math.isnan(g) and abs(g) > d + 1e-12:
        raise ValueError(f"|gap=| cannot exceed p_d= (the gain is p10 - p01 and p_d = p10 + p01); "
                         f"got gap={g} with p_d={d}")
    if f > 0 and test == "sign_test":
        raise ValueError("floor= is planned for the mcnemar and two_proportion tests only; the "
                         "exact sign test here tests no difference")
    if not math.isnan(g) and f > 0 and f * f >= d:
        raise ValueError(f"floor= must satisfy floor^2 < p_d= (a gap of floor needs that many "
                         f"discordant tasks); got floor={f}, p_d={d}")
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
    z = norm.isf(a / 2)
    sd1 = math.sqrt(max(d - g * g, 0.0))
    if sd1 == 0:  # every task discordant in the same direction: the gap is known exactly
        return 1.0 if abs(g) > f else 0.0
    if f == 0:
        return float(norm.cdf((g * math.sqrt(n) - z * math.sqrt(d)) / sd1)
                     + norm.cdf((-g * math.sqrt(n) - z * math.sqrt(d)) / sd1))
    return float(norm.cdf(((abs(g) - f) * math.sqrt(n) - z * math.sqrt(d - f * f)) / sd1))


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


# ----------------------------------------------------------------------------- solving


def _connor_n(g, d, a, pw, f) -> float:
    za, zb = norm.isf(a / 2), norm.ppf(pw)
    return ((za * math.sqrt(d - f * f) + zb * math.sqrt(d - g * g)) / (abs(g) - f)) ** 2


def sample_size(gap, *, test="mcnemar", baseline=None, p_d=None, alpha=0.05, power=0.8,
                effect_size="arcsine", floor=0.0) -> PowerPlan:
    """Smallest number of tasks at which a gain of ``gap`` reaches ``power``.

    Parameters
    ----------
    gap : float
        True gain to detect (proportion, e.g. 0.06 for 6 pp); its sign does not matter.
    test : {"two_proportion", "mcnemar", "sign_test"}, default "mcnemar"
        The design (see the module notes).
    baseline : float, optional
        Reference arm's success rate, needed for ``two_proportion``.
    p_d : float, optional
        Discordance in [0, 1], needed for the paired tests.
    alpha : float, default 0.05
        Two-sided significance level, in (0, 1).
    power : float, default 0.8
        Target power, in (0, 1).
    effect_size : {"arcsine", "pooled"}, default "arcsine"
        Convention of the two-proportion test (see :func:`power_two_proportion`).
    floor : float, default 0.0
        A noise floor or envelope (proportion) the gain must clear: n at which the lower end of
        the gain's ``1 - alpha`` interval lies above it with probability ``power``.

    Returns
    -------
    PowerPlan
        ``solve_for = "n"``; ``n = -1`` with a reason when the gain is no larger than the floor
        or the exact search passes :data:`MAX_EXACT_N`.

    Raises
    ------
    ValueError, TypeError
        On a value outside its range (named by its keyword): ``power`` or ``alpha`` outside
        (0, 1), ``p_d`` outside [0, 1], ``|gap| > p_d``, a missing ``baseline`` or ``p_d``.

    Notes
    -----
    ``two_proportion``, arcsine: ``NormalIndPower().solve_power`` on Cohen's h,
    ``n = 2 ((z_{1-alpha/2} + z_{power}) / h)^2`` per arm; pooled (R ``power.prop.test``):
    ``n = (z_{1-alpha/2} sqrt(2 pbar qbar) + z_{power} sqrt(p1 q1 + p2 q2))^2 / gap^2``.
    ``mcnemar`` (Connor 1987, eq. 3, generalised to a floor F):
    ``n = (z_{1-alpha/2} sqrt(p_d - F^2) + z_{power} sqrt(p_d - gap^2))^2 / (|gap| - F)^2``.
    ``sign_test``: an n whose exact power (:func:`power_sign_test`) reaches the target and
    whose predecessor's does not, found by bisection upward from ``0.9`` of Connor's n less 10
    and then the smallest n reaching it within ``max(20, n // 100)`` below that (the exact power
    is saw-toothed: past a dip a smaller n may reach it; ``n_stable`` says from where on every
    n does). Each evaluation costs O(n).

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. Biometrics 43(1), 207-211.
    Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed. Erlbaum.

    Examples
    --------
    >>> sample_size(0.4, test="mcnemar", p_d=0.5).n  # Connor: p10 = .05, p01 = .45
    23
    >>> sample_size(0.1, test="two_proportion", baseline=0.5).n  # R pwr.2p.test: n = 387.17
    388
    >>> sample_size(0.1, test="mcnemar", p_d=0.3, floor=0.05).n  # clear a 5 pp floor
    927
    """
    a, g, b, d, f, es = _check(test, gap, baseline, p_d, alpha, floor, effect_size)
    pw = _unit_open("power", power)
    if math.isnan(g):
        raise ValueError("gap= must be given to solve for n")
    nan = math.nan

    def plan(n, n_exact, n_stable, achieved, reason=""):
        return PowerPlan(test, "n", n, n_exact, n_stable, g, b, d, a, pw, achieved, f, es, reason)

    if abs(g) <= f or g == 0:
        what = "no gain" if g == 0 else f"a gain of {abs(g):g} no larger than the floor {f:g}"
        return plan(-1, nan, -1, nan, f"{what} reaches the power at any n")
    if test == "two_proportion":
        if es == "pooled":
            p2 = b + g
            pbar = (b + p2) / 2
            za, zb = norm.isf(a / 2), norm.ppf(pw)
            n_exact = (za * math.sqrt(2 * pbar * (1 - pbar))
                       + zb * math.sqrt(b * (1 - b) + p2 * (1 - p2))) ** 2 / g ** 2
        else:
            n_exact = _solve_2p_arcsine(b, g, a, pw, f)
            if math.isnan(n_exact):
                return plan(-1, nan, -1, nan, "the floor leaves no room above the baseline")
    elif test == "mcnemar":
        if d == 0:
            return plan(-1, nan, -1, nan, "p_d = 0: no discordant task, the paired test has no "
                        "information")
        n_exact = float(_connor_n(g, d, a, pw, f))
    else:
        return _exact_search(g, d, a, pw, plan)
    n = max(1, math.ceil(n_exact - 1e-9))
    return plan(n, n_exact, n, _power(test, n, g, b, d, a, f, es))


def _solve_2p_arcsine(b, g, a, pw, f) -> float:
    h = abs(_arcsine(b + g, b))
    if f == 0:
        return float(NormalIndPower().solve_power(h, nobs1=None, alpha=a, power=pw, ratio=1.0))
    if b + f >= 1:
        return math.nan
    shifted = h - _arcsine(b + f, b)
    return float(NormalIndPower().solve_power(shifted, nobs1=None, alpha=a / 2, power=pw,
                                              ratio=1.0, alternative="larger"))


def _exact_search(g, d, a, pw, plan):
    nan = math.nan
    if d == 0:
        return plan(-1, nan, -1, nan, "p_d = 0: no discordant task, the sign test has no "
                    "untied pair")
    guess = _connor_n(g, d, a, pw, 0.0) if d - g * g > 0 else 1.0
    # the exact test is a little less powerful than Connor's approximation: start just below
    # it, find an n that reaches the power by doubling steps, bisect to the crossing (the
    # power is nearly monotone in n), then step down while the previous n reaches it too
    lo = max(1, int(0.9 * guess) - 10)
    f = (lambda m: _power_exact(m, g, d, a))
    if f(lo) >= pw:
        n = lo
    else:
        step, hi = 16, lo + 16
        while f(min(hi, MAX_EXACT_N)) < pw:
            if hi >= MAX_EXACT_N:
                return plan(-1, nan, -1, nan, f"the exact power stays below the target up to "
                            f"n = {MAX_EXACT_N} (MAX_EXACT_N)")
            lo, step = hi, step * 2
            hi = lo + step
        hi = min(hi, MAX_EXACT_N)
        while hi - lo > 1:  # invariant: f(lo) < pw <= f(hi)
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if f(mid) < pw else (lo, mid)
        n = hi
    while n > 1 and f(n - 1) >= pw:
        n -= 1
    # past a dip of the saw-tooth a smaller n may reach the power too: look a window below
    below = [m for m in range(max(1, n - _stable_window(n)), n) if f(m) >= pw]
    n = below[0] if below else n
    power_at = {n: f(n)}
    found, stable = n, n
    for m in range(found + 1, found + _stable_window(found) + 1):
        if _power_exact(m, g, d, a) < pw:
            stable = m + 1
    return plan(found, nan, stable, power_at[found])


def _stable_window(n: int) -> int:
    return max(20, n // 100)


def minimum_detectable_effect(n, *, test="mcnemar", baseline=None, p_d=None, alpha=0.05,
                              power=0.8, effect_size="arcsine", floor=0.0) -> PowerPlan:
    """Smallest gain that reaches ``power`` with n tasks (the MDE).

    Parameters
    ----------
    n : int
        Tasks (per arm for two_proportion, pairs for the paired tests), >= 1.
    test, baseline, p_d, alpha, power, effect_size, floor
        As in :func:`sample_size`. For the paired tests ``p_d`` is held fixed while the gain
        varies (a gain can be at most ``p_d``).

    Returns
    -------
    PowerPlan
        ``solve_for = "gap"``, ``gap`` the MDE (a positive proportion); NaN with a reason when
        even the largest possible gain (``p_d``, or ``1 - baseline``) falls short.

    Raises
    ------
    ValueError, TypeError
        As :func:`sample_size`.

    Notes
    -----
    Arcsine: ``h = NormalIndPower().solve_power(nobs1=n)`` mapped back by
    ``p2 = sin^2(asin(sqrt(p1)) + h / 2)``. The others solve ``power(gap) = power`` by Brent's
    method on ``(floor, max gain]``; power rises with the gain at fixed n and ``p_d``.

    Examples
    --------
    >>> round(minimum_detectable_effect(100, test="two_proportion", baseline=0.5).gap, 4)
    0.193
    >>> round(minimum_detectable_effect(100, test="mcnemar", p_d=0.3).gap, 4)
    0.1516
    """
    a, _, b, d, f, es = _check(test, None, baseline, p_d, alpha, floor, effect_size)
    pw = _unit_open("power", power)
    n = _n(n)
    nan = math.nan

    def plan(gap, achieved, reason=""):
        return PowerPlan(test, "gap", n, nan, n, gap, b, d, a, pw, achieved, f, es, reason)

    if test == "two_proportion":
        top = 1.0 - b - 1e-12
        if es == "arcsine" and f == 0:
            h = float(NormalIndPower().solve_power(None, nobs1=n, alpha=a, power=pw, ratio=1.0))
            # statsmodels stops its root search near 1e-5 in power; polish h by Brent's method
            target = (lambda x: NormalIndPower().power(x, nobs1=n, alpha=a, ratio=1.0) - pw)
            h = float(optimize.brentq(target, 0.5 * h, 2.0 * h, xtol=1e-14))
            angle = math.asin(math.sqrt(b)) + h / 2
            if angle >= math.pi / 2:
                return plan(nan, nan, f"no gain up to a success rate of 1 reaches power {pw:g} "
                            f"at n = {n} per arm")
            gap = math.sin(angle) ** 2 - b
            return plan(gap, _power_2p(n, b, gap, a, es, f))
        return _brent(lambda g: _power_2p(n, b, g, a, es, f), f, top, pw, plan,
                      f"no gain up to a success rate of 1 reaches power {pw:g} at n = {n} per arm")
    if d == 0:
        return plan(nan, nan, "p_d = 0: no discordant task, the paired test has no information")
    if f * f >= d:
        return plan(nan, nan, f"floor^2 >= p_d: no gain within p_d = {d:g} can clear {f:g}")
    fn = ((lambda g: _power_connor(n, g, d, a, f)) if test == "mcnemar"
          else (lambda g: _power_exact(n, g, d, a)))
    return _brent(fn, f, d, pw, plan,
                  f"no gain up to p_d = {d:g} reaches power {pw:g} at n = {n}")


def _brent(fn, low, high, pw, plan, reason):
    if fn(high) < pw:
        return plan(math.nan, math.nan, reason)
    lo = low + 1e-12
    if fn(lo) >= pw:
        return plan(lo, fn(lo))
    gap = optimize.brentq(lambda g: fn(g) - pw, lo, high, xtol=1e-12)
    return plan(float(gap), fn(gap))


@dataclass(frozen=True)
class PlanSet:
    """Result of :func:`plan`: one :class:`PowerPlan` per design, in the order asked.

    Attributes
    ----------
    plans : tuple of PowerPlan
        One per test.
    solve_for : str
        ``"n"`` or ``"gap"``.
    """

    plans: tuple[PowerPlan, ...]
    solve_for: str

    def to_dict(self) -> dict:
        """``{"solve_for": ..., "plans": [PowerPlan.to_dict(), ...]}``.

        Returns
        -------
        dict

        Examples
        --------
        >>> d = plan(gap=0.1, p_d=0.3).to_dict()
        >>> d["solve_for"], [p["test"] for p in d["plans"]]
        ('n', ['mcnemar', 'sign_test'])
        """
        return {"solve_for": self.solve_for, "plans": [p.to_dict() for p in self.plans]}

    def to_frame(self) -> pd.DataFrame:
        """One row per design, one column per :class:`PowerPlan` field.

        Returns
        -------
        pandas.DataFrame, shape (n_tests, 14)

        Examples
        --------
        >>> plan(gap=0.1, p_d=0.3).to_frame()[["test", "n"]].values.tolist()
        [['mcnemar', 234], ['sign_test', 249]]
        """
        return pd.DataFrame([p.to_dict() for p in self.plans])


def plan(*, gap=None, n=None, tests=None, baseline=None, p_d=None, alpha=0.05, power=0.8,
         effect_size="arcsine", floor=0.0) -> PlanSet:
    """Sample size (given ``gap``) or MDE (given ``n``) for several designs in one call.

    What ``noisefloor plan`` prints.

    Parameters
    ----------
    gap : float, optional
        Gain to plan for (proportion); give exactly one of ``gap`` and ``n``.
    n : int, optional
        Tasks available; the MDE is solved for.
    tests : sequence of str, optional
        Designs from :data:`TESTS`. Default: the paired tests when ``p_d`` is given (McNemar
        only with a floor) and ``two_proportion`` when ``baseline`` is given.
    baseline, p_d, alpha, power, effect_size, floor
        As in :func:`sample_size`.

    Returns
    -------
    PlanSet

    Raises
    ------
    ValueError
        If both or neither of ``gap`` and ``n`` are given, no design can be chosen, or a
        value is out of range (see :func:`sample_size`).

    Examples
    --------
    >>> [p.n for p in plan(gap=0.1, p_d=0.3, baseline=0.5).plans]
    [234, 249, 388]
    """
    if (gap is None) == (n is None):
        raise ValueError("give exactly one of gap= (solve for n) and n= (solve for the MDE)")
    if tests is None:
        paired = ("mcnemar",) if floor else ("mcnemar", "sign_test")  # no floor for the exact test
        tests = (paired if p_d is not None else ()) + \
            (("two_proportion",) if baseline is not None else ())
    tests = tuple(dict.fromkeys(tests))
    if not tests:
        raise ValueError("no design to plan: give p_d= for the paired tests (mcnemar, "
                         "sign_test) and/or baseline= for two_proportion")
    kw = {"alpha": alpha, "power": power, "floor": floor}
    plans = []
    for test in tests:
        extra = {"baseline": baseline} if test == "two_proportion" else {"p_d": p_d}
        if test == "two_proportion":
            extra["effect_size"] = effect_size
        if gap is not None:
            plans.append(sample_size(gap, test=test, **extra, **kw))
        else:
            plans.append(minimum_detectable_effect(n, test=test, **extra, **kw))
    return PlanSet(tuple(plans), "n" if gap is not None else "gap")
