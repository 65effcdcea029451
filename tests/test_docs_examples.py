"""Every terminal example in README.md and docs/*.md is executed and its output compared.

A fenced code block whose first line starts with ``$ `` is a terminal session: each ``$ ``
line is a command, and the lines up to the next ``$ `` line are its expected output (stdout
and stderr together, as a terminal shows them). A line ``...`` (or ``...`` inside a line)
matches anything, as doctest's ELLIPSIS option does; trailing white space is ignored.

Commands run in a fresh folder per document, laid out as a clone is (``fixtures/``,
``notebooks/``, ``docs/``, ``benchmarks/`` and ``tests/`` of this repository, and ``../shared``
beside it), so the relative
paths the examples use resolve as they do for a user. A block preceded by the comment
``<!-- file: NAME -->`` is written to ``NAME`` in that folder before the sessions after it run
(the small input files the examples talk about). A session preceded by ``<!-- background -->``
starts each of its commands in the background (a server the later examples talk to): its first
output lines are compared as they arrive, and it is stopped when the document ends. A background
command's ``--port N`` is run as ``--port 0`` (the OS picks a free port, so several test runs can
share a machine); the server prints its URL, and the port it got replaces ``:N`` in every later
command and file of the document, and back to ``:N`` in the output compared. A plain
``noisefloor ...`` command runs in process through click's test runner; anything with shell
syntax (pipes, redirections, ``$?``) runs under bash with ``noisefloor`` on the PATH running this
checkout, except ``noisefloor ARGS | COMMAND`` and ``noisefloor ARGS > FILE``: the ``noisefloor``
part runs in process too (its stdout piped into ``COMMAND`` under bash, or written to ``FILE``;
its stderr shown first), which prints what the pipeline prints without a fresh interpreter
importing the libraries again for each example. For the same reason ``python -c CODE`` with no
shell syntax outside its quotes runs ``CODE`` in process, as the interpreter would run it: a
namespace named ``__main__``, ``sys.argv`` of ``-c``, stdout and stderr captured together, the
interpreter's default warning filters and an uncaught exception printed as a traceback (exit
status 1). A ``pycon`` block (``>>>`` prompts) runs as a
doctest in the same folder.

``tests/logs/make_inspect_logs.py`` (run by an example of ``docs/logs.md``) writes the inspect_ai
logs once per test session and copies them for each later run (``MAKE_INSPECT_LOGS_SHARED``, see
that script): the log tests' fixture writes the same logs.
"""

from __future__ import annotations

import builtins
import contextlib
import doctest
import io
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DOCS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
_FILE_COMMENT = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->\s*$")
_BACKGROUND_COMMENT = re.compile(r"^<!--\s*background\s*-->\s*$")
_SHELL_SYNTAX = re.compile(r"[|<>;&$`()*?]")


@dataclass
class Command:
    line: int
    command: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    line: int
    file_name: str | None = None
    content: str = ""
    commands: list[Command] = field(default_factory=list)
    background: bool = False
    doctest: str = ""


def parse_markdown(text: str) -> list[Block]:
    """Split a Markdown text into file blocks and terminal sessions, in document order."""
    blocks: list[Block] = []
    lines = text.splitlines()
    pending_file: str | None = None
    pending_background = False
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _FILE_COMMENT.match(line.strip())
        if match:
            pending_file = match.group(1)
            i += 1
            continue
        if _BACKGROUND_COMMENT.match(line.strip()):
            pending_background = True
            i += 1
            continue
        if line.startswith("```"):
            fence = line[: len(line) - len(line.lstrip("`"))]
            start = i
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].startswith(fence):
                body.append(lines[i])
                i += 1
            i += 1  # closing fence
            if pending_file is not None:
                blocks.append(Block(start + 1, file_name=pending_file,
                                    content="\n".join(body) + "\n"))
                pending_file = None
            elif line.strip() == "```pycon":
                blocks.append(Block(start + 1, doctest="\n".join(body) + "\n"))
            elif body and body[0].startswith("$ "):
                block = Block(start + 1, background=pending_background)
                continued = False
                for offset, row in enumerate(body):
                    if continued:  # a command continued with a trailing backslash
                        block.commands[-1].command += "\n" + row
                    elif row.startswith("$ "):
                        block.commands.append(Command(start + 2 + offset, row[2:]))
                    else:
                        block.commands[-1].expected.append(row)
                    continued = (row.startswith("$ ") or continued) and row.endswith("\\")
                blocks.append(block)
            pending_background = False
            continue
        if line.strip() and not line.strip().startswith("<!--"):
            pending_file, pending_background = None, False
        i += 1
    return blocks


