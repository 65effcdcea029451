"""A whole leaderboard as tiers of entries that cannot be told apart, with rank intervals.

A leaderboard orders its entries one by one, yet adjacent entries are often inside each
other's sampling error. This module tests every pair of entries, controls the family-wise error
over all ``K (K - 1) / 2`` pairs, and reports

* **tiers**: walking down the score order, a tier starts at its best entry and holds every
  following entry until the first one that the best entry beats at the chosen level after
  Holm's step-down adjustment over all pairs (Holm 1979); the next tier starts there. Entries
  in one tier are not distinguishable from its best entry; an entry is in a lower tier only
  when a test, with the whole family's error controlled, says it is worse.
* **rank intervals** (simultaneous over all entries, Klein, Wright & Wieczorek 2020): the
  rank of entry j lies in ``[1 + #{k beats j}, K - #{j beats k}]``, where "beats" is a
  two-sided test rejecting at level ``alpha / m``, ``m = K (K - 1) / 2`` (Bonferroni), so all
  K intervals hold at once with probability at least ``1 - alpha``.

The pairwise test depends on what the leaderboard publishes:

* **per-item results** (trial logs: Terminal-Bench runs, Harbor jobs, tau2-bench trajectories):
  a paired test over the tasks both entries ran, the exact sign test on the per-task success
  shares (a task counts as a win for a when a's share of successful trials on it is higher;
  equal shares are ties and dropped), as :func:`noisefloor.stats.sign_test` computes it.
* **aggregate scores only** (a published success rate per entry, e.g. the tau2-bench
  leaderboard's pass^1): the unpaired two-proportion z-test on the entries' task counts (pooled
  z, as :func:`noisefloor.leaderboard.gaps.gap_test`), which is all a published rate allows.

References
----------
Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal
of Statistics 6(2), 65-70.
Klein, M., Wright, T. & Wieczorek, J. (2020). A joint confidence region for an overall ranking
of populations. Journal of the Royal Statistical Society Series C 69(3), 589-606.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from noisefloor.leaderboard.entries import DOMAIN_TASKS, Leaderboard
from noisefloor.passk.trials import CONFIG_COLUMNS
from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate
from noisefloor.stats.multiplicity import holm
from noisefloor.stats.paired import sign_test_pvalues
from noisefloor.stats.passk import is_success

__all__ = ["LeaderboardTiers", "holm", "tiers_from_shares", "leaderboard_tiers", "pairwise_sign_tests", "pairwise_z_tests",
           "save_tier_plot", "tiers_from_pvalues", "tiers_from_scores", "tiers_from_trials", "save_tier_plots", "tier_plot_path", "tiers_by_domain"]

PAIRED = "paired exact sign test over shared tasks (per-task success shares)"
UNPAIRED = "unpaired two-proportion z-test on each entry's task count"


@dataclass(frozen=True)
class LeaderboardTiers(FrozenResult):
    """Tiers and simultaneous rank intervals of a leaderboard (best entry first).

    Attributes
    ----------
    entries : tuple of str
        Entry names in score order (best first; ties keep their input order).
    scores : tuple of float
        Each entry's success rate (proportion).
    n_items : tuple of int
        Tasks behind each score (its sample size).
    ci_low, ci_high : tuple of float
        Each score's own interval at ``confidence`` (Wilson for an aggregate rate, the CLT over
        tasks for per-item results); not adjusted for multiplicity.
    tiers : tuple of int
        Tier of each entry, 1 the best.
    rank_low, rank_high : tuple of int
        Simultaneous rank interval of each entry (1 = best).
    method : str
        The pairwise test.
    confidence : float
        ``1 - alpha``: family-wise level of the tiers and joint level of the rank intervals.
    n_pairs : int
        Pairs tested, ``K (K - 1) / 2``.
    n_distinguishable : int
        Pairs whose Holm-adjusted p-value is below ``alpha``.
    pairs : pandas.DataFrame
        One row per pair ``a``, ``b`` (a ranked above b): ``gap`` (score difference),
        ``p_value``, ``p_adjusted``, ``distinguishable`` (Holm), ``rank_separated`` (Bonferroni),
        and for the paired test ``wins``, ``losses``, ``ties``.
    domain : str or None
        The leaderboard domain, for a tau2-bench leaderboard.
    notes : tuple of str
        What the reader should know (pairs without an untied task, entries without tasks).
    """

    entries: tuple[str, ...]
    scores: tuple[float, ...]
    n_items: tuple[int, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    tiers: tuple[int, ...]
    rank_low: tuple[int, ...]
    rank_high: tuple[int, ...]
    method: str
    confidence: float
    n_pairs: int
    n_distinguishable: int
    pairs: pd.DataFrame = field(repr=False)
    domain: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def n_tiers(self) -> int:
        """Number of tiers."""
        return max(self.tiers) if self.tiers else 0

    # hand-written: one row per entry from the parallel tuples
    def to_frame(self) -> pd.DataFrame:
        """One row per entry: ``rank``, ``entry``, ``score``, ``n_items``, ``ci_low``,
        ``ci_high``, ``tier``, ``rank_low``, ``rank_high``."""
        return pd.DataFrame({
            "rank": range(1, len(self.entries) + 1), "entry": self.entries,
            "score": self.scores, "n_items": self.n_items, "ci_low": self.ci_low,
            "ci_high": self.ci_high, "tier": self.tiers, "rank_low": self.rank_low,
            "rank_high": self.rank_high})

    # hand-written: derived keys (tiers as lists of names, counts, adjustment)
    def to_dict(self) -> dict[str, Any]:
        """Plain-dict view: the fields, ``entries`` as records, ``tiers`` as lists of names,
        ``pairs`` as records."""
        groups: dict[int, list[str]] = {}
        for name, tier in zip(self.entries, self.tiers):
            groups.setdefault(tier, []).append(name)
        return {"domain": self.domain, "method": self.method, "confidence": self.confidence,
                "adjustment": "holm (tiers); bonferroni (simultaneous rank intervals)",
                "n_entries": len(self.entries), "n_tiers": self.n_tiers,
                "n_pairs": self.n_pairs, "n_distinguishable": self.n_distinguishable,
                "tiers": [groups[t] for t in sorted(groups)],
                "entries": self.to_frame().to_dict(orient="records"),
                "pairs": self.pairs.to_dict(orient="records"), "notes": list(self.notes)}


def _pair_index(k: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(k, 1)


def pairwise_z_tests(scores: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the pooled two-proportion z-test for every pair ``i < j``.

    ``z = (p_i - p_j) / sqrt(pbar (1 - pbar) (1/n_i + 1/n_j))``, ``pbar`` the pooled rate;
    the same test as :func:`noisefloor.leaderboard.gaps.gap_test` (statsmodels
    ``proportions_ztest``), vectorised. NaN when the pooled rate is 0 or 1.

    Returns
    -------
    numpy.ndarray, shape (K (K - 1) / 2,)
        In the order of ``numpy.triu_indices(K, 1)``.
    """
    i, j = _pair_index(len(scores))
    x_i, x_j = scores[i] * n[i], scores[j] * n[j]
    pooled = (x_i + x_j) / (n[i] + n[j])
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(pooled * (1 - pooled) * (1 / n[i] + 1 / n[j]))
        z = (scores[i] - scores[j]) / se
    p = 2 * stats.norm.sf(np.abs(z))
    p[~np.isfinite(z)] = np.nan
    return p


