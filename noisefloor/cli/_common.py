"""Helpers shared by the command modules: error reporting, JSON output, table printing."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import sys
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from noisefloor.cli import HELP_OPTIONS as HELP_OPTIONS
from noisefloor.extras import missing_extra_message
from noisefloor.stats.validation import MentionError, ParameterError, Spell, python_spelling
from noisefloor.stats.warning_classes import NoisefloorWarning

if TYPE_CHECKING:
    import pandas as pd


def option_spelling(command: click.Command | None = None) -> Spell:
    """Spell a library parameter as the running command's option (``protocol`` -> ``--protocol``).

    ``command`` defaults to the command of the current click context. The option is the one
    whose destination is the parameter's name, else the one spelled ``--name-with-dashes``
    (``format`` -> ``--format``, stored as ``log_format``), else the one named in
    :data:`OPTION_DESTINATIONS`. A parameter that is no option of the command keeps its Python
    spelling (``name=`` / ``name=value``). A mention's value follows the option
    (``--k-exceeds-n nan``); a flag's ``True`` is the flag alone, a list ``[0]`` its items.

    Examples
    --------
    >>> @click.command()
    ... @click.option("--k-exceeds-n", type=click.Choice(["nan", "exclude"]))
    ... @click.option("--allow-nan", is_flag=True)
    ... def passk(k_exceeds_n, allow_nan): ...
    >>> spell = option_spelling(passk)
    >>> spell("k_exceeds_n", None), spell("k_exceeds_n", "'nan'"), spell("allow_nan", "True")
    ('--k-exceeds-n', '--k-exceeds-n nan', '--allow-nan')
    >>> spell("protocol", None)  # not an option of this command: the Python keyword
    'protocol='
    """
    if command is None:
        ctx = click.get_current_context(silent=True)
        command = ctx.command if ctx is not None else None
    by_dest: dict[str, click.Option] = {}
    by_flag: dict[str, click.Option] = {}
    for param in getattr(command, "params", ()):
        if isinstance(param, click.Option) and param.name:
            by_dest.setdefault(param.name, param)
            for opt in param.opts:
                by_flag.setdefault(opt, param)

    def spell(name: str, value: str | None) -> str:
        param = (by_dest.get(name) or by_flag.get("--" + name.replace("_", "-"))
                 or by_dest.get(OPTION_DESTINATIONS.get(name, "")))
        longs = [o for o in param.opts if o.startswith("--")] if param is not None else []
        if param is None or not longs:
            return python_spelling(name, value)
        option = max(longs, key=len)
        if value is None or (param.is_flag and value == "True"):
            return option
        return f"{option} {value.strip(chr(39) + chr(34) + '[]')}"

    return spell


#: Library parameters whose command-line option stores under another name (``contrast --trial``
#: is ``trials=`` of :func:`noisefloor.pipelines.contrast_run`; ``tax report
#: --missing-transcripts`` is ``missing=`` of :func:`noisefloor.tax.run.read_transcripts`).
OPTION_DESTINATIONS = {"trials": "trial_indices", "missing": "missing_transcripts"}


def error_text(exc: BaseException, command: click.Command | None = None, *,
               spell: Spell | None = None) -> str:
    """An exception's message for the command line, its parameters spelled as options.

    A :class:`~noisefloor.stats.validation.MentionError` (a
    :class:`~noisefloor.stats.validation.ParameterError`, a log's
    :class:`~noisefloor.logs.LogValidationError`, ...) is rendered with
    :func:`option_spelling` of ``command`` (default: the running command); the subject of a
    ``ParameterError`` that is no option keeps its bare Python name. A file-system error is
    ``PATH: what went wrong``; a ``KeyError`` its message without quotes; anything else
    ``str(exc)``. ``spell`` replaces :func:`option_spelling` (a command that spells an argument,
    too).

    Examples
    --------
    >>> @click.command()
    ... @click.option("--n-boot", type=int)
    ... def run(n_boot): ...
    >>> error_text(ParameterError("n_boot", "an integer >= 100", 5), run)
    '--n-boot must be an integer >= 100, got 5'
    >>> error_text(ParameterError("n_sim", "an integer >= 1", 0), run)
    'n_sim must be an integer >= 1, got 0'
    >>> error_text(KeyError("no task 'x'"), run)
    "no task 'x'"
    """
    if isinstance(exc, MentionError):
        spell = spell or option_spelling(command)
        if isinstance(exc, ParameterError):
            subject = exc.parameter
            return exc.render(lambda name, value: spell(name, value).removesuffix("=")
                              if value is None and name == subject else spell(name, value))
        return exc.render(spell)
    if isinstance(exc, OSError):
        return os_error_text(exc)
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc)


@contextlib.contextmanager
def clean_warnings() -> Iterator[None]:
    """Show warnings as one ``warning: message`` line each on stderr (no file path or source).

    noisefloor's own warnings (every :class:`~noisefloor.stats.warning_classes.NoisefloorWarning`
    subclass: a truncated final line, a count table whose rows disagree) are chosen by class,
    never by message or module: each is shown whenever it is raised (not once per code location, as
    Python's default filter would), and each distinct message once. Other libraries' warnings
    keep Python's filters and are shown the same way.
    """
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if text not in shown:
            shown.add(text)
            click.echo(f"warning: {text}", err=True)

    with warnings.catch_warnings():
        warnings.simplefilter("always", NoisefloorWarning)
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
        except MentionError as exc:
            raise click.ClickException(error_text(exc)) from None
        except (ValueError, TypeError, KeyError, FileNotFoundError, OSError) as exc:
            raise click.ClickException(error_text(exc)) from None
        except ImportError as exc:  # an optional package: name the extra that installs it
            ctx = click.get_current_context(silent=True)
            message = missing_extra_message(exc, ctx.command_path if ctx is not None else None)
            if message is None:
                raise
            raise click.ClickException(message) from None
        except Exception as exc:  # last resort: a bug, but never a bare traceback
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
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    # numpy and pandas values exist only once their modules are imported: a command that never
    # imports them (``store serve``) starts without them
    np, pd = sys.modules.get("numpy"), sys.modules.get("pandas")
    if pd is not None:
        if isinstance(value, pd.DataFrame):
            return [jsonable(r) for r in value.to_dict(orient="records")]
        if value is pd.NA or value is pd.NaT:
            return None
    if np is not None:
        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.floating):
            v = float(value)
            return None if math.isnan(v) or math.isinf(v) else v
        if isinstance(value, np.bool_):
            return bool(value)
    return value


def emit_json(document: Any) -> None:
    """Print one JSON document (NaN becomes null; reasons travel in their own fields)."""
    click.echo(json.dumps(jsonable(document), indent=2, allow_nan=False))


def echo_table(frame: pd.DataFrame) -> None:
    """Print a DataFrame as an aligned text table without the index."""
    import pandas as pd

    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 200, "display.max_colwidth", 60):
        click.echo(frame.to_string(index=False))
