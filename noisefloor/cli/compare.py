"""``noisefloor compare``: A against B on per-trial logs, against the floor of their re-runs."""

from __future__ import annotations

import sys

import click

from noisefloor.cli._common import (
    HELP_OPTIONS,
    emit_json,
    error_text,
    handle_errors,
    option_spelling,
)
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._intervals import confidence_option
from noisefloor.cli._logs import LOG_SPEC, label_options, log_call_options, log_options

#: Exit status of ``--fail-if`` when its condition holds (a usage error is 2, any error 1).
FAIL_STATUS = 3


@click.command(context_settings=HELP_OPTIONS)
@click.argument("runs", nargs=-1, type=LOG_SPEC, metavar="[RUN_A RUN_B]")
@click.option("--log", "logs", multiple=True, type=LOG_SPEC,
              help="Per-trial log (file, tau2 run directory or folder), one run each; LOG=LABEL "
                   "names the run's arm. Repeatable.")
@log_options
@label_options
@click.option("--a", "arm_a", default=None, metavar="NAME",
              help="Arm A: a protocol, model, agent or run label (see --by). The gap is A - B.")
@click.option("--b", "arm_b", default=None, metavar="NAME", help="Arm B, the reference.")
@click.option("--by", type=click.Choice(["protocol", "model", "agent", "run"]), default=None,
              help="What --a and --b name (inferred when only one of them holds both names).")
@click.option("--null", "null_pairs", multiple=True, metavar="X-X",
              help="Declare the re-runs of an arm null ('x-x') when the log cannot certify "
                   "them (no store_events_at_start, no injections). Repeatable.")
@confidence_option
@click.option("--power", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.8,
              show_default=True, help="Power of the minimum detectable effect (MDE) column.")
@click.option("--infrastructure-errors", type=click.Choice(["exclude", "fail"]),
              default="exclude", show_default=True,
              help="Leave infrastructure-error trials out, or count them as failures.")
@click.option("--fail-if", type=click.Choice(["below", "inside"]), default=None,
              help="CI gate: exit 3 when the verdict is 'below' (A worse than B beyond the "
                   "noise), or with 'inside' when it is not 'above' (no gain beyond the noise).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write report.md and the forest plot (forest.png, forest.svg) here.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@html_option("--out (or the current directory)")
@handle_errors
def compare(runs, logs, log_format, label_benchmark, label_model, label_protocol, arm_a, arm_b,
            by, null_pairs, confidence, power, infrastructure_errors, fail_if, out_dir,
            as_json, html_path=None) -> None:
    """Is A better than B on these logs, or inside the noise floor?

    Give two runs as the arms (noisefloor compare RUN_A RUN_B), or logs with --log and the
    arms by name (--a X --b Y). The gap is always A - B in the order given (positive: A
    better), per trial (trial i of A against trial i of B) and pooled over trials and seeds,
    with its interval at --confidence, the exact sign-test p and the minimum detectable effect
    at this n. The floor comes from each arm's own certified re-runs (trial i against trial j);
    without any, the output says what to run. Python: noisefloor.compare.compare
    (noisefloor.compare.compare_runs for RUN_A RUN_B).
    """
    from noisefloor.compare.render import comparison_text, save_comparison_report

    runs, logs = list(runs), list(logs)
    if runs and (logs or arm_a or arm_b):
        mixed = [o for o, v in (("--log", logs), ("--a", arm_a), ("--b", arm_b)) if v]
        raise click.UsageError(f"give two runs as the arms (compare RUN_A RUN_B), or logs with "
                               f"--log and the arms with --a and --b, not both (got RUN "
                               f"arguments and {', '.join(mixed)})")
    if runs and len(runs) != 2:
        raise click.UsageError(f"give two runs, A then B (compare RUN_A RUN_B), got "
                               f"{len(runs)}; for the arms of one log use --log LOG --a A --b B")
    if not runs and not logs:
        raise click.UsageError("give the logs: two runs (compare RUN_A RUN_B) or --log LOG")
    if not runs and (not arm_a or not arm_b):
        raise click.UsageError("name both arms with --a and --b (the gap is A - B)")
    options = log_call_options(runs or logs, log_format, label_benchmark, label_model,
                               label_protocol)
    options.update(null_pairs=null_pairs, confidence=confidence, power=power,
                   infrastructure_errors=infrastructure_errors)
    if runs:
        from noisefloor.compare.runs import compare_runs
        from noisefloor.stats.validation import ParameterError

        try:
            result = compare_runs(*runs, by=by, **options)
        except ParameterError as exc:
            if exc.parameter == "by":  # --by with two runs: usage (exit 2)
                raise click.UsageError(error_text(exc)) from None
            raise
    else:
        from noisefloor.compare.result import compare as run_compare

        result = run_compare(logs, a=arm_a, b=arm_b, by=by, **options)
    spell = option_spelling()
    write_page(result, html_path, out_dir, spell=spell)
    if as_json:
        emit_json(result.to_dict())
    else:
        click.echo(comparison_text(result, spell))
    if out_dir is not None:
        for path in save_comparison_report(result, out_dir, spell):
            click.echo(f"wrote {path}", err=as_json)
    failed = (fail_if == "below" and result.verdict == "below") or (
        fail_if == "inside" and result.verdict != "above")
    if failed:
        click.echo(f"--fail-if {fail_if}: the verdict is {result.verdict!r}", err=True)
        sys.exit(FAIL_STATUS)
