"""Coordination protocols over the task-scoped store: writers, readers, and the plain-callables
session (see :mod:`noisefloor.protocols.session`); the LangChain middleware lives in
:mod:`noisefloor.protocols.langchain` (optional extra ``langchain``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.protocols.blocking import BlockingEndpoints
    from noisefloor.protocols.event_text import attempt_of, short_text
    from noisefloor.protocols.intercept import (
        WARNING_CLOSE,
        WARNING_OPEN,
        Intercept,
        PredicateIntercept,
        SelectiveIntercept,
        warning_block,
    )
    from noisefloor.protocols.langchain import CoordinationMiddleware
    from noisefloor.protocols.predicates import call_facts, evaluate, lookup
    from noisefloor.protocols.pull import Pull, peer_warnings_summary
    from noisefloor.protocols.reader_interface import (
        CallContext,
        Injection,
        NoCoord,
        Reader,
        ReaderStart,
        ToolSpec,
        TrialState,
    )
    from noisefloor.protocols.readers import reader_by_name
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
    "CallContext": "reader_interface",
    "CoordinationMiddleware": "langchain",
    "Coordinator": "session",
    "Injection": "reader_interface",
    "Intercept": "intercept",
    "JudgedWriter": "writers",
    "LastKWriter": "writers",
    "ModelCaller": "refinements",
    "ModelGate": "refinements",
    "ModelJudge": "refinements",
    "ModelPredicateExtractor": "refinements",
    "NoCoord": "reader_interface",
    "PredicateIntercept": "intercept",
    "PredicateWriter": "writers",
    "Pull": "pull",
    "Reader": "reader_interface",
    "ReaderStart": "reader_interface",
    "SelectiveIntercept": "intercept",
    "ToolCall": "trace",
    "ToolSpec": "reader_interface",
    "TrialSession": "session",
    "TrialState": "reader_interface",
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
    "peer_warnings_summary": "pull",
    "reader_by_name": "readers",
    "request_sha256": "session",
    "short_text": "event_text",
    "warning_block": "intercept",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
