"""Public entry points: :func:`load_trials` (and :func:`read_log_trials`, which also takes a
trial frame as it is), :func:`read_records`, :func:`validate_logs`."""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from noisefloor.logs.formats.detect import FORMATS, detect_format, expand_paths, walk_paths
from noisefloor.logs.formats.harbor import iter_harbor_blocks
from noisefloor.logs.formats.inspect import iter_inspect_blocks
from noisefloor.logs.formats.paper import iter_paper_blocks
from noisefloor.logs.formats.tau2 import iter_tau2_blocks
from noisefloor.logs.formats.taubench import iter_taubench_blocks
from noisefloor.logs.formats.terminalbench import iter_terminal_bench_blocks
from noisefloor.logs.jsonl.pipeline import (
    ProblemSink,
    RecordBlock,
    iter_jsonl_blocks,
    validated_arrays,
)
from noisefloor.logs.jsonl.validation import FIELDS
from noisefloor.logs.records.duplicates import DuplicateIndex
from noisefloor.logs.records.errors import LogProblem, LogValidationError, TruncatedLine
from noisefloor.logs.records.frame import COLUMNS, FrameBuilder, duplicate_rows, string_array
from noisefloor.logs.schema import KEY_FIELDS, TrialRecord
from noisefloor.results import FrozenResult

__all__ = ["ValidationReport", "load_trials", "read_log_trials", "read_records", "validate_logs"]

PathLike = str | Path

#: Readers of the Terminal-Bench and Harbor formats.
_BENCH_READERS: dict[str, Callable[..., Iterator[RecordBlock]]] = {
    "terminal-bench": iter_terminal_bench_blocks, "harbor": iter_harbor_blocks}


def _check_options(format: str | None, labels: dict[str, Any]) -> None:
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)} or None, got {format!r}")
    for name, value in labels.items():
        if value is not None and (not isinstance(value, str) or not value):
            raise ValueError(f"{name} must be a non-empty string or None, got {value!r}")


def _blocks(
    path: Path, format: str | None, allow_nan: bool, sink: ProblemSink, labels: dict[str, Any],
    opts: dict[str, Any] | None = None,
) -> Iterator[RecordBlock]:
    opts = opts or {}
    max_line = opts.get("max_line_bytes")
    try:
        fmt = format or detect_format(path)
    except LogValidationError as exc:
        sink.add(exc.problems)
        return
    except OSError as exc:
        sink.add([LogProblem(str(path), None, None, f"cannot read: {exc}", kind="io")])
        return
    given = {k: v for k, v in labels.items() if v is not None}
    try:
        if fmt == "jsonl":
            yield from iter_jsonl_blocks(str(path), allow_nan=allow_nan, sink=sink, expect=given,
                                         max_line_bytes=max_line)
        elif fmt == "paper":
            yield from iter_paper_blocks(path, allow_nan=allow_nan, sink=sink,
                                         max_line_bytes=max_line, **labels)
        elif fmt == "inspect":
            yield from iter_inspect_blocks(path, allow_nan=allow_nan, sink=sink,
                                           score=opts.get("score"), **labels)
        elif fmt == "tau2":
            yield from iter_tau2_blocks(path, allow_nan=allow_nan, sink=sink, **labels)
        elif fmt in _BENCH_READERS:  # Terminal-Bench and Harbor
            yield from _BENCH_READERS[fmt](path, allow_nan=allow_nan, sink=sink, **labels)
        else:
            yield from iter_taubench_blocks(path, allow_nan=allow_nan, sink=sink, **labels)
    except OSError as exc:
        sink.add([LogProblem(str(path), None, None, f"cannot read: {exc}", kind="io")])


