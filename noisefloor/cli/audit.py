"""``noisefloor audit``: place published claims against a noise floor, with a forest plot."""

from __future__ import annotations

from pathlib import Path

import click

from noisefloor.audit import audit as run_audit
from noisefloor.audit import left_out_totals, log_contrasts, place_contrasts
from noisefloor.cli._common import clean_warnings, echo_table, emit_json, handle_errors
from noisefloor.cli._logs import label_options, log_options, read_logs
from noisefloor.cli.floor import (left_out_line, left_out_records,
                                  null_contrasts_from_trials_quietly, skipped_line,
                                  skipped_records)
from noisefloor.floor import noise_floor, null_contrasts_from_counts
from noisefloor.plots import (BUNDLED_CLAIMS_SECTION, CLAIMS_SECTION, above_note, audit_forest,
                              save_figure)
from noisefloor.published import (BUNDLED_CLAIMS_SOURCE, BUNDLED_COUNTS_SOURCE, read_claims,
                                   read_paired_counts)
from noisefloor.report import (audit_report, contrast_table, count_noun, floor_table, pp,
                               verdict_table)
from noisefloor.stats.paired import sign_test_table


@click.command()
@click.option("--counts", type=click.Path(dir_okay=False), default=None,
              help="CSV of paired W/L/T counts (default: the noise-floor paper's, bundled).")
@click.option("--log", "logs", multiple=True, type=click.Path(exists=True),
              help="Per-trial log(s) to build the floor from instead of --counts (repeatable).")
@log_options
@label_options
@click.option("--claims", type=click.Path(dir_okay=False), default=None,
              help="CSV of claimed gains in pp (default: the ten published claims listed by the "
                   "noise-floor paper, labelled as such in the output).")
@click.option("--clean", multiple=True,
              help="Null contrast certified clean (identical first requests), as 'a-b' "
                   "(repeatable; default: no_coord-intercept when the counts hold it).")
@click.option("--out", type=click.Path(file_okay=False), default="noisefloor-report",
              show_default=True, help="Directory for forest.png, forest.svg and report.md.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@click.option("--no-plot", "no_plot", is_flag=True,
              help="Write no forest plot (report.md only). The plot draws at most 60 rows, those "
                   "farthest from 0, and says what it left out.")
