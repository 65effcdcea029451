"""``noisefloor log``: print the trial-record JSON Schema; validate log files.

Thin layer over :mod:`noisefloor.logs`: no parsing or checking happens here.
"""

from __future__ import annotations

import json
import warnings

import click

from noisefloor.cli._common import (
    HELP_OPTIONS,
    emit_json,
    error_text,
    handle_errors,
    option_spelling,
)
from noisefloor.cli._logs import ALLOW_NAN_HELP, SCORE_HELP
from noisefloor.logs import (
    FORMATS,
    LogValidationError,
    TruncatedLineWarning,
    trial_record_json_schema,
    validate_logs,
)
from noisefloor.logs.jsonl.lines import MAX_LINE_BYTES


@click.group("log", context_settings=HELP_OPTIONS)
def log() -> None:
    """Trial logs: the record schema and a strict validator."""


@log.command("schema", context_settings=HELP_OPTIONS)
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of one trial record."""
    click.echo(json.dumps(trial_record_json_schema(), indent=2))


@log.command("validate", context_settings=HELP_OPTIONS)
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "format_", type=click.Choice(("auto", *FORMATS)), default="auto",
              show_default=True, help="Log format; 'auto' detects it from each file.")
@click.option("--allow-nan", is_flag=True, help=ALLOW_NAN_HELP)
@click.option("--benchmark", default=None, help="Benchmark label for formats that lack one.")
@click.option("--model", default=None, help="Model label for formats that lack one.")
@click.option("--protocol", default=None, help="Protocol label for formats that lack one.")
@click.option("--score", default=None, metavar="NAME", help=SCORE_HELP)
@click.option("--max-line-bytes", type=click.IntRange(min=1), default=MAX_LINE_BYTES,
              show_default=True,
              help="Longest JSONL line read; a longer one is a problem (never held in memory).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead.")
@handle_errors
def validate(files: tuple[str, ...], format_: str | None, allow_nan: bool,
             benchmark: str | None, model: str | None, protocol: str | None,
             score: str | None, max_line_bytes: int, as_json: bool) -> None:
    """Check log files (or run directories) and report every problem.

    Prints one line per problem, as file:line: field: message (expected ..., received ...),
    then a summary. Exits 1 if any problem was found, 0 otherwise (a truncated final line is
    a warning, not a problem).
    """
    format_ = None if format_ == "auto" else format_
    # A path that cannot be read at all (missing, an empty directory, a named pipe, a broken
    # link) is one problem among the others: report each and go on with the files found.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TruncatedLineWarning)
            report = validate_logs(list(files), format=format_, allow_nan=allow_nan,
                                   benchmark=benchmark, model=model, protocol=protocol,
                                   score=score, max_line_bytes=max_line_bytes,
                                   unreadable="report")
    except (LogValidationError, ValueError, OSError) as exc:
        raise click.ClickException(error_text(exc)) from None
    if as_json:
        emit_json(report.to_dict())
    else:
        spell = option_spelling()
        for problem in (*report.path_problems, *report.problems):
            click.echo(problem.render(spell))
        for cut in report.truncated:
            click.echo(f"warning: {cut}")
        n_problems = len(report.problems) + len(report.path_problems)
        status = "ok" if report.ok else f"{n_problems} problem(s)"
        click.echo(f"{len(report.files)} file(s), {report.n_valid} valid record(s), "
                   f"{len(report.truncated)} truncated line(s): {status}")
    if not report.ok:
        raise SystemExit(1)
