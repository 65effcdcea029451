"""The runtime alarms (R1-R3) of the noise-floor paper over trial logs, in one call.

:func:`monitor_trials` takes the trial DataFrame of :func:`noisefloor.logs.load_trials` for the
monitored logs and for the release baseline, puts both in time order
(:func:`noisefloor.monitoring.time_order.order_trials`), builds the coordination-active pass^k
rounds of the golden tasks
(:func:`noisefloor.monitoring.pass_hat_k_rounds.coordination_active_pass_hat_k_rounds`) and runs the
alarms of :mod:`noisefloor.stats.monitor`; every alarm is mapped back to the record (file and
line) that raised it. No I/O happens here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.monitoring.pass_hat_k_rounds import (
    TRIAL_COLUMNS,
    PassHatKRounds,
    coordination_active_pass_hat_k_rounds,
)
from noisefloor.monitoring.time_order import (
    TIMESTAMP_FIELD,
    order_trials,
    require_trial_frame,
    where,
)
from noisefloor.results import FrozenResult
from noisefloor.stats.monitor import (
    Alarm,
    CollisionRateResult,
    CusumResult,
    RollingQuantileResult,
    alarms_frame,
    collision_rate_from_calls,
    rolling_quantile_monitor,
    tabular_cusum,
)
from noisefloor.stats.validation import ParameterError, literal

__all__ = ["COORDINATION_KEYS_FIELD", "MonitorReport", "monitor_trials"]

#: Field of a trial record's ``extra`` that carries the calls of the trial: one
#: ``{"tool", "key", "fingerprint", "injected"}`` object per call, as a reader of
#: :mod:`noisefloor.store` logs them.
COORDINATION_KEYS_FIELD = "coordination_keys"


@dataclass(frozen=True)
class MonitorReport(FrozenResult):
    """Result of :func:`monitor_trials`: the three alarms over one monitored stream.

    Attributes
    ----------
    order : str
        How records were put in time order (``"file order"`` or ``"extra.timestamp"``).
    n_trials, n_baseline_trials : int
        Rows of the monitored and baseline frames (after the protocol filter).
    r1 : CusumResult or None
        The CUSUM on coordination-active pass^k per round (trials with
        ``store_events_at_start > 0``); None when not evaluated.
    r1_rounds, r1_baseline_rounds : PassHatKRounds
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
    r1_rounds: PassHatKRounds
    r1_baseline_rounds: PassHatKRounds
    r2: RollingQuantileResult | None
    r3: CollisionRateResult | None
    reasons: dict[str, str]
    excluded: dict[str, dict[str, int]]
    alarms: tuple[Alarm, ...]
    provenance: tuple[dict[str, Any], ...]

    @property
    def evaluated(self) -> tuple[str, ...]:
        """The rules (``"R1"``, ``"R2"``, ``"R3"``) that compared at least one statistic with a
        finite threshold.

        A rule that ran but could not compare anything (R2 over a baseline whose quantile is 0,
        or with fewer trials than one window; R1 without a complete round) raised no alarm
        because it checked nothing, and is not evaluated: no alarm and nothing evaluated is not
        a pass.
        """
        def finite(values) -> bool:
            return any(v is not None and math.isfinite(v) for v in values)

        done = []
        r1, r2, r3 = self.r1, self.r2, self.r3
        if r1 is not None and len(r1.x) and math.isfinite(r1.decision_interval):
            done.append("R1")
        if r2 is not None and math.isfinite(r2.threshold) and finite(r2.statistic):
            done.append("R2")
        if r3 is not None and finite(r3.rate):
            done.append("R3")
        return tuple(done)

    # hand-written: each alarm merged with its provenance row
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

    # hand-written: one row per alarm with its provenance columns
    def to_frame(self) -> pd.DataFrame:
        """One row per alarm: the alarm's fields plus the raising row's provenance."""
        base = alarms_frame(self.alarms)
        prov = pd.DataFrame(list(self.provenance), index=base.index)
        return pd.concat([base, prov], axis=1)


def _protocol_mention(protocol) -> str:
    """``{protocol='x'}`` (``--protocol x`` on the command line), or the bare mention and the
    value when its text would not read as a mention."""
    text = repr(protocol)
    return ("{protocol=" + text + "}" if not set(text) & set("{}") else
            "{protocol} " + literal(text))


