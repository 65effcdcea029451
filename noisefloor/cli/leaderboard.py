"""``noisefloor leaderboard``: list tau2-bench leaderboard entries, compare two, rank all into
tiers (:func:`noisefloor.pipelines.leaderboard_run`); this module parses and prints."""

from __future__ import annotations

import click
import pandas as pd

from noisefloor.cli._common import (
    HELP_OPTIONS,
    echo_table,
    emit_json,
    error_text,
    handle_errors,
    jsonable,
    option_spelling,
)
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._intervals import confidence_option
from noisefloor.cli._logs import (
    LOG_SPEC,
    label_options,
    log_options,
    log_read_options,
    refuse_unused,
)
from noisefloor.leaderboard.entries import DOMAIN_TASKS
from noisefloor.pipelines.leaderboard import leaderboard_run
from noisefloor.pipelines.measured import FLOOR_KINDS
from noisefloor.report.text import p_cell, pp, pp_or_why
from noisefloor.stats.validation import ParameterError


@click.command(short_help="tau2-bench leaderboard: entries, gaps between two, a re-runs floor.", context_settings=HELP_OPTIONS)
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--domain", type=click.Choice(list(DOMAIN_TASKS)), default=None,
              help="Only this domain.")
@click.option("--a", "entry_a", default=None, help="Entry a: a submission id or a model name.")
@click.option("--b", "entry_b", default=None, help="Entry b, compared with --a.")
@click.option("--floor", type=float, default=None,
              help="Noise floor (proportion, 0.12 = 12 pp) to place the gap against.")
@click.option("--envelope", type=float, default=None,
              help="With --floor: the envelope; gaps between the two are 'inside'.")
@click.option("--floor-log", "floor_logs", multiple=True, type=LOG_SPEC,
              help="Trial LOG(s) whose noise floor the gap is placed against (repeatable).")
@click.option("--floor-kind", type=click.Choice(FLOOR_KINDS), default="floor", show_default=True,
              help="With --floor-log: the clean-contrast floor or the envelope.")
@click.option("--null", "null_pairs", multiple=True, metavar="A-B",
              help="With --floor-log: declare a pair null ('a-b' at trial 0, 'a-a' re-runs), as "
                   "for noisefloor floor. Repeatable.")
@click.option("--clean", "clean_pairs", multiple=True, metavar="A-B",
              help="With --floor-log: a null pair certified clean, as for noisefloor floor.")
@confidence_option(help="Level of every interval printed, and of the floor of --floor-log.")
@click.option("--tiers", is_flag=True,
              help="Rank the whole leaderboard into tiers of entries that cannot be told apart, "
                   "with simultaneous rank intervals.")
@click.option("--log", "tier_logs", multiple=True, type=click.Path(exists=True),
              help="With --tiers: trial LOG(s) whose configurations are the entries (paired "
                   "tests over tasks) instead of FILE (repeatable).")
@click.option("--plot", default=None, type=click.Path(dir_okay=False),
              help="With --tiers: write the tier figure here (.png, .svg, .pdf; one per domain).")
