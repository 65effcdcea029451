"""Typed events of the task-scoped negative-knowledge store.

Every event carries ``schema_version`` (currently ``"1"``), an ``event_type`` discriminator, the
task it is scoped to, and who wrote it (trial, protocol, writer). Two event types exist:

``failed_trial_action``
    One of the final K tool calls of a trial that ended with reward < 1 (the writer of the paired
    noise-floor protocol, K = 3). Matched *literally* by the intercept readers through its
    canonical ``key``.
``failed_predicate``
    A failure stored as a typed predicate (tool ``cancel_order`` where ``order.status ==
    "shipped"``), so that it matches calls with other literal arguments (the protocol's "predicate
    constraint extraction" refinement).

New types are added as further members of :data:`StoreEvent` (a discriminated union on
``event_type``); readers skip types they do not understand.

Events are serialised with :func:`event_to_json` (ASCII-only JSON, so arguments holding bytes or
lone surrogates survive) and parsed back with :func:`event_from_json`.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import json
import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationInfo,
    field_validator,
    model_validator,
)

from noisefloor.store.keys import MAX_ARGUMENT_DEPTH, call_fingerprint, canonical_key, check_depth

__all__ = [
    "EVENT_SCHEMA_VERSION",
    "Condition",
    "FailedPredicate",
    "FailedTrialAction",
    "StoreEvent",
    "event_from_json",
    "event_to_json",
    "json_safe",
    "parse_event",
]

#: Version of the event schema written by this release.
EVENT_SCHEMA_VERSION: Final = "1"

#: Longest outcome text kept in an event (characters); longer outcomes are cut and marked.
MAX_OUTCOME_CHARS = 4000


def json_safe(value: Any, path: str = "$") -> Any:
    """Turn JSON-like data into plain JSON data, keeping every value recoverable.

    ``bytes`` become ``{"$bytes": <base64>}``, non-finite floats ``{"$float": "nan"|"inf"|"-inf"}``,
    ``Decimal`` a float (or int when integral), tuples lists. These tagged forms have the same
    canonical key as the original values (see :mod:`noisefloor.store.keys`), so a key computed
    before storage equals the key recomputed after a round trip.

    Raises
    ------
    TypeError
        For a value that is not JSON-like; the message names its path.

    Examples
    --------
    >>> json_safe({"a": b"\\xff", "b": (1, float("inf"))})
    {'a': {'$bytes': '/w=='}, 'b': [1, {'$float': 'inf'}]}
    """
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"$float": "nan"}
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, decimal.Decimal):
        if value.is_finite() and value == value.to_integral_value():
            return int(value)
        return json_safe(float(value), path)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"argument keys must be strings; got {key!r} at {path}")
            out[key] = json_safe(item, f"{path}.{key}")
        return out
    if isinstance(value, Sequence):
        return [json_safe(item, f"{path}[{i}]") for i, item in enumerate(value)]
    raise TypeError(f"cannot store a value of type {type(value).__name__} at {path}")


def _utcnow() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _check_text(value: str, field: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{field} must be valid Unicode text (it holds an unpaired surrogate at position "
            f"{exc.start}); put raw bytes in arguments, not in {field}"
        ) from None
    return value


class _EventBase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal["1"] = EVENT_SCHEMA_VERSION
    task_id: str = Field(min_length=1, max_length=4096)
    trial: int | None = Field(default=None, ge=0)
    protocol: str | None = None
    writer: str = Field(default="last_k", min_length=1)
    run_id: str | None = None
    attempt_id: str | None = None
    timestamp: _dt.datetime = Field(default_factory=_utcnow)

    @field_validator("task_id", "protocol", "writer", "run_id", "attempt_id", mode="before")
    @classmethod
    def _text_only(cls, value: Any, info: Any) -> Any:
        # pydantic would decode bytes to str; the store's queries take str only, so bytes are
        # refused here too (one rule for writing and reading)
        if isinstance(value, (bytes, bytearray, memoryview)):
            raise ValueError(  # pydantic turns ValueError into a field error
                f"{info.field_name} must be a string, got {type(value).__name__}; decode it "
                "first (bytes belong in arguments, which keep them apart from text)"
            )
        return value

    @field_validator("task_id", "protocol", "writer", "run_id", "attempt_id")
    @classmethod
    def _utf8_text(cls, value: str | None, info: Any) -> str | None:
        return None if value is None else _check_text(value, info.field_name)

    @field_validator("timestamp")
    @classmethod
    def _aware(cls, value: _dt.datetime) -> _dt.datetime:
        if value.tzinfo is None:
            raise ValueError("timestamp must be timezone-aware (e.g. UTC)")
        return value


class FailedTrialAction(_EventBase):
    """One of the final K tool calls of a failed trial.

    Attributes
    ----------
    event_type : "failed_trial_action"
    schema_version : "1"
    task_id : str
        Task the event is scoped to; readers of other tasks never see it.
    trial : int or None
        Index of the trial that failed.
    protocol : str or None
        Protocol the failing trial ran under.
    writer : str
        Name of the writer that produced the event (``"last_k"``, ``"judged"``, ...).
    run_id : str or None
        Optional identifier of the run (seed, worker).
    attempt_id : str or None
        Identifier of the failed attempt (all events one trial wrote share it).
    timestamp : datetime
        When the event was made (UTC, timezone-aware).
    tool_name : str
        Tool called.
    arguments : dict
        Its arguments, made JSON-safe by :func:`json_safe`.
    key : str
        ``canonical_key(tool_name, arguments)``; computed, a supplied value must agree.
    fingerprint : str
        ``call_fingerprint(tool_name, arguments)``, the literal call (for alarm R3,
        the key-collision rate).
    outcome : str
        What the tool returned (or the error), cut to 4000 characters.
    reward : float
        Final reward of the failed trial, in [0, 1).
    position : int
        Place of the call counted back from the end of the trial: 1 = the final call.
    k : int
        Number of final calls the writer considered (3 in the noise-floor protocol).
    weight : float
        Attribution weight in [0, 1]; 1 for the last-K writer, a judge's score otherwise.

    Raises
    ------
    pydantic.ValidationError
        On construction with a bad field (reward outside [0, 1), ``position > k``, a naive
        timestamp, unknown fields, a ``key`` that disagrees with the arguments, ...). Use
        :func:`parse_event` for a :class:`ValueError` naming the source.

    Examples
    --------
    ``key`` and ``fingerprint`` are computed; neither depends on the order of the arguments:

    >>> from noisefloor.store import FailedTrialAction
    >>> e = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
    ...                       arguments={"order_id": "#W1", "reason": "dup"},
    ...                       reward=0.0, position=1, k=3)
    >>> e.key
    'cancel_order:...'
    >>> g = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
    ...                       arguments={"reason": "dup", "order_id": "#W1"},
    ...                       reward=0.0, position=1, k=3)
    >>> g.key == e.key, g.fingerprint == e.fingerprint
    (True, True)
    >>> e.event_type, e.writer, e.weight
    ('failed_trial_action', 'last_k', 1.0)
    """

    event_type: Literal["failed_trial_action"] = "failed_trial_action"
    tool_name: str = Field(min_length=1, max_length=1024)
    arguments: dict[str, Any] = Field(default_factory=dict)
    key: str = ""
    fingerprint: str = ""
    outcome: str = ""
    reward: float = Field(ge=0.0, lt=1.0)
    position: int = Field(ge=1)
    k: int = Field(ge=1)
    weight: float = Field(default=1.0, ge=0.0, le=1.0)

    @field_validator("tool_name", mode="before")
    @classmethod
    def _tool_is_text(cls, value: Any) -> Any:
        if isinstance(value, (bytes, bytearray, memoryview)):
            raise ValueError(f"tool_name must be a string, got {type(value).__name__}")
        return value

    @field_validator("tool_name")
    @classmethod
    def _tool_text(cls, value: str) -> str:
        return _check_text(value, "tool_name")

    @field_validator("arguments", mode="before")
    @classmethod
    def _safe_arguments(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"arguments given as a string must be a JSON object: {exc.msg}") from exc
            except RecursionError:
                raise ValueError(f"arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels") from None
        check_depth(value)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ValueError(  # pydantic turns ValueError into a field error
                f"arguments must be an object (mapping), got {type(value).__name__}"
            )
        return json_safe(value)

    @field_validator("outcome", mode="before")
    @classmethod
    def _cut_outcome(cls, value: Any) -> Any:
        if isinstance(value, str) and len(value) > MAX_OUTCOME_CHARS:
            return value[:MAX_OUTCOME_CHARS] + f"... [cut, {len(value)} chars]"
        return value

    @model_validator(mode="after")
    def _keys(self, info: ValidationInfo) -> FailedTrialAction:
        if self.position > self.k:
            raise ValueError(f"position ({self.position}) must be <= k ({self.k})")
        if info.context and info.context.get("trusted_keys") and self.key and self.fingerprint:
            return self  # read back from a store that verified the keys when it was written
        key = canonical_key(self.tool_name, self.arguments)
        if self.key and self.key != key:
            raise ValueError(f"key {self.key!r} does not match canonical_key(...) = {key!r}")
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "fingerprint", call_fingerprint(self.tool_name, self.arguments))
        return self


Operator = Literal["eq", "ne", "in", "not_in", "lt", "le", "gt", "ge", "exists"]


class Condition(BaseModel):
    """One typed clause of a predicate: ``<path> <op> <value>``.

    ``path`` is a dotted path into the *facts* of a call: ``args.<name>`` for the call's own
    arguments, any other root (``order.status``) for state a fact resolver supplies.

    Attributes
    ----------
    path : str
        Dotted identifier path, e.g. ``"args.order_id"`` or ``"order.status"``.
    op : {"eq", "ne", "in", "not_in", "lt", "le", "gt", "ge", "exists"}, default "eq"
        Comparison operator.
    value : object, default None
        Right-hand side: a list for ``in``/``not_in``, a number or string for the orderings.

    Raises
    ------
    pydantic.ValidationError
        On a malformed path or a value that does not fit the operator.

    Examples
    --------
    >>> from noisefloor.store import Condition
    >>> Condition(path="order.status", value="shipped")
    Condition(path='order.status', op='eq', value='shipped')
    >>> Condition(path="args.amount", op="gt", value=100).op
    'gt'
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$")
    op: Operator = "eq"
    value: Any = None

    @field_validator("value", mode="before")
    @classmethod
    def _shallow(cls, value: Any) -> Any:
        check_depth(value, "a condition's value")
        return value

    @model_validator(mode="after")
    def _value_fits_op(self) -> Condition:
        if self.op in ("in", "not_in") and not isinstance(self.value, list):
            raise ValueError(f"op {self.op!r} needs a list value, got {type(self.value).__name__}")
        if self.op in ("lt", "le", "gt", "ge") and (
            isinstance(self.value, bool) or not isinstance(self.value, (int, float, str))
        ):
            raise ValueError(f"op {self.op!r} needs a number or string value")
        return self


