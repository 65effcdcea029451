"""The runtime alarms (R1-R3) over trial logs: time order, pass^k rounds, one report.

:func:`monitor_trials` takes the trial DataFrame of :func:`noisefloor.logs.load_trials` for the
monitored logs and for the release baseline, puts both in time order (:func:`order_trials`),
builds the coordination-active pass^k rounds of the golden tasks
(:func:`coordination_active_passk_rounds`) and runs the alarms of :mod:`noisefloor.stats.monitor`;
every alarm is mapped back to the record (file and line) that raised it. No I/O happens here.
"""

from __future__ import annotations

import datetime as _dt
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.stats import _validate
from noisefloor.stats.monitor import (
    Alarm,
    CollisionRateResult,
    CusumResult,
    RollingQuantileResult,
    _alarms_frame,
    _positive_int,
    collision_rate_monitor,
    rolling_quantile_monitor,
    tabular_cusum,
)
from noisefloor.stats.passk import pass_hat_k

__all__ = [
    "COORDINATION_KEYS_FIELD",
    "TIMESTAMP_FIELD",
    "MonitorReport",
    "NaiveTimestampWarning",
    "PassKRounds",
    "coordination_active_passk_rounds",
    "monitor_trials",
    "order_trials",
]

#: Field of a trial record's ``extra`` that carries the calls of the trial (see
#: ``/work/notes/store_api.md``: one ``{"tool", "key", "fingerprint", "injected"}`` per call).
COORDINATION_KEYS_FIELD = "coordination_keys"

#: Field of a trial record's ``extra`` read as its time stamp, when every record has one.
TIMESTAMP_FIELD = "timestamp"


def _where(frame: pd.DataFrame, label: Any) -> str:
    """``file:line`` of a row when the frame carries provenance, else its row label."""
    for src, line in (("source", "line"), ("source_file", "source_line"), ("file", "line")):
        if src in frame.columns and line in frame.columns:
            return f"{frame.at[label, src]}:{frame.at[label, line]}"
    return f"row {label!r}"


def _require(frame: object, name: str, columns: Sequence[str]) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame of trials, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} lacks column(s) {', '.join(map(repr, missing))}; expected the trial frame of "
            "noisefloor.logs.load_trials"
        )
    if not frame.index.is_unique:
        raise ValueError(f"{name} has duplicate row labels; reset its index first")
    return frame


def order_trials(frame: pd.DataFrame, *, time_field: str = TIMESTAMP_FIELD) -> pd.DataFrame:
    """Put trial records in time order.

    Parameters
    ----------
    frame : pandas.DataFrame
        Trial frame of :func:`noisefloor.logs.load_trials` (an ``extra`` column is optional).
    time_field : str, default "timestamp"
        Key of ``extra`` holding an ISO 8601 time stamp.

    Returns
    -------
    pandas.DataFrame
        The same rows (labels kept). If *every* record has ``extra[time_field]``, rows are sorted
        by it (stable: equal stamps keep file order). A stamp is an ISO 8601 string
        (``datetime.fromisoformat``: ``2026-01-01T12:00:00Z``, ``...+02:00``, a date alone is
        midnight); a stamp without a UTC offset is read as UTC, and a
        :class:`NaiveTimestampWarning` says how many were.
        If *no* record has one, the frame order is kept: the order of the files as given, then
        line order within each file, which is what ``load_trials`` returns.

    Raises
    ------
    ValueError
        If only some records carry a time stamp (the first one without it is named), or a
        time stamp is not an ISO 8601 string: a number (epoch seconds would otherwise be read
        as nanoseconds), a word such as ``"now"``, a malformed date (its file, line and field
        are named).

    Warns
    -----
    NaiveTimestampWarning
        When some stamps carry no UTC offset (read as UTC).

    Examples
    --------
    >>> df = pd.DataFrame({"trial": [0, 1], "extra": [{"timestamp": "2026-01-02T00:00:00Z"},
    ...                                               {"timestamp": "2026-01-01T00:00:00Z"}]})
    >>> order_trials(df)["trial"].tolist()
    [1, 0]
    """
    _require(frame, "frame", [])
    if "extra" not in frame.columns or frame.empty:
        return frame
    has = frame["extra"].map(lambda e: isinstance(e, dict) and e.get(time_field) is not None)
    if not has.any():
        return frame
    if not has.all():
        label = frame.index[~has.to_numpy()][0]
        raise ValueError(
            f"{_where(frame, label)}: extra.{time_field} is missing, but other records carry one; "
            "time order needs it on every record or on none (then file order is used)"
        )
    stamps, naive = [], []
    for label, extra in frame["extra"].items():
        stamp, is_naive = _parse_stamp(extra[time_field], f"{_where(frame, label)}: extra.{time_field}")
        stamps.append(stamp)
        if is_naive:
            naive.append(label)
    if naive:
        warnings.warn(
            f"{len(naive)} of {len(stamps)} records carry extra.{time_field} without a UTC offset "
            f"(first: {_where(frame, naive[0])}); they are read as UTC. Write the offset "
            "(2026-01-01T12:00:00Z or +02:00) if they were local times",
            NaiveTimestampWarning, stacklevel=2)
    order = np.argsort(np.asarray(stamps, dtype=np.int64), kind="stable")
    return frame.iloc[order]


