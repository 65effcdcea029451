"""``noisefloor floor``: null contrasts and the noise floor from per-trial logs."""

from __future__ import annotations

import click

from noisefloor.cli._common import echo_table, emit_json, handle_errors
from noisefloor.cli._logs import label_options, log_options, read_logs
from noisefloor.floor import noise_floor, null_contrasts_from_trials
from noisefloor.report import floor_table, pp


@click.command()
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True))
@log_options
@label_options
@click.option("--clean", multiple=True, help="Protocol pair certified clean, as 'a-b' (repeatable).")
@click.option("--no-trial0", is_flag=True, help="Leave out trial-0 contrasts across protocols.")
@click.option("--no-reruns", is_flag=True, help="Leave out re-runs of one configuration (A/A).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@handle_errors
def floor(logs, log_format, label_benchmark, label_model, label_protocol, clean, no_trial0, no_reruns, as_json) -> None:
    """The noise floor of LOG files: trial 0 across protocols and A/A re-runs.

    LOG may be noisefloor JSONL, a tau2-bench results.json or run directory, a tau-bench
    trajectory list, or a directory of <protocol>/trials.jsonl.
    """
    trials = read_logs(logs, log_format, label_benchmark, label_model, label_protocol)
    null = null_contrasts_from_trials(trials, clean_pairs=clean, trial0=not no_trial0,
                                      reruns=not no_reruns)
    nf = noise_floor(null)
    if as_json:
        emit_json(nf.to_dict())
        return
    click.echo(f"{len(trials)} trials, {trials['task_id'].nunique()} tasks, "
               f"{trials['protocol'].nunique()} protocol(s), {len(null)} per-seed null contrast(s)")
    click.echo(f"  floor     {pp(nf.floor)} pp  ({nf.floor_contrast}; basis: {nf.basis})")
    click.echo(f"  envelope  {pp(nf.envelope)} pp  ({nf.envelope_contrast})")
    click.echo(f"  null gaps {pp(nf.null_gap_min, signed=True)} to {pp(nf.null_gap_max, signed=True)}"
               f" pp, SD {pp(nf.null_gap_sd)} pp; {nf.n_informative} informative pairs")
    if nf.reason:
        click.echo(f"  note: {nf.reason}")
    click.echo("")
    echo_table(floor_table(nf))
