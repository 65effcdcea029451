"""The task-scoped negative-knowledge store (the ET-MCP substrate).

* :mod:`noisefloor.store.keys`: canonical coordination keys of tool calls.
* :mod:`noisefloor.store.events`: typed, versioned events (``failed_trial_action``, ``failed_predicate``).
* :mod:`noisefloor.store.base`: the backend interface and the task-scoped :class:`TaskView`.
* :mod:`noisefloor.store.sqlite`: the embedded default backend (one SQLite file, WAL).
* :mod:`noisefloor.store.mcp`: the MCP server (``noisefloor store serve``) and its stdio transport.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from noisefloor.store.base import EventStore, ScopeViolation, StoredEvent, StoreError, TaskView
from noisefloor.store.events import (
    EVENT_SCHEMA_VERSION,
    Condition,
    FailedPredicate,
    FailedTrialAction,
    event_from_json,
    event_to_json,
    parse_event,
)
from noisefloor.store.keys import call_fingerprint, canonical_arguments, canonical_key
from noisefloor.store.sqlite import SQLiteEventStore

__all__ = [
    "EVENT_SCHEMA_VERSION",
    "Condition",
    "EventStore",
    "FailedPredicate",
    "FailedTrialAction",
    "SQLiteEventStore",
    "ScopeViolation",
    "StoreError",
    "StoredEvent",
    "TaskView",
    "call_fingerprint",
    "canonical_arguments",
    "canonical_key",
    "event_from_json",
    "event_to_json",
    "parse_event",
]
