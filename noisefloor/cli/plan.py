"""``noisefloor plan``: sample size for a gain, or the MDE for a number of tasks."""

from __future__ import annotations

import math

import click
import numpy as np

from noisefloor.cli._common import HELP_OPTIONS, echo_table, emit_json, handle_errors
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._logs import LOG_SPEC, log_call_options, spec_text
from noisefloor.pipelines.measured import FLOOR_KINDS, required_floor
from noisefloor.report.text import pp
from noisefloor.stats.power.planning import TESTS, power_curve
from noisefloor.stats.power.planning import plan as plan_designs

_NAMES = {"two_proportion": "two-proportion z (independent)", "mcnemar": "McNemar (Connor)",
          "sign_test": "exact sign test"}


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
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Write power against n to this file (.png, .svg or .pdf).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@html_option()
@handle_errors
def plan(gap, n_tasks, tests, p_d, baseline, alpha, power, effect_size, floor, floor_logs,
         floor_kind, null_pairs, clean_pairs, plot_path, as_json, html_path=None) -> None:
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
    source = ""
    n0 = 0
    if floor_logs:
        measured = required_floor(list(floor_logs), floor_kind, null_pairs=null_pairs,
                                  clean_pairs=clean_pairs,
                                  **log_call_options(list(floor_logs), "auto"))
        floor, source, n0 = measured.value, measured.source, measured.n_tasks
    elif floor is not None:
        source = "--floor"
    result = plan_designs(gap=gap, n=n_tasks, tests=tests or None, baseline=baseline, p_d=p_d,
                          alpha=alpha, power=power, effect_size=effect_size,
                          floor=0.0 if floor is None else floor)
    written = _plot(result, plot_path) if plot_path else None
    if html_path is not None:
        from noisefloor.report.html.command_docs import plan_doc

        defined = any(not math.isnan(p.gap) and p.gap != 0 for p in result.plans)
        write_page(plan_doc({**result.to_dict(), "floor_source": source, "plot": written},
                            _power_figure(result) if defined else None), html_path)
    if as_json:
        emit_json({**result.to_dict(), "floor_source": source, "plot": written})
        return
    first = result.plans[0]
    what = (f"tasks for a gain of {pp(gap, signed=True)} pp" if gap is not None
            else f"minimum detectable effect with n = {n_tasks}")
    click.echo(f"{what}: alpha {first.alpha:g} (two-sided), power {first.power:g}")
    if first.floor > 0:
        click.echo(f"clearing a floor of {pp(first.floor)} pp ({source})")
    if n0:
        click.echo(f"held fixed in the table: the floor as measured, on n = {n0} paired tasks")
        if result.solve_for == "n" and gap is not None and gap > 0:
            from noisefloor.stats.power.shrinking_floor import sample_size_shrinking_floor

            for p in result.plans:
                if p.test == "two_proportion":
                    continue
                shrink = sample_size_shrinking_floor(gap, first.floor, n0, test=p.test,
                                                     p_d=p.p_d, alpha=alpha, power=power)
                if shrink.n > 0:
                    click.echo(f"with the floor shrinking as 1/sqrt(n) ({p.test}; held fixed: "
                               f"{shrink.held_fixed}): n = {shrink.n} tasks, where the floor "
                               f"would be {pp(shrink.floor_at_n)} pp (power "
                               f"{shrink.achieved_power:.3f}); measure the floor again at that n")
                else:
                    click.echo(f"with the floor shrinking as 1/sqrt(n) ({p.test}): "
                               f"{shrink.reason}")
    rows = []
    for p in result.plans:
        rows.append({
            "test": _NAMES[p.test],
            "n": p.n if p.n >= 0 else "none",
            "MDE (pp)" if result.solve_for == "gap" else "gap (pp)": pp(p.gap, signed=True),
            "power": "n/a" if math.isnan(p.achieved_power) else f"{p.achieved_power:.3f}",
            "assumes": (f"baseline {pp(p.baseline)}%, {p.effect_size}" if p.test == "two_proportion"
                        else f"p_d {p.p_d:g}"),
        })
    import pandas as pd
    echo_table(pd.DataFrame(rows))
    for p in result.plans:
        if p.test == "sign_test" and p.n_stable > p.n and result.solve_for == "n":
            click.echo(f"note: the exact power is saw-toothed in n; from n = {p.n_stable} on it "
                       "stays above the target")
        if p.reason:
            click.echo(f"note ({p.test}): {p.reason}")
    if any(p.test == "two_proportion" for p in result.plans):
        click.echo("two_proportion n is per arm (two independent samples of tasks)")
    if written:
        click.echo(f"plot: {written}")


