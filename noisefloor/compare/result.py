"""``compare``: is system A better than system B on these logs, or inside the noise floor?

One call (:func:`compare`) answers the question people bring most: A against B on their own
logs. It pairs A and B task by task at every trial both ran (trial i of A against trial i of
B, trial 0 included), counts wins, losses and ties, and pools them over trials and seeds; the
gap is always **A - B** in the order the user gave (positive: A better). Beside each gap: its
Wilson-mapped interval, the exact sign-test p and the minimum detectable effect (MDE) at this
n. The floor comes from each arm's own certified re-runs (trial i against trial j of one
configuration, :func:`noisefloor.floor.nulls.certified_null_contrasts` with ``trial0=False``), their
W/L/T summed per arm (and seed) as the pooled gap sums its trials, so that gap and floor rest
on comparable numbers of paired tasks; the floor is the larger arm's upper bound
(:func:`noisefloor.floor.estimate.noise_floor`), and the gap is placed against it for a verdict. When the logs hold no re-runs, the result says so and
what to run (:attr:`Comparison.advice`).

Verdicts (:attr:`Comparison.verdict`), from the pooled gap g, its interval (lo, hi) and the
floor f:

- ``"above"``: g > f and lo > 0 (A is better, beyond the run-to-run noise);
- ``"below"``: g < -f and hi < 0 (A is worse, beyond the noise);
- ``"inside"``: otherwise (the difference is within the envelope of the noise);
- ``"no floor"``: nothing certifies a null contrast in either arm (no re-runs).

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks" (the floor, the sign test and the Wilson-mapped
interval). Conover, W. J. (1999), Practical Nonparametric Statistics, 3rd ed., section 3.4 (the
sign test). Connor, R. J. (1987), "Sample size for testing differences in proportions for the
paired-sample design", Biometrics 43(1) (power of paired designs).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats.validation import ParameterError, literal

__all__ = ["BY", "VERDICTS", "ComparisonRow", "Comparison", "compare"]

#: What the arms' names may be.
BY = ("protocol", "model", "agent", "run")
#: Values of :attr:`Comparison.verdict`.
VERDICTS = ("above", "inside", "below", "no floor")
#: Columns of the trial frame that a comparison reads.
_USED = ("benchmark", "model", "protocol", "seed", "task_id", "trial", "reward",
         "infrastructure_error", "store_events_at_start", "injections", "first_request_sha256",
         "run", "logged_protocol", "configuration")
#: Columns of :meth:`Comparison.to_frame`.
ROW_COLUMNS = ("level", "seed", "trial", "wins", "losses", "ties", "n", "gap", "ci_low",
               "ci_high", "p_value", "mde", "reason", "certified_by", "verdict")


@dataclass(frozen=True)
class ComparisonRow(FrozenResult):
    """One paired comparison of A and B: one trial at one seed, or pooled.

    Attributes
    ----------
    level : str
        ``"trial"`` (trial ``trial`` of A against trial ``trial`` of B at seed ``seed``) or
        ``"pooled"`` (counts summed over every trial and seed).
    seed : int or None
        The seed (None for a log without seeds, and for the pooled row).
    trial : int or None
        The trial index (None for the pooled row).
    wins, losses, ties : int
        Tasks where A succeeded and B failed, the reverse, and the same outcome in both.
    n : int
        Paired tasks with an outcome in both arms, ``wins + losses + ties``.
    gap : float
        ``(wins - losses) / n`` (proportion), A - B; NaN when n = 0.
    ci_low, ci_high : float
        Wilson-mapped interval of the gap at the comparison's confidence.
    p_value : float
        Exact two-sided sign test (ties dropped); NaN without untied pairs.
    mde : float
        Minimum detectable effect at this n: the smallest gap the paired test detects with the
        comparison's power at two-sided level ``1 - confidence``, the discordance (W + L) / n
        held at its observed value (Connor's 1987 normal approximation for paired proportions,
        :func:`noisefloor.stats.power.planning.minimum_detectable_effect` with ``test="mcnemar"``, as
        ``noisefloor plan --test mcnemar``). NaN with ``reason`` when undefined (no discordant
        task).
    reason : str
        Why a value is NaN; empty otherwise.
    certified_by : str
        Always ``""``: A against B is a real contrast, never a null one (declaring it null is
        refused); the column is the contrast-table shape of :mod:`noisefloor.floor.contrast_table`.
    verdict : str
        This row's gap placed against the floor, as :attr:`Comparison.verdict` is for the
        pooled row (``"above"``, ``"inside"``, ``"below"``, ``"no floor"``).
    """

    level: str
    seed: int | None
    trial: int | None
    wins: int
    losses: int
    ties: int
    n: int
    gap: float
    ci_low: float
    ci_high: float
    p_value: float
    mde: float
    reason: str = ""
    certified_by: str = ""
    verdict: str = ""


@dataclass(frozen=True)
class Comparison(FrozenResult):
    """Result of :func:`compare`: A against B, per trial and pooled, against the floor.

    Attributes
    ----------
    a, b : str
        The arms as the user named them; every gap is A - B (positive: A better).
    by : str
        What the names are: ``"protocol"``, ``"model"``, ``"agent"`` or ``"run"``.
    rows : tuple of ComparisonRow
        One per (seed, trial) both arms ran (``level == "trial"``), then the pooled row.
    confidence : float
        Level of every interval, and of the floor's bound.
    power : float
        Power at which :attr:`ComparisonRow.mde` is computed.
    floor : float
        The noise floor from the arms' certified re-runs (proportion; see
        :class:`noisefloor.floor.estimate.NoiseFloor`); NaN when there are none.
    envelope : float
        The largest bound over those null contrasts; NaN when there are none.
    floor_contrast : str
        The null contrast that sets the floor ("" without floor).
    null_contrasts : tuple of dict
        Every certified null contrast (``contrast, arm, level, seed, trial_a, trial_b, wins,
        losses, ties, certified_by``; ``level`` is ``"trial"``): what certified each.
    skipped_nulls : tuple of dict
        Re-runs nothing certifies (``contrast, seed, reason``).
    verdict : str
        One of :data:`VERDICTS` (see the module notes).
    verdict_text : str
        The verdict as a sentence, with the numbers it rests on.
    advice : str
        What to run or record when there is no floor (re-runs and tasks, from
        :func:`noisefloor.stats.power.planning.sample_size`); empty otherwise. Parameters are mentioned
        as ``{name}``: :meth:`advice_text` spells them.
    notes : tuple of str
        Every record left out of the pairing and why (trials one arm lacks, tasks in one arm
        only, undefined outcomes), one sentence each; a trial is never left out silently.
    n_tasks : int
        Distinct tasks paired.
    sources : tuple of str
        The logs read, as given.
    task_flips : pandas.DataFrame
        One row per task and (seed, trial) both arms ran: ``benchmark, model, seed, trial,
        task_id, a, b`` (outcomes 1.0, 0.0, NaN undefined or absent) and ``flip``: ``win``
        (A succeeded, B failed), ``loss``, ``tie``, ``undefined`` (left out of W/L/T),
        ``only a`` or ``only b`` (a task one arm lacks). Not in :meth:`to_dict`.
    """

    a: str
    b: str
    by: str
    rows: tuple[ComparisonRow, ...]
    confidence: float
    power: float
    floor: float
    envelope: float
    floor_contrast: str
    null_contrasts: tuple[dict, ...]
    skipped_nulls: tuple[dict, ...]
    verdict: str
    verdict_text: str
    advice: str = ""
    notes: tuple[str, ...] = ()
    n_tasks: int = 0
    sources: tuple[str, ...] = field(default=())
    task_flips: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)

    def advice_text(self, spell: Any = None) -> str:
        """:attr:`advice` with its parameter mentions spelled by ``spell(name, value)``
        (default: Python, ``null_pairs=``; the command line spells ``--null``)."""
        from noisefloor.stats.validation import mention_text

        return mention_text(self.advice, spell)

    @property
    def pooled(self) -> ComparisonRow:
        """The pooled row (counts summed over trials and seeds)."""
        return self.rows[-1]

    @property
    def trial_rows(self) -> tuple[ComparisonRow, ...]:
        """The per-trial rows."""
        return self.rows[:-1]

    # hand-written: seed and trial as nullable Int64 (the contrast-table shape)
    def to_frame(self) -> pd.DataFrame:
        """One row per :class:`ComparisonRow` (columns ``level, seed, trial, wins, losses,
        ties, n, gap, ci_low, ci_high, p_value, mde, reason, certified_by, verdict``; ``seed``
        and ``trial`` nullable Int64, NA on the pooled row: the shape of
        :mod:`noisefloor.floor.contrast_table`)."""
        from noisefloor.floor.contrast_table import seed_array

        frame = pd.DataFrame([r.to_dict() for r in self.rows], columns=list(ROW_COLUMNS))
        for col in ("seed", "trial"):
            frame[col] = seed_array(frame[col].tolist())
        return frame

    # hand-written: rows split into 'pooled' and 'trials', plus 'gap_direction'
    def to_dict(self) -> dict:
        """Every field, JSON-ready apart from NaN (the CLI writes NaN as null): the document
        ``noisefloor compare --json`` prints; ``advice`` is :meth:`advice_text` (parameters
        spelled as Python keywords, as every pipeline's ``--json`` spells its notes)."""
        return {"a": self.a, "b": self.b, "by": self.by, "gap_direction": "a - b",
                "confidence": self.confidence, "power": self.power,
                "pooled": self.pooled.to_dict(),
                "trials": [r.to_dict() for r in self.trial_rows],
                "floor": self.floor, "envelope": self.envelope,
                "floor_contrast": self.floor_contrast,
                "null_contrasts": [dict(r) for r in self.null_contrasts],
                "skipped_nulls": [dict(r) for r in self.skipped_nulls],
                "verdict": self.verdict, "verdict_text": self.verdict_text,
                "advice": self.advice_text(), "notes": list(self.notes), "n_tasks": self.n_tasks,
                "sources": list(self.sources)}


def _arm_values(trials: pd.DataFrame, by: str) -> pd.Series:
    """The name of each record along ``by`` (``agent``: the recorded agent implementation)."""
    if by == "agent":
        from noisefloor.logs.configuration import parse_configuration

        conf = trials["configuration"] if "configuration" in trials.columns else None
        if conf is None:
            return pd.Series([None] * len(trials), index=trials.index, dtype=object)
        known = conf.dropna()
        out = pd.Series([None] * len(trials), index=trials.index, dtype=object)
        if len(known):
            agents = {c: parse_configuration(c).get("agent") for c in known.unique()}
            out.loc[known.index] = known.map(agents).to_numpy(dtype=object)
        return out
    if by not in trials.columns:
        return pd.Series([None] * len(trials), index=trials.index, dtype=object)
    return trials[by]


def _names(trials: pd.DataFrame, by: str) -> set[str]:
    """The distinct names along ``by``."""
    return {str(x) for x in _arm_values(trials, by).dropna().unique()}


def _resolve_by(trials: pd.DataFrame, a: str, b: str, by: str | None) -> str:
    if by is not None:
        if by not in BY:
            raise ParameterError("by", "one of " + ", ".join(map(repr, BY)), by)
        return by
    fits = [d for d in BY if {a, b} <= _names(trials, d)]
    if len(fits) == 1:
        return fits[0]
    if not fits:
        shown = "; ".join(
            f"{d}: " + ", ".join(sorted(_names(trials, d))[:8]) for d in BY if _names(trials, d))
        raise ParameterError("a", "", message=literal(
            f"{a!r} and {b!r} are not both names of one protocol, model, agent or run of the "
            f"logs ({shown})") + "; name the arms as the logs do")
    raise ParameterError("by", "", message=literal(
        f"{a!r} and {b!r} name arms along several columns ({', '.join(fits)})") +
        "; say which with {by}")


def _identity_of_runs(rows: pd.DataFrame) -> list[tuple[str, dict]]:
    from noisefloor.logs.configuration import parse_configuration

    out = []
    for run, g in rows.groupby("run", sort=False) if "run" in rows.columns else [("", rows)]:
        first = g.iloc[0]
        logged = first["logged_protocol"] if "logged_protocol" in g.columns else first["protocol"]
        models: Any = g["model"].dropna().unique() if "model" in g.columns else []
        protos = g["logged_protocol" if "logged_protocol" in g.columns else "protocol"]
        identity = {"protocol": str(logged) if protos.nunique() == 1 else
                    ", ".join(sorted(map(str, protos.unique()))),
                    "model": ", ".join(sorted(map(str, models)))}
        identity.update(parse_configuration(first.get("configuration")))
        out.append((str(run), identity))
    return out


def _check_one_configuration(rows: pd.DataFrame, name: str, by: str) -> None:
    """An arm is one configuration: refuse one whose runs differ, naming the fields."""
    from noisefloor.logs.configuration import describe_differences

    runs = _identity_of_runs(rows)
    (r0, first), others = runs[0], runs[1:]
    for field_name in ("protocol", "model"):
        if "," in first[field_name]:
            raise ParameterError("a", "", message=literal(
                f"arm {name!r} ({by}) holds records of several configurations ({field_name}: "
                f"{first[field_name]})") + "; name one configuration per arm, e.g. with {by}")
    for run, identity in others:
        text = describe_differences(first, identity, name_a=r0, name_b=run)
        if text:
            raise ParameterError("a", "", message=literal(
                f"arm {name!r} ({by}) holds runs of different configurations ({text}): runs "
                "of different configurations are different arms, never re-runs") +
                "; name one configuration per arm, e.g. with {by}")


def _renumber_runs(rows: pd.DataFrame) -> pd.DataFrame:
    """Re-runs of one configuration given as separate logs: run k's trials follow run k-1's."""
    if "run" not in rows.columns or rows["run"].nunique() <= 1:
        return rows
    rows = rows.copy()
    offset = 0
    trial = rows["trial"].to_numpy().copy()
    for run in pd.unique(rows["run"]):
        mask = (rows["run"] == run).to_numpy()
        trial[mask] += offset
        offset = int(trial[mask].max()) + 1
    rows["trial"] = trial
    return rows


def _mde(n: int, discordant: int, confidence: float, power: float) -> tuple[float, str]:
    from noisefloor.stats.power.planning import minimum_detectable_effect

    if n == 0:
        return math.nan, "no paired task"
    if discordant == 0:
        return math.nan, "no discordant task: the paired test has no information at this n"
    plan = minimum_detectable_effect(n, test="mcnemar", p_d=discordant / n,
                                     alpha=1 - confidence, power=power)
    return float(plan.gap), plan.reason


def _row(level: str, seed, trial, counts: dict, confidence: float, power: float) -> ComparisonRow:
    from noisefloor.stats.paired import sign_test

    w, lo_, t = counts["wins"], counts["losses"], counts["ties"]
    test = sign_test(w, lo_, t, confidence=confidence)
    mde, why = _mde(w + lo_ + t, w + lo_, confidence, power)
    reason = "; ".join(x for x in (test.reason, "" if math.isnan(test.gap) else why) if x)
    return ComparisonRow(level, seed, trial, w, lo_, t, w + lo_ + t, float(test.gap),
                         float(test.ci_low), float(test.ci_high), float(test.p_value), mde,
                         reason)


def _verdict(row: ComparisonRow, floor: float, a: str, b: str, level: str) -> tuple[str, str]:
    from noisefloor.report.text import pp

    gap = f"{pp(row.gap, signed=True)} pp [{pp(row.ci_low, signed=True)}, " \
          f"{pp(row.ci_high, signed=True)}] (A - B, A = {a}, B = {b})"
    if math.isnan(floor):
        return "no floor", (f"gap {gap}: no floor to place it against (no certified re-run of "
                            "either arm)")
    band = f"the floor band +/-{pp(floor)} pp"
    if row.gap > floor and row.ci_low > 0:
        return "above", f"{a} is better than {b} beyond the noise: gap {gap} lies above {band}"
    if row.gap < -floor and row.ci_high < 0:
        return "below", f"{a} is worse than {b} beyond the noise: gap {gap} lies below {band}"
    if abs(row.gap) <= floor:
        return "inside", f"no difference beyond the noise: gap {gap} lies inside {band}"
    return "inside", (f"no difference beyond the noise: gap {gap} clears {band}, but its "
                      f"{level} interval includes 0")


def _advice(pooled: ComparisonRow, a: str, b: str, n_tasks: int, n_trials: int,
            confidence: float, power: float) -> str:
    """What to run (or record) for a floor; mentions parameters as ``{name}`` (see
    :func:`noisefloor.stats.validation.mention_text`)."""
    from noisefloor.stats.power.planning import sample_size

    if n_trials >= 2:
        text = (f"the logs hold re-runs of {a} and {b}, but nothing certifies them null: record "
                "store_events_at_start (0 when no coordination store is read) or injections "
                "in the trial records, or declare the re-runs of an arm null with {null_pairs} "
                f"('{a}-{a}') when it has no coordination layer")
    else:
        text = (f"run each arm again on the same tasks: at least 3 trials per task (the logs "
                f"hold {n_trials}), so that trial i against trial j of one configuration gives "
                "a floor")
    p_d = (pooled.wins + pooled.losses) / pooled.n if pooled.n else 0.0
    if p_d > 0:
        target = min(max(abs(pooled.gap), 0.02), p_d)
        plan = sample_size(target, test="mcnemar", p_d=p_d, alpha=1 - confidence, power=power)
        if plan.n > 0:
            text += (f"; to detect a gap of {target * 100:.1f} pp at power {power:g} "
                     f"(discordance {p_d:.2f} held fixed) the paired test needs {plan.n} tasks "
                     f"(these logs pair {n_tasks}; see noisefloor plan)")
    return text


def _task_flips(group: Any, a: str, b: str, trial: int) -> pd.DataFrame:
    """Per task of one group and trial: the two outcomes and the flip (see
    :attr:`Comparison.task_flips`); the same rule as :func:`noisefloor.floor.pairing.pair_counts`."""
    import numpy as np

    sa, sb = group.slots[(a, trial)], group.slots[(b, trial)]
    keep = sa.present | sb.present
    oa, ob = sa.outcome[keep], sb.outcome[keep]
    pa, pb = sa.present[keep], sb.present[keep]
    flip = np.where(~pb, "only a", np.where(~pa, "only b", np.where(
        np.isnan(oa) | np.isnan(ob), "undefined", np.where(
            oa == ob, "tie", np.where(oa == 1, "win", "loss")))))
    key = dict(zip(("benchmark", "model"), group.key))
    return pd.DataFrame({"benchmark": key.get("benchmark", ""), "model": key.get("model", ""),
                         "seed": group.seed, "trial": trial,
                         "task_id": np.asarray(group.tasks, dtype=object)[keep],
                         "a": oa, "b": ob, "flip": flip})


def _pooled_reruns(table: pd.DataFrame) -> pd.DataFrame:
    """One null contrast per arm and seed: the W/L/T of all its certified re-run pairs summed,
    so the floor is on the footing of the pooled gap (counts summed over trials)."""
    # plain lists (a handful of rows: pandas' groupby overhead would dominate); groups in the
    # order of a sorted groupby: by arm, then seed, a missing seed (None) last
    groups: dict[tuple, list[int]] = {}
    seeds = [None if pd.isna(x) else x for x in table["seed"].tolist()]
    for i, key in enumerate(zip(table["a"].tolist(), seeds)):
        groups.setdefault(key, []).append(i)
    clean, certified = table["clean"].tolist(), table["certified_by"].tolist()
    counts = {c: table[c].tolist() for c in ("wins", "losses", "ties")}
    rows = [{"contrast": f"{arm} re-runs", "kind": "reruns",
             "clean": bool(all(clean[i] for i in idx)),
             "certified_by": "; ".join(sorted({certified[i] for i in idx})),
             "seed": seed, **{c: int(sum(v[i] for i in idx)) for c, v in counts.items()}}
            for (arm, seed), idx in sorted(groups.items(), key=lambda kv: (
                kv[0][0], kv[0][1] is None, 0 if kv[0][1] is None else kv[0][1]))]
    out = pd.DataFrame(rows)
    out["seed"] = pd.array([None if x is None or x != x else int(x) for x in out["seed"]],
                           dtype="Int64")
    return out


def compare(
    logs: Any, *, a: str, b: str, by: str | None = None, format: str | None = None,
    allow_nan: bool = False, benchmark: str | None = None, model: str | None = None,
    protocol: str | None = None, score: str | None = None, null_pairs: Sequence = (),
    confidence: float = 0.95, power: float = 0.8, infrastructure_errors: str = "exclude",
) -> Comparison:
    """A against B on per-trial logs: per trial and pooled, against the floor of their re-runs.

    Parameters
    ----------
    logs : path, ``"PATH=LABEL"``, (path, label), a sequence of them, or a DataFrame
        The logs, each one run (:func:`noisefloor.logs.load_trials`), or trials already loaded.
    a, b : str
        The two arms, by name; every gap is A - B (positive: A better).
    by : {"protocol", "model", "agent", "run"} or None, default None
        What ``a`` and ``b`` name; None infers it when exactly one of them holds both names.
    format, allow_nan, benchmark, model, protocol, score
        As in :func:`noisefloor.logs.load_trials`.
    null_pairs : sequence of str
        Re-runs the user declares null (``"x-x"``, ``x`` an arm), as in
        :func:`noisefloor.floor.nulls.certified_null_contrasts`. Declaring ``a-b`` itself is refused:
        the contrast under test cannot be its own floor.
    confidence : float, default 0.95
        Level of every interval and of the floor's bound; ``1 - confidence`` is the MDE's alpha.
    power : float, default 0.8
        Power of the MDE and of the advice.
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        An infrastructure error is left out or counted as a failure (never a success).

    Returns
    -------
    Comparison

    Raises
    ------
    ParameterError
        ``a == b``; names that are not arms of the logs, or ambiguous without ``by``; an arm
        holding runs of different configurations (the fields that differ are named); the
        contrast under test declared null; a bad ``confidence``, ``power`` or ``by``.
    ValueError
        No task paired between A and B, or a bad log.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [{"protocol": p, "task_id": str(i), "trial": t, "reward": float(ok)}
    ...         for p, wins in (("new", 7), ("old", 4)) for t in (0, 1)
    ...         for i, ok in enumerate([1] * wins + [0] * (10 - wins))]
    >>> c = compare(pd.DataFrame(rows), a="new", b="old")
    >>> c.by, (c.pooled.wins, c.pooled.losses, c.pooled.ties), round(c.pooled.gap, 2)
    ('protocol', (6, 0, 14), 0.3)
    >>> c.verdict, c.advice_text()[:59]  # nothing certifies these re-runs as null
    ('no floor', 'the logs hold re-runs of new and old, but nothing certifies')
    """
    from noisefloor.floor.contrast_table import split_protocol_pair
    from noisefloor.floor.estimate import noise_floor
    from noisefloor.floor.nulls import NoNullContrastError, certified_null_contrasts
    from noisefloor.floor.pairing import encode_groups, pair_counts
    from noisefloor.logs.load import read_log_trials
    from noisefloor.stats import validation as _validate

    confidence = _validate.probability("confidence", confidence)
    power = _validate.probability("power", power)
    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, str) or not value:
            raise ParameterError(name, "a non-empty arm name", value)
    if a == b:
        raise ParameterError("b", "", message=literal(f"A and B are both {a!r}") +
                             ": a comparison needs two arms (the re-runs of one arm are its "
                             "floor, not a comparison)")
    for pair in null_pairs:
        parts = split_protocol_pair(pair, {a, b}, what="null pair") if isinstance(pair, str) \
            else tuple(pair)
        if set(parts) == {a, b}:
            raise ParameterError("null_pairs", "", message=literal(
                f"{pair!r} declares the contrast under test null") + ": a floor built from "
                "the comparison itself would call every difference noise; declare only "
                "re-runs of one arm ('a-a') with {null_pairs}")
    trials = read_log_trials(logs, format=format, allow_nan=allow_nan, benchmark=benchmark,
                             model=model, protocol=protocol, score=score)
    trials = trials[[c for c in _USED if c in trials.columns]]
    by = _resolve_by(trials, a, b, by)
    names = _arm_values(trials, by)
    arms: dict[str, pd.DataFrame] = {}
    for name in (a, b):
        rows = trials[(names == name).fillna(False).to_numpy(dtype=bool)]
        if rows.empty:
            raise ParameterError("a" if name == a else "b", "", message=literal(
                f"no record of {by} {name!r} in the logs"))
        _check_one_configuration(rows, name, by)
        arms[name] = _renumber_runs(rows)
    both = pd.concat([arms[a], arms[b]], ignore_index=True)
    arm_of = pd.Series([a] * len(arms[a]) + [b] * len(arms[b]))
    pairing = both.drop(columns=[c for c in ("model", "protocol") if c in both.columns])
    groups = encode_groups(pairing, arm_of, infrastructure_errors)
    multi = len({g.key for g in groups}) > 1
    rows_out: list[ComparisonRow] = []
    notes: list[str] = []
    totals = {"wins": 0, "losses": 0, "ties": 0}
    left = {"n_only_a": 0, "n_only_b": 0, "n_excluded": 0}
    flips: list[pd.DataFrame] = []
    for group in groups:
        ta, tb = set(group.trials(a)), set(group.trials(b))
        where = ("/".join(group.key) + " " if multi else "") + \
            ("" if group.seed is None else f"seed {group.seed} ")
        for t in sorted(ta ^ tb):
            has, lacks = (a, b) if t in ta else (b, a)
            notes.append(f"{where}trial {t}: only {has} ran it ({lacks} has no trial {t}), so "
                         "it is not paired")
        for t in sorted(ta & tb):
            counts = pair_counts(group.slots[(a, t)], group.slots[(b, t)])
            flips.append(_task_flips(group, a, b, t))
            rows_out.append(_row("trial", group.seed, t, counts, confidence, power))
            for k in totals:
                totals[k] += counts[k]
            for k in left:
                left[k] += counts[k]
    if not rows_out:
        raise ValueError(f"no trial of {a} and {b} can be paired: they share no benchmark, seed "
                         "and trial index")
    if left["n_only_a"] or left["n_only_b"]:
        notes.append(f"{left['n_only_a']} task-trial(s) only in {a} and {left['n_only_b']} only "
                     f"in {b} are left out (a paired comparison needs both)")
    if left["n_excluded"]:
        why = ("an infrastructure error or no reward" if infrastructure_errors == "exclude"
               else "no reward")
        notes.append(f"{left['n_excluded']} paired task-trial(s) left out: {why} in one arm")
    pooled = _row("pooled", None, None, totals, confidence, power)
    rows_out.append(pooled)
    # the floor: each arm's own certified re-runs (trial i against trial j)
    floor_trials = both.assign(protocol=arm_of.to_numpy()).drop(
        columns=[c for c in ("run",) if c in both.columns])
    if "model" in floor_trials.columns:
        floor_trials = floor_trials.assign(model="")
    null_rows: tuple[dict, ...] = ()
    skipped: tuple[dict, ...] = ()
    floor = envelope = math.nan
    floor_contrast = ""
    try:
        nulls = certified_null_contrasts(floor_trials, null_pairs=null_pairs, trial0=False,
                                         infrastructure_errors=infrastructure_errors)
        nf = noise_floor(_pooled_reruns(nulls.table), confidence=confidence)
        floor, envelope, floor_contrast = float(nf.floor), float(nf.envelope), nf.floor_contrast
        null_rows = tuple({"contrast": r["contrast"], "arm": r["a"], "level": r["level"],
                           "seed": None if pd.isna(r["seed"]) else int(r["seed"]),
                           "trial_a": int(r["trial_a"]), "trial_b": int(r["trial_b"]),
                           "wins": int(r["wins"]), "losses": int(r["losses"]),
                           "ties": int(r["ties"]), "certified_by": r["certified_by"]}
                          for r in nulls.table.to_dict(orient="records"))
        skipped = tuple({"contrast": s["contrast"], "seed": s["seed"], "reason": s["reason"]}
                        for s in nulls.skipped)
    except NoNullContrastError as exc:
        skipped = tuple({"contrast": r["contrast"], "seed": r["seed"], "reason": r["reason"]}
                        for r in exc.skipped)
    rows_out = [dataclasses.replace(r, verdict=_verdict(r, floor, a, b, r.level)[0])
                for r in rows_out]
    verdict, text = _verdict(pooled, floor, a, b, "pooled")
    n_tasks = int(pairing["task_id"].nunique())
    n_trials = max(len(set(g.trials(a))) for g in groups)
    advice = (_advice(pooled, a, b, n_tasks, n_trials, confidence, power)
              if math.isnan(floor) else "")
    sources = () if isinstance(logs, pd.DataFrame) else tuple(
        str(x[0]) + (f"={x[1]}" if x[1] else "") if isinstance(x, tuple) else str(x)
        for x in ([logs] if isinstance(logs, (str, tuple)) or not isinstance(logs, Sequence)
                  else list(logs)))
    return Comparison(a=a, b=b, by=by, rows=tuple(rows_out), confidence=confidence, power=power,
                      floor=floor, envelope=envelope, floor_contrast=floor_contrast,
                      null_contrasts=null_rows, skipped_nulls=skipped, verdict=verdict,
                      verdict_text=text, advice=advice, notes=tuple(notes), n_tasks=n_tasks,
                      sources=sources, task_flips=pd.concat(flips, ignore_index=True))
