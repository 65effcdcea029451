"""The runtime alarms over trial logs, sigma given or taken from a floor's logs, in one call.

:func:`monitor_logs` is what ``noisefloor monitor`` computes: it reads the monitored and
baseline logs (or takes their trial frames), takes the R1 sigma as given, from the noise floor
of other logs of the same deployment (:func:`~noisefloor.monitoring.sigma.floor_sigma`)
or from the baseline rounds, and runs
:func:`~noisefloor.monitoring.pipeline.monitor_trials`. Where sigma came from is in the
report's ``r1.sigma_source``, the floor's logs named.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from noisefloor.logs.runs import logs_given
from noisefloor.monitoring.pipeline import MonitorReport, monitor_trials
from noisefloor.stats.validation import ParameterError

__all__ = ["monitor_logs"]


def monitor_logs(
    logs: Any,
    baseline: Any,
    *,
    sigma: float | None = None,
    floor_logs: Any = None,
    read_options: Mapping[str, Any] | None = None,
    **options: Any,
) -> MonitorReport:
    """The three runtime alarms over trial logs, against a release baseline.

    Parameters
    ----------
    logs, baseline : path, ``"PATH=LABEL"``, (path, label), a sequence of them, or DataFrame
        The monitored and the release-baseline logs (read by
        :func:`noisefloor.logs.load_trials`), or their trials already loaded.
    sigma : float, optional
        Noise-floor sigma of R1 (``r1.sigma_source`` ``"parameter"``); not with
        ``floor_logs``.
    floor_logs : as ``logs``, optional
        Logs of the same benchmark and model whose noise floor's ``null_gap_sd`` is sigma
        (:func:`~noisefloor.monitoring.sigma.floor_sigma`; ``r1.sigma_source`` names
        them). Without ``sigma`` and ``floor_logs``, sigma is the SD of the baseline rounds.
    read_options : mapping, optional
        Keyword arguments of :func:`~noisefloor.logs.load_trials` (``format``,
        ``allow_nan``, ``benchmark``, ``model``, ``protocol``, ``score``) for every path given
        (``logs``, ``baseline`` and ``floor_logs``); ``protocol`` here labels the logs, while
        the ``protocol`` of ``**options`` chooses the monitored one.
    **options
        Keyword arguments of :func:`~noisefloor.monitoring.pipeline.monitor_trials` (``k``,
        ``trials_per_round``, ``tasks``, ``window``, ``protocol``, ...).

    Returns
    -------
    MonitorReport
        ``to_dict()`` is ``noisefloor monitor --json``.

    Raises
    ------
    ValueError
        ``sigma`` with ``floor_logs`` (checked before any log is read); a log without any
        trial record; what :func:`floor_sigma` and :func:`monitor_trials` refuse.

    Examples
    --------
    >>> rep = monitor_logs("fixtures/monitor/monitored.jsonl", "fixtures/monitor/baseline.jsonl",
    ...                    sigma=0.05)
    >>> rep.r1.sigma_source, rep.n_trials
    ('parameter', 240)
    """
    if sigma is not None and logs_given(floor_logs):
        raise ParameterError("sigma", "None with {floor_logs}", sigma, message=(
            "give {sigma} or {floor_logs}, not both"))
    read = dict(read_options or {})
    from noisefloor.logs.load import read_log_trials

    trials = read_log_trials(logs, **read)
    base = read_log_trials(baseline, **read)
    if not logs_given(floor_logs):
        return monitor_trials(trials, base, sigma=sigma, **options)
    from noisefloor.monitoring.sigma import floor_sigma

    floor = floor_sigma(floor_logs, trials, **read)
    report = monitor_trials(trials, base, sigma=floor.sigma, **options)
    if report.r1 is None:
        return report
    source = (f"null_gap_sd of the noise floor of {floor.logs} ({floor.n_null} per-seed null "
              "contrasts)")
    return replace(report, r1=replace(report.r1, sigma_source=source))
