"""Trial records in, tidy DataFrames out: the schema, the strict JSONL reader, format readers.

Formats (:data:`FORMATS`): noisefloor JSONL, the noise-floor paper's layout, tau2-bench runs
(:mod:`noisefloor.logs.formats.tau2`), tau-bench v1 lists (:mod:`noisefloor.logs.formats.taubench`),
inspect_ai eval logs (:mod:`noisefloor.logs.formats.inspect`), Terminal-Bench runs and Harbor jobs.

Public API: :func:`load_trials` (files -> typed DataFrame), :func:`read_records` (streaming
:class:`TrialRecord` objects), :func:`validate_logs` (collect-all report), the schema
(:class:`TrialRecord`, :func:`trial_record_json_schema`), and the problem types
(:class:`LogValidationError`, :class:`LogProblem`, :class:`TruncatedLine`,
:class:`TruncatedLineWarning`, :class:`InfrastructureRewardWarning`).

Layout, bottom up (each layer imports only those below it): :mod:`~noisefloor.logs.schema`,
the record schema; :mod:`~noisefloor.logs.records`, the problem types and the typed frame;
:mod:`~noisefloor.logs.jsonl`, the JSONL reader and the validation pipeline every reader feeds;
:mod:`~noisefloor.logs.formats`, format detection and one reader per tool;
:mod:`~noisefloor.logs.load`, the entry points. Beside them: :mod:`~noisefloor.logs.runs` (a log
given with the label of its arm), :mod:`~noisefloor.logs.configuration` (what a run's tool
records about the system under test) and :mod:`~noisefloor.logs.annotations` (human annotation
tables, not trial logs).
"""

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.logs.formats.detect import FORMATS, detect_format
    from noisefloor.logs.load import ValidationReport, load_trials, read_records, validate_logs
    from noisefloor.logs.records.errors import (
        InfrastructureRewardWarning,
        LogProblem,
        LogValidationError,
        TruncatedLine,
        TruncatedLineWarning,
    )
    from noisefloor.logs.records.frame import COLUMNS, DTYPES
    from noisefloor.logs.schema import SCHEMA_VERSION, TrialRecord, trial_record_json_schema

#: Public name -> the module that defines it. The names load on first use, so that importing
#: one light module of the package (its errors, the configuration identity) does not load every
#: reader, pydantic and the JSON parser.
_HOMES = {
    "FORMATS": "formats.detect", "detect_format": "formats.detect",
    "InfrastructureRewardWarning": "records.errors", "LogProblem": "records.errors",
    "LogValidationError": "records.errors", "TruncatedLine": "records.errors",
    "TruncatedLineWarning": "records.errors",
    "COLUMNS": "records.frame", "DTYPES": "records.frame",
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
