"""Contrasts between the arms of a log (protocols, runs or models), placed against a floor.

:func:`log_contrasts` pairs each record of one arm with the record of another for the same
task and trial and sign-tests the W/L/T; :func:`left_out_totals` counts the tasks the pairing
left out, each once; :func:`place_contrasts` places the gaps against a noise floor like
published claims.
"""

from __future__ import annotations

import itertools
import math

import pandas as pd

from noisefloor.floor.active import coordination_active_tasks
from noisefloor.floor.contrast_table import POOLED, TRIAL, _splits, seed_array, split_protocol_pair
from noisefloor.floor.estimate import MIN_INFORMATIVE_PAIRS, NoiseFloor
from noisefloor.floor.nulls import arm_labels
from noisefloor.floor.pairing import paired_contrast
from noisefloor.stats.paired import sign_test_table


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


#: Protocol written second when a pair is oriented automatically (the baseline: a-b is the
#: gain of a over it), as in the noise-floor paper's pull-no_coord and intercept-no_coord.
BASELINE_PROTOCOL = "no_coord"

#: Columns of :func:`log_contrasts` before the statistics.
_LOG_KEYS = ("level", "seed", "trial", "trial_b", "subset", "contrast")

#: What an arm of :func:`log_contrasts` can be.
BY = ("protocol", "model")


def _oriented(protocols: list[str]) -> list[tuple[str, str]]:
    """Every pair of arms in the order given (never re-sorted), the baseline written second."""
    pairs = []
    for a, b in itertools.combinations(protocols, 2):
        pairs.append((b, a) if a == BASELINE_PROTOCOL else (a, b))
    return pairs


def _parse_pairs(pairs, present=(), what: str = "protocols") -> list[tuple[str, str]]:
    out = []
    for p in pairs:
        if isinstance(p, str):
            # names may contain '-': take the split whose sides are both arms of the log
            # (several such splits: an error listing them); when none fits, the first '-'
            # splits, and the caller names the arm the log lacks
            fitting = [(a, b) for a, b in _splits(p) if a in present and b in present]
            parts = (split_protocol_pair(p, present, what="contrast") if len(fitting) > 1
                     else fitting[0] if fitting else tuple(p.split("-", 1)))
        else:
            parts = tuple(p)
        if len(parts) != 2 or not all(isinstance(x, str) and x for x in parts):
            raise ValueError(f"a contrast must name two {what} as 'a-b' (e.g. "
                             f"'intercept-no_coord'), got {p!r}")
        out.append((parts[0], parts[1]))
    return out


