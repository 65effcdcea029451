"""Reader protocols: who reads the task's peer failure events, and when.

Every reader implements the same two hooks (the :class:`Reader` interface):

``start(view, state) -> ReaderStart``
    At trial start: text to add to the system prompt and extra tools for the agent.
``on_tool_call(view, state, call) -> Injection or None``
    After each task tool call: a block to prepend to the tool's response, or nothing.

``view`` is a :class:`~noisefloor.store.TaskView` fixed to the trial's task, so no reader can
see another task's events. The readers of the noise-floor paper:

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
"""

from __future__ import annotations

import abc
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from noisefloor.protocols.predicates import FactResolver, call_facts, evaluate
from noisefloor.store.base import StoredEvent, TaskView

__all__ = [
    "WARNING_CLOSE",
    "WARNING_OPEN",
    "CallContext",
    "Injection",
    "Intercept",
    "NoCoord",
    "PredicateIntercept",
    "Pull",
    "Reader",
    "ReaderStart",
    "SelectiveIntercept",
    "ToolSpec",
    "TrialState",
    "peer_warnings_summary",
    "reader_by_name",
]

WARNING_OPEN = "[PEER-WARNING]"
WARNING_CLOSE = "[/PEER-WARNING]"

#: Name of the query tool the pull reader gives the agent. LLM function names allow only
#: ``[A-Za-z0-9_-]``, so the in-agent tool is ``trace_query``; the MCP server names it
#: ``trace.query``.
TRACE_QUERY_TOOL = "trace_query"


@dataclass(frozen=True)
class ToolSpec:
    """A tool a reader adds for the agent: name, description, JSON Schema, and the callable.

    Attributes
    ----------
    name : str
        Function name offered to the model (``[A-Za-z0-9_-]`` only).
    description : str
        What the model is told the tool does.
    parameters : dict
        JSON Schema of the arguments (an ``"object"`` schema).
    func : callable
        ``func(**arguments) -> str``; the session runs it when the agent calls ``name``.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
    ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
    >>> from noisefloor.protocols import Coordinator, Pull
    >>> session = Coordinator(store, Pull()).start_trial("T", 1)
    >>> spec = session.tools[0]
    >>> spec.name, sorted(spec.parameters["properties"])
    ('trace_query', ['limit', 'tool_name'])
    >>> import json
    >>> reply = json.loads(spec.func(tool_name="book_flight", limit=1))
    >>> reply["task_events_total"], reply["events"][0]["arguments"], reply["events"][0]["outcome"]
    (1, {'flight': 'UA1'}, 'no inventory')
    """

    name: str
    description: str
    parameters: dict[str, Any]
    func: Callable[..., str]


@dataclass(frozen=True)
class ReaderStart:
    """What a reader contributes at trial start.

    Attributes
    ----------
    prompt_addition : str or None
        Text appended to the system prompt (pull only).
    tools : tuple of ToolSpec
        Tools added for the agent (pull: ``trace_query``).
    injections : int
        Warnings delivered at start (pull: items in the summary).
    event_ids : tuple of int
        Events the start-time delivery drew on.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
    ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
    >>> from noisefloor.protocols import NoCoord, Pull, TrialState
    >>> start = Pull().start(store.task("T"), TrialState(task_id="T", trial=1))
    >>> start.injections, start.event_ids, [t.name for t in start.tools]
    (1, (1,), ['trace_query'])
    >>> NoCoord().start(store.task("T"), TrialState(task_id="T", trial=1))
    ReaderStart(prompt_addition=None, tools=(), injections=0, event_ids=())
    """

    prompt_addition: str | None = None
    tools: tuple[ToolSpec, ...] = ()
    injections: int = 0
    event_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class CallContext:
    """A task tool call as readers see it (after the tool ran).

    Attributes
    ----------
    index : int
        Position of the call among the trial's task calls, from 0.
    name : str
        Tool name.
    arguments : mapping
        Arguments as the agent sent them (parsed from JSON if given as a string).
    key : str
        ``canonical_key(name, arguments)``.
    response : str
        The tool's response text, before any warning is prepended.

    Examples
    --------
    :meth:`TrialSession.after_tool_call <noisefloor.protocols.TrialSession.after_tool_call>`
    builds it; a reader can also be driven by hand:

    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
    ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
    >>> from noisefloor.store import canonical_key
    >>> from noisefloor.protocols import CallContext, TrialState
    >>> call = CallContext(index=0, name="book_flight", arguments={"flight": "UA1"},
    ...                    key=canonical_key("book_flight", {"flight": "UA1"}),
    ...                    response="no inventory")
    >>> from noisefloor.protocols import Intercept
    >>> Intercept().on_tool_call(store.task("T"), TrialState("T", 1), call).event_ids
    (1,)
    """

    index: int
    name: str
    arguments: Mapping[str, Any]
    key: str
    response: str


