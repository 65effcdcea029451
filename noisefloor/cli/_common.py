"""Helpers shared by the command modules: error reporting, JSON output, table printing."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import click
import numpy as np
import pandas as pd


# Library messages name Python keywords (``protocol=``, ``allow_nan=True``), sometimes with the
# command-line option beside them (``benchmark= / --benchmark``); on the command line only the
# option is meant. Both the keyword-and-option forms and a keyword that is an option of the
# running command are rewritten; anything else is left as the library wrote it.
_BOTH = re.compile(r"\b[a-z][a-z_]*=(?:True|False|'[^']*'|\"[^\"]*\"|[^\s,/()]*)"
                   r"(?:\s*/\s*|,\s*or\s+)(--[a-z][a-z-]*),?")
_BRACKETED = re.compile(r"\b[a-z][a-z_]*=(?:True|False|'[^']*'|[^\s,/()]*)\s*"
                        r"\((--[a-z][a-z-]*)(?: on the command line)?\)")
_KEYWORD = re.compile(r"\b([a-z][a-z_]*)=(True\b|'([^']*)'|(?=[\s),.;:]|$))")


def _command_options() -> set[str]:
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return set()
    return {opt for param in ctx.command.params for opt in getattr(param, "opts", ())
            if opt.startswith("--")}


def cli_message(text: str, options: set[str] | None = None) -> str:
    """Rewrite a library message for the command line: name options, not Python keywords.

    ``options`` are the long options of the running command (default: read from the click
    context); a bare keyword is rewritten only when it is one of them.

    Examples
    --------
    >>> cli_message("NaN (pass allow_nan=True, or --allow-nan, to accept it)")
    'NaN (pass --allow-nan to accept it)'
    >>> cli_message("cannot name the benchmark (or pass benchmark= / --benchmark)")
    'cannot name the benchmark (or pass --benchmark)'
    >>> cli_message("pass format= (--format on the command line) one of jsonl")
    'pass --format one of jsonl'
    >>> cli_message("2 protocols; choose one with protocol=", {"--protocol"})
    '2 protocols; choose one with --protocol'
    >>> cli_message("pass k_exceeds_n='nan' to decide", {"--k-exceeds-n"})
    'pass --k-exceeds-n nan to decide'
    >>> cli_message("choose one with protocol=", set())  # no such option: left as written
    'choose one with protocol='
    """
    text = _BRACKETED.sub(r"\1", _BOTH.sub(r"\1", text))
    known = _command_options() if options is None else options

    def keyword(match: re.Match) -> str:
        option = "--" + match.group(1).replace("_", "-")
        if option not in known:
            return match.group(0)
        value = match.group(3)
        return option if value is None else f"{option} {value}"

    return _KEYWORD.sub(keyword, text)


@contextlib.contextmanager
def clean_warnings() -> Iterator[None]:
    """Show warnings as one ``warning: message`` line each on stderr (no file path or source).

    noisefloor's own warnings (a truncated final line, tasks left unpaired) are shown every
    time they are raised, but each distinct message once.
    """
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = cli_message(str(message))
        if text not in shown:
            shown.add(text)
            click.echo(f"warning: {text}", err=True)

    with warnings.catch_warnings():
        warnings.filterwarnings("always", module=r"(noisefloor|harness)(\.|$)")
        warnings.showwarning = show
        yield


def os_error_text(exc: OSError) -> str:
    """``PATH: what went wrong`` for a file-system error, without Python's ``[Errno N]`` prefix.

    A file standing where a folder is needed (``--out report.md/x``, ``--plot a.csv/x.png``)
    says so; an error without a path keeps its own text.
    """
    if exc.filename is None:
        return str(exc)
    what = exc.strerror or str(exc)
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        what += " (a file stands where a folder is needed)"
    where = str(exc.filename) + (f" -> {exc.filename2}" if exc.filename2 is not None else "")
    return f"{where}: {what}"


def handle_errors(func):
    """Turn expected exceptions into one clear line and a non-zero exit (no traceback).

    Any other exception is a bug (input that should have been checked earlier): it becomes an
    "internal error" line naming the exception, exit 1, unless ``NOISEFLOOR_TRACEBACK`` is set.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except click.ClickException:
            raise
        except BrokenPipeError:
            # The reader went away (``noisefloor audit | head``): stop quietly, like a filter.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(141)
        except (ValueError, TypeError, KeyError, FileNotFoundError, OSError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            if isinstance(exc, OSError):
                message = os_error_text(exc)
            raise click.ClickException(cli_message(str(message))) from None
        except Exception as exc:  # noqa: BLE001 - last resort: a bug, but never a bare traceback
            if os.environ.get(TRACEBACK_ENV):
                raise
            raise click.ClickException(
                f"internal error ({type(exc).__name__}: {exc}): the input was not checked "
                "before it reached this point, which is a noisefloor bug; please report it with "
                f"the command line ({TRACEBACK_ENV}=1 shows the traceback)") from None

    return wrapper


#: Set this environment variable to see the traceback of an unexpected error.
TRACEBACK_ENV = "NOISEFLOOR_TRACEBACK"


def jsonable(value: Any) -> Any:
    """Recursively convert to JSON-safe values: NaN/inf -> None, numpy scalars -> Python."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, pd.DataFrame):
        return [jsonable(r) for r in value.to_dict(orient="records")]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(value, np.bool_):
        return bool(value)
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def emit_json(document: Any) -> None:
    """Print one JSON document (NaN becomes null; reasons travel in their own fields)."""
    click.echo(json.dumps(jsonable(document), indent=2, allow_nan=False))


def echo_table(frame: pd.DataFrame) -> None:
    """Print a DataFrame as an aligned text table without the index."""
    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 200, "display.max_colwidth", 60):
        click.echo(frame.to_string(index=False))
