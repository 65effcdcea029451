"""The noise floor: how far apart two runs that cannot differ land.

A null contrast compares two arms that cannot differ, and something certifies it
(:mod:`noisefloor.floor.nulls`: trial 0 across protocols when every paired record shows an empty
store at its start, or identical first requests, or the user declares the pair; a re-run of one
configuration when its reader cannot have acted; a published count table's trial-0 rows by the
table's own declaration, :mod:`noisefloor.floor.count_table`). A *clean* null contrast also has
byte-identical first requests. From the per-seed W/L/T of the null contrasts,
:func:`noise_floor` pools each contrast over seeds by summing counts and reports

- the **floor**: the pooled upper 95% bound of the clean contrast(s),
- the **envelope**: the largest pooled upper bound over all null contrasts,
- the spread of the null gaps and the number of informative (untied) pairs.

Reference: Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired
Noise-Floor Protocol for Multi-Agent LLM Benchmarks", section "The noise floor".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from noisefloor.floor.contrast_table import POOLED, TRIAL, seed_array
from noisefloor.floor.null_gaps import excursion_bound, spread_of, spread_signs
from noisefloor.results import FrozenResult
from noisefloor.stats.multiplicity import adjust_families
from noisefloor.stats.paired import sign_tests
from noisefloor.stats.pooling import gap_variance, pool_random_effects

if TYPE_CHECKING:
    from noisefloor.floor.random_effects import RandomEffectsFloor

#: Columns of a null-contrast count table (input of :func:`noise_floor`).
NULL_COLUMNS = ("contrast", "kind", "clean", "certified_by", "seed", "wins", "losses", "ties")

#: How each null contrast is pooled over seeds: W/L/T summed (the paper's method), or the
#: per-seed gaps combined by random effects (:mod:`noisefloor.floor.random_effects`).
POOLINGS = ("summed", "random")

#: Estimators of the between-seed variance tau^2 for ``pooling="random"``.
TAU_METHODS = ("dl", "pm")

#: A floor whose contrast has fewer untied (informative) pairs than this gets a caution. With k
#: untied pairs the exact two-sided sign test can reach at best p = 2 * 0.5**k: 0.0625 for k = 5,
#: 0.031 for k = 6, so below 6 pairs not even a clean sweep of one arm over the other could be
#: told from noise, and the Wilson-mapped bound is set by the pair count rather than by the data.
MIN_INFORMATIVE_PAIRS = 6


@dataclass(frozen=True)
class NoiseFloor(FrozenResult):
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
        :func:`noisefloor.floor.null_gaps.null_gap_spread`.
    null_gap_min, null_gap_max : float
        Smallest and largest per-seed null gap, each null contrast oriented so that its gap
        pooled over seeds is >= 0 (a null contrast has no meaningful sign): ``min < 0`` says a
        contrast changed sign from seed to seed (the paper's +18 pp, then -3 pp). All three
        are unchanged when a pair is written the other way round or a protocol is renamed;
        see :func:`noisefloor.floor.null_gaps.null_gap_spread`.
    n_informative : int
        Untied pairs summed over every per-seed null contrast.
    n_seeds : int
        Number of distinct seeds.
    per_seed_floor : dict
        Seed (int, or None for a log without seeds) -> bound of the clean contrast(s) at that
        seed.
    confidence : float
        Interval level (default 0.95).
    reason : str
        Caveats (no clean contrast, undefined values); empty otherwise.
    table : pandas.DataFrame
        One row per (contrast, seed) (``level == "trial"``) and per pooled contrast
        (``level == "pooled"``, ``seed`` NA); see :meth:`to_frame` and
        :mod:`noisefloor.floor.contrast_table`.
    n_informative_floor : int
        Untied pairs of the contrast that sets the floor, pooled over seeds.
    caution : str
        Why the floor is weakly supported, empty otherwise: its contrast has fewer than
        :data:`MIN_INFORMATIVE_PAIRS` untied pairs, or the whole floor rests on a single
        per-seed null contrast (no replicate shows how far it moves). Verdicts against such a
        floor are provisional.
    pooling : str
        ``"summed"`` (counts summed over seeds, the paper's method) or ``"random"`` (per-seed
        gaps pooled by random effects: the pooled rows of :attr:`table` carry the
        random-effects estimate, interval, bound and tau).
    tau_method : str
        Estimator of tau^2 of the pooled rows: ``"dl"`` (DerSimonian-Laird) or ``"pm"``
        (Paule-Mandel, ``pooling="random"`` only).
    random_effects : RandomEffectsFloor or None
        With ``pooling="random"``: the per-contrast random-effects pooling
        (:func:`noisefloor.floor.random_effects.random_effects_floor`: ``k``, ``se``, ``tau2`` and the
        prediction interval besides what the table shows); None otherwise.
    """

    _frame_field = "table"

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
    pooling: str = "summed"
    tau_method: str = "dl"
    random_effects: RandomEffectsFloor | None = field(default=None, repr=False, compare=False)

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
        >>> from noisefloor.floor.count_table import null_contrasts_from_counts
        >>> from noisefloor.audit.published import read_paired_counts
        >>> nf = noise_floor(null_contrasts_from_counts(read_paired_counts()))
        >>> nf.per_seed().round(3).to_dict(orient="records")[0]
        {'seed': 1, 'floor': 0.189, 'envelope': 0.261, 'null_gap_min': 0.08, 'null_gap_max': 0.18, 'n_informative': 96}
        """
        cols = ["seed", "floor", "envelope", "null_gap_min", "null_gap_max", "n_informative"]
        t = self.table[self.table["level"] == TRIAL]
        rows = []
        signs = spread_signs(t)
        for seed, g in t.groupby("seed", sort=True, dropna=False):
            gaps = g["gap"] * g["contrast"].astype(str).map(signs)
            basis = g[g["clean"].astype(bool)]["bound"] if self.basis == "clean" else g["bound"]
            rows.append({
                "seed": _seed_key(seed),
                "floor": float(basis.max()) if basis.notna().any() else math.nan,
                "envelope": float(g["bound"].max()) if g["bound"].notna().any() else math.nan,
                "null_gap_min": float(gaps.min()) if gaps.notna().any() else math.nan,
                "null_gap_max": float(gaps.max()) if gaps.notna().any() else math.nan,
                "n_informative": int((g["wins"] + g["losses"]).sum()),
            })
        out = pd.DataFrame(rows, columns=cols)
        out["seed"] = pd.array(out["seed"].tolist(), dtype="Int64")
        return out

    # hand-written: derived keys (per_seed, contrasts) and the per-seed floors as records
    def to_dict(self) -> dict:
        """Plain-dict view (JSON-ready) with the table as a list of records;
        ``per_seed_floor`` is a list of ``{"seed", "floor"}`` records (seed null for a log
        without seeds)."""
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
            # records, not a dict keyed by seed: the document's shape never depends on the seeds
            "per_seed_floor": [{"seed": k, "floor": v} for k, v in self.per_seed_floor.items()],
            "confidence": self.confidence,
            "reason": self.reason,
            "n_informative_floor": self.n_informative_floor,
            "caution": self.caution,
            "pooling": self.pooling,
            "tau_method": self.tau_method,
            "random_effects": (None if self.random_effects is None
                               else self.random_effects.to_dict()["table"]),
            "per_seed": self.per_seed().to_dict(orient="records"),
            "contrasts": self.table.to_dict(orient="records"),
        }


def _seed_key(seed: Any) -> int | None:
    """A seed label (a group key or a table cell) as a plain key: None when missing."""
    return None if pd.isna(seed) else int(seed)


def _seed_column(values: pd.Series) -> pd.Series:
    """Seeds as a nullable integer column (missing: NA); a non-integer seed is an error."""
    try:
        return pd.Series(seed_array(values.tolist()), index=values.index)
    except ValueError as exc:
        raise ValueError(f"null_contrasts {exc}") from None


def _stat_rows(records: list[dict], confidence: float) -> list[dict]:
    """``records`` (dicts with ``wins``, ``losses``, ``ties``) with the sign test of each added."""
    if not records:
        return []
    tests = sign_tests(np.array([r["wins"] for r in records], dtype=np.int64),
                       np.array([r["losses"] for r in records], dtype=np.int64),
                       np.array([r["ties"] for r in records], dtype=np.int64),
                       confidence=confidence)
    stats = zip(tests["n"].tolist(), tests["gap"].tolist(), tests["p_value"].tolist(),
                tests["ci_low"].tolist(), tests["ci_high"].tolist(), tests["reason"].tolist())
    return [{**rec, "n": int(n), "gap": gap, "p_value": p, "ci_low": lo, "ci_high": hi,
             "bound": excursion_bound(lo, hi), "reason": reason}
            for rec, (n, gap, p, lo, hi, reason) in zip(records, stats)]


def _bonferroni(rows: list[dict], family_key) -> None:
    if not rows:
        return
    adjusted, _ = adjust_families([r["p_value"] for r in rows],
                                  [repr(family_key(r)) for r in rows], method="bonferroni")
    for r, p in zip(rows, adjusted.tolist()):
        r["p_adjusted"] = p
        r["method"] = "bonferroni"


def noise_floor(null_contrasts: pd.DataFrame, *, confidence: float = 0.95,
                pooling: str = "summed", tau_method: str = "dl") -> NoiseFloor:
    """The noise floor and envelope from per-seed counts of null contrasts.

    Parameters
    ----------
    null_contrasts : pandas.DataFrame, shape (n_rows, >= 6)
        One row per (contrast, seed) with columns ``contrast`` (label ``"a-b"``), ``clean``
        (bool), ``seed`` (integer, or missing), ``wins``, ``losses``, ``ties`` (non-negative
        ints) and optionally ``kind`` (``"trial0"`` or ``"reruns"``) and ``certified_by`` (what
        certified the contrast as null). Build it with
        :func:`noisefloor.floor.count_table.null_contrasts_from_counts` (a count table) or
        :func:`noisefloor.floor.nulls.certified_null_contrasts` (a log's :attr:`table
        <noisefloor.floor.nulls.NullContrasts.table>`); :func:`noisefloor.pipelines.floor_run` does
        both steps for logs. A ``level`` column in the input is ignored (rows are per seed).
    confidence : float, default 0.95
        Level of every interval and bound, strictly between 0 and 1.
    pooling : {"summed", "random"}, default "summed"
        How a contrast is pooled over seeds: W/L/T summed (the paper's method), or the
        per-seed gaps pooled by random effects
        (:func:`noisefloor.floor.random_effects.random_effects_floor`, bound from the pooled
        interval), for when the gap moves from seed to seed.
    tau_method : {"dl", "pm"}, default "dl"
        With ``pooling="random"``: the estimator of tau^2, DerSimonian-Laird or Paule-Mandel.

    Returns
    -------
    NoiseFloor
        Floor, envelope, spread of null gaps, informative pairs, and the full table.

    Raises
    ------
    ValueError
        If the table is empty, a column is missing, a count is negative or not an integer, or
        a (contrast, seed) pair appears twice; ``confidence`` not in (0, 1), ``pooling`` or
        ``tau_method`` not one of the choices, or ``tau_method="pm"`` with summed pooling.

    Notes
    -----
    Each contrast is pooled over seeds by summing W/L/T (the paper's method) and its
    Wilson-mapped interval computed (:func:`~noisefloor.stats.paired.sign_test`). A
    contrast's bound is :func:`excursion_bound` of that interval. floor = max bound over
    clean contrasts, envelope = max bound over all null contrasts. The random-effects tau
    of each contrast (DerSimonian-Laird over per-seed gaps) is reported beside it.

    With ``pooling="random"`` a pooled row holds instead the random-effects estimate
    ``sum w_i y_i / sum w_i`` (``w_i = 1 / (v_i + tau^2)``, ``y_i`` the gap at seed ``i``),
    its interval ``estimate -+ z se`` (``z`` the normal quantile at ``confidence``), the
    excursion bound of that interval, tau, and the two-sided z-test
    ``p = 2 (1 - Phi(|estimate| / se))`` (Bonferroni over the pooled contrasts); the W/L/T of
    the row stay the summed counts.

    References
    ----------
    Kaliyev & Maryanskyy (2026), section "The noise floor": the clean-contrast pooled upper CI
    is about 12 pp and the largest pooled upper CI about 15 pp.
    DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical trials. Controlled Clinical
    Trials 7, 177-188 (``pooling="random"``).

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
    >>> r = noise_floor(t, pooling="random")
    >>> round(r.floor, 4), round(r.envelope, 4), r.pooling
    (0.1454, 0.2822, 'random')
    """
    from noisefloor.stats import validation as _validate

    confidence = _validate.probability("confidence", confidence)
    _validate.choice("pooling", pooling, POOLINGS)
    _validate.choice("tau_method", tau_method, TAU_METHODS)
    if pooling == "summed" and tau_method != "dl":
        raise _validate.ParameterError("tau_method", "'dl' with summed pooling", tau_method,
                                       message="{tau_method=" + repr(tau_method) + "} applies to "
                                       "{pooling='random'} (the tau of summed pooling is "
                                       "DerSimonian-Laird); pass {pooling='random'}")
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
    if "certified_by" not in frame.columns:
        frame["certified_by"] = ""
    frame["certified_by"] = frame["certified_by"].fillna("").astype(str)
    frame["seed"] = _seed_column(frame["seed"])
    dup = frame.duplicated(["contrast", "seed"], keep=False)
    if dup.any():
        first = frame[dup].iloc[0]
        seed = "none" if pd.isna(first["seed"]) else int(first["seed"])
        raise ValueError(f"contrast {first['contrast']!r} appears more than once for seed {seed!r}")
    for col in ("wins", "losses", "ties"):
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna() | (values < 0) | (values % 1 != 0)
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"null_contrasts row {i}: {col} must be a non-negative integer, got "
                             f"{frame[col].iloc[i]!r}")
        frame[col] = values.astype(int)
    frame["clean"] = frame["clean"].astype(bool)
    frame = frame[["contrast", "kind", "clean", "certified_by", "seed", "wins", "losses", "ties"]]
    frame.insert(4, "level", TRIAL)

    # From here on plain lists: the table is small (one row per contrast and seed), and pandas'
    # per-operation overhead would dominate the arithmetic.
    names = ("contrast", "kind", "clean", "certified_by", "level", "seed", "wins", "losses",
             "ties")
    records = [dict(zip(names, values)) for values in zip(*(frame[c].tolist() for c in names))]
    groups: dict[Any, list[dict]] = {}
    for rec in records:
        if not _missing(rec["contrast"]):  # as a groupby, which drops a missing key
            groups.setdefault(rec["contrast"], []).append(rec)
    pooled_counts = [{
        "contrast": label, "kind": _first_present([r["kind"] for r in recs]),
        "clean": all(r["clean"] for r in recs),
        "certified_by": "; ".join(dict.fromkeys(r["certified_by"] for r in recs)),
        "level": POOLED, "seed": pd.NA,
        "wins": sum(r["wins"] for r in recs), "losses": sum(r["losses"] for r in recs),
        "ties": sum(r["ties"] for r in recs)} for label, recs in groups.items()]
    stat_rows = _stat_rows(records + pooled_counts, confidence)
    per_seed, pooled = stat_rows[:len(records)], stat_rows[len(records):]
    _bonferroni(per_seed, lambda r: _seed_key(r["seed"]))
    for r in per_seed:
        r["tau"] = math.nan
    _bonferroni(pooled, lambda r: POOLED)
    for r in pooled:
        seeds = groups[r["contrast"]]
        gaps = [(s["wins"] - s["losses"]) / (s["wins"] + s["losses"] + s["ties"])
                for s in seeds if s["wins"] + s["losses"] + s["ties"]]
        variances = [gap_variance(s["wins"], s["losses"], s["ties"])
                     for s in seeds if s["wins"] + s["losses"] + s["ties"]]
        pool = pool_random_effects(gaps, variances)  # NaN with a reason (< 2 seeds, zero variance)
        r["tau"] = pool.tau
        if pool.reason:
            r["reason"] = "; ".join(x for x in (r["reason"], f"tau undefined: {pool.reason}") if x)
    random_effects = None
    if pooling == "random":
        random_effects = _pool_random(frame, pooled, confidence, tau_method)

    columns = ["contrast", "kind", "clean", "certified_by", "level", "seed", "wins", "losses",
               "ties", "n", "gap",
               "p_value", "p_adjusted", "method", "ci_low", "ci_high", "bound", "tau", "reason"]
    table = pd.DataFrame(per_seed + pooled, columns=columns)
    table["seed"] = _seed_column(table["seed"])

    reasons = []
    clean_rows = [r for r in pooled if r["clean"]]
    basis = "clean"
    if not clean_rows:
        basis = "null"
        clean_rows = pooled
        reasons.append("no null contrast is certified clean (identical first requests); the floor "
                       "is taken over all null contrasts and equals the envelope")
    floor, floor_contrast = _max_bound(clean_rows)
    envelope, envelope_contrast = _max_bound(pooled)
    if math.isnan(floor) and pooling == "random":
        why = "; ".join(dict.fromkeys(r["reason"] for r in clean_rows if r["reason"])) or "undefined"
        reasons.append(f"the random-effects floor is undefined ({why})")
    elif math.isnan(floor):
        reasons.append("no informative (untied) pair in the floor's contrasts: the floor is undefined")

    seed_keys = [_seed_key(r["seed"]) for r in per_seed]
    gap_sd, gap_min, gap_max = spread_of(
        [r["contrast"] for r in per_seed], [pd.NA if k is None else k for k in seed_keys],
        [r["wins"] for r in per_seed], [r["losses"] for r in per_seed],
        [r["gap"] for r in per_seed])
    n_floor = (int(sum(r["wins"] + r["losses"] for r in pooled if r["contrast"] == floor_contrast))
               if floor_contrast else 0)
    cautions = []
    if not math.isnan(floor) and n_floor < MIN_INFORMATIVE_PAIRS:
        cautions.append(
            f"the floor rests on {n_floor} informative (untied) pair{'' if n_floor == 1 else 's'}, "
            f"fewer than {MIN_INFORMATIVE_PAIRS}: with so few the sign test cannot reach p < 0.05 "
            "and the bound reflects the pair count more than the run-to-run noise")
    chosen = [i for i, r in enumerate(per_seed) if r["clean"] or basis != "clean"]
    if not math.isnan(floor) and len(chosen) == 1:
        cautions.append("the floor rests on a single null contrast at a single seed"
                        + (" (the only clean one)" if basis == "clean" and len(per_seed) > 1
                           else "")
                        + ": no replicate shows how far it moves (the noise-floor paper's +18 pp "
                        "gap was -3 pp at the next seed)")
    # the largest defined bound of each seed's floor contrasts (NaN when none)
    maxima: dict[int | None, float] = {}
    for i in chosen:
        key, bound = seed_keys[i], float(per_seed[i]["bound"])
        if bound == bound and not maxima.get(key, math.nan) >= bound:
            maxima[key] = bound
        else:
            maxima.setdefault(key, math.nan)
    per_seed_floor = {}
    present = set(seed_keys)
    for key in sorted(k for k in present if k is not None) + ([None] if None in present else []):
        per_seed_floor[key] = maxima.get(key, math.nan)
    n_informative = int(sum(r["wins"] + r["losses"] for r in per_seed))
    return NoiseFloor(
        floor=floor, floor_contrast=floor_contrast, envelope=envelope,
        envelope_contrast=envelope_contrast, basis=basis,
        null_gap_sd=gap_sd, null_gap_min=gap_min, null_gap_max=gap_max,
        n_informative=n_informative, n_seeds=len(present), per_seed_floor=per_seed_floor,
        confidence=confidence, reason="; ".join(reasons), table=table,
        n_informative_floor=n_floor,
        caution=("; ".join(cautions) + "; verdicts against it are provisional") if cautions else "",
        pooling=pooling, tau_method=tau_method, random_effects=random_effects,
    )


def _pool_random(frame: pd.DataFrame, pooled: list[dict], confidence: float,
                 tau_method: str) -> RandomEffectsFloor:
    """Overwrite the pooled rows' gap, interval, bound, tau and p with random-effects pooling."""
    from scipy.stats import norm

    from noisefloor.floor.random_effects import random_effects_floor

    re_floor = random_effects_floor(frame, confidence=confidence, method=tau_method)
    by_contrast = re_floor.table.set_index("contrast")
    for r in pooled:
        row = by_contrast.loc[r["contrast"]]
        est, se = float(row["estimate"]), float(row["se"])
        r.update(gap=est, ci_low=float(row["ci_low"]), ci_high=float(row["ci_high"]),
                 bound=float(row["bound"]), tau=float(row["tau"]),
                 p_value=math.nan if math.isnan(se) else float(2 * norm.sf(abs(est) / se)),
                 reason=str(row["reason"] or ""))
    _bonferroni(pooled, lambda r: POOLED)
    return re_floor


def _max_bound(rows: list[dict]) -> tuple[float, str]:
    """The largest defined bound of ``rows`` and its contrast (the first if tied); NaN, ""."""
    best = None
    for r in rows:
        bound = float(r["bound"])
        if bound == bound and (best is None or bound > best[0]):
            best = (bound, str(r["contrast"]))
    return best if best is not None else (math.nan, "")


def _missing(value: Any) -> bool:
    """True for a missing scalar (None, NaN, ``pd.NA``)."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _first_present(values: list) -> Any:
    """The first non-missing value, as ``groupby(...).first()`` takes it (None if all missing)."""
    return next((v for v in values if not _missing(v)), None)