class FailedPredicate(_EventBase):
    """A failure stored as a typed predicate over a tool call and the state it touches.

    Attributes
    ----------
    event_type : "failed_predicate"
    tool_name : str
        Tool the predicate is about.
    conditions : list of Condition
        All must hold for a call to match (conjunction); an empty list matches every call of
        the tool.
    key : str
        Predicate key: ``"<tool_name>:pred:" + canonical hash of the conditions``.
    outcome, reward, position, k, weight
        As for :class:`FailedTrialAction`.
    source_key : str or None
        Literal key of the call the predicate was extracted from.

    Raises
    ------
    pydantic.ValidationError
        On construction with a bad field or a ``key`` that disagrees with the conditions.

    Examples
    --------
    The predicate key does not depend on the order of the conditions:

    >>> from noisefloor.store import Condition, FailedPredicate
    >>> shipped = Condition(path="order.status", value="shipped")
    >>> big = Condition(path="args.amount", op="gt", value=100)
    >>> p = FailedPredicate(task_id="T1", tool_name="cancel_order", conditions=[shipped, big],
    ...                     reward=0.0)
    >>> p.key.startswith("cancel_order:pred:")
    True
    >>> p.key == FailedPredicate(task_id="T1", tool_name="cancel_order",
    ...                          conditions=[big, shipped], reward=0.0).key
    True
    """

    event_type: Literal["failed_predicate"] = "failed_predicate"
    tool_name: str = Field(min_length=1, max_length=1024)
    conditions: list[Condition] = Field(default_factory=list)
    key: str = ""
    outcome: str = ""
    reward: float = Field(ge=0.0, lt=1.0)
    position: int = Field(default=1, ge=1)
    k: int = Field(default=1, ge=1)
    weight: float = Field(default=1.0, ge=0.0, le=1.0)
    source_key: str | None = None

    @field_validator("tool_name", mode="before")
    @classmethod
    def _tool_is_text(cls, value: Any) -> Any:
        if isinstance(value, (bytes, bytearray, memoryview)):
            raise ValueError(f"tool_name must be a string, got {type(value).__name__}")
        return value

    @field_validator("tool_name")
    @classmethod
    def _tool_text(cls, value: str) -> str:
        return _check_text(value, "tool_name")

    @model_validator(mode="after")
    def _predicate_key(self) -> FailedPredicate:
        clauses = sorted(
            ([c.path, c.op, json_safe(c.value)] for c in self.conditions),
            key=lambda clause: json.dumps(clause, sort_keys=True, ensure_ascii=True),
        )
        key = canonical_key(self.tool_name, {"$predicate": clauses})
        key = key.replace(":", ":pred:", 1)
        if self.key and self.key != key:
            raise ValueError(f"key {self.key!r} does not match the predicate key {key!r}")
        if self.position > self.k:
            raise ValueError(f"position ({self.position}) must be <= k ({self.k})")
        object.__setattr__(self, "key", key)
        return self


