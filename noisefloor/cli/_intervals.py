"""Shared interval options: ``--confidence`` (every command that prints an interval) and
``--pooling`` / ``--tau-method`` (commands that build a noise floor)."""

from __future__ import annotations

import click

#: ``--confidence``: strictly between 0 and 1 (click names the option and the range otherwise).
CONFIDENCE = click.FloatRange(0, 1, min_open=True, max_open=True)


def confidence_option(func=None, *, help: str = "Level of every interval and bound printed "
                                               "(0.90 gives 90% intervals)."):
    """``--confidence`` (default 0.95), a float strictly between 0 and 1."""
    def decorate(f):
        return click.option("--confidence", type=CONFIDENCE, default=0.95, show_default=True,
                            help=help)(f)
    return decorate if func is None else decorate(func)


def pooling_options(func):
    """``--pooling summed|random`` and ``--tau-method dl|pm`` for commands building a floor."""
    func = click.option(
        "--tau-method", type=click.Choice(["dl", "pm"]), default=None,
        help="With --pooling random: DerSimonian-Laird (dl, the default) or Paule-Mandel (pm) "
             "estimate of the between-seed variance.")(func)
    return click.option(
        "--pooling", type=click.Choice(["summed", "random"]), default="summed",
        show_default=True,
        help="How each null contrast is pooled over seeds: W/L/T counts summed (the paper's "
             "method), or the per-seed gaps pooled by random effects (for a gap that moves "
             "from seed to seed).")(func)


def tau_method_for(pooling: str, tau_method: str | None) -> str:
    """The library's ``tau_method``; ``--tau-method`` without ``--pooling random`` is a usage
    error (it would change nothing)."""
    if tau_method is not None and pooling != "random":
        raise click.UsageError("--tau-method goes with --pooling random (summed counts have "
                               "no tau estimator to choose)")
    return tau_method or "dl"
