"""Entry point of the ``noisefloor`` command: the top-level click group.

Each command group lives in its own module of :mod:`noisefloor.cli` and is attached here.
"""

from __future__ import annotations

import click

from noisefloor import __version__
from noisefloor.cli._common import clean_warnings, cli_message


class _Root(click.Group):
    """The root group: error messages of every command name options, not Python keywords."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            if not isinstance(exc, click.UsageError):
                exc.message = cli_message(exc.message, self._options(ctx))
            raise

    def _options(self, ctx: click.Context) -> set[str]:
        # The long options of the command that ran (of any subcommand, for a group).
        command = self.commands.get(ctx.invoked_subcommand or "")
        stack, options = [command] if command is not None else [], set()
        while stack:
            cmd = stack.pop()
            options.update(o for p in cmd.params for o in getattr(p, "opts", ())
                           if o.startswith("--"))
            stack.extend(getattr(cmd, "commands", {}).values())
        return options


@click.group(cls=_Root, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="noisefloor")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Is a claimed multi-agent LLM gain real, or inside the run-to-run noise floor?"""
    # Every command: library warnings as clean ``warning: ...`` lines on stderr, once each.
    ctx.with_resource(clean_warnings())


def _attach() -> None:
    # One line per command module; each module exposes the click object(s) it defines.
    from noisefloor.cli import audit, contrast, floor, log, passk

    cli.add_command(audit.audit)
    cli.add_command(floor.floor)
    cli.add_command(contrast.contrast)
    cli.add_command(passk.passk)
    cli.add_command(log.log)
    from noisefloor.cli import agreement  # issue 3
    cli.add_command(agreement.agreement)
    from noisefloor.cli import monitor  # issue 5 (runtime alarms)
    cli.add_command(monitor.monitor)
    from noisefloor.cli import store  # issue 5 (store)
    cli.add_command(store.store)
    from noisefloor.cli import harness as harness_cli  # issue 4 (harness)
    cli.add_command(harness_cli.harness)
    from noisefloor.cli import tax  # issue 8 (collaboration-tax runner)
    cli.add_command(tax.tax)
    # Summaries in ``noisefloor --help`` must fit (click cuts a long first sentence mid-way);
    # commands defined elsewhere without a short_help get one here.
    for name, summary in _SUMMARIES.items():
        command = cli.commands.get(name)
        if command is not None and not command.short_help:
            command.short_help = summary


_SUMMARIES = {
    "audit": "Place claimed gains below, inside or above the noise floor.",
    "floor": "The noise floor of LOG files, from their null contrasts.",
    "contrast": "Sign test, gap and Wilson-mapped CI of one contrast a-b.",
}


_attach()

if __name__ == "__main__":  # python -m noisefloor.cli.main
    cli(prog_name="noisefloor")
