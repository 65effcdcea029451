"""``noisefloor log``: print the trial-record JSON Schema; validate log files.

Thin layer over :mod:`noisefloor.logs`: no parsing or checking happens here.
"""

from __future__ import annotations

import json
import warnings

import click

from noisefloor.logs import (
    FORMATS,
    LogValidationError,
    TruncatedLineWarning,
    trial_record_json_schema,
    validate_logs,
)


@click.group("log")
def log() -> None:
    """Trial logs: the record schema and a strict validator."""


@log.command("schema")
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of one trial record."""
    click.echo(json.dumps(trial_record_json_schema(), indent=2))


@log.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "format_", type=click.Choice(FORMATS), default=None,
              help="Reader for every FILE (default: detected per file).")
@click.option("--allow-nan", is_flag=True, help="Accept NaN/Infinity literals in the JSON.")
@click.option("--benchmark", default=None, help="Benchmark label for formats that lack one.")
@click.option("--model", default=None, help="Model label for formats that lack one.")
@click.option("--protocol", default=None, help="Protocol label for formats that lack one.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead.")
def validate(files: tuple[str, ...], format_: str | None, allow_nan: bool,
             benchmark: str | None, model: str | None, protocol: str | None,
             as_json: bool) -> None:
    """Check FILE... (files or run directories) and report every problem.

    Prints one line per problem, ``file:line: field: message (expected ..., received ...)``,
    then a summary. Exits 1 if any problem was found, 0 otherwise (a truncated final line is
    a warning, not a problem).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TruncatedLineWarning)
            report = validate_logs(list(files), format=format_, allow_nan=allow_nan,
                                   benchmark=benchmark, model=model, protocol=protocol)
    except (LogValidationError, ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        for problem in report.problems:
            click.echo(str(problem))
        for cut in report.truncated:
            click.echo(f"warning: {cut}")
        status = "ok" if report.ok else f"{len(report.problems)} problem(s)"
        click.echo(f"{len(report.files)} file(s), {report.n_valid} valid record(s), "
                   f"{len(report.truncated)} truncated line(s): {status}")
    if not report.ok:
        raise SystemExit(1)
