"""Trial records in, tidy DataFrames out: the schema, the strict JSONL reader, format readers."""

from noisefloor.logs.schema import SCHEMA_VERSION, TrialRecord, trial_record_json_schema

__all__ = ["SCHEMA_VERSION", "TrialRecord", "trial_record_json_schema"]