class NaiveTimestampWarning(UserWarning):
    """Time stamps without a UTC offset were read as UTC (see :func:`order_trials`).

    Examples
    --------
    >>> issubclass(NaiveTimestampWarning, UserWarning)
    True
    """


def _parse_stamp(value: Any, where: str) -> tuple[int, bool]:
    """``(nanoseconds since the epoch in UTC, had no offset)`` of one ISO 8601 string.

    Only strings are time stamps: a number (epoch seconds? milliseconds?) is ambiguous and is
    refused, and so are words such as ``"now"`` that a general parser would accept.
    """
    if not isinstance(value, str):
        kind = "a number" if isinstance(value, (int, float)) and not isinstance(value, bool) else type(value).__name__
        raise ValueError(
            f"{where} = {value!r:.60} is {kind}, not an ISO 8601 string; epoch numbers are not "
            "read (seconds and nanoseconds cannot be told apart): write e.g. "
            "'2026-01-01T12:00:00Z'")
    try:
        parsed = _dt.datetime.fromisoformat(value.strip().replace("z", "Z"))
    except ValueError:
        raise ValueError(
            f"{where} = {value!r:.60} is not an ISO 8601 time stamp (expected e.g. "
            "'2026-01-01T12:00:00Z' or '2026-01-01T14:00:00+02:00')") from None
    is_naive = parsed.tzinfo is None
    aware = parsed.replace(tzinfo=_dt.UTC) if is_naive else parsed.astimezone(_dt.UTC)
    return pd.Timestamp(aware).value, is_naive


