"""Predicate intercept: warn on typed predicates (``failed_predicate`` events), not only literals.

A ``failed_predicate`` event stores a failure as conditions on the call and the world state it
touched, so a failure of ``cancel_order(#W123)`` on a shipped order warns ``cancel_order(#W456)``
when that order is shipped too. The conditions are evaluated by
:mod:`noisefloor.protocols.predicates`.
"""

from __future__ import annotations

from noisefloor.protocols.intercept import Intercept, warning_block
from noisefloor.protocols.predicates import FactResolver, call_facts, evaluate
from noisefloor.protocols.reader_interface import CallContext, Injection, TrialState
from noisefloor.store.base import StoredEvent, TaskView
from noisefloor.store.events import FailedPredicate

__all__ = ["PredicateIntercept"]


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