def pairwise_sign_tests(shares: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                      np.ndarray]:
    """Exact two-sided sign tests for every pair ``i < j`` of rows of ``shares``.

    Parameters
    ----------
    shares : numpy.ndarray, shape (K, T)
        Per-task success share of each entry; NaN where an entry did not run the task.

    Returns
    -------
    (wins, losses, ties, p_value) : numpy.ndarray, each shape (K (K - 1) / 2,)
        Over the tasks both ran; ``p = min(1, 2 P(Bin(w + l, 1/2) <= min(w, l)))``, as
        :func:`noisefloor.stats.sign_test` (scipy ``binomtest``) gives it; NaN without an
        untied task.
    """
    k = shares.shape[0]
    i, j = _pair_index(k)
    wins = np.empty(len(i), dtype=np.int64)
    losses = np.empty(len(i), dtype=np.int64)
    ties = np.empty(len(i), dtype=np.int64)
    known = ~np.isnan(shares)
    for a in range(k - 1):  # one row against all rows below it: K vectorised steps
        sel = slice(int(np.searchsorted(i, a)), int(np.searchsorted(i, a + 1)))
        rows = shares[a + 1:]
        both = known[a] & known[a + 1:]
        wins[sel] = ((shares[a] > rows) & both).sum(axis=1)
        losses[sel] = ((shares[a] < rows) & both).sum(axis=1)
        ties[sel] = both.sum(axis=1) - wins[sel] - losses[sel]
    return wins, losses, ties, sign_test_pvalues(wins, losses)