def _layout(tmp: Path) -> Path:
    """A folder laid out like a clone with ``shared/`` beside it; returns the clone's root."""
    root = tmp / "clone"
    root.mkdir()
    for name in ("fixtures", "notebooks", "docs", "benchmarks", "tests"):
        if (REPO / name).exists():
            (root / name).symlink_to(REPO / name)
    if SHARED.exists():
        (tmp / "shared").symlink_to(SHARED)
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "noisefloor"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m noisefloor "$@"\n')
    shim.chmod(0o755)
    return root


def _shared_inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's folder of inspect_ai logs (``shared_inspect_logs`` of tests/logs/conftest.py)."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "inspect-logs"


def _invoke(args: list[str]):
    from noisefloor.cli.main import cli

    return CliRunner().invoke(cli, args, prog_name="noisefloor", catch_exceptions=False)


def _run_in_process(args: list[str]) -> tuple[str, int]:
    result = _invoke(args)
    return result.output, result.exit_code


def _shell_env(cwd: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{cwd.parent / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("NOISEFLOOR_TRACEBACK", None)
    return env


def start_background(command: str, cwd: Path, n_lines: int,
                     timeout: float = 120.0) -> tuple[subprocess.Popen, str]:
    """Start ``command`` under bash; return it and its first ``n_lines`` lines of output."""
    proc = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=cwd, env=_shell_env(cwd),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while len(lines) < n_lines and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        row = proc.stdout.readline()
        if not row:
            break
        lines.append(row)
    return proc, "".join(lines)


_PORT_OPTION = re.compile(r"--port[ =](\d+)")
_URL_PORT = re.compile(r"https?://[\w.\-]+:(\d+)")


def free_port_command(command: str) -> tuple[str, str | None]:
    """``command`` with a fixed ``--port N`` replaced by ``--port 0``; returns it and ``N``."""
    match = _PORT_OPTION.search(command)
    if match is None or match.group(1) == "0":
        return command, None
    return command[:match.start()] + "--port 0" + command[match.end():], match.group(1)


class PortMap:
    """Documented ports and the ports the OS gave their servers in this run."""

    def __init__(self) -> None:
        self.ports: dict[str, str] = {}

    def learn(self, documented: str | None, output: str) -> None:
        match = _URL_PORT.search(output)
        if documented is not None and match is not None:
            self.ports[documented] = match.group(1)

    def to_actual(self, text: str) -> str:
        for documented, actual in self.ports.items():
            text = re.sub(rf":{documented}\b", f":{actual}", text)
        return text

    def to_documented(self, text: str) -> str:
        for documented, actual in self.ports.items():
            text = re.sub(rf":{actual}\b", f":{documented}", text)
        return text


def _run_shell(command: str, cwd: Path, last_status: int) -> tuple[str, int]:
    env = _shell_env(cwd)
    proc = subprocess.run(["bash", "-c", f"(exit {last_status}); {command}"], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300)
    return proc.stdout, proc.returncode


#: ``noisefloor ARGS | COMMAND`` or ``noisefloor ARGS > FILE``, ARGS without shell syntax.
_PIPED = re.compile(r"^noisefloor ([^|<>;&$`()*?#]+?)\s*(?:\|\s*(\S.*)|>\s*([\w.\-/]+))\s*$")


def _run_piped(command: str, cwd: Path) -> tuple[str, int] | None:
    """``noisefloor ARGS | COMMAND`` with the ``noisefloor`` part in process (its stdout into
    ``COMMAND`` under bash), or ``noisefloor ARGS > FILE``; None for any other command."""
    match = _PIPED.match(command)
    if match is None:
        return None
    args, consumer, target = match.groups()
    result = _invoke(shlex.split(args))
    if target is not None:
        (cwd / target).write_text(result.stdout, encoding="utf-8")
        return result.stderr, result.exit_code
    proc = subprocess.run(["bash", "-c", consumer], cwd=cwd, env=_shell_env(cwd),
                          input=result.stdout, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    return result.stderr + proc.stdout, proc.returncode


#: a quoted word bash and shlex read alike (no expansion, no escape inside the double quotes)
_QUOTED = re.compile(r"'[^']*'|\"[^\"$`\\]*\"")
_PLAIN_WORDS = re.compile(r"[\w\s./=,:@%+-]*")


def python_code(command: str) -> list[str] | None:
    """``CODE`` and its arguments of ``python -c CODE [ARG...]`` without shell syntax outside
    its quotes; None for any other command."""
    if not _PLAIN_WORDS.fullmatch(_QUOTED.sub("", command)):
        return None
    words = shlex.split(command)
    if len(words) < 3 or words[0] not in ("python", "python3") or words[1] != "-c":
        return None
    return words[2:]


def _run_python_code(code: str, args: list[str]) -> tuple[str, int]:
    """Run ``python -c CODE ARGS`` in process; returns (stdout and stderr, exit status)."""
    out = io.StringIO()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        out.write(warnings.formatwarning(message, category, filename, lineno, line))

    status = 0
    saved_argv = sys.argv
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
            warnings.catch_warnings():
        # the interpreter's filters when neither -W nor PYTHONWARNINGS is given
        warnings.resetwarnings()
        warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                         ResourceWarning):
            warnings.filterwarnings("ignore", category=category, append=True)
        warnings.showwarning = show
        sys.argv = ["-c", *args]
        try:
            exec(compile(code, "<string>", "exec"), {"__name__": "__main__",
                                                     "__builtins__": builtins})
        except SystemExit as exit_:
            if exit_.code is None or isinstance(exit_.code, int):
                status = exit_.code or 0
            else:
                out.write(f"{exit_.code}\n")
                status = 1
        except Exception as exc:
            # the traceback from the code's own frames, as the interpreter prints it
            traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next, file=out)
            status = 1
        finally:
            sys.argv = saved_argv
            sys.stdout.flush()
    return out.getvalue(), status


def run_command(command: str, cwd: Path, last_status: int) -> tuple[str, int]:
    """Run one example command; returns (output, exit status)."""
    command = command.replace("\\\n", " ")  # continuation lines
    words = shlex.split(command, comments=True)
    plain = words and words[0] == "noisefloor" and not _SHELL_SYNTAX.search(
        command.split("#", 1)[0])
    if plain:
        return _run_in_process(words[1:])
    piped = _run_piped(command, cwd)
    if piped is not None:
        return piped
    code = python_code(command)
    if code is not None:
        return _run_python_code(code[0], code[1:])
    return _run_shell(command, cwd, last_status)


def _run_doctest(text: str, where: str) -> list[str]:
    """Run a ``pycon`` block as a doctest; returns the failure reports."""
    import io

    test = doctest.DocTestParser().get_doctest(text, {}, where, where, 0)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=out.write)
    return [out.getvalue()] if runner.failures else []


