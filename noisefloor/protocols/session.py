"""The framework-neutral interface: plain callables around any agent loop.

A :class:`Coordinator` binds a store, a reader and a writer (one configuration, one protocol).
For each trial, :meth:`Coordinator.start_trial` returns a :class:`TrialSession` with four plain
calls an agent loop makes:

1. ``session.system_prompt(base)`` -- the system prompt to send (pull prepends its summary);
2. ``session.tools`` -- extra tools to offer the agent (pull: ``trace_query``), each a
   :class:`~noisefloor.protocols.reader_interface.ToolSpec` with a JSON Schema and a callable;
3. ``session.after_tool_call(name, arguments, response)`` -- after every tool call; returns the
   response the agent should see (intercept readers may prepend a ``[PEER-WARNING]`` block);
   ``session.call_tool(name, arguments, fn)`` runs ``fn(**arguments)`` and does the same;
4. ``session.finish(reward)`` -- when the trial is graded: runs the writer (a failed trial's
   final K calls become events) and returns the trial's
   :class:`~noisefloor.logs.schema.TrialRecord`.

Examples
--------
A hand-written agent loop (the "model" here is a scripted policy; a real loop would call an
LLM with ``prompt`` and the tools):

>>> from noisefloor.store import SQLiteEventStore
>>> from noisefloor.protocols import Coordinator, Intercept
>>> store = SQLiteEventStore(":memory:")
>>> coord = Coordinator(store, Intercept(), benchmark="demo/retail", model="scripted")
>>> orders = {"#W1": "shipped"}
>>> def cancel_order(order_id):
...     return "error: order is shipped" if orders[order_id] == "shipped" else "cancelled"
>>> def run_trial(trial):
...     session = coord.start_trial("task-7", trial)
...     prompt = session.system_prompt("You are a retail agent.")
...     seen = session.call_tool("cancel_order", {"order_id": "#W1"}, cancel_order)
...     reward = 0.0 if "error" in seen else 1.0
...     return seen, session.finish(reward, termination_reason="agent_stop")
>>> seen, record = run_trial(0)
>>> print(seen)
error: order is shipped
>>> record.store_events_at_start, record.injections
(0, 0)
>>> seen, record = run_trial(1)
>>> print(seen)
[PEER-WARNING]
Peer agents on this task failed after this same call: cancel_order appears among the final calls of 1 failed attempt.
Last recorded outcome: error: order is shipped
[/PEER-WARNING]
error: order is shipped
>>> record.store_events_at_start, record.injections, record.protocol
(1, 1, 'intercept')
"""

from __future__ import annotations

import datetime as _dt
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, cast

from noisefloor.logs.schema import SCHEMA_VERSION, TrialRecord
from noisefloor.protocols.payload import as_arguments as _as_arguments
from noisefloor.protocols.payload import as_text as _as_text
from noisefloor.protocols.payload import request_sha256
from noisefloor.protocols.reader_interface import (
    CallContext,
    Reader,
    ReaderStart,
    ToolSpec,
    TrialState,
)
from noisefloor.protocols.trace import ToolCall, TrialTrace
from noisefloor.protocols.writers import LastKWriter, Writer
from noisefloor.store.base import EventStore, TaskView
from noisefloor.store.keys import call_fingerprint, canonical_key

__all__ = ["Coordinator", "TrialSession", "request_sha256"]

logger = logging.getLogger(__name__)