def tiers_from_pvalues(scores: Sequence[float], p_values: np.ndarray, *,
                       confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                          np.ndarray, np.ndarray]:
    """Tiers and simultaneous rank intervals from the pairwise p-values of entries already in
    score order (best first).

    Parameters
    ----------
    scores : sequence of float, shape (K,)
        Scores, best first.
    p_values : numpy.ndarray, shape (K (K - 1) / 2,)
        Two-sided p-values in ``numpy.triu_indices(K, 1)`` order; NaN (no evidence) counts
        as 1.
    confidence : float, default 0.95
        ``1 - alpha``.

    Returns
    -------
    (tiers, rank_low, rank_high, p_adjusted, rank_separated)

    Examples
    --------
    >>> import numpy as np
    >>> t, lo, hi, _, _ = tiers_from_pvalues([0.9, 0.89, 0.5], np.array([0.6, 1e-6, 1e-5]))
    >>> t.tolist(), lo.tolist(), hi.tolist()
    ([1, 1, 2], [1, 1, 3], [2, 2, 3])
    """
    conf = _validate.probability("confidence", confidence)
    alpha = 1 - conf
    s = np.asarray(scores, dtype=float)
    k = len(s)
    p = np.where(np.isnan(p_values), 1.0, p_values)
    m = len(p)
    p_adjusted = holm(p)
    i, j = _pair_index(k)
    beats = np.zeros((k, k), dtype=bool)  # beats[a, b]: a significantly above b (Holm)
    sep = p < alpha / m if m else np.zeros(0, dtype=bool)
    dist = p_adjusted < alpha
    upper = s[i] > s[j]
    lower = s[i] < s[j]
    beats[i[dist & upper], j[dist & upper]] = True
    beats[j[dist & lower], i[dist & lower]] = True
    tiers = np.zeros(k, dtype=int)
    tier, leader = 1, 0
    for e in range(k):
        if e > leader and beats[leader, e]:
            tier, leader = tier + 1, e
        tiers[e] = tier
    above = np.zeros((k, k), dtype=bool)  # Bonferroni at alpha / m: the rank intervals
    above[i[sep & upper], j[sep & upper]] = True
    above[j[sep & lower], i[sep & lower]] = True
    rank_low = 1 + above.sum(axis=0)
    rank_high = k - above.sum(axis=1)
    return tiers, rank_low, rank_high, p_adjusted, sep


