"""The intercept readers and their ``[PEER-WARNING]`` block.

The framework intercepts every task tool call; when the call's (name, canonical arguments)
match a peer failure event of the task, a ``[PEER-WARNING]`` block is prepended to the tool's
response. The agent, its prompt and its tools are unchanged. :func:`warning_block` writes the
block, and three readers use it:

* :class:`Intercept` (``intercept``): warns on every literal match.
* :class:`SelectiveIntercept` (``selective_intercept``): the same behind a score gate that
  fires only for events that are relevant, novel in the trial and close to the failure they
  preceded; each decision, fired or not, is kept with its inputs in the trial's ``gate_log``
  (and so in the trial record's ``extra["gate"]``).
* :class:`PredicateIntercept` (``predicate_intercept``): also warns on typed predicates
  (``failed_predicate`` events), which store a failure as conditions on the call and the world
  state it touched, so a failure of ``cancel_order(#W123)`` on a shipped order warns
  ``cancel_order(#W456)`` when that order is shipped too; the conditions are evaluated by
  :mod:`noisefloor.protocols.predicates`.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

from noisefloor.protocols.event_text import attempt_of, describe_event, short_text
from noisefloor.protocols.predicates import FactResolver, call_facts, evaluate
from noisefloor.protocols.reader_interface import CallContext, Injection, Reader, TrialState
from noisefloor.store.base import StoredEvent, TaskView
from noisefloor.store.events import FailedPredicate

__all__ = ["WARNING_CLOSE", "WARNING_OPEN", "Intercept", "PredicateIntercept",
           "SelectiveIntercept", "warning_block"]

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


class SelectiveIntercept(Intercept):
    """Selective intercept: a score gate fires only for relevant, novel, decision-proximal events.

    For each matching call the gate computes, over the matching events,

    * relevance = the largest attribution ``weight`` of a matching event (1 for last-K events);
    * novelty = 1 if this key has not been warned about earlier in the trial, else 0;
    * proximity = ``(k - position + 1) / k`` of the nearest-to-failure matching event (1 for the
      call that ended a failed trial, 1/3 for the third-from-last of K = 3);

    and fires when ``score = relevance * novelty * proximity >= threshold``. Every decision
    (fired or not) is appended to ``state.gate_log`` with its inputs, and ends up in the trial
    record's ``extra["gate"]``.

    Parameters
    ----------
    threshold : float, default 0.5
        With K = 3 last-K events: warns for the final and second-to-last calls of a failed
        trial, once per key per trial.
    max_events : int, default 5

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import Coordinator, SelectiveIntercept
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append_many([FailedTrialAction(task_id="T", tool_name="step", arguments={"i": i},
    ...     reward=0.0, position=p, k=3) for i, p in ((0, 3), (1, 1))])
    >>> s = Coordinator(store, SelectiveIntercept()).start_trial("T", 1)
    >>> [s.after_tool_call("step", {"i": i}, "ok") == "ok" for i in (0, 1, 1)]
    [True, False, True]
    >>> [(g["proximity"], g["novelty"], g["fired"]) for g in s.state.gate_log]
    [(0.333333, 1.0, False), (1.0, 1.0, True), (1.0, 0.0, False)]
    """

    name = "selective"

    def __init__(self, *, threshold: float = 0.5, max_events: int = 5) -> None:
        super().__init__(max_events=max_events)
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must lie in [0, 1], got {threshold}")
        self.threshold = threshold

    def on_tool_call(self, view: TaskView, state: TrialState, call: CallContext) -> Injection | None:
        """Score the matching events, log the decision in ``state.gate_log``, warn if it fires.

        Parameters
        ----------
        view : TaskView
        state : TrialState
            ``warned_keys`` gives the novelty; one dict per matching call is appended to
            ``gate_log`` (keys ``call_index, tool, key, event_ids, matches, relevance, novelty,
            proximity, score, threshold, fired``).
        call : CallContext

        Returns
        -------
        Injection or None
            ``None`` when nothing matches (no log entry) or the score is below ``threshold``.

        Examples
        --------
        The second-to-last call of a K = 3 trial has proximity 2/3:

        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction, canonical_key
        >>> from noisefloor.protocols import CallContext, SelectiveIntercept, TrialState
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="f", arguments={"x": 1},
        ...                                    reward=0.0, position=2, k=3))
        >>> call = CallContext(0, "f", {"x": 1}, canonical_key("f", {"x": 1}), "ok")
        >>> state = TrialState("T", 1)
        >>> reader = SelectiveIntercept(threshold=0.7)
        >>> print(reader.on_tool_call(store.task("T"), state, call))
        None
        >>> state.gate_log[0]["score"], state.gate_log[0]["fired"]
        (0.666667, False)
        >>> SelectiveIntercept().on_tool_call(store.task("T"), state, call).event_ids
        (1,)
        """
        events, total = self._literal_matches(view, call)
        if not events:
            return None
        relevance = max(e.event.weight for e in events)
        novelty = 0.0 if call.key in state.warned_keys else 1.0
        proximity = max((e.event.k - e.event.position + 1) / e.event.k for e in events)
        score = relevance * novelty * proximity
        fired = score >= self.threshold
        state.gate_log.append({
            "call_index": call.index, "tool": call.name, "key": call.key,
            "event_ids": [e.event_id for e in events], "matches": total,
            "relevance": relevance, "novelty": novelty, "proximity": round(proximity, 6),
            "score": round(score, 6), "threshold": self.threshold, "fired": fired,
        })
        if not fired:
            return None
        return Injection(warning_block(call, events, total, "literal"),
                         tuple(e.event_id for e in events))


class PredicateIntercept(Intercept):
    """Intercept on typed predicates (``failed_predicate`` events), plus literal matches.

    Parameters
    ----------
    resolver : callable or None
        Fact resolver ``resolver(tool_name, arguments) -> mapping`` giving the world state a
        predicate may test (``{"order": {"status": "shipped"}}``); ``args.<name>`` paths need none.
    literal : bool, default True
        Also warn on literal ``failed_trial_action`` matches, as :class:`Intercept` does.
    max_predicates : int, default 200
        Newest predicate events of the tool evaluated per call.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedPredicate, Condition
    >>> from noisefloor.protocols import Coordinator, PredicateIntercept
    >>> status = {"#W123": "shipped", "#W456": "shipped", "#W789": "pending"}
    >>> resolve = lambda tool, args: {"order": {"status": status[args["order_id"]]}}
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedPredicate(task_id="T", tool_name="cancel_order", reward=0.0,
    ...     conditions=[Condition(path="order.status", value="shipped")], outcome="shipped"))
    >>> s = Coordinator(store, PredicateIntercept(resolve)).start_trial("T", 1)
    >>> s.after_tool_call("cancel_order", {"order_id": "#W456"}, "x").startswith("[PEER-WARNING]")
    True
    >>> s.after_tool_call("cancel_order", {"order_id": "#W789"}, "x")
    'x'
    """

    name = "predicate"

    def __init__(self, resolver: FactResolver | None = None, *, literal: bool = True,
                 max_events: int = 5, max_predicates: int = 200) -> None:
        super().__init__(max_events=max_events)
        self.resolver = resolver
        self.literal = literal
        self.max_predicates = max_predicates

    def on_tool_call(self, view: TaskView, state: TrialState, call: CallContext) -> Injection | None:
        """Warn when a ``failed_predicate`` of the tool holds for this call (or a literal match).

        Parameters
        ----------
        view : TaskView
        state : TrialState
            Not consulted.
        call : CallContext

        Returns
        -------
        Injection or None
            ``match`` is ``"predicate"``, ``"literal"`` or ``"literal+predicate"``; ``None``
            when nothing matches.

        Examples
        --------
        >>> from noisefloor.store import (SQLiteEventStore, FailedPredicate, Condition,
        ...                               canonical_key)
        >>> from noisefloor.protocols import CallContext, PredicateIntercept, TrialState
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedPredicate(task_id="T", tool_name="refund", reward=0.0,
        ...     conditions=[Condition(path="args.amount", op="gt", value=100)]))
        >>> def call(amount):
        ...     args = {"amount": amount}
        ...     return CallContext(0, "refund", args, canonical_key("refund", args), "ok")
        >>> reader = PredicateIntercept()
        >>> reader.on_tool_call(store.task("T"), TrialState("T", 1), call(250)).match
        'predicate'
        >>> print(reader.on_tool_call(store.task("T"), TrialState("T", 1), call(50)))
        None
        """
        literal, literal_total = self._literal_matches(view, call) if self.literal else ([], 0)
        candidates = view.find(event_type="failed_predicate", tool_name=call.name,
                               newest_first=True, limit=self.max_predicates)
        matched: list[StoredEvent] = []
        if candidates:
            facts = call_facts(call.name, call.arguments, self.resolver)
            # the query asked for failed_predicate events only; the isinstance test narrows the type
            matched = [s for s in candidates
                       if isinstance(s.event, FailedPredicate) and evaluate(s.event.conditions, facts)]
        if not literal and not matched:
            return None
        if matched and not literal:
            text = warning_block(call, matched[: self.max_events], len(matched), "predicate")
            return Injection(text, tuple(s.event_id for s in matched), match="predicate")
        text = warning_block(call, literal + matched[: self.max_events],
                             literal_total + len(matched), "literal")
        ids = tuple(s.event_id for s in literal) + tuple(s.event_id for s in matched)
        return Injection(text, ids, match="literal+predicate" if matched else "literal")