@dataclass(frozen=True)
class Injection:
    """A ``[PEER-WARNING]`` block to prepend to a tool response, and the events behind it.

    Attributes
    ----------
    text : str
        The block, ``"[PEER-WARNING]\\n...[/PEER-WARNING]\\n"``, prepended verbatim.
    event_ids : tuple of int
        Store ids of the events the warning reports.
    match : {"literal", "predicate", "literal+predicate"}, default "literal"
        How the call matched.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
    ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
    >>> from noisefloor.store import canonical_key
    >>> from noisefloor.protocols import CallContext, TrialState
    >>> call = CallContext(index=0, name="book_flight", arguments={"flight": "UA1"},
    ...                    key=canonical_key("book_flight", {"flight": "UA1"}),
    ...                    response="no inventory")
    >>> from noisefloor.protocols import Intercept
    >>> injection = Intercept().on_tool_call(store.task("T"), TrialState("T", 1), call)
    >>> injection.match, injection.event_ids
    ('literal', (1,))
    >>> print(injection.text)
    [PEER-WARNING]
    Peer agents on this task failed after this same call: book_flight appears among the final calls of 1 failed attempt.
    Last recorded outcome: no inventory
    [/PEER-WARNING]
    <BLANKLINE>
    """

    text: str
    event_ids: tuple[int, ...]
    match: str = "literal"


@dataclass
class TrialState:
    """Per-trial bookkeeping shared by a session and its reader.

    Attributes
    ----------
    task_id : str
    trial : int
    warned_keys : set of str
        Coordination keys already warned about in this trial.
    warned_event_ids : set of int
        Events already reported in this trial.
    gate_log : list of dict
        Gate decisions of :class:`SelectiveIntercept`, one per matching call.
    trace_queries : int
        Calls of the pull reader's ``trace_query`` tool.
    injections : int
        Warnings delivered so far (start-time summary items plus tool-response blocks).

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
    ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
    >>> from noisefloor.protocols import Coordinator, Intercept
    >>> session = Coordinator(store, Intercept()).start_trial("T", 1)
    >>> _ = session.after_tool_call("book_flight", {"flight": "UA1"}, "no inventory")
    >>> session.state.injections, session.state.warned_event_ids
    (1, {1})
    """

    task_id: str
    trial: int
    warned_keys: set[str] = field(default_factory=set)
    warned_event_ids: set[int] = field(default_factory=set)
    gate_log: list[dict[str, Any]] = field(default_factory=list)
    trace_queries: int = 0
    injections: int = 0


