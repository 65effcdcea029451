"""Reader protocols: who reads the task's peer failure events, and when.

Every reader implements the same two hooks (the :class:`Reader` interface):

``start(view, state) -> ReaderStart``
    At trial start: text to add to the system prompt and extra tools for the agent.
``on_tool_call(view, state, call) -> Injection or None``
    After each task tool call: a block to prepend to the tool's response, or nothing.

``view`` is a :class:`~noisefloor.store.TaskView` fixed to the trial's task, so no reader can
see another task's events. The readers of the paired noise-floor protocol (Kaliyev &
Maryanskyy, 2026) and its refinements:

================  ========================================================================
``no_coord``      :class:`NoCoord` -- the store is written, never read.
``pull``          :class:`Pull` -- a curated peer-warnings summary in the system prompt at
                  trial start, and a ``trace_query`` tool the agent may call.
``intercept``     :class:`Intercept` -- a ``[PEER-WARNING]`` block prepended to every tool
                  response whose (name, canonical arguments) match a peer failure event.
``selective``     :class:`SelectiveIntercept` -- intercept behind a score gate (relevant,
                  novel, decision-proximal), every gate decision logged with its inputs.
``predicate``     :class:`PredicateIntercept` -- intercept on typed predicates, so a failure of
                  ``cancel_order(#W123)`` on a shipped order warns ``cancel_order(#W456)``
                  when that order is shipped too.
================  ========================================================================

Each reader lives in its own module (:mod:`~noisefloor.protocols.reader_interface`,
:mod:`~noisefloor.protocols.pull`, :mod:`~noisefloor.protocols.intercept` for the three
intercept readers; every class is also exported by :mod:`noisefloor.protocols`); this module
makes one from its protocol name (:func:`reader_by_name`).

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from noisefloor.protocols.intercept import Intercept, PredicateIntercept, SelectiveIntercept
from noisefloor.protocols.pull import Pull
from noisefloor.protocols.reader_interface import NoCoord, Reader

__all__ = ["reader_by_name"]


_READERS: dict[str, Callable[..., Reader]] = {
    "no_coord": NoCoord,
    "pull": Pull,
    "intercept": Intercept,
    "selective": SelectiveIntercept,
    "predicate": PredicateIntercept,
}


def reader_by_name(name: str, **options: Any) -> Reader:
    """Make a reader from its protocol name (``no_coord``, ``pull``, ``intercept``, ``selective``,
    ``predicate``) and options.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> reader_by_name("intercept")
    Intercept()
    """
    try:
        factory = _READERS[name]
    except KeyError:
        raise ValueError(f"unknown reader {name!r}; known: {sorted(_READERS)}") from None
    return factory(**options)