def _calls_of(
    frame: pd.DataFrame, field_name: str
) -> tuple[np.ndarray, np.ndarray, list[Any], list[Any]]:
    """The calls logged in ``extra[field_name]``, flattened: the row positions that carry the
    field, the number of calls of each, and every call's fingerprint and key in order.

    A row without the field (or with ``None``) carries no call record. The first malformed row
    in frame order is reported with its file and line, as a row-by-row check would.
    """
    extras = frame["extra"].tolist() if "extra" in frame.columns else []
    values: list[Any] = [e.get(field_name) if isinstance(e, dict) else None for e in extras]
    carrying = np.flatnonzero([v is not None for v in values])
    lists = [values[i] for i in carrying]
    is_list = np.fromiter((isinstance(v, list) for v in lists), dtype=bool, count=len(lists))
    sizes = np.fromiter((len(v) if ok else 0 for v, ok in zip(lists, is_list)), dtype=np.int64,
                        count=len(lists))
    entries = [entry for v, ok in zip(lists, is_list) if ok for entry in v]
    fingerprints: list[Any] = [e.get("fingerprint") if isinstance(e, dict) else None
                               for e in entries]
    keys: list[Any] = [e.get("key") if isinstance(e, dict) else None for e in entries]
    bad = next((i for i, (fp, key) in enumerate(zip(fingerprints, keys))
                if not (isinstance(key, str) and key and isinstance(fp, str) and fp)), None)
    not_list = np.flatnonzero(~is_list)
    owner = None if bad is None else int(np.searchsorted(np.cumsum(sizes), bad, side="right"))
    if not_list.size and (owner is None or not_list[0] < owner):
        label = frame.index[carrying[not_list[0]]]
        raise ValueError(  # a malformed log field, reported as bad data
            f"{where(frame, label)}: extra.{field_name} must be a list of "
            f'{{"tool", "key", "fingerprint"}} objects, got {type(lists[not_list[0]]).__name__}'
        )
    if bad is not None and owner is not None:
        label = frame.index[carrying[owner]]
        j = bad - int(sizes[:owner].sum())
        raise ValueError(
            f"{where(frame, label)}: extra.{field_name}[{j}] must be an object with non-empty "
            f'string fields "key" and "fingerprint", got {entries[bad]!r}'
        )
    return carrying, sizes, fingerprints, keys


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
        As for :func:`coordination_active_pass_hat_k_rounds`; ``tasks=None`` makes the golden set
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

    References
    ----------
    Kaliyev, A. & Maryanskyy, A. (2026). How Much Coordination Gain Is Real? A Paired
    Noise-Floor Protocol for Multi-Agent LLM Benchmarks. KDD 2026 Workshop on Agentic AI
    Evaluation and Trustworthiness (section "Runtime monitoring").

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
    require_trial_frame(frame, "frame", TRIAL_COLUMNS)
    require_trial_frame(baseline, "baseline", TRIAL_COLUMNS)
    frames = _one_configuration({"frame": frame, "baseline": baseline}, protocol)
    mon = order_trials(frames["frame"], time_field=time_field)
    base = order_trials(frames["baseline"], time_field=time_field)
    stamped = (
        "extra" in mon.columns
        and any(isinstance(e, dict) and e.get(time_field) is not None
                for e in mon["extra"].tolist())
    )
    reasons: dict[str, str] = {}
    excluded: dict[str, dict[str, int]] = {}
    r1, r1_rounds, base_rounds = _r1(
        mon, base, sigma=sigma, k=k, trials_per_round=trials_per_round, tasks=tasks,
        cusum_k=cusum_k, cusum_h=cusum_h, infrastructure_errors=infrastructure_errors,
        rounds=rounds, reasons=reasons, excluded=excluded)
    r2 = _r2(mon, base, window=window, q=q, rel_increase=rel_increase, reasons=reasons,
             excluded=excluded)
    r3 = _r3(mon, keys_field=keys_field, threshold=collision_threshold, reasons=reasons,
             excluded=excluded)
    position = {label: i for i, label in enumerate(mon.index)}
    alarms = [a for res in (r1, r2, r3) if res is not None for a in res.alarms]
    alarms.sort(key=lambda a: (position[a.row], a.rule))
    return MonitorReport(
        order=f"extra.{time_field}" if stamped else "file order",
        n_trials=len(mon),
        n_baseline_trials=len(base),
        r1=r1,
        r1_rounds=r1_rounds,
        r1_baseline_rounds=base_rounds,
        r2=r2,
        r3=r3,
        reasons=reasons,
        excluded=excluded,
        alarms=tuple(alarms),
        provenance=tuple(_provenance(mon, a, position) for a in alarms),
    )


