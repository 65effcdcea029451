"""The exact paired sign test and the Wilson-mapped interval of the signed gap.

A paired contrast ``a-b`` over n tasks has W wins (a succeeded, b failed), L losses and T ties.
The noise-floor paper reports the signed gap (W - L) / n, an exact two-sided sign test on the
W + L untied pairs, and a 95% interval for the gap obtained by mapping the Wilson interval of
W / (W + L) onto the gap scale.

Every statistic is computed over arrays (:func:`sign_test_pvalues`, :func:`wilson_interval`,
:func:`sign_tests`): a count table of any length is one pass of array operations, and the
one-contrast :func:`sign_test` is the same code on arrays of length one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import betainc, ndtri

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate


@dataclass(frozen=True)
class SignTest(FrozenResult):
    """Result of :func:`sign_test`.

    Attributes
    ----------
    wins, losses, ties : int
        Paired outcome counts (a succeeded & b failed; a failed & b succeeded; equal).
    n : int
        All paired tasks, ties included: ``wins + losses + ties``.
    gap : float
        Signed gap ``(wins - losses) / n`` as a proportion; NaN when ``n == 0``.
    p_value : float
        Exact two-sided sign-test p-value on the ``wins + losses`` untied pairs (ties dropped);
        NaN when there is no untied pair.
    ci_low, ci_high : float
        Wilson-mapped interval of the gap at ``confidence``; NaN when there is no untied pair.
    confidence : float
        Confidence level of the interval (default 0.95).
    reason : str
        Why a field is NaN; empty when every field is defined.

    Examples
    --------
    >>> from noisefloor.stats import sign_test
    >>> r = sign_test(27, 9, 64)
    >>> r.n, r.gap, round(r.ci_low, 4), round(r.ci_high, 4), r.reason
    (100, 0.18, 0.0643, 0.261, '')
    """

    wins: int
    losses: int
    ties: int
    n: int
    gap: float
    p_value: float
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    reason: str = ""

    @property
    def informative(self) -> int:
        """Number of untied pairs, ``wins + losses`` (the sign test's sample size).

        Returns
        -------
        int
            ``wins + losses``; ties are excluded.

        Examples
        --------
        >>> from noisefloor.stats import sign_test
        >>> sign_test(27, 9, 64).informative
        36
        """
        return self.wins + self.losses


def _validate_counts(wins, losses, ties, confidence) -> tuple[int, int, int, float]:
    return (_validate.count("wins", wins), _validate.count("losses", losses),
            _validate.count("ties", ties), _validate.probability("confidence", confidence))


def _count_array(name: str, values) -> np.ndarray:
    """``values`` as a 1-d array of non-negative whole counts (int64, or float64 beyond the
    int64 range); the first bad entry raises the message :func:`validation.count` gives."""
    arr = np.asarray(values)
    flat = arr.ravel()
    if flat.dtype.kind in "iu":
        bad = np.flatnonzero(flat < 0)
    elif flat.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(~np.isfinite(flat) | (flat < 0) | (flat != np.floor(flat)))
    else:  # bool, object, strings: the scalar check decides, entry by entry
        checked = [_validate.count(name, v) for v in flat.tolist()]
        if all(v < 2**63 for v in checked):
            return np.array(checked, dtype=np.int64).reshape(arr.shape)
        return np.array(checked, dtype=float).reshape(arr.shape)
    if bad.size:
        _validate.count(name, flat[bad[0]].item())
    return arr.astype(np.int64) if flat.dtype.kind == "f" and flat.size and np.all(
        flat < 2**63) else arr


def sign_test_pvalues(wins, losses) -> np.ndarray:
    """Exact two-sided sign-test p-values of many contrasts at once (ties already dropped).

    Parameters
    ----------
    wins, losses : array-like of int, shape (k,) (or broadcastable)
        Untied paired outcomes of each contrast, each >= 0.

    Returns
    -------
    numpy.ndarray of float, shape (k,)
        ``p = min(1, P(X <= c) + P(X >= m - c))`` with ``X ~ Binomial(m, 1/2)``,
        ``m = wins + losses`` and ``c = min(wins, losses)``; 1 where ``wins == losses``; NaN
        where ``m == 0`` (no untied pair: the test is undefined).

    Raises
    ------
    TypeError, ValueError
        If a count is not a non-negative whole number.

    Notes
    -----
    Both tails come from the kernels of ``scipy.stats.binom.cdf`` and ``binom.sf`` over the
    whole array, the same two terms ``scipy.stats.binomtest(wins, m, 0.5, alternative="two-sided")`` adds for
    one contrast; the two agree to rounding (about 1e-16) wherever binomtest's relative
    tolerance of 1e-7 on equal probabilities does not merge neighbouring outcomes (m below
    about 10^7). The same p-value as R's ``binom.test(wins, m)$p.value``.

    References
    ----------
    Conover, W. J. (1999). Practical Nonparametric Statistics, 3rd ed., section 3.4 (the sign
    test).

    Examples
    --------
    R ``binom.test(7, 10)$p.value`` is 0.34375 (= 352 / 1024):

    >>> sign_test_pvalues([7, 27, 3, 0], [3, 9, 3, 0]).round(6).tolist()
    [0.34375, 0.003933, 1.0, nan]
    """
    w = _count_array("wins", wins)
    lo_ = _count_array("losses", losses)
    w, lo_ = np.broadcast_arrays(w, lo_)
    m = (w + lo_).ravel()
    c = np.minimum(w, lo_).ravel()
    p = np.full(m.shape, np.nan)
    tested = m > 0
    p[tested] = np.minimum(1.0, _binom_tails(c[tested], m[tested]))
    p[2 * c + 1 >= m] = 1.0  # the two tails hold every outcome (and overlap when m is even)
    p[~tested] = np.nan
    return p.reshape(w.shape)


def _binom_tails(c: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``P(X <= c) + P(X >= m - c)`` for ``X ~ Binomial(m, 1/2)``, ``0 <= c <= m / 2``, ``m > 0``.

    At p = 1/2 the two tails are equal, and ``P(X >= m - c)`` is the regularized incomplete beta
    function ``I_{1/2}(m - c, c + 1)`` (``scipy.special.betainc``, the kernel scipy.stats.binom
    uses; loading scipy.stats would be a cold start of seconds for a command that tests one
    contrast). Exact to a few ulps for any m, past 2**31 too.
    """
    mf = m.astype(float)
    cf = c.astype(float)
    return np.asarray(2.0 * betainc(mf - cf, cf + 1.0, 0.5), dtype=float)


def wilson_interval(
    successes, trials, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals of many proportions at once.

    Parameters
    ----------
    successes, trials : array-like of int, shape (k,) (or broadcastable)
        Successes ``x`` and trials ``n`` of each proportion, ``0 <= x <= n``.
    confidence : float, default 0.95
        Two-sided confidence level, strictly between 0 and 1.

    Returns
    -------
    (low, high) : tuple of numpy.ndarray of float, each shape (k,)
        Clipped to [0, 1]; NaN where ``n == 0``.

    Raises
    ------
    TypeError, ValueError
        If a count is not a non-negative whole number, ``successes > trials`` anywhere, or
        ``confidence`` is not in (0, 1).

    Notes
    -----
    With ``q = x / n`` and ``z = Phi^{-1}(1 - (1 - confidence) / 2)``:
    ``(q + z^2 / (2n) +- z sqrt(q (1 - q) / n + z^2 / (4 n^2))) / (1 + z^2 / n)``, the
    closed form ``statsmodels.stats.proportion.proportion_confint(x, n, method="wilson")``
    evaluates, in the same order of operations; the interval R's
    ``prop.test(x, n, correct = FALSE)$conf.int`` reports.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
    inference. JASA 22(158), 209-212.

    Examples
    --------
    R ``prop.test(7, 10, correct = FALSE)$conf.int`` is 0.3967781 0.8922087:

    >>> lo, hi = wilson_interval([7, 0], [10, 0])
    >>> lo.round(7).tolist(), hi.round(7).tolist()
    ([0.3967781, nan], [0.8922087, nan])
    """
    x = _count_array("successes", successes)
    n = _count_array("trials", trials)
    conf = _validate.probability("confidence", confidence)
    x, n = np.broadcast_arrays(x, n)
    if np.any(x > n):
        i = int(np.flatnonzero((x > n).ravel())[0])
        raise ValueError(f"successes must not exceed trials; got {x.ravel()[i]} successes "
                         f"of {n.ravel()[i]} trials")
    crit = float(-ndtri((1.0 - conf) / 2.0))  # scipy.stats.norm.isf((1 - conf) / 2)
    crit2 = crit**2
    nf = np.where(n == 0, np.nan, n).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = x / nf
        denom = 1 + crit2 / nf
        center = (q + crit2 / (2 * nf)) / denom
        dist = crit * np.sqrt(q * (1.0 - q) / nf + crit2 / (4.0 * nf**2))
        dist /= denom
    # the closed form is exactly 0 at x = 0 and exactly 1 at x = n, but rounding can leave
    # 1 - 2e-16 there (and move that end across a confidence level): the ends are set exactly
    low = np.where((x == 0) & (n > 0), 0.0, np.clip(center - dist, 0, 1))
    high = np.where((x == n) & (n > 0), 1.0, np.clip(center + dist, 0, 1))
    return low, high


def _mapped(lo: np.ndarray, hi: np.ndarray, m: np.ndarray, n: np.ndarray):
    with np.errstate(invalid="ignore", divide="ignore"):
        return (2.0 * lo - 1.0) * m / n, (2.0 * hi - 1.0) * m / n


def wilson_mapped_ci(
    wins: int, losses: int, ties: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Wilson interval of ``wins / (wins + losses)`` mapped onto the signed-gap scale.

    Parameters
    ----------
    wins, losses, ties : int
        Paired outcome counts, each >= 0.
    confidence : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    (ci_low, ci_high) : tuple of float
        ``((2 lo - 1) (W + L) / n, (2 hi - 1) (W + L) / n)`` where ``(lo, hi)`` is the Wilson
        interval of ``W / (W + L)`` and ``n = W + L + T``; ``(nan, nan)`` without untied pairs.

    Raises
    ------
    TypeError, ValueError
        If a count is not a non-negative integer or ``confidence`` is not in (0, 1).

    Notes
    -----
    The gap equals ``(2 W / (W + L) - 1) (W + L) / n``; the map is monotone, so it carries the
    Wilson interval of the win share among untied pairs onto the gap: the interval the
    noise-floor paper reports for a gap (Kaliyev & Maryanskyy 2026). The Wilson interval is
    :func:`wilson_interval`; :func:`sign_tests` maps a whole table at once.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
    inference. JASA 22(158), 209-212.
    Kaliyev, A. & Maryanskyy, A. (2026). How Much Coordination Gain Is Real? A Paired
    Noise-Floor Protocol for Multi-Agent LLM Benchmarks. KDD 2026 Workshop on Agentic AI
    Evaluation and Trustworthiness.

    Examples
    --------
    >>> lo, hi = wilson_mapped_ci(34, 24, 142)
    >>> round(lo, 4), round(hi, 4)
    (-0.0244, 0.1182)
    """
    w, lo_, t, conf = _validate_counts(wins, losses, ties, confidence)
    m = w + lo_
    if m == 0:
        return (math.nan, math.nan)
    lo, hi = wilson_interval(np.array([w]), np.array([m]), conf)
    a, b = _mapped(lo, hi, np.array([m]), np.array([m + t]))
    return (float(a[0]), float(b[0]))


_NO_PAIRS = "no paired tasks: the gap, the test and the interval are undefined"
_NO_UNTIED = "no untied pairs: the sign test and the interval are undefined"


def sign_tests(wins, losses, ties=0, *, confidence: float = 0.95) -> pd.DataFrame:
    """Exact sign test, signed gap and Wilson-mapped interval of many contrasts at once.

    The array form of :func:`sign_test`: one row per contrast, the same values, computed in
    array operations (a table of 10,000 contrasts takes milliseconds).

    Parameters
    ----------
    wins, losses : array-like of int, shape (k,)
        Paired outcome counts of each contrast, each >= 0.
    ties : array-like of int, shape (k,) or scalar, default 0
        Ties of each contrast (dropped by the test, kept in ``n``).
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    pandas.DataFrame, shape (k, 9)
        Columns ``wins, losses, ties, n, gap, p_value, ci_low, ci_high, reason``, as the
        fields of :class:`SignTest` (NaN plus a ``reason`` where undefined).

    Raises
    ------
    TypeError, ValueError
        If a count is not a non-negative whole number or ``confidence`` is not in (0, 1).

    Notes
    -----
    p-values by :func:`sign_test_pvalues`, intervals by :func:`wilson_interval` on
    ``wins / (wins + losses)`` mapped onto the gap (:func:`wilson_mapped_ci`).

    References
    ----------
    Conover (1999), section 3.4; Wilson (1927); Kaliyev & Maryanskyy (2026).

    Examples
    --------
    >>> f = sign_tests([27, 0, 0], [9, 0, 0], [64, 5, 0])
    >>> f[["n", "gap", "p_value"]].round(4).to_dict(orient="list")
    {'n': [100, 5, 0], 'gap': [0.18, 0.0, nan], 'p_value': [0.0039, nan, nan]}
    """
    w = _count_array("wins", wins)
    lo_ = _count_array("losses", losses)
    t = _count_array("ties", ties)
    conf = _validate.probability("confidence", confidence)
    w, lo_, t = (a.ravel() for a in np.broadcast_arrays(w, lo_, t))
    m = w + lo_
    n = m + t
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.where(n == 0, np.nan, (w - lo_) / np.where(n == 0, 1, n))
    p = sign_test_pvalues(w, lo_)
    lo, hi = wilson_interval(w, m, conf)
    ci_low, ci_high = _mapped(lo, hi, m, n)
    reason = np.where(n == 0, _NO_PAIRS, np.where(m == 0, _NO_UNTIED, ""))
    return pd.DataFrame({"wins": w, "losses": lo_, "ties": t, "n": n, "gap": gap.astype(float),
                         "p_value": p, "ci_low": ci_low, "ci_high": ci_high,
                         "reason": reason.astype(object)})


def sign_test(wins: int, losses: int, ties: int = 0, *, confidence: float = 0.95) -> SignTest:
    """Exact two-sided sign test of a paired contrast, with the signed gap and its interval.

    Parameters
    ----------
    wins : int
        Tasks where arm a succeeded and arm b failed.
    losses : int
        Tasks where arm a failed and arm b succeeded.
    ties : int, default 0
        Tasks with the same outcome in both arms; dropped by the test, kept in ``n``.
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    SignTest
        Frozen result with ``wins, losses, ties, n, gap, p_value, ci_low, ci_high, confidence,
        reason``. Without untied pairs the p-value and interval are NaN and ``reason`` says why;
        with ``n == 0`` the gap is NaN too.

    Raises
    ------
    TypeError, ValueError
        If a count is not a non-negative integer or ``confidence`` is not in (0, 1).

    Notes
    -----
    ``p = P(|X - m/2| >= |W - m/2|)`` for ``X ~ Binomial(m = W + L, 1/2)`` (the value of
    ``scipy.stats.binomtest(W, m, 0.5, alternative="two-sided")``, by
    :func:`sign_test_pvalues`); gap ``(W - L) / n``; interval from :func:`wilson_mapped_ci`.
    :func:`sign_tests` is the same over a table.

    References
    ----------
    Conover, W. J. (1999). Practical Nonparametric Statistics, 3rd ed., section 3.4 (the sign
    test). Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real?", KDD workshop.

    Examples
    --------
    The noise-floor paper's seed-1 trial-0 pull-vs-intercept contrast:

    >>> r = sign_test(27, 9, 64)
    >>> r.gap, round(r.p_value, 4), round(min(1.0, 3 * r.p_value), 3)
    (0.18, 0.0039, 0.012)
    >>> sign_test(0, 0, 5).reason
    'no untied pairs: the sign test and the interval are undefined'
    """
    w, lo_, t, conf = _validate_counts(wins, losses, ties, confidence)
    n = w + lo_ + t
    m = w + lo_
    if n == 0:
        return SignTest(w, lo_, t, 0, math.nan, math.nan, math.nan, math.nan, conf, _NO_PAIRS)
    gap = (w - lo_) / n
    if m == 0:
        return SignTest(w, lo_, t, n, gap, math.nan, math.nan, math.nan, conf, _NO_UNTIED)
    p = float(sign_test_pvalues(np.array([w]), np.array([lo_]))[0])
    ci_low, ci_high = wilson_mapped_ci(w, lo_, t, conf)
    return SignTest(w, lo_, t, n, gap, p, ci_low, ci_high, conf, "")


def sign_test_table(
    counts: pd.DataFrame,
    *,
    family: tuple[str, ...],
    method: str = "bonferroni",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Sign test of every row of a W/L/T table, corrected within families of rows.

    Parameters
    ----------
    counts : pandas.DataFrame, shape (n_rows, ...)
        Columns ``wins, losses, ties`` (non-negative ints) plus any identifying columns.
    family : tuple of str
        Columns whose combination defines one family for the multiplicity correction
        (missing columns are ignored; none: one family). The noise-floor paper corrects over
        the three contrasts of one seed and trial (m = 3): the contrast table's seed, trial
        and subset columns.
    method : {"bonferroni", "holm", "fdr_bh"}, default "bonferroni"
        Passed to :func:`noisefloor.stats.multiplicity.adjust_families`.
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    pandas.DataFrame
        The input columns plus ``n, gap, p_value, p_adjusted, method, m, ci_low, ci_high,
        reason`` (``method`` names the adjustment: ``"bonferroni"``, ``"holm"`` or ``"bh"``).

    Notes
    -----
    Array operations over the whole table: :func:`sign_tests` for the rows,
    :func:`~noisefloor.stats.multiplicity.adjust_families` for the families.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"group": [1, 1, 1], "contrast": ["x", "y", "z"],
    ...                   "wins": [21, 18, 27], "losses": [11, 10, 9], "ties": [68, 72, 64]})
    >>> round(float(sign_test_table(t, family=("group",))["p_adjusted"].iloc[2]), 3)
    0.012
    """
    from noisefloor.stats.multiplicity import METHOD_NAMES, adjust_families

    tests = sign_tests(counts["wins"].to_numpy(), counts["losses"].to_numpy(),
                       counts["ties"].to_numpy(), confidence=confidence)
    keys = [c for c in family if c in counts.columns]
    if keys:
        codes = counts.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    else:
        codes = np.zeros(len(counts), dtype=np.int64)
    p_adjusted, m = adjust_families(tests["p_value"].to_numpy(), codes, method=method)
    added = pd.DataFrame({"n": tests["n"].to_numpy(), "gap": tests["gap"].to_numpy(),
                          "p_value": tests["p_value"].to_numpy(), "p_adjusted": p_adjusted,
                          "method": METHOD_NAMES[method], "m": m, "ci_low": tests["ci_low"].to_numpy(),
                          "ci_high": tests["ci_high"].to_numpy(),
                          "reason": tests["reason"].to_numpy()}, index=counts.index)
    kept = counts.drop(columns=[c for c in added.columns if c in counts.columns])
    return pd.concat([kept, added], axis=1)


@dataclass(frozen=True)
class Slot:
    """One arm at one trial, over the tasks of its group (arrays of equal length).

    Attributes
    ----------
    present : numpy.ndarray of bool
        The task has a record.
    outcome : numpy.ndarray of float
        1.0 success, 0.0 failure, NaN undefined (no reward, or an excluded infrastructure
        error); NaN where absent.
    store, injections : numpy.ndarray of float
        ``store_events_at_start`` and ``injections`` (NaN when not logged or absent).
    first_request : numpy.ndarray of int64
        Code of ``first_request_sha256`` (equal codes are equal hashes; -1 when not logged).
    """

    present: np.ndarray
    outcome: np.ndarray
    store: np.ndarray
    injections: np.ndarray
    first_request: np.ndarray


def pair_counts(a: Slot, b: Slot) -> dict:
    """W/L/T of ``a-b`` over the tasks both slots hold, and the tasks left out.

    Returns
    -------
    dict
        ``wins, losses, ties`` (over tasks with a defined outcome in both), ``n_only_a,
        n_only_b`` (a task in one slot only), ``n_excluded`` (in both, undefined in one).

    Examples
    --------
    >>> import numpy as np
    >>> nan = np.nan
    >>> a = Slot(np.array([1, 1, 1, 0], bool), np.array([1.0, 0.0, nan, nan]),
    ...          *[np.full(4, nan)] * 2, np.full(4, -1))
    >>> b = Slot(np.array([1, 1, 1, 1], bool), np.array([0.0, 0.0, 1.0, 1.0]),
    ...          *[np.full(4, nan)] * 2, np.full(4, -1))
    >>> pair_counts(a, b)
    {'wins': 1, 'losses': 0, 'ties': 1, 'n_only_a': 0, 'n_only_b': 1, 'n_excluded': 1}
    """
    both = a.present & b.present
    oa, ob = a.outcome[both], b.outcome[both]
    defined = ~(np.isnan(oa) | np.isnan(ob))
    oa, ob = oa[defined], ob[defined]
    return {"wins": int(((oa == 1) & (ob == 0)).sum()),
            "losses": int(((oa == 0) & (ob == 1)).sum()),
            "ties": int((oa == ob).sum()),
            "n_only_a": int((a.present & ~b.present).sum()),
            "n_only_b": int((b.present & ~a.present).sum()),
            "n_excluded": int((~defined).sum())}
