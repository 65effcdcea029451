"""`noisefloor harness list/show` through click's CliRunner."""

from __future__ import annotations

from click.testing import CliRunner

from harness.base import OTHER_AGENT_PREFIX
from harness.registry import list_tasks
from noisefloor.cli.harness import harness


def test_list_names_every_task_with_family():
    result = CliRunner().invoke(harness, ["list"])
    assert result.exit_code == 0, result.output
    for task in list_tasks():
        line = next(ln for ln in result.output.splitlines() if ln.startswith(task.name + " "))
        assert task.family in line and task.description in line
    assert f"{len(list_tasks())} tasks" in result.output


def test_list_family_filter():
    result = CliRunner().invoke(harness, ["list", "--family", "spatial"])
    assert result.exit_code == 0
    assert "spatial_maze_halves" in result.output
    assert "relational" not in result.output.split("\n", 1)[1].split("tasks:")[0]


def test_show_prints_instance_views_oracle_and_score():
    result = CliRunner().invoke(harness, ["show", "spatial_key_door", "--seed", "4"])
    assert result.exit_code == 0, result.output
    out = result.output
    for heading in ("FULL INSTANCE", "PRIVATE VIEW OF AGENT a", "PRIVATE VIEW OF AGENT b",
                    "ORACLE ANSWER", "score: 1.000"):
        assert heading in out
    assert out.count(OTHER_AGENT_PREFIX) >= 2
    # the declared conventions are spelled out per view, then given as data
    assert "a: (column, row), 1-based, origin at the top-right corner" in out
    assert "b: (row, column), 0-based, origin at the top-right corner" in out
    assert 'as data: {"a": {"base": 1' in out
    assert CliRunner().invoke(harness, ["show", "spatial_key_door", "--seed", "4"]).output == out


def test_show_rejects_unknown_task_and_difficulty():
    bad = CliRunner().invoke(harness, ["show", "no_such_task", "--seed", "1"])
    assert bad.exit_code == 2 and "unknown task" in bad.output
    bad = CliRunner().invoke(harness, ["show", "spatial_one_way", "--seed", "1",
                                       "--difficulty", "5"])
    assert bad.exit_code == 2
