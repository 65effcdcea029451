"""Trial records in, tidy DataFrames out: the schema, the strict JSONL reader, format readers.

Public API: :func:`load_trials` (files -> typed DataFrame), :func:`read_records` (streaming
:class:`TrialRecord` objects), :func:`validate_logs` (collect-all report), the schema
(:class:`TrialRecord`, :func:`trial_record_json_schema`), and the problem types
(:class:`LogValidationError`, :class:`LogProblem`, :class:`TruncatedLine`,
:class:`TruncatedLineWarning`, :class:`InfrastructureRewardWarning`).
"""

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
