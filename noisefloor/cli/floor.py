"""``noisefloor floor``: null contrasts and the noise floor from per-trial logs."""

from __future__ import annotations

import warnings

import click

from noisefloor.cli._common import echo_table, emit_json, handle_errors
from noisefloor.cli._logs import label_options, log_options, read_logs
from noisefloor.floor import noise_floor, null_contrasts_from_trials
from noisefloor.report import count_noun, floor_table, pp


@click.command()
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True))
@log_options
@label_options
@click.option("--clean", multiple=True, help="Protocol pair certified clean, as 'a-b' (repeatable).")
@click.option("--no-trial0", is_flag=True, help="Leave out trial-0 contrasts across protocols.")
@click.option("--no-reruns", is_flag=True, help="Leave out re-runs of one configuration (A/A).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@handle_errors
def floor(logs, log_format, label_benchmark, label_model, label_protocol, clean, no_trial0, no_reruns, as_json) -> None:
    """The noise floor of LOG files: trial 0 across protocols and A/A re-runs.

    LOG may be noisefloor JSONL, a tau2-bench results.json or run directory, a tau-bench
    trajectory list, or a directory of <protocol>/trials.jsonl.
    """
    if no_trial0 and no_reruns:
        raise click.UsageError("--no-trial0 and --no-reruns together leave no kind of null "
                               "contrast to build the floor from; drop one of them")
    trials = read_logs(logs, log_format, label_benchmark, label_model, label_protocol)
    null = null_contrasts_from_trials_quietly(trials, clean_pairs=clean, trial0=not no_trial0,
                                              reruns=not no_reruns)
    nf = noise_floor(null)
    if as_json:
        emit_json({**nf.to_dict(), "left_out": left_out_records(null),
                   "skipped_reruns": skipped_records(null)})
        return
    click.echo(f"{len(trials)} trials, {trials['task_id'].nunique()} tasks, "
               f"{trials['protocol'].nunique()} protocol(s), {len(null)} per-seed null contrast(s)")
    click.echo(f"  floor     {pp(nf.floor)} pp  ({_which(nf.floor_contrast)}; basis: {nf.basis})")
    click.echo(f"  envelope  {pp(nf.envelope)} pp  ({_which(nf.envelope_contrast)})")
    click.echo(f"  null gaps {pp(nf.null_gap_min, signed=True)} to {pp(nf.null_gap_max, signed=True)}"
               f" pp, SD {pp(nf.null_gap_sd)} pp; {count_noun(nf.n_informative, 'informative pair')}")
    if nf.reason:
        click.echo(f"  note: {nf.reason}")
    if nf.caution:
        click.echo(f"  caution: {nf.caution}")
    line = left_out_line(null)
    if line:
        click.echo(f"  {line}")
    if skipped_line(null):
        click.echo(f"  {skipped_line(null)}")
    click.echo("")
    echo_table(floor_table(nf))


def skipped_records(null) -> list[dict]:
    """Re-run pairs left out because their reader injected peer events (JSON-ready)."""
    return [{**r, "seed": None if r["seed"] == "none" else r["seed"]}
            for r in null.attrs.get("skipped_reruns", [])]


def skipped_line(null) -> str:
    """One line naming the skipped re-run pairs, or ''."""
    skipped = null.attrs.get("skipped_reruns", [])
    if not skipped:
        return ""
    return (f"skipped: {len(skipped)} re-run pair(s) whose reader injected peer events (not null "
            "contrasts): " + ", ".join(r["contrast"] for r in skipped[:6])
            + (", ..." if len(skipped) > 6 else "") + " (listed under skipped_reruns in --json)")


def _which(contrast: str) -> str:
    return contrast or "no contrast has an untied pair"


def null_contrasts_from_trials_quietly(trials, **kwargs):
    """:func:`null_contrasts_from_trials` without its unpaired-task warning: the CLI prints
    what was left out itself (:func:`left_out_line`), in its own words and in --json."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*present in one arm only")
        return null_contrasts_from_trials(trials, **kwargs)


_LEFT_OUT = ("n_only_a", "n_only_b", "n_excluded")


def left_out_records(null) -> list[dict]:
    """Per (contrast, seed): tasks left out of the pairing (one arm only, or excluded)."""
    cols = [c for c in _LEFT_OUT if c in null.columns]
    if not cols:
        return []
    rows = null[null[cols].sum(axis=1) > 0]
    return rows[["contrast", "seed", *cols]].to_dict(orient="records")


def left_out_line(null) -> str:
    """One line saying how many paired tasks each kind of exclusion removed, or ''."""
    totals = {c: int(null[c].sum()) for c in _LEFT_OUT if c in null.columns}
    if not any(totals.values()):
        return ""
    parts = []
    if totals.get("n_only_a", 0) + totals.get("n_only_b", 0):
        parts.append(f"{totals.get('n_only_a', 0) + totals.get('n_only_b', 0)} task(s) present "
                     "in one arm only")
    if totals.get("n_excluded", 0):
        parts.append(f"{totals['n_excluded']} task(s) with an infrastructure error or no reward")
    affected = len(left_out_records(null))
    return (f"left out: {', '.join(parts)}, summed over {affected} per-seed contrast(s) "
            "(per contrast under left_out in --json)")