@handle_errors
def audit(counts, logs, log_format, label_benchmark, label_model, label_protocol, claims, clean, out, as_json,
          no_plot=False) -> None:
    """Is a claimed gain inside the noise floor? Place each claim below, inside or above it.

    Without options, runs on the bundled figures of Kaliyev & Maryanskyy (2026): their paired
    counts on tau2-bench retail and the ten published claims they list. With --log, the floor
    comes from the log, and the log's own protocol contrasts (each trial after trial 0, and the
    coordination-active subset) are placed against it; without --claims the bundled claims are
    still placed, and the output says so.
    """
    if logs and counts:
        raise click.UsageError("give either --counts or --log, not both")
    others = own = None
    n_protocols = 0
    if logs:
        trials = read_logs(logs, log_format, label_benchmark, label_model, label_protocol)
        null = null_contrasts_from_trials_quietly(trials, clean_pairs=clean)
        source = ", ".join(logs)
        n_protocols = trials["protocol"].nunique()
        if n_protocols >= 2:
            own = log_contrasts(trials, coordination_active=True)
    else:
        table = read_paired_counts(counts)
        if counts:
            table.attrs["source"] = str(counts)  # errors below name file:line
        null = null_contrasts_from_counts(table, clean=clean or None)
        source = counts or BUNDLED_COUNTS_SOURCE
        rest = table[~((table["trial"] == 0) & (table["subset"] == "all"))]
        if not rest.empty:
            others = sign_test_table(rest.drop(columns=["line"]))
    nf = noise_floor(null)
    claim_table = read_claims(claims)
    if claims:
        claim_table.attrs["source"] = str(claims)  # errors below name file:line
    result = run_audit(claim_table, nf)
    claims_source = claims or BUNDLED_CLAIMS_SOURCE
    if own is not None:
        own = place_contrasts(own, nf)

    out_dir = Path(out)
    section = CLAIMS_SECTION if claims else BUNDLED_CLAIMS_SECTION
    if no_plot:
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
    else:
        with clean_warnings():  # a capped plot says on stderr what it left out
            written = save_figure(audit_forest(result, nf, log_contrasts=own,
                                               claims_section=section), out_dir, "forest")
    bundled_note = ("These are other papers' claims on their own benchmarks, placed against the "
                    "floor of your log; give --claims CSV to place your own."
                    if logs and not claims else "")
    report = audit_report(result, nf, source=source, claims_source=claims_source,
                          claims_note=bundled_note, others=others, log_contrasts=own,
                          **({"figure": None} if no_plot else {}))
    (out_dir / "report.md").write_text(report, encoding="utf-8")
    written.append(out_dir / "report.md")

    if as_json:
        emit_json({
            "floor": result.floor, "envelope": result.envelope, "counts": result.counts,
            "claims_source": claims_source,
            "claims": [v.to_dict() for v in result.verdicts],
            "log_contrasts": own.to_dict(orient="records") if own is not None else [],
            "caution": nf.caution,
            "noise_floor": nf.to_dict(),
            "other_contrasts": others if others is not None else [],
            "left_out": left_out_records(null),
            "log_contrasts_left_out": left_out_totals(own) if own is not None else None,
            "skipped_reruns": skipped_records(null),
            "files": [str(p) for p in written],
        })
        return
    click.echo(f"Noise floor from {source}")
    click.echo(f"  floor     {pp(nf.floor)} pp  pooled upper 95% bound of {nf.floor_contrast}"
               f" ({'clean' if nf.basis == 'clean' else 'no clean contrast'})")
    click.echo(f"  envelope  {pp(nf.envelope)} pp  largest pooled upper bound ({nf.envelope_contrast})")
    click.echo(f"  null gaps {pp(nf.null_gap_min, signed=True)} to {pp(nf.null_gap_max, signed=True)}"
               f" pp over {nf.n_seeds} seed(s); {count_noun(nf.n_informative, 'informative pair')}")
    if nf.reason:
        click.echo(f"  note: {nf.reason}")
    if nf.caution:
        click.echo(f"  caution: {nf.caution}")
    if left_out_line(null):
        click.echo(f"  {left_out_line(null)}")
    if skipped_line(null):
        click.echo(f"  {skipped_line(null)}")
    click.echo("")
    echo_table(floor_table(nf))
    if logs:
        click.echo("\nContrasts in this log, placed against the floor (sign test per trial; "
                   "Bonferroni within seed, trial, subset)")
        if own is None:
            click.echo(f"  none: the log holds {count_noun(n_protocols, 'protocol')}; a contrast "
                       "needs two")
        elif own.empty:
            click.echo("  none: no two protocols share a trial after trial 0")
        else:
            echo_table(contrast_table(own, ci=True))
            if own["flag"].astype(bool).any():
                click.echo("  * fewer than 6 informative pairs: the sign test cannot reach "
                           "p < 0.05 whatever the gap")
            left = left_out_totals(own)  # pooled rows repeat per-seed counts: each task once
            only, excluded = left["n_only_a"] + left["n_only_b"], left["n_excluded"]
            if only or excluded:
                click.echo(f"  left out: {only} task(s) present in one arm only, {excluded} with an "
                           "infrastructure error or no reward, each once per contrast, seed and "
                           "trial (per row under log_contrasts in --json)")
    if others is not None:
        click.echo("\nOther contrasts in the count table (sign test; Bonferroni within seed, trial, subset)")
        echo_table(contrast_table(others))
    c = result.counts
    click.echo(f"\nClaims: {c['below']} below the floor, {c['inside']} inside the envelope, "
               f"{c['above']} above it (below = unresolved against the floor, not refuted)")
    click.echo(f"  claims used: {claims_source}")
    if bundled_note:
        click.echo(f"  note: {bundled_note[0].lower()}{bundled_note[1:]}")
    if nf.caution:
        click.echo("  caution: provisional: the floor is weakly supported (see its caution above)")
    if above_note(nf):
        click.echo(f"  note: {above_note(nf)}")
    echo_table(verdict_table(result).drop(columns=["flag"]))
    for v in result.verdicts:
        if v.flag:
            click.echo(f"  flagged: {v.paper}: {v.flag}")
    click.echo("\nWrote " + ", ".join(str(p) for p in written))
