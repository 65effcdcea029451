"""The shared reading pipeline: blocks of decoded records -> validated columns -> DataFrame.

Every format reader yields :class:`RecordBlock` objects (decoded JSON objects already mapped to
the :class:`~noisefloor.logs.schema.TrialRecord` field names, with their line numbers). This
module validates them, reports problems to a :class:`ProblemSink` (fail-fast or collect-all),
and feeds the valid rows to a :class:`~noisefloor.logs.frame.FrameBuilder`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from noisefloor.logs.errors import (
    LogProblem,
    LogValidationError,
    TruncatedLine,
    TruncatedLineWarning,
    describe_value,
)
from noisefloor.logs.jsonparse import JSONProblem, parse_fast, parse_strict
from noisefloor.logs.lines import iter_line_blocks
from noisefloor.logs.schema import TrialRecord
from noisefloor.logs.validation import block_is_valid, extract_columns, validate_record

__all__ = ["RecordBlock", "ProblemSink", "iter_jsonl_blocks", "validated_columns"]


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
        The raw JSONL lines, kept so that a block the fast test cannot vouch for is re-decoded
        with the reference parser before its records are validated one by one.
    expect : dict
        Values the caller passed (``benchmark=``, ``model=``, ``protocol=``) that every
        record of this block must carry.
    """

    source: str
    lines: list[int]
    records: list[Any]
    raws: list[bytes] | None = None
    expect: dict[str, str] = field(default_factory=dict)


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
) -> Iterator[RecordBlock]:
    """Decode a JSONL file block by block (bounded memory); malformed lines go to ``sink``.

    Blank (whitespace-only) lines are skipped. The final line, when it has no newline and does
    not decode, is reported as truncated (:class:`TruncatedLine`) instead of as an error.
    """
    source = str(path)
    expect = dict(expect or {})
    for block in iter_line_blocks(path):
        if block.is_tail:
            raw = block.lines[0]
            try:
                obj = parse_strict(raw, allow_nan=allow_nan)
            except JSONProblem as exc:
                if exc.kind in ("json", "encoding"):
                    sink.add_truncated(TruncatedLine(source, block.first_line, len(raw), str(exc)))
                    continue
                sink.add([LogProblem(source, block.first_line, None, str(exc), kind=exc.kind)])
                continue
            yield RecordBlock(source, [block.first_line], [obj], [raw], expect)
            continue
        records: list[Any] = []
        lines: list[int] = []
        raws: list[bytes] = []
        number = block.first_line - 1
        for raw in block.lines:
            number += 1
            if not raw:
                continue
            try:
                obj = parse_fast(raw, allow_nan=allow_nan)
            except JSONProblem as exc:
                if not raw.strip():
                    continue
                sink.add([LogProblem(source, number, None, str(exc), kind=exc.kind)])
                continue
            records.append(obj)
            lines.append(number)
            raws.append(raw)
        if records:
            yield RecordBlock(source, lines, records, raws, expect)


def _expect_problems(
    block_source: str, columns: dict[str, list[Any]], lines: list[int], expect: dict[str, str]
) -> list[int]:
    """Positions of rows whose field disagrees with a value the caller passed."""
    bad: set[int] = set()
    for name, wanted in expect.items():
        for pos, value in enumerate(columns[name]):
            if value != wanted:
                bad.add(pos)
    return sorted(bad)


def validated_columns(
    block: RecordBlock, sink: ProblemSink, *, allow_nan: bool = False,
) -> tuple[dict[str, list[Any]], list[int]]:
    """Validate a block; return the columns and line numbers of its valid records.

    Invalid records are reported to ``sink`` (which raises in fail-fast mode) and left out.
    """
    records = block.records
    if all(type(rec) is dict for rec in records):
        columns = extract_columns(records)
        if block_is_valid(records, columns):
            good_cols, good_lines = columns, block.lines
        else:
            good_cols, good_lines = _validate_each(block, sink, allow_nan)
    else:
        good_cols, good_lines = _validate_each(block, sink, allow_nan)
    if block.expect and good_lines:
        bad = _expect_problems(block.source, good_cols, good_lines, block.expect)
        if bad:
            problems = []
            for pos in bad:
                for name, wanted in block.expect.items():
                    value = good_cols[name][pos]
                    if value != wanted:
                        problems.append(LogProblem(
                            block.source, good_lines[pos], name,
                            f"the record disagrees with {name}={wanted!r} passed by the caller",
                            repr(wanted), describe_value(value)))
            sink.add(problems)
            keep = sorted(set(range(len(good_lines))) - set(bad))
            good_cols = {k: [v[i] for i in keep] for k, v in good_cols.items()}
            good_lines = [good_lines[i] for i in keep]
    return good_cols, good_lines


def _validate_each(
    block: RecordBlock, sink: ProblemSink, allow_nan: bool
) -> tuple[dict[str, list[Any]], list[int]]:
    good: list[dict[str, Any]] = []
    good_lines: list[int] = []
    for pos, (rec, line) in enumerate(zip(block.records, block.lines)):
        if block.raws is not None:
            # the reference decoder: exact integers (orjson widens > 64-bit ints to floats)
            rec = parse_strict(block.raws[pos], allow_nan=allow_nan)
        result = validate_record(rec, block.source, line)
        if isinstance(result, TrialRecord):
            good.append(dict(result))
            good_lines.append(line)
        else:
            sink.add(result)
    return extract_columns(good), good_lines
