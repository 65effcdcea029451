"""``noisefloor tax report LOG... --out DIR``: the whole analysis of a collaboration-tax run.

Thin layer: :func:`noisefloor.tax.tax_report` computes and writes everything; this module
parses options and prints a summary (percentage points) or the JSON of the result.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click

from noisefloor.cli._common import HELP_OPTIONS, handle_errors
from noisefloor.cli._html import html_option, write_page
from noisefloor.report.text import pp
from noisefloor.tax import tax_report


def _num(value: float, fmt: str, reason: str) -> str:
    """A number for the summary, or the reason it is undefined (never a bare nan)."""
    return format(value, fmt) if value is not None and math.isfinite(value) else reason


def _ci(lo: float, hi: float) -> str:
    return f"[{pp(lo, signed=True)}, {pp(hi, signed=True)}]"


def _catch_up(logs: Any) -> None:
    """Rebuild the records of a run directory whose trials.jsonl is older than its journal
    (an interrupted run), and say so on stderr."""
    from noisefloor.tax.run import trials_behind_journal

    for log in logs:
        path = Path(log)
        trials = path / "trials.jsonl" if path.is_dir() else path
        stale = trials_behind_journal(trials) if trials.exists() or path.is_dir() else None
        if stale is None:
            continue
        from harness.runner.journal import rebuild_trials

        before, after = rebuild_trials(trials.parent)
        held = "no file" if before is None else f"{before:,} records"
        click.echo(f"note: {stale}; rebuilt it from the journal: {after:,} records "
                   f"(it held {held})", err=True)


@click.command("report", short_help="Tax per cell, mixed pairs, cascade, prediction, intervention.", context_settings=HELP_OPTIONS)
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory for report.md, report.json, the CSV tables and Figures 3-7.")
@click.option("--labels", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Cascade labels (long annotation layout: item=rollout key, rater, category "
                   "L1-L4, label 0/1), e.g. judge_labels.jsonl.")
@click.option("--judge-model", default=None, metavar="NAME",
              help="Label the pair rollouts now with this judge model (instead of --labels).")
@click.option("--judge-url", default=None, metavar="URL",
              help="OpenAI-compatible base URL of --judge-model (e.g. http://127.0.0.1:8000/v1).")
@click.option("--judge-api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="Environment variable holding the judge endpoint's API key.")
@click.option("--judge-concurrency", default=8, show_default=True, type=click.IntRange(1),
              help="Judge requests in flight.")
@click.option("--judge-retries", default=3, show_default=True, type=click.IntRange(0),
              help="Retries per judge request before the rollout is left unlabelled.")
@click.option("--judge-journal", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Journal of the judge's replies, written as they arrive (default: "
                   "OUT/judge_journal.jsonl); rollouts it labelled are not asked again.")
@click.option("--judge-variants", is_flag=True,
              help="Also label the prompt variants' pair rollouts (no table uses them).")
@click.option("--rater", default="judge", show_default=True,
              help="Whose labels the stage rates use.")
@click.option("--target", default=0.8, show_default=True, type=click.FloatRange(0, 1),
              help="Solo-tractability target; tasks whose solo mean is below it are exploratory.")
@click.option("--n-boot", default=2000, show_default=True, type=click.IntRange(1),
              help="Bootstrap replicates per interval.")
@click.option("--permutations", default=199, show_default=True, type=click.IntRange(0),
              help="Permutations of the ridge R^2 null.")
@click.option("--confidence", default=0.95, show_default=True,
              type=click.FloatRange(0, 1, min_open=True, max_open=True))
@click.option("--seed", default=0, show_default=True, type=int,
              help="Seed of every resampling step.")
@click.option("--no-predict", is_flag=True, help="Skip the grouped-fold ridge (no transcripts read).")
@click.option("--missing-transcripts", type=click.Choice(["error", "omit"]), default="error",
              show_default=True,
              help="A pair rollout without a transcript: stop, or leave it out of the prediction "
                   "(counted).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@html_option("--out")
@handle_errors
def report(logs, out, labels, judge_model, judge_url, judge_api_key_env, judge_concurrency,
           judge_retries, judge_journal, judge_variants, rater, target, n_boot, permutations,
           confidence, seed, no_predict, missing_transcripts, as_json, html_path=None):
    """Tax per cell, mixed pairs, cascade, prediction and intervention of tax runs in LOGS.

    LOGS are run directories (trials.jsonl + transcripts/) or trials.jsonl files.
    Python: noisefloor.tax.tax_report(LOGS, out=DIR, labels=..., rng=SEED).
    """
    _catch_up(logs)
    judge = None
    if judge_model or judge_url:
        if not (judge_model and judge_url):
            raise click.UsageError("--judge-model and --judge-url go together")
        if labels is not None:
            raise click.UsageError("give either --labels or --judge-model/--judge-url, not both")
        from noisefloor.endpoints import ModelEndpoint
        from noisefloor.endpoints.client import url_problem
        problem = url_problem(judge_url)
        if problem:
            raise click.BadParameter(f"{judge_url!r} {problem}", param_hint="--judge-url")
        judge = ModelEndpoint(judge_model, (judge_url,), api_key_env=judge_api_key_env,
                              concurrency=judge_concurrency)
    r = tax_report(list(logs), out=out, labels=labels, judge=judge, judge_retries=judge_retries,
                   judge_journal=judge_journal, judge_variants=judge_variants,
                   rater=rater, target=target,
                   n_boot=n_boot, n_permutations=permutations, confidence=confidence,
                   predict=not no_predict, missing_transcripts=missing_transcripts, rng=seed)
    write_page(r, html_path, out)
    if as_json:
        click.echo(json.dumps(r.to_dict(), indent=1, allow_nan=False))
        return
    level = f"{100 * confidence:g}%"
    click.echo(f"{r.n_rollouts} rollouts, {r.n_infrastructure_errors} infrastructure errors "
               "(left out of every mean)")
    click.echo(f"tax by model and family (pp, {level} stratified t interval over "
               "instances, tasks fixed):")
    fc = r.family_cells
    rec: Any  # a row namedtuple (pandas-stubs types its fields as any scalar)
    for rec in fc.itertuples(index=False):
        tax = pp(rec.tax, signed=True)
        click.echo(f"  {rec.model:<24} {rec.family:<11} solo {pp(rec.solo):>5}  pair "
                   f"{pp(rec.pair):>5}  tax {tax:>6} {_ci(rec.ci_low, rec.ci_high)}"
                   + (f"  ({rec.note})" if rec.note else ""))
    if r.prediction is not None and r.prediction.grouped is not None:
        g = r.prediction.grouped
        perm = ("not run (--permutations 0)" if permutations == 0
                else _num(g.r2_perm_p, ".3g", "undefined"))
        click.echo(f"prediction (GroupKFold by task, {g.n} cells): pooled out-of-fold R^2 "
                   f"{_num(g.r2_pooled_oof, '.3f', 'undefined')}, mean per-fold R^2 "
                   f"{_num(g.r2_mean_fold, '.3f', 'undefined (a fold of one cell)')}, Spearman "
                   f"{_num(g.spearman.rho, '.3f', 'undefined')} ({g.spearman.method} p "
                   f"{_num(g.spearman.p_value, '.3g', 'undefined')}), permutation p {perm}")
    if not r.intervention.empty:
        allrow = r.intervention[r.intervention["family"] == "all"]
        for rec in allrow.itertuples(index=False):
            if math.isfinite(rec.recovered):
                click.echo(f"intervention {rec.variant}: recovered {pp(rec.recovered)}% of the "
                           f"tax [{pp(rec.ci_low)}, {pp(rec.ci_high)}]")
    if r.stage_rates is not None:
        sr = r.stage_rates[(r.stage_rates["family"] == "all")
                           & (r.stage_rates["outcome"] == "failed")]
        stages = []
        for rec in sr.itertuples(index=False):
            stages.append(f"{rec.stage} {pp(rec.rate)}% ({rec.k}/{rec.n})")
        click.echo("cascade, failed pair rollouts (all families): " + ", ".join(stages))
    if r.judge is not None:
        click.echo(f"judge {judge_model}: {len(r.judge.labels) // 4} rollouts labelled, "
                   f"{len(r.judge.failures)} left unlabelled (infrastructure failure or "
                   "unparseable reply; re-run with the same --out to ask only for those)")
    if r.cascade_note:
        click.echo(f"cascade unavailable: {r.cascade_note}")
    for note in r.notes:
        click.echo(f"note: {note}")
    click.echo(f"wrote {len(r.files)} files to {out} (report.md, report.json, figures, tables)")
