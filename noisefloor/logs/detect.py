"""Which reader a path needs: format names, automatic detection, directory expansion."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisefloor.logs.errors import LogProblem, LogValidationError
from noisefloor.logs.jsonparse import JSONProblem, parse_strict

__all__ = ["FORMATS", "detect_format", "expand_paths"]

#: Format names accepted by ``format=`` / ``--format``.
FORMATS = ("jsonl", "paper", "tau2", "tau-bench")

_MAX_DEPTH = 4

#: What each readable format holds, for the "not a recognised trial log" message.
FORMAT_NEEDS = (
    "one of: a tau2-bench results.json (an object with 'info' and 'simulations' or 'tasks') "
    "or its run directory; tau-bench results (an array of objects with task_id and reward); "
    "noisefloor JSONL (lines with schema_version); the paper layout (JSONL lines with "
    "protocol, task_id and trial)"
)

#: Top-level keys of a tau2-bench ``Results`` (``src/tau2/data_model/simulation.py``): ``info``
#: plus the simulations (json layout), or the tasks and ``simulation_index`` (dir layout).
_TAU2_RUN_KEYS = frozenset({"simulations", "tasks", "simulation_index"})
_TAU_BENCH_KEYS = frozenset({"task_id", "reward"})
#: Keys that mark noisefloor's own trial records (or the paper layout's lines), which also carry
#: task_id and reward: saved as one JSON array they are not a tau-bench list, whose reader would
#: drop their seed, labels, infrastructure flag and coordination fields.
_NATIVE_KEYS = ("schema_version", "protocol")
_NATIVE_ARRAY = ("a JSON array of noisefloor trial records (it has {key!r}): write them one object "
                 "per line (JSONL), which noisefloor reads as is; a tau-bench list has no {key!r}")
_HEAD = 1 << 20
_KEY = r'"{}"\s*:'


def _describe_keys(keys: list[str]) -> str:
    if not keys:
        return "an empty JSON object"
    shown = ", ".join(map(repr, keys[:5])) + (", ..." if len(keys) > 5 else "")
    return f"a JSON object with keys {shown}"


def _json_document_format(path: Path, first: bytes) -> tuple[str | None, str]:
    """``(format or None, what the document is)`` for a ``.json`` file starting with ``{`` or
    ``[``, from its top-level keys (or its first element's).

    A file up to 1 MiB is decoded whole; a larger one is judged from the keys in its first
    MiB (tau2-bench writes ``info`` before ``tasks`` and ``simulations``; each tau-bench entry
    starts with ``task_id`` or holds it in its first lines); the reader checks it exactly.
    """
    with open(path, "rb") as handle:
        head = handle.read(_HEAD + 1)
    head = head.removeprefix(b"\xef\xbb\xbf")
    text = head[:_HEAD].decode("utf-8", errors="replace")
    if len(head) <= _HEAD:
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError) as exc:
            # Not valid JSON: judge by the keys seen, so a broken run still gets the tau2 or
            # tau-bench reader (which names line and column); anything else is not recognised.
            reason = f"not valid JSON ({exc.__class__.__name__}: {exc})"
        else:
            if isinstance(doc, dict):
                if "info" in doc and _TAU2_RUN_KEYS & doc.keys():
                    return "tau2", ""
                return None, _describe_keys(list(doc))
            if isinstance(doc, list):
                native = [k for k in _NATIVE_KEYS
                          if any(isinstance(x, dict) and k in x for x in doc)]
                if native:
                    return None, _NATIVE_ARRAY.format(key=native[0])
                if not doc or (isinstance(doc[0], dict) and _TAU_BENCH_KEYS <= doc[0].keys()):
                    return "tau-bench", ""
                what = (_describe_keys(list(doc[0]))
                        if isinstance(doc[0], dict) else f"a JSON {type(doc[0]).__name__}")
                return None, f"a JSON array whose first element is {what}"
            return None, f"a JSON {type(doc).__name__}"
    else:
        reason = "a JSON document"
    if first == b"{":
        if re.search(_KEY.format("info"), text) and any(
                re.search(_KEY.format(k), text) for k in _TAU2_RUN_KEYS):
            return "tau2", ""
        return None, f"{reason} without tau2-bench's 'info' and 'simulations'/'tasks' keys"
    # only schema_version here: a big tau-bench list may hold "protocol" inside its trajectories
    native = [k for k in ("schema_version",) if re.search(_KEY.format(k), text)]
    if native:
        return None, _NATIVE_ARRAY.format(key=native[0])
    if all(re.search(_KEY.format(k), text) for k in _TAU_BENCH_KEYS):
        return "tau-bench", ""
    return None, f"{reason} (an array) without tau-bench's task_id and reward keys"


def not_a_log(path: str | Path, received: str) -> LogProblem:
    """The problem reported for a file that no reader recognises."""
    return LogProblem(str(path), None, None,
                      "not a recognised trial log",
                      FORMAT_NEEDS + " (or name the format with format= (--format) to force "
                      "its reader)", received, kind="format")


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
    directory beside it, is a tau2-bench run (``"tau2"``); a ``.json`` document that is an
    object with tau2-bench's top-level keys (``info`` and ``simulations``, ``tasks`` or
    ``simulation_index``) is a tau2-bench ``results.json`` (``"tau2"``), an array of objects
    with ``task_id`` and ``reward`` (or an empty array) a tau-bench v1 list
    (``"tau-bench"``); otherwise the first decodable object among the first 50 non-blank
    lines decides: an object with ``schema_version`` is noisefloor's own JSONL (``"jsonl"``),
    one with ``protocol``, ``task_id`` and ``trial`` but no ``schema_version`` is the paper
    layout (``"paper"``).

    Raises
    ------
    LogValidationError
        The file is not a recognised trial log (any other JSON document or line, an empty
        file); the message names the file and what each format needs.

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
    >>> with open(os.path.join(d, "split.json"), "w") as f:
    ...     _ = f.write('{"train": ["0", "1"], "test": ["2"]}')
    >>> detect_format(os.path.join(d, "split.json"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    noisefloor.logs.errors.LogValidationError: .../split.json: not a recognised trial log ... received a JSON object with keys 'train', 'test')
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
        if first in (b"[", b"{"):
            fmt, what = _json_document_format(path, first)
            if fmt is not None:
                return fmt
            if not what.startswith("not valid JSON"):
                raise LogValidationError([not_a_log(path, what)])
            # Not one JSON document: perhaps JSON lines saved as .json; the lines decide.
    any_line = False
    first_problem = None
    first_object = None
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
            first_object = obj
            break
    if not any_line:
        raise LogValidationError([LogProblem(str(path), None, None,
                                             "empty file: no record to tell its format",
                                             kind="format")])
    if first_object is not None:
        received = "lines holding " + _describe_keys(list(first_object)).replace(
            "a JSON object", "JSON objects", 1)
    elif first_problem is not None:
        received = f"no decodable line among the first 50 (the first: {first_problem})"
    else:
        received = "lines that are not JSON objects"
    raise LogValidationError([not_a_log(path, received)])


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
