"""``noisefloor plan`` (sample size for a gain, or the MDE for a number of tasks) and
``noisefloor reruns-sim``: :mod:`noisefloor.pipelines.planning` does the work; this module
parses and prints."""

from __future__ import annotations

import math

import click

from noisefloor.cli._common import HELP_OPTIONS, echo_table, emit_json, handle_errors, jsonable
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._logs import LOG_SPEC, label_options, log_options, log_read_options
from noisefloor.pipelines.measured import FLOOR_KINDS
from noisefloor.report.text import pp
from noisefloor.stats.power.planning import TESTS


@click.command(short_help="Sample size for a gain, or the MDE for n tasks.", context_settings=HELP_OPTIONS)
@click.option("--gap", type=float, default=None,
              help="Gain to plan for, a proportion (0.06 = 6 pp): solve for the number of tasks.")
@click.option("--n", "n_tasks", type=int, default=None,
              help="Tasks available (per arm for two_proportion): solve for the MDE.")
@click.option("--test", "tests", multiple=True, type=click.Choice(TESTS),
              help="Design (repeatable). Default: mcnemar and sign_test with --p-d, "
                   "two_proportion with --baseline.")
@click.option("--p-d", "p_d", type=float, default=None,
              help="Discordance of the paired designs: share of tasks on which the arms disagree.")
@click.option("--baseline", type=float, default=None,
              help="Success rate of the reference arm (two_proportion).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Two-sided significance level.")
@click.option("--power", type=float, default=0.8, show_default=True, help="Target power.")
@click.option("--effect-size", type=click.Choice(["arcsine", "pooled"]), default="arcsine",
              show_default=True,
              help="two_proportion: Cohen's h (statsmodels, R pwr.2p.test) or pooled "
                   "(R power.prop.test).")
@click.option("--floor", type=float, default=None,
              help="A floor or envelope (proportion) the gain must clear with the stated power.")
@click.option("--floor-log", "floor_logs", multiple=True, type=LOG_SPEC,
              help="Trial LOG(s) whose noise floor the gain must clear (repeatable).")
@click.option("--floor-kind", type=click.Choice(FLOOR_KINDS), default="floor", show_default=True,
              help="With --floor-log: clear the clean-contrast floor or the envelope.")
@click.option("--null", "null_pairs", multiple=True, metavar="A-B",
              help="With --floor-log: declare a pair null ('a-b' at trial 0, 'a-a' re-runs), as "
                   "for noisefloor floor. Repeatable.")
@click.option("--clean", "clean_pairs", multiple=True, metavar="A-B",
              help="With --floor-log: a null pair certified clean, as for noisefloor floor.")
@log_options
@label_options
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Write power against n to this file (.png, .svg or .pdf).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@html_option()
@handle_errors
def plan(gap, n_tasks, tests, p_d, baseline, alpha, power, effect_size, floor, floor_logs,
         floor_kind, null_pairs, clean_pairs, log_format, label_benchmark, label_model,
         label_protocol, plot_path, as_json, html_path=None) -> None:
    """Tasks needed for a gain of --gap, or the minimum detectable effect with --n tasks.

    Gains and floors are proportions (0.06 for 6 pp); the text output shows percentage points.
    With --floor or --floor-log the plan is for clearing that floor: the lower end of the
    gain's 1 - alpha interval above it, with the stated power.
    """
    if (gap is None) == (n_tasks is None):
        raise click.UsageError("give exactly one of --gap (solve for n) and --n (solve for "
                               "the MDE)")
    if floor is not None and floor_logs:
        raise click.UsageError("give --floor or --floor-log, not both")
    if (null_pairs or clean_pairs) and not floor_logs:
        raise click.UsageError("--null and --clean go with --floor-log (they decide which "
                               "contrasts of the log are null)")
    from noisefloor.pipelines.planning import plan_run

    read = log_read_options(click.get_current_context(), floor_logs, log_format,
                            label_benchmark, label_model, label_protocol,
                            logs_option="--floor-log")
    run = plan_run(gap=gap, n=n_tasks, tests=tests or None, baseline=baseline, p_d=p_d,
                   alpha=alpha, power=power, effect_size=effect_size, floor=floor,
                   floor_logs=list(floor_logs), floor_kind=floor_kind, null_pairs=null_pairs,
                   clean_pairs=clean_pairs, plot=plot_path, **read)
    if html_path is not None:
        from noisefloor.pipelines.planning import plan_power_figure
        from noisefloor.report.html.command_docs import plan_doc

        write_page(plan_doc(jsonable(run.to_dict()),
                            plan_power_figure(run) if run.drawn_plans else None),
                   html_path)
    if as_json:
        emit_json(run.to_dict())
        return
    _echo_plan(run, gap, n_tasks)