def log_contrasts(
    trials: pd.DataFrame,
    *,
    pairs=None,
    trial_indices=None,
    trial_b: int | None = None,
    by: str = "protocol",
    coordination_active: bool = False,
    infrastructure_errors: str = "exclude",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Arm-vs-arm paired contrasts of a log: W/L/T, gap, interval and sign test.

    Each record of arm a is paired with the record of arm b for the same task and trial
    (within one benchmark, model and seed); one row per (seed, trial, subset, contrast)
    (``level == "trial"``), plus rows pooled over seeds (counts summed, ``level ==
    "pooled"``, ``seed`` NA) when the log holds more than one seed. An arm is a protocol
    (``by="protocol"``; a protocol read from several runs gives one arm per run,
    ``protocol@run``, see :func:`noisefloor.floor.nulls.arm_labels`) or a model (``by="model"``,
    paired within one benchmark, protocol and seed). A pair ``a-a`` compares the arm with
    itself across trials (re-runs).

    Parameters
    ----------
    trials : pandas.DataFrame
        Output of :func:`noisefloor.logs.load_trials`
        (``protocol, task_id, trial, reward`` and optionally ``benchmark, model, seed, run,
        infrastructure_error``).
    pairs : iterable of str or (str, str), optional
        Contrasts to form, ``"a-b"`` (a minus b: a win is a task where a succeeded and b
        failed); ``"a-a"`` for trial i against trial j of one arm. Names may contain '-': a
        string is split where both sides are arms of the log (more than one such split is an
        error; a tuple is never ambiguous). Default: every pair of distinct arms, each
        written in the order the arms first appear in ``trials`` (for logs read together: the
        order the logs were given), the baseline ``no_coord`` written second; never sorted.
    trial_indices : iterable of int, optional
        Trials to compare on (of arm a for a re-run pair). Default: every trial >= 1 (at trial 0
        the stores are empty, so trial-0 contrasts are the floor's material); for a re-run pair
        every pair of trials i < j.
    trial_b : int, optional
        For a re-run pair: the trial of arm b (each of ``trial_indices`` is compared with it).
    by : {"protocol", "model"}, default "protocol"
        What an arm is.
    coordination_active : bool, default False
        Also compare on trial 1 over the coordination-active subset (tasks where both arms
        failed trial 0; :func:`~noisefloor.floor.active.coordination_active_tasks`),
        ``subset == "coordination_active"`` (not for re-run pairs).
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Passed to :func:`~noisefloor.floor.pairing.paired_contrast`.
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    pandas.DataFrame
        Columns ``benchmark, model, protocol`` (:data:`WHERE_COLUMNS`, whatever ``by``: the
        benchmark, model and protocol the records were paired within, null for the arms' own
        column and for one the log does not carry), ``level, seed, trial, trial_b, subset, contrast, wins, losses, ties,
        n_only_a, n_only_b, n_excluded, n, gap, p_value, p_adjusted, method, m, ci_low, ci_high,
        reason, certified_by``, the shape of :mod:`noisefloor.floor.contrast_table` (``level``
        ``"trial"`` or ``"pooled"``, ``seed`` nullable Int64, NA on pooled rows and for a
        log without seeds; ``certified_by`` is ``""``: this function certifies nothing, see
        :func:`noisefloor.pipelines.contrast_run`); effects are proportions; ``trial_b`` is
        the trial of arm b (equal to ``trial`` except for re-run pairs). ``p_adjusted`` is
        adjusted by ``method`` (``"bonferroni"``) within one (benchmark, model, seed, trial, subset), as in the noise-floor
        paper (m = 3 for three protocols). Empty (with these columns) when no pair of arms
        shares a trial.

    Raises
    ------
    ValueError
        If a pair is not written ``a-b``, names an arm the log does not hold, a trial asked
        for is in neither arm of any pair, or ``by`` is not one of the choices.

    Notes
    -----
    Repeated trials of one task are not independent pairs, so trials are not pooled into
    one sign test: each trial is its own contrast. Statistics by
    :func:`~noisefloor.floor.pairing.paired_contrast` and
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
    >>> reruns = pd.DataFrame({"protocol": "p", "task_id": ["1", "2", "3"] * 2,
    ...                    "trial": [0] * 3 + [1] * 3, "reward": [1.0, 1.0, 0.0, 0.0, 1.0, 0.0]})
    >>> r = log_contrasts(reruns, pairs=["p-p"]).iloc[0]
    >>> r["contrast"], int(r["trial"]), int(r["trial_b"]), int(r["wins"]), int(r["ties"])
    ('p[t0]-p[t1]', 0, 1, 1, 2)
    """
    if not isinstance(trials, pd.DataFrame):
        raise TypeError(f"trials must be a DataFrame, got {type(trials).__name__}")
    if by not in BY:
        raise ValueError(f"by must be one of {', '.join(map(repr, BY))}, got {by!r}")
    frame = arm_view(trials, by)
    present = sorted(map(str, frame["protocol"].unique()))
    what = "models" if by == "model" else "protocols"
    chosen = (_parse_pairs(pairs, present, what) if pairs is not None
              else _oriented(list(dict.fromkeys(frame["protocol"].astype(str)))))
    for a, b in chosen:
        for name in (a, b):
            if name not in present:
                raise ValueError(f"{by} {name!r} is not in the log; {what} present: "
                                 f"{', '.join(present)}")
    wanted = None if trial_indices is None else sorted({int(t) for t in trial_indices})
    group_cols = [c for c in ("benchmark", "model") if c in frame.columns]
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
            if a == b:
                for i, j in _reruns_trials(ta, wanted, trial_b):
                    seen_trials.add(i)
                    c = paired_contrast(s, a, a, trial=i, trial_b=j,
                                        infrastructure_errors=infrastructure_errors,
                                        confidence=confidence)
                    rows.append(_log_row(ids, i, j, "all", c))
                continue
            common = sorted(ta & tb)
            seen_trials |= set(common)
            use = ([t for t in common if t >= 1] if wanted is None
                   else [t for t in wanted if t in common])
            for t in use:
                c = paired_contrast(s, a, b, trial=t, infrastructure_errors=infrastructure_errors,
                                    confidence=confidence)
                rows.append(_log_row(ids, t, t, "all", c))
            if coordination_active and 0 in common and 1 in common:
                subset = coordination_active_tasks(s, a, b)
                c = paired_contrast(s, a, b, trial=1, tasks=subset,
                                    infrastructure_errors=infrastructure_errors,
                                    confidence=confidence)
                rows.append(_log_row(ids, 1, 1, "coordination_active", c))
    if wanted is not None:
        missing = [t for t in wanted if t not in seen_trials]
        if missing:
            raise ValueError(f"trial {missing[0]} is not in both arms of any contrast; trials "
                             f"present in both: {', '.join(map(str, sorted(seen_trials))) or 'none'}")
    count_cols = ["wins", "losses", "ties", "n_only_a", "n_only_b", "n_excluded"]
    columns = group_cols + list(_LOG_KEYS) + count_cols
    table = pd.DataFrame(rows, columns=columns)
    if table["seed"].nunique() > 1:
        pooled = (table.groupby(group_cols + ["trial", "trial_b", "subset", "contrast"],
                                sort=False)[count_cols].sum().reset_index())
        pooled["level"], pooled["seed"] = POOLED, None
        table = pd.concat([table, pooled[columns]], ignore_index=True)
    stats_cols = ["n", "gap", "p_value", "p_adjusted", "method", "m", "ci_low", "ci_high", "reason",
                  "certified_by"]
    if table.empty:
        empty = pd.DataFrame(columns=columns + stats_cols)
        empty["seed"] = seed_array([])
        return _arm_columns(empty, by)
    for col in count_cols:
        table[col] = table[col].astype(int)
    # one Bonferroni family (seed, trial, subset) per block of rows, as in the paper's tables:
    # by benchmark/model, seed (pooled last), subset ("all" first), trial; pairs as formed.
    # Until here a trial-level seed is its value or "none" (not logged); pooled rows have None.
    sort = pd.DataFrame({f"g{i}": table[c].astype(str) for i, c in enumerate(group_cols)})
    sort["pooled"] = table["level"].eq(POOLED).to_numpy()
    sort["seed_rank"] = pd.factorize(table["seed"].astype(str))[0]
    sort["subset"] = table["subset"].ne("all").to_numpy()
    sort["trial"] = table["trial"].to_numpy()
    table = table.loc[sort.sort_values(list(sort.columns), kind="stable").index]
    table = table.reset_index(drop=True)
    table["_family"] = table["level"] + ":" + table["seed"].astype(str)
    out = sign_test_table(table, family=tuple(group_cols) + ("_family", "trial", "subset"),
                          confidence=confidence).drop(columns=["_family"])
    out["seed"] = seed_array(None if isinstance(s, str) else s for s in out["seed"])
    out["certified_by"] = ""
    return _arm_columns(out, by)


def _reruns_trials(trials: set, wanted, trial_b) -> list[tuple[int, int]]:
    """Trial pairs (i, j) of a re-run contrast: each wanted i against ``trial_b``, or every i < j."""
    if trial_b is not None:
        firsts = wanted if wanted is not None else sorted(t for t in trials if t != trial_b)
        return [(i, int(trial_b)) for i in firsts
                if i in trials and int(trial_b) in trials and i != trial_b]
    pairs = list(itertools.combinations(sorted(trials), 2))
    return [(i, j) for i, j in pairs if wanted is None or i in wanted]


def arm_view(trials: pd.DataFrame, by: str = "protocol") -> pd.DataFrame:
    """A copy of ``trials`` whose ``protocol`` column holds each record's arm.

    With ``by="model"`` the model is the arm and the ``model`` column holds the protocol (so
    records are paired within one benchmark, protocol and seed); with ``by="protocol"`` the
    arm is :func:`~noisefloor.floor.nulls.arm_labels`.
    """
    frame = trials.copy()
    if by == "model":
        frame["protocol"], frame["model"] = (trials["model"].astype(str),
                                             trials["protocol"].astype(str))
    frame["protocol"] = arm_labels(frame)
    return frame


#: The columns that say where a row of :func:`log_contrasts` was paired: every row has all three,
#: whatever ``by``; the arms' own column is null (the arms are named in ``contrast``), as is one the
#: log does not carry.
WHERE_COLUMNS = ("benchmark", "model", "protocol")


def _arm_columns(table: pd.DataFrame, by: str) -> pd.DataFrame:
    """``table`` with :data:`WHERE_COLUMNS` first: with ``by="model"`` the held-fixed ``model``
    column of :func:`arm_view` is the protocol again and ``model`` is null; with ``by="protocol"``
    ``protocol`` is null."""
    out = table.rename(columns={"model": "protocol"}) if by == "model" else table.copy()
    for col in WHERE_COLUMNS:
        if col not in out.columns:
            out[col] = None
    return out[[*WHERE_COLUMNS, *(c for c in out.columns if c not in WHERE_COLUMNS)]]


def _log_row(ids: dict, trial: int, trial_b: int, subset: str, c) -> dict:
    return {**ids, "level": TRIAL, "trial": int(trial), "trial_b": int(trial_b), "subset": subset,
            "contrast": c.label, "wins": c.wins, "losses": c.losses, "ties": c.ties,
            "n_only_a": len(c.tasks_only_a), "n_only_b": len(c.tasks_only_b),
            "n_excluded": len(c.tasks_excluded)}


def left_out_totals(contrasts: pd.DataFrame) -> dict[str, int]:
    """Tasks left out of the pairing of :func:`log_contrasts` rows, each counted once.

    Rows pooled over seeds (``level == "pooled"``) repeat the per-seed counts, and a
    ``coordination_active`` row repeats the ``all`` row of the same seed, trial and contrast
    (its tasks are a subset), so only per-seed rows are summed, and a subset row only where no
    ``all`` row covers it.

    Parameters
    ----------
    contrasts : pandas.DataFrame
        Output of :func:`log_contrasts` (columns ``level, seed, trial, subset, contrast, n_only_a,
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
    >>> rows = pd.DataFrame({"level": ["trial", "trial", "pooled"], "seed": [1, 2, None],
    ...                      "trial": 1, "subset": "all",
    ...                      "contrast": "a-b", "n_only_a": 0, "n_only_b": 0,
    ...                      "n_excluded": [1, 1, 2]})
    >>> left_out_totals(rows)
    {'n_only_a': 0, 'n_only_b': 0, 'n_excluded': 2}
    """
    cols = ("n_only_a", "n_only_b", "n_excluded")
    if contrasts.empty:
        return {c: 0 for c in cols}
    rows = contrasts[(contrasts["level"] != POOLED).to_numpy(dtype=bool)]
    key = [c for c in ("benchmark", "model", "protocol", "seed", "trial", "contrast")
           if c in rows.columns]
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
        fewer than :data:`~noisefloor.floor.estimate.MIN_INFORMATIVE_PAIRS` untied pairs, so its sign
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
