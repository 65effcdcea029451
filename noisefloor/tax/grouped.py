"""Grouped-fold ridge prediction with honest scores: nested grouped CV, two R^2, permutations.

Predicting a per-cell quantity (the collaboration tax of a model x task cell) from features
must hold out whole groups (tasks): a fold that shares tasks with its training set measures
memorisation of the task, not prediction. This module does the arithmetic only (arrays in,
frozen results out) with scikit-learn's ``GroupKFold``/``LeaveOneGroupOut``,
``StandardScaler`` and ``Ridge``; the permutation null re-runs the whole nested procedure on
permuted targets through a closed form that reuses each training fold's SVD (checked against
scikit-learn in the tests).

Two traps are avoided on purpose. ``cross_val_predict(cv=5, groups=...)`` silently ignores the
groups (an int ``cv`` means plain ``KFold``); folds are built here with ``GroupKFold`` and
passed explicitly. ``RidgeCV`` chooses its penalty by (ungrouped) leave-one-out; here it is
chosen in an inner grouped loop on the training groups only.

The module sits with the tax analysis, its one user (:mod:`noisefloor.tax.prediction`), and
not in :mod:`noisefloor.stats`: scikit-learn is an optional dependency (the ``harness`` extra),
and a core install (``pip install -e .``) imports none of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import GroupKFold, LeaveOneGroupOut
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from noisefloor.results import FrozenResult

__all__ = ["DEFAULT_ALPHAS", "GroupedRidge", "SpearmanTest", "grouped_ridge", "pooled_and_mean_r2",
           "spearman_test"]

#: Penalty grid searched by the inner grouped loop (10^-3 ... 10^3, 13 values).
DEFAULT_ALPHAS: tuple[float, ...] = tuple(float(a) for a in np.logspace(-3, 3, 13))
#: Largest n for which :func:`spearman_test` enumerates all n! pairings (8! = 40,320).
EXACT_MAX_N = 8


def _generator(rng: int | np.random.Generator | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be an int, a numpy Generator or None, got {type(rng).__name__}")


@dataclass(frozen=True)
class SpearmanTest(FrozenResult):
    """Result of :func:`spearman_test`.

    Attributes
    ----------
    n : int
        Number of pairs.
    rho : float
        Spearman's rank correlation (average ranks for ties); NaN when undefined.
    p_value : float
        Two-sided p-value of ``rho = 0``; NaN when undefined.
    method : str
        ``"exact"`` (all n! pairings enumerated, n <= 8) or ``"permutation"`` (Monte Carlo with
        ``n_resamples`` random pairings; p = (1 + #|rho*| >= |rho|) / (1 + n_resamples)).
    n_resamples : int
        Pairings evaluated (n! for the exact test).
    reason : str
        Why ``rho``/``p_value`` are NaN; empty otherwise.
    """

    n: int
    rho: float
    p_value: float
    method: str
    n_resamples: int
    reason: str = ""


def spearman_test(
    x: Any, y: Any, *, n_resamples: int = 9999, rng: int | np.random.Generator | None = None,
) -> SpearmanTest:
    """Spearman's rho with an exact (n <= 8) or permutation p-value, never the t approximation.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Paired observations (finite).
    n_resamples : int, default 9999
        Random pairings for the permutation p-value when ``n > 8``.
    rng : int, numpy.random.Generator or None, default None
        Source of the random pairings (unused by the exact test).

    Returns
    -------
    SpearmanTest

    Raises
    ------
    ValueError
        Unequal lengths, non-finite values, ``n_resamples < 1``.

    Notes
    -----
    ``rho`` is Pearson's correlation of the ranks (``scipy.stats.spearmanr``). Its null
    distribution is that of ``rho`` over the n! equally likely pairings of the ranks; for small
    n the t approximation that ``spearmanr`` reports is poor, so the p-value comes from
    ``scipy.stats.permutation_test(permutation_type="pairings")``, exhaustive when n! is small.
    With fewer than 3 pairs or a constant input, rho is undefined (NaN with a reason).

    References
    ----------
    Kendall, M. G. & Gibbons, J. D. (1990). Rank Correlation Methods, 5th ed., chapter 5.
    Best, D. J. & Roberts, D. E. (1975). Algorithm AS 89: the upper tail probabilities of
    Spearman's rho. Applied Statistics 24(3), 377-379 (the exact test of R's ``cor.test``).

    Examples
    --------
    >>> r = spearman_test([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    >>> round(r.rho, 3), round(r.p_value, 4), r.method
    (0.8, 0.1333, 'exact')
    """
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or a.size != b.size:
        raise ValueError(f"x and y must be 1-D of the same length, got shapes {a.shape} and "
                         f"{b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("x and y must be finite; drop or impute missing cells first")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    n = int(a.size)
    if n < 3:
        return SpearmanTest(n, math.nan, math.nan, "none", 0,
                            f"{n} pairs: Spearman's rho needs at least 3")
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return SpearmanTest(n, math.nan, math.nan, "none", 0,
                            "a constant input: Spearman's rho is undefined")
    # average ranks are float64 (scipy-stubs 1.15 types them integer | floating)
    ra, rb = np.asarray(sps.rankdata(a), dtype=float), np.asarray(sps.rankdata(b), dtype=float)
    rho = float(np.corrcoef(ra, rb)[0, 1])

    def stat(u: np.ndarray, axis: int = -1) -> np.ndarray:
        u = u - u.mean(axis=axis, keepdims=True)
        v = rb - rb.mean()
        return np.sum(u * v, axis=axis) / np.sqrt(np.sum(u * u, axis=axis) * np.sum(v * v))

    exact = n <= EXACT_MAX_N
    # scipy documents n_resamples=np.inf (exact test); scipy-stubs types it as int only
    res = sps.permutation_test(  # type: ignore[call-overload]
        (ra,), stat, permutation_type="pairings", vectorized=True,
        n_resamples=np.inf if exact else int(n_resamples), alternative="two-sided",
        rng=None if exact else _generator(rng),
    )
    return SpearmanTest(n, rho, float(min(1.0, res.pvalue)), "exact" if exact else "permutation",
                        math.factorial(n) if exact else int(n_resamples))


def pooled_and_mean_r2(y: Any, pred: Any, folds: Any) -> tuple[float, float, tuple[float, ...]]:
    """Pooled out-of-fold R^2 and the mean of per-fold R^2: two different numbers.

    Parameters
    ----------
    y, pred : array_like, shape (n,)
        Observed values and their out-of-fold predictions.
    folds : array_like, shape (n,)
        Fold label of each observation.

    Returns
    -------
    (pooled, mean_fold, per_fold) : (float, float, tuple of float)
        ``pooled = r2_score(y, pred)`` over all n, with the grand mean of y as the baseline;
        ``mean_fold`` the unweighted mean of ``r2_score`` within each fold (each fold's own
        mean as baseline); ``per_fold`` in sorted fold order. A fold whose y is constant has
        an undefined R^2 (NaN), and the mean is then NaN too.

    Notes
    -----
    ``R^2 = 1 - sum (y - yhat)^2 / sum (y - ybar)^2`` (scikit-learn ``r2_score``). It is not
    the squared correlation: predictions ``[8, 6, 4, 2]`` for ``y = [1, 2, 3, 4]`` give
    ``R^2 = -13`` and ``r^2 = 1``. Pooling and averaging differ because each fold's baseline
    is its own mean (between-fold differences in level count as explained when pooled).

    Examples
    --------
    >>> pooled, mean_fold, per = pooled_and_mean_r2([1, 2, 3, 4], [8, 6, 4, 2], [0, 0, 0, 0])
    >>> pooled, mean_fold
    (-13.0, -13.0)
    """
    yv = np.asarray(y, dtype=float)
    pv = np.asarray(pred, dtype=float)
    fv = np.asarray(folds)
    if not (yv.shape == pv.shape == fv.shape) or yv.ndim != 1:
        raise ValueError(f"y, pred and folds must be 1-D of one length, got {yv.shape}, "
                         f"{pv.shape}, {fv.shape}")
    pooled = float(r2_score(yv, pv)) if np.ptp(yv) > 0 else math.nan
    per = []
    for f in np.unique(fv):
        m = fv == f
        per.append(float(r2_score(yv[m], pv[m])) if m.sum() >= 2 and np.ptp(yv[m]) > 0
                   else math.nan)
    return pooled, float(np.mean(per)) if per else math.nan, tuple(per)


@dataclass(frozen=True)
class GroupedRidge(FrozenResult):
    """Result of :func:`grouped_ridge`.

    Attributes
    ----------
    scheme : str
        ``"group_kfold"`` (k folds of whole groups) or ``"leave_one_group_out"``.
    n, n_features, n_groups, n_folds : int
        Observations, features, distinct groups and outer folds.
    r2_pooled_oof : float
        Pooled out-of-fold R^2: ``r2_score`` of all out-of-fold predictions against y.
    r2_mean_fold : float
        Mean of the per-fold R^2 (each fold against its own mean); NaN when a fold is constant.
    r2_folds : tuple of float
        Per-fold R^2, fold order.
    r2_squared_pearson : float
        Squared Pearson correlation of y and the out-of-fold predictions (NOT an R^2; shown so
        the difference is visible).
    spearman : SpearmanTest
        Rank correlation of y and the out-of-fold predictions, exact or permutation p.
    r2_perm_p : float
        Permutation p-value of ``r2_pooled_oof``: y permuted ``n_permutations`` times and the
        whole nested procedure (inner penalty choice included) re-run;
        ``(1 + #{R^2* >= R^2}) / (1 + n_permutations)``. NaN when ``n_permutations == 0``.
    n_permutations : int
    alphas : tuple of float
        Penalty grid of the inner loop.
    fold_alphas : tuple of float
        Penalty chosen on each outer fold's training groups.
    alpha_full : float
        Penalty chosen by grouped CV on all data, used for ``coef``.
    coef : tuple of float
        Standardised coefficients of the fit on all data (one per feature).
    intercept : float
    feature_names : tuple of str
    oof_pred : numpy.ndarray, shape (n,)
        Out-of-fold predictions.
    fold_of : numpy.ndarray, shape (n,)
        Outer fold of each observation.
    reason : str
        Why something is NaN; empty otherwise.
    """

    scheme: str
    n: int
    n_features: int
    n_groups: int
    n_folds: int
    r2_pooled_oof: float
    r2_mean_fold: float
    r2_folds: tuple
    r2_squared_pearson: float
    spearman: SpearmanTest
    r2_perm_p: float
    n_permutations: int
    alphas: tuple
    fold_alphas: tuple
    alpha_full: float
    coef: tuple
    intercept: float
    feature_names: tuple
    oof_pred: np.ndarray = field(repr=False)
    fold_of: np.ndarray = field(repr=False)
    reason: str = ""

    # hand-written: one row per feature (feature, coef)
    def to_frame(self) -> pd.DataFrame:
        """One row per feature: ``feature, coef`` (standardised, fit on all data)."""
        return pd.DataFrame({"feature": list(self.feature_names), "coef": list(self.coef)})


def _splits(groups: np.ndarray, scheme: str, n_folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    dummy = np.zeros((groups.size, 1))
    if scheme == "leave_one_group_out":
        return list(LeaveOneGroupOut().split(dummy, groups=groups))
    k = min(n_folds, np.unique(groups).size)
    return list(GroupKFold(n_splits=k).split(dummy, groups=groups))


class _Fold:
    """One training/test split with its scaler and SVD cached (they do not depend on y)."""

    def __init__(self, X: np.ndarray, train: np.ndarray, test: np.ndarray) -> None:
        self.train, self.test = train, test
        scaler = StandardScaler().fit(X[train])
        xs = scaler.transform(X[train])
        self.xmean = xs.mean(axis=0)
        u, s, vt = np.linalg.svd(xs - self.xmean, full_matrices=False)
        self.u, self.s = u, s
        self.xtv = (scaler.transform(X[test]) - self.xmean) @ vt.T

    def predict(self, Y: np.ndarray, alpha: float) -> np.ndarray:
        """Ridge predictions on the test rows for every column of Y (targets, shape (n, P))."""
        ys = Y[self.train]
        ybar = ys.mean(axis=0)
        d = self.s / (self.s ** 2 + alpha)
        return (self.xtv * d) @ (self.u.T @ (ys - ybar)) + ybar


class _Nested:
    """The nested procedure on fixed X and folds, vectorised over target columns."""

    def __init__(self, X: np.ndarray, groups: np.ndarray, scheme: str, n_folds: int,
                 inner_folds: int, alphas: tuple) -> None:
        self.alphas = alphas
        self.outer = []
        for train, test in _splits(groups, scheme, n_folds):
            inner = [(train[a], train[b]) for a, b in
                     _splits(groups[train], "group_kfold", inner_folds)]
            self.outer.append((_Fold(X, train, test), [_Fold(X, a, b) for a, b in inner]))

    def run(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Out-of-fold predictions (n, P) and the chosen alpha index per fold (n_folds, P)."""
        pred = np.empty_like(Y)
        chosen = np.empty((len(self.outer), Y.shape[1]), dtype=int)
        for k, (fold, inner) in enumerate(self.outer):
            sse = np.zeros((len(self.alphas), Y.shape[1]))
            for f in inner:
                for i, a in enumerate(self.alphas):
                    sse[i] += ((f.predict(Y, a) - Y[f.test]) ** 2).sum(axis=0)
            # the larger alpha among equal errors, as _choose_alpha does
            best = len(self.alphas) - 1 - np.argmin(sse[::-1], axis=0)
            chosen[k] = best
            for i in np.unique(best):
                cols = best == i
                pred[np.ix_(fold.test, cols)] = fold.predict(Y[:, cols], self.alphas[i])
        return pred, chosen


def _pipeline(alpha: float):
    return make_pipeline(StandardScaler(), Ridge(alpha=alpha))


def grouped_ridge(
    X: Any, y: Any, groups: Any, *, scheme: str = "group_kfold", n_folds: int = 5,
    inner_folds: int = 4, alphas: tuple = DEFAULT_ALPHAS, n_permutations: int = 199,
    feature_names: Any = None, rng: int | np.random.Generator | None = None,
) -> GroupedRidge:
    """Ridge regression scored on whole held-out groups, penalty chosen in an inner grouped loop.

    Parameters
    ----------
    X : array_like, shape (n, p)
        Features (finite); standardised inside every training fold.
    y : array_like, shape (n,)
        Target (finite).
    groups : array_like, shape (n,)
        Group of each row (e.g. the task of a model x task cell); a group is never split
        between training and test.
    scheme : {"group_kfold", "leave_one_group_out"}, default "group_kfold"
        Outer folds: ``GroupKFold(n_splits=min(n_folds, n_groups))`` or ``LeaveOneGroupOut``
        (leave-one-task-out with task groups, leave-one-model-out with model groups).
    n_folds : int, default 5
        Outer folds for ``"group_kfold"``.
    inner_folds : int, default 4
        Grouped folds of the inner loop that chooses the penalty on the training groups.
    alphas : tuple of float, default :data:`DEFAULT_ALPHAS`
        Penalty grid.
    n_permutations : int, default 199
        Permutations of y for the R^2 null (0 skips it).
    feature_names : sequence of str or None
        Names for ``coef``; default ``x0, x1, ...``.
    rng : int, numpy.random.Generator or None
        Source of the permutations (and the Spearman permutation p).

    Returns
    -------
    GroupedRidge

    Raises
    ------
    ValueError
        Shapes disagree, non-finite values, fewer than 3 groups (an inner grouped loop needs
        at least 2 training groups), a bad scheme or grid.

    Notes
    -----
    For outer fold k with training rows S_k: for each alpha, an inner ``GroupKFold`` over the
    groups of S_k gives the inner out-of-fold squared error; the alpha minimising it is refit
    on S_k (``StandardScaler`` then ``Ridge``) and predicts the held-out groups. Reported:
    pooled out-of-fold ``R^2 = 1 - sum_i (y_i - yhat_i)^2 / sum_i (y_i - ybar)^2`` and the mean
    of per-fold R^2, which differ; Spearman's rho of (y, yhat). The null permutes y over all
    rows and repeats the nested procedure; the closed form ``yhat = ybar + X_t V diag(s /
    (s^2 + alpha)) U' (y - ybar)`` reuses each fold's SVD ``X_s = U diag(s) V'``.

    References
    ----------
    Hoerl, A. E. & Kennard, R. W. (1970). Ridge regression: biased estimation for
    nonorthogonal problems. Technometrics 12(1), 55-67.
    Varma, S. & Simon, R. (2006). Bias in error estimation when using cross-validation for
    model selection. BMC Bioinformatics 7, 91 (nested CV).
    Ojala, M. & Garriga, G. C. (2010). Permutation tests for studying classifier performance.
    JMLR 11, 1833-1863.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.repeat(np.arange(8), 4)
    >>> x = np.linspace(0, 1, 32)[:, None]
    >>> y = 2 * x[:, 0] + np.random.default_rng(0).normal(0, 0.05, 32)
    >>> r = grouped_ridge(x, y, g, n_permutations=19, rng=0)
    >>> r.n_folds, r.r2_pooled_oof > 0.9, r.r2_perm_p
    (5, True, 0.05)
    """
    Xa = np.asarray(X, dtype=float)
    ya = np.asarray(y, dtype=float)
    ga = np.asarray(groups)
    if Xa.ndim == 1:
        Xa = Xa[:, None]
    if Xa.ndim != 2 or ya.ndim != 1 or ga.ndim != 1 or not (Xa.shape[0] == ya.size == ga.size):
        raise ValueError(f"X must be (n, p), y and groups (n,); got {Xa.shape}, {ya.shape}, "
                         f"{ga.shape}")
    if not (np.all(np.isfinite(Xa)) and np.all(np.isfinite(ya))):
        raise ValueError("X and y must be finite (a cell with an undefined tax or feature must "
                         "be left out explicitly before fitting)")
    if scheme not in ("group_kfold", "leave_one_group_out"):
        raise ValueError(f"scheme must be 'group_kfold' or 'leave_one_group_out', got {scheme!r}")
    n_groups = int(np.unique(ga).size)
    if n_groups < 3:
        raise ValueError(f"grouped ridge needs at least 3 groups (the inner loop needs 2 "
                         f"training groups), got {n_groups}")
    alphas = tuple(float(a) for a in alphas)
    if not alphas or any(not (a > 0 and math.isfinite(a)) for a in alphas):
        raise ValueError(f"alphas must be positive finite numbers, got {alphas!r}")
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) \
            or n_permutations < 0:
        raise ValueError(f"n_permutations must be a non-negative integer, got {n_permutations!r}")
    names = tuple(str(f) for f in feature_names) if feature_names is not None else \
        tuple(f"x{i}" for i in range(Xa.shape[1]))
    if len(names) != Xa.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names for {Xa.shape[1]} features")
    gen = _generator(rng)

    # The penalty of each outer fold is chosen by the inner grouped loop, evaluated through the
    # closed form (identical to StandardScaler + Ridge, see the tests, and far cheaper than
    # refitting scikit-learn per alpha and inner fold); the reported out-of-fold predictions
    # and the final coefficients are scikit-learn fits on explicit grouped splits.
    nested = _Nested(Xa, ga, scheme, n_folds, inner_folds, alphas)
    _, chosen = nested.run(ya[:, None])
    oof = np.empty(ya.size)
    fold_of = np.empty(ya.size, dtype=int)
    fold_alphas = []
    for k, (fold, _inner) in enumerate(nested.outer):
        a = alphas[int(chosen[k, 0])]
        fold_alphas.append(a)
        oof[fold.test] = _pipeline(a).fit(Xa[fold.train], ya[fold.train]).predict(Xa[fold.test])
        fold_of[fold.test] = k
    pooled, mean_fold, per = pooled_and_mean_r2(ya, oof, fold_of)
    reason = ""
    if math.isnan(mean_fold):
        reason = "a held-out fold has a constant target: its R^2 and the mean per-fold R^2 are NaN"
    if math.isnan(pooled):
        reason = "the target is constant: R^2 is undefined"
    sq_pearson = float(np.corrcoef(ya, oof)[0, 1] ** 2) if np.ptp(oof) > 0 and np.ptp(ya) > 0 \
        else math.nan
    spear = spearman_test(ya, oof, rng=gen)
    alpha_full = _choose_alpha(Xa, ya, ga, n_folds, alphas)
    full = _pipeline(alpha_full).fit(Xa, ya)
    ridge = full[-1]
    outer = nested.outer

    perm_p = math.nan
    if n_permutations and not math.isnan(pooled):
        Y = np.column_stack([gen.permutation(ya) for _ in range(n_permutations)])
        pred, _ = nested.run(Y)
        ss_tot = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)
        r2_perm = 1.0 - ((Y - pred) ** 2).sum(axis=0) / ss_tot
        perm_p = float((1 + np.sum(r2_perm >= pooled - 1e-12)) / (1 + n_permutations))
    return GroupedRidge(
        scheme=scheme, n=int(ya.size), n_features=int(Xa.shape[1]), n_groups=n_groups,
        n_folds=len(outer), r2_pooled_oof=pooled, r2_mean_fold=mean_fold, r2_folds=per,
        r2_squared_pearson=sq_pearson, spearman=spear, r2_perm_p=perm_p,
        n_permutations=int(n_permutations), alphas=alphas, fold_alphas=tuple(fold_alphas),
        alpha_full=alpha_full, coef=tuple(float(c) for c in ridge.coef_),
        intercept=float(ridge.intercept_), feature_names=names, oof_pred=oof, fold_of=fold_of,
        reason=reason,
    )


def _choose_alpha(X: np.ndarray, y: np.ndarray, groups: np.ndarray, k: int,
                  alphas: tuple) -> float:
    """The alpha with the smallest grouped out-of-fold squared error (ties: the larger alpha)."""
    folds = [_Fold(X, a, b) for a, b in _splits(groups, "group_kfold", k)]
    sse = np.array([sum(float(((f.predict(y[:, None], a)[:, 0] - y[f.test]) ** 2).sum())
                        for f in folds) for a in alphas])
    return alphas[len(alphas) - 1 - int(np.argmin(sse[::-1]))]
