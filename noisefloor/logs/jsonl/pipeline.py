"""The shared reading pipeline: blocks of decoded records -> validated columns -> DataFrame.

Every format reader yields :class:`RecordBlock` objects (decoded JSON objects already mapped to
the :class:`~noisefloor.logs.schema.TrialRecord` field names, with their line numbers). This
module validates them, reports problems to a :class:`ProblemSink` (fail-fast or collect-all),
and feeds the valid rows to a :class:`~noisefloor.logs.records.frame.FrameBuilder`.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from noisefloor.logs.jsonl.columns import NULLABLE_INT_FIELDS, arrow_block, fast_arrays, to_arrays
from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_fast, parse_strict, unsure_lines
from noisefloor.logs.jsonl.lines import MAX_LINE_BYTES, LineBlock, iter_line_blocks
from noisefloor.logs.jsonl.typed import typed_block
from noisefloor.logs.jsonl.validation import extract_columns, validate_record
from noisefloor.logs.records.errors import (
    LogProblem,
    LogValidationError,
    TruncatedLine,
    TruncatedLineWarning,
    describe_value,
)
from noisefloor.logs.schema import TrialRecord

__all__ = ["PATH_COUNTS", "ProblemSink", "RecordBlock", "iter_jsonl_blocks", "validated_arrays"]

#: Lines decoded by each path of :func:`iter_jsonl_blocks` since the process started:
#: ``"arrow"`` (a whole block parsed and validated by Arrow), ``"orjson"`` (decoded by orjson,
#: vouched for by the block's duplicate-key test), ``"strict"`` (decoded again by the
#: reference parser, :func:`noisefloor.logs.jsonl.jsonparse.parse_strict`). A diagnostic: tests read
#: it to see which path a file took. ``"typed"``: a part of a block decoded and validated by
#: :func:`noisefloor.logs.jsonl.typed.typed_block` (msgspec; records with an ``extra`` object).
PATH_COUNTS: Counter[str] = Counter()


@dataclass
class RecordBlock:
    """Decoded records of one file, ready for validation.

    Attributes
    ----------
    source : str
        File the records came from.
    lines : list of int
        Line number (JSONL) or 1-based record index (JSON documents) of each record.
    records : list
        Decoded values, mapped to TrialRecord field names.
    raws : list of bytes or None
        The raw lines, when ``records`` may differ from what the reference parser
        (:func:`noisefloor.logs.jsonl.jsonparse.parse_strict`) makes of them: a block the fast
        checks cannot vouch for is then re-decoded before its records are validated one by
        one. None when the records are exact (the JSONL reader vouches for every line).
    expect : dict
        Values the caller passed (``benchmark=``, ``model=``, ``protocol=``) that every
        record of this block must carry.
    problems : list of LogProblem
        Problems already found in this block's lines (malformed JSON, ...), reported together
        with the validation problems in line order.
    arrays : dict or None
        Typed arrays of a block already validated as a whole (the Arrow fast path); then
        ``records`` is empty.
    """

    source: str
    lines: list[int]
    records: list[Any]
    raws: list[bytes] | None = None
    expect: dict[str, str] = field(default_factory=dict)
    problems: list[LogProblem] = field(default_factory=list)
    arrays: dict[str, Any] | None = None


class ProblemSink:
    """Where readers send problems: raise at the first (``collect=False``) or keep them all."""

    def __init__(self, collect: bool = False) -> None:
        self.collect = collect
        self.problems: list[LogProblem] = []
        self.truncated: list[TruncatedLine] = []

    def add(self, problems: Iterable[LogProblem]) -> None:
        """Record problems; in fail-fast mode raise :class:`LogValidationError` at once."""
        problems = list(problems)
        if not problems:
            return
        if not self.collect:
            raise LogValidationError(problems)
        self.problems.extend(problems)

    def add_truncated(self, report: TruncatedLine) -> None:
        """Record a truncated final line and warn (never fatal)."""
        self.truncated.append(report)
        warnings.warn(str(report), TruncatedLineWarning, stacklevel=4)


def iter_jsonl_blocks(
    path: str, *, allow_nan: bool, sink: ProblemSink, expect: dict[str, str] | None = None,
    native: bool = True, max_line_bytes: int | None = None,
) -> Iterator[RecordBlock]:
    """Decode a JSONL file block by block (bounded memory).

    Malformed lines become ``block.problems`` (reported in line order with the block's
    validation problems by :func:`validated_arrays`).
    With ``native=True`` (noisefloor's own schema) a block may come back already validated as
    typed arrays (``block.arrays``, the Arrow fast path); readers of other line formats pass
    ``native=False`` and always get decoded ``records``. Blank (whitespace-only) lines are
    skipped. The final line, when it has no newline and does
    not decode, is reported as truncated (:class:`TruncatedLine`) instead of as an error.
    A line longer than ``max_line_bytes`` (default
    :data:`noisefloor.logs.jsonl.lines.MAX_LINE_BYTES`) is a ``line_length`` problem; it is skipped
    without being held in memory and reading goes on.
    """
    source = str(path)
    expect = dict(expect or {})
    limit = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    for block in iter_line_blocks(path, max_line_bytes=limit):
        if block.too_long is not None:
            sink.add([line_too_long(source, block.first_line, block.too_long, limit,
                                    block.is_tail)])
            continue
        if block.is_tail:
            raw = block.lines[0]
            try:
                obj = parse_strict(raw, allow_nan=allow_nan)
            except JSONProblem as exc:
                if exc.kind in ("json", "encoding") and exc.field is None:
                    sink.add_truncated(TruncatedLine(source, block.first_line, len(raw), str(exc)))
                    continue
                sink.add([LogProblem(source, block.first_line, exc.field, str(exc),
                                     kind=exc.kind, templates=exc.templates)])
                continue
            yield RecordBlock(source, [block.first_line], [obj], None, expect)
            continue
        # a block whose records hold an ``extra`` object is left to orjson at once (Arrow
        # would refuse it, but only after parsing up to it); the test only saves time
        arrays = (arrow_block(block.data, block.newlines)
                  if native and _EXTRA_OBJECT not in block.data else None)
        if arrays is not None:
            PATH_COUNTS["arrow"] += block.n_lines
            start = block.first_line
            yield RecordBlock(source, list(range(start, start + block.n_lines)), [], None,
                              expect, arrays=arrays)
            continue
        for part in _parts(block):  # decoded a part at a time: fewer objects alive at once
            typed = typed_block(part.data, part.newlines) if native else None
            if typed is not None:
                PATH_COUNTS["typed"] += part.n_lines
                start = part.first_line
                yield RecordBlock(source, list(range(start, start + part.n_lines)), [], None,
                                  expect, arrays=typed)
                continue
            fast = None if allow_nan else _decode_block_fast(part)
            if fast is not None:
                start = part.first_line
                yield RecordBlock(source, list(range(start, start + len(fast))), fast, None,
                                  expect)
                continue
            PATH_COUNTS["line_by_line"] += part.n_lines
            records: list[Any] = []
            lines: list[int] = []
            problems: list[LogProblem] = []
            number = part.first_line - 1
            for raw in part.lines:
                number += 1
                if not raw:
                    continue
                try:
                    obj = parse_fast(raw, allow_nan=allow_nan)
                except JSONProblem as exc:
                    if not raw.strip():
                        continue
                    problems.append(LogProblem(source, number, exc.field, str(exc),
                                               kind=exc.kind, templates=exc.templates))
                    continue
                records.append(obj)
                lines.append(number)
            if records or problems:
                yield RecordBlock(source, lines, records, None, expect, problems)


_EXTRA_OBJECT = b'"extra":{'
#: Bytes decoded into Python objects at once: a 4 MiB block of records becomes several
#: times that in dicts and strings, most of them freed as soon as the block's columns are
#: built, so a smaller part keeps the peak memory low.
PART_BYTES = 1024 * 1024


def _parts(block: LineBlock) -> Iterator[LineBlock]:
    """``block`` cut at line ends into parts of about :data:`PART_BYTES` (itself if small)."""
    data, newlines = block.data, block.newlines
    if len(data) <= 2 * PART_BYTES or not len(newlines):
        yield block
        return
    cuts = np.unique(np.searchsorted(newlines, np.arange(PART_BYTES, len(data), PART_BYTES)))
    cuts = cuts[cuts < len(newlines)]  # a cut after line i ends at newlines[i]
    begin, line, first = 0, block.first_line, 0  # first: index of the part's first newline
    for cut in cuts.tolist():
        part = LineBlock(line, data[begin:int(newlines[cut])],
                         newlines=newlines[first:cut] - begin)
        yield part
        line += part.n_lines
        begin, first = int(newlines[cut]) + 1, cut + 1
    yield LineBlock(line, data[begin:], newlines=newlines[first:] - begin)


def _decode_block_fast(block: LineBlock) -> list[dict[str, Any]] | None:
    """Decode a block whose every line is one JSON object, with C-level loops only.

    Returns None when any line is blank, malformed or not an object (the caller then goes line
    by line). Lines that the block's test (:func:`noisefloor.logs.jsonl.jsonparse.unsure_lines`)
    cannot vouch for -- a duplicate key, a ``\\u003a`` escape, an integer orjson widened --
    are decoded again with the reference parser, which raises :class:`JSONProblem` on a real
    problem: then this function returns None too.
    """
    lines = block.lines
    try:
        objs = list(map(orjson.loads, lines))
    except orjson.JSONDecodeError:
        return None
    if set(map(type, objs)) != {dict}:
        return None
    unsure = unsure_lines(lines, objs, block.data, block.newlines)
    for i in unsure:
        try:
            objs[i] = parse_strict(lines[i])
        except JSONProblem:
            return None
    PATH_COUNTS["strict"] += len(unsure)
    PATH_COUNTS["orjson"] += len(objs) - len(unsure)
    return objs


_INT64_MAX = 2**63 - 1


def _mib(n_bytes: int) -> str:
    return f"{n_bytes / 2**20:,.1f} MiB" if n_bytes >= 2**20 else f"{n_bytes:,} bytes"


def line_too_long(source: str, line: int, n_bytes: int, limit: int, is_tail: bool) -> LogProblem:
    """The problem reported for a line longer than the reader's maximum (see
    :func:`noisefloor.logs.jsonl.lines.iter_line_blocks`)."""
    where = " and no newline ends it (a truncated or zero-filled tail?)" if is_tail else ""
    return LogProblem(
        source, line, None,
        f"line is {_mib(n_bytes)} long{where}; it was not read (raise max_line_bytes, "
        "--max-line-bytes, if a record really is this long)",
        f"at most {_mib(limit)} per line", f"{n_bytes:,} bytes", kind="line_length")


def validated_arrays(
    block: RecordBlock, sink: ProblemSink, *, allow_nan: bool = False,
) -> tuple[dict[str, Any], list[int]]:
    """Validate a block; return typed arrays and line numbers of its valid records.

    Invalid records are left out and reported to ``sink`` together with the block's earlier
    problems, in line order (so fail-fast mode raises with the earliest problem first).
    """
    records = block.records
    problems = list(block.problems)
    lines = block.lines
    arrays = block.arrays
    if arrays is None and records and set(map(type, records)) == {dict}:
        arrays = fast_arrays(records)
    if arrays is None:
        columns, lines = _validate_each(block, problems, allow_nan)
        arrays = to_arrays(columns)
    if block.expect and lines:
        arrays, lines = _check_expected(block, arrays, lines, problems)
    if problems:
        problems.sort(key=lambda p: -1 if p.line is None else p.line)
        sink.add(problems)
    return arrays, lines


def _check_expected(
    block: RecordBlock, arrays: dict[str, Any], lines: list[int], found: list[LogProblem],
) -> tuple[dict[str, Any], list[int]]:
    """Drop (and report) rows whose label disagrees with a value the caller passed."""
    bad = np.zeros(len(lines), dtype=bool)
    for name, wanted in block.expect.items():
        bad |= ~pc.equal(arrays[name], wanted).to_numpy(zero_copy_only=False)
    if not bad.any():
        return arrays, lines
    problems = []
    for pos in np.flatnonzero(bad):
        for name, wanted in block.expect.items():
            value = arrays[name][pos].as_py()
            if value != wanted:
                problems.append(LogProblem(
                    block.source, lines[pos], name,
                    f"the record disagrees with {name}={wanted!r} passed by the caller",
                    repr(wanted), describe_value(value)))
    found.extend(problems)
    keep = ~bad
    kept = {name: (arr.filter(pa.array(keep)) if isinstance(arr, (pa.Array, pa.ChunkedArray))
                   else arr[keep]) for name, arr in arrays.items()}
    return kept, [line for line, k in zip(lines, keep) if k]


def _validate_each(
    block: RecordBlock, found: list[LogProblem], allow_nan: bool
) -> tuple[dict[str, list[Any]], list[int]]:
    good: list[dict[str, Any]] = []
    good_lines: list[int] = []
    for pos, (rec, line) in enumerate(zip(block.records, block.lines)):
        if block.raws is not None:
            # the reference decoder: exact integers (orjson widens > 64-bit ints to floats)
            try:
                rec = parse_strict(block.raws[pos], allow_nan=allow_nan)
            except JSONProblem as exc:
                found.append(LogProblem(block.source, line, exc.field, str(exc), kind=exc.kind,
                                   templates=exc.templates))
                continue
        result = validate_record(rec, block.source, line)
        if isinstance(result, TrialRecord):
            row = dict(result)
            wide = [name for name in ("trial", *NULLABLE_INT_FIELDS)
                    if row[name] is not None and not -_INT64_MAX - 1 <= row[name] <= _INT64_MAX]
            if wide:
                found.extend(LogProblem(
                    block.source, line, name, "integer outside the signed 64-bit range",
                    "an integer in [-2**63, 2**63)", describe_value(row[name])) for name in wide)
                continue
            good.append(row)
            good_lines.append(line)
        else:
            found.extend(result)
    return extract_columns(good), good_lines
