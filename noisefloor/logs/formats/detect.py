"""Which reader a path needs: format names, automatic detection, directory expansion."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from noisefloor.logs.formats.files import regular_file_problem, stat_problem
from noisefloor.logs.formats.harbor import harbor_kind
from noisefloor.logs.formats.inspect import ZIP_MAGIC, inspect_manifest, is_inspect_document
from noisefloor.logs.formats.terminalbench import is_terminal_bench_run, is_terminal_bench_trial
from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_strict
from noisefloor.logs.jsonl.lines import MAX_LINE_BYTES
from noisefloor.logs.records.errors import LogProblem, LogValidationError
from noisefloor.stats.validation import literal

__all__ = ["FORMATS", "LOG_SUFFIXES", "describe_file", "detect_format", "expand_paths",
           "walk_paths"]

#: Format names accepted by ``format=`` / ``--format``.
FORMATS = ("jsonl", "paper", "tau2", "tau-bench", "inspect") + ("terminal-bench", "harbor")

#: File name endings taken from a directory (inspect_ai writes ``.eval`` and ``.json``).
LOG_SUFFIXES = (".jsonl", ".json", ".eval")

#: What each readable format holds, for the "not a recognised trial log" message.
FORMAT_NEEDS = (
    "one of: a tau2-bench results.json (an object with 'info' and 'simulations' or 'tasks') "
    "or its run directory, or an array of its simulations; tau-bench results (an array of "
    "objects with task_id and reward); an inspect_ai log (.eval archive, or .json with "
    "'version' and 'eval'); "
    "a Terminal-Bench results.json (an object whose 'results' hold trial_name, task_id and "
    "is_resolved) or its run folder; a Harbor job folder or trial result.json (task_name, "
    "trial_name, config, agent_info); "
    "noisefloor JSONL (lines with schema_version); the paper layout (JSONL lines with "
    "protocol, task_id and trial)"
)

#: Top-level keys of a tau2-bench ``Results`` (``src/tau2/data_model/simulation.py``): ``info``
#: plus the simulations (json layout), or the tasks and ``simulation_index`` (dir layout).
_TAU2_RUN_KEYS = frozenset({"simulations", "tasks", "simulation_index"})
_TAU_BENCH_KEYS = frozenset({"task_id", "reward"})
#: Required keys of a tau2-bench ``SimulationRun``: an array of them is a bare simulation list.
_TAU2_SIMULATION_KEYS = frozenset({"id", "task_id", "start_time", "termination_reason"})
#: inspect_ai's ``EvalLog`` serialises ``version`` then ``status`` first (``log/_log.py``).
_INSPECT_HEAD = re.compile(r'\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
#: Keys that mark noisefloor's own trial records (or the paper layout's lines), which also carry
#: task_id and reward: saved as one JSON array they are not a tau-bench list, whose reader would
#: drop their seed, labels, infrastructure flag and coordination fields.
_NATIVE_KEYS = ("schema_version", "protocol")
_NATIVE_ARRAY = ("a JSON array of noisefloor trial records (it has {key!r}): write them one object "
                 "per line (JSONL), which noisefloor reads as is; a tau-bench list has no {key!r}")
_HEAD = 1 << 20
_KEY = r'"{}"\s*:'


# --- Terminal-Bench and Harbor (readers: noisefloor.logs.formats.terminalbench and .harbor).
# Kept in one place so that the formats' registration stays apart from the rules above.
def _bench_dir_format(path: Path) -> str | None:
    """``"terminal-bench"`` for a Terminal-Bench run folder, ``"harbor"`` for a Harbor job or
    trial folder, else None (a folder holding ``results.json`` is then a tau2-bench run)."""
    results = path / "results.json"
    if results.is_file() and not (path / "simulations").is_dir() \
            and (is_terminal_bench_run(results) or is_terminal_bench_trial(results)):
        return "terminal-bench"
    if harbor_kind(path) is not None:
        return "harbor"
    return None


def _bench_file_format(path: Path, head: bytes) -> str | None:
    """The same for one ``.json`` file, from its first bytes ``head``: a Terminal-Bench run
    file, a Harbor trial ``result.json``, or the ``result.json`` of a Harbor job folder."""
    if is_terminal_bench_run(path, head) or is_terminal_bench_trial(path, head):
        return "terminal-bench"
    if harbor_kind(path) == "trial":
        return "harbor"
    if path.name == "result.json" and harbor_kind(path.parent) == "job":
        return "harbor"
    return None
# --- end of Terminal-Bench and Harbor




def _describe_keys(keys: list[str]) -> str:
    if not keys:
        return "an empty JSON object"
    shown = ", ".join(map(repr, keys[:5])) + (", ..." if len(keys) > 5 else "")
    return f"a JSON object with keys {shown}"


def _first_element(path: Path, limit: int | None = None) -> tuple[str, Any]:
    """The first element of a JSON array document, decoded without reading the rest.

    Returns ``("empty", None)``, ``("element", value)``, or ``("invalid", message)`` when the
    first element is not valid JSON (or longer than ``limit`` bytes, default
    :data:`~noisefloor.logs.jsonl.lines.MAX_LINE_BYTES`). The buffer doubles from 1 MiB until the
    element decodes, so any file size gives the same answer.
    """
    limit = MAX_LINE_BYTES if limit is None else limit
    decoder = json.JSONDecoder()
    size = _HEAD
    with open(path, "rb") as handle:
        buf = handle.read(size)
        at_end = len(buf) < size
        buf = buf.removeprefix(b"\xef\xbb\xbf")
        while True:
            text = buf.decode("utf-8", errors="ignore" if not at_end else "replace")
            start = text.index("[") + 1
            while start < len(text) and text[start] in " \t\r\n":
                start += 1
            if start < len(text) and text[start] == "]":
                return "empty", None
            try:
                value, _ = decoder.raw_decode(text, start)
            except (ValueError, RecursionError) as exc:
                if at_end or size >= limit:
                    return "invalid", f"not valid JSON ({exc.__class__.__name__}: {exc})"
                more = handle.read(size)
                at_end = len(more) < size
                buf += more
                size *= 2
                continue
            return "element", value


def _describe_object(doc: dict[str, Any]) -> str:
    """What a JSON object that is no trial log looks like."""
    values = list(doc.values())
    if doc and all(isinstance(v, dict) and "results" in v and "model_name" in v for v in values):
        return ("a JSON object of tau2-bench leaderboard submissions (published pass^k per "
                "domain, no per-trial records; " + _describe_keys(list(doc)) + ")")
    if "model_name" in doc and isinstance(doc.get("results"), dict):
        return ("a tau2-bench leaderboard submission (published pass^k per domain, no per-trial "
                "records)")
    return _describe_keys(list(doc))


def _json_document_format(path: Path, first: bytes) -> tuple[str | None, str]:
    """``(format or None, what the document is)`` for a ``.json`` file starting with ``{`` or
    ``[``, from its top-level keys (or its first element's).

    An array is judged by its first element, decoded alone whatever the file size. An object
    up to 1 MiB is decoded whole; a larger one is judged from its first MiB (inspect_ai writes
    ``version`` then ``status`` first; tau2-bench writes ``info`` before ``tasks`` and
    ``simulations``); the reader checks it exactly.
    """
    if first == b"[":
        kind, value = _first_element(path)
        if kind == "empty":
            return "tau-bench", ""
        if kind == "invalid":
            return None, value
        if not isinstance(value, dict):
            return None, f"a JSON array whose first element is a JSON {type(value).__name__}"
        native = [k for k in _NATIVE_KEYS if k in value]
        if native:
            return None, _NATIVE_ARRAY.format(key=native[0])
        if _TAU_BENCH_KEYS <= value.keys():
            return "tau-bench", ""
        if _TAU2_SIMULATION_KEYS <= value.keys():
            return "tau2", ""
        return None, f"a JSON array whose first element is {_describe_keys(list(value))}"
    with open(path, "rb") as handle:
        head = handle.read(_HEAD + 1)
    head = head.removeprefix(b"\xef\xbb\xbf")
    text = head[:_HEAD].decode("utf-8", errors="replace")
    if _INSPECT_HEAD.match(text):
        return "inspect", ""
    bench = _bench_file_format(path, head[:1 << 16])
    if bench is not None:
        return bench, ""
    if len(head) <= _HEAD:
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError) as exc:
            # Not valid JSON: judge by the keys seen, so a broken run still gets the tau2
            # reader (which names line and column); anything else is not recognised.
            reason = f"not valid JSON ({exc.__class__.__name__}: {exc})"
        else:
            if isinstance(doc, dict):
                if "info" in doc and _TAU2_RUN_KEYS & doc.keys():
                    return "tau2", ""
                if is_inspect_document(doc):
                    return "inspect", ""
                return None, _describe_object(doc)
            return None, f"a JSON {type(doc).__name__}"
    else:
        reason = "a JSON document"
    if re.search(_KEY.format("info"), text) and any(
            re.search(_KEY.format(k), text) for k in _TAU2_RUN_KEYS):
        return "tau2", ""
    return None, f"{reason} without tau2-bench's 'info' and 'simulations'/'tasks' keys"


def not_a_log(path: str | Path, received: str) -> LogProblem:
    """The problem reported for a file that no reader recognises."""
    return LogProblem.mentioning(str(path), None, None,
                                 "not a recognised trial log",
                                 literal(FORMAT_NEEDS) + " (or name the format with {format} to "
                                 "force its reader)", received, kind="format")


def _first_objects(path: Path, limit: int | None = None, max_lines: int = 50) -> Iterator[Any]:
    """Decode up to ``max_lines`` non-blank lines (a malformed one yields its JSONProblem).

    A line is read whole up to ``limit`` bytes (default
    :data:`noisefloor.logs.jsonl.lines.MAX_LINE_BYTES`), so one long valid record decides like a
    short one; a longer line yields a JSONProblem saying so, and detection stops there.
    """
    limit = MAX_LINE_BYTES if limit is None else limit
    with open(path, "rb") as handle:
        seen = 0
        while seen < max_lines:
            line = handle.readline(limit + 1)
            if not line:
                return
            if seen == 0 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if not line.strip():
                continue
            seen += 1
            if len(line) > limit and not line.endswith(b"\n"):
                yield JSONProblem(f"line {seen} is longer than {limit:,} bytes (max_line_bytes)",
                                  "line_length")
                return
            try:
                yield parse_strict(line.rstrip(b"\r\n"), allow_nan=True, surrogates=True)
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
    directory beside it, is a tau2-bench run (``"tau2"``); a path that is not a regular file
    (a named pipe, a device, a dead symbolic link) is refused without being opened; a zip
    archive named ``*.eval`` is an inspect_ai log (``"inspect"``); a ``.json`` document that
    is an object with an integer ``version`` and an ``eval`` object is an inspect_ai log, one
    with tau2-bench's top-level keys (``info`` and ``simulations``, ``tasks`` or
    ``simulation_index``) a tau2-bench ``results.json`` (``"tau2"``); an array is judged by
    its first element, decoded alone whatever the file size: objects with ``task_id`` and
    ``reward`` (or an empty array) are a tau-bench v1 list (``"tau-bench"``), tau2-bench
    simulations (``id``, ``task_id``, ``start_time``, ``termination_reason``) a bare tau2
    list (``"tau2"``); otherwise the first decodable object among the first 50 non-blank
    lines (each read whole, up to :data:`~noisefloor.logs.jsonl.lines.MAX_LINE_BYTES`) decides: an
    object with ``schema_version`` is noisefloor's own JSONL (``"jsonl"``), one with
    ``protocol``, ``task_id`` and ``trial`` but no ``schema_version`` is the paper layout
    (``"paper"``).

    Raises
    ------
    LogValidationError
        The file is not a recognised trial log (any other JSON document or line, an empty
        file, an inspect_ai manifest, a zip that is not a ``.eval``), or not a regular file;
        the message names the file and what each format needs, or what the file is.

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
    noisefloor.logs.records.errors.LogValidationError: .../split.json: not a recognised trial log ... received a JSON object with keys 'train', 'test')
    """
    path = Path(path)
    if path.is_dir():
        bench = _bench_dir_format(path)
        if bench is not None:
            return bench
        if (path / "results.json").is_file():
            return "tau2"
        raise LogValidationError([LogProblem(str(path), None, None,
                                             "a directory is not one log file", kind="format")])
    problem = regular_file_problem(path)
    if problem is not None:
        raise LogValidationError([problem])
    if path.name == "results.json" and (path.parent / "simulations").is_dir():
        return "tau2"
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic == ZIP_MAGIC:
        if path.suffix.lower() == ".eval":
            return "inspect"
        raise LogValidationError([not_a_log(path, "a zip archive that is not an inspect_ai "
                                                  ".eval log (its name does not end in .eval)")])
    if path.suffix.lower() == ".eval":
        raise LogValidationError([not_a_log(path, "a .eval file that is not a zip archive "
                                                  "(inspect_ai .eval logs are zip archives)")])
    if path.suffix.lower() == ".json":
        first = _first_byte(path)
        if first in (b"[", b"{"):
            fmt, what = _json_document_format(path, first)
            if fmt is not None:
                return fmt
            manifest = inspect_manifest(path)
            if manifest is not None:
                raise LogValidationError([not_a_log(
                    path, f"{manifest}; give the log directory or the .eval/.json logs")])
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


def describe_file(path: str | Path) -> str | None:
    """What a file that is read as a CSV table looks like, when it is a JSON document, a JSON
    lines log or a zip archive (None for anything else: the table reader then speaks).

    Used by the table readers (``--counts``, ``--claims``) so that a log or a leaderboard
    passed in the wrong place is named instead of failing on its first comma.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "board.json")
    >>> with open(p, "w") as f:
    ...     _ = f.write('{"gpt-x_lab_2026": {"model_name": "X", "results": {"retail": {}}}}')
    >>> print(describe_file(p))
    a JSON object of tau2-bench leaderboard submissions (published pass^k per domain, no per-trial records; a JSON object with keys 'gpt-x_lab_2026')
    """
    path = Path(path)
    if regular_file_problem(path) is not None:
        return None
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic == ZIP_MAGIC:
        return ("an inspect_ai .eval log (a zip archive)" if path.suffix.lower() == ".eval"
                else "a zip archive")
    first = _first_byte(path)
    if first not in (b"{", b"["):
        return None
    try:
        fmt = detect_format(path)
    except LogValidationError as exc:
        received = exc.problems[0].received
        return received or "a JSON document"
    return {"jsonl": "a noisefloor trial log (JSONL)", "paper": "a trial log in the paper layout",
            "tau2": "a tau2-bench run (results.json)", "tau-bench": "a tau-bench results list",
            "inspect": "an inspect_ai log", "terminal-bench": "a Terminal-Bench run (results.json)",
            "harbor": "a Harbor trial result"}[fmt]


def expand_paths(paths: str | Path | Sequence[str | Path]) -> list[Path]:
    """Expand directories into the log files (or tau2 run directories) they hold, sorted.

    A directory holding ``results.json`` is one tau2-bench run; otherwise its log files
    (:data:`LOG_SUFFIXES`) and, recursively and at any depth, its subdirectories (per-protocol
    folders, run folders) are taken. A ``simulations`` folder outside a tau2 run is not read,
    nor are the manifests inspect_ai's ``eval_set`` writes beside its logs (``logs.json``,
    ``eval-set.json``: indexes of the logs, which are read themselves);
    a directory link leading back to a directory being walked is not walked again (its files
    are read once, through the directory itself).

    Raises
    ------
    LogValidationError
        A path does not exist, a directory holds no log file, one file is reached twice, or a
        path (given, or a log found in a directory) is not a regular file (a named pipe, a
        device, a socket: never opened, as reading it could block forever) or is a symbolic
        link that leads nowhere (a loop, a missing target). Every such path is named.
    """
    files, problems = walk_paths(paths)
    if problems:
        raise LogValidationError(problems)
    return files


def walk_paths(
    paths: str | Path | Sequence[str | Path],
) -> tuple[list[Path], list[LogProblem]]:
    """:func:`expand_paths` without raising: the files found and the problems, both in order.

    ``noisefloor log validate`` reads the files found and reports the problems with the rest.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)) or not paths:
        raise ValueError(f"paths must be a path or a non-empty list of paths, got {paths!r}")
    out: list[Path] = []
    problems: list[LogProblem] = []
    for item in paths:
        path = Path(item)
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            if exc.errno == errno.ENOENT and not os.path.islink(path):
                problems.append(LogProblem(str(path), None, None, "no such file or directory",
                                           kind="io"))
            else:
                problems.append(stat_problem(path, exc))
            continue
        if stat.S_ISDIR(mode):
            found, bad = _walk(path)
            problems.extend(bad)
            if not found and not bad:
                problems.append(LogProblem(str(path), None, None,
                                           "directory holds no .jsonl/.json/.eval log",
                                           kind="io"))
        else:
            problem = regular_file_problem(path)
            found = [path] if problem is None else []
            if problem is not None:
                problems.append(problem)
        out.extend(found)
    # One file reached twice (given twice, or given and also inside a given directory) would
    # make every record a duplicate of itself: name the repetition instead (and read it once).
    seen: dict[Path, Path] = {}
    files = []
    for path in out:
        first = seen.setdefault(_run_identity(path), path)
        if first is not path:
            problems.append(LogProblem(
                str(path), None, None,
                f"this log is read twice (also as {first}); give each file or directory once",
                kind="io"))
        else:
            files.append(path)
    return files, problems


def _run_identity(path: Path) -> Path:
    """What a path reads: a tau2 run directory and its ``results.json`` read the same run."""
    resolved = Path(os.path.realpath(path))
    if resolved.name == "results.json" and (resolved.parent / "simulations").is_dir():
        return resolved.parent
    if resolved.is_dir() and (resolved / "results.json").is_file():
        return resolved
    return resolved


def _walk(top: Path) -> tuple[list[Path], list[LogProblem]]:
    """Log files and tau2 runs under ``top`` at any depth, in sorted order, and the problems
    of entries that cannot be read (an explicit stack, so depth is not bounded by recursion)."""
    found: list[Path] = []
    problems: list[LogProblem] = []

    def listing(directory: Path) -> Iterator[Path] | None:
        try:
            return iter(sorted(directory.iterdir()))
        except OSError as exc:
            problems.append(LogProblem(str(directory), None, None,
                                       f"cannot list directory: {exc.strerror or exc}",
                                       kind="io"))
            return None

    if (top / "results.json").is_file() or _bench_dir_format(top) == "harbor":
        return [top], problems
    st = os.stat(top)
    first = listing(top)
    if first is None:
        return found, problems
    stack: list[tuple[Iterator[Path], tuple[int, int]]] = [(first, (st.st_dev, st.st_ino))]
    while stack:
        entries, _ = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        try:
            st = os.stat(entry)
        except OSError as exc:
            # a broken link: report it when it could have been a log or a folder of logs
            if entry.suffix.lower() in LOG_SUFFIXES or not entry.suffix:
                problems.append(stat_problem(entry, exc))
            continue
        if stat.S_ISDIR(st.st_mode):
            if entry.name == "simulations":
                continue
            key = (st.st_dev, st.st_ino)
            if any(key == ancestor for _, ancestor in stack):
                continue  # a link back into the walk: its files are read through the original
            if (entry / "results.json").is_file() or _bench_dir_format(entry) == "harbor":
                found.append(entry)
                continue
            sub = listing(entry)
            if sub is not None:
                stack.append((sub, key))
        elif entry.suffix.lower() in LOG_SUFFIXES:
            if stat.S_ISREG(st.st_mode):
                if inspect_manifest(entry) is None:  # an index of logs read themselves
                    found.append(entry)
            else:
                problem = regular_file_problem(entry)
                if problem is not None:
                    problems.append(problem)
    return found, problems