@log_options
@label_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@html_option()
@handle_errors
def leaderboard(file, domain, entry_a, entry_b, floor, envelope, floor_logs, floor_kind,
                null_pairs, clean_pairs, confidence, tiers, tier_logs, plot, log_format,
                label_benchmark, label_model, label_protocol, as_json, html_path=None) -> None:
    """Entries of a tau2-bench leaderboard FILE per domain, or the gap between --a and --b.

    FILE is the merged leaderboard_submissions.json or one submission.json. The gap is tested
    with the unpaired two-proportion z-test on the domain's task count. Without --floor or
    --floor-log it is placed against the leaderboard's own re-runs floor (re-submissions of one
    model), or its re-runs envelope when every re-submission differs in setup.

    --tiers ranks every entry into tiers (Holm over all pairs) with simultaneous rank
    intervals; with --log the entries are the configurations of trial logs, tested pairwise
    over their shared tasks.
    """
    ctx = click.get_current_context()
    # --floor-kind has a default: only the command line knows it was given
    if tiers:
        refuse_unused(ctx, ("floor_kind",), "with --tiers", "it ranks the whole leaderboard; "
                      "it chooses the floor of --floor-log for the gap between --a and --b")
    elif not floor_logs:
        refuse_unused(ctx, ("floor_kind",), "without --floor-log",
                      "it chooses the floor read from those logs")
    logs = [(str(p), None) for p in tier_logs]
    read = log_read_options(ctx, logs if tiers else floor_logs, log_format, label_benchmark,
                            label_model, label_protocol,
                            logs_option="--log" if tiers else "--floor-log")
    try:
        run = leaderboard_run(file, domain=domain, a=entry_a, b=entry_b, floor=floor,
                              envelope=envelope, floor_logs=list(floor_logs),
                              floor_kind=floor_kind, null_pairs=null_pairs,
                              clean_pairs=clean_pairs, confidence=confidence, tiers=tiers,
                              tier_logs=logs, plot=plot, **read)
    except ParameterError as exc:
        if exc.parameter in USAGE_PARAMETERS:  # options given together, or out of range: 2
            raise click.UsageError(error_text(exc, spell=_spelling())) from None
        raise
    if tiers:
        _echo_tiers_run(run, as_json, html_path)
        return
    if html_path is not None:
        from noisefloor.report.html.command_docs import (
            leaderboard_compare_doc,
            leaderboard_listing_doc,
        )

        page = leaderboard_compare_doc if run.mode == "compare" else leaderboard_listing_doc
        write_page(page(jsonable(run.to_dict())), html_path)
    if as_json:
        emit_json(run.to_dict())
    elif run.mode == "compare":
        _echo_comparison(run.comparison, run.confidence)
    else:
        _echo_listing(run)


def _echo_comparison(result, confidence: float) -> None:
    pct = f"{confidence * 100:g}%"
    click.echo(f"{result.a} vs {result.b}: unpaired two-proportion z-test, n = the domain's "
               "task count per entry")
    click.echo(f"placed against {_reading(result)}")
    rows = [{"domain": r.domain, "n": r.n_tasks, "a (%)": pp(r.pass_1_a), "b (%)": pp(r.pass_1_b),
             "gap (pp)": pp(r.gap, signed=True),
             f"{pct} CI (pp)": f"[{pp(r.ci_low, signed=True)}, {pp(r.ci_high, signed=True)}]",
             "p": p_cell(r.p_value), f"vs {result.floor_kind}": r.verdict} for r in result.rows]
    echo_table(pd.DataFrame(rows))
    flags = dict.fromkeys(f for r in result.rows for f in r.flags)
    for f in flags:
        click.echo(f"flag: {f}")
    for r in result.rows:
        if r.reason:
            click.echo(f"note ({r.domain}): {r.reason}")


def _reading(result) -> str:
    """What the gaps are placed against, labelled truthfully: the leaderboard's re-runs
    envelope (when no re-submission matches in setup) or a log's envelope is no floor."""
    source = "--floor" if result.floor_source == "given" else result.floor_source
    return (f"the {result.floor_kind}: "
            f"{pp_or_why(result.floor, 'no floor to place the gaps against')} ({source})")


def _floor_lines(reruns) -> tuple[str, str, str]:
    """The re-runs floor, envelope and gap SD as text; an undefined one says why."""
    floor = (f"{pp(reruns.floor)} pp" + (f"  ({reruns.floor_pair})" if reruns.floor_pair else "")
             if reruns.floor == reruns.floor else pp_or_why(reruns.floor, reruns.reason))
    envelope = (f"{pp(reruns.envelope)} pp"
                + (f"  ({reruns.envelope_pair})" if reruns.envelope_pair else "")
                if reruns.envelope == reruns.envelope else pp_or_why(reruns.envelope,
                                                                       reruns.reason))
    sd = pp_or_why(reruns.null_gap_sd, f"{len(reruns.table)} re-run gap(s): the SD needs two")
    return floor, envelope, sd


