"""``noisefloor plan`` and ``noisefloor reruns-sim`` in one call each, one frozen result each.

:func:`plan_run` is the sample size or minimum detectable effect of several designs, against a
floor given as a number or read from trial logs (then also the sample size with that floor
shrinking as ``1/sqrt(n)``); :func:`reruns_sim_run` simulates re-runs and rates a claim against
null gaps. Each result's ``to_dict()`` is its command's ``--json``, with the same top-level keys
whatever the options (a part not asked for is None, or an empty list); the command line only
parses its options and prints the result. The statistics are :mod:`noisefloor.stats.power` and
:mod:`noisefloor.stats.snr`; this module adds the reading of logs they cannot do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noisefloor.logs.runs import logs_given
from noisefloor.pipelines.measured import MeasuredFloor
from noisefloor.results import FrozenResult
from noisefloor.stats.power.planning import PowerPlan
from noisefloor.stats.power.shrinking_floor import ShrinkingFloorPlan
from noisefloor.stats.snr import ClaimSNR, RerunsSimulation
from noisefloor.stats.validation import MentionError, ParameterError

__all__ = ["DESIGN_NAMES", "GIVEN_FLOOR", "DesignShrinkingFloor", "PlanRun", "RerunsSimRun",
           "plan_power_figure", "plan_run", "reruns_sim_run", "trial_null_gaps"]

#: Each design (``test``) as the text output and the power figure name it.
DESIGN_NAMES = {"two_proportion": "two-proportion z (independent)",
                "mcnemar": "McNemar (Connor)", "sign_test": "exact sign test"}

#: :attr:`PlanRun.floor_source` of a floor given as a number (``floor``); a command says how
#: it was given (``noisefloor plan`` prints ``--floor``).
GIVEN_FLOOR = "given"


@dataclass(frozen=True)
class DesignShrinkingFloor(FrozenResult):
    """One paired design's plan against a floor shrinking as ``1/sqrt(n)``.

    Attributes
    ----------
    test : str
        The design (``"mcnemar"``, ``"sign_test"``).
    n, floor_at_n, achieved_power, held_fixed, reason
        As in :class:`~noisefloor.stats.power.shrinking_floor.ShrinkingFloorPlan`.
    """

    test: str
    n: int
    floor_at_n: float
    achieved_power: float
    held_fixed: str
    reason: str = ""

    @classmethod
    def of(cls, test: str, plan: ShrinkingFloorPlan) -> DesignShrinkingFloor:
        """The design's record of ``plan``."""
        return cls(test, plan.n, plan.floor_at_n, plan.achieved_power, plan.held_fixed,
                   plan.reason)


@dataclass(frozen=True)
class PlanRun(FrozenResult):
    """Result of :func:`plan_run` (``noisefloor plan``).

    Attributes
    ----------
    solve_for : {"n", "gap"}
        The sample size for a gain, or the minimum detectable effect for n tasks.
    plans : tuple of PowerPlan
        One per design, in the order asked.
    floor_source : str
        Where the floor came from (:data:`GIVEN_FLOOR` for ``floor``, the logs'
        :attr:`MeasuredFloor.source`), empty without a floor.
    measured_floor : MeasuredFloor or None
        The floor read from ``floor_logs`` (with the n it was measured at).
    shrinking_floor : tuple of DesignShrinkingFloor
        With a floor read from logs, solving for n with a positive gain: one record per paired
        design, the smallest n at which the gain clears the floor as it would be at that n
        (:func:`~noisefloor.stats.power.shrinking_floor.sample_size_shrinking_floor`); empty
        otherwise (one shape whatever the options).
    plot : str or None
        The power figure written.
    """

    _dict_keys = ("solve_for", "plans", "floor_source", "measured_floor", "shrinking_floor",
                  "plot")
    _frame_field = "plans"

    solve_for: str
    plans: tuple[PowerPlan, ...]
    floor_source: str = ""
    measured_floor: MeasuredFloor | None = None
    shrinking_floor: tuple[DesignShrinkingFloor, ...] = ()
    plot: str | None = None

    @property
    def drawn_plans(self) -> tuple[PowerPlan, ...]:
        """The plans with a defined, non-zero gain: those the power figure draws (none: no
        figure, :func:`plan_power_figure` refuses)."""
        return tuple(p for p in self.plans if not math.isnan(p.gap) and p.gap != 0)


