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

__all__ = ["CollisionRateResult", "collision_rate_monitor"]


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

    key_of: dict[Hashable, tuple[Hashable, int]] = {}
    members: dict[Hashable, int] = {}
    distinct = colliding = 0
    n_distinct: list[int] = []
    n_colliding: list[int] = []
    for t, calls in enumerate(trials):
        for j, call in enumerate(calls):
            if not isinstance(call, (tuple, list)) or len(call) != 2:
                raise TypeError(
                    f"trial {t}, call {j}: expected a pair, got {type(call).__name__} {call!r}"
                )
            if key_function is not None and identity_function is not None:
                tool, args = call
                cid, key = identity_function(tool, args), key_function(tool, args)
            else:
                cid, key = call
            try:
                seen = key_of.get(cid)
                hash(key)
            except TypeError:
                raise TypeError(
                    f"trial {t}, call {j}: call id and key must be hashable, got {call!r}"
                ) from None
            if seen is not None:
                if seen[0] != key:
                    raise ValueError(
                        f"call {cid!r} is logged with key {seen[0]!r} at trial {seen[1]} and with "
                        f"key {key!r} at trial {t}; a key must be a function of the call"
                    )
                continue
            key_of[cid] = (key, t)
            size = members.get(key, 0)
            members[key] = size + 1
            distinct += 1
            colliding += 2 if size == 1 else (1 if size >= 2 else 0)
        n_distinct.append(distinct)
        n_colliding.append(colliding)
    nd = np.asarray(n_distinct, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(
            nd > 0, np.asarray(n_colliding, dtype=float) / np.where(nd > 0, nd, 1), np.nan
        )
    above = np.where(np.isnan(rate), False, rate > thr)
    alarms = tuple(Alarm("R3", int(i), float(rate[i]), thr, "above") for i in _rising_edges(above))
    collisions = tuple((key, size) for key, size in members.items() if size >= 2)
    return CollisionRateResult(
        threshold=thr,
        n_distinct_calls=tuple(n_distinct),
        n_colliding_calls=tuple(n_colliding),
        rate=tuple(rate.tolist()),
        collisions=collisions,
        alarms=alarms,
    )
