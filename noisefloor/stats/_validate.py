"""Small validators for the public boundary of :mod:`noisefloor.stats` (real exceptions, never assert)."""

from __future__ import annotations

import numbers

import numpy as np


def count(name: str, value: object) -> int:
    """Return ``value`` as a non-negative int or raise naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer() and value >= 0:
            return int(value)
        raise TypeError(f"{name} must be a non-negative integer count, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer count, got {value!r}")
    return int(value)


def choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``allowed``; otherwise raise naming all of them."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return str(value)


def probability(name: str, value: object) -> float:
    """Return ``value`` as a float in (0, 1) or raise."""
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number in (0, 1), got {value!r}") from None
    if not 0.0 < v < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return v
