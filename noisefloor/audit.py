"""Place published coordination claims against a noise floor.

Each claim lands ``below`` the floor (unresolved: indistinguishable from two runs that cannot
differ), ``inside`` the band between the floor and the envelope, or ``above`` the envelope.
Following the noise-floor paper's reading, *below means unresolved against the floor, never
refuted*: the claim may be true, the evidence cannot tell it from noise.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field

import pandas as pd

from noisefloor.floor import (
    MIN_INFORMATIVE_PAIRS,
    POOLED,
    NoiseFloor,
    _splits,
    split_protocol_pair,
)
from noisefloor.stats.active import coordination_active_tasks
from noisefloor.stats.contrasts import paired_contrast
from noisefloor.stats.paired import sign_test_table

VERDICTS = ("below", "inside", "above")
COMPARABLE_UNITS = ("pp", "percentage points", "percentage point", "proportion", "fraction")


@dataclass(frozen=True)
class ClaimVerdict:
    """One claim placed against the floor.

    Attributes
    ----------
    paper, benchmark, reported : str
        Who claimed it, on what, and the text as published.
    effect_low, effect_high : float
        The claimed range (proportions); ``effect_low`` NaN for an upper bound only.
    effect : float
        The value placed, sign kept: of a range, the end farthest from zero (for a gain the
        upper end ``effect_high``; for a loss, e.g. -10 to -2 pp, the lower end -10 pp); of a
        single number or an upper bound only, ``effect_high``. The verdict and ``ratio`` use
        its absolute value.
    unit : str
        Unit of the published figure (``"pp"`` for percentage points).
    verdict : str
        ``"below"`` (effect < floor), ``"inside"`` (floor <= effect <= envelope) or ``"above"``
        (effect > envelope).
    ratio : float
        ``|effect| / floor``: how many floors the claim spans.
    comparable : bool
        False when the unit is not percentage points: the claim is placed, but flagged.
    flag : str
        Why the claim is flagged; empty otherwise.
    """

    paper: str
    benchmark: str
    reported: str
    effect_low: float
    effect_high: float
    effect: float
    unit: str
    verdict: str
    ratio: float
    comparable: bool
    flag: str = ""

    def to_dict(self) -> dict:
        """Plain-dict view."""
        return asdict(self)


@dataclass(frozen=True)
class AuditResult:
    """Result of :func:`audit`.

    Attributes
    ----------
    floor, envelope : float
        The thresholds used (proportions).
    verdicts : tuple of ClaimVerdict
        One per claim, in input order.
    counts : dict
        Number of claims per verdict (``below``, ``inside``, ``above``).
    noise_floor : NoiseFloor or None
        The floor result, when one was passed.
    """

    floor: float
    envelope: float
    verdicts: tuple[ClaimVerdict, ...]
    counts: dict
    noise_floor: NoiseFloor | None = field(default=None, repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per claim with every :class:`ClaimVerdict` field."""
        return pd.DataFrame([v.to_dict() for v in self.verdicts])

    def to_dict(self) -> dict:
        """``floor``, ``envelope``, ``counts`` and ``claims`` (a list of verdict dicts)."""
        return {"floor": self.floor, "envelope": self.envelope, "counts": dict(self.counts),
                "claims": [v.to_dict() for v in self.verdicts]}


def place(effect: float, floor: float, envelope: float) -> str:
    """Verdict for one effect (proportion, non-negative) against a floor and an envelope.

    Examples
    --------
    >>> place(0.06, 0.118, 0.153), place(0.135, 0.118, 0.153), place(0.22, 0.118, 0.153)
    ('below', 'inside', 'above')
    """
    if effect < floor:
        return "below"
    if effect <= envelope:
        return "inside"
    return "above"


