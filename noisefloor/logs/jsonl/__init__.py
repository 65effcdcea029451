"""The JSONL reader, and the validation pipeline that every format reader feeds.

A JSONL log is streamed in blocks of lines with bounded memory
(:mod:`~noisefloor.logs.jsonl.lines`) and parsed strictly, duplicate keys, non-finite numbers
and bad UTF-8 refused, by the reference parser or a fast one that gives the same answer
(:mod:`~noisefloor.logs.jsonl.jsonparse`). Blocks are validated against
:class:`~noisefloor.logs.schema.TrialRecord` column at a time (Arrow, msgspec in
:mod:`~noisefloor.logs.jsonl.typed`, :mod:`~noisefloor.logs.jsonl.columns`) when those paths
can vouch for the whole block, else record by record with the pydantic model
(:mod:`~noisefloor.logs.jsonl.validation`), so speed never changes the verdict.
:mod:`~noisefloor.logs.jsonl.pipeline` joins them: every format reader yields
:class:`RecordBlock` objects and reports to a :class:`ProblemSink`, and
:func:`validated_arrays` turns each block into typed columns. The names below are imported on
first use.
"""

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.logs.jsonl.columns import (
        NULLABLE_INT_FIELDS,
        STRING_FIELDS,
        arrow_block,
        fast_arrays,
        to_arrays,
    )
    from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_fast, parse_strict, unsure_lines
    from noisefloor.logs.jsonl.lines import BLOCK_BYTES, MAX_LINE_BYTES, LineBlock, iter_line_blocks
    from noisefloor.logs.jsonl.pipeline import (
        PATH_COUNTS,
        ProblemSink,
        RecordBlock,
        iter_jsonl_blocks,
        validated_arrays,
    )
    from noisefloor.logs.jsonl.typed import typed_block
    from noisefloor.logs.jsonl.validation import (
        FIELD_EXPECTED,
        FIELDS,
        REQUIRED_FIELDS,
        extract_columns,
        infrastructure_reward_problem,
        problems_from_error,
        validate_record,
    )

#: Public name -> the module of this package that defines it (imported on first use).
_HOMES = {
    "NULLABLE_INT_FIELDS": "columns", "STRING_FIELDS": "columns", "arrow_block": "columns",
    "fast_arrays": "columns", "to_arrays": "columns",
    "JSONProblem": "jsonparse", "parse_fast": "jsonparse", "parse_strict": "jsonparse",
    "unsure_lines": "jsonparse",
    "BLOCK_BYTES": "lines", "LineBlock": "lines", "MAX_LINE_BYTES": "lines",
    "iter_line_blocks": "lines",
    "PATH_COUNTS": "pipeline", "ProblemSink": "pipeline", "RecordBlock": "pipeline",
    "iter_jsonl_blocks": "pipeline", "validated_arrays": "pipeline",
    "typed_block": "typed",
    "FIELDS": "validation", "FIELD_EXPECTED": "validation", "REQUIRED_FIELDS": "validation",
    "extract_columns": "validation", "infrastructure_reward_problem": "validation",
    "problems_from_error": "validation", "validate_record": "validation",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "BLOCK_BYTES",
    "FIELDS",
    "FIELD_EXPECTED",
    "MAX_LINE_BYTES",
    "NULLABLE_INT_FIELDS",
    "PATH_COUNTS",
    "REQUIRED_FIELDS",
    "STRING_FIELDS",
    "JSONProblem",
    "LineBlock",
    "ProblemSink",
    "RecordBlock",
    "arrow_block",
    "extract_columns",
    "fast_arrays",
    "infrastructure_reward_problem",
    "iter_jsonl_blocks",
    "iter_line_blocks",
    "parse_fast",
    "parse_strict",
    "problems_from_error",
    "to_arrays",
    "typed_block",
    "unsure_lines",
    "validate_record",
    "validated_arrays",
]
