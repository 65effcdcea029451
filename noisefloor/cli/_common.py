"""Helpers shared by the command modules: error reporting, JSON output, table printing."""

from __future__ import annotations

import functools
import json
import math
import os
import sys
from typing import Any

import click
import numpy as np
import pandas as pd


def handle_errors(func):
    """Turn expected exceptions into one clear line and a non-zero exit (no traceback)."""

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
            raise click.ClickException(str(message)) from None

    return wrapper


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