def _assemble(names, scores, n_items, lo, hi, pvals, method, confidence, domain, notes,
              extra_cols=None) -> LeaderboardTiers:
    tiers, r_lo, r_hi, p_adjusted, sep = tiers_from_pvalues(scores, pvals, confidence=confidence)
    i, j = _pair_index(len(names))
    pairs = pd.DataFrame({"a": np.asarray(names, dtype=object)[i],
                          "b": np.asarray(names, dtype=object)[j],
                          "gap": np.asarray(scores)[i] - np.asarray(scores)[j],
                          **(extra_cols or {}), "p_value": pvals, "p_adjusted": p_adjusted,
                          "distinguishable": p_adjusted < 1 - confidence, "rank_separated": sep})
    return LeaderboardTiers(
        tuple(names), tuple(float(v) for v in scores), tuple(int(v) for v in n_items),
        tuple(float(v) for v in lo), tuple(float(v) for v in hi),
        tuple(int(v) for v in tiers), tuple(int(v) for v in r_lo), tuple(int(v) for v in r_hi),
        method, float(confidence), len(pvals), int((p_adjusted < 1 - confidence).sum()), pairs,
        domain, tuple(notes))


def tiers_from_scores(names: Sequence[str], scores: Sequence[float], n_items: Sequence[int] | int,
                      *, confidence: float = 0.95, domain: str | None = None) -> LeaderboardTiers:
    """Tiers of entries known only by their success rates and task counts (unpaired z-tests).

    Parameters
    ----------
    names : sequence of str, shape (K,)
        Entry names, unique.
    scores : sequence of float, shape (K,)
        Success rates (proportions in [0, 1]).
    n_items : int or sequence of int
        Tasks behind each rate (one number for all).
    confidence : float, default 0.95
        ``1 - alpha``, the family-wise level.
    domain : str, optional
        Recorded in the result.

    Returns
    -------
    LeaderboardTiers

    Raises
    ------
    ValueError
        Fewer than two entries, repeated names, rates outside [0, 1], counts below 1.

    Examples
    --------
    >>> r = tiers_from_scores(["a", "b", "c"], [0.90, 0.89, 0.50], 1000)
    >>> r.tiers, r.rank_low, r.rank_high
    ((1, 1, 2), (1, 1, 3), (2, 2, 3))
    """
    conf = _validate.probability("confidence", confidence)
    names = list(names)
    s = np.asarray(scores, dtype=float)
    n = np.broadcast_to(np.asarray(n_items, dtype=float), s.shape).copy()
    if len(names) < 2 or len(set(names)) != len(names) or len(names) != len(s):
        raise ValueError("tiers need at least two entries with unique names, one score each")
    if np.any(~np.isfinite(s)) or np.any((s < 0) | (s > 1)):
        raise ValueError("scores must be proportions in [0, 1] (no NaN); got "
                         f"{s[~np.isfinite(s) | (s < 0) | (s > 1)].tolist()[:5]}")
    if np.any(n < 1):
        raise ValueError(f"n_items must be >= 1; got {n[n < 1].tolist()[:5]}")
    order = np.argsort(-s, kind="stable")
    s, n = s[order], n[order]
    names = [names[o] for o in order]
    z = float(stats.norm.ppf(0.5 + conf / 2))
    centre = (s + z * z / (2 * n)) / (1 + z * z / n)  # Wilson score interval
    half = z / (1 + z * z / n) * np.sqrt(s * (1 - s) / n + z * z / (4 * n * n))
    return _assemble(names, s, n, centre - half, centre + half, pairwise_z_tests(s, n),
                     UNPAIRED, conf, domain, ())


