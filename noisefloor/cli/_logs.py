"""Shared options for commands that read trial logs."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import click


class _FormatChoice(click.Choice):
    """``--format``'s choices: ``auto`` and the readers' formats (:data:`noisefloor.logs.FORMATS`),
    read when first needed (help, a value other than ``auto``), so that a command run without
    ``--log`` does not load the log readers."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        from noisefloor.logs import FORMATS as log_formats

        return ("auto", *log_formats)

    @choices.setter
    def choices(self, value: Sequence[Any]) -> None:
        # click.Choice.__init__ assigns; the property decides. Typed as wide as any click's own
        # `choices` (Sequence in 8.4, tuple in 8.5), so the property overrides either.
        pass

    def convert(self, value, param, ctx):
        if value == "auto":  # the default, valid whatever the readers are
            return value
        return super().convert(value, param, ctx)


def __getattr__(name: str):
    if name == "FORMATS":  # ``auto`` and every reader's format, as ``--format`` offers them
        return _FormatChoice().choices
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def label_options(func):
    """``--benchmark``, ``--model``, ``--protocol``: labels for formats that lack them."""
    func = click.option("--protocol", "label_protocol", default=None,
                        help="Protocol label for formats that lack one (tau2, tau-bench).")(func)
    func = click.option("--model", "label_model", default=None,
                        help="Model label for formats that lack or only infer one.")(func)
    func = click.option("--benchmark", "label_benchmark", default=None,
                        help="Benchmark label for formats that lack or only infer one.")(func)
    return func


_ALLOW_NAN = "noisefloor.allow_nan"
_SCORE = "noisefloor.score"

#: Help of ``--score`` (also used by ``log validate``).
SCORE_HELP = ("inspect_ai logs: the scorer whose score is the reward (default: the log's first "
              "scorer).")

#: Help of ``--allow-nan`` (also used by ``log validate``).
ALLOW_NAN_HELP = ("Accept NaN/Infinity literals in the JSON (a non-finite reward is still an "
                  "error; such values may stand in 'extra').")


def log_options(func):
    """``--format``, ``--allow-nan`` and ``--score`` for commands that take LOG paths.

    ``--allow-nan`` and ``--score`` do not reach the command function: they are kept in the
    click context and :func:`read_logs` reads them from there, so every command reading logs
    has them.
    """

    @functools.wraps(func)
    def wrapper(*args, allow_nan: bool = False, score: str | None = None, **kwargs):
        ctx = click.get_current_context(silent=True)
        if ctx is not None:  # None when the callback is called directly, outside click
            ctx.meta[_ALLOW_NAN] = allow_nan
            ctx.meta[_SCORE] = score
        return func(*args, **kwargs)

    wrapper = click.option("--allow-nan", is_flag=True, help=ALLOW_NAN_HELP)(wrapper)
    wrapper = click.option("--score", default=None, metavar="NAME", help=SCORE_HELP)(wrapper)
    return click.option(
        "--format", "log_format", type=_FormatChoice(), default="auto", show_default=True,
        help="Log format; 'auto' detects it from each file.",
    )(wrapper)


def _refuse_unrecognised(paths) -> None:
    """Name every file (given, or found in a given directory) that is not a trial log, at once.

    The reader stops at the first; a directory holding a results table besides its logs would
    then be fixed one file per run.
    """
    from noisefloor.cli._common import option_spelling
    from noisefloor.logs import LogValidationError, detect_format
    from noisefloor.logs.formats.detect import expand_paths

    problems = []
    for path in expand_paths(list(paths)):
        try:
            detect_format(path)
        except LogValidationError as exc:
            problems.extend(exc.problems)
        except OSError:
            pass  # the reader reports it with the file name
    if len(problems) < 2:
        return  # none, or one: the reader's own message names it
    spell = option_spelling()
    expected = {p.texts(spell)[1] for p in problems}
    lines = [f"{len(problems)} file(s) are not recognised trial logs:"]
    lines += [f"  {p.source}: {p.received or p.texts(spell)[0]}" for p in problems]
    if len(expected) == 1 and None not in expected:
        lines.append(f"expected {expected.pop()}")
    raise click.ClickException("\n".join(lines))


def read_logs(paths, log_format: str, label_benchmark=None, label_model=None, label_protocol=None,
              allow_nan: bool | None = None):
    """Load trial logs, each one run, into the trial DataFrame with the one reader
    (:func:`noisefloor.logs.load_trials`): ``paths`` are paths or ``(path, label)`` pairs.

    ``allow_nan`` defaults to the command's ``--allow-nan`` flag, the scorer to its ``--score``.
    """
    from noisefloor.logs import load_trials

    if not paths:
        raise click.UsageError("give at least one LOG path")
    specs = [p if isinstance(p, tuple) else (str(p), None) for p in paths]
    options = log_call_options(specs, log_format, label_benchmark, label_model, label_protocol)
    if allow_nan is not None:
        options["allow_nan"] = allow_nan
    trials = load_trials(specs, **options)
    if trials.empty:
        # An empty log (a blank file read with --format, ``[]``, a tau2 run without
        # simulations) must not pass as a run with nothing wrong in it.
        read = trials.attrs.get("sources") or [str(p) for p in paths]
        raise click.ClickException(
            f"no trial record in {', '.join(map(str, read))}: the log(s) hold no trial to "
            "analyse (expected at least one record)")
    return trials