def _protocols(f: pd.DataFrame) -> list[str]:
    return sorted(map(str, f["protocol"].dropna().unique())) if "protocol" in f else []


def _one_configuration(
    frames: dict[str, pd.DataFrame], protocol: str | None
) -> dict[str, pd.DataFrame]:
    """Both frames narrowed to one protocol, after checking they watch the same configuration.

    With ``protocol`` each frame must hold it; without, each must hold at most one protocol,
    the same in both. A benchmark that differs between the frames is refused either way.
    """
    if protocol is not None:
        for name, f in frames.items():
            if "protocol" not in f.columns:
                raise ParameterError("protocol", "given only with a protocol column", protocol,
                                     message=literal(f"{name} lacks column 'protocol' needed by ")
                                     + "{protocol}")
            found = _protocols(f)
            if protocol not in found:  # filtering to nothing would monitor nothing, quietly
                raise ParameterError("protocol", "a protocol of the trials", protocol,
                                     message=_protocol_mention(protocol) + literal(
                    " matches no trial of the "
                    f"{'monitored trials' if name == 'frame' else 'baseline'} (it holds "
                    f"{', '.join(found) or 'none'})"))
        frames = {name: f[f["protocol"] == protocol] for name, f in frames.items()}
    elif any("protocol" in f.columns for f in frames.values()):
        for name, f in frames.items():
            found = _protocols(f)
            if len(found) > 1:
                raise ParameterError("protocol", "given", message=literal(
                    f"{name} holds {len(found)} protocols ({', '.join(found)}); the alarms watch "
                    "one deployed configuration, choose one with ") + "{protocol}")
        seen = {name: set(_protocols(f)) for name, f in frames.items()}
        if seen["frame"] and seen["baseline"] and seen["frame"] != seen["baseline"]:
            raise ParameterError("protocol", "given", message=literal(
                f"the monitored trials are protocol {', '.join(sorted(seen['frame']))} but the "
                f"baseline is protocol {', '.join(sorted(seen['baseline']))}; compare like with "
                "like, or choose one with ") + "{protocol}")
    if all("benchmark" in f.columns for f in frames.values()):
        seen_b = {name: set(map(str, f["benchmark"].dropna().unique()))
                  for name, f in frames.items()}
        if seen_b["frame"] and seen_b["baseline"] and seen_b["frame"] != seen_b["baseline"]:
            raise ValueError(
                f"the monitored trials are benchmark {', '.join(sorted(seen_b['frame']))} but the "
                f"baseline is benchmark {', '.join(sorted(seen_b['baseline']))}; a baseline of "
                "other tasks sets no target for them: compare like with like"
            )
    return frames