def audit(claims: pd.DataFrame, floor: NoiseFloor | float, envelope: float | None = None) -> AuditResult:
    """Place each claim below, inside or above the noise floor.

    Parameters
    ----------
    claims : pandas.DataFrame
        Columns ``paper, effect_high, unit`` and optionally ``benchmark, reported,
        effect_low`` (proportions), as returned by :func:`noisefloor.published.read_claims`.
    floor : NoiseFloor or float
        A :class:`~noisefloor.floor.NoiseFloor` (its floor and envelope are used), or the
        floor as a proportion.
    envelope : float, optional
        Required when ``floor`` is a float; must be >= floor.

    Returns
    -------
    AuditResult
        Verdicts in input order and counts per verdict.

    Raises
    ------
    ValueError
        If the floor is NaN or not positive, the envelope is missing or below the floor, a
        claim lacks ``effect_high``, or a claim in percentage points or proportions lies
        outside [-1, 1] (beyond 100 pp: a unit slip, named with the claim and its line).

    Notes
    -----
    A claim is placed by the distance from zero of its most favourable reading: for a range,
    the end farthest from zero. For a gain that is the upper end (the noise-floor paper's "a
    range uses its upper end"); a loss is as far from noise as a gain of the same size, so a
    claimed loss "-10 to -2 pp" is placed at 10 pp (``effect = -0.10``, sign kept for
    display), not at 2 pp, and a range straddling zero, "-3 to +8 pp", at 8 pp. A single
    number or an upper bound only (``effect_low`` NaN) is placed by ``|effect_high|``. A unit
    other than percentage points is placed on the same numeric scale but flagged
    ``comparable=False``.

    References
    ----------
    Kaliyev & Maryanskyy (2026), section "Where published gains sit relative to the floor":
    seven of ten claims below the clean-contrast pooled upper CI, one inside the envelope.

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"paper": ["X", "Y"], "effect_high": [0.06, 0.2], "unit": ["pp", "pp"]})
    >>> r = audit(c, 0.118, 0.153)
    >>> [v.verdict for v in r.verdicts], r.counts
    (['below', 'above'], {'below': 1, 'inside': 0, 'above': 1})
    >>> loss = pd.DataFrame({"paper": ["Z"], "effect_low": [-0.10], "effect_high": [-0.02],
    ...                      "unit": ["pp"]})
    >>> v = audit(loss, 0.05, 0.08).verdicts[0]
    >>> v.effect, v.verdict, v.ratio
    (-0.1, 'above', 2.0)
    """
    if isinstance(floor, NoiseFloor):
        result_floor = floor
        f, env = floor.floor, floor.envelope
    else:
        result_floor = None
        f = float(floor)
        if envelope is None:
            raise ValueError("envelope must be given when floor is a number")
        env = float(envelope)
    if math.isnan(f) or f <= 0:
        raise ValueError(f"the floor must be a positive proportion, got {f}; a NaN floor has no "
                         "informative null pairs to place claims against")
    if math.isnan(env) or env < f:
        raise ValueError(f"the envelope ({env}) must be a number >= the floor ({f})")
    for col in ("paper", "effect_high", "unit"):
        if col not in claims.columns:
            raise ValueError(f"claims lacks column {col!r}; columns are {list(claims.columns)}")
    verdicts = []
    for rec in claims.to_dict(orient="records"):
        high = float(rec["effect_high"])
        if math.isnan(high):
            raise ValueError(f"claim {rec['paper']!r} has no effect_high")
        unit = str(rec.get("unit", ""))
        comparable = unit.strip().lower() in COMPARABLE_UNITS
        low = rec.get("effect_low", math.nan)
        # the end farthest from zero, sign kept (a tie keeps the upper end)
        effect = high
        if low is not None and not math.isnan(float(low)) and abs(float(low)) > abs(high):
            effect = float(low)
        for name, value in (("effect_high", high), ("effect_low", low)):
            # a gap of success rates lies in [-100, 100] pp; 500 pp is a unit slip (a
            # percentage given with unit 'proportion') that would be placed far "above"
            if comparable and value is not None and abs(float(value)) > 1:
                line, source = rec.get("line"), claims.attrs.get("source")
                where = ""
                if line is not None and line == line:
                    where = f" ({source}:{int(line)})" if source else f" (line {int(line)})"
                raise ValueError(
                    f"claim {rec['paper']!r}{where}: field {name!r}: {float(value) * 100:g} pp is "
                    f"outside [-100, 100] pp, impossible for a difference of success rates in "
                    f"unit {unit!r} (a percentage written as a proportion, or the reverse?)")
        flag = "" if comparable else (f"unit is {unit!r}, not percentage points: placed on the "
                                      "same numeric scale, not directly comparable")
        verdicts.append(ClaimVerdict(
            paper=str(rec["paper"]), benchmark=str(rec.get("benchmark", "") or ""),
            reported=str(rec.get("reported", "") or ""),
            effect_low=float(low) if low is not None else math.nan, effect_high=high,
            effect=effect, unit=unit, verdict=place(abs(effect), f, env), ratio=abs(effect) / f,
            comparable=comparable, flag=flag,
        ))
    counts = {v: sum(1 for x in verdicts if x.verdict == v) for v in VERDICTS}
    return AuditResult(f, env, tuple(verdicts), counts, result_floor)


