"""Trial records in, tidy DataFrames out: the schema, the strict JSONL reader, format readers.

Formats (:data:`FORMATS`): noisefloor JSONL, the noise-floor paper's layout, tau2-bench runs
(:mod:`noisefloor.logs.tau2`), tau-bench v1 lists (:mod:`noisefloor.logs.taubench`) and
inspect_ai eval logs (:mod:`noisefloor.logs.inspect`).

Public API: :func:`load_trials` (files -> typed DataFrame), :func:`read_records` (streaming
:class:`TrialRecord` objects), :func:`validate_logs` (collect-all report), the schema
(:class:`TrialRecord`, :func:`trial_record_json_schema`), and the problem types
(:class:`LogValidationError`, :class:`LogProblem`, :class:`TruncatedLine`,
:class:`TruncatedLineWarning`, :class:`InfrastructureRewardWarning`).
"""

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.logs.detect import FORMATS, detect_format
    from noisefloor.logs.errors import (
        InfrastructureRewardWarning,
        LogProblem,
        LogValidationError,
        TruncatedLine,
        TruncatedLineWarning,
    )
    from noisefloor.logs.frame import COLUMNS, DTYPES
    from noisefloor.logs.load import ValidationReport, load_trials, read_records, validate_logs
    from noisefloor.logs.schema import SCHEMA_VERSION, TrialRecord, trial_record_json_schema

#: Public name -> the module that defines it. The names load on first use, so that importing
#: one light module of the package (its errors, the configuration identity) does not load every
#: reader, pydantic and the JSON parser.
_HOMES = {
    "FORMATS": "detect", "detect_format": "detect",
    "InfrastructureRewardWarning": "errors", "LogProblem": "errors",
    "LogValidationError": "errors", "TruncatedLine": "errors", "TruncatedLineWarning": "errors",
    "COLUMNS": "frame", "DTYPES": "frame",
    "ValidationReport": "load", "load_trials": "load", "read_records": "load",
    "validate_logs": "load",
    "SCHEMA_VERSION": "schema", "TrialRecord": "schema", "trial_record_json_schema": "schema",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "COLUMNS",
    "DTYPES",
    "FORMATS",
    "SCHEMA_VERSION",
    "InfrastructureRewardWarning",
    "LogProblem",
    "LogValidationError",
    "TrialRecord",
    "TruncatedLine",
    "TruncatedLineWarning",
    "ValidationReport",
    "detect_format",
    "load_trials",
    "read_records",
    "trial_record_json_schema",
    "validate_logs",
]
