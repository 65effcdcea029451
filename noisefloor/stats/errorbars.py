"""Error bars on an eval score: CLT, clustered and paired-difference standard errors.

Miller (2024) asks every eval score to carry a standard error: the CLT SE of a mean over
questions; a clustered SE when questions come in groups that share a source (several
questions per document, several trials per task); and for a comparison of two models on the
same questions, the SE of the paired differences, which is smaller than the unpaired one by the
correlation of the two arms.

Two clustered formulas are given and named:

- ``"miller"``: Miller (2024), eq. 4 (Appendix A):
  ``SE^2 = SE_CLT^2 + (1/n^2) sum_c sum_i sum_{j != i} (s_ic - sbar)(s_jc - sbar)``.
- ``"inspect_ai"``: as ``inspect_ai.scorer.stderr(cluster=...)`` computes it, with a
  finite-cluster correction C / (C - 1):
  ``SE^2 = C / (C - 1) * sum_c (sum_i (s_ic - sbar))^2 / n^2`` (the Liang-Zeger sandwich with
  the small-cluster factor; = statsmodels ``OLS(...).fit(cov_type="cluster")`` on an intercept).

Intervals are normal-theory, ``estimate +- z_{(1+confidence)/2} SE``, as Miller recommends.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate

CLUSTER_CORRECTIONS = ("miller", "inspect_ai")


@dataclass(frozen=True)
class ErrorBar(FrozenResult):
    """Result of :func:`clt_se` and :func:`clustered_se`.

    Attributes
    ----------
    estimate : float
        Mean score (a proportion for 0/1 scores).
    se : float
        Standard error of the mean; NaN with ``reason`` when undefined.
    ci_low, ci_high : float
        ``estimate -+ z se`` at ``confidence``.
    confidence : float
        Interval level.
    n : int
        Scores.
    n_clusters : int
        Clusters (equal to ``n`` for the CLT SE).
    method : str
        ``"clt"``, ``"miller"`` or ``"inspect_ai"``.
    reason : str
        Why ``se`` is NaN; empty otherwise.
    """

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    confidence: float
    n: int
    n_clusters: int
    method: str
    reason: str = ""


def _scores(name: str, values) -> np.ndarray:
    x = np.asarray(values, dtype=float).ravel()
    if x.size and not np.all(np.isfinite(x)):
        i = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"{name}[{i}] is not a finite number ({x[i]!r}); drop or fill it "
                         "explicitly before computing an error bar")
    return x


def _interval(estimate: float, se: float, confidence: float) -> tuple[float, float]:
    if math.isnan(se):
        return math.nan, math.nan
    z = float(norm.ppf(0.5 + confidence / 2))
    return estimate - z * se, estimate + z * se


def clt_se(scores, *, confidence: float = 0.95) -> ErrorBar:
    """CLT standard error of a mean score and its normal interval (Miller 2024, eq. 1-2).

    Parameters
    ----------
    scores : array-like of float, shape (n,)
        One score per question (0/1 for pass/fail, or a value in [0, 1]).
    confidence : float, default 0.95
        Interval level, in (0, 1).

    Returns
    -------
    ErrorBar
        ``method = "clt"``; NaN ``se`` with a reason when ``n < 2``.

    Raises
    ------
    ValueError
        If a score is not finite or ``confidence`` is not in (0, 1).

    Notes
    -----
    ``SE = sqrt(sum_i (s_i - sbar)^2 / (n - 1) / n)``, the sample standard deviation over
    ``sqrt(n)``.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model
    Evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> r = clt_se([1, 0, 1, 1, 0, 1, 1, 1])
    >>> r.estimate, round(r.se, 4)
    (0.75, 0.1637)
    """
    conf = _validate.probability("confidence", confidence)
    x = _scores("scores", scores)
    n = int(x.size)
    if n < 2:
        est = float(x[0]) if n else math.nan
        return ErrorBar(est, math.nan, math.nan, math.nan, conf, n, n, "clt",
                        f"the CLT standard error needs at least two scores; got {n}")
    est = float(x.mean())
    se = float(np.std(x, ddof=1) / math.sqrt(n))
    return ErrorBar(est, se, *_interval(est, se, conf), conf, n, n, "clt")


def clustered_se(scores, clusters, *, correction: str = "miller",
                 confidence: float = 0.95) -> ErrorBar:
    """Clustered standard error of a mean score (questions grouped into clusters).

    Parameters
    ----------
    scores : array-like of float, shape (n,)
        One score per question.
    clusters : array-like, shape (n,)
        Cluster id of each question (any hashable values; NaN/None are refused).
    correction : {"miller", "inspect_ai"}, default "miller"
        Which formula (module notes): Miller's eq. 4, or the C / (C - 1) finite-cluster form
        that ``inspect_ai``'s ``stderr(cluster=...)`` computes.
    confidence : float, default 0.95
        Interval level, in (0, 1).

    Returns
    -------
    ErrorBar
        ``method`` is ``correction``; NaN ``se`` with a reason when there are fewer than two
        scores or (``inspect_ai``) fewer than two clusters. (inspect_ai itself returns 0 for a
        single cluster; an undefined SE is not 0.)

    Raises
    ------
    ValueError
        If the lengths differ, a score is not finite, a cluster id is missing, or an option
        is not one of its allowed values.

    Notes
    -----
    With ``d_ic = s_ic - sbar``, ``n`` scores and ``C`` clusters:
    Miller (2024, eq. 4) ``SE^2 = s^2 / n + (sum_c (sum_i d_ic)^2 - sum d^2) / n^2``,
    ``s^2`` the sample variance; inspect_ai ``SE^2 = C / (C - 1) sum_c (sum_i d_ic)^2 / n^2``.
    When every cluster holds one question both equal the CLT SE.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model
    Evaluations. arXiv:2411.00640, section 2.2 and Appendix A.
    Cameron, A. C. & Miller, D. L. (2015). A Practitioner's Guide to Cluster-Robust
    Inference. Journal of Human Resources 50(2), 317-372.

    Examples
    --------
    >>> s = [1, 1, 0, 0, 1, 1, 0, 1]
    >>> c = ["a", "a", "b", "b", "c", "c", "d", "d"]
    >>> round(clustered_se(s, c).se, 4), round(clustered_se(s, c, correction="inspect_ai").se, 4)
    (0.2171, 0.2394)
    """
    _validate.choice("correction", correction, CLUSTER_CORRECTIONS)
    conf = _validate.probability("confidence", confidence)
    x = _scores("scores", scores)
    groups = pd.Series(list(np.asarray(clusters, dtype=object).ravel()))
    if len(groups) != x.size:
        raise ValueError(f"scores and clusters must have the same length; got {x.size} and "
                         f"{len(groups)}")
    missing = groups.isna()
    if missing.any():
        raise ValueError(f"clusters[{int(np.flatnonzero(missing.to_numpy())[0])}] is missing: "
                         "every score needs a cluster id")
    n = int(x.size)
    codes = pd.factorize(groups)[0] if n else np.array([], dtype=int)
    c = int(codes.max() + 1) if n else 0
    nan = math.nan
    if n < 2:
        return ErrorBar(float(x[0]) if n else nan, nan, nan, nan, conf, n, c, correction,
                        f"a standard error needs at least two scores; got {n}")
    est = float(x.mean())
    d = x - est
    cluster_sums = np.bincount(codes, weights=d, minlength=c)
    between = float(np.sum(cluster_sums ** 2))
    if correction == "miller":
        var = float(np.var(x, ddof=1)) / n + (between - float(np.sum(d ** 2))) / n ** 2
    else:
        if c < 2:
            return ErrorBar(est, nan, nan, nan, conf, n, c, correction,
                            "the C / (C - 1) correction needs at least two clusters; got 1")
        var = c / (c - 1) * between / n ** 2
    se = math.sqrt(max(var, 0.0))
    return ErrorBar(est, se, *_interval(est, se, conf), conf, n, c, correction)


@dataclass(frozen=True)
class PairedDifference(FrozenResult):
    """Result of :func:`paired_difference_se`.

    Attributes
    ----------
    estimate : float
        ``mean(a) - mean(b)`` (proportion for 0/1 scores).
    se : float
        Paired SE: the standard error of the mean per-question difference.
    se_unpaired : float
        ``sqrt(SE_a^2 + SE_b^2)``: what the SE would be if the arms were independent.
    correlation : float
        Pearson correlation of the arms' scores over questions; NaN when an arm is constant.
    ci_low, ci_high : float
        ``estimate -+ z se`` at ``confidence``.
    confidence : float
        Interval level.
    n : int
        Questions scored in both arms.
    reason : str
        Why a field is NaN; empty otherwise.
    """

    estimate: float
    se: float
    se_unpaired: float
    correlation: float
    ci_low: float
    ci_high: float
    confidence: float
    n: int
    reason: str = ""


def paired_difference_se(a, b, *, confidence: float = 0.95) -> PairedDifference:
    """SE of the difference of two arms scored on the same questions (Miller 2024, sec. 4).

    Parameters
    ----------
    a, b : array-like of float, shape (n,)
        Scores of arms a and b, aligned by question.
    confidence : float, default 0.95
        Interval level, in (0, 1).

    Returns
    -------
    PairedDifference
        NaN SEs with a reason when ``n < 2``.

    Raises
    ------
    ValueError
        If the lengths differ, a score is not finite, or ``confidence`` is not in (0, 1).

    Notes
    -----
    ``SE_paired^2 = (Var(a) + Var(b) - 2 Cov(a, b)) / n = Var(a - b) / n`` (sample variances,
    ddof 1); ``SE_unpaired^2 = (Var(a) + Var(b)) / n``. A positive correlation between the arms
    (easy questions are easy for both) makes the paired SE the smaller one.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model
    Evaluations. arXiv:2411.00640, section 4 (paired differences).

    Examples
    --------
    >>> r = paired_difference_se([1, 1, 0, 1, 1, 0], [1, 0, 0, 1, 0, 0])
    >>> round(r.estimate, 4), round(r.se, 4), round(r.se_unpaired, 4), round(r.correlation, 4)
    (0.3333, 0.2108, 0.2981, 0.5)
    """
    conf = _validate.probability("confidence", confidence)
    xa, xb = _scores("a", a), _scores("b", b)
    if xa.size != xb.size:
        raise ValueError(f"a and b must score the same questions; got {xa.size} and {xb.size}")
    n = int(xa.size)
    nan = math.nan
    est = float(xa.mean() - xb.mean()) if n else nan
    if n < 2:
        return PairedDifference(est, nan, nan, nan, nan, nan, conf, n,
                                f"a paired standard error needs at least two questions; got {n}")
    se = float(np.std(xa - xb, ddof=1) / math.sqrt(n))
    se_unpaired = math.sqrt((np.var(xa, ddof=1) + np.var(xb, ddof=1)) / n)
    reason = ""
    if np.std(xa) == 0 or np.std(xb) == 0:
        corr = nan
        reason = "an arm has the same score on every question: its correlation is undefined"
    else:
        corr = float(np.corrcoef(xa, xb)[0, 1])
    return PairedDifference(est, se, float(se_unpaired), corr, *_interval(est, se, conf), conf,
                            n, reason)