def _r1(
    mon: pd.DataFrame, base: pd.DataFrame, *, sigma: Any, k: int, trials_per_round: int,
    tasks: Iterable[str] | None, cusum_k: float, cusum_h: float, infrastructure_errors: str,
    rounds: str, reasons: dict[str, str], excluded: dict[str, dict[str, int]],
) -> tuple[CusumResult | None, PassHatKRounds, PassHatKRounds]:
    """R1: CUSUM of the monitored rounds' pass^k against the baseline rounds' mean."""
    if tasks is not None and not isinstance(tasks, str):
        tasks = list(tasks)  # read twice (baseline, monitored): an iterator would run dry
    base_rounds = coordination_active_pass_hat_k_rounds(
        base, k=k, trials_per_round=trials_per_round, tasks=tasks,
        infrastructure_errors=infrastructure_errors, rounds=rounds)
    golden = list(base_rounds.tasks if tasks is None else tasks) or ["<none>"]
    mon_rounds = coordination_active_pass_hat_k_rounds(
        mon, k=k, trials_per_round=trials_per_round, tasks=golden,
        infrastructure_errors=infrastructure_errors, rounds=rounds)
    excluded["R1"] = mon_rounds.excluded
    if not base_rounds.values:
        reasons["R1"] = f"baseline: {base_rounds.reason}"
        return None, mon_rounds, base_rounds
    if not mon_rounds.values:
        reasons["R1"] = f"monitored logs: {mon_rounds.reason}"
        if not set(map(str, golden)) & set(mon["task_id"].astype(str)):
            reasons["R1"] += "; no golden task occurs in the monitored logs at all"
        return None, mon_rounds, base_rounds
    target = float(np.mean(base_rounds.values))
    s = sigma
    if s is None and len(base_rounds.values) < 2:
        reasons["R1"] = (
            "sigma not given and the baseline has fewer than two rounds to estimate it from"
        )
        return None, mon_rounds, base_rounds
    if s is None and float(np.std(base_rounds.values, ddof=1)) == 0.0:
        reasons["R1"] = "sigma not given and the baseline rounds do not vary (sd 0)"
        return None, mon_rounds, base_rounds
    if s is None:
        s = float(np.std(base_rounds.values, ddof=1))
    res = tabular_cusum(mon_rounds.values, target=target, sigma=s, k=cusum_k, h=cusum_h)
    if sigma is None:
        res = replace(
            res, sigma_source=f"sd of {len(base_rounds.values)} baseline rounds (ddof 1)")
    r1 = replace(
        res, alarms=tuple(replace(a, row=mon_rounds.rows[a.index]) for a in res.alarms))
    return r1, mon_rounds, base_rounds


def _injections(f: pd.DataFrame) -> pd.Series:
    return f["injections"] if "injections" in f.columns else pd.Series(pd.NA, index=f.index)


def _r2(
    mon: pd.DataFrame, base: pd.DataFrame, *, window: int, q: float, rel_increase: float,
    reasons: dict[str, str], excluded: dict[str, dict[str, int]],
) -> RollingQuantileResult | None:
    """R2: rolling quantile of the ``injections`` counts; null counts left out and counted."""
    inj, binj = _injections(mon), _injections(base)
    ok, bok = inj.notna().to_numpy(), binj.notna().to_numpy()
    excluded["R2"] = {
        "injections_null": int((~ok).sum()),
        "baseline_injections_null": int((~bok).sum()),
    }
    if not bok.any():
        reasons["R2"] = "the baseline has no trial with an injections count"
        return None
    if not ok.any():
        reasons["R2"] = "the monitored logs have no trial with an injections count"
        return None
    rows = mon.index[ok]
    res = rolling_quantile_monitor(
        inj[ok].to_numpy(dtype=float),
        binj[bok].to_numpy(dtype=float),
        window=window,
        q=q,
        rel_increase=rel_increase,
    )
    r2 = replace(res, alarms=tuple(replace(a, row=rows[a.index]) for a in res.alarms))
    if r2.reason:
        reasons["R2"] = r2.reason
    return r2


def _r3(
    mon: pd.DataFrame, *, keys_field: str, threshold: float, reasons: dict[str, str],
    excluded: dict[str, dict[str, int]],
) -> CollisionRateResult | None:
    """R3: collision rate of the ``(fingerprint, key)`` pairs each trial logged."""
    carrying, sizes, fingerprints, keys = _calls_of(mon, keys_field)
    excluded["R3"] = {"no_call_record": int(len(mon) - len(carrying))}
    if not len(carrying):
        reasons["R3"] = f"no trial carries extra.{keys_field}"
        return None
    trial = np.repeat(np.arange(len(carrying)), sizes)
    res = collision_rate_from_calls(trial, fingerprints, keys, n_trials=len(carrying),
                                    threshold=threshold)
    rows = mon.index[carrying].tolist()
    return replace(res, alarms=tuple(replace(a, row=rows[a.index]) for a in res.alarms))


def _provenance(mon: pd.DataFrame, alarm: Alarm, position: dict[Any, int]) -> dict[str, Any]:
    """Where an alarm's row sits in the stream, and its task, trial, source and line."""
    p: dict[str, Any] = {"position": position[alarm.row]}
    for col in ("task_id", "trial", "source", "line"):
        if col in mon.columns:
            v = mon.at[alarm.row, col]
            p[col] = v.item() if isinstance(v, np.generic) else v
    return p