def plan_run(*, gap: float | None = None, n: int | None = None,
             tests: Sequence[str] | None = None, p_d: float | None = None,
             baseline: float | None = None, alpha: float = 0.05, power: float = 0.8,
             effect_size: str = "arcsine", floor: float | None = None, floor_logs: Any = (),
             floor_kind: str = "floor", null_pairs: Sequence = (), clean_pairs: Sequence = (),
             plot: str | Path | None = None, **read_options: Any) -> PlanRun:
    """Tasks needed for a gain of ``gap``, or the minimum detectable effect with ``n`` tasks.

    What ``noisefloor plan`` prints: :func:`noisefloor.stats.power.plan` against a floor given
    as a number or read from trial logs, with the power figure.

    Parameters
    ----------
    gap, n, tests, p_d, baseline, alpha, power, effect_size
        As in :func:`noisefloor.stats.power.plan` (exactly one of ``gap`` and ``n``).
    floor : float, optional
        A floor or envelope (proportion) the gain must clear with the stated power.
    floor_logs : path, sequence of paths or ``(path, label)`` pairs, or DataFrame, optional
        Trial logs whose floor (``floor_kind``) the gain must clear
        (:func:`noisefloor.pipelines.measured.required_floor`); not with ``floor``.
    floor_kind : {"floor", "envelope"}, default "floor"
        With ``floor_logs``: the clean-contrast floor or the envelope.
    null_pairs, clean_pairs : sequence, default ()
        With ``floor_logs``: which contrasts of the logs are null, which clean.
    plot : path, optional
        Write power against n for each design here (``.png``, ``.svg``, ``.pdf``).
    **read_options
        How ``floor_logs`` are read (``format``, ``allow_nan``, ``benchmark``, ...).

    Returns
    -------
    PlanRun
        ``to_dict()`` is the command's ``--json``.

    Raises
    ------
    ValueError
        Both or neither of ``gap`` and ``n``, ``floor`` with ``floor_logs``, a value out of
        range, a floor the logs do not define, or ``plot`` with no design to draw.

    Examples
    --------
    >>> r = plan_run(gap=0.1, p_d=0.3)
    >>> [p.n for p in r.plans], r.floor_source, r.shrinking_floor
    ([234, 249], '', ())
    >>> list(r.to_dict())
    ['solve_for', 'plans', 'floor_source', 'measured_floor', 'shrinking_floor', 'plot']
    """
    from noisefloor.stats.power.planning import plan

    if floor is not None and logs_given(floor_logs):
        raise ParameterError("floor", "None with {floor_logs}", floor, message=(
            "give {floor} or {floor_logs}, not both"))
    if (null_pairs or clean_pairs) and not logs_given(floor_logs):
        raise ParameterError("null_pairs", "given with {floor_logs}", message=(
            "{null_pairs} and {clean_pairs} go with {floor_logs} (they decide which contrasts "
            "of the log are null)"))
    measured = None
    source = GIVEN_FLOOR if floor is not None else ""
    if logs_given(floor_logs):
        from noisefloor.pipelines.measured import required_floor

        measured = required_floor(floor_logs, floor_kind, null_pairs=null_pairs,
                                  clean_pairs=clean_pairs, **read_options)
        floor, source = measured.value, measured.source
    plans = plan(gap=gap, n=n, tests=tests, baseline=baseline, p_d=p_d, alpha=alpha,
                 power=power, effect_size=effect_size, floor=0.0 if floor is None else floor)
    shrinking: tuple[DesignShrinkingFloor, ...] = ()
    if measured is not None and measured.n_tasks and gap is not None and gap > 0:
        from noisefloor.stats.power.shrinking_floor import sample_size_shrinking_floor

        shrinking = tuple(DesignShrinkingFloor.of(p.test, sample_size_shrinking_floor(
            gap, measured.value, measured.n_tasks, test=p.test, p_d=p.p_d, alpha=alpha,
            power=power)) for p in plans.plans if p.test != "two_proportion")
    run = PlanRun(plans.solve_for, plans.plans, source, measured, shrinking)
    if plot is None:
        return run
    from dataclasses import replace

    from noisefloor.report.power_figure import save_power_plot

    return replace(run, plot=str(save_power_plot(plan_power_figure(run), plot)))


