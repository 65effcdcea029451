"""The versioned trial-record schema: one JSON object per trial.

Every reader in :mod:`noisefloor.logs` (strict JSONL, tau2-bench, tau-bench, the noise-floor
paper's per-protocol layout) produces :class:`TrialRecord` objects, and the harness and the
coordination protocols write them, so everything downstream reads one shape.

``noisefloor log schema`` prints :func:`trial_record_json_schema`.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: The schema version written by this release. Readers accept exactly the versions listed in
#: :data:`SUPPORTED_SCHEMA_VERSIONS`.
SCHEMA_VERSION = "1"
SUPPORTED_SCHEMA_VERSIONS = ("1",)

#: Columns of the trial DataFrame, in order (see :func:`noisefloor.logs.load_trials`).
KEY_FIELDS = ("benchmark", "model", "protocol", "seed", "task_id", "trial")


def _unit_interval(schema: dict[str, Any]) -> None:
    """Put ``minimum: 0, maximum: 1`` on the number branch of the ``reward`` schema."""
    for branch in schema.get("anyOf", [schema]):
        if branch.get("type") == "number":
            branch["minimum"] = 0
            branch["maximum"] = 1


class TrialRecord(BaseModel):
    """One attempt of one task by one configuration.

    Required fields must be present in every record; ``reward`` and ``termination_reason``
    may be ``null`` but not missing (a missing field and an explicit null stay different:
    ``reward: null`` means the trial never produced a reward, a missing ``reward`` is an error).

    Attributes
    ----------
    schema_version : str
        Version of this schema; currently ``"1"``.
    benchmark : str
        Benchmark and domain, e.g. ``"tau2/retail"``.
    model : str
        Model (or model pair) under test.
    protocol : str
        Coordination configuration under test (``no_coord``, ``pull``, ``intercept``, ...).
    seed : int or None
        Run seed; ``None`` when the source log does not record one.
    task_id : str
        Task identifier, always a string (``"007"`` is never coerced to ``7``).
    trial : int
        Index of the attempt within the run, >= 0.
    reward : float or None
        Reward on [0, 1]; ``None`` when the trial never ran (harness or infrastructure error).
        The log readers (:func:`noisefloor.logs.load_trials`, ``noisefloor log validate``)
        refuse a record with ``infrastructure_error`` true and a non-null reward: such a trial
        never produced a result, and its reward would otherwise vanish from pass^k or turn into
        a failure. (The model itself accepts the combination, so code building records, e.g.
        :meth:`noisefloor.protocols.TrialSession.finish`, is not affected; the JSON Schema
        states the rule for external validators.)
    termination_reason : str or None
        Why the trial ended (``"user_stop"``, ``"max_steps"``, ``"harness_error:..."``, ...).
    infrastructure_error : bool
        True when the trial failed for reasons outside the agent (API outage, harness crash).
    store_events_at_start : int or None, optional
        Number of events in the task's coordination store when the trial started.
    injections : int or None, optional
        Number of coordination injections (e.g. ``[PEER-WARNING]`` blocks) during the trial.
    first_request_sha256 : str or None, optional
        Hex SHA-256 of the first model request, used to certify clean null contrasts.
    extra : dict or None, optional
        Free-form metadata carried through unchanged.
    """

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True,
        # The JSON Schema's description is plain prose, not this numpydoc docstring.
        json_schema_extra={"description": (
            "One attempt of one task by one configuration (noisefloor trial record, schema "
            "version 1). Required fields must be present in every record; reward and "
            "termination_reason may be null but not missing: a null reward means the trial "
            "never produced one, a missing reward is an error. A record whose "
            "infrastructure_error is true must have a null reward (the trial never produced "
            "a result). Free-form metadata goes under extra.")},
    )

    schema_version: Literal["1"]
    benchmark: str = Field(min_length=1)
    model: str = Field(min_length=1)
    protocol: str = Field(min_length=1)
    seed: int | None
    task_id: str = Field(min_length=1)
    trial: int = Field(ge=0)
    # The [0, 1] range is enforced (with its own message) by the validator below; the schema
    # states it so that external validators reject 1.5 too.
    reward: float | None = Field(json_schema_extra=lambda schema: _unit_interval(schema))
    termination_reason: str | None
    infrastructure_error: bool
    store_events_at_start: int | None = Field(default=None, ge=0)
    injections: int | None = Field(default=None, ge=0)
    first_request_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    extra: dict[str, Any] | None = None

    @field_validator("reward", mode="before")
    @classmethod
    def _reward_in_unit_interval(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("reward must be a number in [0, 1] or null, not a boolean")
        if isinstance(value, int):
            value = float(value)
        if isinstance(value, float):
            if math.isnan(value) or math.isinf(value):
                raise ValueError(f"reward must be a finite number in [0, 1] or null, got {value}")
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"reward must lie in [0, 1], got {value}")
        return value


def trial_record_json_schema() -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) of :class:`TrialRecord` as a dict."""
    schema = TrialRecord.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"noisefloor/trial-record/v{SCHEMA_VERSION}"
    # the readers' rule: an infrastructure error never produced a result, so no reward
    schema["if"] = {"properties": {"infrastructure_error": {"const": True}},
                    "required": ["infrastructure_error"]}
    schema["then"] = {"properties": {"reward": {"type": "null"}}}
    return schema