def _normalise(lines: list[str]) -> str:
    rows = [row.rstrip() for row in lines]
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows) + "\n"


def _matches(expected: str, got: str) -> bool:
    return doctest.OutputChecker().check_output(expected, got, doctest.ELLIPSIS)


def test_parser_reads_sessions_and_files():
    text = (
        "intro\n<!-- file: a.csv -->\n```csv\nx,y\n1,2\n```\n\n"
        "```\n$ noisefloor one\nout 1\n...\n$ echo $?\n0\n```\n"
        "```python\nprint(1)\n```\n"
    )
    blocks = parse_markdown(text)
    assert [b.file_name for b in blocks] == ["a.csv", None]
    assert blocks[0].content == "x,y\n1,2\n"
    assert [(c.command, c.expected) for c in blocks[1].commands] == [
        ("noisefloor one", ["out 1", "..."]), ("echo $?", ["0"])]
    assert not blocks[1].background
    multi = parse_markdown("```\n$ noisefloor a \\\n    --b 1\nout\n```\n")
    assert [(c.command, c.expected) for c in multi[0].commands] == [
        ("noisefloor a \\\n    --b 1", ["out"])]
    bg = parse_markdown("<!-- background -->\n```\n$ server --port 1\nlistening\n```\n")
    assert bg[0].background and bg[0].commands[0].expected == ["listening"]
    assert _matches(_normalise(["out 1", "..."]), "out 1\nmore\nlines\n")
    assert not _matches(_normalise(["out 2"]), "out 1\n")


def test_background_ports_come_from_the_os():
    command, documented = free_port_command("python -m server --port 8767 --tasks a")
    assert (command, documented) == ("python -m server --port 0 --tasks a", "8767")
    assert free_port_command("python -m server --port 0") == ("python -m server --port 0", None)
    ports = PortMap()
    ports.learn(documented, "http://127.0.0.1:41234/v1\n")
    assert ports.to_actual("--base-url http://127.0.0.1:8767/v1 http://localhost:8767/v1") == (
        "--base-url http://127.0.0.1:41234/v1 http://localhost:41234/v1")
    assert ports.to_documented('"base_url": "http://127.0.0.1:41234/v1"') == (
        '"base_url": "http://127.0.0.1:8767/v1"')
    assert ports.to_actual("port :87670 stays") == "port :87670 stays"