def _echo_plan(run, gap, n_tasks) -> None:
    from noisefloor.pipelines.planning import DESIGN_NAMES, GIVEN_FLOOR

    first = run.plans[0]
    what = (f"tasks for a gain of {pp(gap, signed=True)} pp" if gap is not None
            else f"minimum detectable effect with n = {n_tasks}")
    click.echo(f"{what}: alpha {first.alpha:g} (two-sided), power {first.power:g}")
    # a floor given with --floor-kind envelope is called an envelope
    kind = ("envelope" if run.measured_floor is not None
            and run.measured_floor.kind == "envelope" else "floor")
    if first.floor > 0:
        source = "--floor" if run.floor_source == GIVEN_FLOOR else run.floor_source
        click.echo(f"clearing {'an' if kind == 'envelope' else 'a'} {kind} of "
                   f"{pp(first.floor)} pp ({source})")
    if run.measured_floor is not None and run.measured_floor.n_tasks:
        click.echo(f"held fixed in the table: the {kind} as measured, on n = "
                   f"{run.measured_floor.n_tasks} paired tasks")
    for shrink in run.shrinking_floor:
        if shrink.n > 0:
            click.echo(f"with the floor shrinking as 1/sqrt(n) ({shrink.test}; held fixed: "
                       f"{shrink.held_fixed}): n = {shrink.n} tasks, where the floor "
                       f"would be {pp(shrink.floor_at_n)} pp (power "
                       f"{shrink.achieved_power:.3f}); measure the floor again at that n")
        else:
            click.echo(f"with the floor shrinking as 1/sqrt(n) ({shrink.test}): {shrink.reason}")
    rows = []
    for p in run.plans:
        rows.append({
            "test": DESIGN_NAMES[p.test],
            "n": p.n if p.n >= 0 else "none",
            "MDE (pp)" if run.solve_for == "gap" else "gap (pp)": pp(p.gap, signed=True),
            "power": "n/a" if math.isnan(p.achieved_power) else f"{p.achieved_power:.3f}",
            "assumes": (f"baseline {pp(p.baseline)}%, {p.effect_size}" if p.test == "two_proportion"
                        else f"p_d {p.p_d:g}"),
        })
    import pandas as pd
    echo_table(pd.DataFrame(rows))
    for p in run.plans:
        if p.test == "sign_test" and p.n_stable > p.n and run.solve_for == "n":
            click.echo(f"note: the exact power is saw-toothed in n; from n = {p.n_stable} on it "
                       "stays above the target")
        if p.reason:
            click.echo(f"note ({p.test}): {p.reason}")
    if any(p.test == "two_proportion" for p in run.plans):
        click.echo("two_proportion n is per arm (two independent samples of tasks)")
    if run.plot:
        click.echo(f"plot: {run.plot}")


@click.command("reruns-sim",
               short_help="How often re-run contrasts look significant; a claim's SNR.", context_settings=HELP_OPTIONS)
@click.option("--flip-rate", type=float, default=None,
              help="Share of tasks on which two runs of one configuration disagree (0..0.5).")
@click.option("--tasks", "n_tasks", type=int, default=100, show_default=True,
              help="Tasks per seed, with --flip-rate.")
@click.option("--log", "logs", multiple=True, type=LOG_SPEC,
              help="Trial LOG(s): simulate at each task's success share over all its records.")
@click.option("--seeds", "n_seeds", type=int, default=2, show_default=True, help="Seeds per run.")
@click.option("--arms", "n_arms", type=int, default=3, show_default=True,
              help="Arms (protocols) per seed; every pair is a contrast, m = arms(arms-1)/2.")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Family-wise level (Bonferroni over the m contrasts).")