def _reader_options(score: str | None, max_line_bytes: int | None) -> dict[str, Any]:
    """Options of particular readers, checked once: the inspect_ai scorer, the line limit."""
    if score is not None and (not isinstance(score, str) or not score):
        raise ValueError(f"score must be a non-empty scorer name or None, got {score!r}")
    if max_line_bytes is not None and (isinstance(max_line_bytes, bool)
                                       or not isinstance(max_line_bytes, int)
                                       or max_line_bytes < 1):
        raise ValueError(f"max_line_bytes must be an integer >= 1 or None, got {max_line_bytes!r}")
    return {"score": score, "max_line_bytes": max_line_bytes}


@contextmanager
def _gc_paused() -> Iterator[None]:
    # Building millions of small dicts triggers the cyclic collector again and again although
    # none of them can form a cycle; pausing it keeps loading linear in the file size.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def _system_memory_pool() -> Iterator[None]:
    # A block's arrays are built and dropped part after part; Arrow's default allocator
    # (mimalloc) keeps the freed pages, which raised the peak memory of a 40 MiB log by about
    # 35 MiB. The system allocator hands them back; the frame's arrays do not care which
    # pool made them.
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


def _plain(value: Any) -> Any:
    """A numpy/pandas scalar as the plain Python value a user wrote (missing -> None)."""
    if value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def _duplicate_problems(frame: pd.DataFrame) -> list[LogProblem]:
    problems: list[LogProblem] = []
    pairs = duplicate_rows(frame)
    if not pairs:
        return problems
    sources = frame["source"].to_numpy()  # Python strings: only when there is a repeat
    lines = frame["line"].to_numpy()
    for first, later in pairs:
        key = ", ".join(f"{k} {_plain(frame[k].iat[later])!r}" for k in KEY_FIELDS)
        problems.append(LogProblem(
            str(sources[later]), int(lines[later]), None,
            f"duplicate trial ({key}) first seen at {sources[first]}:{int(lines[first])}; "
            "a repeated trial would be counted twice", kind="duplicate_row"))
    return problems


def _scan(
    paths: PathLike | Sequence[PathLike], format: str | None, allow_nan: bool,
    labels: dict[str, Any], sink: ProblemSink,
    on_block: Callable[[dict[str, Any], str, list[int]], object],
    on_empty: Callable[[Path], None] | None = None, opts: dict[str, Any] | None = None,
) -> list[str]:
    """Read every file, validating block by block; hand each valid block to ``on_block``;
    call ``on_empty`` for a file that gave neither a record nor a problem."""
    files = expand_paths(paths)
    with _gc_paused(), _system_memory_pool():
        for path in files:
            before = (len(sink.problems), len(sink.truncated))
            n_records = 0
            for block in _blocks(path, format, allow_nan, sink, labels, opts):
                arrays, lines = validated_arrays(block, sink, allow_nan=allow_nan)
                n_records += len(lines)
                on_block(arrays, block.source, lines)
            if on_empty is not None and not n_records and before == (len(sink.problems),
                                                                      len(sink.truncated)):
                on_empty(path)
    return [str(p) for p in files]


def _repeat_problem(first: tuple[str, int], later: tuple[str, int], key: str) -> LogProblem:
    return LogProblem(
        later[0], later[1], None,
        f"duplicate trial ({key}) first seen at {first[0]}:{first[1]}; a repeated trial "
        "would be counted twice", kind="duplicate_row")


