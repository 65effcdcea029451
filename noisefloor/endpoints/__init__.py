"""The OpenAI-compatible client layer shared by every part that calls a model.

Per-URL concurrency limits that halve on a 429 and recover, ``Retry-After`` in all its
forms, retries with backoff for transient faults, and prices per model; a call whose
retries are spent raises :class:`EndpointError`, which callers record as an infrastructure
error, never a score. Users: the collaboration-tax runner (:mod:`harness.runner`), the judge
of ``noisefloor tax report`` and the protocols runner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.endpoints.client import (
        Completion,
        EndpointError,
        EndpointFatalError,
        Endpoints,
        ModelEndpoint,
        retry_after_seconds,
        url_problem,
    )
    from noisefloor.endpoints.response import (
        DEFAULT_MAX_RESPONSE_BYTES,
        ERROR_EXCERPT_CHARS,
        MalformedResponse,
        parse_chat_completion,
    )
    from noisefloor.endpoints.transport import HTTPPool

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "Completion": "client",
    "DEFAULT_MAX_RESPONSE_BYTES": "response",
    "ERROR_EXCERPT_CHARS": "response",
    "EndpointError": "client",
    "EndpointFatalError": "client",
    "Endpoints": "client",
    "HTTPPool": "transport",
    "MalformedResponse": "response",
    "ModelEndpoint": "client",
    "parse_chat_completion": "response",
    "retry_after_seconds": "client",
    "url_problem": "client",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
