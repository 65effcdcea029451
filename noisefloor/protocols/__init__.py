"""Coordination protocols over the task-scoped store: writers, readers, and the plain-callables
session (see :mod:`noisefloor.protocols.session`); the LangChain middleware lives in
:mod:`noisefloor.protocols.langchain` (optional extra ``langchain``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.protocols.blocking import BlockingEndpoints
    from noisefloor.protocols.event_text import attempt_of, short_text
    from noisefloor.protocols.intercept import WARNING_CLOSE, WARNING_OPEN, warning_block
    from noisefloor.protocols.langchain import CoordinationMiddleware
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
    from noisefloor.protocols.refinements import (
        ModelCaller,
        ModelGate,
        ModelJudge,
        ModelPredicateExtractor,
        load_prompt,
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

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "Attribution": "writers",
    "BlockingEndpoints": "blocking",
    "CallContext": "readers",
    "CoordinationMiddleware": "langchain",
    "Coordinator": "session",
    "Injection": "readers",
    "Intercept": "readers",
    "JudgedWriter": "writers",
    "LastKWriter": "writers",
    "ModelCaller": "refinements",
    "ModelGate": "refinements",
    "ModelJudge": "refinements",
    "ModelPredicateExtractor": "refinements",
    "NoCoord": "readers",
    "PredicateIntercept": "readers",
    "PredicateWriter": "writers",
    "Pull": "readers",
    "Reader": "readers",
    "ReaderStart": "readers",
    "SelectiveIntercept": "readers",
    "ToolCall": "trace",
    "ToolSpec": "readers",
    "TrialSession": "session",
    "TrialState": "readers",
    "TrialTrace": "trace",
    "WARNING_CLOSE": "intercept",
    "WARNING_OPEN": "intercept",
    "Writer": "writers",
    "attempt_of": "event_text",
    "call_facts": "predicates",
    "evaluate": "predicates",
    "facts_extractor": "writers",
    "is_failure": "trace",
    "load_prompt": "refinements",
    "lookup": "predicates",
    "peer_warnings_summary": "readers",
    "reader_by_name": "readers",
    "request_sha256": "session",
    "short_text": "event_text",
    "warning_block": "intercept",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
