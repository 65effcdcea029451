"""``noisefloor harness``: list the collaboration-tax tasks and show one instance.

Thin layer over :mod:`harness.registry`; no task logic lives here.
"""

from __future__ import annotations

import json

import click

from harness.base import DEFAULT_DIFFICULTY, DIFFICULTIES, FAMILIES
from noisefloor.cli._common import HELP_OPTIONS


@click.group("harness", short_help="The collaboration-tax task suite: list tasks, show one.", context_settings=HELP_OPTIONS)
def harness() -> None:
    """The collaboration-tax task suite (split-view tasks with deterministic graders)."""


@harness.command("list", context_settings=HELP_OPTIONS)
@click.option("--family", type=click.Choice(FAMILIES), default=None, help="Only this family.")
def list_cmd(family: str | None) -> None:
    """Every registered task with its family and a one-line description."""
    from harness.registry import list_tasks

    tasks = list_tasks(family)
    width = max((len(t.name) for t in tasks), default=4)
    click.echo(f"{'task':<{width}}  {'family':<10}  description")
    for t in tasks:
        click.echo(f"{t.name:<{width}}  {t.family:<10}  {t.description}")
    counts = {f: sum(t.family == f for t in tasks) for f in FAMILIES}
    click.echo(f"{len(tasks)} tasks: " + ", ".join(f"{n} {f}" for f, n in counts.items() if n))


@harness.command("show", short_help="One instance: both agents' prompts, the oracle answer.", context_settings=HELP_OPTIONS)
@click.argument("task_name", metavar="TASK")
@click.option("--seed", type=int, required=True, help="Seed of the instance.")
@click.option("--difficulty", type=click.Choice([str(d) for d in DIFFICULTIES]),
              default=str(DEFAULT_DIFFICULTY), show_default=True,
              help="Instance size. 0: smaller (6x6 maps with fewer walls, fewer people, items "
                   "and queries; the 4x4 sudoku keeps redundant givens; whole-hour time zones). "
                   "1: standard (8x8 maps; time zones whose offset changes with daylight "
                   "saving). 2: larger (10x10 maps with more walls, more entities, constraints "
                   "and queries; half-hour time zones).")
def show(task_name: str, seed: int, difficulty: str) -> None:
    """The full instance, both private views as each agent reads them, the oracle answer and
    its score."""
    from harness.registry import get_task

    try:
        task = get_task(task_name)
    except KeyError as exc:
        raise click.BadParameter(str(exc.args[0]), param_hint="TASK") from None
    inst = task.generate(seed, int(difficulty))
    view_a, view_b = task.split(inst)
    answer = task.oracle(inst)
    rule = "=" * 72
    click.echo(f"{rule}\n{task.name} ({task.family}) seed={seed} difficulty={difficulty}")
    click.echo(task.description)
    click.echo(f"{rule}\nFULL INSTANCE (what the solo control reads)\n{rule}")
    click.echo(task.render(inst))
    click.echo(f"{rule}\nDECLARED CONVENTIONS OF THE VIEWS (metadata, shown to no agent)\n{rule}")
    for line in task.describe_conventions(inst):
        click.echo(line)
    click.echo("as data: " + json.dumps(inst.conventions, sort_keys=True))
    for view in (view_a, view_b):
        click.echo(f"{rule}\nPRIVATE VIEW OF AGENT {view.agent} (its whole prompt)\n{rule}")
        click.echo(task.agent_prompt(view))
    click.echo(f"{rule}\nORACLE ANSWER\n{rule}")
    click.echo(task.format_answer(answer))
    click.echo(f"score: {task.grade(inst, answer):.3f}")
