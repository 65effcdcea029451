"""Trial records once read: the problems found in them and the typed frame they fill.

:mod:`~noisefloor.logs.records.errors` holds what every reader reports (:class:`LogProblem`,
:class:`LogValidationError`, :class:`TruncatedLine` and the reader's warnings);
:mod:`~noisefloor.logs.records.frame` assembles validated columns into the trial DataFrame
(:data:`COLUMNS`, :data:`DTYPES`, :class:`FrameBuilder`), whose free-form ``extra`` column is
the Arrow-backed :class:`ExtraArray` of :mod:`~noisefloor.logs.records.extra`;
:mod:`~noisefloor.logs.records.duplicates` finds a trial given twice in logs too large to keep,
by hashes of its key. This is the bottom layer of :mod:`noisefloor.logs`: the JSONL pipeline,
the format readers and the loader build on it, and it imports none of them. The names below
are imported on first use.
"""

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.logs.records.duplicates import DuplicateIndex, key_hashes
    from noisefloor.logs.records.errors import (
        InfrastructureRewardWarning,
        LogProblem,
        LogValidationError,
        TruncatedLine,
        TruncatedLineWarning,
        describe_value,
    )
    from noisefloor.logs.records.extra import (
        TEXT_TYPE,
        ExtraArray,
        ExtraDtype,
        decode_extra,
        encode_extra,
        extra_texts,
    )
    from noisefloor.logs.records.frame import (
        ARROW_STRING,
        COLUMNS,
        DTYPES,
        RECORD_COLUMNS,
        RUN_COLUMNS,
        STRING_DTYPE,
        FrameBuilder,
        duplicate_rows,
        empty_frame,
        string_array,
    )

#: Public name -> the module of this package that defines it (imported on first use).
_HOMES = {
    "ARROW_STRING": "frame",
    "COLUMNS": "frame",
    "DTYPES": "frame",
    "DuplicateIndex": "duplicates",
    "ExtraArray": "extra",
    "ExtraDtype": "extra",
    "FrameBuilder": "frame",
    "InfrastructureRewardWarning": "errors",
    "LogProblem": "errors",
    "LogValidationError": "errors",
    "RECORD_COLUMNS": "frame",
    "RUN_COLUMNS": "frame",
    "STRING_DTYPE": "frame",
    "TEXT_TYPE": "extra",
    "TruncatedLine": "errors",
    "TruncatedLineWarning": "errors",
    "decode_extra": "extra",
    "describe_value": "errors",
    "duplicate_rows": "frame",
    "empty_frame": "frame",
    "encode_extra": "extra",
    "extra_texts": "extra",
    "key_hashes": "duplicates",
    "string_array": "frame",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "ARROW_STRING",
    "COLUMNS",
    "DTYPES",
    "DuplicateIndex",
    "ExtraArray",
    "ExtraDtype",
    "FrameBuilder",
    "InfrastructureRewardWarning",
    "LogProblem",
    "LogValidationError",
    "RECORD_COLUMNS",
    "RUN_COLUMNS",
    "STRING_DTYPE",
    "TEXT_TYPE",
    "TruncatedLine",
    "TruncatedLineWarning",
    "decode_extra",
    "describe_value",
    "duplicate_rows",
    "empty_frame",
    "encode_extra",
    "extra_texts",
    "key_hashes",
    "string_array",
]
