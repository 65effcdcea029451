"""``noisefloor passk``: pass^k per configuration from per-trial logs.

Thin layer: the work is one call on the paths,
:func:`noisefloor.passk.report.pass_hat_k_report_from_logs`; its ``to_dict()`` is ``--json``.
"""

from __future__ import annotations

import click
import pandas as pd

from noisefloor.cli._common import HELP_OPTIONS, echo_table, emit_json, handle_errors
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._intervals import confidence_option
from noisefloor.cli._logs import LOG_SPEC, label_options, log_call_options, log_options
from noisefloor.passk.report import pass_hat_k_report_from_logs

#: The line under the table saying which figure is which.
WHICH_IS_WHICH = ("pass^k: all k of k attempts at a task succeed (tau-bench, Yao et al. 2024); "
                  "pass@k: at least one of k succeeds (unbiased estimator of Chen et al. 2021); "
                  "pass@k_ci: {level:g}% interval over tasks")


class _KList(click.ParamType):
    """One k or a comma-separated list of them (``--k 1,2,4``); each an integer >= 1."""

    name = "K[,K...]"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        parts = [p.strip() for p in str(value).split(",")]
        ks = []
        for part in parts:
            try:
                k = int(part)
            except ValueError:
                k = 0
            if k < 1 or not part.lstrip("+").isdigit():
                self.fail(f"{value!r}: expected an integer k >= 1, or a comma-separated list "
                          "such as 1,2,4 (--k may also be repeated)", param, ctx)
            ks.append(k)
        return tuple(ks)


@click.command(short_help="pass^k and pass@k of each configuration in LOG files.", context_settings=HELP_OPTIONS)
@click.argument("logs", nargs=-1, required=True, type=LOG_SPEC)
@log_options
@label_options
@click.option("--k", "ks", multiple=True, type=_KList(),
              help="k >= 1: a comma list (--k 1,2,4) or repeated (--k 1 --k 2); default 1 up to "
                   "the most trials any task has.")
@click.option("--infrastructure-errors", type=click.Choice(["exclude", "fail"]), default="exclude",
              show_default=True, help="Drop infrastructure-error trials, or count them as failures.")
@click.option("--k-exceeds-n", type=click.Choice(["nan", "exclude", "error"]), default="nan",
              show_default=True, help="Tasks with fewer than k trials: NaN, leave out, or fail.")
@click.option("--unequal-trials", type=click.Choice(["allow", "truncate", "error"]),
              default="allow", show_default=True,
              help="Tasks with different numbers of counted trials: use each task's own n "
                   "(tau-bench), keep every task's first m trials (m the fewest), or fail.")
@confidence_option(help="Level of the intervals over tasks of pass^k (CLT) and pass@k.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document: groups (one entry per configuration, each with "
                   "its pass_hat_k, pass_at_k and intervals) and confidence, whatever the "
                   "number of configurations.")
@html_option()
@handle_errors
def passk(logs, log_format, label_benchmark, label_model, label_protocol, ks, infrastructure_errors, k_exceeds_n, unequal_trials, confidence, as_json, html_path) -> None:
    """pass^k (tau-bench) and pass@k (Chen et al.) of each configuration in LOG files.

    Python: noisefloor.pass_hat_k_report_from_logs(LOGS, ks).
    """
    options = log_call_options(list(logs), log_format, label_benchmark, label_model,
                               label_protocol)
    report = pass_hat_k_report_from_logs(
        list(logs), tuple(k for group in ks for k in group),
        infrastructure_errors=infrastructure_errors, k_exceeds_n=k_exceeds_n,
        unequal_trials=unequal_trials, confidence=confidence, **options)
    write_page(report, html_path)
    if as_json:
        emit_json(report.to_dict())
        return
    table = report.details_frame()
    keys = list(report.keys)
    # n_not_run: trials with a null reward that are not infrastructure errors; they are left
    # out of pass^k, so the table must show them (never drop records silently).
    shown = table[keys + ["k", "value", "pass_at_k", "pass_at_k_ci_low", "n_tasks_used", "n_trials", "n_infrastructure_errors",
                          "n_not_run", "trials_min", "trials_max", "reason"]].copy()
    shown["value"] = shown["value"].map(lambda v: "n/a" if v != v else f"{v:.3f}")
    shown["pass_at_k"] = shown["pass_at_k"].map(lambda v: "n/a" if v != v else f"{v:.3f}")
    shown["pass_at_k_ci_low"] = [
        "n/a" if lo != lo else f"[{lo:.3f}, {hi:.3f}]"
        for lo, hi in zip(table["pass_at_k_ci_low"], table["pass_at_k_ci_high"])]
    if "seed" in shown.columns:  # a log without seeds: "none", as floor, contrast and audit print it
        shown["seed"] = shown["seed"].map(lambda s: "none" if pd.isna(s) else s)
    echo_table(shown.rename(columns={"value": "pass^k", "pass_at_k": "pass@k",
                                     "pass_at_k_ci_low": "pass@k_ci"}))
    click.echo(WHICH_IS_WHICH.format(level=100 * confidence))
    n_infra = report.n_infrastructure_errors
    if n_infra:
        how = ("dropped before counting (--infrastructure-errors exclude)"
               if infrastructure_errors == "exclude" else
               "counted as failed trials, included in n_trials (--infrastructure-errors fail)")
        click.echo(f"{n_infra} infrastructure-error trial(s) {how}")
    n_cut = report.n_trials_truncated
    if n_cut:
        click.echo(f"{n_cut} trial(s) beyond each task's first m dropped to equalise trial counts "
                   "(--unequal-trials truncate)")
