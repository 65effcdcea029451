"""``noisefloor contrast``: one paired contrast from its W/L/T counts."""

from __future__ import annotations

import click

from noisefloor.cli._common import emit_json, handle_errors
from noisefloor.report import pp
from noisefloor.stats.multiplicity import adjust_pvalues
from noisefloor.stats.paired import sign_test


#: A count: a non-negative integer that fits 64 bits (a larger one reached numpy as an object
#: and failed with "loop of ufunc does not support argument 0").
COUNT = click.IntRange(min=0, max=2**63 - 1)


@click.command()
@click.option("--wins", type=COUNT, required=True, help="Tasks where a succeeded and b failed.")
@click.option("--losses", type=COUNT, required=True, help="Tasks where a failed and b succeeded.")
@click.option("--ties", type=COUNT, default=0, show_default=True, help="Tasks with equal outcomes.")
@click.option("--family-size", type=int, default=1, show_default=True,
              help="Number of contrasts in the family, for the Bonferroni correction.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@handle_errors
def contrast(wins: int, losses: int, ties: int, family_size: int, as_json: bool) -> None:
    """Exact sign test, signed gap and Wilson-mapped 95% CI of one paired contrast."""
    if family_size < 1:
        raise click.BadParameter(f"must be >= 1, got {family_size}", param_hint="--family-size")
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
    click.echo(f"sign test  p = {r.p_value:.4g}" if r.p_value == r.p_value else "sign test  p = n/a")
    if family_size > 1:
        click.echo(f"Bonferroni p = {p_corr:.4g} (m = {family_size})"
                   if p_corr == p_corr else f"Bonferroni p = n/a (m = {family_size})")
    if r.reason:
        click.echo(f"note: {r.reason}")