def leaderboard_tiers(board: Leaderboard, domain: str, *, confidence: float = 0.95
                      ) -> LeaderboardTiers:
    """Tiers of one domain of a tau2-bench leaderboard from its published pass^1.

    Entries whose pass^1 is not published are left out (named in ``notes``). The sample size
    of every entry is the domain's task count (:data:`noisefloor.leaderboard.gaps.DOMAIN_TASKS`).

    Raises
    ------
    ValueError
        The domain holds fewer than two entries with a pass^1.
    """
    frame = board.to_frame(domain)
    frame = frame[frame["domain"] == domain]
    missing = frame[frame["pass_1"].isna()]["submission"].tolist()
    frame = frame[frame["pass_1"].notna()]
    if len(frame) < 2:
        raise ValueError(f"domain {domain!r} holds {len(frame)} entry(ies) with a pass^1; tiers "
                         "need two")
    result = tiers_from_scores(frame["submission"].tolist(), frame["pass_1"].tolist(),
                               DOMAIN_TASKS[domain], confidence=confidence, domain=domain)
    if missing:
        note = (f"{len(missing)} entry(ies) without a published pass^1 left out: "
                + ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else ""))
        result = _with_notes(result, (note,))
    return result


def _with_notes(result: LeaderboardTiers, notes: tuple[str, ...]) -> LeaderboardTiers:
    from dataclasses import replace
    return replace(result, notes=result.notes + notes)


def entry_label(key: Sequence[Any], columns: Sequence[str]) -> str:
    """One configuration's name: its model, protocol, benchmark and seed where they vary."""
    return " ".join(str(v) if v == v and v is not None else "none" for v in key) or "all"


def tiers_from_trials(trials: pd.DataFrame, *, by: Sequence[str] = CONFIG_COLUMNS,
                      confidence: float = 0.95) -> LeaderboardTiers:
    """Tiers of configurations from per-trial records (paired sign tests over tasks).

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records (:func:`noisefloor.logs.load_trials`): ``task_id``, ``reward`` and the
        ``by`` columns; infrastructure errors and trials without a reward are left out, as
        pass^k leaves them out by default.
    by : sequence of str, default ("benchmark", "model", "protocol", "seed")
        Columns naming an entry; those that take one value across ``trials`` are left out of
        the names.
    confidence : float, default 0.95
        ``1 - alpha``, the family-wise level.

    Returns
    -------
    LeaderboardTiers
        Scores are each entry's mean over tasks of its per-task success share (pass^1), with
        the CLT interval over tasks.

    Raises
    ------
    ValueError
        Fewer than two entries, or missing columns.
    """
    conf = _validate.probability("confidence", confidence)
    for col in ("task_id", "reward"):
        if col not in trials.columns:
            raise ValueError(f"trials must have a {col!r} column")
    keys = [c for c in by if c in trials.columns and trials[c].nunique(dropna=False) > 1]
    infra = (trials["infrastructure_error"].fillna(False).astype(bool)
             if "infrastructure_error" in trials.columns else pd.Series(False, trials.index))
    reward = trials["reward"].astype(float)
    counted = trials[~infra & reward.notna()]
    notes = []
    dropped = int(len(trials) - len(counted))
    if dropped:
        notes.append(f"{dropped} trial(s) left out: infrastructure errors or never run")
    success = is_success(counted["reward"]).astype(float)
    if keys:
        codes, uniques = pd.MultiIndex.from_frame(counted[keys].astype(object)).factorize()
        names_of = np.array([entry_label(u if isinstance(u, tuple) else (u,), keys)
                             for u in uniques], dtype=object)
        label = pd.Series(names_of[codes], index=counted.index)
    else:
        label = pd.Series("all", counted.index)
    shares = (pd.DataFrame({"entry": label.to_numpy(), "task": counted["task_id"].astype(str)
                            .to_numpy(), "s": success})
              .groupby(["entry", "task"], sort=True)["s"].mean().unstack("task"))
    if len(shares) < 2:
        raise ValueError(f"tiers need at least two entries; the trials hold {len(shares)} "
                         f"(entries are named by {', '.join(by)})")
    return tiers_from_shares([str(e) for e in shares.index], shares.to_numpy(dtype=float),
                             confidence=conf, notes=notes)


