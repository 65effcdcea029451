"""A claim against the null gaps: its signal-to-noise ratio and its percentile among them, and a
simulation-calibrated false-positive rate of single-seed contrasts in re-runs.

The noise-floor paper's seed-1 pull-vs-intercept gap (+18 pp, Bonferroni p = 0.012) came from
two arms that could not differ: "the kind of number that gets published". :func:`simulate_reruns`
gives its probability: re-runs are simulated task by task at the per-task success rates of a
log (or at a given flip rate), every pair of arms is sign-tested per seed with the Bonferroni
correction over the pairs, and the share of contrasts reaching significance is reported for
single seeds and pooled over seeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate


@dataclass(frozen=True)
class ClaimSNR(FrozenResult):
    """Result of :func:`claim_snr`.

    Attributes
    ----------
    effect : float
        The claimed gain (proportion), sign kept.
    snr : float
        ``|effect| / null_gap_sd``: how many null-gap standard deviations the claim spans.
    percentile : float
        Percent (0..100) of null gaps whose magnitude is at most ``|effect|``.
    null_gap_sd : float
        Standard deviation (ddof 1) of the null gaps.
    n_null : int
        Null gaps used.
    reason : str
        Why ``snr`` or ``percentile`` is NaN.
    """

    effect: float
    snr: float
    percentile: float
    null_gap_sd: float
    n_null: int
    reason: str = ""


def claim_snr(effect: float, null_gaps) -> ClaimSNR:
    """Signal-to-noise of a claimed gain against the gaps of null contrasts.

    Parameters
    ----------
    effect : float
        Claimed gain (proportion, e.g. 0.06 for +6 pp).
    null_gaps : array-like of float, shape (m,)
        Signed gaps of null contrasts (per seed), proportions; their signs are arbitrary, so
        magnitudes are compared.

    Returns
    -------
    ClaimSNR
        NaN ``snr`` with a reason when fewer than two null gaps are given or they do not vary;
        NaN ``percentile`` when none is given.

    Raises
    ------
    ValueError
        If ``effect`` or a null gap is not finite.

    Notes
    -----
    ``snr = |effect| / sd(null_gaps)``; ``percentile = 100 * #{j : |g_j| <= |effect|} / m``
    (the "weak" percentile of magnitudes; ``scipy.stats.percentileofscore`` gives the same but
    can return 100.00000000000001).

    Examples
    --------
    The noise-floor paper's six trial-0 gaps (+10, 0, +8, -3, +18, -3 pp) and a +6 pp claim:

    >>> r = claim_snr(0.06, [0.10, 0.0, 0.08, -0.03, 0.18, -0.03])
    >>> round(r.snr, 3), r.percentile
    (0.711, 50.0)
    """
    e = float(effect)
    g = np.asarray(null_gaps, dtype=float).ravel()
    if not math.isfinite(e) or not np.all(np.isfinite(g)):
        raise ValueError("effect and null_gaps must be finite numbers (proportions)")
    m = int(g.size)
    nan = math.nan
    if m == 0:
        return ClaimSNR(e, nan, nan, nan, 0, "no null gap given")
    pct = 100.0 * int(np.count_nonzero(np.abs(g) <= abs(e))) / m  # exact: never above 100
    if m < 2:
        return ClaimSNR(e, nan, pct, nan, m, "a spread of null gaps needs at least two; got 1")
    sd = float(np.std(g, ddof=1))
    if sd == 0:
        return ClaimSNR(e, nan, pct, 0.0, m, "the null gaps do not vary: no spread to divide by")
    return ClaimSNR(e, abs(e) / sd, pct, sd, m)


def flip_rate_to_success_prob(flip_rate: float) -> float:
    """Success probability p (<= 0.5) of a task whose two runs disagree at ``flip_rate``.

    Parameters
    ----------
    flip_rate : float
        ``2 p (1 - p)``, in [0, 0.5].

    Returns
    -------
    float
        ``p = (1 - sqrt(1 - 2 flip_rate)) / 2``.

    Raises
    ------
    ValueError
        If ``flip_rate`` is outside [0, 0.5] (two independent runs disagree at most half the time).

    Examples
    --------
    >>> round(flip_rate_to_success_prob(0.36), 5)
    0.23542
    """
    f = float(flip_rate)
    if not 0.0 <= f <= 0.5:
        raise _validate.ParameterError(
            "flip_rate", "in [0, 0.5] (2 p (1 - p) of independent runs)", flip_rate)
    return (1.0 - math.sqrt(1.0 - 2.0 * f)) / 2.0


@dataclass(frozen=True)
class RerunsSimulation(FrozenResult):
    """Result of :func:`simulate_reruns`: how often re-run contrasts look significant.

    Attributes
    ----------
    single_seed_rate : float
        Share of (contrast, seed) sign tests with Bonferroni ``p_corr <= alpha``.
    single_seed_any_rate : float
        Share of seeds at which at least one of the ``m`` contrasts is significant.
    experiment_any_rate : float
        Share of simulated experiments with at least one significant single-seed contrast.
    pooled_rate : float
        Share of contrasts significant with W/L/T summed over seeds (Bonferroni over ``m``).
    pooled_any_rate : float
        Share of experiments with at least one significant pooled contrast.
    mc_se : float
        Monte Carlo SE of ``single_seed_rate`` treating the draws as independent (they are
        not quite: contrasts of one seed share arms), ``sqrt(r (1 - r) / (n_sim n_seeds m))``.
    flip_rate : float
        Mean over tasks of ``2 p_t (1 - p_t)``: how often two runs of a task disagree.
    n_tasks, n_seeds, n_arms, m, n_sim : int
        Sizes (``m = n_arms (n_arms - 1) / 2`` contrasts per seed).
    alpha : float
        Family-wise level, Bonferroni-corrected over ``m``.
    """

    single_seed_rate: float
    single_seed_any_rate: float
    experiment_any_rate: float
    pooled_rate: float
    pooled_any_rate: float
    mc_se: float
    flip_rate: float
    n_tasks: int
    n_seeds: int
    n_arms: int
    m: int
    n_sim: int
    alpha: float


def _sign_p(w: np.ndarray, lo: np.ndarray) -> np.ndarray:
    m = w + lo
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * binom.cdf(np.minimum(w, lo), m, 0.5))
    return np.where(m == 0, 1.0, p)


#: Outcomes drawn at once by :func:`simulate_reruns` (2^24: 128 MiB of uniforms); one simulated
#: experiment larger than this is refused.
RERUN_CHUNK_DRAWS = 1 << 24
#: Most outcomes one :func:`simulate_reruns` call draws (about a minute of work).
MAX_RERUN_DRAWS = 2_000_000_000


def simulate_reruns(success_prob, *, n_seeds: int = 2, n_arms: int = 3, alpha: float = 0.05,
                n_sim: int = 2000, rng=None) -> RerunsSimulation:
    """Simulate re-runs and count how often their contrasts reach Bonferroni significance.

    Parameters
    ----------
    success_prob : array-like of float, shape (n_tasks,)
        Each task's success probability, the same in every arm (so every contrast is null):
        e.g. a log's per-task success share (:func:`noisefloor.passk.per_task_success_share`,
        or :func:`~noisefloor.stats.passk.per_task_pass_hat_k` at k = 1), or
        ``flip_rate_to_success_prob(f)`` repeated for a given flip rate.
    n_seeds : int, default 2
        Seeds per experiment (the noise-floor paper: 2).
    n_arms : int, default 3
        Arms (protocols) run per seed; every pair is a contrast (the paper: 3, so m = 3).
    alpha : float, default 0.05
        Family-wise level; each sign test is significant when ``min(1, m p) <= alpha``.
    n_sim : int, default 2000
        Simulated experiments, 1..200000.
    rng : int or numpy.random.Generator, optional
        Seed or generator; the same seed gives the same result.

    Returns
    -------
    RerunsSimulation

    Raises
    ------
    ValueError
        If a probability is outside [0, 1], there is no task, or a size is out of range.

    Notes
    -----
    Each arm's outcome on task t is Bernoulli(p_t), independently across arms, seeds and tasks.
    A contrast's W/L/T count the tasks where a succeeded and b failed, the reverse, and equal
    outcomes; its exact two-sided sign-test p is ``min(1, 2 P(X <= min(W, L)))``,
    ``X ~ Binomial(W + L, 1/2)`` (1 without untied pairs). For one contrast at one seed the
    exact rate is the size of the sign test with ties, ``power_sign_test(n, 0, p_d, alpha / m)``
    when all tasks share one flip rate ``p_d``.

    References
    ----------
    Kaliyev, A. & Maryanskyy, A. (2026). How Much Coordination Gain Is Real? A Paired
    Noise-Floor Protocol for Multi-Agent LLM Benchmarks. KDD 2026 Workshop on Agentic AI
    Evaluation and Trustworthiness.

    Examples
    --------
    >>> r = simulate_reruns([flip_rate_to_success_prob(0.36)] * 100, n_sim=500, rng=1)
    >>> r.m, r.n_tasks, 0.0 <= r.single_seed_rate <= r.single_seed_any_rate <= r.experiment_any_rate
    (3, 100, True)
    """
    p = np.asarray(success_prob, dtype=float).ravel()
    if p.size == 0:
        raise ValueError("success_prob is empty: simulate at least one task")
    if not np.all((p >= 0) & (p <= 1)):
        i = int(np.flatnonzero(~((p >= 0) & (p <= 1)))[0])
        raise ValueError(f"success_prob[{i}] must lie in [0, 1]; got {p[i]!r}")
    n_seeds = _validate.count("n_seeds", n_seeds)
    n_arms = _validate.count("n_arms", n_arms)
    n_sim = _validate.count("n_sim", n_sim)
    if n_seeds < 1:
        raise _validate.ParameterError("n_seeds", "at least 1", n_seeds)
    if n_arms < 2:
        raise _validate.ParameterError("n_arms", "at least 2", n_arms)
    if not 1 <= n_sim <= 200_000:
        raise _validate.ParameterError("n_sim", "in 1..200000", n_sim)
    a = _validate.probability("alpha", alpha)
    per_sim = n_seeds * n_arms * p.size
    if per_sim > RERUN_CHUNK_DRAWS:
        raise _validate.ParameterError(
            "n_seeds", "", n_seeds, message=_validate.literal(
                f"one simulated experiment would draw {per_sim:,} outcomes (seeds x arms x "
                f"tasks), more than the {RERUN_CHUNK_DRAWS:,} simulated at once; lower ")
            + "{n_seeds}, {n_arms} or the number of tasks")
    if per_sim * n_sim > MAX_RERUN_DRAWS:
        raise _validate.ParameterError(
            "n_sim", "", n_sim, message=_validate.literal(
                f"the simulation would draw {per_sim * n_sim:,} outcomes (experiments x seeds "
                f"x arms x tasks), more than the {MAX_RERUN_DRAWS:,} it serves; lower ")
            + "{n_sim}, {n_seeds}, {n_arms} or the number of tasks")
    gen = np.random.default_rng(rng)
    pairs = [(i, j) for i in range(n_arms) for j in range(i + 1, n_arms)]
    m = len(pairs)
    counts = np.zeros(5)
    chunk = max(1, RERUN_CHUNK_DRAWS // per_sim)
    for start in range(0, n_sim, chunk):  # bounded memory: one chunk of experiments at a time
        # outcomes: (chunk, n_seeds, n_arms, n_tasks)
        out = gen.random((min(chunk, n_sim - start), n_seeds, n_arms, p.size)) < p
        wins = np.stack([(out[:, :, i] & ~out[:, :, j]).sum(-1) for i, j in pairs], axis=-1)
        losses = np.stack([(~out[:, :, i] & out[:, :, j]).sum(-1) for i, j in pairs], axis=-1)
        del out
        sig = np.minimum(1.0, m * _sign_p(wins, losses)) <= a           # (chunk, n_seeds, m)
        pooled = np.minimum(1.0, m * _sign_p(wins.sum(1), losses.sum(1))) <= a  # (chunk, m)
        counts += (sig.sum(), sig.any(-1).sum(), sig.any(-1).any(-1).sum(), pooled.sum(),
                   pooled.any(-1).sum())
    cells = n_sim * n_seeds * m
    rate = float(counts[0] / cells)
    return RerunsSimulation(
        single_seed_rate=rate, single_seed_any_rate=float(counts[1] / (n_sim * n_seeds)),
        experiment_any_rate=float(counts[2] / n_sim),
        pooled_rate=float(counts[3] / (n_sim * m)), pooled_any_rate=float(counts[4] / n_sim),
        mc_se=math.sqrt(rate * (1 - rate) / cells), flip_rate=float(np.mean(2 * p * (1 - p))),
        n_tasks=int(p.size), n_seeds=n_seeds, n_arms=n_arms, m=m, n_sim=n_sim, alpha=a)
