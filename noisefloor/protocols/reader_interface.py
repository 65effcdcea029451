"""The reader interface: the two hooks every reader implements, what they receive and return.

A reader protocol subclasses :class:`Reader` and overrides either hook:

``start(view, state) -> ReaderStart``
    At trial start: text to add to the system prompt and extra tools for the agent.
``on_tool_call(view, state, call) -> Injection or None``
    After each task tool call: a block to prepend to the tool's response, or nothing.

The hooks receive the trial's :class:`~noisefloor.store.TaskView` (fixed to one task), its
:class:`TrialState` and, after a call, a :class:`CallContext`; they return a :class:`ReaderStart`
(with :class:`ToolSpec` tools) and :class:`Injection` blocks. :class:`NoCoord`, the baseline
arm, keeps both defaults.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from noisefloor.store.base import TaskView

__all__ = [
    "CallContext",
    "Injection",
    "NoCoord",
    "Reader",
    "ReaderStart",
    "ToolSpec",
    "TrialState",
]


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
        Text prepended to the system prompt (pull only).
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


class Reader(abc.ABC):  # noqa: B024 - both hooks have defaults; a reader overrides either
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
