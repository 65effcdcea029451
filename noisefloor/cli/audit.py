"""``noisefloor audit``: place published claims against a noise floor, with a forest plot."""

from __future__ import annotations

import click

from noisefloor.cli._common import HELP_OPTIONS, emit_json, handle_errors, option_spelling
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._intervals import confidence_option, pooling_options, tau_method_for
from noisefloor.cli._logs import log_call_options, null_options


@click.command(context_settings=HELP_OPTIONS)
@click.option("--counts", type=click.Path(dir_okay=False), default=None,
              help="CSV of paired W/L/T counts (default: the noise-floor paper's, bundled).")
@null_options
@click.option("--by", type=click.Choice(["protocol", "model"]), default="protocol",
              show_default=True, help="With --log: the arms of the log's own contrasts.")
@click.option("--a", "arm_a", default=None, metavar="NAME",
              help="With --log: place only the contrast A - B (with --b); a positive gap means "
                   "A succeeded more often. Default: every pair of arms, in the order the logs "
                   "give them.")
@click.option("--b", "arm_b", default=None, metavar="NAME", help="With --log: arm B (see --a).")
@click.option("--claims", type=click.Path(dir_okay=False), default=None,
              help="CSV of claimed gains in pp (default: without --log and --counts, the ten "
                   "published claims listed by the noise-floor paper; with them, none).")
@click.option("--bundled-claims", "bundled_claims", is_flag=True,
              help="With --log or --counts: also place the ten bundled published claims (other "
                   "papers' claims on their own benchmarks, labelled as such).")
@click.option("--out", type=click.Path(file_okay=False), default="noisefloor-report",
              show_default=True, help="Directory for forest.png, forest.svg and report.md.")
@confidence_option
@pooling_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@click.option("--no-plot", "no_plot", is_flag=True,
              help="Write no forest plot (report.md only). The plot draws at most 60 rows, those "
                   "farthest from 0, and says what it left out.")
@html_option("--out")
@handle_errors
def audit(counts, logs, log_format, label_benchmark, label_model, label_protocol, clean,
          null_pairs, no_trial0, no_reruns, by, arm_a, arm_b, claims, bundled_claims, out,
          confidence, pooling, tau_method, as_json, no_plot, html_path) -> None:
    """Is a claimed gain inside the noise floor? Place each claim below, inside or above it.

    Without options, runs on the bundled figures of Kaliyev & Maryanskyy (2026): their paired
    counts on tau2-bench retail (whose trial-0 rows the paper declares null) and the ten
    published claims they list. With --log, the floor comes from the log's certified null
    contrasts, and the log's own contrasts (each trial after trial 0, written A - B in the order
    the logs give the arms or as --a A --b B, and trial 1 on the coordination-active subset
    when the records carry store_events_at_start) are placed against it. With --log or
    --counts only the claims of --claims are placed (--bundled-claims adds the ten published
    ones). Every interval and bound is at --confidence;
    --pooling random pools each null contrast over seeds by random effects instead of summed
    counts. Python: noisefloor.pipelines.audit_run.
    """
    from noisefloor.pipelines.audit import audit_run
    from noisefloor.report.text import audit_text

    if logs and counts:
        raise click.UsageError("give either --counts or --log, not both")
    if not logs and (null_pairs or no_trial0 or no_reruns or by != "protocol"
                     or arm_a is not None or arm_b is not None):
        raise click.UsageError("--null, --no-trial0, --no-reruns, --by, --a and --b go with "
                               "--log: a count table's trial-0 rows are its null contrasts")
    tau_method = tau_method_for(pooling, tau_method)
    kwargs = {}
    if logs:
        kwargs = log_call_options(list(logs), log_format, label_benchmark, label_model,
                                  label_protocol)
        kwargs.update(logs=list(logs), null_pairs=null_pairs, trial0=not no_trial0,
                      reruns=not no_reruns, by=by, a=arm_a, b=arm_b)
    spell = option_spelling()
    run = audit_run(counts=counts, claims=claims, bundled_claims=bundled_claims,
                    clean_pairs=clean, out=out, plot=not no_plot, confidence=confidence,
                    pooling=pooling, tau_method=tau_method, spell=spell, **kwargs)
    page = write_page(run, html_path, out)
    if as_json:
        emit_json(run.to_dict())
        return
    click.echo(audit_text(run, spell))
    click.echo("\nWrote " + ", ".join([*run.files, *([str(page)] if page else [])]))
