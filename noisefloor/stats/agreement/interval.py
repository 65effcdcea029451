"""The percentile bootstrap interval over items of an agreement coefficient.

:func:`_with_bootstrap` adds ``ci_low``/``ci_high`` to an :class:`AgreementResult` from the
vectorised resamplers of :mod:`noisefloor.stats.agreement.resampling`, or leaves them NaN with a
``ci_reason`` when the bootstrap cannot give an interval (too few items, every resample
undefined, every resample the same value).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from noisefloor.stats.agreement import resampling as _boot
from noisefloor.stats.agreement.result import AgreementResult

__all__ = ["MIN_BOOTSTRAP_ITEMS", "NO_RESAMPLES_REASON", "as_generator"]


def as_generator(rng: int | np.random.Generator | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be an int, a numpy.random.Generator or None; got {type(rng)!r}")


#: Fewest items a bootstrap interval over items is computed from; with fewer, every resample
#: is the same item and ``ci_low``/``ci_high`` are NaN with a ``ci_reason``.
MIN_BOOTSTRAP_ITEMS = 2


def _percentile_ci(boot: np.ndarray, confidence: float) -> tuple[float, float, int]:
    finite = boot[np.isfinite(boot)]
    undefined = int(boot.size - finite.size)
    if finite.size == 0:
        return math.nan, math.nan, undefined
    alpha = 1.0 - confidence
    low, high = np.quantile(finite, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(low), float(high), undefined


def _bootstrap(
    n_items: int, n_boot: int, rng: np.random.Generator, statistic: _boot.Resampler
) -> np.ndarray:
    """The coefficient on ``n_boot`` resamples of the items (vectorised, see
    :mod:`noisefloor.stats.agreement.resampling`)."""
    if statistic.inverse.size != n_items:  # pragma: no cover - a wiring bug, not user input
        raise RuntimeError(f"resampler holds {statistic.inverse.size} items, expected {n_items}")
    return _boot.bootstrap(statistic, n_boot, rng)

#: The ``ci_reason`` of an estimate for which no bootstrap resamples were asked for.
NO_RESAMPLES_REASON = "no bootstrap resamples were asked for, so no interval is given"


def _with_bootstrap(
    result: AgreementResult,
    n_items: int,
    n_boot: int,
    rng: int | np.random.Generator | None,
    statistic: _boot.Resampler | Callable[[], _boot.Resampler],
) -> AgreementResult:
    """Add the percentile bootstrap interval over items, or NaN with ``ci_reason``.

    ``statistic`` is the resampler, or a function that builds it (called only when a
    bootstrap is drawn, so that a point estimate does not group the items for nothing).

    The interval is NaN (never zero-width) with a reason when no resamples are asked for,
    when fewer than :data:`MIN_BOOTSTRAP_ITEMS` items entered the estimate, when the coefficient is undefined
    on every resample, or when every resample on which it is defined gives the same value.
    """
    gen = as_generator(rng)
    if not math.isfinite(result.value):
        return result
    if n_boot == 0:
        return replace(result, ci_reason=NO_RESAMPLES_REASON)
    if n_items < MIN_BOOTSTRAP_ITEMS:
        return replace(result, ci_reason=(
            f"{'one item' if n_items == 1 else f'{n_items} items'}: a bootstrap over items "
            "resamples the same item every time, so it "
            f"cannot give an interval (at least {MIN_BOOTSTRAP_ITEMS} items are needed)"))
    resampler = statistic if isinstance(statistic, _boot.Resampler) else statistic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        boot = _bootstrap(n_items, n_boot, gen, resampler)
    low, high, undefined = _percentile_ci(boot, result.confidence)
    done = replace(result, n_boot=n_boot, n_boot_undefined=undefined)
    if undefined == n_boot:
        return replace(done, ci_reason=(
            f"the coefficient is undefined on all {n_boot} bootstrap resamples (each holds a "
            "single category), so the bootstrap gives no interval"))
    finite = boot[np.isfinite(boot)]
    if np.ptp(finite) == 0.0:
        spread = f"; {undefined} undefined resamples left out" if undefined else ""
        return replace(done, ci_reason=(
            f"every bootstrap resample gave the same value ({float(finite[0]):.3f}{spread}): "
            "the items leave the bootstrap nothing to vary, and a zero-width interval would "
            "claim a certainty the data do not have, so no interval is given"))
    return replace(done, ci_low=low, ci_high=high)