class Reader(abc.ABC):
    """Interface of a reader protocol; subclass and override either hook.

    Set the class attribute ``name`` (written into trial records as the protocol). Both hooks
    receive the trial's :class:`~noisefloor.store.TaskView` and its :class:`TrialState`; the
    defaults add nothing.

    Examples
    --------
    A reader that reminds the agent, once per trial, how many peer events the task has:

    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import Coordinator, Injection, Reader
    >>> class Reminder(Reader):
    ...     name = "reminder"
    ...     def on_tool_call(self, view, state, call):
    ...         if state.injections or not view.count():
    ...             return None
    ...         return Injection(f"[{view.count()} peer failure(s) recorded]\\n", ())
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="f", reward=0.0, position=1, k=1))
    >>> session = Coordinator(store, Reminder()).start_trial("T", 1)
    >>> [session.call_tool("g", {}, lambda: "ok") for _ in range(2)]
    ['[1 peer failure(s) recorded]\\nok', 'ok']
    >>> session.finish(1.0).protocol
    'reminder'
    """

    name: str = "reader"

    def start(self, view: TaskView, state: TrialState) -> ReaderStart:
        """Called once at trial start.

        Parameters
        ----------
        view : TaskView
            The trial's task, read-only.
        state : TrialState
            The trial's bookkeeping (fresh).

        Returns
        -------
        ReaderStart
            The default adds nothing: ``ReaderStart()``.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import NoCoord, TrialState
        >>> view = SQLiteEventStore(":memory:").task("T")
        >>> NoCoord().start(view, TrialState("T", 0)).prompt_addition is None
        True
        """
        return ReaderStart()

    def on_tool_call(self, view: TaskView, state: TrialState, call: CallContext) -> Injection | None:
        """Called after each task tool call; return an :class:`Injection` to warn the agent.

        Parameters
        ----------
        view : TaskView
            The trial's task, read-only.
        state : TrialState
            The trial's bookkeeping; the session updates ``injections``, ``warned_keys`` and
            ``warned_event_ids`` after an injection.
        call : CallContext
            The call that just ran.

        Returns
        -------
        Injection or None
            The default never warns (``None``).

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
        ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
        >>> from noisefloor.store import canonical_key
        >>> from noisefloor.protocols import CallContext, TrialState
        >>> call = CallContext(index=0, name="book_flight", arguments={"flight": "UA1"},
        ...                    key=canonical_key("book_flight", {"flight": "UA1"}),
        ...                    response="no inventory")
        >>> from noisefloor.protocols import NoCoord
        >>> print(NoCoord().on_tool_call(store.task("T"), TrialState("T", 1), call))
        None
        """
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class NoCoord(Reader):
    """``no_coord``: the store is written, never read (the baseline arm).

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import Coordinator, NoCoord
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="f", reward=0.0, position=1, k=3))
    >>> s = Coordinator(store, NoCoord()).start_trial("T", 1)
    >>> s.system_prompt("BASE"), s.after_tool_call("f", {}, "out"), s.store_events_at_start
    ('BASE', 'out', 1)
    """

    name = "no_coord"