def plan_power_figure(run: PlanRun) -> Any:
    """Power against n for each design of ``run`` with a defined gain (a matplotlib Figure),
    the target power dashed and each design's n marked.

    Raises
    ------
    noisefloor.stats.validation.MentionError
        No design has a defined, non-zero gain.
    """
    import numpy as np

    from noisefloor.report.power_figure import power_plot
    from noisefloor.report.text import pp
    from noisefloor.stats.power.planning import power_curve

    curves, marks = {}, {}
    defined = run.drawn_plans
    if not defined:
        raise MentionError("{plot}: no design has a defined gain to draw power for")
    top = max([p.n for p in defined if p.n > 0] or [100])
    ns = np.unique(np.linspace(1, max(20, int(top * 1.6)), 80).astype(int))
    for p in defined:
        extra = ({"baseline": p.baseline, "effect_size": p.effect_size}
                 if p.test == "two_proportion" else {"p_d": p.p_d})
        label = f"{DESIGN_NAMES[p.test]}, gap {pp(p.gap, signed=True)} pp"
        curves[label] = power_curve(p.test, ns, p.gap, alpha=p.alpha, floor=p.floor, **extra)
        marks[label] = p.n
    title = "power against tasks" + (f", clearing a {pp(defined[0].floor)} pp floor"
                                     if defined[0].floor > 0 else "")
    return power_plot(curves, target=defined[0].power, title=title, marks=marks)


@dataclass(frozen=True)
class RerunsSimRun(FrozenResult):
    """Result of :func:`reruns_sim_run` (``noisefloor reruns-sim``).

    Attributes
    ----------
    source : str
        What the success probabilities are (a flip rate on every task, or the per-task
        success shares of logs).
    simulation : RerunsSimulation
        How often re-run contrasts reach Bonferroni significance.
    claim : ClaimSNR or None
        With a claim: its signal-to-noise ratio and percentile among the null gaps.
    """

    source: str
    simulation: RerunsSimulation
    claim: ClaimSNR | None = None


def trial_null_gaps(logs: Any, **read_options: Any) -> list[float]:
    """The gap of every certified null contrast of trial logs at each seed (trial level,
    informative contrasts only): the null gaps a claim is rated against.

    Parameters
    ----------
    logs : path, sequence of paths or ``(path, label)`` pairs, or DataFrame
        As :func:`noisefloor.pipelines.floor_run` takes them.
    **read_options
        Other keyword arguments of :func:`~noisefloor.pipelines.floor_run`.

    Returns
    -------
    list of float

    Examples
    --------
    >>> trial_null_gaps("fixtures/logs/paper", benchmark="tau2/retail", model="m")[:2]
    [-0.25, -0.25]
    """
    from noisefloor.floor.contrast_table import TRIAL
    from noisefloor.pipelines import floor_run

    table = floor_run(logs, **read_options).noise_floor.to_frame()
    gaps = table.loc[(table["level"] == TRIAL) & (table["n"] > 0), "gap"]
    return [float(g) for g in gaps]


