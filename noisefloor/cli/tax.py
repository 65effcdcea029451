"""``noisefloor tax``: run the collaboration-tax suite against OpenAI-compatible endpoints,
join shards, report on runs and browse their transcripts.

Each subcommand only parses options and renders; the work is done by
:func:`harness.runner.run.run_tax` (``tax run``), :func:`harness.runner.merge.merge_runs`
(``tax merge``), :func:`noisefloor.tax.tax_report` (``tax report``: it computes and writes
everything, the command prints a summary in percentage points or the JSON of the result) and
:func:`noisefloor.report.html.viewer.serve` (``tax view``). Each command imports what it needs
when it runs, so ``tax run`` (a resume, most often) starts without the analysis (scipy,
scikit-learn, the plotting), and a missing optional package names the extra that installs it.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from noisefloor.cli._common import HELP_OPTIONS, echo_table, emit_json, error_text, handle_errors
from noisefloor.cli._html import html_option, write_page


@click.group("tax",
             short_help="Run the collaboration-tax suite; merge runs; report on them.", context_settings=HELP_OPTIONS)
def tax() -> None:
    """The collaboration-tax suite against any OpenAI-compatible endpoint, and its analysis."""


def _split(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def _option_value(ctx: click.Context, config_run: dict[str, Any], name: str) -> Any:
    """A command-line value wins over the config's [run] value, which wins over the default."""
    source = ctx.get_parameter_source(name)
    if source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
        return ctx.params[name]
    return config_run.get(name, ctx.params[name])


@tax.command("run", short_help="Run solo, pair and split_solo rollouts into a directory.", context_settings=HELP_OPTIONS)
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="run.toml: [[models]] with base URLs, key variables, concurrency and prices; "
                   "[run] defaults for any option below.")
@click.option("--tasks", help="Comma-separated task names, or 'all' (noisefloor harness list).")
@click.option("--models", help="Comma-separated models run solo, split_solo and in "
                               "homogeneous pairs.")
@click.option("--pair-models", help="Comma-separated mixed pairs A+B; each runs in both slot "
                                    "orders, with the members' solo rollouts (solo in --modes).")
@click.option("--modes", default="solo,pair", show_default=True,
              help="Comma-separated: solo, pair, split_solo.")
@click.option("--rollouts", type=click.IntRange(1), default=1, show_default=True,
              help="Instances per task (instance seeds SEED .. SEED+N-1).")
@click.option("--repeats", type=click.IntRange(1), default=1, show_default=True,
              help="Rollouts per instance and configuration (the records' trial).")
@click.option("--difficulty", type=click.IntRange(0, 2), default=1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True,
              help="Run seed: the first instance seed, recorded as every record's seed.")
@click.option("--turn-cap", type=click.IntRange(1), default=12, show_default=True,
              help="Most assistant messages per rollout; reaching it scores 0 (turn_cap).")
@click.option("--temperature", type=click.FloatRange(0), default=None,
              help="Sampling temperature sent with every agent request (default: not sent).")
@click.option("--max-tokens", type=click.IntRange(1), default=None,
              help="max_tokens sent with every agent request (default: not sent).")
@click.option("--extractor-model", default=None,
              help="Model that rewrites an answer the task's parser cannot read.")
@click.option("--prompt-variant", default="baseline", show_default=True,
              help="Comma-separated prompt variants (names in --variants-file).")