@dataclass(frozen=True)
class PassKRounds:
    """Coordination-active pass^k of a golden-task set, one value per round.

    Attributes
    ----------
    k : int
        The k of pass^k.
    trials_per_round : int
        n, the coordination-active trials of each task in one round.
    tasks : tuple of str
        The golden tasks (sorted).
    values : tuple of float
        Mean over the golden tasks of ``C(c, k) / C(n, k)`` in each round, in round order.
    rows : tuple
        Label of the row that completed each round (the latest of its trials in time order).
    policy : str
        How rounds are formed: ``"latest"`` or ``"blocks"`` (see
        :func:`coordination_active_passk_rounds`).
    n_pending : int
        Coordination-active golden trials after the last complete round, waiting for the next.
    n_skipped : int
        Coordination-active golden trials passed over because a newer trial of the same task
        entered the round (policy ``"latest"`` only; 0 for ``"blocks"``).
    excluded : dict of str to int
        Rows left out, by reason: ``infrastructure_error``, ``reward_null``,
        ``store_unknown`` (``store_events_at_start`` null), ``store_empty`` (0 events, not
        coordination-active), ``not_golden``.
    reason : str
        Why there is no round, if there is none; empty otherwise.
    """

    k: int
    trials_per_round: int
    tasks: tuple[str, ...]
    values: tuple[float, ...]
    rows: tuple[Any, ...]
    policy: str
    n_pending: int
    n_skipped: int
    excluded: dict = field(default_factory=dict)
    reason: str = ""

    def to_dict(self) -> dict:
        """Plain-dict view."""
        d = asdict(self)
        d["tasks"], d["values"], d["rows"] = list(self.tasks), list(self.values), list(self.rows)
        return d

    def to_frame(self) -> pd.DataFrame:
        """One row per round: ``round, pass_hat_k, row``."""
        return pd.DataFrame(
            {"round": np.arange(len(self.values)), "pass_hat_k": self.values, "row": self.rows}
        )


_TRIAL_COLUMNS = ("task_id", "reward", "infrastructure_error", "store_events_at_start")


