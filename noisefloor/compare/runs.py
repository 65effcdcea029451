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
        directory).
    by : {"protocol", "model", "agent", "run"} or None, default None
        What the names are; None takes ``"protocol"`` when both runs are labelled (a label
        names the run's arm), else ``"run"``.
    **options
        The other keyword arguments of :func:`~noisefloor.compare.result.compare`
        (``format``, ``benchmark``, ``null_pairs``, ``confidence``, ...).

    Returns
    -------
    Comparison
        As :func:`~noisefloor.compare.result.compare` returns it for the two runs.

    Raises
    ------
    ValueError
        A bad run (as :func:`~noisefloor.compare.result.compare` raises for its logs).

    Examples
    --------
    >>> c = compare_runs("fixtures/nulls/tau2_runA", "fixtures/nulls/tau2_modelB")
    >>> c.a, c.b, c.by, c.verdict
    ('tau2_runA', 'tau2_modelB', 'run', 'inside')
    """
    from noisefloor.logs.runs import run_names, run_specs

    (path_a, label_a), (path_b, label_b) = run_specs([run_a, run_b])
    names = run_names([path_a, path_b])
    a, b = label_a or names[0], label_b or names[1]
    if by is None:
        by = "protocol" if label_a and label_b else "run"
    return compare([(path_a, label_a), (path_b, label_b)], a=a, b=b, by=by, **options)
