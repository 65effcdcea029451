"""``docs/harness.md`` stays true: its task table, command examples, Python examples and the
example task of "Adding a task" are checked against the code."""

from __future__ import annotations

import doctest
import re
import shlex
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from harness.manifest import TASK_NAMES
from harness.registry import list_tasks
from noisefloor.cli.harness import harness

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "harness.md"


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def table_row(task) -> str:
    """The row of the task table: name, family, description, the conventions that differ."""
    conv = task.generate(0).conventions
    a, b = conv["a"], conv["b"]
    diff = "; ".join(f"{k}: {a.get(k)} / {b.get(k)}" for k in sorted(set(a) | set(b))
                     if a.get(k) != b.get(k))
    return f"| `{task.name}` | {task.family} | {task.description} | {diff} |"


def test_task_table_matches_the_registry():
    section = _text().split("## The tasks", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    expected = [table_row(t) for t in list_tasks()]
    missing = [row for row in expected if row not in rows]
    assert not missing, "rows to add or update in docs/harness.md:\n" + "\n".join(missing)
    assert rows == expected


def test_command_examples_print_what_the_doc_shows():
    blocks = re.findall(r"```\n\$ noisefloor harness (.+?)\n(.*?)```", _text(), flags=re.S)
    assert len(blocks) >= 2
    for command, shown in blocks:
        result = CliRunner().invoke(harness, shlex.split(command))
        assert result.exit_code == 0, result.output
        assert result.output.rstrip("\n") == shown.rstrip("\n"), command


def test_python_examples_run():
    result = doctest.testfile(str(DOC), module_relative=False, verbose=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0


def test_the_example_task_of_adding_a_task_works():
    section = _text().split("## Adding a task", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, flags=re.S)[1]
    code = "\n".join(line[3:] for line in code.splitlines())  # the block is indented 3 spaces
    name = re.search(r'name = "(\w+)"', code)[1]
    # in a separate interpreter, so registering the example leaves this process's registry alone
    probe = code + f"""
from harness.registry import get_task, list_tasks
task = get_task({name!r})
inst = task.generate(3)
assert task.grade(inst, task.oracle(inst)) == 1.0
assert task.grade(inst, task.solve_text(task.render(inst))) == 1.0
print(len(list_tasks()))
"""
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == len(TASK_NAMES) + 1
