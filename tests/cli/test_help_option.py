"""Every command answers -h, however it was first invoked in the process."""

from __future__ import annotations

import click
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.cli.store import store as store_group


def _commands(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, ctx, (*path, name))


def test_every_command_declares_the_short_help_option():
    ctx = click.Context(cli)
    seen = list(_commands(cli, ctx))
    assert len(seen) >= 20
    for path, command in seen:
        assert command.context_settings.get("help_option_names") == ["-h", "--help"], path


def test_a_group_invoked_directly_first_still_shows_h_through_the_root():
    # click caches a command's help option on its first use; a direct call of the group (as a
    # Python caller or a test makes) must not take -h away from `noisefloor store --help` later
    assert CliRunner().invoke(store_group, ["-h"]).exit_code == 0
    out = CliRunner().invoke(cli, ["store", "--help"]).output
    assert "-h, --help" in out
