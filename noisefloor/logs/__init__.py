"""Trial records in, tidy DataFrames out: the schema, the strict JSONL reader, format readers.

The formats (:data:`FORMATS`) are noisefloor JSONL, the noise-floor paper's layout, tau2-bench
runs (:mod:`~noisefloor.logs.formats.tau2`), tau-bench v1 lists
(:mod:`~noisefloor.logs.formats.taubench`), inspect_ai eval logs
(:mod:`~noisefloor.logs.formats.inspect`), Terminal-Bench runs and Harbor jobs. The public API is
:func:`load_trials` (files -> typed DataFrame; :func:`read_log_trials` also takes a trial frame
as it is), :func:`read_records` (streaming :class:`TrialRecord` objects), :func:`validate_logs`
(collect-all report), the schema (:class:`TrialRecord`, :func:`trial_record_json_schema`), the
problem types (:class:`LogValidationError`, :class:`LogProblem`, :class:`TruncatedLine`,
:class:`TruncatedLineWarning`, :class:`InfrastructureRewardWarning`), logs given with the label
of their arm (:func:`log_sources`) and what a run's tool records about the system under test
(:func:`parse_configuration`, :func:`describe_differences`). The layers, bottom up (each imports
only those below it): :mod:`~noisefloor.logs.schema`, the record schema;
:mod:`~noisefloor.logs.records`, the problem types and the typed frame;
:mod:`~noisefloor.logs.jsonl`, the JSONL reader and the validation pipeline every reader feeds;
:mod:`~noisefloor.logs.formats`, format detection and one reader per tool;
:mod:`~noisefloor.logs.load`, the entry points; beside them :mod:`~noisefloor.logs.runs`,
:mod:`~noisefloor.logs.configuration` and :mod:`~noisefloor.logs.annotations` (human annotation
tables, not trial logs). The names load on first use, so that importing one light module of the
package (its errors, the configuration identity) does not load every reader, pydantic and the
JSON parser.
"""

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.logs.configuration import (
        describe_differences,
        differing_fields,
        parse_configuration,
    )
    from noisefloor.logs.formats.detect import FORMATS, detect_format
    from noisefloor.logs.load import (
        ValidationReport,
        load_trials,
        read_log_trials,
        read_records,
        validate_logs,
    )
    from noisefloor.logs.records.errors import (
        InfrastructureRewardWarning,
        LogProblem,
        LogValidationError,
        TruncatedLine,
        TruncatedLineWarning,
    )
    from noisefloor.logs.records.frame import COLUMNS, DTYPES
    from noisefloor.logs.runs import (
        log_sources,
        logs_given,
        parse_log_spec,
        run_names,
        run_specs,
    )
    from noisefloor.logs.schema import (
        KEY_FIELDS,
        SCHEMA_VERSION,
        TrialRecord,
        trial_record_json_schema,
    )

#: Public name -> the module that defines it. The names load on first use, so that importing
#: one light module of the package (its errors, the configuration identity) does not load every
#: reader, pydantic and the JSON parser.
_HOMES = {
    "COLUMNS": "records.frame",
    "DTYPES": "records.frame",
    "FORMATS": "formats.detect",
    "InfrastructureRewardWarning": "records.errors",
    "KEY_FIELDS": "schema",
    "LogProblem": "records.errors",
    "LogValidationError": "records.errors",
    "SCHEMA_VERSION": "schema",
    "TrialRecord": "schema",
    "TruncatedLine": "records.errors",
    "TruncatedLineWarning": "records.errors",
    "ValidationReport": "load",
    "describe_differences": "configuration",
    "detect_format": "formats.detect",
    "differing_fields": "configuration",
    "load_trials": "load",
    "log_sources": "runs",
    "logs_given": "runs",
    "run_specs": "runs",
    "parse_configuration": "configuration",
    "parse_log_spec": "runs",
    "read_log_trials": "load",
    "read_records": "load",
    "run_names": "runs",
    "trial_record_json_schema": "schema",
    "validate_logs": "load",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "COLUMNS",
    "DTYPES",
    "FORMATS",
    "InfrastructureRewardWarning",
    "KEY_FIELDS",
    "LogProblem",
    "LogValidationError",
    "SCHEMA_VERSION",
    "TrialRecord",
    "TruncatedLine",
    "TruncatedLineWarning",
    "ValidationReport",
    "describe_differences",
    "detect_format",
    "differing_fields",
    "load_trials",
    "log_sources",
    "logs_given",
    "parse_configuration",
    "parse_log_spec",
    "read_log_trials",
    "read_records",
    "run_names",
    "run_specs",
    "trial_record_json_schema",
    "validate_logs",
]
