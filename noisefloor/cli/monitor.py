"""``noisefloor monitor``: the three runtime alarms (R1-R3) over trial logs in time order.

Thin layer: the work is one call on the paths,
:func:`noisefloor.monitoring.from_logs.monitor_logs` (reading, sigma, the three rules); its
``to_dict()`` is ``--json``.
"""

from __future__ import annotations

import math

import click
import pandas as pd

from noisefloor.cli._common import HELP_OPTIONS, echo_table, emit_json, error_text, handle_errors
from noisefloor.cli._logs import LOG_SPEC, check_log_specs, log_options, log_read_kwargs
from noisefloor.monitoring.from_logs import monitor_logs
from noisefloor.stats.validation import ParameterError

#: Exit status when ``--fail-on-alarm`` is given and an alarm was raised.
ALARM_EXIT_CODE = 3

#: Exit status when ``--fail-on-alarm`` is given and no rule could be evaluated: nothing was
#: checked, which a CI gate must not read as "no alarm".
NOT_EVALUATED_EXIT_CODE = 4

#: Parameters of :func:`noisefloor.monitoring.from_logs.monitor_logs` whose error is a usage
#: error (``--sigma`` with ``--floor-log``): exit status 2, as click's own.
USAGE_PARAMETERS = frozenset({"sigma"})


def _num(value: float, digits: int = 3) -> str:
    return (
        "NaN"
        if value is None or (isinstance(value, float) and math.isnan(value))
        else f"{value:.{digits}f}"
    )


def _alarm_table(report) -> pd.DataFrame:
    frame = report.to_frame()
    where = (
        frame["source"].astype(str) + ":" + frame["line"].astype(str)
        if "source" in frame.columns
        else frame["position"].astype(str)
    )
    detail = []
    for a in report.alarms:
        if a.rule == "R1":
            detail.append(
                f"round {a.index}: pass^k {'rose' if a.direction == 'upper' else 'fell'}"
                f" (C{'+' if a.direction == 'upper' else '-'} > H)"
            )
        elif a.rule == "R2":
            detail.append(f"rolling {report.r2.q:.0%} quantile >= threshold")
        else:
            detail.append("collision rate > threshold")
    return pd.DataFrame(
        {
            "rule": frame["rule"],
            "at": where,
            "task_id": frame.get("task_id", ""),
            "trial": frame.get("trial", ""),
            "statistic": [_num(v, 4) for v in frame["statistic"]],
            "threshold": [_num(v, 4) for v in frame["threshold"]],
            "detail": detail,
        }
    )


def _describe(report, k: int) -> list[str]:
    lines = []
    r1, rounds = report.r1, report.r1_rounds
    if r1 is not None:
        base = report.r1_baseline_rounds
        lines.append(
            f"R1  CUSUM on coordination-active pass^{k}: {len(rounds.tasks)} golden tasks, "
            f"{len(rounds.values)} round(s) of {rounds.trials_per_round} trial(s) per task"
        )
        lines.append(
            f"    target {_num(r1.target)} (mean of {len(base.values)} baseline rounds), "
            f"sigma {_num(r1.sigma)} ({r1.sigma_source})"
        )
        lines.append(
            f"    k {r1.k:g}, h {r1.h:g} -> K {_num(r1.reference_value)}, "
            f"H {_num(r1.decision_interval)}; "
            f"in-control ARL ~ {r1.arl0:.1f} rounds (Siegmund, two-sided)"
        )
        lines.append(
            f"    rounds: {rounds.policy}; {rounds.n_skipped} trial(s) passed over, "
            f"{rounds.n_pending} waiting for the next round"
        )
    r2 = report.r2
    if r2 is not None:
        lines.append(
            f"R2  rolling-{r2.window} {r2.q:.0%} quantile of injections per trial: baseline "
            f"{_num(r2.baseline_quantile, 2)} over {r2.n_baseline} trials, alarm at >= "
            f"{_num(r2.threshold, 2)} (+{r2.rel_increase:.0%})"
        )
    r3 = report.r3
    if r3 is not None:
        final = r3.rate[-1] if r3.rate else math.nan
        lines.append(
            f"R3  coordination-key collision rate (cumulative): alarm above {r3.threshold:.2%}; "
            f"final {'NaN' if math.isnan(final) else f'{final:.2%}'} "
            f"({r3.n_distinct_calls[-1]} distinct calls, {len(r3.collisions)} shared key(s))"
        )
    for rule in ("R1", "R2", "R3"):
        if rule in report.reasons:
            state = "not evaluated" if getattr(report, rule.lower()) is None else "note"
            lines.append(f"{rule}  {state}: {report.reasons[rule]}")
    for rule, counts in report.excluded.items():
        left = ", ".join(f"{n} {why}" for why, n in counts.items() if n)
        if left:
            lines.append(f"{rule}  left out: {left}")
    return lines


