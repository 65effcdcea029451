"""Coordination protocols over the task-scoped store: writers, readers, and the plain-callables
session (see :mod:`noisefloor.protocols.session`); the LangChain middleware lives in
:mod:`noisefloor.protocols.langchain` (optional extra ``langchain``)."""

from noisefloor.protocols.predicates import call_facts, evaluate, lookup
from noisefloor.protocols.readers import (
    CallContext,
    Injection,
    Intercept,
    NoCoord,
    PredicateIntercept,
    Pull,
    Reader,
    ReaderStart,
    SelectiveIntercept,
    ToolSpec,
    TrialState,
    peer_warnings_summary,
    reader_by_name,
)
from noisefloor.protocols.session import Coordinator, TrialSession, request_sha256
from noisefloor.protocols.trace import ToolCall, TrialTrace, is_failure
from noisefloor.protocols.writers import (
    Attribution,
    JudgedWriter,
    LastKWriter,
    PredicateWriter,
    Writer,
    facts_extractor,
)

__all__ = [
    "Attribution",
    "CallContext",
    "Coordinator",
    "Injection",
    "Intercept",
    "JudgedWriter",
    "LastKWriter",
    "NoCoord",
    "PredicateIntercept",
    "PredicateWriter",
    "Pull",
    "Reader",
    "ReaderStart",
    "SelectiveIntercept",
    "ToolCall",
    "ToolSpec",
    "TrialSession",
    "TrialState",
    "TrialTrace",
    "Writer",
    "call_facts",
    "evaluate",
    "facts_extractor",
    "is_failure",
    "lookup",
    "peer_warnings_summary",
    "reader_by_name",
    "request_sha256",
]
