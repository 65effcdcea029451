"""The OpenAI-compatible client layer shared by every part that calls a model.

Per-URL concurrency limits that halve on a 429 and recover, ``Retry-After`` in all its
forms, retries with backoff for transient faults, and prices per model; a call whose
retries are spent raises :class:`EndpointError`, which callers record as an infrastructure
error, never a score. Users: the collaboration-tax runner (:mod:`harness.runner`), the judge
of ``noisefloor tax report`` and the protocols runner.
"""

from noisefloor.endpoints.client import (
    Completion,
    EndpointError,
    EndpointFatalError,
    Endpoints,
    ModelEndpoint,
    retry_after_seconds,
)

__all__ = [
    "Completion",
    "EndpointError",
    "EndpointFatalError",
    "Endpoints",
    "ModelEndpoint",
    "retry_after_seconds",
]
