"""Rendering of ``noisefloor leaderboard --tiers``: tiers and simultaneous rank intervals."""

from __future__ import annotations

import click
import pandas as pd

from noisefloor.cli._common import echo_table, emit_json
from noisefloor.leaderboard.tiers import (
    LeaderboardTiers,
    leaderboard_tiers,
    save_tier_plot,
    tiers_from_trials,
)
from noisefloor.report.text import pp


def _plot_path(plot: str, index: int, count: int, label: str) -> str:
    if count == 1:
        return plot
    stem, dot, suffix = plot.rpartition(".")
    return f"{stem}-{label}.{suffix}" if dot else f"{plot}-{label}"


def _echo(result: LeaderboardTiers, heading: str) -> None:
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


def tiers_command(board, reruns, domain, logs_frame, confidence, plot, as_json) -> list[dict]:
    """Compute, print (or return for ``--json``) and plot the tiers; returns the JSON parts."""
    from noisefloor.leaderboard.gaps import DOMAIN_TASKS

    results: list[tuple[str, LeaderboardTiers]] = []
    if logs_frame is not None:
        results.append(("trial logs", tiers_from_trials(logs_frame, confidence=confidence)))
    else:
        domains = [domain] if domain else board.domains()
        for d in domains:
            frame = board.to_frame(d)
            if int(frame["pass_1"].notna().sum()) < 2:
                continue
            results.append((f"{d} ({DOMAIN_TASKS[d]} tasks)",
                            leaderboard_tiers(board, d, confidence=confidence)))
    if plot:
        for i, (_heading, result) in enumerate(results):
            save_tier_plot(result, _plot_path(plot, i, len(results),
                                              result.domain or "logs"))
    parts = [r.to_dict() for _, r in results]
    if as_json:
        doc: dict = {"tiers": parts}
        if reruns is not None:
            doc["reruns_floor"] = reruns.to_dict()
        emit_json(doc)
        return parts
    for heading, result in results:
        _echo(result, heading)
        click.echo("")
    if reruns is not None:
        pct = f"{reruns.confidence * 100:g}%"
        click.echo(f"A/A contrasts (re-submissions of one model): {len(reruns.table)}; "
                   f"{pct} bounds: "
                   f"floor {pp(reruns.floor)} pp, envelope {pp(reruns.envelope)} pp"
                   + (f"  ({reruns.envelope_pair})" if reruns.envelope_pair else ""))
        if reruns.reason:
            click.echo(f"  note: {reruns.reason}")
    return parts