#: Protocol written second when a pair is oriented automatically (the baseline: a-b is the
#: gain of a over it), as in the noise-floor paper's pull-no_coord and intercept-no_coord.
BASELINE_PROTOCOL = "no_coord"

#: Columns of :func:`log_contrasts` before the statistics.
_LOG_KEYS = ("seed", "trial", "subset", "contrast")


def _oriented(protocols: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for a, b in itertools.combinations(sorted(protocols), 2):
        pairs.append((b, a) if a == BASELINE_PROTOCOL else (a, b))
    return pairs


def _parse_pairs(pairs, present=()) -> list[tuple[str, str]]:
    out = []
    for p in pairs:
        if isinstance(p, str):
            # protocol names may contain '-': take the split whose sides are both protocols of
            # the log (several such splits: an error listing them); when none fits, the first
            # '-' splits, and the caller names the protocol the log lacks
            fitting = [(a, b) for a, b in _splits(p) if a in present and b in present]
            parts = (split_protocol_pair(p, present, what="contrast") if len(fitting) > 1
                     else fitting[0] if fitting else tuple(p.split("-", 1)))
        else:
            parts = tuple(p)
        if len(parts) != 2 or not all(isinstance(x, str) and x for x in parts) or parts[0] == parts[1]:
            raise ValueError(f"a contrast must name two different protocols as 'a-b' (e.g. "
                             f"'intercept-no_coord'), got {p!r}")
        out.append((parts[0], parts[1]))
    return out


def log_contrasts(
    trials: pd.DataFrame,
    *,
    pairs=None,
    trial_indices=None,
    coordination_active: bool = False,
    infrastructure_errors: str = "exclude",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Protocol-vs-protocol paired contrasts of a log: W/L/T, gap, interval and sign test.

    Each record of protocol a is paired with the record of protocol b for the same task and
    trial (within one benchmark, model and seed); one row per (seed, trial, subset, contrast),
    plus rows pooled over seeds (counts summed, ``seed == "pooled"``) when the log holds more
    than one seed.

    Parameters
    ----------
    trials : pandas.DataFrame
        Output of :func:`noisefloor.logs.load_trials` (``protocol, task_id, trial, reward`` and
        optionally ``benchmark, model, seed, infrastructure_error``).
    pairs : iterable of str or (str, str), optional
        Contrasts to form, ``"a-b"`` (a minus b: a win is a task where a succeeded and b
        failed). Protocol names may contain '-': a string is split where both sides are
        protocols of the log (more than one such split is an error; a tuple is never
        ambiguous). Default: every pair of protocols in the log, the baseline ``no_coord``
        written second, otherwise in sorted order.
    trial_indices : iterable of int, optional
        Trials to compare on. Default: every trial >= 1 (at trial 0 every store is empty, so
        trial-0 contrasts are null contrasts, the floor's own material).
    coordination_active : bool, default False
        Also compare on trial 1 over the coordination-active subset (tasks where both
        protocols failed trial 0; :func:`~noisefloor.stats.active.coordination_active_tasks`),
        ``subset == "coordination_active"``.
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Passed to :func:`~noisefloor.stats.contrasts.paired_contrast`.
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    pandas.DataFrame
        Columns ``benchmark, model`` (when logged), ``seed, trial, subset, contrast, wins,
        losses, ties, n_only_a, n_only_b, n_excluded, n, gap, p_value, p_adjusted, m, ci_low,
        ci_high, reason``; effects are proportions. ``p_adjusted`` is Bonferroni within one
        (benchmark, model, seed, trial, subset), as in the noise-floor paper (m = 3 for three
        protocols). Empty (with these columns) when no pair of protocols shares a trial.

    Raises
    ------
    ValueError
        If a pair is not written ``a-b``, names a protocol the log does not hold, or a trial
        asked for is in neither arm of any pair.

    Notes
    -----
    Repeated trials of one task are not independent pairs, so trials are not pooled into
    one sign test: each trial is its own contrast. Statistics by
    :func:`~noisefloor.stats.contrasts.paired_contrast` and
    :func:`~noisefloor.stats.paired.sign_test_table`.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": ["no_coord"] * 3 + ["intercept"] * 3,
    ...                   "task_id": ["1", "2", "3"] * 2, "trial": 1,
    ...                   "reward": [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]})
    >>> r = log_contrasts(t).iloc[0]
    >>> r["contrast"], (int(r["wins"]), int(r["losses"]), int(r["ties"])), float(r["gap"])
    ('intercept-no_coord', (1, 1, 1), 0.0)
    """
    if not isinstance(trials, pd.DataFrame):
        raise TypeError(f"trials must be a DataFrame, got {type(trials).__name__}")
    present = sorted(map(str, trials["protocol"].unique()))
    chosen = _parse_pairs(pairs, present) if pairs is not None else _oriented(present)
    for a, b in chosen:
        for name in (a, b):
            if name not in present:
                raise ValueError(f"protocol {name!r} is not in the log; protocols present: "
                                 f"{', '.join(present)}")
    wanted = None if trial_indices is None else sorted({int(t) for t in trial_indices})
    group_cols = [c for c in ("benchmark", "model") if c in trials.columns]
    frame = trials.copy()
    if "seed" not in frame.columns:
        frame["seed"] = pd.NA
    frame["seed"] = frame["seed"].astype(object).where(frame["seed"].notna(), "none")
    rows, seen_trials = [], set()
    groups = list(frame.groupby(group_cols + ["seed"], sort=True, dropna=False))
    for key, s in groups:
        key = key if isinstance(key, tuple) else (key,)
        ids = dict(zip(group_cols + ["seed"], key))
        for a, b in chosen:
            ta = set(s.loc[s["protocol"].astype(str) == a, "trial"].astype(int))
            tb = set(s.loc[s["protocol"].astype(str) == b, "trial"].astype(int))
            common = sorted(ta & tb)
            seen_trials |= set(common)
            use = [t for t in common if t >= 1] if wanted is None else [t for t in wanted if t in common]
            for t in use:
                c = paired_contrast(s, a, b, trial=t, infrastructure_errors=infrastructure_errors,
                                    confidence=confidence)
                rows.append(_log_row(ids, t, "all", c))
            if coordination_active and 0 in common and 1 in common:
                subset = coordination_active_tasks(s, a, b)
                c = paired_contrast(s, a, b, trial=1, tasks=subset,
                                    infrastructure_errors=infrastructure_errors,
                                    confidence=confidence)
                rows.append(_log_row(ids, 1, "coordination_active", c))
    if wanted is not None:
        missing = [t for t in wanted if t not in seen_trials]
        if missing:
            raise ValueError(f"trial {missing[0]} is not in both arms of any contrast; trials "
                             f"present in both: {', '.join(map(str, sorted(seen_trials))) or 'none'}")
    count_cols = ["wins", "losses", "ties", "n_only_a", "n_only_b", "n_excluded"]
    columns = group_cols + list(_LOG_KEYS) + count_cols
    table = pd.DataFrame(rows, columns=columns)
    if table["seed"].nunique() > 1:
        pooled = (table.groupby(group_cols + ["trial", "subset", "contrast"], sort=False)[count_cols]
                  .sum().reset_index())
        pooled["seed"] = POOLED
        table = pd.concat([table, pooled[columns]], ignore_index=True)
    stats_cols = ["n", "gap", "p_value", "p_adjusted", "m", "ci_low", "ci_high", "reason"]
    if table.empty:
        return pd.DataFrame(columns=columns + stats_cols)
    for col in count_cols:
        table[col] = table[col].astype(int)
    # one Bonferroni family (seed, trial, subset) per block of rows, as in the paper's tables:
    # by benchmark/model, seed (pooled last), subset ("all" first), trial; pairs as formed
    sort = pd.DataFrame({f"g{i}": table[c].astype(str) for i, c in enumerate(group_cols)})
    sort["pooled"] = table["seed"].eq(POOLED).to_numpy()
    sort["seed_rank"] = pd.factorize(table["seed"].astype(str))[0]
    sort["subset"] = table["subset"].ne("all").to_numpy()
    sort["trial"] = table["trial"].to_numpy()
    table = table.loc[sort.sort_values(list(sort.columns), kind="stable").index]
    table = table.reset_index(drop=True)
    return sign_test_table(table, family=tuple(group_cols) + ("seed", "trial", "subset"),
                           confidence=confidence)


def _log_row(ids: dict, trial: int, subset: str, c) -> dict:
    return {**ids, "trial": int(trial), "subset": subset, "contrast": c.label, "wins": c.wins,
            "losses": c.losses, "ties": c.ties, "n_only_a": len(c.tasks_only_a),
            "n_only_b": len(c.tasks_only_b), "n_excluded": len(c.tasks_excluded)}


def left_out_totals(contrasts: pd.DataFrame) -> dict[str, int]:
    """Tasks left out of the pairing of :func:`log_contrasts` rows, each counted once.

    Rows pooled over seeds (``seed == "pooled"``) repeat the per-seed counts, and a
    ``coordination_active`` row repeats the ``all`` row of the same seed, trial and contrast
    (its tasks are a subset), so only per-seed rows are summed, and a subset row only where no
    ``all`` row covers it.

    Parameters
    ----------
    contrasts : pandas.DataFrame
        Output of :func:`log_contrasts` (columns ``seed, trial, subset, contrast, n_only_a,
        n_only_b, n_excluded``, plus ``benchmark, model`` when logged).

    Returns
    -------
    dict
        ``{"n_only_a", "n_only_b", "n_excluded"}``: tasks present only in arm a, only in arm
        b, and with an infrastructure error or no reward, summed over (benchmark, model, seed,
        trial, contrast); a task left out at two trials counts at each. All 0 for no rows.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"seed": [1, 2, "pooled"], "trial": 1, "subset": "all",
    ...                      "contrast": "a-b", "n_only_a": 0, "n_only_b": 0,
    ...                      "n_excluded": [1, 1, 2]})
    >>> left_out_totals(rows)
    {'n_only_a': 0, 'n_only_b': 0, 'n_excluded': 2}
    """
    cols = ("n_only_a", "n_only_b", "n_excluded")
    if contrasts.empty:
        return {c: 0 for c in cols}
    rows = contrasts[contrasts["seed"].astype(str) != POOLED]
    key = [c for c in ("benchmark", "model", "seed", "trial", "contrast") if c in rows.columns]
    if "subset" in rows.columns:
        covered = set(map(tuple, rows.loc[rows["subset"] == "all", key].astype(str).to_numpy()))
        own = [row_key not in covered for row_key in map(tuple, rows[key].astype(str).to_numpy())]
        rows = rows[(rows["subset"] == "all").to_numpy() | pd.Series(own, index=rows.index)]
    return {c: int(rows[c].sum()) for c in cols}


def place_contrasts(contrasts: pd.DataFrame, floor: NoiseFloor | float,
                    envelope: float | None = None) -> pd.DataFrame:
    """Place observed contrasts (e.g. :func:`log_contrasts`) against the floor, like claims.

    Parameters
    ----------
    contrasts : pandas.DataFrame
        Rows with a ``gap`` column (proportions).
    floor, envelope
        As in :func:`audit`.

    Returns
    -------
    pandas.DataFrame
        A copy with ``effect`` (the gap, sign kept, as a claim's effect is), ``ratio``
        (``|effect| / floor``: placed by its distance from zero, as a claim is), ``verdict`` (``below``, ``inside``, ``above``, or ``undefined``
        when the gap is NaN: no paired task) and ``flag`` (non-empty when the contrast has
        fewer than :data:`~noisefloor.floor.MIN_INFORMATIVE_PAIRS` untied pairs, so its sign
        test cannot reach p < 0.05 whatever its gap).

    Raises
    ------
    ValueError
        As :func:`audit` for the floor and envelope; if ``gap`` is missing.

    Notes
    -----
    The point gap is placed, as a published claim is: a contrast *above* the envelope is a
    gap larger than any seen between runs that cannot differ, not by itself a significant
    one; read it with its sign test.

    Examples
    --------
    >>> import pandas as pd
    >>> place_contrasts(pd.DataFrame({"gap": [-0.05, 0.2, float("nan")]}), 0.118, 0.153)["verdict"].tolist()
    ['below', 'above', 'undefined']
    """
    if isinstance(floor, NoiseFloor):
        f, env = floor.floor, floor.envelope
    else:
        if envelope is None:
            raise ValueError("envelope must be given when floor is a number")
        f, env = float(floor), float(envelope)
    if math.isnan(f) or f <= 0:
        raise ValueError(f"the floor must be a positive proportion, got {f}")
    if math.isnan(env) or env < f:
        raise ValueError(f"the envelope ({env}) must be a number >= the floor ({f})")
    if "gap" not in contrasts.columns:
        raise ValueError(f"contrasts lacks column 'gap'; columns are {list(contrasts.columns)}")
    out = contrasts.copy()
    distance = out["gap"].astype(float).abs()
    out["effect"] = out["gap"].astype(float)  # signed, as a claim's effect is
    out["ratio"] = distance / f
    out["verdict"] = ["undefined" if math.isnan(e) else place(e, f, env) for e in distance]
    if {"wins", "losses"} <= set(out.columns):
        k = (out["wins"] + out["losses"]).astype(int)
        out["flag"] = [f"only {n} informative pair{'' if n == 1 else 's'}: the sign test cannot "
                       "reach p < 0.05" if n < MIN_INFORMATIVE_PAIRS else "" for n in k]
    else:
        out["flag"] = ""
    return out