def _echo_listing(run) -> None:
    frame = run.entries
    for d in dict.fromkeys(frame["domain"]):
        part = frame[frame["domain"] == d]
        click.echo(f"{d} ({DOMAIN_TASKS[d]} tasks): {len(part)} entries")
        shown = pd.DataFrame({
            "rank": range(1, len(part) + 1), "submission": part["submission"],
            "model": part["model_name"], "pass^1 (%)": part["pass_1"].map(pp),
            "tau2": part["tau2_bench_version"].fillna("-"),
            "user sim": part["user_simulator"].fillna("-"), "type": part["submission_type"]})
        echo_table(shown)
        click.echo("")
    reruns = run.reruns_floor
    pct = f"{reruns.confidence * 100:g}%"
    click.echo(f"Re-run contrasts (re-submissions of one model): {len(reruns.table)}; {pct} bounds")
    floor, envelope, sd = _floor_lines(reruns)
    click.echo(f"  floor     {floor}")
    click.echo(f"  envelope  {envelope}")
    click.echo(f"  re-run gaps SD {sd}")
    if reruns.reason and reruns.floor == reruns.floor:  # else on the floor's line
        click.echo(f"  note: {reruns.reason}")


#: Parameters of :func:`noisefloor.pipelines.leaderboard_run` whose error is a usage error
#: (options that do not go together, or out of range): exit status 2, as click's own.
USAGE_PARAMETERS = frozenset({"tiers", "board", "a", "b", "plot", "tier_logs", "floor",
                              "envelope", "floor_logs", "null_pairs", "clean_pairs"})


def _spelling():
    """The command's options, and FILE for the leaderboard (``board=`` in Python)."""
    spell = option_spelling()
    return lambda name, value: "FILE" if name == "board" else spell(name, value)


def _echo_tiers_run(run, as_json, html_path) -> None:
    if html_path is not None:
        from noisefloor.report.html.command_docs import leaderboard_tiers_doc

        write_page(leaderboard_tiers_doc(jsonable(run.to_dict())), html_path)
    if as_json:
        emit_json(run.to_dict())
        return
    for result in run.tiers or ():
        heading = (f"{result.domain} ({DOMAIN_TASKS[result.domain]} tasks)" if result.domain
                   else "trial logs")
        _echo_tiers(result, heading)
        click.echo("")
    reruns = run.reruns_floor
    if reruns is not None:
        pct = f"{reruns.confidence * 100:g}%"
        floor, envelope, _ = _floor_lines(reruns)
        click.echo(f"Re-run contrasts (re-submissions of one model): {len(reruns.table)}; "
                   f"{pct} bounds: floor {floor}, envelope {envelope}")
        if reruns.reason and reruns.floor == reruns.floor:  # else on the floor's text
            click.echo(f"  note: {reruns.reason}")


def _echo_tiers(result, heading: str) -> None:
    pct = f"{result.confidence * 100:g}%"
    click.echo(f"{heading}: {len(result.entries)} entries in {result.n_tiers} tier(s); "
               f"{result.n_distinguishable} of {result.n_pairs} pairs distinguishable")
    frame = result.to_frame()
    shown = pd.DataFrame({
        "tier": frame["tier"], "rank": frame["rank"],
        f"rank {pct} (simultaneous)": [f"{lo}-{hi}" for lo, hi in
                                       zip(frame["rank_low"], frame["rank_high"])],
        "entry": frame["entry"], "score (%)": frame["score"].map(pp),
        f"{pct} CI (%)": [f"[{pp(lo)}, {pp(hi)}]" for lo, hi in
                          zip(frame["ci_low"], frame["ci_high"])],
        "n": frame["n_items"]})
    echo_table(shown)
    click.echo(f"tiers: {result.method}, Holm over all {result.n_pairs} pairs at {pct}: a tier "
               "runs from its best entry down to the first entry that entry beats; rank "
               f"intervals: Bonferroni over the pairs, all {len(result.entries)} hold jointly at "
               f"{pct} (Klein, Wright & Wieczorek 2020)")
    for note in result.notes:
        click.echo(f"note: {note}")