def test_noisefloor_pipelines_and_redirections_run_in_process():
    assert _PIPED.match("noisefloor audit --no-plot | head -n 4").groups() == (
        "audit --no-plot", "head -n 4", None)
    assert _PIPED.match("noisefloor monitor a.jsonl --json > m.json").groups() == (
        "monitor a.jsonl --json", None, "m.json")
    # a server reading its stdin, a redirected stderr, a second command: bash runs them
    for command in ("noisefloor store serve --db s.db < r.jsonl 2>/dev/null | grep -v x",
                    "noisefloor audit 2>/dev/null | head", "noisefloor audit; echo $?",
                    "python -m noisefloor audit | head"):
        assert _PIPED.match(command) is None, command


def test_python_code_runs_in_process_as_the_interpreter_runs_it(tmp_path):
    assert python_code("python -c 'print(1); print(2)' a b") == ["print(1); print(2)", "a", "b"]
    assert python_code('python -c "import json; print([1][0])"') == [
        "import json; print([1][0])"]
    # pipes, redirections, expansions and escapes: bash runs them
    for command in ("python -c 'print(1)' > out.txt", "python -c 'print(1)' | head",
                    'python -c "print(\'$HOME\')"', 'python -c "print(\\"x\\")"',
                    "python -c 'print(1)'; echo $?", "python tests/x.py", "python -m json.tool",
                    "python -c 'print(1)' *.txt"):
        assert python_code(command) is None, command
    snippets = [
        "import sys; print(sys.argv); print('to stderr', file=sys.stderr)",
        "import warnings; warnings.warn('careful'); warnings.warn('careful'); print('after')",
        "import warnings; warnings.warn('old', DeprecationWarning); print('shown in __main__')",
        "import sys; print('out'); sys.exit(3)",
        "import sys; sys.exit('a message')",
        "print('before'); {}['missing']",
    ]
    # unbuffered, the order of stdout and stderr lines a terminal shows
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("PYTHONWARNINGS", None)
    for code in snippets:
        real = subprocess.run([sys.executable, "-c", code, "x"], cwd=tmp_path, text=True, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert _run_python_code(code, ["x"]) == (real.stdout, real.returncode), code


@pytest.mark.parametrize("doc", DOCS, ids=[str(p.relative_to(REPO)) for p in DOCS])
def test_examples_run_as_shown(doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               tmp_path_factory: pytest.TempPathFactory):
    blocks = parse_markdown(doc.read_text(encoding="utf-8"))
    sessions = [b for b in blocks if b.commands or b.doctest]
    if not sessions:
        pytest.skip(f"{doc.name} has no terminal example")
    if not SHARED.exists():
        pytest.fail("shared data not found: the examples read ../shared/data beside the clone")
    root = _layout(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("MAKE_INSPECT_LOGS_SHARED", str(_shared_inspect_logs(tmp_path_factory)))
    failures: list[str] = []
    status = 0
    servers: list[subprocess.Popen] = []
    ports = PortMap()
    try:
        for block in blocks:
            if block.file_name is not None:
                target = root / block.file_name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(ports.to_actual(block.content), encoding="utf-8")
                continue
            if block.doctest:
                failures += _run_doctest(ports.to_actual(block.doctest),
                                         f"{doc.relative_to(REPO)}:{block.line}")
                continue
            for cmd in block.commands:
                if block.background:
                    want_lines = [row for row in cmd.expected if row.strip()]
                    command, documented = free_port_command(cmd.command)
                    proc, got = start_background(command, root, len(want_lines))
                    servers.append(proc)
                    ports.learn(documented, got)
                else:
                    got, status = run_command(ports.to_actual(cmd.command), root, status)
                got = ports.to_documented(got)
                want = _normalise(cmd.expected)
                got_norm = _normalise(got.splitlines())
                if not _matches(want, got_norm):
                    failures.append(f"{doc.relative_to(REPO)}:{cmd.line}: $ {cmd.command}\n"
                                    f"--- expected\n{want}--- got\n{got_norm}")
    finally:
        for proc in servers:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    assert not failures, "\n\n".join(failures)
