"""The ``--html`` option of the analysis commands: write the result's page
(:func:`noisefloor.report.html.write_html`) beside the terminal text and ``--json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

#: ``--html`` given without a value: the page goes to ``report.html`` (in ``--out`` for the
#: commands that have one).
DEFAULT = "report.html"


def html_option(where: str = "the current directory"):
    """``--html [FILE]``: write one self-contained HTML page of the result."""
    return click.option(
        "--html", "html_path", is_flag=False, flag_value=DEFAULT, default=None,
        metavar="[FILE]",
        help=f"Also write one self-contained HTML page (no network; figures inline) to FILE "
             f"(default report.html in {where}). Give --html last, or as --html=FILE, when "
             "positional arguments follow.")


def html_target(value: str | None, out: str | Path | None = None) -> Path | None:
    """The file ``--html`` writes to: ``out/report.html`` for a bare ``--html`` on a command
    with ``--out``, else the value; None without ``--html``.

    Raises
    ------
    click.BadParameter
        When the value is an existing directory.
    """
    if value is None:
        return None
    path = Path(out) / DEFAULT if (value == DEFAULT and out is not None) else Path(value)
    if path.is_dir():
        raise click.BadParameter(f"{path} is a directory; give a file such as "
                                 f"{path / DEFAULT}, or put --html after the LOG arguments",
                                 param_hint="--html")
    return path


def write_page(result: Any, value: str | None, out: str | Path | None = None,
               **options: Any) -> Path | None:
    """Write the page of ``result`` when ``--html`` was given and say so on stderr."""
    path = html_target(value, out)
    if path is None:
        return None
    from noisefloor.report.html import write_html

    write_html(result, path, **options)
    click.echo(f"wrote {path}", err=True)
    return path
