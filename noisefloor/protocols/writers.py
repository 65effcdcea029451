"""Writer protocols: turn a finished trial into store events.

A writer is any object with a ``name`` and a method ``events_for(trace) -> list of events``
(the :class:`Writer` protocol). It is called once per trial, after the reward is known; the
session appends what it returns atomically. Three writers ship:

:class:`LastKWriter`
    The writer of the paired noise-floor protocol: when a trial ends with reward < 1, its final
    K tool calls (K = 3) become ``failed_trial_action`` events, ``position`` 1 being the final call.
:class:`JudgedWriter`
    The "causally attributed writer" refinement: a judge (any callable, e.g. an LLM call that
    reads the trajectory and reward) names the calls to blame and their weights.
:class:`PredicateWriter`
    The "predicate constraint extraction" refinement: an extractor turns each blamed call into a
    typed predicate (``failed_predicate`` events). :func:`facts_extractor` is a deterministic
    extractor that reads chosen fact paths of the call at failure time.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from noisefloor.protocols.predicates import MISSING, FactResolver, call_facts, lookup
from noisefloor.protocols.trace import ToolCall, TrialTrace, is_failure
from noisefloor.store.events import Condition, FailedPredicate, FailedTrialAction

__all__ = [
    "Attribution",
    "JudgedWriter",
    "LastKWriter",
    "PredicateWriter",
    "Writer",
    "facts_extractor",
]

Event = FailedTrialAction | FailedPredicate


@runtime_checkable
class Writer(Protocol):
    """Interface of a writer: ``name`` and ``events_for(trace)``.

    A structural protocol (``typing.Protocol``, runtime-checkable): any object with a ``name``
    attribute and an ``events_for`` method is a writer, no subclassing needed.

    Examples
    --------
    A writer that stores only the final call of a trial that ended in a tool error:

    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import Coordinator, NoCoord, Writer
    >>> class LastErrorWriter:
    ...     name = "last_error"
    ...     def events_for(self, trace):
    ...         if trace.reward is None or trace.reward >= 1 or not trace.calls:
    ...             return []
    ...         last = trace.calls[-1]
    ...         if not last.error:
    ...             return []
    ...         return [FailedTrialAction(task_id=trace.task_id, trial=trace.trial,
    ...                                   writer=self.name, tool_name=last.name,
    ...                                   arguments=last.arguments, outcome=last.response,
    ...                                   reward=trace.reward, position=1, k=1)]
    >>> isinstance(LastErrorWriter(), Writer)
    True
    >>> store = SQLiteEventStore(":memory:")
    >>> session = Coordinator(store, NoCoord(), LastErrorWriter()).start_trial("T", 0)
    >>> _ = session.call_tool("pay", {"amount": 5}, lambda amount: 1 / 0)
    >>> session.finish(0.0).extra["store"]["events_written"]
    1
    >>> store.query("T")[0].event.outcome
    'error: ZeroDivisionError: division by zero'
    """

    @property
    def name(self) -> str:
        """Name written into the events and the trial record (read-only is enough)."""
        ...

    def events_for(self, trace: TrialTrace) -> list[Event]:
        """Events to store for one finished trial (an empty list writes nothing).

        Parameters
        ----------
        trace : TrialTrace
            The finished trial: its task tool calls and reward.

        Returns
        -------
        list of FailedTrialAction or FailedPredicate

        Examples
        --------
        >>> from noisefloor.protocols import LastKWriter, ToolCall, TrialTrace
        >>> trace = TrialTrace("T1", 0, "no_coord", (ToolCall("f", {}, "ok"),), reward=0.0)
        >>> [e.key for e in LastKWriter(k=1).events_for(trace)]
        ['f:...']
        """
        ...


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    return k


def _final_calls(trace: TrialTrace, k: int) -> list[tuple[int, ToolCall]]:
    """(position, call) for the final ``k`` calls of a failed trial, position 1 = last call;
    empty when the trial did not fail."""
    if not is_failure(trace.reward):
        return []
    final = trace.calls[-k:]
    n = len(final)
    return [(n - i, call) for i, call in enumerate(final)]


@dataclass(frozen=True)
class LastKWriter:
    """Write the final ``k`` tool calls of every failed trial (reward < 1 - 1e-6).

    Parameters
    ----------
    k : int, default 3
        Number of final calls written (the protocol's K = 3).

    Examples
    --------
    >>> from noisefloor.protocols import ToolCall, TrialTrace
    >>> calls = tuple(ToolCall(f"step{i}", {"i": i}, "ok") for i in range(5))
    >>> events = LastKWriter().events_for(TrialTrace("T1", 0, "no_coord", calls, reward=0.0))
    >>> [(e.tool_name, e.position) for e in events]
    [('step2', 3), ('step3', 2), ('step4', 1)]
    >>> LastKWriter().events_for(TrialTrace("T1", 1, "no_coord", calls, reward=1.0))
    []
    """

    k: int = 3
    name: str = "last_k"

    def __post_init__(self) -> None:
        _check_k(self.k)

    def events_for(self, trace: TrialTrace) -> list[Event]:
        """``failed_trial_action`` events for the final ``k`` calls of a failed trial.

        Parameters
        ----------
        trace : TrialTrace

        Returns
        -------
        list of FailedTrialAction
            Oldest call first, ``position`` counted back from the final call (1); empty when
            the reward is ``None`` or within 1e-6 of 1. A trial with fewer than ``k`` calls
            writes all of them (``k`` stays as set).

        Raises
        ------
        TypeError, ValueError
            If ``trace.reward`` is not a number in [0, 1] or ``None``.

        Examples
        --------
        >>> from noisefloor.protocols import LastKWriter, ToolCall, TrialTrace
        >>> calls = (ToolCall("get_order", {"id": 1}, "shipped"),
        ...          ToolCall("cancel_order", {"id": 1}, "shipped", error=True))
        >>> events = LastKWriter().events_for(TrialTrace("T1", 0, "pull", calls, reward=0.0))
        >>> [(e.tool_name, e.position, e.k, e.outcome) for e in events]
        [('get_order', 2, 3, 'shipped'), ('cancel_order', 1, 3, 'error: shipped')]
        """
        return [
            _action_event(trace, call, position=position, k=self.k, writer=self.name)
            for position, call in _final_calls(trace, self.k)
        ]


def _failed_reward(trace: TrialTrace) -> float:
    """The reward of a failed trial (writers make events for failed trials only)."""
    if trace.reward is None:
        raise ValueError(f"trial {trace.trial} of task {trace.task_id!r} has no reward, so it did "
                         "not fail; events are written for failed trials only")
    return float(trace.reward)


def _outcome(call: ToolCall) -> str:
    if call.error and not call.response.lower().startswith("error"):
        return "error: " + call.response
    return call.response


def _action_event(trace: TrialTrace, call: ToolCall, *, position: int, k: int, writer: str,
                  weight: float = 1.0) -> FailedTrialAction:
    outcome = _outcome(call)
    return FailedTrialAction(
        task_id=trace.task_id,
        trial=trace.trial,
        protocol=trace.protocol,
        writer=writer,
        run_id=trace.run_id,
        attempt_id=trace.attempt_id,
        tool_name=call.name,
        arguments=call.arguments,
        outcome=outcome,
        reward=_failed_reward(trace),
        position=position,
        k=k,
        weight=weight,
    )


@dataclass(frozen=True)
class Attribution:
    """A judge's verdict on one call: its index in ``trace.calls`` and a blame weight in [0, 1].

    Attributes
    ----------
    call_index : int
        Index into ``trace.calls`` (0 = first call).
    weight : float, default 1.0
        Blame weight in [0, 1]; becomes the event's ``weight`` (the selective gate's relevance).
    rationale : str, default ""
        The judge's reason (not stored in the event).

    Examples
    --------
    >>> from noisefloor.protocols import Attribution
    >>> Attribution(0, 0.9, "read the state, then ignored it")
    Attribution(call_index=0, weight=0.9, rationale='read the state, then ignored it')
    """

    call_index: int
    weight: float = 1.0
    rationale: str = ""


@dataclass(frozen=True)
class JudgedWriter:
    """Write the calls a judge blames for a failed trial (causally attributed writer).

    Parameters
    ----------
    judge : callable
        ``judge(trace) -> sequence of Attribution``; called only for failed trials. An LLM-based
        judge reads ``trace.calls`` and ``trace.reward`` and returns the causally relevant calls.
    min_weight : float, default 0.5
        Attributions below this weight are not written.
    max_events : int, default 3
        At most this many events per trial (highest weight first).

    Raises
    ------
    ValueError
        At write time, if the judge names a call index outside the trace or a weight outside [0, 1].
    TypeError
        At write time, if the judge returns something other than :class:`Attribution` objects.

    Examples
    --------
    >>> from noisefloor.protocols import ToolCall, TrialTrace
    >>> calls = (ToolCall("get_order", {"id": 1}, "shipped"), ToolCall("refund", {"id": 1}, "ok"))
    >>> blame_first = lambda trace: [Attribution(0, 0.9, "read state, then ignored it")]
    >>> [e.tool_name for e in JudgedWriter(blame_first).events_for(
    ...     TrialTrace("T", 0, "pull", calls, reward=0.0))]
    ['get_order']
    """

    judge: Callable[[TrialTrace], Sequence[Attribution]]
    min_weight: float = 0.5
    max_events: int = 3
    name: str = "judged"

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_weight <= 1.0:
            raise ValueError(f"min_weight must lie in [0, 1], got {self.min_weight}")
        _check_k(self.max_events)

    def events_for(self, trace: TrialTrace) -> list[Event]:
        """Ask the judge about a failed trial and write the calls it blames.

        Parameters
        ----------
        trace : TrialTrace

        Returns
        -------
        list of FailedTrialAction
            At most ``max_events`` attributions with ``weight >= min_weight`` (highest weight
            kept), in call order; ``position`` counts back from the final call and ``k`` is the
            largest position written. Empty (and the judge is not called) when the trial did
            not fail or made no call.

        Raises
        ------
        TypeError, ValueError
            As the class documents, for a judge's bad answer.

        Examples
        --------
        >>> from noisefloor.protocols import Attribution, JudgedWriter, ToolCall, TrialTrace
        >>> calls = tuple(ToolCall(f"s{i}", {}, "ok") for i in range(4))
        >>> judge = lambda trace: [Attribution(0, 0.9), Attribution(2, 0.4), Attribution(3, 0.6)]
        >>> events = JudgedWriter(judge).events_for(TrialTrace("T", 0, "p", calls, reward=0.0))
        >>> [(e.tool_name, e.position, e.k, e.weight) for e in events]
        [('s0', 4, 4, 0.9), ('s3', 1, 4, 0.6)]
        >>> JudgedWriter(lambda trace: [Attribution(9)]).events_for(
        ...     TrialTrace("T", 0, "p", calls, reward=0.0))
        Traceback (most recent call last):
        ...
        ValueError: judge blamed call_index 9, trace has 4 calls
        """
        if not is_failure(trace.reward) or not trace.calls:
            return []
        verdicts = list(self.judge(trace))
        n = len(trace.calls)
        for v in verdicts:
            if not isinstance(v, Attribution):
                raise TypeError(f"judge must return Attribution objects, got {type(v).__name__}")
            if not 0 <= v.call_index < n:
                raise ValueError(f"judge blamed call_index {v.call_index}, trace has {n} calls")
            if not 0.0 <= v.weight <= 1.0:
                raise ValueError(f"judge weight must lie in [0, 1], got {v.weight}")
        chosen = sorted(
            (v for v in verdicts if v.weight >= self.min_weight), key=lambda v: (-v.weight, -v.call_index)
        )[: self.max_events]
        k = max((n - v.call_index for v in chosen), default=1)
        return [
            _action_event(trace, trace.calls[v.call_index], position=n - v.call_index, k=k,
                          writer=self.name, weight=v.weight)
            for v in sorted(chosen, key=lambda v: v.call_index)
        ]


def facts_extractor(resolver: FactResolver | None, paths: Mapping[str, Sequence[str]]) -> Callable[
    [TrialTrace, ToolCall], list[Condition] | None
]:
    """A deterministic predicate extractor: read chosen fact paths of a call at failure time.

    Parameters
    ----------
    resolver : callable or None
        Fact resolver, ``resolver(tool_name, arguments) -> mapping`` (world state of the call).
    paths : mapping of tool name to list of str
        For each tool, the fact paths that generalise its failure (``{"cancel_order":
        ["order.status"]}``). Calls of other tools yield no predicate.

    Returns
    -------
    callable
        ``extract(trace, call) -> list of Condition or None``: one ``eq`` condition per path,
        with the value the path had; ``None`` when the tool is not listed or a path is missing.

    Examples
    --------
    >>> from noisefloor.protocols import ToolCall, TrialTrace
    >>> orders = {"#W123": {"status": "shipped"}}
    >>> resolve = lambda tool, args: {"order": orders.get(args.get("order_id"), {})}
    >>> extract = facts_extractor(resolve, {"cancel_order": ["order.status"]})
    >>> extract(None, ToolCall("cancel_order", {"order_id": "#W123"}))
    [Condition(path='order.status', op='eq', value='shipped')]
    """
    table = {tool: list(p) for tool, p in paths.items()}

    def extract(trace: TrialTrace | None, call: ToolCall) -> list[Condition] | None:
        if call.name not in table:
            return None
        facts = call_facts(call.name, call.arguments, resolver)
        conditions = []
        for path in table[call.name]:
            value = lookup(facts, path)
            if value is MISSING:
                return None
            conditions.append(Condition(path=path, op="eq", value=value))
        return conditions

    return extract


@dataclass(frozen=True)
class PredicateWriter:
    """Write typed predicates for the final K calls of a failed trial.

    Parameters
    ----------
    extract : callable
        ``extract(trace, call) -> list of Condition or None`` (see :func:`facts_extractor`; an
        LLM-based extractor plugs in here). ``None`` skips the call.
    k : int, default 3
        Number of final calls considered.

    Raises
    ------
    ValueError
        If ``k`` is not an int >= 1.

    Examples
    --------
    >>> from noisefloor.protocols import PredicateWriter, ToolCall, TrialTrace, facts_extractor
    >>> status = {"#W1": "shipped"}
    >>> extract = facts_extractor(lambda tool, args: {"order": {"status": status[args["id"]]}},
    ...                           {"cancel_order": ["order.status"]})
    >>> calls = (ToolCall("get_order", {"id": "#W1"}, "ok"),
    ...          ToolCall("cancel_order", {"id": "#W1"}, "cannot cancel"))
    >>> [event] = PredicateWriter(extract).events_for(TrialTrace("T", 0, "p", calls, 0.0))
    >>> event.event_type, event.tool_name, event.conditions[0].value, event.position
    ('failed_predicate', 'cancel_order', 'shipped', 1)
    """

    extract: Callable[[TrialTrace, ToolCall], list[Condition] | None]
    k: int = 3
    name: str = "predicate"

    def __post_init__(self) -> None:
        _check_k(self.k)

    def events_for(self, trace: TrialTrace) -> list[Event]:
        """``failed_predicate`` events for the final ``k`` calls the extractor can generalise.

        Parameters
        ----------
        trace : TrialTrace

        Returns
        -------
        list of FailedPredicate
            One per final call whose extraction is not ``None``, oldest first, with
            ``source_key`` = the call's literal key; empty unless the trial failed.

        Examples
        --------
        >>> from noisefloor.store import Condition
        >>> from noisefloor.protocols import PredicateWriter, ToolCall, TrialTrace
        >>> big = lambda trace, call: [Condition(path="args.amount", op="gt", value=100)]
        >>> trace = TrialTrace("T", 0, "p", (ToolCall("refund", {"amount": 250}, "denied"),), 0.0)
        >>> [event] = PredicateWriter(big, k=1).events_for(trace)
        >>> event.key.startswith("refund:pred:"), event.source_key.startswith("refund:")
        (True, True)
        >>> PredicateWriter(big).events_for(TrialTrace("T", 1, "p", trace.calls, reward=1.0))
        []
        """
        from noisefloor.store.keys import canonical_key

        out: list[Event] = []
        for position, call in _final_calls(trace, self.k):
            conditions = self.extract(trace, call)
            if conditions is None:
                continue
            out.append(
                FailedPredicate(
                    task_id=trace.task_id,
                    trial=trace.trial,
                    protocol=trace.protocol,
                    writer=self.name,
                    run_id=trace.run_id,
                    attempt_id=trace.attempt_id,
                    tool_name=call.name,
                    conditions=list(conditions),
                    outcome=_outcome(call),
                    reward=_failed_reward(trace),
                    position=position,
                    k=self.k,
                    source_key=canonical_key(call.name, call.arguments),
                )
            )
        return out