@click.option("--variants-file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="TOML file of prompt variants (default: the shipped one).")
@click.option("--solo-view", type=click.Choice(["canonical", "both"]), default="canonical",
              show_default=True,
              help="What the solo control reads: the merged instance in one canonical form "
                   "(every family), or both views in their own conventions.")
@click.option("--solo-budget", type=click.Choice(["none", "pair-median"]), default="none",
              show_default=True,
              help="Matched spend: pair-median runs the pairs first, then caps each solo "
                   "rollout's tokens at the median tokens of its model's pair rollouts of the "
                   "same task (needs solo and pair in --modes).")
@click.option("--starter", type=click.Choice(["a", "b", "alternate"]), default="a",
              show_default=True, help="Which agent opens a pair's dialogue.")
@click.option("--base-url", default=None,
              help="Comma-separated base URLs (.../v1) of every model not in --config.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="Environment variable holding the API key of models not in --config.")
@click.option("--concurrency", type=click.IntRange(1), default=8, show_default=True,
              help="Requests in flight per base URL (models not in --config).")
@click.option("--price-input", type=click.FloatRange(0), default=None,
              help="USD per million input tokens (models not in --config).")
@click.option("--price-output", type=click.FloatRange(0), default=None,
              help="USD per million output tokens (models not in --config).")
@click.option("--timeout", type=click.FloatRange(0, min_open=True), default=60.0,
              show_default=True, help="Seconds per request.")
@click.option("--max-retries", type=click.IntRange(0), default=3, show_default=True,
              help="Retries per request before the rollout is an infrastructure error.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run directory (resumed when it exists). Required here or in --config.")
@click.option("--shard", default=None, metavar="I/N",
              help="Run only shard I of N (1 <= I <= N) of the rollout keys.")
@click.option("--retry-errors", is_flag=True, help="Run infrastructure errors again.")
@click.option("--allow-changed-settings", is_flag=True,
              help="Accept a directory run with other outcome-changing settings.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
@handle_errors
def run(ctx: click.Context, config_path: Path | None, **_: Any) -> None:
    """Run (or resume) the collaboration-tax suite into --out DIR.

    Writes DIR/journal.ndjson (append-only, fsynced per rollout), DIR/transcripts/, and
    DIR/trials.jsonl (noisefloor trial records: benchmark tax/<task>, protocol = mode).
    """
    from harness.registry import list_tasks
    from harness.runner.config import load_config
    from harness.runner.keys import parse_shard
    from harness.runner.run import RunSettings, SettingsMismatchError, run_tax
    from noisefloor.endpoints import EndpointFatalError, ModelEndpoint
    from noisefloor.endpoints.client import url_problem

    config = load_config(config_path) if config_path is not None else None
    run_table = config.run if config is not None else {}
    opt = {name: _option_value(ctx, run_table, name) for name in ctx.params
           if name not in ("config_path",)}
    if not opt["tasks"]:
        raise click.UsageError("give --tasks (or tasks in the config's [run] table)")
    if opt["out"] is None:
        raise click.UsageError("give --out DIR (or out in the config's [run] table)")
    tasks = ([t.name for t in list_tasks()] if opt["tasks"].strip() == "all"
             else _split(opt["tasks"]))
    pairs = []
    for text in _split(opt["pair_models"]):
        a, plus, b = text.partition("+")
        if not plus or not a or not b:
            raise click.BadParameter(f"expected A+B, got {text!r}", param_hint="--pair-models")
        pairs.append((a, b))
    modes = _split(opt["modes"])
    if pairs and "solo" not in modes:
        members = ", ".join(dict.fromkeys(m for p in pairs for m in p))
        click.echo(f"warning: --pair-models without solo in --modes runs no solo rollout of "
                   f"{members}; the Shapley table needs them: add solo to --modes, or run "
                   "them into another directory with --models and --modes solo and give both "
                   "to tax report", err=True)
    if opt["solo_budget"] != "none" and not {"solo", "pair"} <= set(modes):
        raise click.BadParameter(f"{opt['solo_budget']} needs solo and pair in --modes, got "
                                 f"{','.join(modes)}", param_hint="--solo-budget")
    if opt["solo_budget"] != "none" and opt["shard"]:
        raise click.BadParameter("a solo's cap is the median of every pair rollout of its "
                                 "task, which other shards would run: run without --shard",
                                 param_hint="--solo-budget")
    settings = RunSettings(
        tasks=tuple(tasks), models=tuple(_split(opt["models"])), pair_models=tuple(pairs),
        modes=tuple(_split(opt["modes"])), rollouts=opt["rollouts"], repeats=opt["repeats"],
        difficulty=opt["difficulty"], seed=opt["seed"], turn_cap=opt["turn_cap"],
        temperature=opt["temperature"], max_tokens=opt["max_tokens"],
        extractor_model=opt["extractor_model"],
        variants=tuple(_split(opt["prompt_variant"])),
        variants_file=None if opt["variants_file"] is None else str(opt["variants_file"]),
        starter=opt["starter"], solo_view=opt["solo_view"], solo_budget=opt["solo_budget"])
    for option in ("timeout", "price_input", "price_output"):
        value = opt[option]
        if value is not None and not math.isfinite(value):
            raise click.BadParameter(f"expected a finite number, got {value!r}",
                                     param_hint=f"--{option.replace('_', '-')}")
    for url in _split(opt["base_url"]):
        problem = url_problem(url)
        if problem:
            raise click.BadParameter(f"{url!r} {problem}", param_hint="--base-url")
    endpoints = []
    for name in settings.all_models:
        spec = config.model(name) if config is not None else None
        if spec is None:
            urls = tuple(_split(opt["base_url"]))
            if not urls:
                raise click.UsageError(f"model {name!r} has no endpoint: give --base-url or a "
                                       "[[models]] entry in --config")
            spec = ModelEndpoint(name, urls, opt["api_key_env"], opt["concurrency"],
                                 opt["price_input"], opt["price_output"])
        endpoints.append(spec)
    shard = parse_shard(opt["shard"]) if opt["shard"] else None
    show = opt["progress"] if opt["progress"] is not None else sys.stderr.isatty()
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=None, unit="rollout", file=sys.stderr, dynamic_ncols=True)

    def on_progress(p) -> None:
        if bar is None:
            return
        if bar.total != p.total:
            bar.total = p.total
        bar.update(p.done - bar.n)
        bar.set_postfix_str(f"tokens {p.tokens_in + p.tokens_out:,} cost ${p.cost_usd:.4f} "
                            f"errors {p.errors}", refresh=False)

    try:
        result = run_tax(settings, endpoints, Path(opt["out"]), timeout=opt["timeout"],
                         max_retries=opt["max_retries"], shard=shard,
                         retry_errors=opt["retry_errors"],
                         allow_changed_settings=opt["allow_changed_settings"],
                         on_progress=on_progress)
    except (EndpointFatalError, SettingsMismatchError, RuntimeError) as exc:
        raise click.ClickException(error_text(exc)) from None
    finally:
        if bar is not None:
            bar.close()
    if opt["as_json"]:
        emit_json(result.to_dict())
        _exit_if_all_failed(result)
        return
    cost = "unknown (a price is missing)" if result.cost_usd is None else f"${result.cost_usd:.4f}"
    click.echo(f"{result.out_dir}: {result.planned} rollouts planned"
               + (f" (shard {result.shard})" if result.shard else "")
               + f", {result.skipped} already done, {result.ran} run now")
    click.echo(f"scored {result.scored}, infrastructure errors "
               f"{result.infrastructure_errors}, turn caps {result.turn_caps}, "
               + (f"token caps {result.token_caps}, " if result.token_caps else "")
               + f"missing "
               f"{result.missing}; tokens in {result.tokens_in:,} out {result.tokens_out:,}; "
               f"cost {cost}; {result.elapsed_s:.1f} s")
    frame = result.to_frame()
    if len(frame):
        frame["mean_reward"] = frame["mean_reward"].map(
            lambda v: "n/a" if v != v else f"{v:.3f}")
        echo_table(frame)
    click.echo(f"records: {result.trials_path}")
    _exit_if_all_failed(result)


def _exit_if_all_failed(result: Any) -> None:
    """Exit 1 with the causes when no rollout of the plan has a reward (all failed)."""
    if not result.all_failed:
        return
    lines = [f"every rollout with a record is an infrastructure error "
             f"({result.infrastructure_errors}); causes:"]
    for cause in result.error_causes:
        example = str(cause["example"] or "")
        example = example if len(example) <= 300 else example[:297] + "..."
        lines.append(f"  {cause['n']} x {cause['termination_reason']}: {example}")
    click.echo("\n".join(lines), err=True)
    sys.exit(1)


@tax.command("merge", short_help="Join the run directories of several shards into one.", context_settings=HELP_OPTIONS)
@click.argument("dirs", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="New directory for the merged run (resumable with tax run).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@handle_errors
def merge(dirs: tuple[Path, ...], out: Path, as_json: bool) -> None:
    """Join the journals (and transcripts) of run directories DIRS into --out; refuses two
    different finished records of one rollout key."""
    from harness.runner.merge import merge_runs

    result = merge_runs(dirs, out)
    if as_json:
        emit_json(result.to_dict())
        return
    click.echo(f"{result.out_dir}: {result.records} rollouts from {len(result.inputs)} "
               f"directories ({result.duplicates} duplicate keys kept once, "
               f"{result.errors_replaced} infrastructure errors replaced, "
               f"{result.infrastructure_errors} infrastructure errors left)")
    click.echo(f"records: {result.trials_path}")


def _num(value: float, fmt: str, reason: str) -> str:
    """A number for the summary, or the reason it is undefined (never a bare nan)."""
    return format(value, fmt) if value is not None and math.isfinite(value) else reason


def _ci(lo: float, hi: float) -> str:
    from noisefloor.report.text import pp

    return f"[{pp(lo, signed=True)}, {pp(hi, signed=True)}]"


def _rebuild_trials(run_dir: Path) -> tuple[int | None, int]:
    """The runner's :func:`harness.runner.journal.rebuild_trials`, imported when a run needs it."""
    from harness.runner.journal import rebuild_trials

    return rebuild_trials(run_dir)


@tax.command("report", short_help="Tax per cell, mixed pairs, cascade, prediction, intervention.", context_settings=HELP_OPTIONS)
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
    from noisefloor.report.text import pp
    from noisefloor.tax import tax_report

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
                   predict=not no_predict, missing_transcripts=missing_transcripts, rng=seed,
                   rebuild_stale=_rebuild_trials)
    for note in r.rebuilt:
        click.echo(f"note: {note}", err=True)
    write_page(r, html_path, out)
    if as_json:
        emit_json(r.to_dict())
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


@tax.command("view", short_help="Browse a tax run's transcripts in the browser.", context_settings=HELP_OPTIONS)
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: one the operating system chooses).")
@click.option("--labels", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Judge labels (long layout, optional rationale column); "
                                 "default judge_labels.jsonl beside trials.jsonl when present.")
@click.option("--report", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="A tax report.html (tax report --html) to serve at "
                                 "/report.html; its cells link into the viewer.")
@handle_errors
def view(logs, port, labels, report) -> None:
    """Serve a transcript viewer of the tax run(s) LOGS on 127.0.0.1 until Ctrl-C.

    Rollouts are filtered by model, task, family, mode, variant, outcome and cascade label;
    one rollout shows its dialogue as two columns (agent a, agent b) with the relayed
    '[other agent]:' messages, the final answer and how it was read, the judge's labels with
    their rationale, tokens and cost. Transcripts are read lazily, one rollout at a time.
    Python: noisefloor.report.html.viewer.serve(LOGS).
    """
    from noisefloor.report.html.viewer import serve

    serve(list(logs), port=port, labels=labels, report=report)