class LogSpec(click.ParamType):
    """A log path, optionally labelled: ``PATH`` or ``PATH=LABEL`` (the label names the run's
    arm, see :func:`noisefloor.logs.runs.parse_log_spec`). The path must exist."""

    name = "LOG[=LABEL]"

    def convert(self, value, param, ctx):
        from pathlib import Path

        from noisefloor.logs.runs import parse_log_spec

        if isinstance(value, tuple):
            return value
        try:
            path, label = parse_log_spec(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if not Path(path).exists():
            self.fail(f"Path {path!r} does not exist.", param, ctx)
        return (path, label)


LOG_SPEC = LogSpec()


def null_options(func):
    """The log options shared by ``audit``, ``floor`` and ``contrast``: ``--log`` (repeatable,
    ``PATH=LABEL`` to label a run), ``--format``, ``--allow-nan``, the labels (``--benchmark``,
    ``--model``, ``--protocol``), ``--clean``, ``--null``, ``--no-trial0`` and
    ``--no-reruns``."""
    func = click.option("--no-reruns", is_flag=True,
                        help="Leave out re-runs of one configuration as null contrasts.")(func)
    func = click.option("--no-trial0", is_flag=True,
                        help="Leave out trial-0 contrasts across protocols as null contrasts.")(func)
    func = click.option(
        "--null", "null_pairs", multiple=True, metavar="A-B",
        help="Declare a pair null: 'a-b' (trial 0 of protocols a and b) or 'a-a' (the re-runs "
             "of a), when the log cannot certify it (no store_events_at_start, no "
             "first_request_sha256). Repeatable.")(func)
    func = click.option(
        "--clean", multiple=True, metavar="A-B",
        help="Null contrast certified clean (identical first requests), as 'a-b', shown as "
             "typed (repeatable; for a count table the default is no_coord-intercept when it "
             "holds it).")(func)
    func = label_options(func)
    func = log_options(func)
    return click.option(
        "--log", "logs", multiple=True, type=LOG_SPEC,
        help="Per-trial log (file, tau2 run directory or folder), one run each; LOG=LABEL "
             "names the run's arm (e.g. --log runA.json=baseline --log runB.json=variant). "
             "Repeatable.")(func)


def log_call_options(specs, log_format: str, label_benchmark=None, label_model=None,
                     label_protocol=None) -> dict:
    """Check labelled logs (every unrecognised file named at once) and return the keyword
    arguments a pipeline (:mod:`noisefloor.pipelines`) reads them with."""
    check_log_specs(specs, log_format)
    return log_read_kwargs(log_format, label_benchmark, label_model, label_protocol)


def check_log_specs(specs, log_format: str) -> None:
    """Refuse no log, and name every unrecognised file at once (``log_format`` ``"auto"``)."""
    if not specs:
        raise click.UsageError("give at least one LOG path")
    if log_format == "auto":
        _refuse_unrecognised([p for p, _ in specs])


def log_read_kwargs(log_format: str, label_benchmark=None, label_model=None,
                    label_protocol=None) -> dict:
    """The keyword arguments a pipeline reads logs with, the command's context's
    ``--allow-nan`` and ``--score`` included (no log checked: :func:`check_log_specs`)."""
    ctx = click.get_current_context(silent=True)
    return {"format": None if log_format == "auto" else log_format,
            "allow_nan": bool(ctx is not None and ctx.meta.get(_ALLOW_NAN, False)),
            "benchmark": label_benchmark, "model": label_model, "protocol": label_protocol,
            "score": ctx.meta.get(_SCORE) if ctx is not None else None}


#: The parameters of :func:`log_options` and :func:`label_options`: how logs are read.
LOG_READ_PARAMS = ("log_format", "allow_nan", "score", "label_benchmark", "label_model",
                   "label_protocol")


def refuse_unused(ctx: click.Context, names, mode: str, why: str) -> None:
    """A usage error naming every option of ``names`` the user gave: an option that does not
    apply is refused, never ignored.

    Given means on the command line or from the environment (click's ``ParameterSource``
    ``COMMANDLINE`` or ``ENVIRONMENT``); a default, from the option or the configuration's
    default map, is not given. The message reads ``--a, --b do not apply {mode}: {why}``.
    """
    from click.core import ParameterSource

    given = [p for p in ctx.command.params
             if p.name in names and ctx.get_parameter_source(p.name) in (
                 ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)]
    if given:
        shown = ", ".join(max(p.opts, key=len) for p in given)
        verb = "does" if len(given) == 1 else "do"
        raise click.UsageError(f"{shown} {verb} not apply {mode}: {why}")


def log_read_options(ctx: click.Context, specs, log_format: str, label_benchmark=None,
                     label_model=None, label_protocol=None, *, logs_option: str) -> dict:
    """:func:`log_call_options` for the logs a command reads besides its main input (e.g.
    ``--floor-log``): with no log, the log options given are refused by name (they would read
    nothing) and the result is ``{}``."""
    if not specs:
        refuse_unused(ctx, LOG_READ_PARAMS, f"without {logs_option}",
                      "log options say how the logs are read, and no log is given")
        return {}
    return log_call_options(list(specs), log_format, label_benchmark, label_model,
                            label_protocol)

