"""``noisefloor tax``: run the collaboration-tax suite against OpenAI-compatible endpoints.

``tax run`` and ``tax merge`` only parse options and render; the work is done by
:func:`harness.runner.run.run_tax` and :func:`harness.runner.merge.merge_runs`.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from noisefloor.cli._common import HELP_OPTIONS, echo_table, emit_json, error_text, handle_errors
from noisefloor.extras import missing_extra_message


class _TaxGroup(click.Group):
    """``tax``: ``run`` and ``merge`` are defined here; ``report`` and ``view`` (the analysis,
    which loads scipy, scikit-learn and the plotting) are imported only when asked for, so
    ``tax run`` (a resume, most often) starts without them."""

    #: Subcommand -> (module, attribute, one-line summary for ``tax --help``).
    LAZY = {"report": ("noisefloor.cli.tax_report", "report",
                       "Tax per cell, mixed pairs, cascade, prediction, intervention."),
            "view": ("noisefloor.cli.tax_view", "view",
                     "Browse a tax run's transcripts in the browser.")}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self.LAZY))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.LAZY:
            module, attr, _ = self.LAZY[cmd_name]
            try:
                command = getattr(importlib.import_module(module), attr)
            except ImportError as exc:  # the analysis needs the harness extra
                message = missing_extra_message(exc, f"{ctx.command_path} {cmd_name}")
                if message is None:
                    raise
                raise click.ClickException(message) from None
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # the summaries of the lazy ones come from LAZY: listing them imports nothing
        rows = [(name, self.LAZY[name][2] if name not in self.commands
                 else self.commands[name].get_short_help_str(formatter.width))
                for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group("tax", cls=_TaxGroup,
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