def tiers_from_shares(names: Sequence[str], matrix: np.ndarray, *, confidence: float = 0.95,
                      notes: Sequence[str] = ()) -> LeaderboardTiers:
    """Tiers of entries from their per-task success shares (paired sign tests over tasks).

    Parameters
    ----------
    names : sequence of str, shape (K,)
        Entry names.
    matrix : numpy.ndarray, shape (K, T)
        Each entry's share of successful trials on each task, NaN where it did not run it.
    confidence : float, default 0.95
        ``1 - alpha``.
    notes : sequence of str
        Carried into the result.

    Returns
    -------
    LeaderboardTiers
    """
    conf = _validate.probability("confidence", confidence)
    notes = list(notes)
    matrix = np.asarray(matrix, dtype=float)
    score = np.nanmean(matrix, axis=1)
    n_tasks = (~np.isnan(matrix)).sum(axis=1)
    order = np.argsort(-score, kind="stable")
    matrix, score, n_tasks = matrix[order], score[order], n_tasks[order]
    names = [str(names[o]) for o in order]
    z = float(stats.norm.ppf(0.5 + conf / 2))
    with np.errstate(invalid="ignore"):
        se = np.nanstd(matrix, axis=1, ddof=1) / np.sqrt(n_tasks)
    lo, hi = np.clip(score - z * se, 0, 1), np.clip(score + z * se, 0, 1)
    wins, losses, ties, p = pairwise_sign_tests(matrix)
    n_undefined = int(np.isnan(p).sum())
    if n_undefined:
        notes.append(f"{n_undefined} pair(s) without an untied shared task: no evidence either "
                     "way (p counted as 1)")
    return _assemble(names, score, n_tasks, lo, hi, p, PAIRED, conf, None, notes,
                     {"wins": wins, "losses": losses, "ties": ties})