class Coordinator:
    """One coordination configuration: a store, a reader, one or more writers.

    Parameters
    ----------
    store : EventStore
        Where events are read and written (e.g. :class:`~noisefloor.store.SQLiteEventStore`).
    reader : Reader
        The reader protocol (:class:`~noisefloor.protocols.NoCoord`, ``Pull``, ``Intercept``,
        ``SelectiveIntercept``, ``PredicateIntercept`` or your own).
    writer : Writer or sequence of Writer, default LastKWriter(k=3)
        Run at the end of every trial; their events are appended in one transaction.
    protocol : str, optional
        Protocol name written into records and events; defaults to ``reader.name``.
    benchmark, model : str
        Copied into every trial record.
    seed : int or None
    run_id : str or None
        Copied into events (identifies the worker/seed that wrote them).

    Raises
    ------
    TypeError
        If ``store`` is not an :class:`~noisefloor.store.EventStore`, ``reader`` not a
        :class:`~noisefloor.protocols.Reader`, a writer lacks ``name``/``events_for``, or
        ``seed`` is not an int or ``None``.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore
    >>> from noisefloor.protocols import Coordinator, LastKWriter, Pull
    >>> store = SQLiteEventStore(":memory:")
    >>> Coordinator(store, Pull(), LastKWriter(k=2), benchmark="demo", seed=1)
    Coordinator(protocol='pull', reader=Pull(), writers=['last_k'])
    >>> Coordinator(store, "pull")
    Traceback (most recent call last):
    ...
    TypeError: reader must be a Reader, got str

    The module docstring of :mod:`noisefloor.protocols.session` shows a whole agent loop.
    """

    def __init__(
        self,
        store: EventStore,
        reader: Reader,
        writer: Writer | Sequence[Writer] | None = None,
        *,
        protocol: str | None = None,
        benchmark: str = "custom",
        model: str = "unknown",
        seed: int | None = None,
        run_id: str | None = None,
    ) -> None:
        if not isinstance(store, EventStore):
            raise TypeError(f"store must be an EventStore, got {type(store).__name__}")
        if not isinstance(reader, Reader):
            raise TypeError(f"reader must be a Reader, got {type(reader).__name__}")
        writers: list[Writer] = [LastKWriter()] if writer is None else (
            list(writer) if isinstance(writer, Sequence) else [writer])
        for w in writers:
            if not isinstance(w, Writer):
                raise TypeError(f"writer must have .name and .events_for(trace), got {type(w).__name__}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"seed must be an int or None, got {seed!r}")
        self.store = store
        self.reader = reader
        self.writers = tuple(writers)
        self.protocol = protocol or reader.name
        self.benchmark = benchmark
        self.model = model
        self.seed = seed
        self.run_id = run_id

    def start_trial(self, task_id: str, trial: int) -> TrialSession:
        """Begin a trial of ``task_id``: snapshot the store size and run the reader's start hook.

        Parameters
        ----------
        task_id : str
            The task; the session can read only this task's events.
        trial : int
            Trial index, >= 0.

        Returns
        -------
        TrialSession

        Raises
        ------
        ValueError
            If ``trial`` is not an int >= 0 or ``task_id`` is an empty string.
        TypeError
            If ``task_id`` is not a string.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> from noisefloor.protocols import Coordinator, Intercept
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="f", reward=0.0,
        ...                                    position=1, k=3))
        >>> coord = Coordinator(store, Intercept())
        >>> session = coord.start_trial("T", 1)
        >>> session.task_id, session.trial, session.store_events_at_start
        ('T', 1, 1)
        >>> coord.start_trial("T", -1)
        Traceback (most recent call last):
        ...
        ValueError: trial must be an int >= 0, got -1
        """
        if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
            raise ValueError(f"trial must be an int >= 0, got {trial!r}")
        return TrialSession(self, self.store.task(task_id), trial)

    def write(self, trace: TrialTrace) -> list[int]:
        """Run the writer(s) on a finished trial and append their events in one transaction.

        :meth:`TrialSession.finish` calls it unless ``write=False``: a phased runner journals
        the record first and writes between phases. ``trace`` is :attr:`TrialSession.trace`;
        returns the store ids written (empty for a successful or unscored trial).

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, Intercept
        >>> coord = Coordinator(SQLiteEventStore(":memory:"), Intercept())
        >>> session = coord.start_trial("T", 0)
        >>> _ = session.call_tool("f", {}, lambda: "no")
        >>> record = session.finish(0.0, write=False)
        >>> record.extra["store"]["events_written"], coord.store.count("T")
        (0, 0)
        >>> coord.write(session.trace), coord.store.count("T")
        ([1], 1)
        """
        events: list[Any] = []
        for w in self.writers:
            events.extend(w.events_for(trace))
        return self.store.append_many(events) if events else []

    def __repr__(self) -> str:
        return (f"Coordinator(protocol={self.protocol!r}, reader={self.reader!r}, "
                f"writers={[w.name for w in self.writers]})")


class TrialSession:
    """One trial under a coordinator. Made by :meth:`Coordinator.start_trial`; see module docs.

    Attributes
    ----------
    task_id : str
    trial : int
    started_at : datetime
        UTC time the session was made.
    attempt_id : str
        Random hex id of this attempt, copied into the events it writes.
    store_events_at_start : int
        Events of the task in the store when the trial began.
    state : TrialState
        Bookkeeping shared with the reader (injections, gate log, ...).
    start : ReaderStart
        What the reader contributed at trial start.

    Examples
    --------
    Two trials of one task under ``pull``: the second sees the first one's failure.

    >>> from noisefloor.store import SQLiteEventStore
    >>> from noisefloor.protocols import Coordinator, Pull
    >>> coord = Coordinator(SQLiteEventStore(":memory:"), Pull(), benchmark="demo", model="m")
    >>> first = coord.start_trial("T", 0)
    >>> _ = first.call_tool("get", {"id": 1}, lambda id: {"status": "shipped"})
    >>> first.finish(0.0).extra["store"]["events_written"]
    1
    >>> second = coord.start_trial("T", 1)
    >>> second.store_events_at_start, second.start.injections
    (1, 1)
    """

    def __init__(self, coordinator: Coordinator, view: TaskView, trial: int) -> None:
        self._coord = coordinator
        self._view = view
        self.task_id: str = view.task_id
        self.trial = trial
        self.started_at = _dt.datetime.now(_dt.timezone.utc)
        self.attempt_id = uuid.uuid4().hex
        self.store_events_at_start = view.count()
        self.state = TrialState(task_id=self.task_id, trial=trial)
        self._calls: list[ToolCall] = []
        self._keys: list[dict[str, Any]] = []
        self._finished: TrialRecord | None = None
        self._trace: TrialTrace | None = None
        self.start: ReaderStart = coordinator.reader.start(view, self.state)
        self.state.injections += self.start.injections
        self._tools = {t.name: t for t in self.start.tools}

    # -- the plain callables -------------------------------------------------------------------
    def system_prompt(self, base: str) -> str:
        """The system prompt to send: the reader's addition (pull) before ``base``, else ``base``.

        The noise-floor paper prepends pull's peer-warnings summary to the system prompt at
        trial start; every framework adapter (LangChain, tau2-bench) goes through this method,
        so the rule is the same everywhere.

        Parameters
        ----------
        base : str
            The agent's own system prompt.

        Returns
        -------
        str
            ``base``, or ``addition + "\\n\\n" + base`` (just the addition when ``base`` is
            empty).

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> store = SQLiteEventStore(":memory:")
        >>> session = Coordinator(store, Pull()).start_trial("T", 0)
        >>> session.system_prompt("You are an agent.")
        'You are an agent.'
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="f", reward=0.0,
        ...                                    position=1, k=3))
        >>> print(Coordinator(store, Pull()).start_trial("T", 1).system_prompt("BASE"))
        Peer warnings for this task (calls made just before earlier attempts failed; they may or may not have caused the failure):
        - f({}) -- in 1 failed attempt; last outcome: (empty)
        <BLANKLINE>
        BASE
        """
        if not self.start.prompt_addition:
            return base
        return f"{self.start.prompt_addition}\n\n{base}" if base else self.start.prompt_addition

    @property
    def tools(self) -> list[ToolSpec]:
        """Tools the reader adds for the agent (empty except for pull).

        Returns
        -------
        list of ToolSpec
            A copy; offer these to the model beside the task's own tools.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> session = Coordinator(SQLiteEventStore(":memory:"), Pull()).start_trial("T", 0)
        >>> [(t.name, t.parameters["type"]) for t in session.tools]
        [('trace_query', 'object')]
        """
        return list(self.start.tools)

    def is_coordination_tool(self, name: str) -> bool:
        """True for tools the reader added (their calls are not task calls).

        Parameters
        ----------
        name : str

        Returns
        -------
        bool

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> session = Coordinator(SQLiteEventStore(":memory:"), Pull()).start_trial("T", 0)
        >>> session.is_coordination_tool("trace_query"), session.is_coordination_tool("get_order")
        (True, False)
        """
        return name in self._tools

    def after_tool_call(self, name: str, arguments: Mapping[str, Any] | str | None, response: Any,
                        *, error: bool = False) -> str:
        """Record a task tool call and return the response the agent should see.

        Parameters
        ----------
        name : str
            Tool name.
        arguments : mapping, JSON string or None
            The call's arguments as the agent sent them.
        response : Any
            The tool's output; non-strings are JSON-encoded (``str()`` as a fallback).
        error : bool, default False
            Whether the tool failed.

        Returns
        -------
        str
            ``response`` unchanged, or with a ``[PEER-WARNING]`` block prepended.

        Raises
        ------
        RuntimeError
            If the trial is finished.
        ValueError, TypeError
            If ``arguments`` is a string that is not JSON, or not a mapping.

        Examples
        --------
        Use it when the agent framework runs the tools itself:

        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> session = Coordinator(SQLiteEventStore(":memory:"), Pull()).start_trial("T", 0)
        >>> session.after_tool_call("get_order", '{"id": 1}', {"status": "shipped"})
        '{"status": "shipped"}'
        >>> session.calls[0].arguments
        {'id': 1}
        >>> session.after_tool_call("get_order", "id=1", "x")
        Traceback (most recent call last):
        ...
        ValueError: tool arguments string is not JSON: Expecting value
        """
        self._check_open()
        if self.is_coordination_tool(name):
            return _as_text(response)
        args = _as_arguments(arguments)
        text = _as_text(response)
        key = canonical_key(name, args)
        index = len(self._calls)
        self._calls.append(ToolCall(name=name, arguments=args, response=text, error=error))
        injection = self._coord.reader.on_tool_call(
            self._view, self.state, CallContext(index=index, name=name, arguments=args, key=key, response=text)
        )
        entry = {"tool": name, "key": key, "fingerprint": call_fingerprint(name, args),
                 "injected": injection is not None}
        self._keys.append(entry)
        if injection is None:
            return text
        self.state.injections += 1
        self.state.warned_keys.add(key)
        self.state.warned_event_ids.update(injection.event_ids)
        entry["event_ids"] = list(injection.event_ids)
        entry["match"] = injection.match
        return injection.text + text

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None, fn: Callable[..., Any] | None) -> str:
        """Run ``fn(**arguments)`` (or a reader tool of that name) and apply :meth:`after_tool_call`.

        An exception from ``fn`` is recorded as an error response ``"error: <Type>: <message>"``,
        which is what the agent sees; it is not re-raised.

        Parameters
        ----------
        name : str
            Tool name.
        arguments : mapping, JSON string or None
            Keyword arguments for ``fn``.
        fn : callable
            The task tool; ignored (may be ``None``) for a reader tool such as ``trace_query``.

        Returns
        -------
        str
            What the agent should see (see :meth:`after_tool_call`).

        Raises
        ------
        RuntimeError
            If the trial is finished.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> session = Coordinator(SQLiteEventStore(":memory:"), Pull()).start_trial("T", 0)
        >>> session.call_tool("divide", {"a": 1, "b": 0}, lambda a, b: a / b)
        'error: ZeroDivisionError: division by zero'
        >>> session.calls[0].error
        True
        >>> session.call_tool("trace_query", {}, None)
        '{"events": [], "task_events_total": 0}'
        >>> len(session.calls)
        1
        """
        args = _as_arguments(arguments)
        if self.is_coordination_tool(name):
            return _as_text(self._tools[name].func(**args))
        try:
            if fn is None:  # nothing to run: the agent sees the call fail, as for a bad one
                raise TypeError(f"no function is bound to the tool {name!r}")
            result, error = fn(**args), False
        except Exception as exc:  # the agent sees the failure, as tool benchmarks do
            result, error = f"error: {type(exc).__name__}: {exc}", True
        return self.after_tool_call(name, args, result, error=error)

    def finish(self, reward: float | None, *, termination_reason: str | None = None,
               infrastructure_error: bool = False, first_request_sha256: str | None = None,
               extra: Mapping[str, Any] | None = None, write: bool = True) -> TrialRecord:
        """End the trial: run the writer(s), then return the trial record.

        Parameters
        ----------
        reward : float or None
            Final reward on [0, 1]; ``None`` when the trial never produced one (nothing is written).
        termination_reason : str or None
        infrastructure_error : bool, default False
            When True nothing is written to the store (the failure is not the agent's), and
            ``reward`` must be ``None`` (the trial log refuses an infrastructure error that carries
            a reward).
        first_request_sha256 : str or None
            Hash of the first model request (see :func:`request_sha256`).
        extra : mapping, optional
            Merged into the record's ``extra`` (cannot override the coordination fields).
        write : bool, default True
            ``False``: write nothing now; pass :attr:`trace` to :meth:`Coordinator.write` later.

        Returns
        -------
        TrialRecord
            With ``store_events_at_start``, ``injections`` and ``extra`` holding
            ``timestamp``, ``coordination_keys`` (one ``{"tool", "key", "fingerprint",
            "injected"}`` per task call), ``store`` (reader, writers, events written) and, for the
            selective intercept, ``gate`` (every gate decision with its inputs).

        Raises
        ------
        RuntimeError
            If called twice.
        ValueError
            If ``infrastructure_error`` is True and ``reward`` is not None.
        pydantic.ValidationError
            If the record is invalid (e.g. reward outside [0, 1]).
        ValueError
            If ``extra`` sets a reserved key (``timestamp``, ``attempt_id``,
            ``coordination_keys``, ``store``, ``gate``).

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> session = Coordinator(SQLiteEventStore(":memory:"), Pull()).start_trial("T", 0)
        >>> _ = session.call_tool("get", {"id": 1}, lambda id: "ok")
        >>> record = session.finish(0.0, termination_reason="max_steps")
        >>> record.reward, record.protocol, record.extra["store"]["events_written"]
        (0.0, 'pull', 1)
        >>> session.finish(0.0)
        Traceback (most recent call last):
        ...
        RuntimeError: trial 0 of task 'T' is already finished
        """
        self._check_open()
        if infrastructure_error and reward is not None:
            raise ValueError(
                f"trial {self.trial} of task {self.task_id!r}: an infrastructure error never "
                f"produced a result, so it has no reward (got {reward!r}); pass reward=None, or "
                "infrastructure_error=False if the trial did run")
        coord = self._coord
        if isinstance(reward, int) and not isinstance(reward, bool):
            reward = float(reward)
        trace = TrialTrace(task_id=self.task_id, trial=self.trial, protocol=coord.protocol,
                           calls=tuple(self._calls), reward=None if infrastructure_error else reward,
                           run_id=coord.run_id, attempt_id=self.attempt_id)
        self._trace = trace
        ids = coord.write(trace) if write and not infrastructure_error else []
        info: dict[str, Any] = {
            "timestamp": self.started_at.isoformat(),
            "attempt_id": self.attempt_id,
            "coordination_keys": self._keys,
            "store": {
                "reader": coord.reader.name,
                "writers": [w.name for w in coord.writers],
                "events_written": len(ids),
                "event_ids_written": ids,
                "trace_queries": self.state.trace_queries,
                "start_injections": self.start.injections,
            },
        }
        if self.state.gate_log:
            info["gate"] = self.state.gate_log
        merged = dict(extra or {})
        clash = set(merged) & set(info)
        if clash:
            raise ValueError(f"extra must not set reserved fields {sorted(clash)}")
        merged.update(info)
        record = TrialRecord(
            # SCHEMA_VERSION is typed str; the record's field takes the literal version
            schema_version=cast(Literal["1"], SCHEMA_VERSION),
            benchmark=coord.benchmark,
            model=coord.model,
            protocol=coord.protocol,
            seed=coord.seed,
            task_id=self.task_id,
            trial=self.trial,
            reward=reward,
            termination_reason=termination_reason,
            infrastructure_error=bool(infrastructure_error),
            store_events_at_start=self.store_events_at_start,
            injections=self.state.injections,
            first_request_sha256=first_request_sha256,
            extra=merged,
        )
        self._finished = record
        return record

    @property
    def trace(self) -> TrialTrace:
        """The finished trial as writers see it (an infrastructure error's reward is ``None``);
        ``RuntimeError`` before :meth:`finish`.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, NoCoord
        >>> session = Coordinator(SQLiteEventStore(":memory:"), NoCoord()).start_trial("T", 0)
        >>> _ = session.finish(1.0)
        >>> session.trace.reward, session.trace.calls
        (1.0, ())
        """
        if self._trace is None:
            raise RuntimeError(f"trial {self.trial} of task {self.task_id!r} is not finished")
        return self._trace

    @property
    def calls(self) -> list[ToolCall]:
        """Task tool calls recorded so far.

        Returns
        -------
        list of ToolCall
            A copy, in call order; reader tools (``trace_query``) are not included.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> session = Coordinator(SQLiteEventStore(":memory:"), Pull()).start_trial("T", 0)
        >>> _ = session.call_tool("get", {"id": 1}, lambda id: "ok")
        >>> session.calls
        [ToolCall(name='get', arguments={'id': 1}, response='ok', error=False)]
        """
        return list(self._calls)

    def _check_open(self) -> None:
        if self._finished is not None:
            raise RuntimeError(f"trial {self.trial} of task {self.task_id!r} is already finished")