#: Any event the store holds (discriminated on ``event_type``).
StoreEvent = Annotated[FailedTrialAction | FailedPredicate, Field(discriminator="event_type")]

_ADAPTER: TypeAdapter[Any] = TypeAdapter(StoreEvent)


def event_to_json(event: FailedTrialAction | FailedPredicate) -> str:
    """Serialise an event to ASCII-only JSON text (lossless, NaN-free).

    Parameters
    ----------
    event : FailedTrialAction or FailedPredicate

    Returns
    -------
    str
        Compact JSON (no spaces), non-ASCII characters escaped.

    Examples
    --------
    >>> e = FailedTrialAction(task_id="t1", trial=0, tool_name="f", arguments={"x": 1},
    ...                       reward=0.0, position=1, k=3,
    ...                       timestamp="2026-01-01T00:00:00Z")
    >>> event_from_json(event_to_json(e)) == e
    True
    """
    return json.dumps(event.model_dump(mode="json", round_trip=True), ensure_ascii=True,
                      allow_nan=False, separators=(",", ":"))


def event_from_json(text: str | bytes, *, source: str = "<event>") -> FailedTrialAction | FailedPredicate:
    """Parse one event from JSON text, validating it.

    Parameters
    ----------
    text : str or bytes
        One JSON object, as written by :func:`event_to_json`.
    source : str, default "<event>"
        Where the text came from (file and line), used in error messages.

    Returns
    -------
    FailedTrialAction or FailedPredicate
        Chosen by the ``event_type`` field.

    Raises
    ------
    ValueError
        Naming ``source``, when the text is not JSON, has an unsupported ``schema_version``, or
        fails validation (the message lists each failing field).

    Examples
    --------
    >>> from noisefloor.store import event_from_json
    >>> e = event_from_json('{"event_type": "failed_predicate", "task_id": "T1", '
    ...                     '"tool_name": "cancel_order", "reward": 0.0}')
    >>> type(e).__name__, e.conditions
    ('FailedPredicate', [])
    >>> event_from_json('{"schema_version": "2"}', source="events.jsonl:3")
    Traceback (most recent call last):
    ...
    ValueError: events.jsonl:3: unsupported schema_version '2'; this release reads '1'
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{source}: not valid JSON ({exc})") from None
    if isinstance(data, dict) and data.get("schema_version") not in (None, EVENT_SCHEMA_VERSION):
        raise ValueError(
            f"{source}: unsupported schema_version {data.get('schema_version')!r}; "
            f"this release reads {EVENT_SCHEMA_VERSION!r}"
        )
    return parse_event(data, source=source)


def parse_event(data: Any, *, source: str = "<event>", trusted_keys: bool = False) -> FailedTrialAction | FailedPredicate:
    """Validate a mapping as a :data:`StoreEvent`; errors name ``source`` and each field.

    ``trusted_keys=True`` (used when reading a store back) keeps a stored ``key`` and
    ``fingerprint`` of a ``failed_trial_action`` without recomputing them; they were checked
    when the event was made.

    Parameters
    ----------
    data : mapping
        The event's fields, with ``event_type`` ``"failed_trial_action"`` or
        ``"failed_predicate"``.
    source : str, default "<event>"
        Where the data came from, used in error messages.
    trusted_keys : bool, default False
        Keep stored keys without recomputing them (only for data read back from a store).

    Returns
    -------
    FailedTrialAction or FailedPredicate

    Raises
    ------
    ValueError
        ``"<source>: invalid event: <field>: <problem>; ..."`` when validation fails.

    Examples
    --------
    >>> from noisefloor.store import parse_event
    >>> e = parse_event({"event_type": "failed_trial_action", "task_id": "T1",
    ...                  "tool_name": "f", "arguments": {"x": 1}, "reward": 0.0,
    ...                  "position": 1, "k": 3})
    >>> e.key
    'f:...'
    >>> parse_event({"event_type": "failed_trial_action", "task_id": "T1", "tool_name": "f",
    ...              "reward": 1.0, "position": 1, "k": 3}, source="run.jsonl:4")
    Traceback (most recent call last):
    ...
    ValueError: run.jsonl:4: invalid event: failed_trial_action.reward: Input should be less than 1
    """
    from pydantic import ValidationError

    try:
        return _ADAPTER.validate_python(data, context={"trusted_keys": trusted_keys})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ValueError(f"{source}: invalid event: {problems}") from None
