"""``noisefloor contrast``: one paired contrast from its W/L/T counts, or from trial logs."""

from __future__ import annotations

import click

from noisefloor.cli._common import HELP_OPTIONS, emit_json, handle_errors
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._intervals import confidence_option
from noisefloor.cli._logs import log_call_options, null_options
from noisefloor.report.text import level_text, p_phrase, pp

#: A count: a non-negative integer that fits 64 bits (a larger one reached numpy as an object
#: and failed with "loop of ufunc does not support argument 0").
COUNT = click.IntRange(min=0, max=2**63 - 1)


@click.command(context_settings=HELP_OPTIONS)
@click.option("--wins", type=COUNT, default=None,
              help="Tasks where arm a (the first of contrast a-b) succeeded and arm b failed.")
@click.option("--losses", type=COUNT, default=None,
              help="Tasks where arm a failed and arm b succeeded.")
@click.option("--ties", type=COUNT, default=None, help="Tasks with equal outcomes (default 0).")
@null_options
@click.option("--a", "arm_a", default=None,
              help="With --log: arm a (the gap is a minus b): a protocol, a run's label, or a "
                   "model (see --by).")
@click.option("--b", "arm_b", default=None,
              help="With --log: arm b; the same as --a compares the arm with itself across "
                   "trials (re-runs).")
@click.option("--by", type=click.Choice(["protocol", "model"]), default=None,
              help="With --log: what --a and --b name (default: model when both are models of "
                   "the log and not protocols, else protocol).")
@click.option("--trial", "trial_indices", type=click.IntRange(min=0), multiple=True,
              help="With --log: trial to compare on (repeatable; default every trial after "
                   "trial 0, each its own contrast; re-runs: every pair of trials).")
@click.option("--trial-b", type=click.IntRange(min=0), default=None,
              help="With --log and --a = --b: the trial of arm b (each --trial against it).")
@click.option("--coordination-active", is_flag=True,
              help="With --log: also compare trial 1 on the tasks both protocols failed at trial 0.")
@click.option("--family-size", type=int, default=1, show_default=True,
              help="Number of contrasts in the family, for the Bonferroni correction.")
@confidence_option(help="Level of the Wilson-mapped interval (0.90 gives a 90% interval).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@html_option()
@handle_errors
def contrast(wins, losses, ties, logs, log_format, label_benchmark, label_model, label_protocol,
             clean, null_pairs, no_trial0, no_reruns, arm_a, arm_b, by, trial_indices, trial_b,
             coordination_active, family_size: int, confidence: float, as_json: bool, html_path=None) -> None:
    """Exact sign test, signed gap and Wilson-mapped CI (--confidence, default 95%) of one
    paired contrast a-b.

    From counts (--wins, --losses, --ties), or from logs: --log LOG --a P --b Q pairs each
    record of P with the record of Q for the same task and trial (within one benchmark,
    model and seed), one contrast per trial and seed, pooled over seeds when there are several.
    Each --log is one run (LOG=LABEL names its arm), so two runs of one configuration, or two
    models (--by model), are contrasted like two protocols; --a P --b P compares P with itself
    across trials. A row that is a certified null contrast says what certified it.
    Python: noisefloor.pipelines.contrast_run.
    """
    if family_size < 1:
        raise click.BadParameter(f"must be >= 1, got {family_size}", param_hint="--family-size")
    if logs:
        if wins is not None or losses is not None or ties is not None:
            raise click.UsageError("give either --log or --wins/--losses/--ties, not both")
        _from_logs(logs, log_format, label_benchmark, label_model, label_protocol, clean,
                   null_pairs, no_trial0, no_reruns, arm_a, arm_b, by, trial_indices, trial_b,
                   coordination_active, family_size, confidence, as_json, html_path)
        return
    if html_path is not None:
        raise click.UsageError("--html goes with --log (a page of the log's contrasts)")
    if (arm_a or arm_b or by or trial_indices or trial_b is not None or coordination_active
            or clean or null_pairs or no_trial0 or no_reruns):
        raise click.UsageError("--a, --b, --by, --trial, --trial-b, --coordination-active, "
                               "--clean, --null, --no-trial0 and --no-reruns go with --log")
    if wins is None or losses is None:
        raise click.UsageError("give --wins and --losses (and --ties), or --log LOG --a P --b Q")
    from noisefloor.pipelines.contrast import contrast_counts

    run = contrast_counts(wins, losses, 0 if ties is None else ties, family_size=family_size,
                          confidence=confidence)
    if as_json:
        emit_json(run.to_dict())
        return
    r = run.contrasts.iloc[0]
    click.echo(f"W/L/T {r.wins}/{r.losses}/{r.ties}  (n = {r.n}, {r.wins + r.losses} untied)")
    click.echo(f"gap        {pp(r.gap, signed=True)} pp")
    click.echo(f"{level_text(run.confidence) + ' CI':<10} [{pp(r.ci_low, signed=True)}, "
               f"{pp(r.ci_high, signed=True)}] pp (Wilson-mapped)")
    click.echo(f"sign test  p {p_phrase(r.p_value)}")
    if family_size > 1:
        click.echo(f"Bonferroni p {p_phrase(r.p_adjusted)} (m = {family_size})")
    if r.reason:
        click.echo(f"note: {r.reason}")


def _from_logs(logs, log_format, label_benchmark, label_model, label_protocol, clean,
               null_pairs, no_trial0, no_reruns, arm_a, arm_b, by, trial_indices, trial_b,
               coordination_active, family_size, confidence, as_json, html_path=None) -> None:
    from noisefloor.cli._common import error_text, option_spelling
    from noisefloor.pipelines.contrast import contrast_run
    from noisefloor.report.text import contrast_text
    from noisefloor.stats.validation import ParameterError

    options = log_call_options(list(logs), log_format, label_benchmark, label_model,
                               label_protocol)
    try:
        run = contrast_run(list(logs), arm_a, arm_b, by=by, trials=trial_indices or None,
                           trial_b=trial_b, coordination_active=coordination_active,
                           family_size=family_size, clean_pairs=clean, null_pairs=null_pairs,
                           trial0=not no_trial0, reruns=not no_reruns, confidence=confidence,
                           **options)
    except ParameterError as exc:
        if exc.parameter in USAGE_PARAMETERS:  # options missing or given together: usage (2)
            raise click.UsageError(error_text(exc)) from None
        raise
    write_page(run, html_path)
    if as_json:
        emit_json(run.to_dict())
        return
    click.echo(contrast_text(run, option_spelling()))


#: Parameters of :func:`noisefloor.pipelines.contrast_run` whose error is a usage error (an arm
#: not named, ``--trial-b`` without ``--a`` = ``--b``): exit status 2, as click's own.
USAGE_PARAMETERS = frozenset({"a", "trial_b"})