@click.option("--n-sim", type=int, default=2000, show_default=True, help="Simulated runs.")
@click.option("--seed", "rng_seed", type=int, default=0, show_default=True,
              help="Seed of the simulation.")
@click.option("--claim", type=float, default=None,
              help="A claimed gain (proportion) to rate against the null gaps of --floor-log "
                   "or --null-gap.")
@click.option("--null-gap", "null_gaps", multiple=True, type=float,
              help="A null contrast's gap (proportion), repeatable.")
@click.option("--floor-log", "floor_logs", multiple=True, type=LOG_SPEC,
              help="Trial LOG(s) whose per-seed null-contrast gaps rate --claim.")
@log_options
@label_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@handle_errors
def reruns_sim(flip_rate, n_tasks, logs, n_seeds, n_arms, alpha, n_sim, rng_seed, claim,
               null_gaps, floor_logs, log_format, label_benchmark, label_model, label_protocol,
               as_json) -> None:
    """Simulate re-runs and report how often a contrast reaches Bonferroni significance.

    Give --flip-rate (with --tasks) or --log. With --claim, also the claim's signal-to-noise
    ratio and percentile among null gaps (from --null-gap or --floor-log).
    """
    from noisefloor.pipelines.planning import reruns_sim_run

    if (flip_rate is None) == (not logs):
        raise click.UsageError("give exactly one of --flip-rate and --log")
    if not logs and n_tasks < 1:
        raise click.BadParameter(f"must be >= 1, got {n_tasks}", param_hint="--tasks")
    if claim is not None:
        if floor_logs and null_gaps:
            raise click.UsageError("give --null-gap or --floor-log, not both")
        if not floor_logs and not null_gaps:
            raise click.UsageError("--claim needs --null-gap or --floor-log")
    elif null_gaps or floor_logs:
        raise click.UsageError("--null-gap and --floor-log rate a --claim; give --claim")
    specs = [*logs, *floor_logs]
    read = log_read_options(click.get_current_context(), specs, log_format, label_benchmark,
                            label_model, label_protocol, logs_option="--log or --floor-log")
    run = reruns_sim_run(flip_rate=flip_rate, n_tasks=n_tasks, logs=list(logs), n_seeds=n_seeds,
                         n_arms=n_arms, alpha=alpha, n_sim=n_sim, seed=rng_seed, claim=claim,
                         null_gaps=null_gaps, floor_logs=list(floor_logs), **read)
    if as_json:
        emit_json(run.to_dict())
        return
    sim, snr, source = run.simulation, run.claim, run.source
    click.echo(f"Re-runs simulation: {sim.n_sim} runs x {sim.n_seeds} seed(s) x {sim.m} contrast(s) "
               f"on {sim.n_tasks} tasks ({source}; mean flip rate {sim.flip_rate:.3f})")
    click.echo(f"significant after Bonferroni (m = {sim.m}, alpha {sim.alpha:g}):")
    click.echo(f"  one contrast at one seed     {sim.single_seed_rate:.4f} (MC SE {sim.mc_se:.4f})")
    click.echo(f"  any contrast at one seed     {sim.single_seed_any_rate:.4f}")
    click.echo(f"  any single-seed contrast     {sim.experiment_any_rate:.4f} (per run of "
               f"{sim.n_seeds} seed(s))")
    click.echo(f"  one contrast, seeds pooled   {sim.pooled_rate:.4f}")
    click.echo(f"  any contrast, seeds pooled   {sim.pooled_any_rate:.4f}")
    if snr is not None:
        ratio = "n/a" if math.isnan(snr.snr) else f"{snr.snr:.2f}"
        where = "n/a" if math.isnan(snr.percentile) else f"{snr.percentile:.0f}"
        click.echo(f"claim {pp(snr.effect, signed=True)} pp: SNR {ratio} (null-gap SD "
                   f"{pp(snr.null_gap_sd)} pp over {snr.n_null}), percentile {where}"
                   + (f"; note: {snr.reason}" if snr.reason else ""))