def load_trials(
    logs: Any, *, format: str | None = None, allow_nan: bool = False,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
    score: str | None = None, max_line_bytes: int | None = None,
) -> pd.DataFrame:
    """Load trial logs, each log given one run, into one typed DataFrame (fail-fast).

    This is the one reader of every command that reads logs (``passk``, ``floor``,
    ``contrast``, ``audit``, ``compare``, ``plan --floor-log``, ``leaderboard --floor-log``,
    ``monitor``, ``reruns-sim --log``): a pair of logs is accepted or refused the same way
    everywhere.

    Parameters
    ----------
    logs : path, (path, label), ``"PATH=LABEL"``, or a sequence of them
        Each item is one run: a file, a tau2-bench run directory (a directory holding
        ``results.json``), or any other directory, searched at any depth for ``*.jsonl`` /
        ``*.json`` / ``*.eval`` logs (e.g. the paper layout ``<protocol>/trials.jsonl``). Only
        regular files are read: a named pipe, device or socket among them, or a symbolic link
        that leads nowhere, is an error naming it (see
        :func:`noisefloor.logs.formats.detect.expand_paths`). A label names the run's arm: it
        replaces the protocol of every record of that run (the protocol the log gave stays in
        ``logged_protocol``). A string is read by :func:`noisefloor.logs.runs.parse_log_spec`.
    format : {"jsonl", "paper", "tau2", "tau-bench", "inspect", "terminal-bench", "harbor"} or None, default None
        Reader to use for every path; None detects it per file
        (:func:`noisefloor.logs.detect_format`).
    allow_nan : bool, default False
        Accept ``NaN``/``Infinity`` literals in the JSON (a NaN reward is still rejected by
        the schema; this lets such values through in ``extra``). inspect_ai logs always may
        hold them (inspect writes them), outside the reward.
    benchmark, model, protocol : str or None, default None
        Labels for formats that do not record them (tau2 ``protocol``, tau-bench ``model`` and
        ``benchmark``), replacing inferred ones (tau2 ``info``, tau-bench file name). For a
        format whose records carry the field (noisefloor JSONL; the paper layout), every
        record must agree, else an error. ``protocol`` applies to unlabelled runs only.
    score : str or None, default None
        inspect_ai logs: the scorer whose score is the reward; None takes the first scorer
        (see :mod:`noisefloor.logs.formats.inspect`). Other formats ignore it.
    max_line_bytes : int or None, default None
        Longest JSONL line read, in bytes; None means
        :data:`noisefloor.logs.jsonl.lines.MAX_LINE_BYTES` (64 MiB). A longer line is an error
        naming file and line, found without holding the line in memory.

    Returns
    -------
    pandas.DataFrame
        Shape (n_trials, 19). Columns in order: ``schema_version`` (str), ``benchmark``
        (str), ``model`` (str), ``protocol`` (str: the run's label when given), ``seed``
        (Int64, nullable), ``task_id`` (str), ``trial`` (int64), ``reward`` (float64, NaN when
        null), ``termination_reason`` (str, NaN when null), ``infrastructure_error`` (bool),
        ``store_events_at_start`` (Int64), ``injections`` (Int64), ``first_request_sha256``
        (str), ``extra`` (``extra_json``: JSON text stored by Arrow, read as a dict or None;
        see :mod:`noisefloor.logs.records.extra`), ``source`` (str: file path), ``line`` (int64:
        line of a JSONL file, or 1-based record index of a JSON document), ``run`` (str: the
        run's name, :func:`noisefloor.logs.runs.run_names`), ``logged_protocol`` (str: the
        protocol before any label), ``configuration`` (str: what the run's tool records about
        the system under test as canonical JSON, missing for noisefloor's own records; see
        :mod:`noisefloor.logs.configuration`). ``frame.attrs["truncated"]`` lists the
        truncated final lines skipped (dicts: ``source, line, n_bytes, reason``) and
        ``frame.attrs["sources"]`` the files read.

    Raises
    ------
    LogValidationError
        At the first bad record (malformed JSON, invalid UTF-8, duplicate key, NaN literal,
        schema violation, a record disagreeing with a passed label), when two rows of one run
        share ``(benchmark, model, protocol, seed, task_id, trial)``, or when one file is
        reached by two of the logs given; the message names file, line and field, and
        ``.problems`` lists the details.
    ValueError
        Bad ``logs`` or ``format``; a label given for a run holding records of more than one
        protocol; one label given to runs whose configurations differ (the message names the
        fields that differ).

    Warns
    -----
    TruncatedLineWarning
        A final line cut off without a newline was skipped (also in ``attrs["truncated"]``).

    Notes
    -----
    Two runs of one configuration share every trial key (tau2-bench's default seed is 300,
    so repeat runs share it too), yet they are not duplicates: each is a sample of the same
    configuration, kept apart by ``run``. JSONL is streamed in 4 MiB blocks; memory is the
    DataFrame plus one block. JSON documents (tau2 ``results.json``, tau-bench lists) are
    parsed whole, one file at a time; the tau2 dir layout reads one simulation file at a time.

    Examples
    --------
    >>> import tempfile, os, json
    >>> rec = {"schema_version": "1", "benchmark": "tau2/retail", "model": "m",
    ...        "protocol": "pull", "seed": 1, "task_id": "007", "trial": 0, "reward": 1.0,
    ...        "termination_reason": "user_stop", "infrastructure_error": False}
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.jsonl")
    >>> with open(p, "w") as f:
    ...     _ = f.write(json.dumps(rec) + "\\n" + json.dumps({**rec, "trial": 1}) + "\\n")
    >>> df = load_trials(p)
    >>> df[["task_id", "trial", "reward", "line", "run"]]
      task_id  trial  reward  line run
    0     007      0     1.0     1   t
    1     007      1     1.0     2   t
    >>> q = os.path.join(d, "rerun.jsonl")
    >>> with open(q, "w") as f:
    ...     _ = f.write(json.dumps(rec) + "\\n")
    >>> both = load_trials([(p, "baseline"), q])  # two runs: one trial key in each is no repeat
    >>> both[["protocol", "logged_protocol", "run", "trial"]]
       protocol logged_protocol    run  trial
    0  baseline            pull      t      0
    1  baseline            pull      t      1
    2      pull            pull  rerun      0
    """
    from noisefloor.logs.runs import run_names, run_specs

    specs = run_specs(logs)
    expand_paths([path for path, _ in specs])  # a file reached twice is named before reading
    names = run_names([path for path, _ in specs])
    frames, sources, truncated = [], [], []
    for (path, label), name in zip(specs, names):
        frame = _load_run(path, format=format, allow_nan=allow_nan, benchmark=benchmark,
                          model=model, protocol=protocol if label is None else None,
                          score=score, max_line_bytes=max_line_bytes)
        sources.extend(frame.attrs.get("sources", []))
        truncated.extend(frame.attrs.get("truncated", []))
        frames.append(_with_run_columns(frame, path, label, name))
    out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    out.attrs = {"sources": sources, "truncated": truncated}
    if sum(label is not None for _, label in specs) > 1:
        check_one_configuration_per_label(out)
    return out


