"""``noisefloor floor``: certified null contrasts and the noise floor of per-trial logs."""

from __future__ import annotations

import click

from noisefloor.cli._common import HELP_OPTIONS, emit_json, handle_errors
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._intervals import confidence_option, pooling_options, tau_method_for
from noisefloor.cli._logs import LOG_SPEC, log_call_options, null_options


@click.command(context_settings=HELP_OPTIONS)
@click.argument("paths", nargs=-1, type=LOG_SPEC, metavar="[LOG[=LABEL]]...")
@null_options
@confidence_option
@pooling_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@html_option()
@handle_errors
def floor(paths, logs, log_format, label_benchmark, label_model, label_protocol, clean,
          null_pairs, no_trial0, no_reruns, confidence, pooling, tau_method, as_json, html_path) -> None:
    """The noise floor of LOG files, from their certified null contrasts.

    LOG may be noisefloor JSONL, a tau2-bench results.json or run directory, a tau-bench
    trajectory list, or a directory of <protocol>/trials.jsonl; each LOG given (as an
    argument or with --log) is one run, and LOG=LABEL names its arm. A contrast is null only
    when something certifies it: trial 0 of two protocols when every paired record logs
    store_events_at_start 0 or identical first requests, a re-run when its reader cannot have
    acted, or a pair declared with --null. The floor is an upper --confidence bound, each
    contrast pooled over seeds by summed counts or, with --pooling random, by random effects.
    Python: noisefloor.pipelines.floor_run.
    """
    from noisefloor.pipelines.floor import floor_run
    from noisefloor.report.text import floor_text

    if no_trial0 and no_reruns:
        raise click.UsageError("--no-trial0 and --no-reruns together leave no kind of null "
                               "contrast to build the floor from; drop one of them")
    tau_method = tau_method_for(pooling, tau_method)
    specs = list(paths) + list(logs)
    options = log_call_options(specs, log_format, label_benchmark, label_model, label_protocol)
    run = floor_run(specs, clean_pairs=clean, null_pairs=null_pairs, trial0=not no_trial0,
                    reruns=not no_reruns, confidence=confidence, pooling=pooling,
                    tau_method=tau_method, **options)
    write_page(run, html_path)
    if as_json:
        emit_json(run.to_dict())
        return
    click.echo(floor_text(run))
