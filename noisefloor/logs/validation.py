"""Validating decoded records against :class:`~noisefloor.logs.schema.TrialRecord`.

The pydantic model is the single source of truth. :func:`block_is_valid` is a fast,
column-at-a-time test whose acceptance implies that pydantic accepts every record of a block
(each check is as strict as or stricter than the model's); when it cannot vouch for a block,
every record of that block goes through the model, which produces the exact error. So the fast
path changes speed, never the verdict.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from pydantic import ValidationError

from noisefloor.logs.errors import LogProblem, describe_value
from noisefloor.logs.schema import TrialRecord

__all__ = [
    "FIELDS",
    "REQUIRED_FIELDS",
    "FIELD_EXPECTED",
    "block_is_valid",
    "extract_columns",
    "validate_record",
    "problems_from_error",
]

FIELDS: tuple[str, ...] = tuple(TrialRecord.model_fields)
REQUIRED_FIELDS: frozenset[str] = frozenset(
    name for name, info in TrialRecord.model_fields.items() if info.is_required()
)
_ALLOWED = frozenset(FIELDS)

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

_SHA256 = re.compile(r"[0-9a-f]{64}")
_NONE = type(None)


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


def validate_record(data: Any, source: str, line: int | None) -> TrialRecord | list[LogProblem]:
    """Validate one decoded record; return the record or the list of its problems.

    Examples
    --------
    >>> rec = {"schema_version": "1", "benchmark": "tau2/retail", "model": "m",
    ...        "protocol": "pull", "seed": 1, "task_id": "007", "trial": 0, "reward": None,
    ...        "termination_reason": None, "infrastructure_error": False}
    >>> validate_record(rec, "a.jsonl", 1).task_id
    '007'
    >>> print(validate_record({**rec, "task_id": 7}, "a.jsonl", 3)[0])  # doctest: +ELLIPSIS
    a.jsonl:3: task_id: Input should be a valid string (expected a non-empty string ..., received an integer 7)
    """
    if not isinstance(data, dict):
        return [
            LogProblem(source, line, None, "record is not a JSON object", "an object",
                       describe_value(data), kind="json")
        ]
    try:
        return TrialRecord.model_validate(data)
    except ValidationError as exc:
        return problems_from_error(exc, source, line)


def extract_columns(records: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Return ``{field: [value of each record or None]}`` for every schema field."""
    return {name: [rec.get(name) for rec in records] for name in FIELDS}


def _types(values: list[Any]) -> set[type]:
    return set(map(type, values))


def _non_negative_ints(values: list[Any], nullable: bool) -> bool:
    kinds = _types(values)
    allowed = {int, _NONE} if nullable else {int}
    if not kinds <= allowed:
        return False
    present = [v for v in values if v is not None] if _NONE in kinds else values
    return not present or min(present) >= 0


def block_is_valid(records: list[dict[str, Any]], columns: dict[str, list[Any]]) -> bool:
    """Fast test: True only if ``TrialRecord.model_validate`` accepts every record.

    Parameters
    ----------
    records : list of dict
        Decoded JSON objects (every element must be a ``dict``).
    columns : dict
        ``extract_columns(records)``.

    Returns
    -------
    bool
        False means "not vouched for", not "invalid": validate each record with the model.
    """
    if not records:
        return True
    required, allowed = REQUIRED_FIELDS, _ALLOWED
    for rec in records:
        keys = rec.keys()
        if not (keys >= required and keys <= allowed):
            return False
    col = columns
    if _types(col["schema_version"]) != {str} or set(col["schema_version"]) != {"1"}:
        return False
    for name in ("benchmark", "model", "protocol", "task_id"):
        if _types(col[name]) != {str} or min(map(len, col[name])) < 1:
            return False
    if not _types(col["seed"]) <= {int, _NONE}:
        return False
    if not _non_negative_ints(col["trial"], nullable=False):
        return False
    for name in ("store_events_at_start", "injections"):
        if not _non_negative_ints(col[name], nullable=True):
            return False
    reward_types = _types(col["reward"])
    if not reward_types <= {float, int, _NONE}:
        return False
    try:
        rewards = np.array(col["reward"], dtype=np.float64)  # None -> nan
    except (OverflowError, ValueError, TypeError):
        return False
    is_nan = np.isnan(rewards)
    n_none = sum(1 for v in col["reward"] if v is None) if _NONE in reward_types else 0
    if int(is_nan.sum()) != n_none:  # a NaN from the file (allow_nan=True) is not a null
        return False
    present = rewards[~is_nan] if n_none else rewards
    if present.size and not (present.min() >= 0.0 and present.max() <= 1.0):
        return False
    if not _types(col["termination_reason"]) <= {str, _NONE}:
        return False
    if _types(col["infrastructure_error"]) != {bool}:
        return False
    sha = col["first_request_sha256"]
    sha_types = _types(sha)
    if not sha_types <= {str, _NONE}:
        return False
    if str in sha_types:
        match = _SHA256.fullmatch
        if not all(match(v) for v in sha if v is not None):
            return False
    if not _types(col["extra"]) <= {dict, _NONE}:
        return False
    return True