def read_log_trials(logs: Any, *, format: str | None = None, allow_nan: bool = False,
                    benchmark: str | None = None, model: str | None = None,
                    protocol: str | None = None, score: str | None = None) -> pd.DataFrame:
    """``logs`` as a trial DataFrame: a DataFrame is used as it is, anything else is read by
    :func:`load_trials` (each path one run; ``"PATH=LABEL"`` labels it). The analyses that
    take logs or a frame (``floor``, ``contrast``, ``audit``, ``compare``) read them here.

    Raises
    ------
    ValueError
        When the logs hold no trial record (an empty result must not pass as a clean run).
    """
    if isinstance(logs, pd.DataFrame):
        return logs
    trials = load_trials(logs, format=format, allow_nan=allow_nan, benchmark=benchmark,
                         model=model, protocol=protocol, score=score)
    if trials.empty:
        read = trials.attrs.get("sources") or [str(logs)]
        raise ValueError(f"no trial record in {', '.join(map(str, read))}: the log(s) hold no "
                         "trial to analyse (expected at least one record)")
    return trials


def _column(value: str, n: int) -> Any:
    """A string column holding ``value`` ``n`` times."""
    return string_array(pa.chunked_array([pa.repeat(pa.scalar(value, pa.string()), n)]))




def _configurations(extra: pd.Series) -> tuple[Any, Any]:
    """The ``configuration`` column from each record's ``extra["configuration"]``, and the
    ``extra`` column without that key; one JSON text per distinct configuration."""
    from noisefloor.logs.configuration import CONFIGURATION_KEY, configuration_text
    from noisefloor.logs.records.extra import TEXT_TYPE, ExtraArray, decode_extra, encode_extra

    array = extra.array
    if not isinstance(array, ExtraArray):
        array = ExtraArray.from_values(array)
    texts = array.__arrow_array__()
    n = len(texts)
    # only texts that may name the key are decoded (an escape may spell it otherwise); one
    # search over each chunk's bytes first, as most logs hold no configuration at all
    key = f'"{CONFIGURATION_KEY}"'
    held = [chunk.buffers()[2] for chunk in texts.chunks if chunk.null_count < len(chunk)]
    # (a lone backslash is found at memory speed; the two-byte search runs only after one)
    if not any(key.encode() in (raw := buf.to_pybytes()) or (b"\\" in raw and b"\\u" in raw)
               for buf in held if buf is not None):  # a copy of one chunk at a time
        return string_array(pa.nulls(n, pa.string())), array
    maybe = pc.or_(pc.match_substring(texts, key), pc.match_substring(texts, "\\u"))
    at = np.flatnonzero(maybe.to_numpy(zero_copy_only=False) == True)  # noqa: E712 - nulls
    out: list[str | None] = [None] * n
    new_texts = texts.to_pylist()
    rendered: dict[str, str | None] = {}
    for pos in at.tolist():
        value = decode_extra(new_texts[pos])
        if not isinstance(value, dict) or CONFIGURATION_KEY not in value:
            continue
        conf = value.pop(CONFIGURATION_KEY)
        new_texts[pos] = encode_extra(value)
        seen = encode_extra(conf) or ""
        if seen not in rendered:  # one configuration per run: rendered once
            rendered[seen] = configuration_text(conf)
        out[pos] = rendered[seen]
    return (string_array(pa.array(out, type=pa.string())),
            ExtraArray(pa.array(new_texts, type=TEXT_TYPE)))


