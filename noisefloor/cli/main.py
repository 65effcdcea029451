"""Entry point of the ``noisefloor`` command: the top-level click group.

Each command group lives in its own module of :mod:`noisefloor.cli`, listed in :data:`COMMANDS`
and imported when it runs.
"""

from __future__ import annotations

import importlib
import platform
from pathlib import Path

import click

import noisefloor
from noisefloor import __version__
from noisefloor.cli import HELP_OPTIONS
from noisefloor.extras import missing_extra_message

#: ``noisefloor --version``: the version and where this noisefloor is installed, so it can be
#: told apart from the unrelated registry project of the same name.
VERSION_MESSAGE = (
    f"%(prog)s %(version)s, installed at {str(Path(noisefloor.__file__).parent).replace('%', '%%')}"
    f" (Python {platform.python_version()}); the multi-agent LLM noise-floor toolkit"
)


#: Every command: its name, the module and object that define it, and the summary that
#: ``noisefloor --help`` shows. A command's module is imported only when that command runs (or
#: its own ``--help`` is asked for), so ``noisefloor --help`` loads neither pandas nor scipy.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "audit": ("noisefloor.cli.audit", "audit",
              "Place claimed gains below, inside or above the noise floor."),
    "floor": ("noisefloor.cli.floor", "floor",
              "The noise floor of LOG files, from their null contrasts."),
    "compare": ("noisefloor.cli.compare", "compare",
                "Is A better than B on these logs, or inside the noise floor?"),
    "contrast": ("noisefloor.cli.contrast", "contrast",
                 "Sign test, gap and Wilson-mapped CI of one contrast a-b."),
    "passk": ("noisefloor.cli.passk", "passk", "pass^k and pass@k of each configuration in LOG files."),
    "log": ("noisefloor.cli.log", "log", "Trial logs: the record schema and a strict validator."),
    "agreement": ("noisefloor.cli.agreement", "agreement",
                  "Inter-rater agreement per label: Fleiss' and Cohen's kappa, "
                  "Krippendorff's alpha, ICC."),
    "monitor": ("noisefloor.cli.monitor", "monitor",
                "Runtime alarms over LOG files, against a --baseline."),
    "store": ("noisefloor.cli.store", "store",
              "The task-scoped negative-knowledge store (ET-MCP substrate)."),
    "protocols": ("noisefloor.cli.protocols", "protocols",
                  "Run the coordination protocols on tau2-bench (the noise-floor experiment)."),
    "harness": ("noisefloor.cli.harness", "harness",
                "The collaboration-tax task suite: list tasks, show one."),
    "plan": ("noisefloor.cli.plan", "plan",
             "Sample size for a gain, or the MDE for n tasks."),
    "reruns-sim": ("noisefloor.cli.plan", "reruns_sim",
               "How often re-run contrasts look significant; a claim's SNR."),
    "tax": ("noisefloor.cli.tax", "tax",
            "Run the collaboration-tax suite; merge runs; report on them."),
    "leaderboard": ("noisefloor.cli.leaderboard", "leaderboard",
                    "tau2-bench leaderboard: entries, gaps between two, a re-runs floor."),
}


class _Root(click.Group):
    """The root group: commands load lazily (their error messages name options: see
    :func:`noisefloor.cli._common.error_text`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name not in COMMANDS:
            return None
        module_name, attr, summary = COMMANDS[cmd_name]
        try:
            command = getattr(importlib.import_module(module_name), attr)
        except ImportError as exc:  # a command of an extra that is not installed
            message = missing_extra_message(exc, f"{ctx.command_path} {cmd_name}")
            if message is None:
                raise
            raise click.ClickException(message) from None
        if not command.short_help:
            command.short_help = summary
        self.add_command(command, cmd_name)
        return command

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ImportError as exc:  # an optional package imported when the command ran
            sub = ctx.invoked_subcommand
            message = missing_extra_message(
                exc, ctx.command_path + (f" {sub}" if sub else ""))
            if message is None:
                raise
            raise click.ClickException(message) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The summaries come from COMMANDS, so listing them imports no command module.
        rows = [(name, COMMANDS[name][2] if name in COMMANDS and name not in self.commands
                 else (self.commands[name].get_short_help_str(formatter.width - 6)))
                for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=_Root, context_settings=HELP_OPTIONS)
@click.version_option(__version__, prog_name="noisefloor", message=VERSION_MESSAGE)
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Is a claimed multi-agent LLM gain real, or inside the run-to-run noise floor?"""
    from noisefloor.cli._common import clean_warnings

    # Every command: library warnings as clean ``warning: ...`` lines on stderr, once each.
    ctx.with_resource(clean_warnings())


if __name__ == "__main__":  # python -m noisefloor.cli.main
    cli(prog_name="noisefloor")