def coordination_active_passk_rounds(
    frame: pd.DataFrame,
    *,
    k: int = 1,
    trials_per_round: int = 1,
    tasks: Iterable[str] | None = None,
    infrastructure_errors: str = "exclude",
    rounds: str = "latest",
) -> PassKRounds:
    """Split a time-ordered trial stream into rounds and compute pass^k of each.

    Parameters
    ----------
    frame : pandas.DataFrame
        Trials in time order (see :func:`order_trials`) with columns ``task_id``, ``reward``,
        ``infrastructure_error``, ``store_events_at_start``.
    k : int, default 1
        The k of pass^k, 1 <= k <= ``trials_per_round``.
    trials_per_round : int, default 1
        n: coordination-active trials of each golden task per round. The paper's design runs
        trial 0 (store empty) and trial 1 (store holds peer events) per task, so a round is one
        coordination-active trial per task and pass^1 its success rate.
    tasks : iterable of str or None
        The golden-task set; ``None`` takes every task with a coordination-active trial.
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Leave trials with ``infrastructure_error`` out (counted in ``excluded``), or count
        them as failures.
    rounds : {"latest", "blocks"}, default "latest"
        How a task's trials enter rounds when tasks become coordination-active at different
        times (see Notes).

    Returns
    -------
    PassKRounds
        ``k, trials_per_round, tasks, values, rows, policy, n_pending, n_skipped, excluded,
        reason``.

    Raises
    ------
    TypeError, ValueError
        For a missing column, ``k`` outside ``1..trials_per_round``, or an empty task set.

    Notes
    -----
    A trial is coordination-active when ``store_events_at_start > 0``; success is a reward
    within 1e-6 of 1 (DESIGN.md). Trials are read in time order; a round completes at the first
    trial after which every golden task has at least n coordination-active trials not yet used.
    With ``"latest"`` the round takes each task's n most recent such trials and the older ones
    are passed over (counted in ``n_skipped``), so a round always describes the recent past even
    when one task becomes coordination-active late; with ``"blocks"`` each task's trials are cut
    into consecutive blocks of n and round r is the r-th block of every task (nothing is passed
    over, but rounds lag behind a task that is active often). In the paper's design (per round,
    one trial 0 with an empty store and one coordination-active trial 1 per task) both agree.
    A round's value is the tau-bench estimator averaged over tasks,
    ``mean_t C(c_t, k) / C(n, k)`` with ``c_t`` the successes of task t in the round (Yao et
    al. 2024), computed by :func:`noisefloor.stats.passk.pass_hat_k`; its ``row`` is the trial
    that completed it.

    References
    ----------
    Yao, S. et al. (2024). tau-bench: A benchmark for tool-agent-user interaction in
    real-world domains. arXiv:2406.12045.

    Examples
    --------
    >>> df = pd.DataFrame({"task_id": ["a", "b", "a", "b"], "reward": [1.0, 0.0, 1.0, 1.0],
    ...                    "infrastructure_error": False, "store_events_at_start": [2, 1, 3, 2]})
    >>> coordination_active_passk_rounds(df).values
    (0.5, 1.0)
    """
    _require(frame, "frame", _TRIAL_COLUMNS)
    n = _positive_int("trials_per_round", trials_per_round)
    kk = _positive_int("k", k)
    if kk > n:
        raise ValueError(f"k must be at most trials_per_round ({n}), got {k!r}")
    policy = _validate.choice("infrastructure_errors", infrastructure_errors, ("exclude", "fail"))
    how = _validate.choice("rounds", rounds, ("latest", "blocks"))

    infra = frame["infrastructure_error"].astype(bool).to_numpy()
    reward = pd.to_numeric(frame["reward"], errors="raise").to_numpy(dtype=float)
    events = frame["store_events_at_start"]
    unknown = events.isna().to_numpy()
    active = np.zeros(len(frame), dtype=bool)
    active[~unknown] = events[~unknown].to_numpy(dtype=np.int64) > 0
    excluded = {
        "infrastructure_error": 0,
        "reward_null": 0,
        "store_unknown": 0,
        "store_empty": 0,
        "not_golden": 0,
    }
    keep = np.ones(len(frame), dtype=bool)
    if policy == "exclude":
        excluded["infrastructure_error"] = int(infra.sum())
        keep &= ~infra
    null_reward = np.isnan(reward) & ~(infra & (policy == "fail"))
    excluded["reward_null"] = int((keep & null_reward).sum())
    keep &= ~null_reward
    excluded["store_unknown"] = int((keep & unknown).sum())
    keep &= ~unknown
    excluded["store_empty"] = int((keep & ~active).sum())
    keep &= active

    task_ids = frame["task_id"].astype(str).to_numpy()
    if tasks is None:
        golden = sorted(set(task_ids[keep].tolist()))
    else:
        if isinstance(tasks, str):
            raise TypeError("tasks must be an iterable of task ids, not a single string")
        golden = sorted({str(t) for t in tasks})
        if not golden:
            raise ValueError("tasks must name at least one golden task")
    is_golden = np.isin(task_ids, golden)
    excluded["not_golden"] = int((keep & ~is_golden).sum())
    keep &= is_golden

    pending: dict[str, list[int]] = {t: [] for t in golden}
    ever = dict.fromkeys(golden, 0)
    blocks: list[np.ndarray] = []
    skipped = 0
    ready = 0  # golden tasks with at least n unused trials
    for pos in np.flatnonzero(keep):
        task = task_ids[pos]
        pending[task].append(int(pos))
        ever[task] += 1
        ready += len(pending[task]) == n
        while ready == len(golden):
            if how == "latest":
                blocks.append(np.concatenate([q[-n:] for q in pending.values()]))
                skipped += sum(len(q) - n for q in pending.values())
                pending = {t: [] for t in golden}
            else:
                blocks.append(np.concatenate([q[:n] for q in pending.values()]))
                pending = {t: q[n:] for t, q in pending.items()}
            ready = sum(len(q) >= n for q in pending.values())
    values: list[float] = []
    rows: list[Any] = []
    for block in blocks:
        trials = pd.DataFrame(
            {
                "task_id": task_ids[block],
                "reward": reward[block],
                "infrastructure_error": infra[block],
            }
        )
        values.append(pass_hat_k(trials, kk, infrastructure_errors=policy).value)
        rows.append(frame.index[block.max()])
    reason = ""
    left = ", ".join(f"{count} {why}" for why, count in excluded.items() if count)
    if not golden:
        reason = "no coordination-active trial (store_events_at_start > 0) in the frame"
        if left:  # say why: an all-infrastructure-error log is not an empty store
            reason += f" once these are left out: {left}"
    elif not blocks:
        short = [t for t in golden if ever[t] < n]
        if all(ever[t] == 0 for t in golden):
            shown = ", ".join(map(repr, golden[:3])) + (", ..." if len(golden) > 3 else "")
            reason = (
                f"no complete round: none of the {len(golden)} golden task(s) ({shown}) has a "
                "usable coordination-active trial" + (f"; left out: {left}" if left else "")
            )
        else:
            reason = (
                f"no complete round: {len(short)} golden task(s) have fewer than {n} "
                f"coordination-active trial(s), e.g. {short[0]!r} has {ever[short[0]]}"
            )
    return PassKRounds(
        k=kk,
        trials_per_round=n,
        tasks=tuple(golden),
        values=tuple(values),
        rows=tuple(rows),
        policy=how,
        n_pending=int(sum(len(q) for q in pending.values())),
        n_skipped=int(skipped),
        excluded=excluded,
        reason=reason,
    )


