"""Which reader a path needs: format names, automatic detection, directory expansion."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisefloor.logs.errors import LogProblem, LogValidationError
from noisefloor.logs.jsonparse import JSONProblem, parse_strict

__all__ = ["FORMATS", "detect_format", "expand_paths"]

#: Format names accepted by ``format=`` / ``--format``.
FORMATS = ("jsonl", "paper", "tau2", "tau-bench")

_MAX_DEPTH = 4


def _first_objects(path: Path, limit: int = 1 << 20, max_lines: int = 50) -> Iterator[Any]:
    """Decode up to ``max_lines`` non-blank lines (a malformed one yields its JSONProblem)."""
    with open(path, "rb") as handle:
        seen = 0
        while seen < max_lines:
            line = handle.readline(limit)
            if not line:
                return
            if seen == 0 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if not line.strip():
                continue
            seen += 1
            try:
                yield parse_strict(line.rstrip(b"\r\n"), allow_nan=True)
            except JSONProblem as exc:
                yield exc


def _first_byte(path: Path) -> bytes:
    with open(path, "rb") as handle:
        head = handle.read(4096)
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return head[:1]


def detect_format(path: str | Path) -> str:
    """Name the format of a log file or run directory.

    Rules, in order: a directory holding ``results.json``, or a file with a ``simulations/``
    directory beside it, is a tau2-bench run (``"tau2"``); a ``.json`` document starting with
    ``[`` is a tau-bench v1 list (``"tau-bench"``), one starting with ``{`` a tau2-bench
    ``results.json`` (``"tau2"``); otherwise the first decodable object among the first 50 non-blank lines decides: an object with
    ``schema_version`` is noisefloor's own JSONL (``"jsonl"``), one with ``protocol``,
    ``task_id`` and ``trial`` but no ``schema_version`` is the paper layout (``"paper"``).

    Raises
    ------
    LogValidationError
        The format cannot be told (the message says to pass ``format=``).

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, "gpt-4o-retail.json"), "w") as f:
    ...     _ = f.write('[{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": []}]')
    >>> detect_format(os.path.join(d, "gpt-4o-retail.json"))
    'tau-bench'
    >>> with open(os.path.join(d, "trials.jsonl"), "w") as f:
    ...     _ = f.write('{"protocol": "pull", "task_id": "3", "trial": 0, "reward": null}\\n')
    >>> detect_format(os.path.join(d, "trials.jsonl"))
    'paper'
    """
    path = Path(path)
    if path.is_dir():
        if (path / "results.json").is_file():
            return "tau2"
        raise LogValidationError([LogProblem(str(path), None, None,
                                             "a directory is not one log file", kind="format")])
    if path.name == "results.json" and (path.parent / "simulations").is_dir():
        return "tau2"
    if path.suffix.lower() == ".json":
        first = _first_byte(path)
        if first == b"[":
            return "tau-bench"
        if first == b"{":
            return "tau2"
    any_line = False
    first_problem = None
    for obj in _first_objects(path):
        any_line = True
        if isinstance(obj, JSONProblem):
            first_problem = first_problem or obj
            continue
        if isinstance(obj, dict):
            if "schema_version" in obj:
                return "jsonl"
            if {"protocol", "task_id", "trial"} <= obj.keys():
                return "paper"
            break
    if not any_line:
        raise LogValidationError([LogProblem(str(path), None, None,
                                             "empty file: no record to tell its format",
                                             kind="format")])
    why = f" (the first unreadable line: {first_problem})" if first_problem is not None else ""
    raise LogValidationError([LogProblem(
        str(path), None, None,
        f"cannot tell the log format from its first records{why}; pass format= (--format on the "
        "command line) one of " + ", ".join(FORMATS), kind="format")])


def expand_paths(paths: str | Path | list[str | Path] | tuple[str | Path, ...]) -> list[Path]:
    """Expand directories into the log files (or tau2 run directories) they hold, sorted.

    A directory holding ``results.json`` is one tau2-bench run; otherwise its ``*.jsonl`` and
    ``*.json`` files and, recursively, its subdirectories (per-protocol folders, run folders)
    are taken. A ``simulations`` folder outside a tau2 run is not read.

    Raises
    ------
    LogValidationError
        A path does not exist, a directory holds no log file, or one file is reached twice.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)) or not paths:
        raise ValueError(f"paths must be a path or a non-empty list of paths, got {paths!r}")
    out: list[Path] = []
    problems = []
    for item in paths:
        path = Path(item)
        if not path.exists():
            problems.append(LogProblem(str(path), None, None, "no such file or directory",
                                       kind="io"))
            continue
        found = _expand(path, 0) if path.is_dir() else [path]
        if not found:
            problems.append(LogProblem(str(path), None, None,
                                       "directory holds no .jsonl/.json log", kind="io"))
        out.extend(found)
    # One file reached twice (given twice, or given and also inside a given directory) would
    # make every record a duplicate of itself: name the repetition instead.
    seen: dict[Path, Path] = {}
    for path in out:
        first = seen.setdefault(_run_identity(path), path)
        if first is not path:
            problems.append(LogProblem(
                str(path), None, None,
                f"this log is read twice (also as {first}); give each file or directory once",
                kind="io"))
    if problems:
        raise LogValidationError(problems)
    return out


def _run_identity(path: Path) -> Path:
    """What a path reads: a tau2 run directory and its ``results.json`` read the same run."""
    resolved = path.resolve()
    if resolved.name == "results.json" and (resolved.parent / "simulations").is_dir():
        return resolved.parent
    if resolved.is_dir() and (resolved / "results.json").is_file():
        return resolved
    return resolved


def _expand(directory: Path, depth: int) -> list[Path]:
    if (directory / "results.json").is_file():
        return [directory]
    if depth >= _MAX_DEPTH:
        return []
    found: list[Path] = []
    for entry in sorted(directory.iterdir()):
        if entry.is_dir():
            if entry.name != "simulations":
                found.extend(_expand(entry, depth + 1))
        elif entry.suffix.lower() in (".jsonl", ".json"):
            found.append(entry)
    return found