def _short(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(event: Any) -> str:
    if event.event_type == "failed_predicate":
        clauses = " and ".join(f"{c.path} {c.op} {_short(c.value, 60)}" for c in event.conditions)
        return f"{event.tool_name} where {clauses or 'any arguments'}"
    return f"{event.tool_name}({_short(event.arguments, 160)})"


def peer_warnings_summary(view: TaskView, *, max_items: int = 10, window: int = 1000) -> tuple[str | None, tuple[int, ...]]:
    """Curated peer-warnings summary of a task's events, for the system prompt.

    Events are grouped by coordination key; groups are ranked by the number of distinct failed
    trials that wrote them, then by recency; at most ``max_items`` groups are listed, each with
    its last recorded outcome.

    Parameters
    ----------
    view : TaskView
    max_items : int, default 10
    window : int, default 1000
        Only the task's newest ``window`` events are read.

    Returns
    -------
    (str or None, tuple of int)
        The summary (``None`` when the task has no events) and the ids of the events shown.

    Raises
    ------
    ValueError
        If ``max_items < 1``.

    Examples
    --------
    Two failed attempts ended with the same booking call; one also searched:

    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import peer_warnings_summary
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append_many([
    ...     FailedTrialAction(task_id="T", tool_name=tool, arguments=args, outcome=out,
    ...                       reward=0.0, position=pos, k=3, attempt_id=attempt)
    ...     for tool, args, out, pos, attempt in [
    ...         ("search", {"q": "UA"}, "3 flights", 2, "x"),
    ...         ("book_flight", {"flight": "UA1"}, "no inventory", 1, "x"),
    ...         ("book_flight", {"flight": "UA1"}, "no inventory", 1, "y")]])
    >>> text, ids = peer_warnings_summary(store.task("T"))
    >>> print(text)
    Peer warnings for this task (calls made just before earlier attempts failed; they may or may not have caused the failure):
    - book_flight({"flight": "UA1"}) -- in 2 failed attempts; last outcome: no inventory
    - search({"q": "UA"}) -- in 1 failed attempt; last outcome: 3 flights
    >>> ids
    (1, 2, 3)
    >>> peer_warnings_summary(store.task("other"))
    (None, ())
    """
    if max_items < 1:
        raise ValueError(f"max_items must be >= 1, got {max_items}")
    events = view.find(newest_first=True, limit=window)
    if not events:
        return None, ()
    groups: dict[str, dict[str, Any]] = {}
    for rank, stored in enumerate(events):  # newest first
        e = stored.event
        g = groups.setdefault(e.key, {"event": e, "rank": rank, "trials": set(), "ids": []})
        g["trials"].add(_attempt(e))
        g["ids"].append(stored.event_id)
    ranked = sorted(groups.values(), key=lambda g: (-len(g["trials"]), g["rank"]))[:max_items]
    lines = [
        (
            "Peer warnings for this task (calls made just before earlier attempts failed; "
            "they may or may not have caused the failure):"
        )
    ]
    shown: list[int] = []
    for g in ranked:
        e = g["event"]
        n = len(g["trials"])
        lines.append(
            f"- {_describe(e)} -- in {n} failed attempt{'s' if n != 1 else ''}; "
            f"last outcome: {_short(e.outcome, 160) or '(empty)'}"
        )
        shown.extend(g["ids"])
    return "\n".join(lines), tuple(sorted(shown))


class Pull(Reader):
    """``pull``: peer-warnings summary in the system prompt, plus a ``trace_query`` tool.

    Parameters
    ----------
    max_items : int, default 10
        Groups of events listed in the summary.
    query_limit : int, default 20
        Most events one ``trace_query`` call returns.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import Coordinator, Pull
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
    ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
    >>> s = Coordinator(store, Pull()).start_trial("T", 1)
    >>> print(s.system_prompt("You are a travel agent."))
    You are a travel agent.
    <BLANKLINE>
    Peer warnings for this task (calls made just before earlier attempts failed; they may or may not have caused the failure):
    - book_flight({"flight": "UA1"}) -- in 1 failed attempt; last outcome: no inventory
    >>> [t.name for t in s.tools]
    ['trace_query']
    """

    name = "pull"

    def __init__(self, *, max_items: int = 10, query_limit: int = 20) -> None:
        if max_items < 1 or query_limit < 1:
            raise ValueError("max_items and query_limit must be >= 1")
        self.max_items = max_items
        self.query_limit = query_limit

    def start(self, view: TaskView, state: TrialState) -> ReaderStart:
        """The peer-warnings summary and the ``trace_query`` tool, bound to this trial.

        Parameters
        ----------
        view : TaskView
        state : TrialState
            ``trace_queries`` counts the agent's calls of the tool.

        Returns
        -------
        ReaderStart
            ``prompt_addition`` from :func:`peer_warnings_summary` (``None`` for an empty
            task), the ``trace_query`` tool, ``injections`` = summary items.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
        ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
        >>> import json
        >>> from noisefloor.protocols import Pull, TrialState
        >>> state = TrialState("T", 1)
        >>> start = Pull(query_limit=5).start(store.task("T"), state)
        >>> start.injections, start.prompt_addition.splitlines()[1]
        (1, '- book_flight({"flight": "UA1"}) -- in 1 failed attempt; last outcome: no inventory')
        >>> reply = json.loads(start.tools[0].func(limit=9))
        >>> reply, state.trace_queries
        ({'error': 'limit must be an integer in [1, 5], got 9'}, 1)
        """
        summary, ids = peer_warnings_summary(view, max_items=self.max_items)
        n_items = 0 if summary is None else summary.count("\n- ")
        return ReaderStart(
            prompt_addition=summary,
            tools=(self._query_tool(view, state),),
            injections=n_items,
            event_ids=ids,
        )

    def _query_tool(self, view: TaskView, state: TrialState) -> ToolSpec:
        limit_cap = self.query_limit

        def trace_query(tool_name: str | None = None, limit: int = limit_cap) -> str:
            state.trace_queries += 1
            if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= limit_cap:
                return json.dumps({"error": f"limit must be an integer in [1, {limit_cap}], got {limit!r}"})
            if tool_name is not None and (not isinstance(tool_name, str) or not tool_name):
                return json.dumps({"error": "tool_name must be a non-empty string or omitted"})
            events = view.find(tool_name=tool_name, newest_first=True, limit=limit)
            return json.dumps(
                {"events": [_compact(s) for s in events], "task_events_total": view.count()},
                ensure_ascii=False,
            )

        return ToolSpec(
            name=TRACE_QUERY_TOOL,
            description=(
                "Look up failures that peer agents recorded on this same task: the tool calls made "
                "just before their attempts failed, newest first. Optionally filter by tool name."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "tool_name": {"type": "string", "description": "Only events of this tool."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": limit_cap,
                              "default": limit_cap},
                },
                "additionalProperties": False,
            },
            func=trace_query,
        )