def _check_options(counts: dict, reals: dict) -> None:
    """Reject option values the rules cannot use, naming the flag the user typed.

    The library checks these too, but names its own parameters (``q``, ``h``, ``k``); on the
    command line ``k must be finite`` would be ambiguous between ``--k`` and ``--cusum-k``.
    """
    for flag, value in counts.items():
        if value < 1:
            raise click.BadParameter(f"expected an integer >= 1, got {value}", param_hint=flag)
    for flag, value in reals.items():
        if value is None:
            continue
        if not math.isfinite(value):
            raise click.BadParameter(f"expected a finite number, got {value}", param_hint=flag)
        if flag == "--quantile" and not 0 < value < 1:
            raise click.BadParameter(f"expected a number strictly between 0 and 1, got {value:g}",
                                     param_hint=flag)
        if flag == "--collision-threshold" and not 0 <= value < 1:
            raise click.BadParameter(f"expected a number in [0, 1), got {value:g}",
                                     param_hint=flag)
        if flag in ("--sigma", "--cusum-h", "--rel-increase") and value <= 0:
            raise click.BadParameter(f"expected a number > 0, got {value:g}", param_hint=flag)
        if flag == "--cusum-k" and value < 0:
            raise click.BadParameter(f"expected a number >= 0, got {value:g}", param_hint=flag)


@click.command(short_help="Runtime alarms over LOG files, against a --baseline.", context_settings=HELP_OPTIONS)
@click.argument("logs", nargs=-1, required=True, type=LOG_SPEC)
@click.option(
    "--baseline",
    "baseline_logs",
    multiple=True,
    required=True,
    type=LOG_SPEC,
    help="Release-baseline log (repeat for several files; a directory works too).",
)
@log_options
@click.option("--benchmark", "label_benchmark", default=None,
              help="Benchmark label for formats that lack or only infer one.")
@click.option("--model", "label_model", default=None,
              help="Model label for formats that lack or only infer one.")