def _with_run_columns(frame: pd.DataFrame, path: Path, label: str | None,
                      name: str) -> pd.DataFrame:
    n = len(frame)
    frame["logged_protocol"] = frame["protocol"]
    if label is not None:
        held = sorted(map(str, frame["protocol"].dropna().unique()))
        if len(held) > 1:
            raise ValueError(
                f"{path}: label {label!r} names one arm, but the log holds records of "
                f"{len(held)} protocols ({', '.join(held)}); give each protocol's file its "
                "own label, or no label")
        frame["protocol"] = _column(label, n)
    run = _column(name, n)
    if n:
        configuration, extra = _configurations(frame["extra"])
        frame = frame.assign(run=run, configuration=configuration, extra=extra)
    else:
        frame = frame.assign(run=run, configuration=_column("", 0))
    return frame[list(COLUMNS)]


def check_one_configuration_per_label(trials: pd.DataFrame) -> None:
    """Refuse one arm label given to runs whose configurations differ, naming the fields.

    Runs of different configurations are different arms, never re-runs: a label shared by
    two runs declares them one configuration, so their protocol as logged, their model and
    everything their tool records (``configuration``) must agree.

    Raises
    ------
    ValueError
        Naming the label, the two runs and every field that differs.
    """
    from noisefloor.logs.configuration import describe_differences, parse_configuration

    firsts = trials.drop_duplicates("run")
    by_label: dict[str, list[tuple[str, dict]]] = {}
    for row in firsts.itertuples(index=False):
        run_rows = trials["run"] == row.run
        models = trials.loc[run_rows, "model"].dropna().unique()
        identity = {"protocol": row.logged_protocol,
                    **({"model": str(models[0])} if len(models) == 1 else {}),
                    **parse_configuration(row.configuration)}
        by_label.setdefault(str(row.protocol), []).append((str(row.run), identity))
    for label, runs in by_label.items():
        first_run, first = runs[0]
        for other_run, other in runs[1:]:
            text = describe_differences(first, other, name_a=first_run, name_b=other_run)
            if text:
                raise ValueError(
                    f"runs {first_run} and {other_run} are given as one arm {label!r}, but "
                    f"their configurations differ ({text}): runs of different configurations "
                    "are different arms, never re-runs; give each its own label")


