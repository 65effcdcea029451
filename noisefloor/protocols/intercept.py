"""The ``intercept`` reader and its ``[PEER-WARNING]`` block.

The framework intercepts every task tool call; when the call's (name, canonical arguments)
match a peer failure event of the task, a ``[PEER-WARNING]`` block is prepended to the tool's
response. The agent, its prompt and its tools are unchanged. :func:`warning_block` writes the
block; the selective and predicate readers reuse it.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

from noisefloor.protocols.event_text import attempt_of, describe_event, short_text
from noisefloor.protocols.reader_interface import CallContext, Injection, Reader, TrialState
from noisefloor.store.base import StoredEvent, TaskView

__all__ = ["WARNING_CLOSE", "WARNING_OPEN", "Intercept", "warning_block"]

WARNING_OPEN = "[PEER-WARNING]"
WARNING_CLOSE = "[/PEER-WARNING]"


def warning_block(call: CallContext, events: list[StoredEvent], total: int, how: str) -> str:
    """The ``[PEER-WARNING]`` block for a call that matched peer failure events.

    The block counts distinct failed attempts among ``events`` (an agent that retried the call
    three times before failing is one attempt, as in the pull summary); when only the newest of
    ``total`` matching events were read, the count is a lower bound and says so.

    Parameters
    ----------
    call : CallContext
        The call being warned about.
    events : list of StoredEvent
        The matching events read, newest first (at least one); the first gives the outcome.
    total : int
        Number of matching events recorded (``>= len(events)`` when only some were read).
    how : {"literal", "predicate"}
        ``"literal"`` says "this same call"; anything else describes the newest event's call.

    Returns
    -------
    str
        ``"[PEER-WARNING]\\n...[/PEER-WARNING]\\n"``, prepended verbatim to the response.

    Examples
    --------
    >>> from noisefloor.store import FailedTrialAction, StoredEvent, canonical_key
    >>> from noisefloor.protocols import CallContext
    >>> e = FailedTrialAction(task_id="T", tool_name="f", arguments={"x": 1}, outcome="denied",
    ...                       reward=0.0, position=1, k=3, attempt_id="a")
    >>> call = CallContext(0, "f", {"x": 1}, canonical_key("f", {"x": 1}), "denied")
    >>> print(warning_block(call, [StoredEvent(2, e), StoredEvent(1, e)], 7, "literal"))
    [PEER-WARNING]
    Peer agents on this task failed after this same call: f appears among the final calls of at least 1 failed attempt (7 matching calls recorded).
    Last recorded outcome: denied
    [/PEER-WARNING]
    <BLANKLINE>
    """
    latest = events[0].event
    what = "this same call" if how == "literal" else f"a matching call ({describe_event(latest)})"
    n = len({attempt_of(s.event) for s in events})
    plural = "s" if n != 1 else ""
    count = (f"{n} failed attempt{plural}" if total <= len(events)
             else f"at least {n} failed attempt{plural} ({total} matching calls recorded)")
    return (
        f"{WARNING_OPEN}\n"
        f"Peer agents on this task failed after {what}: {call.name} appears among the final "
        f"calls of {count}.\n"
        f"Last recorded outcome: {short_text(latest.outcome, 200) or '(empty)'}\n"
        f"{WARNING_CLOSE}\n"
    )


class Intercept(Reader):
    """``intercept``: prepend a ``[PEER-WARNING]`` block to every literally matching call.

    A call matches when its canonical key (:func:`noisefloor.store.canonical_key`) equals the
    key of a ``failed_trial_action`` event of the task. Nothing else changes: no prompt text, no
    tools, non-matching responses are returned byte for byte.

    Parameters
    ----------
    max_events : int, default 5
        Newest matching events read per call (the block reports the total count).

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import Coordinator, Intercept
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
    ...     arguments={"flight": "UA1", "seats": 2}, outcome="no inventory", reward=0.0,
    ...     position=1, k=3))
    >>> s = Coordinator(store, Intercept()).start_trial("T", 1)
    >>> print(s.after_tool_call("book_flight", '{"seats": 2.0, "flight": "UA1"}', "no inventory"))
    [PEER-WARNING]
    Peer agents on this task failed after this same call: book_flight appears among the final calls of 1 failed attempt.
    Last recorded outcome: no inventory
    [/PEER-WARNING]
    no inventory
    >>> s.after_tool_call("book_flight", {"flight": "UA2", "seats": 2}, "booked")
    'booked'
    """

    name = "intercept"

    def __init__(self, *, max_events: int = 5) -> None:
        if max_events < 1:
            raise ValueError(f"max_events must be >= 1, got {max_events}")
        self.max_events = max_events

    def _literal_matches(self, view: TaskView, call: CallContext) -> tuple[list[StoredEvent], int]:
        events = view.find(key=call.key, event_type="failed_trial_action", newest_first=True,
                           limit=self.max_events)
        if not events:
            return [], 0
        total = len(events) if len(events) < self.max_events else view.count(key=call.key)
        return events, total

    def on_tool_call(self, view: TaskView, state: TrialState, call: CallContext) -> Injection | None:
        """Warn when ``call.key`` equals the key of a ``failed_trial_action`` of the task.

        Parameters
        ----------
        view : TaskView
        state : TrialState
            Not consulted: every matching call is warned, repeats included.
        call : CallContext

        Returns
        -------
        Injection or None
            The warning over the newest ``max_events`` matching events, or ``None``.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
        ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
        >>> from noisefloor.store import canonical_key
        >>> from noisefloor.protocols import CallContext, Intercept, TrialState
        >>> def call(args):
        ...     return CallContext(0, "book_flight", args, canonical_key("book_flight", args), "")
        >>> reader, view = Intercept(), store.task("T")
        >>> reader.on_tool_call(view, TrialState("T", 1), call({"flight": "UA1"})).event_ids
        (1,)
        >>> print(reader.on_tool_call(view, TrialState("T", 1), call({"flight": "UA2"})))
        None
        """
        events, total = self._literal_matches(view, call)
        if not events:
            return None
        return Injection(warning_block(call, events, total, "literal"),
                         tuple(e.event_id for e in events))