def reruns_sim_run(*, flip_rate: float | None = None, n_tasks: int = 100, logs: Any = (),
                   n_seeds: int = 2, n_arms: int = 3, alpha: float = 0.05, n_sim: int = 2000,
                   seed: int = 0, claim: float | None = None, null_gaps: Sequence[float] = (),
                   floor_logs: Any = (), **read_options: Any) -> RerunsSimRun:
    """Simulate re-runs of one configuration and rate a claim against null gaps.

    Parameters
    ----------
    flip_rate : float, optional
        Share of tasks on which two runs of one configuration disagree (0..0.5), the same on
        every one of ``n_tasks`` tasks; give this or ``logs``.
    n_tasks : int, default 100
        Tasks per seed, with ``flip_rate``.
    logs : path, sequence of them, or DataFrame, optional
        Trial logs: simulate at each task's success share over all its records.
    n_seeds, n_arms, alpha, n_sim
        As in :func:`noisefloor.stats.snr.simulate_reruns`.
    seed : int, default 0
        Seed of the simulation.
    claim : float, optional
        A claimed gain (proportion) to rate against ``null_gaps`` or the null gaps of
        ``floor_logs`` (:func:`trial_null_gaps`).
    null_gaps : sequence of float, default ()
        Null contrasts' gaps; not with ``floor_logs``.
    floor_logs : path, sequence of them, or DataFrame, optional
        Trial logs whose per-seed null-contrast gaps rate ``claim``.
    **read_options
        How the logs are read (``format``, ``allow_nan``, ...).

    Returns
    -------
    RerunsSimRun
        ``to_dict()`` is the command's ``--json``.

    Raises
    ------
    ValueError
        Both or neither of ``flip_rate`` and ``logs``, null gaps without a claim (or a claim
        without them), a value out of range.

    Examples
    --------
    >>> r = reruns_sim_run(flip_rate=0.36, n_sim=300, seed=2, claim=0.06,
    ...                    null_gaps=[0.10, 0, 0.08, -0.03, 0.18, -0.03])
    >>> r.simulation.m, r.claim.percentile, list(r.to_dict())
    (3, 50.0, ['source', 'simulation', 'claim'])
    """
    import numpy as np

    from noisefloor.stats.snr import claim_snr, flip_rate_to_success_prob, simulate_reruns

    if (flip_rate is None) == (not logs_given(logs)):
        raise ParameterError("flip_rate", "given without {logs}", message=(
            "give exactly one of {flip_rate} and {logs}"))
    if claim is None and (null_gaps or logs_given(floor_logs)):
        raise ParameterError("claim", "given with {null_gaps} or {floor_logs}", message=(
            "{null_gaps} and {floor_logs} rate a {claim}; give {claim}"))
    if claim is not None:
        if null_gaps and logs_given(floor_logs):
            raise ParameterError("null_gaps", "empty with {floor_logs}", message=(
                "give {null_gaps} or {floor_logs}, not both"))
        if not null_gaps and not logs_given(floor_logs):
            raise ParameterError("claim", "given with {null_gaps} or {floor_logs}", message=(
                "{claim} needs {null_gaps} or {floor_logs}"))
    if logs_given(logs):
        from noisefloor.logs.load import read_log_trials
        from noisefloor.logs.runs import log_sources
        from noisefloor.passk.trials import per_task_success_share

        trials = read_log_trials(logs, **read_options)
        p = per_task_success_share(trials).to_numpy()
        source = f"per-task success shares of {', '.join(log_sources(logs, trials))}"
    else:
        assert flip_rate is not None  # exactly one of flip_rate and logs, checked above
        if n_tasks < 1:
            raise ParameterError("n_tasks", ">= 1", n_tasks)
        p = np.full(n_tasks, flip_rate_to_success_prob(flip_rate))
        source = f"flip rate {flip_rate:g} on every task"
    sim = simulate_reruns(p, n_seeds=n_seeds, n_arms=n_arms, alpha=alpha, n_sim=n_sim, rng=seed)
    snr = None
    if claim is not None:
        gaps = list(null_gaps) or trial_null_gaps(floor_logs, **read_options)
        snr = claim_snr(claim, gaps)
    return RerunsSimRun(source, sim, snr)