def _load_run(
    paths: PathLike | Sequence[PathLike], *, format: str | None = None, allow_nan: bool = False,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
    score: str | None = None, max_line_bytes: int | None = None,
) -> pd.DataFrame:
    """The records of one run (the :data:`~noisefloor.logs.records.frame.RECORD_COLUMNS`),
    duplicates refused; parameters as :func:`load_trials`."""
    labels = {"benchmark": benchmark, "model": model, "protocol": protocol}
    _check_options(format, labels)
    sink = ProblemSink(collect=False)
    builder = FrameBuilder()
    opts = _reader_options(score, max_line_bytes)
    files = _scan(paths, format, allow_nan, labels, sink, builder.add, opts=opts)
    frame = builder.build()
    sink.add(_duplicate_problems(frame))
    frame.attrs["truncated"] = [t.to_dict() for t in sink.truncated]
    frame.attrs["sources"] = files
    return frame


def read_records(
    path: PathLike, *, format: str | None = None, allow_nan: bool = False,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
    score: str | None = None, max_line_bytes: int | None = None,
) -> Iterator[TrialRecord]:
    """Yield the validated :class:`TrialRecord` objects of one log, streaming (fail-fast).

    Same parameters, checks and errors as :func:`load_trials` (``path`` may also be a
    directory); records are yielded as they are read, so a JSONL file of any size is read in
    bounded memory, apart from the 128-bit hashes of trial keys kept to reject duplicates
    (about 100 bytes per record). Truncated final
    lines are warned about (:class:`TruncatedLineWarning`) and skipped.

    Examples
    --------
    >>> import tempfile, os, json
    >>> rec = {"schema_version": "1", "benchmark": "b", "model": "m", "protocol": "p",
    ...        "seed": None, "task_id": "007", "trial": 0, "reward": None,
    ...        "termination_reason": None, "infrastructure_error": True}
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.jsonl")
    >>> with open(p, "w") as f:
    ...     _ = f.write(json.dumps(rec) + "\\n")
    >>> [(r.task_id, r.reward) for r in read_records(p)]
    [('007', None)]
    """
    labels = {"benchmark": benchmark, "model": model, "protocol": protocol}
    _check_options(format, labels)
    opts = _reader_options(score, max_line_bytes)
    sink = ProblemSink(collect=False)
    index = DuplicateIndex()
    for file in expand_paths(path):
        for block in _blocks(file, format, allow_nan, sink, labels, opts):
            arrays, lines = validated_arrays(block, sink, allow_nan=allow_nan)
            repeats = index.add(arrays, block.source, lines, streaming=True)
            columns = {name: (arr.to_pylist() if isinstance(arr, (pa.Array, pa.ChunkedArray))
                              else arr.tolist()) for name, arr in arrays.items()}
            columns["reward"] = [None if math.isnan(r) else r for r in columns["reward"]]
            if repeats:
                first, later = repeats[0]
                pos = lines.index(later[1])
                key = ", ".join(f"{k} {columns[k][pos]!r}" for k in KEY_FIELDS)
                sink.add([_repeat_problem(first, later, key)])
            for pos in range(len(lines)):
                yield TrialRecord.model_construct(**{name: columns[name][pos] for name in FIELDS})