def _plot(result, path) -> str:
    from noisefloor.report.power_figure import save_power_plot

    return str(save_power_plot(_power_figure(result), path))


def _power_figure(result):
    from noisefloor.report.power_figure import power_plot

    curves, marks = {}, {}
    defined = [p for p in result.plans if not math.isnan(p.gap) and p.gap != 0]
    if not defined:
        raise click.ClickException("--plot: no design has a defined gain to draw power for")
    top = max([p.n for p in defined if p.n > 0] or [100])
    ns = np.unique(np.linspace(1, max(20, int(top * 1.6)), 80).astype(int))
    for p in defined:
        extra = ({"baseline": p.baseline, "effect_size": p.effect_size}
                 if p.test == "two_proportion" else {"p_d": p.p_d})
        label = f"{_NAMES[p.test]}, gap {pp(p.gap, signed=True)} pp"
        curves[label] = power_curve(p.test, ns, p.gap, alpha=p.alpha, floor=p.floor, **extra)
        marks[label] = p.n
    title = "power against tasks" + (f", clearing a {pp(defined[0].floor)} pp floor"
                                     if defined[0].floor > 0 else "")
    return power_plot(curves, target=defined[0].power, title=title, marks=marks)


@click.command("reruns-sim",
               short_help="How often A/A contrasts look significant; a claim's SNR.", context_settings=HELP_OPTIONS)
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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@handle_errors
def false_positives(flip_rate, n_tasks, logs, n_seeds, n_arms, alpha, n_sim, rng_seed, claim,
                    null_gaps, floor_logs, as_json) -> None:
    """Simulate A/A runs and report how often a contrast reaches Bonferroni significance.

    Give --flip-rate (with --tasks) or --log. With --claim, also the claim's signal-to-noise
    ratio and percentile among null gaps (from --null-gap or --floor-log).
    """
    from noisefloor.passk.trials import per_task_success_share
    from noisefloor.stats.snr import claim_snr, flip_rate_to_success_prob, simulate_reruns

    if (flip_rate is None) == (not logs):
        raise click.UsageError("give exactly one of --flip-rate and --log")
    if logs:
        from noisefloor.cli._logs import read_logs
        p = per_task_success_share(read_logs(logs, "auto")).to_numpy()
        source = f"per-task success shares of {', '.join(spec_text(logs))}"
    else:
        if n_tasks < 1:
            raise click.BadParameter(f"must be >= 1, got {n_tasks}", param_hint="--tasks")
        p = np.full(n_tasks, flip_rate_to_success_prob(flip_rate))
        source = f"flip rate {flip_rate:g} on every task"
    sim = simulate_reruns(p, n_seeds=n_seeds, n_arms=n_arms, alpha=alpha, n_sim=n_sim, rng=rng_seed)
    snr = None
    if claim is not None:
        if floor_logs and null_gaps:
            raise click.UsageError("give --null-gap or --floor-log, not both")
        gaps = list(null_gaps) or _null_gaps_of(floor_logs)
        snr = claim_snr(claim, gaps)
    elif null_gaps or floor_logs:
        raise click.UsageError("--null-gap and --floor-log rate a --claim; give --claim")
    if as_json:
        emit_json({"source": source, "simulation": sim.to_dict(),
                   "claim": None if snr is None else snr.to_dict()})
        return
    click.echo(f"A/A simulation: {sim.n_sim} runs x {sim.n_seeds} seed(s) x {sim.m} contrast(s) "
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


def _null_gaps_of(paths) -> list[float]:
    from noisefloor.cli._logs import read_logs
    from noisefloor.floor.contrast_table import TRIAL
    from noisefloor.pipelines import floor_run

    if not paths:
        raise click.UsageError("--claim needs --null-gap or --floor-log")
    table = floor_run(read_logs(paths, "auto")).noise_floor.to_frame()
    gaps = table.loc[(table["level"] == TRIAL) & (table["n"] > 0), "gap"]
    return [float(g) for g in gaps]