def _compact(stored: StoredEvent) -> dict[str, Any]:
    e = stored.event
    out = {"event_id": stored.event_id, "event_type": e.event_type, "tool_name": e.tool_name,
           "trial": e.trial, "protocol": e.protocol, "reward": e.reward, "position": e.position,
           "outcome": _short(e.outcome, 300)}
    if e.event_type == "failed_trial_action":
        out["arguments"] = e.arguments
    else:
        out["conditions"] = [c.model_dump(mode="json") for c in e.conditions]
    return out


def _attempt(e: Any) -> Any:
    """The failed attempt an event came from (one trial of one run under one protocol)."""
    return e.attempt_id or (e.run_id, e.trial, e.protocol)


def _warning_block(call: CallContext, events: list[StoredEvent], total: int, how: str) -> str:
    """The ``[PEER-WARNING]`` text. It counts distinct failed attempts among ``events`` (an
    agent that retried the call three times before failing is one attempt, as in the pull
    summary); when only the newest of ``total`` matching events were read, the count is a lower
    bound and says so."""
    latest = events[0].event
    what = "this same call" if how == "literal" else f"a matching call ({_describe(latest)})"
    n = len({_attempt(s.event) for s in events})
    plural = "s" if n != 1 else ""
    count = (f"{n} failed attempt{plural}" if total <= len(events)
             else f"at least {n} failed attempt{plural} ({total} matching calls recorded)")
    return (
        f"{WARNING_OPEN}\n"
        f"Peer agents on this task failed after {what}: {call.name} appears among the final "
        f"calls of {count}.\n"
        f"Last recorded outcome: {_short(latest.outcome, 200) or '(empty)'}\n"
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
        return Injection(_warning_block(call, events, total, "literal"),
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
        return Injection(_warning_block(call, events, total, "literal"),
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
            matched = [s for s in candidates if evaluate(s.event.conditions, facts)]
        if not literal and not matched:
            return None
        if matched and not literal:
            text = _warning_block(call, matched[: self.max_events], len(matched), "predicate")
            return Injection(text, tuple(s.event_id for s in matched), match="predicate")
        text = _warning_block(call, literal + matched[: self.max_events],
                              literal_total + len(matched), "literal")
        ids = tuple(s.event_id for s in literal) + tuple(s.event_id for s in matched)
        return Injection(text, ids, match="literal+predicate" if matched else "literal")


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