@dataclass(frozen=True)
class ValidationReport(FrozenResult):
    """Everything :func:`validate_logs` found.

    Attributes
    ----------
    files : tuple of str
        Files read.
    n_valid : int
        Records that passed every check. A repeated trial key counts once: its first row is
        valid, every later copy is a ``duplicate_row`` problem and not counted here.
    problems : tuple of LogProblem
        Every problem, in file order, duplicates last.
    truncated : tuple of TruncatedLine
        Truncated final lines (skipped, not errors).
    path_problems : tuple of LogProblem
        Paths that could not be read at all (``kind`` ``"io"``: missing, an empty directory,
        a named pipe), with ``unreadable="report"``; empty otherwise.
    """

    _dict_keys = ("files", "n_valid", "ok", "problems", "truncated", "path_problems")

    files: tuple[str, ...]
    n_valid: int
    problems: tuple[LogProblem, ...]
    truncated: tuple[TruncatedLine, ...]
    path_problems: tuple[LogProblem, ...] = ()

    @property
    def ok(self) -> bool:
        """True when there is no problem, a path that cannot be read included (truncated
        lines do not count)."""
        return not self.problems and not self.path_problems

    # hand-written: one row per problem, a chosen subset of its fields
    def to_frame(self) -> pd.DataFrame:
        """One row per problem: ``source, line, field, kind, message, expected, received``."""
        cols = ["source", "line", "field", "kind", "message", "expected", "received"]
        return pd.DataFrame([{c: getattr(p, c) for c in cols} for p in self.problems],
                            columns=cols)


def validate_logs(
    paths: PathLike | Sequence[PathLike], *, format: str | None = None, allow_nan: bool = False,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
    score: str | None = None, max_line_bytes: int | None = None, unreadable: str = "raise",
) -> ValidationReport:
    """Check logs and report every problem (collect-all; never raises on bad records).

    Same parameters and checks as :func:`load_trials`, but every bad line is reported and
    reading goes on; a file that holds no record at all is reported too. Bad options still
    raise; so do paths that cannot be read, unless ``unreadable="report"`` (``noisefloor log
    validate``): then each is one of the report's ``path_problems`` and the files found are
    read (none found: an empty report that is not ok). Only two 64-bit hashes of each
    valid record's trial key and its line are kept to find duplicates (24 bytes per record,
    see :mod:`noisefloor.logs.records.duplicates`), so a 10 GB log is checked in bounded memory
    apart from those.

    Returns
    -------
    ValidationReport
        ``problems`` (each names file, line, field, expected and received) and ``truncated``.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "bad.jsonl")
    >>> with open(p, "w") as f:
    ...     _ = f.write('{"schema_version": "1", "oops"\\n\\n{"a": 1, "a": 2}\\n')
    >>> report = validate_logs(p, format="jsonl")
    >>> [(pr.line, pr.kind) for pr in report.problems]
    [(1, 'json'), (3, 'duplicate_key')]
    """
    labels = {"benchmark": benchmark, "model": model, "protocol": protocol}
    _check_options(format, labels)
    if unreadable not in ("raise", "report"):
        raise ValueError(f"unreadable must be 'raise' or 'report', got {unreadable!r}")
    path_problems: tuple[LogProblem, ...] = ()
    if unreadable == "report":
        found, bad = walk_paths(paths)
        path_problems = tuple(bad)
        if not found:
            return ValidationReport((), 0, (), (), path_problems)
        paths = found
    sink = ProblemSink(collect=True)
    index = DuplicateIndex()

    def empty(path: Path) -> None:
        # An empty log read with a forced format (a blank file, ``[]``, a tau2 run without
        # simulations) is not a clean bill of health: say that nothing was in it.
        sink.add([LogProblem(str(path), None, None, "the log holds no trial record",
                             "at least one record", "none", kind="format")])

    opts = _reader_options(score, max_line_bytes)
    files = _scan(paths, format, allow_nan, labels, sink, index.add, empty, opts)
    pairs = index.pairs()
    sink.add(_repeat_problem(first, later, "same benchmark, model, protocol, seed, task_id "
                             "and trial") for first, later in pairs)
    # A later copy of a trial is a problem, not a valid record (one pair per later copy).
    n_valid = index.n_rows - len({later for _, later in pairs})
    return ValidationReport(tuple(files), n_valid, tuple(sink.problems), tuple(sink.truncated),
                            path_problems)