@click.option(
    "--sigma",
    type=float,
    default=None,
    help="Noise-floor sigma for R1. Default: SD of the baseline's round pass^k.",
)
@click.option(
    "--floor-log",
    "floor_logs",
    multiple=True,
    type=LOG_SPEC,
    help="Take sigma as null_gap_sd of `noisefloor floor` on these logs (repeatable).",
)
@click.option("--k", "k", type=int, default=1, show_default=True, help="The k of pass^k (R1).")
@click.option(
    "--trials-per-round",
    type=int,
    default=1,
    show_default=True,
    help="Coordination-active trials of each golden task per R1 round.",
)
@click.option(
    "--tasks",
    default=None,
    help="Golden task ids, comma-separated. Default: the baseline's coordination-active tasks.",
)
@click.option(
    "--cusum-k",
    type=float,
    default=0.5,
    show_default=True,
    help="R1 reference value k, in sigma units.",
)
@click.option(
    "--cusum-h",
    type=float,
    default=1.5,
    show_default=True,
    help="R1 decision interval h, in sigma units (1.5: the paper's +-1.5 sigma).",
)
@click.option(
    "--window", type=int, default=200, show_default=True, help="R2 rolling window N, in trials."
)
@click.option("--quantile", type=float, default=0.95, show_default=True, help="R2 quantile level.")
@click.option(
    "--rel-increase",
    type=float,
    default=0.5,
    show_default=True,
    help="R2 alarm at >= (1 + this) x the baseline quantile.",
)
@click.option(
    "--collision-threshold",
    type=float,
    default=0.005,
    show_default=True,
    help="R3 alarm above this collision rate.",
)
@click.option(
    "--protocol", default=None, help="Monitor only this protocol (needed if logs mix several)."
)
@click.option(
    "--rounds",
    "rounds_policy",
    type=click.Choice(["latest", "blocks"]),
    default="latest",
    show_default=True,
    help="R1 rounds: each task's most recent coordination-active trials, or consecutive blocks.",
)
@click.option(
    "--infrastructure-errors",
    type=click.Choice(["exclude", "fail"]),
    default="exclude",
    show_default=True,
    help="R1: leave infrastructure errors out, or count them as failures.",
)
@click.option(
    "--fail-on-alarm",
    is_flag=True,
    help=f"Exit with status {ALARM_EXIT_CODE} when any alarm is raised, "
         f"{NOT_EVALUATED_EXIT_CODE} when no rule could be evaluated.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@handle_errors
def monitor(
    logs,
    baseline_logs,
    log_format,
    label_benchmark,
    label_model,
    sigma,
    floor_logs,
    k,
    trials_per_round,
    tasks,
    cusum_k,
    cusum_h,
    window,
    quantile,
    rel_increase,
    collision_threshold,
    protocol,
    rounds_policy,
    infrastructure_errors,
    fail_on_alarm,
    as_json,
) -> None:
    """Runtime alarms over LOG files read in time order, against a --baseline.

    R1: two-sided tabular CUSUM on coordination-active pass^k per round of the golden tasks.
    R2: rolling-N 95th percentile of injections per trial, alarm at >= 50 % above the baseline's.
    R3: coordination-key collision rate (distinct calls sharing a key), alarm above 0.5 %.

    Time order: by extra.timestamp when every record has one, else the order of the LOG paths
    as given and line order within each file.
    """
    _check_options(
        {"--k": k, "--trials-per-round": trials_per_round, "--window": window},
        {"--sigma": sigma, "--cusum-k": cusum_k, "--cusum-h": cusum_h,
         "--quantile": quantile, "--rel-increase": rel_increase,
         "--collision-threshold": collision_threshold},
    )
    # --protocol here selects the monitored protocol (it is not a label, unlike floor's).
    # each group checked on its own (one file may be monitored and also the baseline)
    for group in (logs, baseline_logs, floor_logs):
        if group:
            check_log_specs(list(group), log_format)
    read = log_read_kwargs(log_format, label_benchmark, label_model)
    golden = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else None
    try:
        report = monitor_logs(
            list(logs),
            list(baseline_logs),
            sigma=sigma,
            floor_logs=list(floor_logs) or None,
            read_options=read,
            k=k,
            trials_per_round=trials_per_round,
            tasks=golden,
            cusum_k=cusum_k,
            cusum_h=cusum_h,
            window=window,
            q=quantile,
            rel_increase=rel_increase,
            collision_threshold=collision_threshold,
            protocol=protocol,
            infrastructure_errors=infrastructure_errors,
            rounds=rounds_policy,
        )
    except ParameterError as exc:
        if exc.parameter in USAGE_PARAMETERS:  # options given together: usage (exit 2)
            raise click.UsageError(error_text(exc)) from None
        raise
    evaluated = report.evaluated
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(f"monitored: {report.n_trials} trials, time order: {report.order}")
        click.echo(f"baseline:  {report.n_baseline_trials} trials")
        for line in _describe(report, k):
            click.echo(line)
        click.echo("")
        if report.alarms:
            click.echo(f"{len(report.alarms)} alarm(s), in time order:")
            echo_table(_alarm_table(report))
        elif not evaluated:
            click.echo("no rule could be evaluated (see the lines above): nothing was "
                       "checked, so this is not a pass")
        else:
            click.echo(f"no alarm ({', '.join(evaluated)} evaluated)")
    if fail_on_alarm and report.alarms:
        raise SystemExit(ALARM_EXIT_CODE)
    if fail_on_alarm and not evaluated:
        click.echo(f"--fail-on-alarm: no rule could be evaluated on these logs; exit status "
                   f"{NOT_EVALUATED_EXIT_CODE}", err=True)
        raise SystemExit(NOT_EVALUATED_EXIT_CODE)
