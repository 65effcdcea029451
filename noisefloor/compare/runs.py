"""Two runs as the two arms: :func:`compare_runs` (``noisefloor compare RUN_A RUN_B``)."""

from __future__ import annotations

from typing import Any

from noisefloor.compare.result import Comparison, compare

__all__ = ["compare_runs"]


def compare_runs(run_a: Any, run_b: Any, *, by: str | None = None, **options: Any) -> Comparison:
    """Run A against run B: each run is one arm (``noisefloor compare RUN_A RUN_B``).

    Parameters
    ----------
    run_a, run_b : path, ``"PATH=LABEL"`` or (path, label)
        The two runs, A first (the gap is A - B). An arm is named by its label, else by the
        run's short name (:func:`noisefloor.logs.runs.run_names`: the file stem, a tau2 run's
        directory); one run may be labelled and the other not.
    by : {"run"} or None, default None
        The two runs are the two arms, so the arms are always runs (``by`` of the result is
        ``"run"``); any other value is refused (to pick arms by protocol, model or agent from
        logs, use :func:`~noisefloor.compare.result.compare`).
    **options
        The other keyword arguments of :func:`~noisefloor.compare.result.compare`
        (``format``, ``benchmark``, ``null_pairs``, ``confidence``, ...).

    Returns
    -------
    Comparison
        As :func:`~noisefloor.compare.result.compare` returns it for the two runs.

    Raises
    ------
    ParameterError
        ``by`` other than ``"run"``; both runs named alike.
    ValueError
        A bad run (as :func:`~noisefloor.compare.result.compare` raises for its logs).

    Examples
    --------
    >>> c = compare_runs("fixtures/nulls/tau2_runA", "fixtures/nulls/tau2_modelB")
    >>> c.a, c.b, c.by, c.verdict
    ('tau2_runA', 'tau2_modelB', 'run', 'inside')
    >>> compare_runs("fixtures/nulls/tau2_runA=new", "fixtures/nulls/tau2_modelB").a
    'new'
    """
    from dataclasses import replace

    from noisefloor.logs.load import read_log_trials
    from noisefloor.logs.runs import log_sources, run_names, run_specs
    from noisefloor.stats.validation import ParameterError, literal

    if by not in (None, "run"):
        raise ParameterError("by", "", message=literal(
            f"two runs are the two arms, so the arms are runs, not a {by} picked from them "
            f"(got {by!r})") + "; leave {by} out with two runs, or give the logs and name "
            "the arms with {a} and {b} to pick them by " + literal(by))
    specs = run_specs([run_a, run_b])
    (path_a, label_a), (path_b, label_b) = specs
    names = run_names([path_a, path_b])
    a, b = label_a or names[0], label_b or names[1]
    read = {k: options.pop(k) for k in _READ if k in options}
    trials = read_log_trials(specs, **read)
    # each run is an arm: its rows carry the arm's name (the label, else the run's name)
    trials = trials.assign(run=trials["run"].map({names[0]: a, names[1]: b}).astype(str))
    result = compare(trials, a=a, b=b, by="run", **options)
    return replace(result, sources=log_sources(specs))


#: The keyword arguments of :func:`compare_runs` that say how the runs are read.
_READ = ("format", "allow_nan", "benchmark", "model", "protocol", "score")
