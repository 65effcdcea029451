"""The noise floor: how far apart two runs that cannot differ land.

A null contrast compares two arms that cannot differ by construction: trial 0 across
protocols (every store is empty, every reader a no-op) or a re-run of one configuration
against itself. A *clean* null contrast also has byte-identical first requests. From the
per-seed W/L/T of the null contrasts, :func:`noise_floor` pools each contrast over seeds by
summing counts and reports

- the **floor**: the pooled upper 95% bound of the clean contrast(s),
- the **envelope**: the largest pooled upper bound over all null contrasts,
- the spread of the null gaps and the number of informative (untied) pairs.

Source: Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired
Noise-Floor Protocol for Multi-Agent LLM Benchmarks" (``shared/seeds/001_*.txt``).
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from noisefloor.stats.contrasts import paired_contrast
from noisefloor.stats.multiplicity import adjust_pvalues
from noisefloor.stats.paired import sign_test
from noisefloor.stats.null_gaps import null_gap_spread, spread_signs
from noisefloor.stats.pooling import gap_variance, pool_random_effects

#: Columns of a null-contrast count table (input of :func:`noise_floor`).
NULL_COLUMNS = ("contrast", "kind", "clean", "seed", "wins", "losses", "ties")

POOLED = "pooled"

#: A floor whose contrast has fewer untied (informative) pairs than this gets a caution. With k
#: untied pairs the exact two-sided sign test can reach at best p = 2 * 0.5**k: 0.0625 for k = 5,
#: 0.031 for k = 6, so below 6 pairs not even a clean sweep of one arm over the other could be
#: told from noise, and the Wilson-mapped bound is set by the pair count rather than by the data.
MIN_INFORMATIVE_PAIRS = 6


def excursion_bound(ci_low: float, ci_high: float) -> float:
    """Upper bound of the gap's interval in the direction of its larger excursion.

    ``max(ci_high, -ci_low)``: for a null contrast the sign of ``a-b`` is arbitrary, so the
    floor must not depend on which arm is written first. On the noise-floor paper's
    contrasts, written in the paper's orientation, this equals the upper CI.

    Examples
    --------
    >>> excursion_bound(-0.0244, 0.1182), excursion_bound(-0.2, 0.05)
    (0.1182, 0.2)
    """
    if math.isnan(ci_low) or math.isnan(ci_high):
        return math.nan
    return max(ci_high, -ci_low)


@dataclass(frozen=True)
class NoiseFloor:
    """Result of :func:`noise_floor`.

    Attributes
    ----------
    floor : float
        Pooled upper bound (proportion) of the clean null contrast; the largest one if several
        are clean. When no contrast is certified clean, the bound over all null contrasts
        (then ``basis == "null"`` and ``reason`` says so). NaN without informative pairs.
    floor_contrast : str
        The contrast that sets the floor.
    envelope : float
        Largest pooled upper bound over all null contrasts (proportion).
    envelope_contrast : str
        The contrast that sets the envelope.
    basis : str
        ``"clean"`` or ``"null"`` (no clean contrast available).
    null_gap_sd : float
        Root mean square of the per-seed null gaps about zero, ``sqrt(mean g^2)``: the
        run-to-run sigma of one gap between two arms that cannot differ (used by the
        monitors). NaN with fewer than two gaps. See
        :func:`noisefloor.stats.null_gaps.null_gap_spread`.
    null_gap_min, null_gap_max : float
        Smallest and largest per-seed null gap, each null contrast oriented so that its gap
        pooled over seeds is >= 0 (a null contrast has no meaningful sign): ``min < 0`` says a
        contrast changed sign from seed to seed (the paper's +18 pp, then -3 pp). All three
        are unchanged when a pair is written the other way round or a protocol is renamed;
        see :func:`noisefloor.stats.null_gaps.null_gap_spread`.
    n_informative : int
        Untied pairs summed over every per-seed null contrast.
    n_seeds : int
        Number of distinct seeds.
    per_seed_floor : dict
        Seed -> bound of the clean contrast(s) at that seed.
    confidence : float
        Interval level (default 0.95).
    reason : str
        Caveats (no clean contrast, undefined values); empty otherwise.
    table : pandas.DataFrame
        One row per (contrast, seed) and per pooled contrast (``seed == "pooled"``); see
        :meth:`to_frame`.
    n_informative_floor : int
        Untied pairs of the contrast that sets the floor, pooled over seeds.
    caution : str
        Why the floor is weakly supported, empty otherwise: its contrast has fewer than
        :data:`MIN_INFORMATIVE_PAIRS` untied pairs, or the whole floor rests on a single
        per-seed null contrast (no replicate shows how far it moves). Verdicts against such a
        floor are provisional.
    """

    floor: float
    floor_contrast: str
    envelope: float
    envelope_contrast: str
    basis: str
    null_gap_sd: float
    null_gap_min: float
    null_gap_max: float
    n_informative: int
    n_seeds: int
    per_seed_floor: dict
    confidence: float
    reason: str
    table: pd.DataFrame = field(repr=False, compare=False)
    n_informative_floor: int = 0
    caution: str = ""

    def to_frame(self) -> pd.DataFrame:
        """Per-seed and pooled null contrasts.

        Columns: ``contrast, kind, clean, seed, wins, losses, ties, n, gap, p_value,
        p_bonferroni, ci_low, ci_high, bound, tau, reason``. ``p_bonferroni`` corrects over the
        null contrasts of the same seed (or of the pooled family); ``bound`` is
        :func:`excursion_bound`; ``tau`` (pooled rows only) is the DerSimonian-Laird
        between-seed standard deviation of the gap, NaN with ``tau undefined: ...`` in
        ``reason`` when fewer than two seeds have paired tasks or a seed's gap has zero
        sampling variance (all ties, or all one outcome).
        """
        return self.table.copy()

    def per_seed(self) -> pd.DataFrame:
        """The floor's summary at each seed separately (the paper's per-seed reading).

        Returns
        -------
        pandas.DataFrame
            One row per seed, in seed order: ``seed``, ``floor`` (bound of the clean
            contrast(s) at that seed, the largest if several; with ``basis == "null"`` the
            largest bound of any null contrast, as for the floor itself; NaN when undefined),
            ``envelope`` (largest bound over the seed's null contrasts), ``null_gap_min``,
            ``null_gap_max`` (proportions) and ``n_informative`` (untied pairs at that seed).

        Examples
        --------
        >>> from noisefloor.floor import noise_floor, null_contrasts_from_counts
        >>> from noisefloor.published import read_paired_counts
        >>> nf = noise_floor(null_contrasts_from_counts(read_paired_counts()))
        >>> nf.per_seed().round(3).to_dict(orient="records")[0]
        {'seed': 1, 'floor': 0.189, 'envelope': 0.261, 'null_gap_min': 0.08, 'null_gap_max': 0.18, 'n_informative': 96}
        """
        cols = ["seed", "floor", "envelope", "null_gap_min", "null_gap_max", "n_informative"]
        t = self.table[self.table["seed"].astype(str) != "pooled"]
        rows = []
        signs = spread_signs(t)
        for seed, g in t.groupby(t["seed"].astype(object), sort=True):
            gaps = g["gap"] * g["contrast"].astype(str).map(signs)
            basis = g[g["clean"].astype(bool)]["bound"] if self.basis == "clean" else g["bound"]
            rows.append({
                "seed": seed,
                "floor": float(basis.max()) if basis.notna().any() else math.nan,
                "envelope": float(g["bound"].max()) if g["bound"].notna().any() else math.nan,
                "null_gap_min": float(gaps.min()) if gaps.notna().any() else math.nan,
                "null_gap_max": float(gaps.max()) if gaps.notna().any() else math.nan,
                "n_informative": int((g["wins"] + g["losses"]).sum()),
            })
        return pd.DataFrame(rows, columns=cols)

    def to_dict(self) -> dict:
        """Plain-dict view (JSON-ready) with the table as a list of records."""
        return {
            "floor": self.floor,
            "floor_contrast": self.floor_contrast,
            "envelope": self.envelope,
            "envelope_contrast": self.envelope_contrast,
            "basis": self.basis,
            "null_gap_sd": self.null_gap_sd,
            "null_gap_min": self.null_gap_min,
            "null_gap_max": self.null_gap_max,
            "n_informative": self.n_informative,
            "n_seeds": self.n_seeds,
            "per_seed_floor": {str(k): v for k, v in self.per_seed_floor.items()},
            "confidence": self.confidence,
            "reason": self.reason,
            "n_informative_floor": self.n_informative_floor,
            "caution": self.caution,
            "per_seed": self.per_seed().to_dict(orient="records"),
            "contrasts": self.table.to_dict(orient="records"),
        }


def _stat_rows(frame: pd.DataFrame, confidence: float) -> list[dict]:
    rows = []
    for rec in frame.to_dict(orient="records"):
        t = sign_test(rec["wins"], rec["losses"], rec["ties"], confidence=confidence)
        rows.append({**rec, "n": t.n, "gap": t.gap, "p_value": t.p_value, "ci_low": t.ci_low,
                     "ci_high": t.ci_high, "bound": excursion_bound(t.ci_low, t.ci_high),
                     "reason": t.reason})
    return rows


def _bonferroni(rows: list[dict], family_key) -> None:
    families: dict = {}
    for i, r in enumerate(rows):
        families.setdefault(family_key(r), []).append(i)
    for idx in families.values():
        adj = adjust_pvalues([rows[i]["p_value"] for i in idx], method="bonferroni")
        for i, p in zip(idx, adj.p_adjusted):
            rows[i]["p_bonferroni"] = p


def noise_floor(null_contrasts: pd.DataFrame, *, confidence: float = 0.95) -> NoiseFloor:
    """The noise floor and envelope from per-seed counts of null contrasts.

    Parameters
    ----------
    null_contrasts : pandas.DataFrame, shape (n_rows, >= 6)
        One row per (contrast, seed) with columns ``contrast`` (label ``"a-b"``), ``clean``
        (bool), ``seed``, ``wins``, ``losses``, ``ties`` (non-negative ints) and optionally
        ``kind`` (``"trial0"`` or ``"aa"``). Build it with :func:`null_contrasts_from_counts`
        or :func:`null_contrasts_from_trials`.
    confidence : float, default 0.95
        Interval level.

    Returns
    -------
    NoiseFloor
        Floor, envelope, spread of null gaps, informative pairs, and the full table.

    Raises
    ------
    ValueError
        If the table is empty, a column is missing, a count is negative or not an integer, or
        a (contrast, seed) pair appears twice.

    Notes
    -----
    Each contrast is pooled over seeds by summing W/L/T (the paper's method) and its
    Wilson-mapped interval computed (:func:`~noisefloor.stats.paired.sign_test`). A
    contrast's bound is :func:`excursion_bound` of that interval. floor = max bound over
    clean contrasts, envelope = max bound over all null contrasts. The random-effects tau
    of each contrast (DerSimonian-Laird over per-seed gaps) is reported beside it.

    References
    ----------
    Kaliyev & Maryanskyy (2026), section "The noise floor": the clean-contrast pooled upper CI
    is about 12 pp and the largest pooled upper CI about 15 pp.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"contrast": ["no_coord-intercept"] * 2 + ["pull-intercept"] * 2,
    ...                   "clean": [True, True, False, False], "seed": [1, 2, 1, 2],
    ...                   "wins": [21, 13, 27, 18], "losses": [11, 13, 9, 21],
    ...                   "ties": [68, 74, 64, 61]})
    >>> f = noise_floor(t)
    >>> round(f.floor, 3), round(f.envelope, 3), f.envelope_contrast
    (0.118, 0.153, 'pull-intercept')
    """
    if not isinstance(null_contrasts, pd.DataFrame):
        raise TypeError(f"null_contrasts must be a DataFrame, got {type(null_contrasts).__name__}")
    required = ("contrast", "clean", "seed", "wins", "losses", "ties")
    missing = [c for c in required if c not in null_contrasts.columns]
    if missing:
        raise ValueError(f"null_contrasts lacks column(s) {missing}; expected {list(required)}")
    if null_contrasts.empty:
        raise ValueError("null_contrasts is empty: a noise floor needs at least one null contrast")
    frame = null_contrasts.copy()
    if "kind" not in frame.columns:
        frame["kind"] = "null"
    frame["seed"] = frame["seed"].astype(object).where(frame["seed"].notna(), "none")
    frame["seed"] = frame["seed"].map(lambda s: int(s) if isinstance(s, (float, np.floating))
                                      and float(s).is_integer() else s)
    dup = frame.duplicated(["contrast", "seed"], keep=False)
    if dup.any():
        r = frame[dup].iloc[0]
        raise ValueError(f"contrast {r['contrast']!r} appears more than once for seed {r['seed']!r}")
    for col in ("wins", "losses", "ties"):
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna() | (values < 0) | (values % 1 != 0)
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"null_contrasts row {i}: {col} must be a non-negative integer, got "
                             f"{frame[col].iloc[i]!r}")
        frame[col] = values.astype(int)
    frame["clean"] = frame["clean"].astype(bool)
    frame = frame[["contrast", "kind", "clean", "seed", "wins", "losses", "ties"]]

    per_seed = _stat_rows(frame, confidence)
    _bonferroni(per_seed, lambda r: r["seed"])
    for r in per_seed:
        r["tau"] = math.nan

    pooled_counts = (frame.groupby("contrast", sort=False)
                     .agg(kind=("kind", "first"), clean=("clean", "all"), wins=("wins", "sum"),
                          losses=("losses", "sum"), ties=("ties", "sum"))
                     .reset_index())
    pooled_counts.insert(3, "seed", POOLED)
    pooled = _stat_rows(pooled_counts, confidence)
    _bonferroni(pooled, lambda r: POOLED)
    for r in pooled:
        seeds = frame[frame["contrast"] == r["contrast"]]
        gaps = [(w - lo) / (w + lo + t) for w, lo, t in zip(seeds.wins, seeds.losses, seeds.ties)
                if w + lo + t]
        variances = [gap_variance(w, lo, t) for w, lo, t in
                     zip(seeds.wins, seeds.losses, seeds.ties) if w + lo + t]
        pool = pool_random_effects(gaps, variances)  # NaN with a reason (< 2 seeds, zero variance)
        r["tau"] = pool.tau
        if pool.reason:
            r["reason"] = "; ".join(x for x in (r["reason"], f"tau undefined: {pool.reason}") if x)

    columns = ["contrast", "kind", "clean", "seed", "wins", "losses", "ties", "n", "gap",
               "p_value", "p_bonferroni", "ci_low", "ci_high", "bound", "tau", "reason"]
    table = pd.DataFrame(per_seed + pooled, columns=columns)

    reasons = []
    pooled_df = table[table["seed"] == POOLED]
    clean_df = pooled_df[pooled_df["clean"]]
    basis = "clean"
    if clean_df.empty:
        basis = "null"
        clean_df = pooled_df
        reasons.append("no null contrast is certified clean (identical first requests); the floor "
                       "is taken over all null contrasts and equals the envelope")
    floor, floor_contrast = _max_bound(clean_df)
    envelope, envelope_contrast = _max_bound(pooled_df)
    if math.isnan(floor):
        reasons.append("no informative (untied) pair in the floor's contrasts: the floor is undefined")

    seed_rows = table[table["seed"] != POOLED]
    gap_sd, gap_min, gap_max = null_gap_spread(seed_rows)
    floor_rows = pooled_df[pooled_df["contrast"] == floor_contrast]
    n_floor = int((floor_rows["wins"] + floor_rows["losses"]).sum()) if floor_contrast else 0
    cautions = []
    if not math.isnan(floor) and n_floor < MIN_INFORMATIVE_PAIRS:
        cautions.append(
            f"the floor rests on {n_floor} informative (untied) pair{'' if n_floor == 1 else 's'}, "
            f"fewer than {MIN_INFORMATIVE_PAIRS}: with so few the sign test cannot reach p < 0.05 "
            "and the bound reflects the pair count more than the run-to-run noise")
    basis_rows = seed_rows[seed_rows["clean"]] if basis == "clean" else seed_rows
    if not math.isnan(floor) and len(basis_rows) == 1:
        cautions.append("the floor rests on a single null contrast at a single seed"
                        + (" (the only clean one)" if basis == "clean" and len(seed_rows) > 1
                           else "")
                        + ": no replicate shows how far it moves (the noise-floor paper's +18 pp "
                        "gap was -3 pp at the next seed)")
    per_seed_floor = {}
    for seed, rows in seed_rows.groupby("seed", sort=True):
        chosen = rows[rows["clean"]] if basis == "clean" else rows
        per_seed_floor[seed] = _max_bound(chosen)[0]
    return NoiseFloor(
        floor=floor, floor_contrast=floor_contrast, envelope=envelope,
        envelope_contrast=envelope_contrast, basis=basis,
        null_gap_sd=gap_sd, null_gap_min=gap_min, null_gap_max=gap_max,
        n_informative=int((seed_rows["wins"] + seed_rows["losses"]).sum()),
        n_seeds=int(seed_rows["seed"].nunique()), per_seed_floor=per_seed_floor,
        confidence=confidence, reason="; ".join(reasons), table=table,
        n_informative_floor=n_floor,
        caution=("; ".join(cautions) + "; verdicts against it are provisional") if cautions else "",
    )


def _max_bound(rows: pd.DataFrame) -> tuple[float, str]:
    defined = rows[rows["bound"].notna()]
    if defined.empty:
        return math.nan, ""
    best = defined.loc[defined["bound"].idxmax()]
    return float(best["bound"]), str(best["contrast"])


#: The contrast the noise-floor paper certifies clean (byte-identical first requests at trial 0).
DEFAULT_CLEAN = ("no_coord-intercept",)


def _splits(label: str) -> list[tuple[str, str]]:
    """Every way to read ``label`` as ``a-b`` with both sides non-empty (names may hold '-')."""
    return [(label[:i], label[i + 1:]) for i, ch in enumerate(label)
            if ch == "-" and 0 < i < len(label) - 1]


def _reversals(label: str) -> set[str]:
    """``b-a`` for every reading ``a-b`` of ``label``."""
    return {f"{b}-{a}" for a, b in _splits(label)}


def split_protocol_pair(label: str, protocols, *, what: str = "clean pair") -> tuple[str, str]:
    """Split ``"a-b"`` into two protocol names, where the names themselves may contain '-'.

    Of every split at a '-', the one whose two sides are both among ``protocols`` is taken.

    Parameters
    ----------
    label : str
        The pair as written, e.g. ``"no-coord-intercept"``.
    protocols : iterable of str
        The protocol names present (in the log).
    what : str, default "clean pair"
        What the label is, for the error message (e.g. ``"contrast"``).

    Returns
    -------
    (str, str)
        The two protocols, in the order written.

    Raises
    ------
    ValueError
        If no split, or more than one, gives two of ``protocols``; the message lists the
        protocols and every split that fits.

    Examples
    --------
    >>> split_protocol_pair("no-coord-intercept", ["no-coord", "intercept", "pull"])
    ('no-coord', 'intercept')
    >>> split_protocol_pair("a-b-c", ["a", "b-c", "a-b", "c"])
    Traceback (most recent call last):
    ...
    ValueError: clean pair 'a-b-c' is ambiguous: it reads as 'a' vs 'b-c' and as 'a-b' vs 'c', all protocols of the log (a, a-b, b-c, c); the pair cannot be told apart as written
    """
    names = sorted(set(map(str, protocols)))
    listed = ", ".join(names) or "none"
    fits = [(a, b) for a, b in _splits(label) if a in names and b in names]
    if len(fits) == 1:
        return fits[0]
    if not fits:
        raise ValueError(
            f"{what} must name two protocols as 'a-b' (e.g. 'no_coord-intercept'), both "
            f"present in the log; {label!r} splits into no two of them. Protocols in the log: "
            f"{listed}")
    readings = " and as ".join(f"{a!r} vs {b!r}" for a, b in fits)
    raise ValueError(
        f"{what} {label!r} is ambiguous: it reads as {readings}, all protocols of the log "
        f"({listed}); the pair cannot be told apart as written")


def null_contrasts_from_counts(
    counts: pd.DataFrame, *, clean: tuple[str, ...] | None = None
) -> pd.DataFrame:
    """Select the null contrasts of a published paired-count table.

    Parameters
    ----------
    counts : pandas.DataFrame
        A table like the noise-floor paper's (columns ``seed, trial, subset, contrast, wins,
        losses, ties``); rows at ``trial == 0`` (and ``subset == "all"`` when that column
        exists) are null contrasts.
    clean : tuple of str, optional
        Contrast labels whose first requests are byte-identical; either orientation matches,
        and a label written the other way round from the table turns the row to the order
        given (``a-b`` is a minus b: wins and losses swap). Each label given must be one of
        the table's null contrasts. Protocol names may contain '-': a label not in the table
        as written is matched against the table's labels by every split ``a-b`` -> ``b-a``;
        a label that matches two of them is an error. By default
        ``"no_coord-intercept"`` is clean when the table holds it (the noise-floor paper's
        clean contrast); otherwise none is.

    Returns
    -------
    pandas.DataFrame
        Columns ``contrast, kind, clean, seed, wins, losses, ties`` (kind ``"trial0"``) and
        ``reoriented`` (True where a clean label the user wrote reverses the table's order).

    Raises
    ------
    ValueError
        If no row is a null contrast, a ``clean`` label names none of them, a count lies
        outside [0, 2**63), or one pair of arms is given both ways (``a-b`` and ``b-a`` at the
        same seed, trial and subset, on any row). The message names ``file:line`` when ``counts.attrs["source"]`` and a
        ``line`` column are present.
    """
    _check_counts_fit(counts)  # every row: the audit tests the other contrasts too
    _check_no_reversed_twins(counts)  # every row too: a trial-1 pair given both ways double counts
    mask = counts["trial"].map(lambda t: int(t) == 0).astype(bool)  # Python ints: no overflow
    if "subset" in counts.columns:
        mask &= counts["subset"].astype(str) == "all"
    rows = counts[mask]
    rows.attrs = dict(counts.attrs)
    if rows.empty:
        raise ValueError("the count table holds no trial-0 contrast over all tasks: no null "
                         "contrast to build a floor from")
    present = set(rows["contrast"].astype(str))
    if clean is None:
        clean = tuple(c for c in DEFAULT_CLEAN if c in present or _reversals(c) & present)
    # table label -> the clean label as the user wrote it; a label written the other way round
    # from the table is found by the split whose reversal is a table contrast (protocol names
    # may contain '-', so every split is tried)
    orient: dict[str, str] = {}
    listed = ", ".join(sorted(present))
    for label in clean:
        reversed_in_table = sorted(_reversals(label) & present - {label})
        if len(reversed_in_table) > 1:
            raise ValueError(
                f"clean contrast {label!r} is ambiguous: read the other way round it could be "
                f"{' or '.join(map(repr, reversed_in_table))} of the table (protocol names "
                f"containing '-'); null (trial-0) contrasts of the table: {listed}")
        if label not in present and not reversed_in_table:
            raise ValueError(f"clean contrast {label!r} is not among the null (trial-0) contrasts "
                             f"of the table: {listed}")
        for table_label in [label, *reversed_in_table]:
            if table_label in present:
                orient.setdefault(table_label, label)
    labels = rows["contrast"].astype(str).to_numpy()
    wins = rows["wins"].astype(int).to_numpy()
    losses = rows["losses"].astype(int).to_numpy()
    # a clean label the user wrote the other way round from the table: orient the row as the
    # user wrote it (a-b = a minus b: wins and losses swap)
    flip = np.array([orient.get(lab, lab) != lab for lab in labels], dtype=bool)
    out = pd.DataFrame({
        "contrast": [orient.get(lab, lab) for lab in labels],
        "kind": "trial0",
        "clean": np.array([lab in orient for lab in labels], dtype=bool),
        "seed": rows["seed"].to_numpy(),
        "wins": np.where(flip, losses, wins),
        "losses": np.where(flip, wins, losses),
        "ties": rows["ties"].astype(int).to_numpy(),
        "reoriented": flip,
    })
    return out


def _where(rows: pd.DataFrame, i: int) -> str:
    """``file:line`` (``attrs["source"]`` and the ``line`` column that
    :func:`~noisefloor.published.read_paired_counts` records), else ``count table row i``."""
    source = rows.attrs.get("source")
    if "line" in rows.columns:
        line = int(rows["line"].iloc[i])
        return f"{source}:{line}" if source else f"count table line {line}"
    return f"{source}: row {i}" if source else f"count table row {i}"


def _check_counts_fit(rows: pd.DataFrame) -> None:
    # A count beyond the 64-bit range would overflow when converted (an OverflowError, not a
    # message); no benchmark has 2**63 tasks, so such a count is a typo.
    for col in ("wins", "losses", "ties"):
        for i, v in enumerate(rows[col].tolist()):
            if isinstance(v, (int, np.integer)) and not 0 <= int(v) < 2**63:
                raise ValueError(f"{_where(rows, i)}: field {col!r}: expected an "
                                 f"integer in [0, 2**63), got {v}")


def _check_no_reversed_twins(rows: pd.DataFrame) -> None:
    # "a-b" and "b-a" at the same seed are the same paired tasks counted twice (once from each
    # side); keeping both would double the evidence and the Bonferroni family.
    keys = [c for c in ("model", "benchmark", "seed", "trial", "subset") if c in rows.columns]
    first: dict = {}
    labels = rows["contrast"].astype(str).tolist()
    key_values = [tuple(r) for r in rows[keys].astype(str).itertuples(index=False)]
    for i, (label, key) in enumerate(zip(labels, key_values)):
        first.setdefault((key, label), i)
        twins = [first[(key, r)] for r in sorted(_reversals(label)) if (key, r) in first]
        twin = next((t for t in twins if t != i), None)
        if twin is not None:
            raise ValueError(
                f"{_where(rows, i)}: field 'contrast': {label!r} is {labels[twin]!r} "
                f"({_where(rows, twin)}) written the other way round for the same seed, trial "
                "and subset; give "
                "each pair of arms once (wins and losses swap with the order)")


def _first_requests_match(trials: pd.DataFrame, a_rows: pd.DataFrame, b_rows: pd.DataFrame) -> bool:
    if "first_request_sha256" not in trials.columns:
        return False
    ha = a_rows.set_index(a_rows["task_id"].astype(str))["first_request_sha256"]
    hb = b_rows.set_index(b_rows["task_id"].astype(str))["first_request_sha256"]
    common = ha.index.intersection(hb.index)
    if len(common) == 0:
        return False
    ha, hb = ha.loc[common], hb.loc[common]
    if ha.isna().any() or hb.isna().any():
        return False
    return bool((ha.astype(str) == hb.astype(str)).all())


def _reader_inactive(rows: pd.DataFrame) -> str:
    """Why the coordination reader changed nothing the agent saw in these trial records, or
    ``""`` when it may have: the store was empty at the start of every task
    (``store_events_at_start`` absent or 0), or ``injections`` is logged and 0 on every task
    (no_coord's store is written but never read, so its re-runs are A/A pairs whatever the
    store holds)."""
    if "store_events_at_start" not in rows.columns:
        return "no store logged"
    if bool((rows["store_events_at_start"].fillna(0).astype(int) == 0).all()):
        return "empty store"
    if "injections" in rows.columns:
        inj = rows["injections"]
        if bool(inj.notna().all()) and bool((inj.astype(int) == 0).all()):
            return "no injection"
    return ""


def null_contrasts_from_trials(
    trials: pd.DataFrame,
    *,
    clean_pairs=(),
    trial0: bool = True,
    reruns: bool = True,
    infrastructure_errors: str = "exclude",
) -> pd.DataFrame:
    """Null contrasts from per-trial logs.

    Parameters
    ----------
    trials : pandas.DataFrame
        Output of :func:`noisefloor.logs.load_trials` (or any frame with ``protocol, task_id,
        trial, reward`` and optionally ``benchmark, model, seed, infrastructure_error,
        store_events_at_start, first_request_sha256``).
    clean_pairs : iterable of str or (str, str)
        Protocol pairs the user certifies clean (``"no_coord-intercept"`` or a tuple), in
        addition to those whose ``first_request_sha256`` match on every paired task. Each pair
        given must be a trial-0 contrast of the log, and its contrast is oriented as written
        (``"no_coord-intercept"``: wins are tasks where no_coord succeeded and intercept
        failed); other trial-0 contrasts are written in sorted protocol order. Protocol names
        may contain '-': a string is split where both sides are protocols of the log (see
        :func:`split_protocol_pair`); when no split, or more than one, fits, it is an error
        listing the protocols (a tuple is never ambiguous).
    trial0 : bool, default True
        Include trial 0 across every pair of protocols (the stores are empty at trial 0).
    reruns : bool, default True
        Include re-runs of one configuration against itself: trial i vs trial j (i < j) of one
        protocol, when its reader changed nothing at both trials: the store was empty
        (``store_events_at_start`` absent or 0 on every task) or nothing was injected
        (``injections`` logged and 0 on every task, as for no_coord, whose store is written but
        never read). Any other pair may differ by coordination, is not a null contrast and is
        skipped; skipped pairs are listed in ``attrs["skipped_reruns"]`` of the result.
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Passed to :func:`~noisefloor.stats.contrasts.paired_contrast`.

    Returns
    -------
    pandas.DataFrame
        Columns ``contrast, kind, clean, seed, wins, losses, ties, n_only_a, n_only_b,
        n_excluded, reoriented``; the label is prefixed by ``benchmark/model:`` when the log
        holds more than one of them. Tasks present in one arm only are counted in ``n_only_*``;
        ``reoriented`` is True where a user-named clean pair reverses the sorted order.

    Raises
    ------
    ValueError
        If no null contrast can be formed (one protocol with one trial, say), or a clean pair
        does not split into two protocols of the log (or splits more than one way), or is not
        a trial-0 contrast of the log.
    """
    named = []  # as the user wrote them, in order (error messages must be reproducible)
    log_protocols = set(map(str, trials["protocol"].dropna().unique())) if clean_pairs else set()
    for p in clean_pairs:
        if isinstance(p, str):
            parts = split_protocol_pair(p, log_protocols)
        else:
            parts = tuple(p)
        if len(parts) != 2 or not all(isinstance(x, str) and x for x in parts):
            raise ValueError(f"clean pair must name two protocols as 'a-b' (e.g. "
                             f"'no_coord-intercept'), got {p!r}")
        named.append((parts[0], parts[1]))
    pairs = set(named) | {(b, a) for a, b in named}
    group_cols = [c for c in ("benchmark", "model") if c in trials.columns]
    frame = trials.copy()
    if "seed" not in frame.columns:
        frame["seed"] = pd.NA
    rows = []
    skipped: list[dict] = []
    groups = list(frame.groupby(group_cols, sort=True, dropna=False)) if group_cols else [((), frame)]
    multi = len(groups) > 1
    for gkey, g in groups:
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        prefix = ("/".join(map(str, gkey)) + ":") if multi else ""
        for seed, s in g.groupby(g["seed"].astype(object).where(g["seed"].notna(), "none"),
                                 sort=True):
            protocols = sorted(map(str, s["protocol"].unique()))
            if trial0:
                for a, b in itertools.combinations(protocols, 2):
                    swapped = (b, a) in named and (a, b) not in named
                    if swapped:
                        a, b = b, a  # a pair the user named keeps the user's order: a-b = a minus b
                    ra = s[(s["protocol"].astype(str) == a) & (s["trial"] == 0)]
                    rb = s[(s["protocol"].astype(str) == b) & (s["trial"] == 0)]
                    if ra.empty or rb.empty:
                        continue
                    c = paired_contrast(s, a, b, trial=0, infrastructure_errors=infrastructure_errors)
                    clean = (a, b) in pairs or _first_requests_match(s, ra, rb)
                    rows.append(_row(prefix + c.label, "trial0", clean, seed, c, swapped))
            if reruns:
                for p in protocols:
                    sp = s[s["protocol"].astype(str) == p]
                    for i, j in itertools.combinations(sorted(sp["trial"].unique()), 2):
                        ri, rj = sp[sp["trial"] == i], sp[sp["trial"] == j]
                        if not (_reader_inactive(ri) and _reader_inactive(rj)):
                            skipped.append({
                                "contrast": f"{prefix}{p}[t{int(i)}]-{p}[t{int(j)}]",
                                "seed": seed,
                                "reason": "the store held peer events and the reader injected "
                                          "them (or injections are not logged), so the re-runs "
                                          "may differ by coordination: not a null contrast",
                            })
                            continue
                        c = paired_contrast(s, p, p, trial=int(i), trial_b=int(j),
                                            infrastructure_errors=infrastructure_errors)
                        clean = _first_requests_match(s, ri, rj)
                        rows.append(_row(prefix + c.label, "aa", clean, seed, c))
    if not rows:
        if not (trial0 or reruns):
            raise ValueError("no null contrast can be formed: both kinds are switched off "
                             "(trial0=False and reruns=False)")
        needs = [what for on, what in ((trial0, "trial 0 of two protocols"),
                                       (reruns, "two trials of one configuration whose reader "
                                                "injected nothing (empty store, or injections 0)"))
                 if on]
        why = (f" ({len(skipped)} re-run pair(s) skipped: the reader injected peer events)"
               if skipped else "")
        raise ValueError("no null contrast can be formed: the log needs " + ", or ".join(needs)
                         + why)
    formed = {(r["a"], r["b"]) for r in rows if r["kind"] == "trial0"}
    for a, b in named:
        if (a, b) not in formed and (b, a) not in formed:
            raise ValueError(f"clean pair {a}-{b} is not a trial-0 contrast of the log; protocol "
                             "pairs at trial 0: " + (", ".join(f"{x}-{y}" for x, y in sorted(formed))
                                                     or "none"))
    for r in rows:
        del r["a"], r["b"]
    out = pd.DataFrame(rows)
    out.attrs["skipped_reruns"] = skipped
    n_only = int(out["n_only_a"].sum() + out["n_only_b"].sum())
    if n_only:
        warnings.warn(f"{n_only} task(s) present in one arm only were left unpaired "
                      "(counted in n_only_a / n_only_b)", stacklevel=2)
    return out


def _row(label: str, kind: str, clean: bool, seed, c, reoriented: bool = False) -> dict:
    return {"a": c.a, "b": c.b, "contrast": label, "kind": kind, "clean": bool(clean), "seed": seed,
            "wins": c.wins,
            "losses": c.losses, "ties": c.ties, "n_only_a": len(c.tasks_only_a),
            "n_only_b": len(c.tasks_only_b), "n_excluded": len(c.tasks_excluded),
            "reoriented": bool(reoriented)}


def noise_floor_from_trials(trials: pd.DataFrame, *, clean_pairs=(), confidence: float = 0.95,
                            **kwargs) -> NoiseFloor:
    """Convenience: :func:`null_contrasts_from_trials` then :func:`noise_floor`."""
    null = null_contrasts_from_trials(trials, clean_pairs=clean_pairs, **kwargs)
    return noise_floor(null, confidence=confidence)
