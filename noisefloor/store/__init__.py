"""The task-scoped negative-knowledge store (the ET-MCP substrate of Kaliyev & Maryanskyy 2026).

Canonical coordination keys of tool calls (:mod:`~noisefloor.store.keys`); typed, versioned
events, ``failed_trial_action`` and ``failed_predicate`` (:mod:`~noisefloor.store.events`); the
backend interface and the task-scoped :class:`TaskView` (:mod:`~noisefloor.store.base`); the
embedded default backend, one SQLite file in WAL mode (:mod:`~noisefloor.store.sqlite`); and the
MCP server (``noisefloor store serve``) with its stdio transport (:mod:`noisefloor.store.mcp`).
The names below are imported on first use. Reference: Kaliyev & Maryanskyy (2026), "How Much
Coordination Gain Is Real? A Paired Noise-Floor Protocol for Multi-Agent LLM Benchmarks", KDD
2026 Workshop on Agentic AI Evaluation and Trustworthiness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.store.base import (
        MAX_EVENT_ID,
        EventStore,
        ScopeViolation,
        StoredEvent,
        StoreError,
        TaskView,
    )
    from noisefloor.store.events import (
        EVENT_SCHEMA_VERSION,
        Condition,
        FailedPredicate,
        FailedTrialAction,
        event_from_json,
        event_to_json,
        parse_event,
    )
    from noisefloor.store.keys import (
        MAX_ARGUMENT_DEPTH,
        call_fingerprint,
        canonical_arguments,
        canonical_key,
        check_depth,
    )
    from noisefloor.store.sqlite import SQLiteEventStore

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "Condition": "events",
    "EVENT_SCHEMA_VERSION": "events",
    "EventStore": "base",
    "FailedPredicate": "events",
    "FailedTrialAction": "events",
    "MAX_ARGUMENT_DEPTH": "keys",
    "MAX_EVENT_ID": "base",
    "SQLiteEventStore": "sqlite",
    "ScopeViolation": "base",
    "StoreError": "base",
    "StoredEvent": "base",
    "TaskView": "base",
    "call_fingerprint": "keys",
    "canonical_arguments": "keys",
    "canonical_key": "keys",
    "check_depth": "keys",
    "event_from_json": "events",
    "event_to_json": "events",
    "parse_event": "events",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
