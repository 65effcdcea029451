"""The exact paired sign test and the Wilson-mapped interval of the signed gap.

A paired contrast ``a-b`` over n tasks has W wins (a succeeded, b failed), L losses and T ties.
The noise-floor paper reports the signed gap (W - L) / n, an exact two-sided sign test on the
W + L untied pairs, and a 95% interval for the gap obtained by mapping the Wilson interval of
W / (W + L) onto the gap scale.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from noisefloor.stats import validation as _validate


@dataclass(frozen=True)
class SignTest:
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

    def to_dict(self) -> dict:
        """Plain-dict view (JSON-ready; NaN stays NaN).

        Returns
        -------
        dict
            One key per field, in declaration order.

        Examples
        --------
        >>> from noisefloor.stats import sign_test
        >>> d = sign_test(0, 0, 5).to_dict()
        >>> d["n"], d["gap"], d["p_value"]
        (5, 0.0, nan)
        """
        return asdict(self)

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame with one column per field.

        Returns
        -------
        pandas.DataFrame, shape (1, 10)
            Columns ``wins, losses, ties, n, gap, p_value, ci_low, ci_high, confidence, reason``.

        Examples
        --------
        >>> from noisefloor.stats import sign_test
        >>> f = sign_test(27, 9, 64).to_frame()
        >>> f.shape, list(f.columns[:5])
        ((1, 10), ['wins', 'losses', 'ties', 'n', 'gap'])
        """
        return pd.DataFrame([self.to_dict()])


def _validate_counts(wins, losses, ties, confidence) -> tuple[int, int, int, float]:
    return (_validate.count("wins", wins), _validate.count("losses", losses),
            _validate.count("ties", ties), _validate.probability("confidence", confidence))


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
    noise-floor paper reports for a gap (Kaliyev & Maryanskyy 2026). The Wilson interval comes
    from ``statsmodels.stats.proportion.proportion_confint(method="wilson")``.

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
    n = m + t
    if m == 0:
        return (math.nan, math.nan)
    lo, hi = proportion_confint(w, m, alpha=1.0 - conf, method="wilson")
    return ((2.0 * lo - 1.0) * m / n, (2.0 * hi - 1.0) * m / n)


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
    ``p = P(|X - m/2| >= |W - m/2|)`` for ``X ~ Binomial(m = W + L, 1/2)``, computed by
    ``scipy.stats.binomtest(W, m, 0.5, alternative="two-sided")``; gap ``(W - L) / n``;
    interval from :func:`wilson_mapped_ci`.

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
        return SignTest(w, lo_, t, 0, math.nan, math.nan, math.nan, math.nan, conf,
                        "no paired tasks: the gap, the test and the interval are undefined")
    gap = (w - lo_) / n
    if m == 0:
        return SignTest(w, lo_, t, n, gap, math.nan, math.nan, math.nan, conf,
                        "no untied pairs: the sign test and the interval are undefined")
    p = float(binomtest(w, m, 0.5, alternative="two-sided").pvalue)
    ci_low, ci_high = wilson_mapped_ci(w, lo_, t, conf)
    return SignTest(w, lo_, t, n, gap, min(p, 1.0), ci_low, ci_high, conf, "")


def sign_test_table(
    counts: pd.DataFrame,
    *,
    family: tuple[str, ...] = ("seed", "trial", "subset"),
    method: str = "bonferroni",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Sign test of every row of a W/L/T table, corrected within families of rows.

    Parameters
    ----------
    counts : pandas.DataFrame, shape (n_rows, ...)
        Columns ``wins, losses, ties`` (non-negative ints) plus any identifying columns.
    family : tuple of str, default ("seed", "trial", "subset")
        Columns whose combination defines one family for the multiplicity correction
        (missing columns are ignored). The noise-floor paper corrects over the three
        contrasts of one seed and trial (m = 3).
    method : {"bonferroni", "holm", "fdr_bh"}, default "bonferroni"
        Passed to :func:`noisefloor.stats.multiplicity.adjust_pvalues`.
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    pandas.DataFrame
        The input columns plus ``n, gap, p_value, p_adjusted, m, ci_low, ci_high, reason``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"seed": [1, 1, 1], "contrast": ["x", "y", "z"],
    ...                   "wins": [21, 18, 27], "losses": [11, 10, 9], "ties": [68, 72, 64]})
    >>> round(float(sign_test_table(t)["p_adjusted"].iloc[2]), 3)
    0.012
    """
    from noisefloor.stats.multiplicity import adjust_pvalues

    out = counts.copy()
    tests = [sign_test(w, lo, t, confidence=confidence)
             for w, lo, t in zip(out["wins"], out["losses"], out["ties"])]
    for name in ("n", "gap", "p_value", "ci_low", "ci_high", "reason"):
        out[name] = [getattr(t, name) for t in tests]
    out["p_adjusted"] = math.nan
    out["m"] = 0
    keys = [c for c in family if c in out.columns]
    groups = [g.index for _, g in out.groupby(keys, sort=False)] if keys else [out.index]
    for idx in groups:
        adj = adjust_pvalues(out.loc[idx, "p_value"].to_numpy(), method=method)
        out.loc[idx, "p_adjusted"] = adj.p_adjusted
        out.loc[idx, "m"] = adj.m
    cols = [c for c in counts.columns] + ["n", "gap", "p_value", "p_adjusted", "m", "ci_low",
                                          "ci_high", "reason"]
    return out[cols]


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
