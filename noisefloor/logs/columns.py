"""Column-at-a-time validation and conversion of a block of decoded records.

:func:`fast_arrays` converts a block of decoded JSON objects straight to typed arrays and
returns ``None`` whenever it cannot vouch that ``TrialRecord.model_validate`` would accept
*every* record of the block; the caller then validates that block record by record with the
model, which names the exact problem. So this module changes speed, never the verdict.

Each check mirrors one constraint of the strict model: required keys present and no unknown key
(each distinct key sequence is checked once), exact JSON types (a ``bool`` is not an ``int``,
an ``int`` is not a ``str``, ``1.0`` is not an ``int``), bounds, the SHA-256 pattern. Every
loop runs in C (``map``, ``set``, Arrow, numpy), which is what makes 10^6 records fast.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from noisefloor.logs.validation import FIELDS, REQUIRED_FIELDS, extract_columns

__all__ = ["fast_arrays", "to_arrays", "STRING_FIELDS", "NULLABLE_INT_FIELDS"]

STRING_FIELDS = ("schema_version", "benchmark", "model", "protocol", "task_id",
                 "termination_reason", "first_request_sha256")
NULLABLE_INT_FIELDS = ("seed", "store_events_at_start", "injections")
_NON_EMPTY = ("benchmark", "model", "protocol", "task_id")
_NULLABLE_STR = ("termination_reason", "first_request_sha256")
_ALLOWED = frozenset(FIELDS)
_NONE = type(None)
_SHA256 = r"^[0-9a-f]{64}$"  # RE2: $ is the end of the text
_INT64_MAX = 2**63 - 1


def to_arrays(columns: dict[str, list[Any]]) -> dict[str, Any]:
    """Convert validated columns to arrays (Arrow strings/ints/bools, numpy floats/objects).

    Raises
    ------
    OverflowError
        An integer outside the signed 64-bit range (the model allows it, the table cannot).
    """
    arrays: dict[str, Any] = {}
    for name in STRING_FIELDS:
        arrays[name] = pa.array(columns[name], type=pa.string())
    for name in NULLABLE_INT_FIELDS:
        arrays[name] = pa.array(columns[name], type=pa.int64())
    arrays["trial"] = np.array(columns["trial"], dtype=np.int64)
    arrays["reward"] = np.array(columns["reward"], dtype=np.float64)
    arrays["infrastructure_error"] = np.array(columns["infrastructure_error"], dtype=bool)
    extra = np.empty(len(columns["extra"]), dtype=object)
    extra[:] = columns["extra"]
    arrays["extra"] = extra
    return arrays


def _int_column_ok(values: list[Any], nullable: bool) -> bool:
    kinds = set(map(type, values))
    if not kinds <= ({int, _NONE} if nullable else {int}):
        return False
    if _NONE in kinds:
        values = [v for v in values if v is not None]
    return not values or (min(values) >= 0 and max(values) <= _INT64_MAX)


def fast_arrays(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Validate and convert a block in one go; None if any record might be invalid.

    Parameters
    ----------
    records : list of dict
        Decoded JSON objects (each must be a ``dict``).

    Returns
    -------
    dict or None
        ``{field: array}`` as :func:`to_arrays` returns it, or None ("not vouched for": run
        the model on each record).
    """
    if not records:
        return None
    for keys in set(map(tuple, records)):
        if not (REQUIRED_FIELDS.issubset(keys) and _ALLOWED.issuperset(keys)):
            return None
    col = extract_columns(records)
    arrays: dict[str, Any] = {}
    try:
        for name in STRING_FIELDS:  # Arrow rejects any non-string (JSON yields no bytes)
            arrays[name] = pa.array(col[name], type=pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        return None
    version = arrays["schema_version"]
    if version.null_count or pc.any(pc.not_equal(version, "1")).as_py():
        return None
    for name in _NON_EMPTY:
        arr = arrays[name]
        if arr.null_count or pc.min(pc.utf8_length(arr)).as_py() < 1:
            return None
    sha = arrays["first_request_sha256"]
    if sha.null_count < len(sha):
        if not pc.all(pc.match_substring_regex(sha.drop_null(), _SHA256)).as_py():
            return None
    if not set(map(type, col["seed"])) <= {int, _NONE}:
        return None
    if not _int_column_ok(col["trial"], nullable=False):
        return None
    for name in ("store_events_at_start", "injections"):
        if not _int_column_ok(col[name], nullable=True):
            return None
    try:
        for name in NULLABLE_INT_FIELDS:
            arrays[name] = pa.array(col[name], type=pa.int64())
    except (OverflowError, pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    reward = col["reward"]
    reward_types = set(map(type, reward))
    if not reward_types <= {float, int, _NONE}:
        return None
    try:
        rewards = np.array(reward, dtype=np.float64)  # None -> nan
    except (OverflowError, ValueError, TypeError):
        return None
    is_nan = np.isnan(rewards)
    n_none = reward.count(None) if _NONE in reward_types else 0
    if int(is_nan.sum()) != n_none:  # a NaN read with allow_nan=True is not a null
        return None
    present = rewards[~is_nan] if n_none else rewards
    if present.size and not (present.min() >= 0.0 and present.max() <= 1.0):
        return None
    arrays["reward"] = rewards
    if set(map(type, col["infrastructure_error"])) != {bool}:
        return None
    arrays["infrastructure_error"] = np.array(col["infrastructure_error"], dtype=bool)
    arrays["trial"] = np.array(col["trial"], dtype=np.int64)
    extra = col["extra"]
    if not set(map(type, extra)) <= {dict, _NONE}:
        return None
    extra_arr = np.empty(len(extra), dtype=object)
    extra_arr[:] = extra
    arrays["extra"] = extra_arr
    return arrays
