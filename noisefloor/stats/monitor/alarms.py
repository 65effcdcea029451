"""The alarm record shared by the runtime monitors, and their input validators.

:class:`Alarm` is what :func:`noisefloor.stats.monitor.cusum.tabular_cusum` (R1),
:func:`noisefloor.stats.monitor.rolling_quantile.rolling_quantile_monitor` (R2) and
:func:`noisefloor.stats.monitor.collision_rate.collision_rate_monitor` (R3) report: the rule, the
position in the stream that raised it, the statistic and the threshold it crossed.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate

__all__ = ["ALARM_COLUMNS", "Alarm", "alarms_frame"]

#: Columns of :func:`alarms_frame`, the fields of :class:`Alarm` in order.
ALARM_COLUMNS = ("rule", "index", "statistic", "threshold", "direction", "row")


@dataclass(frozen=True)
class Alarm(FrozenResult):
    """One alarm raised by a monitor.

    Attributes
    ----------
    rule : str
        ``"R1"`` (CUSUM on pass^k), ``"R2"`` (injection quantile) or ``"R3"`` (key collisions).
    index : int
        0-based position in the monitored stream of the observation that raised the alarm
        (R1: the round; R2, R3: the trial).
    statistic : float
        Value of the monitored statistic at that observation (R1: the CUSUM ``C+`` or ``C-``
        in the units of the observations; R2: the rolling quantile; R3: the collision rate).
    threshold : float
        The threshold it crossed (R1: the decision interval ``H = h * sigma``).
    direction : str
        ``"upper"`` or ``"lower"`` for R1 (pass^k rose or fell); ``"above"`` for R2 and R3.
    row : hashable or None
        Label of the DataFrame row that completed the observation (frame-level functions);
        ``None`` for array input.
    """

    rule: str
    index: int
    statistic: float
    threshold: float
    direction: str
    row: Any = None


def alarms_frame(alarms: Sequence[Alarm]) -> pd.DataFrame:
    """One row per alarm with the columns :data:`ALARM_COLUMNS` (an empty frame for none).

    Examples
    --------
    >>> alarms_frame([Alarm("R2", 4, 8.1, 6.0, "above")])[["rule", "index"]].values.tolist()
    [['R2', 4]]
    >>> list(alarms_frame([]).columns) == list(ALARM_COLUMNS)
    True
    """
    return pd.DataFrame([a.to_dict() for a in alarms], columns=list(ALARM_COLUMNS))


def _real(name: str, value: object, *, positive: bool = False, nonneg: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and v <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if nonneg and v < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return v


def _positive_int(name: str, value: object) -> int:
    v = _validate.count(name, value)
    if v < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return v


def _series(name: str, values: object, *, nonneg: bool = False) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 1-D sequence of numbers") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"{name} must be finite; position {bad[0]} is {arr[bad[0]]}")
    if nonneg and (arr < 0).any():
        i = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name} must be >= 0; position {i} is {arr[i]}")
    return arr


def _rising_edges(condition: np.ndarray) -> np.ndarray:
    prev = np.concatenate([[False], condition[:-1]])
    return np.flatnonzero(condition & ~prev)
