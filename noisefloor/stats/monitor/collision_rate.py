"""Alarm R3 of the noise-floor paper: the coordination-key collision rate.

The rate is the share of distinct calls that share their key with another distinct call; the
alarm is raised above 0.5 %. The key scheme under test and the identity of a literal call are
passed in as functions, so nothing here depends on a particular store.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats.monitor.alarms import Alarm, _real, _rising_edges

__all__ = ["CollisionRateResult", "collision_rate_from_calls", "collision_rate_monitor"]


@dataclass(frozen=True)
class CollisionRateResult(FrozenResult):
    """Result of :func:`collision_rate_monitor` (alarm R3).

    Attributes
    ----------
    threshold : float
        Alarm when the collision rate is strictly above this (0.005 in the paper).
    n_distinct_calls : tuple of int
        Distinct calls seen up to and including each trial, length n.
    n_colliding_calls : tuple of int
        Of those, calls whose key is shared with at least one other distinct call.
    rate : tuple of float
        ``n_colliding_calls / n_distinct_calls`` after each trial; NaN before the first call.
    collisions : tuple of (key, int)
        Every key shared by more than one distinct call at the end, with its number of calls.
    alarms : tuple of Alarm
        Onsets: trials where the rate rises above the threshold after being at or below it.
    """

    threshold: float
    n_distinct_calls: tuple[int, ...]
    n_colliding_calls: tuple[int, ...]
    rate: tuple[float, ...]
    collisions: tuple[tuple[Any, int], ...]
    alarms: tuple[Alarm, ...]

    @property
    def n(self) -> int:
        """Number of monitored trials."""
        return len(self.rate)

    # hand-written: one row per trial, with an alarm flag
    def to_frame(self) -> pd.DataFrame:
        """One row per trial: ``index, n_distinct_calls, n_colliding_calls, rate, alarm``."""
        alarm = np.zeros(self.n, dtype=bool)
        alarm[[a.index for a in self.alarms]] = True
        return pd.DataFrame(
            {
                "index": np.arange(self.n),
                "n_distinct_calls": self.n_distinct_calls,
                "n_colliding_calls": self.n_colliding_calls,
                "rate": self.rate,
                "alarm": alarm,
            }
        )


def collision_rate_monitor(
    trials: Sequence[Iterable[Any]],
    *,
    key_function: Callable[[str, Any], Hashable] | None = None,
    identity_function: Callable[[str, Any], Hashable] | None = None,
    threshold: float = 0.005,
) -> CollisionRateResult:
    """Cumulative coordination-key collision rate after each trial (alarm R3).

    Parameters
    ----------
    trials : sequence of iterables, length n
        One entry per trial in time order, holding that trial's calls. Without
        ``key_function`` each call is a ``(call_id, key)`` pair of hashables (e.g. the
        ``fingerprint`` and ``key`` a reader logged). With ``key_function`` each call is a
        ``(tool_name, arguments)`` pair, keyed by ``key_function(tool_name, arguments)`` and
        identified by ``identity_function(tool_name, arguments)``.
    key_function : callable or None
        The key scheme under test, e.g. :func:`noisefloor.store.keys.canonical_key`.
    identity_function : callable or None
        Identity of a literal call, e.g. :func:`noisefloor.store.keys.call_fingerprint` (key
        order and whitespace insensitive, type preserving). Required with ``key_function``
        and only used with it: the monitor knows no key scheme of its own.
    threshold : float, default 0.005
        Alarm when the rate is strictly above this (the paper: "> 0.5 %"), in [0, 1).

    Returns
    -------
    CollisionRateResult
        ``threshold, n_distinct_calls, n_colliding_calls, rate, collisions, alarms``.

    Raises
    ------
    TypeError
        For a call that is not a pair, an unhashable id or key, or a function that is not
        callable.
    ValueError
        For a threshold out of range, ``key_function`` without ``identity_function`` (or the
        reverse), or one call id logged under two different keys (the key scheme is not a
        function of the call; the message names both trials).

    Notes
    -----
    After trial i, let D be the distinct calls seen so far and, for each key, D_key those
    mapping to it. The collision rate is ``sum over keys with |D_key| >= 2 of |D_key|`` divided
    by ``|D|``: the share of distinct calls whose key also stands for another call, i.e. calls on
    which a literal reader can fire a warning meant for a different call. It is cumulative (a
    set property of everything seen) and NaN before the first call. An alarm is reported at each
    onset: the first trial of every run with ``rate > threshold``.

    References
    ----------
    Kaliyev, A. & Maryanskyy, A. (2026). How Much Coordination Gain Is Real? A Paired
    Noise-Floor Protocol for Multi-Agent LLM Benchmarks. KDD 2026 Workshop on Agentic AI
    Evaluation and Trustworthiness (section "Runtime monitoring").

    Examples
    --------
    >>> trials = [[("a", "k1"), ("b", "k2")], [("a", "k1")], [("c", "k2")]]
    >>> res = collision_rate_monitor(trials)
    >>> res.rate
    (0.0, 0.0, 0.6666666666666666)
    >>> [(a.index, round(a.statistic, 3)) for a in res.alarms], res.collisions
    ([(2, 0.667)], (('k2', 2),))

    A key scheme under test is passed in with the identity of a literal call (the store's
    ``canonical_key`` and ``call_fingerprint`` in practice); a key of the tool name alone
    makes two different calls collide:

    >>> calls = [[("get_order", {"id": 1})], [("get_order", {"id": 2})]]
    >>> res = collision_rate_monitor(calls, key_function=lambda tool, args: tool,
    ...                              identity_function=lambda tool, args: (tool, args["id"]))
    >>> res.rate, res.collisions
    ((0.0, 1.0), (('get_order', 2),))
    """
    thr = _real("threshold", threshold, nonneg=True)
    if thr >= 1.0:
        raise ValueError(f"threshold must lie in [0, 1), got {threshold!r}")
    if key_function is not None and not callable(key_function):
        raise TypeError(f"key_function must be callable, got {key_function!r}")
    if identity_function is not None and key_function is None:
        raise ValueError("identity_function is only used together with key_function")
    if key_function is not None and identity_function is None:
        raise ValueError(
            "key_function needs identity_function, the identity of a literal call (e.g. "
            "noisefloor.store.keys.call_fingerprint), to tell distinct calls apart"
        )
    if identity_function is not None and not callable(identity_function):
        raise TypeError(f"identity_function must be callable, got {identity_function!r}")
    if isinstance(trials, (str, bytes)):
        raise TypeError("trials must be a sequence with one iterable of calls per trial")

    trial_of: list[int] = []
    call_ids: list[Hashable] = []
    keys: list[Hashable] = []
    for t, calls in enumerate(trials):
        try:
            for j, call in enumerate(calls):
                if not isinstance(call, (tuple, list)) or len(call) != 2:
                    raise TypeError(f"trial {t}, call {j}: expected a pair, got "
                                    f"{type(call).__name__} {call!r}")
                if key_function is not None and identity_function is not None:
                    tool, args = call
                    cid, key = identity_function(tool, args), key_function(tool, args)
                else:
                    cid, key = call
                try:
                    hash(cid)
                    hash(key)
                except TypeError:
                    raise TypeError(
                        f"trial {t}, call {j}: call id and key must be hashable, got {call!r}"
                    ) from None
                trial_of.append(t)
                call_ids.append(cid)
                keys.append(key)
        except Exception:
            # a call logged under two keys before this trial is reported first, as it came first
            _tally(np.asarray(trial_of, dtype=np.int64), call_ids, keys, t + 1)
            raise
    return _result(*_tally(np.asarray(trial_of, dtype=np.int64), call_ids, keys, len(trials)),
                   thr)


def collision_rate_from_calls(
    trial: Any, call_id: Sequence[Hashable], key: Sequence[Hashable], *, n_trials: int,
    threshold: float = 0.005,
) -> CollisionRateResult:
    """Alarm R3 from flat arrays of calls, one entry per call (the vectorised form).

    Parameters
    ----------
    trial : array-like of int, shape (m,)
        Trial of each call, ``0 <= trial < n_trials``, non-decreasing (calls in time order).
    call_id : sequence of hashable, length m
        Identity of each call (e.g. the ``fingerprint`` a reader logged).
    key : sequence of hashable, length m
        The key each call was stored under.
    n_trials : int
        Number of monitored trials (trials without calls included), >= 0.
    threshold : float, default 0.005
        Alarm when the rate is strictly above this, in [0, 1).

    Returns
    -------
    CollisionRateResult
        As :func:`collision_rate_monitor` returns it for the same calls grouped by trial.

    Raises
    ------
    TypeError
        For an unhashable call id or key.
    ValueError
        For arrays of different lengths, trials out of range or out of order, a threshold out
        of range, or one call id logged under two different keys (both trials named).

    Notes
    -----
    The rate is that of :func:`collision_rate_monitor`, computed with array operations: the
    first call of each call id counts as distinct; among those, the r-th call (from 0) of a
    key adds 2 colliding calls when r = 1 (the key's first call now collides too), 1 when
    r >= 2, 0 when r = 0; both counts are summed per trial and cumulated.

    Examples
    --------
    >>> res = collision_rate_from_calls([0, 0, 1, 2], ["a", "b", "a", "c"],
    ...                                 ["k1", "k2", "k1", "k2"], n_trials=3)
    >>> res.rate, res.collisions
    ((0.0, 0.0, 0.6666666666666666), (('k2', 2),))
    """
    thr = _real("threshold", threshold, nonneg=True)
    if thr >= 1.0:
        raise ValueError(f"threshold must lie in [0, 1), got {threshold!r}")
    if isinstance(n_trials, bool) or not isinstance(n_trials, (int, np.integer)) or n_trials < 0:
        raise ValueError(f"n_trials must be a non-negative integer, got {n_trials!r}")
    t = np.asarray(trial, dtype=np.int64).reshape(-1)
    call_id, key = list(call_id), list(key)
    if not (t.size == len(call_id) == len(key)):
        raise ValueError("trial, call_id and key must have one length; got "
                         f"{t.size}, {len(call_id)}, {len(key)}")
    if t.size and (t.min() < 0 or t.max() >= n_trials or (np.diff(t) < 0).any()):
        raise ValueError(f"trial must be non-decreasing and lie in [0, n_trials={n_trials})")
    return _result(*_tally(t, call_id, key, int(n_trials)), thr)


def _codes(values: list[Hashable], what: str) -> tuple[np.ndarray, list[Hashable]]:
    """First-seen codes of ``values`` under ``==`` and ``hash`` (a dict's own rule), and the
    first value of each code."""
    seen: dict[Hashable, int] = {}
    try:
        codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values), dtype=np.int64,
                            count=len(values))
    except TypeError:
        bad = next(i for i, v in enumerate(values) if not _hashable(v))
        raise TypeError(f"call {bad}: {what} must be hashable, got {values[bad]!r}") from None
    return codes, list(seen)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _tally(
    trial: np.ndarray, call_id: list[Hashable], key: list[Hashable], n_trials: int
) -> tuple[np.ndarray, np.ndarray, tuple[tuple[Any, int], ...]]:
    """Distinct and colliding calls up to each trial, and the colliding keys at the end.

    Raises ValueError at the first call (in order) whose id was seen before under another key.
    """
    cid, _ = _codes(call_id, "call id")
    kc, key_values = _codes(key, "key")
    _, first = np.unique(cid, return_index=True)  # codes are first-seen: code i first at first[i]
    origin = first[cid]
    changed = np.flatnonzero(kc != kc[origin])
    if changed.size:
        i = int(changed[0])
        j = int(origin[i])
        raise ValueError(
            f"call {call_id[i]!r} is logged with key {key[j]!r} at trial {int(trial[j])} and with "
            f"key {key[i]!r} at trial {int(trial[i])}; a key must be a function of the call"
        )
    new_key = kc[first]  # the key of each distinct call, in order of first appearance
    sizes = np.bincount(new_key, minlength=len(key_values))
    by_key = np.argsort(new_key, kind="stable")
    rank = np.empty(new_key.size, dtype=np.int64)
    rank[by_key] = np.arange(new_key.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    added = np.where(rank == 1, 2, (rank >= 2).astype(np.int64))
    at = trial[first]
    n_distinct = np.cumsum(np.bincount(at, minlength=n_trials))
    n_colliding = np.cumsum(np.bincount(at, weights=added, minlength=n_trials)).astype(np.int64)
    collisions = tuple((key_values[c], int(sizes[c])) for c in np.flatnonzero(sizes >= 2))
    return n_distinct.astype(np.int64), n_colliding, collisions


def _result(
    n_distinct: np.ndarray, n_colliding: np.ndarray, collisions: tuple[tuple[Any, int], ...],
    thr: float,
) -> CollisionRateResult:
    nd = n_distinct.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(nd > 0, n_colliding.astype(float) / np.where(nd > 0, nd, 1), np.nan)
    above = np.where(np.isnan(rate), False, rate > thr)
    alarms = tuple(Alarm("R3", int(i), float(rate[i]), thr, "above") for i in _rising_edges(above))
    return CollisionRateResult(
        threshold=thr,
        n_distinct_calls=tuple(n_distinct.tolist()),
        n_colliding_calls=tuple(n_colliding.tolist()),
        rate=tuple(rate.tolist()),
        collisions=collisions,
        alarms=alarms,
    )