@dataclass(frozen=True)
class MonitorReport:
    """Result of :func:`monitor_trials`: the three alarms over one monitored stream.

    Attributes
    ----------
    order : str
        How records were put in time order (``"file order"`` or ``"extra.timestamp"``).
    n_trials, n_baseline_trials : int
        Rows of the monitored and baseline frames (after the protocol filter).
    r1 : CusumResult or None
        The CUSUM on coordination-active pass^k per round; None when not evaluated.
    r1_rounds, r1_baseline_rounds : PassKRounds
        The monitored and baseline rounds R1 is computed from.
    r2 : RollingQuantileResult or None
        The injection-count quantile alarm; None when not evaluated.
    r3 : CollisionRateResult or None
        The key-collision alarm; None when not evaluated.
    reasons : dict of str to str
        For each rule not evaluated (or evaluated with a caveat), why.
    excluded : dict of str to dict
        Rows each rule left out, by reason (nothing is dropped without being counted here).
    alarms : tuple of Alarm
        Every alarm of every rule, in the time order of the row that raised it.
    provenance : tuple of dict
        For each alarm, the raising row's ``task_id``, ``trial`` and, when present, the
        ``source`` and ``line`` it was read from.
    """

    order: str
    n_trials: int
    n_baseline_trials: int
    r1: CusumResult | None
    r1_rounds: PassKRounds
    r1_baseline_rounds: PassKRounds
    r2: RollingQuantileResult | None
    r3: CollisionRateResult | None
    reasons: dict
    excluded: dict
    alarms: tuple[Alarm, ...]
    provenance: tuple[dict, ...]

    def to_dict(self) -> dict:
        """Plain-dict view, nested (JSON-ready after NaN handling)."""
        return {
            "order": self.order,
            "n_trials": self.n_trials,
            "n_baseline_trials": self.n_baseline_trials,
            "r1": None if self.r1 is None else self.r1.to_dict(),
            "r1_rounds": self.r1_rounds.to_dict(),
            "r1_baseline_rounds": self.r1_baseline_rounds.to_dict(),
            "r2": None if self.r2 is None else self.r2.to_dict(),
            "r3": None if self.r3 is None else self.r3.to_dict(),
            "reasons": dict(self.reasons),
            "excluded": {k: dict(v) for k, v in self.excluded.items()},
            "alarms": [dict(a.to_dict(), **p) for a, p in zip(self.alarms, self.provenance)],
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per alarm: the alarm's fields plus the raising row's provenance."""
        base = _alarms_frame(self.alarms)
        prov = pd.DataFrame(list(self.provenance), index=base.index)
        return pd.concat([base, prov], axis=1)


def _calls_of(frame: pd.DataFrame, label: Any, extra: Any, field_name: str) -> list | None:
    if not isinstance(extra, dict) or field_name not in extra or extra[field_name] is None:
        return None
    entries = extra[field_name]
    if not isinstance(entries, list):
        raise ValueError(  # noqa: TRY004 - a malformed log field, reported as bad data
            f"{_where(frame, label)}: extra.{field_name} must be a list of "
            f'{{"tool", "key", "fingerprint"}} objects, got {type(entries).__name__}'
        )
    pairs = []
    for j, entry in enumerate(entries):
        ok = isinstance(entry, dict) and all(
            isinstance(entry.get(f), str) and entry.get(f) for f in ("key", "fingerprint")
        )
        if not ok:
            raise ValueError(
                f"{_where(frame, label)}: extra.{field_name}[{j}] must be an object with non-empty "
                f'string fields "key" and "fingerprint", got {entry!r}'
            )
        pairs.append((entry["fingerprint"], entry["key"]))
    return pairs


def monitor_trials(
    frame: pd.DataFrame,
    baseline: pd.DataFrame,
    *,
    sigma: float | Any | None = None,
    k: int = 1,
    trials_per_round: int = 1,
    tasks: Iterable[str] | None = None,
    cusum_k: float = 0.5,
    cusum_h: float = 1.5,
    window: int = 200,
    q: float = 0.95,
    rel_increase: float = 0.5,
    collision_threshold: float = 0.005,
    protocol: str | None = None,
    infrastructure_errors: str = "exclude",
    rounds: str = "latest",
    time_field: str = TIMESTAMP_FIELD,
    keys_field: str = COORDINATION_KEYS_FIELD,
) -> MonitorReport:
    """Run the three runtime alarms of the noise-floor paper over a trial stream.

    Parameters
    ----------
    frame : pandas.DataFrame
        Monitored trials (the frame of :func:`noisefloor.logs.load_trials`).
    baseline : pandas.DataFrame
        Release-baseline trials, same columns.
    sigma : float, object with ``null_gap_sd``, or None
        Noise-floor sigma for R1. ``None`` estimates it as the standard deviation (ddof 1) of
        the baseline's round pass^k values, which needs two rounds (recorded in
        ``r1.sigma_source``).
    k, trials_per_round, tasks, infrastructure_errors, rounds
        As for :func:`coordination_active_passk_rounds`; ``tasks=None`` makes the golden set
        the baseline's coordination-active tasks.
    cusum_k, cusum_h : float, default 0.5, 1.5
        R1 reference value and decision interval in sigma units (:func:`tabular_cusum`).
    window, q, rel_increase : default 200, 0.95, 0.5
        R2 parameters (:func:`rolling_quantile_monitor`).
    collision_threshold : float, default 0.005
        R3 threshold (:func:`collision_rate_monitor`).
    protocol : str or None
        Keep only this protocol in both frames. ``None`` requires each frame to hold one.
    time_field : str, default "timestamp"
        ``extra`` key used for time order (:func:`order_trials`).
    keys_field : str, default "coordination_keys"
        ``extra`` key holding each trial's calls (``{"tool", "key", "fingerprint", ...}``).

    Returns
    -------
    MonitorReport
        The three results, the rows each rule left out, and every alarm with its provenance.

    Raises
    ------
    TypeError, ValueError
        For a frame that is not a trial frame, several protocols without ``protocol``, a
        ``protocol`` absent from either frame, a baseline of another protocol or benchmark,
        malformed ``extra`` fields (file and line named), or a parameter out of range.

    Notes
    -----
    R1: target ``mu0`` = mean of the baseline rounds' pass^k, CUSUM over the monitored rounds;
    an alarm is reported at the row that completed the round. R2: the monitored and baseline
    ``injections`` columns, null counts left out and counted. R3: ``(fingerprint, key)`` pairs
    of ``extra[keys_field]``; trials without that field are left out and counted.

    Examples
    --------
    >>> base = pd.DataFrame({"task_id": ["a", "b"] * 4, "protocol": "intercept",
    ...     "reward": [1.0, 0.0] * 4, "infrastructure_error": False,
    ...     "store_events_at_start": 1, "injections": [0, 1, 1, 2] * 2, "extra": None})
    >>> mon = base.assign(injections=[3, 4, 4, 5] * 2)
    >>> rep = monitor_trials(mon, base, sigma=0.1, window=4)
    >>> [(a.rule, a.index) for a in rep.alarms]
    [('R2', 3)]
    >>> rep.reasons["R3"]
    'no trial carries extra.coordination_keys'
    """
    _require(frame, "frame", _TRIAL_COLUMNS)
    _require(baseline, "baseline", _TRIAL_COLUMNS)
    frames = {"frame": frame, "baseline": baseline}
    if protocol is not None:
        for name, f in frames.items():
            if "protocol" not in f.columns:
                raise ValueError(f"{name} lacks column 'protocol' needed by protocol={protocol!r}")
            found = sorted(map(str, f["protocol"].dropna().unique()))
            if protocol not in found:  # filtering to nothing would monitor nothing, quietly
                raise ValueError(
                    f"protocol={protocol!r} matches no trial of the "
                    f"{'monitored trials' if name == 'frame' else 'baseline'} (it holds "
                    f"{', '.join(found) or 'none'})"
                )
        frames = {name: f[f["protocol"] == protocol] for name, f in frames.items()}
    elif "protocol" in frame.columns or "protocol" in baseline.columns:
        for name, f in frames.items():
            found = sorted(map(str, f["protocol"].dropna().unique())) if "protocol" in f else []
            if len(found) > 1:
                raise ValueError(
                    f"{name} holds {len(found)} protocols ({', '.join(found)}); the alarms watch "
                    "one deployed configuration, choose one with protocol="
                )
        seen = {name: set(map(str, f["protocol"].dropna().unique())) if "protocol" in f else set()
                for name, f in frames.items()}
        if seen["frame"] and seen["baseline"] and seen["frame"] != seen["baseline"]:
            raise ValueError(
                f"the monitored trials are protocol {', '.join(sorted(seen['frame']))} but the "
                f"baseline is protocol {', '.join(sorted(seen['baseline']))}; compare like with "
                "like, or choose one with protocol="
            )
    if "benchmark" in frame.columns and "benchmark" in baseline.columns:
        seen_b = {name: set(map(str, f["benchmark"].dropna().unique())) for name, f in frames.items()}
        if seen_b["frame"] and seen_b["baseline"] and seen_b["frame"] != seen_b["baseline"]:
            raise ValueError(
                f"the monitored trials are benchmark {', '.join(sorted(seen_b['frame']))} but the "
                f"baseline is benchmark {', '.join(sorted(seen_b['baseline']))}; a baseline of "
                "other tasks sets no target for them: compare like with like"
            )
    mon = order_trials(frames["frame"], time_field=time_field)
    base = order_trials(frames["baseline"], time_field=time_field)
    stamped = (
        "extra" in mon.columns
        and mon["extra"].map(lambda e: isinstance(e, dict) and e.get(time_field) is not None).any()
    )
    order = f"extra.{time_field}" if stamped else "file order"
    reasons: dict[str, str] = {}
    excluded: dict[str, dict] = {}
    position = {label: i for i, label in enumerate(mon.index)}
    alarms: list[Alarm] = []

    # R1
    base_rounds = coordination_active_passk_rounds(
        base,
        k=k,
        trials_per_round=trials_per_round,
        tasks=tasks,
        infrastructure_errors=infrastructure_errors,
        rounds=rounds,
    )
    golden = base_rounds.tasks if tasks is None else tasks
    if not golden:
        golden = ["<none>"]
    rounds = coordination_active_passk_rounds(
        mon,
        k=k,
        trials_per_round=trials_per_round,
        tasks=golden,
        infrastructure_errors=infrastructure_errors,
        rounds=rounds,
    )
    excluded["R1"] = rounds.excluded
    r1 = None
    if not base_rounds.values:
        reasons["R1"] = f"baseline: {base_rounds.reason}"
    elif not rounds.values:
        reasons["R1"] = f"monitored logs: {rounds.reason}"
        if not set(map(str, golden)) & set(mon["task_id"].astype(str)):
            reasons["R1"] += "; no golden task occurs in the monitored logs at all"
    else:
        target = float(np.mean(base_rounds.values))
        s = sigma
        if s is None and len(base_rounds.values) < 2:
            reasons["R1"] = (
                "sigma not given and the baseline has fewer than two rounds to estimate it from"
            )
        elif s is None and float(np.std(base_rounds.values, ddof=1)) == 0.0:
            reasons["R1"] = "sigma not given and the baseline rounds do not vary (sd 0)"
        else:
            if s is None:
                s = float(np.std(base_rounds.values, ddof=1))
            res = tabular_cusum(rounds.values, target=target, sigma=s, k=cusum_k, h=cusum_h)
            if sigma is None:
                res = replace(
                    res,
                    sigma_source=f"sd of {len(base_rounds.values)} baseline rounds (ddof 1)",
                )
            r1 = replace(
                res, alarms=tuple(replace(a, row=rounds.rows[a.index]) for a in res.alarms)
            )
            alarms.extend(r1.alarms)

    # R2
    inj = mon["injections"] if "injections" in mon.columns else pd.Series(pd.NA, index=mon.index)
    binj = (
        base["injections"] if "injections" in base.columns else pd.Series(pd.NA, index=base.index)
    )
    ok, bok = inj.notna().to_numpy(), binj.notna().to_numpy()
    excluded["R2"] = {
        "injections_null": int((~ok).sum()),
        "baseline_injections_null": int((~bok).sum()),
    }
    r2 = None
    if not bok.any():
        reasons["R2"] = "the baseline has no trial with an injections count"
    elif not ok.any():
        reasons["R2"] = "the monitored logs have no trial with an injections count"
    else:
        rows2 = mon.index[ok]
        res2 = rolling_quantile_monitor(
            inj[ok].to_numpy(dtype=float),
            binj[bok].to_numpy(dtype=float),
            window=window,
            q=q,
            rel_increase=rel_increase,
        )
        r2 = replace(res2, alarms=tuple(replace(a, row=rows2[a.index]) for a in res2.alarms))
        if r2.reason:
            reasons["R2"] = r2.reason
        alarms.extend(r2.alarms)

    # R3
    per_trial: list[list] = []
    rows3: list[Any] = []
    if "extra" in mon.columns:
        for label, extra in mon["extra"].items():
            pairs = _calls_of(mon, label, extra, keys_field)
            if pairs is not None:
                per_trial.append(pairs)
                rows3.append(label)
    excluded["R3"] = {"no_call_record": int(len(mon) - len(rows3))}
    r3 = None
    if not rows3:
        reasons["R3"] = f"no trial carries extra.{keys_field}"
    else:
        res3 = collision_rate_monitor(per_trial, threshold=collision_threshold)
        r3 = replace(res3, alarms=tuple(replace(a, row=rows3[a.index]) for a in res3.alarms))
        alarms.extend(r3.alarms)

    alarms.sort(key=lambda a: (position[a.row], a.rule))
    provenance = []
    for a in alarms:
        p = {"position": position[a.row]}
        for col in ("task_id", "trial", "source", "line"):
            if col in mon.columns:
                v = mon.at[a.row, col]
                p[col] = v.item() if hasattr(v, "item") else v
        provenance.append(p)
    return MonitorReport(
        order=order,
        n_trials=len(mon),
        n_baseline_trials=len(base),
        r1=r1,
        r1_rounds=rounds,
        r1_baseline_rounds=base_rounds,
        r2=r2,
        r3=r3,
        reasons=reasons,
        excluded=excluded,
        alarms=tuple(alarms),
        provenance=tuple(provenance),
    )
