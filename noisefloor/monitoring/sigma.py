"""The sigma of the R1 CUSUM from a noise floor of the same deployment.

R1 measures its drift in units of sigma. The run-to-run noise of the deployment is the natural
unit: the standard deviation of the per-seed null gaps of :func:`noisefloor.floor.noise_floor`
on logs of the same benchmark and model. :func:`floor_sigma` reads that floor and refuses what
would make it the wrong unit (another benchmark or model, fewer than two differing null gaps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats.validation import MentionError, ParameterError, literal

__all__ = ["FloorSigma", "floor_sigma", "labels_differ"]

#: The labels the floor's logs must share with the monitored trials.
_SAME = ("benchmark", "model")


@dataclass(frozen=True)
class FloorSigma(FrozenResult):
    """Result of :func:`floor_sigma`.

    Attributes
    ----------
    sigma : float
        ``null_gap_sd`` of the floor, a proportion (> 0).
    n_null : int
        Per-seed null contrasts whose gaps it is the standard deviation of (>= 2).
    logs : str
        The floor's logs as named (comma-separated).
    noise_floor : noisefloor.floor.NoiseFloor
        The floor itself; pass it as ``sigma`` of
        :func:`~noisefloor.monitoring.monitor_trials`, whose R1 then records
        ``"null_gap_sd of NoiseFloor"`` as the sigma's source.
    """

    sigma: float
    n_null: int
    logs: str
    noise_floor: Any = field(repr=False)


def labels_differ(floor_trials: pd.DataFrame, trials: pd.DataFrame) -> list[str]:
    """The ``benchmark`` and ``model`` values of a floor's trials that differ from the monitored.

    Parameters
    ----------
    floor_trials, trials : pandas.DataFrame
        Trial frames (:func:`noisefloor.logs.load_trials`). A column missing from either, or
        holding only missing values, is not compared.

    Returns
    -------
    list of str
        One phrase per differing label, ``"model m (the monitored trials: demo-model)"``;
        empty when they agree.

    Examples
    --------
    >>> a = pd.DataFrame({"benchmark": ["b"], "model": ["m"]})
    >>> labels_differ(a, pd.DataFrame({"benchmark": ["b", "b"], "model": ["n", "n"]}))
    ['model m (the monitored trials: n)']
    """
    problems = []
    for col in _SAME:
        if col not in floor_trials.columns or col not in trials.columns:
            continue
        have = set(map(str, floor_trials[col].dropna().unique()))
        want = set(map(str, trials[col].dropna().unique()))
        if have and want and have != want:
            problems.append(f"{col} {', '.join(sorted(have))} (the monitored trials: "
                            f"{', '.join(sorted(want))})")
    return problems


def _template(exc: ValueError) -> str:
    """An error's message with its parameter mentions kept as mentions (to be prefixed)."""
    if isinstance(exc, ParameterError):
        return exc.render(lambda name, value: "{" + name + ("" if value is None
                                                            else "=" + value) + "}")
    if isinstance(exc, MentionError):
        return exc.template
    return literal(str(exc))


def floor_sigma(floor_logs: Any, trials: pd.DataFrame, **read_options: Any) -> FloorSigma:
    """The R1 sigma as the null-gap SD of the noise floor of logs of the same deployment.

    Parameters
    ----------
    floor_logs : path, ``"PATH=LABEL"``, (path, label), a sequence of them, or pandas.DataFrame
        The logs whose floor gives sigma (read by :func:`noisefloor.logs.load_trials`), or
        their trials already loaded.
    trials : pandas.DataFrame
        The monitored trials: the floor's logs must be of their benchmark and model.
    **read_options
        Keyword arguments of :func:`~noisefloor.logs.load_trials` (``format``, ``allow_nan``,
        ``benchmark``, ``model``, ...), for paths.

    Returns
    -------
    FloorSigma

    Raises
    ------
    noisefloor.stats.validation.MentionError
        Every refusal names the logs (``{floor_logs}``) and what to do instead (``{sigma}``):
        the logs hold no trial; their benchmark or model differs from the monitored trials'
        (the noise of another deployment is not this one's); no null contrast can be formed
        (the floor's own message, with its remedies); or the null-gap SD is not a positive
        number (fewer than two per-seed null gaps, or all equal).

    Notes
    -----
    The floor is :func:`noisefloor.floor.noise_floor` of
    :func:`noisefloor.floor.nulls.certified_null_contrasts` at their defaults, as
    ``noisefloor floor LOG`` computes it; sigma is its ``null_gap_sd``, the sample standard
    deviation (ddof 1) of the per-seed null gaps (W - L) / n.

    Examples
    --------
    >>> from noisefloor.logs import load_trials
    >>> mon = load_trials("fixtures/logs/paper", benchmark="tau2/retail", model="m")
    >>> s = floor_sigma("fixtures/logs/paper", mon, benchmark="tau2/retail", model="m")
    >>> round(s.sigma, 4), s.n_null, s.logs
    (0.243, 4, 'fixtures/logs/paper')
    """
    from noisefloor.floor.contrast_table import TRIAL
    from noisefloor.floor.estimate import noise_floor
    from noisefloor.floor.nulls import certified_null_contrasts
    from noisefloor.logs import load_trials
    from noisefloor.logs.runs import log_sources

    frame = (floor_logs if isinstance(floor_logs, pd.DataFrame)
             else load_trials(floor_logs, **read_options))
    named = ", ".join(log_sources(floor_logs, frame)) or "a trial frame"
    where = f"{{floor_logs}} {literal(named)}"
    if frame.empty:
        raise MentionError(f"{where}: no trial record (expected at least one); give logs "
                           "that hold trials, or {sigma}")
    differ = labels_differ(frame, trials)
    if differ:
        raise MentionError(
            f"{where}: the floor's logs are {literal(' and '.join(differ))}; the run-to-run "
            "noise of another benchmark or model is not this deployment's sigma: give "
            "{floor_logs} logs of the same benchmark and model, or {sigma}")
    try:
        nf = noise_floor(certified_null_contrasts(frame).table)
    except ValueError as exc:
        raise MentionError(f"{where}: {_template(exc)}") from exc
    n_null = int((nf.table["level"] == TRIAL).sum())
    if not math.isfinite(nf.null_gap_sd) or nf.null_gap_sd <= 0:
        raise MentionError(
            f"{where}: the floor's null_gap_sd is {nf.null_gap_sd:g}, not a usable sigma (it "
            "needs at least two per-seed null gaps that differ; these logs give "
            f"{n_null} per-seed null contrast(s)); pass {{sigma}} instead")
    return FloorSigma(float(nf.null_gap_sd), n_null, named, nf)
