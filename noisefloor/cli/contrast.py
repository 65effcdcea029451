"""``noisefloor contrast``: one paired contrast from its W/L/T counts, or from trial logs."""

from __future__ import annotations

import click

from noisefloor.cli._common import echo_table, emit_json, handle_errors
from noisefloor.cli._logs import label_options, log_options, read_logs
from noisefloor.report import contrast_table, pp
from noisefloor.stats.multiplicity import adjust_pvalues
from noisefloor.stats.paired import sign_test


def _p(p: float) -> str:
    """``= 0.003933``, ``= n/a`` (NaN), or ``< 1e-300`` when a defined p underflowed to 0.0."""
    if p != p:
        return "= n/a"
    if p == 0.0:
        return "< 1e-300 (underflows to 0 in floating point; not exactly 0)"
    return f"= {p:.4g}"


#: A count: a non-negative integer that fits 64 bits (a larger one reached numpy as an object
#: and failed with "loop of ufunc does not support argument 0").
COUNT = click.IntRange(min=0, max=2**63 - 1)


@click.command()
@click.option("--wins", type=COUNT, default=None,
              help="Tasks where arm a (the first of contrast a-b) succeeded and arm b failed.")
@click.option("--losses", type=COUNT, default=None,
              help="Tasks where arm a failed and arm b succeeded.")
@click.option("--ties", type=COUNT, default=None, help="Tasks with equal outcomes (default 0).")
@click.option("--log", "logs", multiple=True, type=click.Path(exists=True),
              help="Per-trial log(s) to count W/L/T from instead of --wins/--losses/--ties "
                   "(repeatable); needs --a and --b.")
@log_options
@label_options
@click.option("--a", "arm_a", default=None,
              help="With --log: protocol of arm a (the gap is a minus b).")
@click.option("--b", "arm_b", default=None, help="With --log: protocol of arm b.")
@click.option("--trial", "trial_indices", type=click.IntRange(min=0), multiple=True,
              help="With --log: trial to compare on (repeatable; default every trial after "
                   "trial 0, each its own contrast).")
@click.option("--coordination-active", is_flag=True,
              help="With --log: also compare trial 1 on the tasks both protocols failed at trial 0.")
@click.option("--family-size", type=int, default=1, show_default=True,
              help="Number of contrasts in the family, for the Bonferroni correction.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@handle_errors
def contrast(wins, losses, ties, logs, log_format, label_benchmark, label_model, label_protocol,
             arm_a, arm_b, trial_indices, coordination_active, family_size: int,
             as_json: bool) -> None:
    """Exact sign test, signed gap and Wilson-mapped 95% CI of one paired contrast a-b.

    From counts (--wins, --losses, --ties), or from logs: --log LOG --a P --b Q pairs each
    record of P with the record of Q for the same task and trial (within one benchmark,
    model and seed), one contrast per trial and seed, pooled over seeds when there are several.
    """
    if family_size < 1:
        raise click.BadParameter(f"must be >= 1, got {family_size}", param_hint="--family-size")
    if logs:
        if wins is not None or losses is not None or ties is not None:
            raise click.UsageError("give either --log or --wins/--losses/--ties, not both")
        _from_logs(logs, log_format, label_benchmark, label_model, label_protocol, arm_a, arm_b,
                   trial_indices, coordination_active, family_size, as_json)
        return
    if arm_a or arm_b or trial_indices or coordination_active:
        raise click.UsageError("--a, --b, --trial and --coordination-active go with --log")
    if wins is None or losses is None:
        raise click.UsageError("give --wins and --losses (and --ties), or --log LOG --a P --b Q")
    ties = 0 if ties is None else ties
    r = sign_test(wins, losses, ties)
    p_bonf = adjust_pvalues([r.p_value], method="bonferroni", family_size=family_size)
    p_corr = p_bonf.p_adjusted[0]
    if as_json:
        emit_json({"wins": r.wins, "losses": r.losses, "ties": r.ties, "n": r.n, "gap": r.gap,
                   "p_value": r.p_value, "p_bonferroni": p_corr, "family_size": family_size,
                   "ci_low": r.ci_low, "ci_high": r.ci_high, "confidence": r.confidence,
                   "reason": r.reason})
        return
    click.echo(f"W/L/T {r.wins}/{r.losses}/{r.ties}  (n = {r.n}, {r.informative} untied)")
    click.echo(f"gap        {pp(r.gap, signed=True)} pp")
    click.echo(f"95% CI     [{pp(r.ci_low, signed=True)}, {pp(r.ci_high, signed=True)}] pp "
               "(Wilson-mapped)")
    click.echo(f"sign test  p {_p(r.p_value)}")
    if family_size > 1:
        click.echo(f"Bonferroni p {_p(p_corr)} (m = {family_size})")
    if r.reason:
        click.echo(f"note: {r.reason}")


def _from_logs(logs, log_format, label_benchmark, label_model, label_protocol, arm_a, arm_b,
               trial_indices, coordination_active, family_size, as_json) -> None:
    from noisefloor.audit import left_out_totals, log_contrasts

    trials = read_logs(logs, log_format, label_benchmark, label_model, label_protocol)
    if not arm_a or not arm_b:
        present = ", ".join(sorted(map(str, trials["protocol"].unique())))
        raise click.UsageError(f"--log needs --a and --b (protocols in the log: {present})")
    rows = log_contrasts(trials, pairs=[(arm_a, arm_b)], trial_indices=trial_indices or None,
                         coordination_active=coordination_active)
    if rows.empty:
        raise click.ClickException(f"{arm_a} and {arm_b} share no trial after trial 0; pass "
                                   "--trial 0 to compare trial 0 (a null contrast)")
    # each row is one contrast; --family-size says how many it is corrected over
    rows["p_bonferroni"] = [adjust_pvalues([p], method="bonferroni",
                                           family_size=family_size).p_adjusted[0]
                            for p in rows["p_value"]]
    left = left_out_totals(rows)  # pooled rows repeat the per-seed counts: each task once
    if as_json:
        emit_json({"logs": list(logs), "a": arm_a, "b": arm_b, "family_size": family_size,
                   "contrasts": rows.drop(columns=["p_adjusted", "m"]).to_dict(orient="records"),
                   "left_out": left})
        return
    click.echo(f"{arm_a}-{arm_b} from {', '.join(logs)}: records paired by task and trial; "
               "wins = tasks where a succeeded and b failed")
    shown = contrast_table(rows.assign(p_adjusted=rows["p_bonferroni"]), ci=True)
    shown = shown.rename(columns={"p_adj": f"p Bonferroni (m = {family_size})"})
    if family_size == 1:
        shown = shown.drop(columns=[f"p Bonferroni (m = {family_size})"])
    echo_table(shown)
    for reason in sorted({r for r in rows["reason"] if r}):
        click.echo(f"note: {reason}")
    only = left["n_only_a"] + left["n_only_b"]
    excluded = left["n_excluded"]
    if only or excluded:
        click.echo(f"left out: {only} task(s) present in one arm only, {excluded} with an "
                   "infrastructure error or no reward, each once per contrast, seed and trial (per "
                   "row in --json)")
