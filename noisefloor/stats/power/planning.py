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

The power of each design at a given n is in :mod:`noisefloor.stats.power.functions` (gathered
here under the same names); this module solves for n and for the minimum detectable effect
and plans several designs at once.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from scipy import optimize
from scipy.stats import norm
from statsmodels.stats.power import NormalIndPower

from noisefloor.results import FrozenResult
from noisefloor.stats.power.functions import (
    EFFECT_SIZES,
    MAX_EXACT_N,
    TESTS,
    _arcsine,
    _check,
    _n,
    _power,
    _power_2p,
    _power_connor,
    _power_exact,
    _unit_open,
    power,
    power_curve,
    power_mcnemar,
    power_sign_test,
    power_two_proportion,
)
from noisefloor.stats.validation import ParameterError

__all__ = ["EFFECT_SIZES", "MAX_EXACT_N", "TESTS", "PlanSet", "PowerPlan",
           "minimum_detectable_effect", "plan", "power", "power_curve", "power_mcnemar",
           "power_sign_test", "power_two_proportion", "sample_size"]


@dataclass(frozen=True)
class PowerPlan(FrozenResult):
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

    # hand-written: an n of -1 (no n reaches the power) becomes None
    def to_dict(self) -> dict:
        """Plain-dict view, one key per field (JSON-ready; NaN stays NaN).

        An ``n`` (or ``n_stable``) of -1, no n reaching the power, is ``None`` here (JSON
        ``null``), never a number a reader could take for a sample size; ``reason`` says why.

        Returns
        -------
        dict

        Examples
        --------
        >>> sample_size(0.1, test="mcnemar", p_d=0.3).to_dict()["n"]
        234
        >>> sample_size(0.05, test="mcnemar", p_d=0.3, floor=0.12).to_dict()["n"] is None
        True
        """
        out = super().to_dict()
        for key in ("n", "n_stable"):
            if out[key] is not None and out[key] < 0:
                out[key] = None
        return out


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
        raise ParameterError("gap", "given", message="{gap} must be given to solve for n")
    nan = math.nan

    def plan(n, n_exact, n_stable, achieved, reason=""):
        return PowerPlan(test, "n", n, n_exact, n_stable, g, b, d, a, pw, achieved, f, es, reason)

    if abs(g) <= f or g == 0:
        what = ("a gain of 0" if g == 0
                else f"a gain of {abs(g):g}, no larger than the floor {f:g},")
        return plan(-1, nan, -1, nan, f"{what} cannot reach the power at any n")
    if test == "two_proportion":
        if es == "pooled":
            p2 = b + g
            pbar = (b + p2) / 2
            za, zb = norm.isf(a / 2), norm.ppf(pw)
            n_exact = (za * math.sqrt(2 * pbar * (1 - pbar))
                       + zb * math.sqrt(b * (1 - b) + p2 * (1 - p2))) ** 2 / g ** 2
        else:
            with warnings.catch_warnings():  # statsmodels warns when its root search fails
                warnings.simplefilter("ignore")
                try:
                    n_exact = _solve_2p_arcsine(b, g, a, pw, f)
                except ValueError:  # statsmodels: "cannot detect an effect-size of 0"
                    n_exact = math.nan
            if math.isnan(n_exact):
                return plan(-1, nan, -1, nan, "the floor leaves no room above the baseline"
                            if f and b + f >= 1 else f"a gain of {g:g} needs more than "
                            f"{MAX_PLAN_N:,} tasks (MAX_PLAN_N), or no n reaches the power")
    elif test == "mcnemar":
        if d == 0:
            return plan(-1, nan, -1, nan, "p_d = 0: no discordant task, the paired test has no "
                        "information")
        try:
            n_exact = float(_connor_n(g, d, a, pw, f))
        except (ZeroDivisionError, OverflowError):  # a gain so small its square underflows
            n_exact = math.inf
    else:
        return _exact_search(g, d, a, pw, plan)
    if not n_exact <= MAX_PLAN_N:  # also NaN and infinity
        return plan(-1, nan, -1, nan, f"a gain of {g:g} needs more than {MAX_PLAN_N:,} tasks "
                    "(MAX_PLAN_N)")
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
    try:
        guess = _connor_n(g, d, a, pw, 0.0) if d - g * g > 0 else 1.0
    except (ZeroDivisionError, OverflowError):
        guess = math.inf
    if not guess <= 2 * MAX_EXACT_N:  # the exact power is computed n by n: bounded search
        return plan(-1, nan, -1, nan, f"the exact sign test is searched up to n = "
                    f"{MAX_EXACT_N:,} (MAX_EXACT_N) and a gain of {g:g} needs about "
                    f"{guess:.3g} tasks; use mcnemar")
    # the exact test is a little less powerful than Connor's approximation: start just below
    # it, find an n that reaches the power by doubling steps, bisect to the crossing (the
    # power is nearly monotone in n), then step down while the previous n reaches it too
    lo = max(1, int(0.9 * guess) - 10)

    def f(m: int) -> float:
        return _power_exact(m, g, d, a)

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


#: Most tasks a plan is solved for (10^12: beyond any benchmark).
MAX_PLAN_N = 10**12


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
    if n > MAX_PLAN_N:
        raise ParameterError("n", f"a whole number of tasks in [1, {MAX_PLAN_N:,}]", n)
    nan = math.nan

    def plan(gap, achieved, reason=""):
        return PowerPlan(test, "gap", n, nan, n, gap, b, d, a, pw, achieved, f, es, reason)

    if test == "two_proportion":
        top = 1.0 - b - 1e-12
        if es == "arcsine" and f == 0:
            h = float(NormalIndPower().solve_power(None, nobs1=n, alpha=a, power=pw, ratio=1.0))
            # statsmodels stops its root search near 1e-5 in power; polish h by Brent's method

            def target(x: float) -> float:
                return float(NormalIndPower().power(x, nobs1=n, alpha=a, ratio=1.0) - pw)

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
    if test == "sign_test" and n > MAX_EXACT_N:  # its power is a sum over n terms
        return plan(nan, nan, f"the exact sign test is computed up to n = {MAX_EXACT_N:,} "
                    f"(MAX_EXACT_N); at n = {n:,} use mcnemar")
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
class PlanSet(FrozenResult):
    """Result of :func:`plan`: one :class:`PowerPlan` per design, in the order asked.

    Attributes
    ----------
    plans : tuple of PowerPlan
        One per test.
    solve_for : str
        ``"n"`` or ``"gap"``.
    """

    _dict_keys = ("solve_for", "plans")
    _frame_field = "plans"

    plans: tuple[PowerPlan, ...]
    solve_for: str


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
        raise ParameterError("gap", "given without n", gap, message=(
            "give exactly one of {gap} (solve for n) and {n} (solve for the MDE)"))
    if tests is None:
        paired = ("mcnemar",) if floor else ("mcnemar", "sign_test")  # no floor for the exact test
        tests = (paired if p_d is not None else ()) + \
            (("two_proportion",) if baseline is not None else ())
    tests = tuple(dict.fromkeys(tests))
    if not tests:
        raise ParameterError("p_d", "given", message=(
            "no design to plan: give {p_d} for the paired tests (mcnemar, sign_test) and/or "
            "{baseline} for two_proportion"))
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