def save_tier_plot(result: LeaderboardTiers, path: str, *, title: str | None = None) -> None:
    """Draw the entries' scores with their intervals, coloured by tier, and their simultaneous
    rank intervals beside their rank by score; write to ``path`` (``.png``, ``.svg`` or
    ``.pdf``)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    k = len(result.entries)
    height = min(max(2.5, 0.22 * k + 1.2), 30.0)  # a long board gets smaller labels
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, height), sharey=True,
                                      gridspec_kw={"width_ratios": [3, 2]})
    cmap = plt.get_cmap("tab10")
    y = np.arange(k)
    colours = [cmap((t - 1) % 10) for t in result.tiers]
    scores = np.array(result.scores) * 100
    lo, hi = np.array(result.ci_low) * 100, np.array(result.ci_high) * 100
    left.errorbar(scores, y, xerr=[scores - lo, hi - scores], fmt="none", ecolor="grey",
                  elinewidth=1, zorder=1)
    left.scatter(scores, y, c=colours, s=22, zorder=2)
    for t in sorted(set(result.tiers)):
        rows = [e for e in range(k) if result.tiers[e] == t]
        left.axhspan(min(rows) - 0.5, max(rows) + 0.5, color=cmap((t - 1) % 10), alpha=0.08)
        # the label goes on the side away from the tier's points
        high = float(np.mean(scores[rows])) > float(np.mean(left.get_xlim()))
        left.text(0.01 if high else 0.99, (min(rows) + max(rows)) / 2, f"tier {t}",
                  transform=left.get_yaxis_transform(), ha="left" if high else "right",
                  va="center", fontsize=8, color=cmap((t - 1) % 10))
    left.set_yticks(y)
    left.set_yticklabels([e if len(e) <= 42 else e[:40] + "..." for e in result.entries],
                         fontsize=8 if k <= 30 else max(3, min(7, int(1300 / k))))
    left.invert_yaxis()
    level = f"{result.confidence * 100:g}%"
    left.set_xlabel(f"score (%), {level} interval of each entry")
    r_lo, r_hi = np.array(result.rank_low), np.array(result.rank_high)
    right.hlines(y, r_lo, r_hi, colors=colours, linewidth=3)
    # end caps, so that an interval of one rank is seen too
    right.scatter(np.r_[r_lo, r_hi], np.r_[y, y], c=colours + colours, marker="|", s=60)
    right.scatter(np.arange(1, k + 1), y, c="black", s=8, zorder=3, label="rank by score")
    right.set_xlabel(f"rank, simultaneous {level} intervals")
    right.set_xlim(0.5, k + 0.5)
    right.xaxis.set_major_locator(MaxNLocator(integer=True))
    right.legend(loc="upper right", fontsize=7)
    fig.suptitle(title or (f"{k} entries in {result.n_tiers} tier(s) ({result.method}, Holm, "
                           f"{level})"), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=130 if k <= 60 else 100)
    plt.close(fig)


def tier_plot_path(plot: str, count: int, label: str) -> str:
    """Where one of ``count`` tier figures goes: ``plot`` itself for one, else
    ``<stem>-<label>.<suffix>``.

    Examples
    --------
    >>> tier_plot_path("tiers.png", 1, "retail"), tier_plot_path("tiers.png", 2, "retail")
    ('tiers.png', 'tiers-retail.png')
    """
    if count == 1:
        return plot
    stem, dot, suffix = plot.rpartition(".")
    return f"{stem}-{label}.{suffix}" if dot else f"{plot}-{label}"


def save_tier_plots(results: Sequence[LeaderboardTiers], plot: str | Path) -> tuple[str, ...]:
    """Draw each of ``results`` with :func:`save_tier_plot`: to ``plot`` for one, to
    ``<stem>-<domain>.<suffix>`` (``logs`` for trial logs) for several
    (:func:`tier_plot_path`).

    Parameters
    ----------
    results : sequence of LeaderboardTiers
        The tiers to draw, one figure each (:func:`tiers_by_domain`,
        :func:`tiers_from_trials`).
    plot : str or Path
        The figure's path (``.png``, ``.svg`` or ``.pdf``); with several results, the stem of
        each one's path.

    Returns
    -------
    tuple of str
        The paths written, in the order of ``results``.

    Raises
    ------
    OSError
        A path that cannot be written (a missing folder, no permission).
    ValueError
        A suffix matplotlib does not write.
    """
    written = []
    for result in results:
        path = tier_plot_path(str(plot), len(results), result.domain or "logs")
        save_tier_plot(result, path)
        written.append(path)
    return tuple(written)


def tiers_by_domain(board: Leaderboard, domain: str | None = None, *,
                    confidence: float = 0.95) -> tuple[LeaderboardTiers, ...]:
    """:func:`leaderboard_tiers` of every domain (or of ``domain``) that holds at least two
    entries with a published pass^1, in :data:`DOMAIN_TASKS` order.

    Parameters
    ----------
    board : Leaderboard
        The leaderboard (:func:`~noisefloor.leaderboard.read_leaderboard`).
    domain : str, optional
        One domain of :data:`DOMAIN_TASKS`; default: every domain of ``board``.
    confidence : float, default 0.95
        Level of each entry's interval and of the simultaneous rank intervals.

    Returns
    -------
    tuple of LeaderboardTiers
        One per domain with at least two such entries (empty when none has).

    Raises
    ------
    ParameterError
        A ``domain`` not of :data:`DOMAIN_TASKS`, a ``confidence`` not strictly between 0
        and 1.

    Examples
    --------
    >>> from noisefloor.leaderboard import read_leaderboard
    >>> board = read_leaderboard("fixtures/leaderboard/three_entries.json")
    >>> [(t.domain, t.n_tiers) for t in tiers_by_domain(board)]
    [('airline', 1)]
    """
    domains = [domain] if domain else board.domains()
    return tuple(leaderboard_tiers(board, d, confidence=confidence) for d in domains
                 if int(board.to_frame(d)["pass_1"].notna().sum()) >= 2)
