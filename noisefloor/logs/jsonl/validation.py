"""Validating decoded records against :class:`~noisefloor.logs.schema.TrialRecord`.

The pydantic model is the single source of truth: :func:`validate_record` runs it and turns
its errors into :class:`~noisefloor.logs.records.errors.LogProblem` objects naming file, line,
field, expected and received. The fast, column-at-a-time path lives in
:mod:`noisefloor.logs.jsonl.columns`.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from pydantic import ValidationError

from noisefloor.logs.records.errors import LogProblem, describe_value
from noisefloor.logs.schema import TrialRecord

__all__ = [
    "FIELDS",
    "FIELD_EXPECTED",
    "REQUIRED_FIELDS",
    "extract_columns",
    "infrastructure_reward_problem",
    "problems_from_error",
    "validate_record",
]

FIELDS: tuple[str, ...] = tuple(TrialRecord.model_fields)
REQUIRED_FIELDS: frozenset[str] = frozenset(
    name for name, info in TrialRecord.model_fields.items() if info.is_required()
)

#: What each field must hold, in words (used in error messages).
FIELD_EXPECTED: dict[str, str] = {
    "schema_version": 'the string "1"',
    "benchmark": "a non-empty string",
    "model": "a non-empty string",
    "protocol": "a non-empty string",
    "seed": "an integer or null",
    "task_id": "a non-empty string (task ids are never converted from numbers)",
    "trial": "an integer >= 0",
    "reward": "a number in [0, 1] or null",
    "termination_reason": "a string or null",
    "infrastructure_error": "true or false",
    "store_events_at_start": "an integer >= 0 or null",
    "injections": "an integer >= 0 or null",
    "first_request_sha256": "64 lowercase hex digits or null",
    "extra": "an object or null",
}



def problems_from_error(exc: ValidationError, source: str, line: int | None) -> list[LogProblem]:
    """Turn a pydantic :class:`~pydantic.ValidationError` into one :class:`LogProblem` per field.

    Parameters
    ----------
    exc : pydantic.ValidationError
        Raised by ``TrialRecord.model_validate``.
    source : str
        File the record came from.
    line : int or None
        Line (or record index) of the record.

    Returns
    -------
    list of LogProblem
        Each names the field, what was expected and what was received.
    """
    problems = []
    for err in exc.errors(include_url=False):
        field = ".".join(str(part) for part in err["loc"]) or None
        top = str(err["loc"][0]) if err["loc"] else None
        if err["type"] == "missing":
            problems.append(
                LogProblem(
                    source, line, field, "required field is missing",
                    FIELD_EXPECTED.get(top or "", None), "no such key (a missing field is not null)",
                )
            )
        elif err["type"] == "extra_forbidden":
            problems.append(
                LogProblem(
                    source, line, field, "unknown field (put free-form data under 'extra')",
                    "one of: " + ", ".join(FIELDS), describe_value(err["input"]),
                )
            )
        else:
            message = str(err["msg"]).removeprefix("Value error, ")
            problems.append(
                LogProblem(
                    source, line, field, message,
                    FIELD_EXPECTED.get(top or "", None), describe_value(err["input"]),
                )
            )
    return problems


def infrastructure_reward_problem(data: dict[str, Any], source: str,
                                  line: int | None) -> LogProblem | None:
    """The problem of a record that is an infrastructure error and still carries a reward.

    An infrastructure error means the trial never produced a result (API outage, harness
    crash), so its ``reward`` must be null. Accepting a reward there would have it silently
    left out of pass^k (``--infrastructure-errors exclude``) or counted as a failure
    (``fail``), so such a record is refused; the reader never guesses which field is wrong.

    Examples
    --------
    >>> rec = {"infrastructure_error": True, "reward": 1.0}
    >>> print(infrastructure_reward_problem(rec, "a.jsonl", 4))  # doctest: +ELLIPSIS
    a.jsonl:4: reward: a trial with infrastructure_error true never produced a result, ... (expected null when infrastructure_error is true, received a number 1.0)
    >>> infrastructure_reward_problem({**rec, "reward": None}, "a.jsonl", 4) is None
    True
    """
    if data.get("infrastructure_error") is not True or data.get("reward") is None:
        return None
    return LogProblem(
        source, line, "reward",
        "a trial with infrastructure_error true never produced a result, so it cannot carry a "
        "reward (make reward null, or infrastructure_error false if the trial did run)",
        "null when infrastructure_error is true", describe_value(data["reward"]))


def validate_record(data: Any, source: str, line: int | None) -> TrialRecord | list[LogProblem]:
    """Validate one decoded record; return the record or the list of its problems.

    Beyond :class:`TrialRecord`, a record with ``infrastructure_error: true`` must have a null
    ``reward`` (see :func:`infrastructure_reward_problem`).

    Examples
    --------
    >>> rec = {"schema_version": "1", "benchmark": "tau2/retail", "model": "m",
    ...        "protocol": "pull", "seed": 1, "task_id": "007", "trial": 0, "reward": None,
    ...        "termination_reason": None, "infrastructure_error": False}
    >>> validate_record(rec, "a.jsonl", 1).task_id
    '007'
    >>> print(validate_record({**rec, "task_id": 7}, "a.jsonl", 3)[0])  # doctest: +ELLIPSIS
    a.jsonl:3: task_id: Input should be a valid string (expected a non-empty string ..., received an integer 7)
    >>> bad = {**rec, "infrastructure_error": True, "reward": 1.0}
    >>> [(p.field, p.expected) for p in validate_record(bad, "a.jsonl", 5)]
    [('reward', 'null when infrastructure_error is true')]
    """
    if not isinstance(data, dict):
        return [
            LogProblem(source, line, None, "record is not a JSON object", "an object",
                       describe_value(data), kind="json")
        ]
    contradiction = infrastructure_reward_problem(data, source, line)
    try:
        record = TrialRecord.model_validate(data)
    except ValidationError as exc:
        problems = problems_from_error(exc, source, line)
        if contradiction is not None and not any(p.field == "reward" for p in problems):
            problems.append(contradiction)
        return problems
    return record if contradiction is None else [contradiction]


def extract_columns(records: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Return ``{field: [value of each record or None]}`` for every schema field.

    ``records`` must all be dicts.
    """
    get = dict.get
    return {name: list(map(get, records, repeat(name))) for name in FIELDS}
