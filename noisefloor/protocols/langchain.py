"""LangChain adapter: an agent middleware applying a reader and the writer(s) around an agent.

Requires the optional extra ``langchain`` (``pip install -e ".[langchain]"`` in the clone; LangChain 1.x).

:class:`CoordinationMiddleware` wraps a :class:`~noisefloor.protocols.Coordinator` and hooks into
``langchain.agents.create_agent``:

* ``before_agent`` starts the trial (task id and trial index from :meth:`begin_trial`, or from the
  run's ``context`` -- a mapping or object with ``task_id`` and ``trial``);
* ``wrap_model_call`` applies the reader's system-prompt addition (pull) and hashes the first
  model request into ``first_request_sha256`` (so clean null contrasts can be certified);
* ``wrap_tool_call`` passes every task tool result through the reader (intercept readers may
  prepend a ``[PEER-WARNING]`` block) and records the call for the writer;
* ``after_agent`` grades the run with ``grader(state)`` if one was given and finishes the trial
  (runs the writer, builds the :class:`~noisefloor.logs.schema.TrialRecord` in
  :attr:`CoordinationMiddleware.records`); without a grader call :meth:`end_trial` yourself.

The pull reader's query tool is registered as the middleware's tool ``trace_query``; with other
readers the agent's tool surface is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

try:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import SystemMessage, ToolMessage
    from langchain_core.tools import StructuredTool
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from noisefloor.extras import install_command

    raise ImportError(
        "noisefloor.protocols.langchain needs LangChain 1.x, which the langchain extra "
        f"installs: in the noisefloor clone, run {install_command('langchain')}"
    ) from exc

from noisefloor.logs.schema import TrialRecord
from noisefloor.protocols.pull import TRACE_QUERY_TOOL, Pull
from noisefloor.protocols.session import Coordinator, TrialSession, request_sha256

__all__ = ["CoordinationMiddleware"]


def _context_value(context: Any, name: str) -> Any:
    if context is None:
        return None
    if isinstance(context, Mapping):
        return context.get(name)
    return getattr(context, name, None)


def _message_payload(message: Any) -> dict[str, Any]:
    return {"type": getattr(message, "type", type(message).__name__),
            "content": getattr(message, "content", str(message)),
            "tool_calls": getattr(message, "tool_calls", None) or None}


def _tool_payload(tool: Any) -> Any:
    if isinstance(tool, Mapping):
        return tool
    return {"name": getattr(tool, "name", str(tool)),
            "description": getattr(tool, "description", ""),
            "args": getattr(tool, "args", None)}


class CoordinationMiddleware(AgentMiddleware):
    """Run a coordination protocol inside a LangChain agent.

    Parameters
    ----------
    coordinator : Coordinator
        Store, reader and writer(s) to apply.
    grader : callable, optional
        ``grader(state) -> reward in [0, 1] or None``, called in ``after_agent``; when given,
        each agent run is one trial, finished automatically.

    Attributes
    ----------
    session : TrialSession or None
        The running trial.
    records : list of TrialRecord
        Records of finished trials, in order.

    Raises
    ------
    TypeError
        If ``coordinator`` is not a :class:`~noisefloor.protocols.Coordinator`.

    Examples
    --------
    Offline, with LangChain's fake chat model scripted to call ``cancel_order`` once. The second
    trial's tool result carries the warning the first trial's failure left in the store:

    >>> from langchain.agents import create_agent
    >>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    >>> from langchain_core.messages import AIMessage, ToolMessage
    >>> from langchain_core.tools import tool
    >>> from noisefloor.store import SQLiteEventStore
    >>> from noisefloor.protocols import Coordinator, Intercept
    >>> from noisefloor.protocols.langchain import CoordinationMiddleware
    >>> class ScriptedModel(GenericFakeChatModel):
    ...     def bind_tools(self, tools, **kwargs):
    ...         return self
    >>> @tool
    ... def cancel_order(order_id: str) -> str:
    ...     "Cancel an order that has not shipped."
    ...     return f"error: order {order_id} has shipped"
    >>> store = SQLiteEventStore(":memory:")
    >>> def run(trial):
    ...     model = ScriptedModel(messages=iter([
    ...         AIMessage(content="", tool_calls=[{"name": "cancel_order", "id": "c1",
    ...                                            "args": {"order_id": "#W1"}}]),
    ...         AIMessage(content="Done.")]))
    ...     mw = CoordinationMiddleware(Coordinator(store, Intercept(), benchmark="demo"),
    ...                                 grader=lambda state: 0.0)
    ...     agent = create_agent(model, [cancel_order], middleware=[mw])
    ...     out = agent.invoke({"messages": [("user", "Cancel #W1.")]},
    ...                        context={"task_id": "T", "trial": trial})
    ...     seen = [m.content for m in out["messages"] if isinstance(m, ToolMessage)]
    ...     return seen[0].splitlines()[0], mw.records[0]
    >>> first_line, record = run(0)
    >>> first_line, record.reward, record.store_events_at_start
    ('error: order #W1 has shipped', 0.0, 0)
    >>> first_line, record = run(1)
    >>> first_line, record.injections, record.store_events_at_start
    ('[PEER-WARNING]', 1, 1)
    """

    def __init__(self, coordinator: Coordinator,
                 grader: Callable[[Any], float | None] | None = None) -> None:
        super().__init__()
        if not isinstance(coordinator, Coordinator):
            raise TypeError(f"coordinator must be a Coordinator, got {type(coordinator).__name__}")
        self.coordinator = coordinator
        self.grader = grader
        self.session: TrialSession | None = None
        self.records: list[TrialRecord] = []
        self._first_request: str | None = None
        self.tools = [self._trace_query_tool()] if isinstance(coordinator.reader, Pull) else []

    @property
    def name(self) -> str:
        """Middleware name LangChain shows: ``"CoordinationMiddleware[<protocol>]"``.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> CoordinationMiddleware(Coordinator(SQLiteEventStore(":memory:"), Pull())).name
        'CoordinationMiddleware[pull]'
        """
        return f"CoordinationMiddleware[{self.coordinator.protocol}]"

    # -- trial lifecycle ---------------------------------------------------------------------
    def begin_trial(self, task_id: str, trial: int) -> TrialSession:
        """Start a trial explicitly (instead of passing ``context`` to the agent run).

        Parameters
        ----------
        task_id : str
        trial : int
            Trial index, >= 0.

        Returns
        -------
        TrialSession
            Also kept as :attr:`session` until :meth:`end_trial`.

        Raises
        ------
        RuntimeError
            If a trial is still running.
        ValueError
            As :meth:`Coordinator.start_trial <noisefloor.protocols.Coordinator.start_trial>`.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, NoCoord
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> mw = CoordinationMiddleware(Coordinator(SQLiteEventStore(":memory:"), NoCoord()))
        >>> mw.begin_trial("T", 0).task_id
        'T'
        >>> mw.begin_trial("T", 1)
        Traceback (most recent call last):
        ...
        RuntimeError: trial 0 of task 'T' is still running; call end_trial(reward) first
        """
        if self.session is not None:
            raise RuntimeError(
                f"trial {self.session.trial} of task {self.session.task_id!r} is still running; "
                "call end_trial(reward) first"
            )
        self.session = self.coordinator.start_trial(task_id, trial)
        self._first_request = None
        return self.session

    def end_trial(self, reward: float | None, **kwargs: Any) -> TrialRecord:
        """Finish the running trial (see :meth:`TrialSession.finish`) and return its record.

        Parameters
        ----------
        reward : float or None
            Final reward on [0, 1].
        **kwargs
            Passed to :meth:`TrialSession.finish <noisefloor.protocols.TrialSession.finish>`;
            ``first_request_sha256`` defaults to the hash of the run's first model request.

        Returns
        -------
        TrialRecord
            Also appended to :attr:`records`.

        Raises
        ------
        RuntimeError
            If no trial is running.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, NoCoord
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> mw = CoordinationMiddleware(Coordinator(SQLiteEventStore(":memory:"), NoCoord()))
        >>> _ = mw.begin_trial("T", 0)
        >>> record = mw.end_trial(1.0, termination_reason="agent_stop")
        >>> record.reward, record.termination_reason, len(mw.records), mw.session
        (1.0, 'agent_stop', 1, None)
        """
        if self.session is None:
            raise RuntimeError("no trial is running; call begin_trial or pass context to the agent")
        kwargs.setdefault("first_request_sha256", self._first_request)
        try:
            record = self.session.finish(reward, **kwargs)
        finally:
            self.session = None
        self.records.append(record)
        return record

    def _require_session(self) -> TrialSession:
        if self.session is None:
            raise RuntimeError("no trial is running; call begin_trial or pass context to the agent")
        return self.session

    # -- agent hooks -------------------------------------------------------------------------
    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """LangChain hook: start the trial from ``runtime.context`` unless one is running.

        Parameters
        ----------
        state : AgentState
            Not used.
        runtime : Runtime
            Its ``context`` (mapping or object) gives ``task_id`` and ``trial``.

        Returns
        -------
        None
            The agent state is not changed.

        Raises
        ------
        RuntimeError
            If no trial is running and the context lacks ``task_id`` or ``trial``.

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, NoCoord
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> mw = CoordinationMiddleware(Coordinator(SQLiteEventStore(":memory:"), NoCoord()))
        >>> mw.before_agent({}, SimpleNamespace(context={"task_id": "T", "trial": 2}))
        >>> mw.session.task_id, mw.session.trial
        ('T', 2)
        """
        if self.session is None:
            context = getattr(runtime, "context", None)
            task_id, trial = _context_value(context, "task_id"), _context_value(context, "trial")
            if task_id is None or trial is None:
                raise RuntimeError(
                    "CoordinationMiddleware needs the trial: call begin_trial(task_id, trial) or "
                    "invoke the agent with context={'task_id': ..., 'trial': ...}"
                )
            self.begin_trial(task_id, trial)
        return None

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """LangChain hook: with a grader, grade ``state`` and finish the trial.

        Parameters
        ----------
        state : AgentState
            Passed to ``grader``.
        runtime : Runtime
            Not used.

        Returns
        -------
        None
            Without a grader nothing happens; call :meth:`end_trial` yourself.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> from noisefloor.protocols import Coordinator, NoCoord
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> mw = CoordinationMiddleware(Coordinator(SQLiteEventStore(":memory:"), NoCoord()),
        ...                             grader=lambda state: state["score"])
        >>> _ = mw.begin_trial("T", 0)
        >>> mw.after_agent({"score": 0.0}, None)
        >>> mw.records[0].reward, mw.records[0].termination_reason
        (0.0, 'agent_stop')
        """
        if self.grader is not None and self.session is not None:
            self.end_trial(self.grader(state), termination_reason="agent_stop")
        return None

    def _prepare(self, request: Any) -> Any:
        session = self._require_session()
        addition = session.start.prompt_addition
        if addition:
            base = request.system_prompt or ""
            request = request.override(system_message=SystemMessage(content=session.system_prompt(base)))
        if self._first_request is None:
            self._first_request = request_sha256({
                "system": request.system_prompt,
                "messages": [_message_payload(m) for m in request.messages],
                "tools": [_tool_payload(t) for t in request.tools],
            })
        return request

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """LangChain hook: add the reader's prompt text (pull), hash the first request, call on.

        Parameters
        ----------
        request : ModelRequest
        handler : callable
            The next step, ``handler(request) -> ModelResponse``.

        Returns
        -------
        ModelResponse
            Whatever ``handler`` returns for the (possibly amended) request.

        Raises
        ------
        RuntimeError
            If no trial is running.

        Examples
        --------
        >>> from langchain.agents.middleware import ModelRequest
        >>> from langchain_core.messages import HumanMessage
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="cancel_order",
        ...     arguments={"order_id": "#W1"}, outcome="error: shipped", reward=0.0,
        ...     position=1, k=3))
        >>> mw = CoordinationMiddleware(Coordinator(store, Pull()))
        >>> _ = mw.begin_trial("T", 1)
        >>> request = ModelRequest(model=None, messages=[HumanMessage("Cancel #W1.")],
        ...                        system_prompt="You are a retail agent.")
        >>> sent = mw.wrap_model_call(request, lambda r: r.system_prompt)
        >>> print(sent.splitlines()[1]); print(sent.splitlines()[3])
        - cancel_order({"order_id": "#W1"}) -- in 1 failed attempt; last outcome: error: shipped
        You are a retail agent.
        >>> len(mw.end_trial(0.0).first_request_sha256)
        64
        """
        return handler(self._prepare(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """Async form of :meth:`wrap_model_call` (``handler`` is awaited).

        Examples
        --------
        >>> from langchain.agents.middleware import ModelRequest
        >>> from langchain_core.messages import HumanMessage
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> from noisefloor.protocols import Coordinator, Pull
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="cancel_order",
        ...     arguments={"order_id": "#W1"}, outcome="error: shipped", reward=0.0,
        ...     position=1, k=3))
        >>> mw = CoordinationMiddleware(Coordinator(store, Pull()))
        >>> _ = mw.begin_trial("T", 1)
        >>> request = ModelRequest(model=None, messages=[HumanMessage("Cancel #W1.")],
        ...                        system_prompt="You are a retail agent.")
        >>> import asyncio
        >>> async def handler(r):
        ...     return r.system_prompt
        >>> asyncio.run(mw.awrap_model_call(request, handler)).count("cancel_order")
        1
        """
        return await handler(self._prepare(request))

    def _after_tool(self, request: Any, result: Any) -> Any:
        if not isinstance(result, ToolMessage):
            return result  # a Command (graph control flow) passes through untouched
        call = request.tool_call
        name = call["name"]
        session = self._require_session()
        if session.is_coordination_tool(name):
            return result
        content = result.content if isinstance(result.content, str) else result.text
        seen = session.after_tool_call(name, call.get("args") or {}, content,
                                       error=getattr(result, "status", "success") == "error")
        if seen == content:
            return result
        return result.model_copy(update={"content": seen})

    def _record_raise(self, request: Any, exc: BaseException) -> None:
        # a tool that raises (and is not handled by the ToolNode) is still a call of the trial
        call = request.tool_call
        session = self._require_session()
        if not session.is_coordination_tool(call["name"]):
            session.after_tool_call(call["name"], call.get("args") or {},
                                    f"error: {type(exc).__name__}: {exc}", error=True)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """LangChain hook: run the tool, record the call, let the reader amend the result.

        Parameters
        ----------
        request : ToolCallRequest
            Its ``tool_call`` dict gives ``name`` and ``args``.
        handler : callable
            Runs the tool, ``handler(request) -> ToolMessage or Command``.

        Returns
        -------
        ToolMessage or Command
            A copy of the message with the warning prepended when the reader injects; otherwise
            the handler's result unchanged (a ``Command`` always passes through).

        Raises
        ------
        Exception
            Whatever ``handler`` raises, re-raised after the call is recorded as an error.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> from noisefloor.protocols import Coordinator, Intercept
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="cancel_order",
        ...     arguments={"order_id": "#W1"}, outcome="error: shipped", reward=0.0,
        ...     position=1, k=3))
        >>> mw = CoordinationMiddleware(Coordinator(store, Intercept()))
        >>> _ = mw.begin_trial("T", 1)
        >>> from types import SimpleNamespace
        >>> from langchain_core.messages import ToolMessage
        >>> request = SimpleNamespace(tool_call={"name": "cancel_order", "id": "c1",
        ...                                      "args": {"order_id": "#W1"}})
        >>> result = mw.wrap_tool_call(request, lambda r: ToolMessage("error: shipped",
        ...                                                          tool_call_id="c1"))
        >>> result.content.splitlines()[0], result.content.splitlines()[-1]
        ('[PEER-WARNING]', 'error: shipped')
        >>> mw.session.calls[0].name
        'cancel_order'
        """
        try:
            result = handler(request)
        except Exception as exc:
            self._record_raise(request, exc)
            raise
        return self._after_tool(request, result)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """Async form of :meth:`wrap_tool_call` (``handler`` is awaited).

        Examples
        --------
        A tool that raises is still recorded as a call of the trial:

        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> from noisefloor.protocols import Coordinator, Intercept
        >>> from noisefloor.protocols.langchain import CoordinationMiddleware
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="cancel_order",
        ...     arguments={"order_id": "#W1"}, outcome="error: shipped", reward=0.0,
        ...     position=1, k=3))
        >>> mw = CoordinationMiddleware(Coordinator(store, Intercept()))
        >>> _ = mw.begin_trial("T", 1)
        >>> from types import SimpleNamespace
        >>> from langchain_core.messages import ToolMessage
        >>> request = SimpleNamespace(tool_call={"name": "cancel_order", "id": "c1",
        ...                                      "args": {"order_id": "#W1"}})
        >>> import asyncio
        >>> async def handler(r):
        ...     raise TimeoutError("backend slow")
        >>> asyncio.run(mw.awrap_tool_call(request, handler))
        Traceback (most recent call last):
        ...
        TimeoutError: backend slow
        >>> call = mw.session.calls[0]
        >>> call.name, call.error, call.response
        ('cancel_order', True, 'error: TimeoutError: backend slow')
        """
        try:
            result = await handler(request)
        except Exception as exc:
            self._record_raise(request, exc)
            raise
        return self._after_tool(request, result)

    # -- the pull reader's tool --------------------------------------------------------------
    def _trace_query_tool(self) -> StructuredTool:
        def trace_query(tool_name: str | None = None, limit: int | None = None) -> str:
            """Look up failures that peer agents recorded on this same task: the tool calls made
            just before their attempts failed, newest first. Optionally filter by tool name and
            cap the number of events (limit)."""
            session = self._require_session()
            spec = next(t for t in session.tools if t.name == TRACE_QUERY_TOOL)
            return spec.func(tool_name=tool_name) if limit is None else spec.func(
                tool_name=tool_name, limit=limit)

        return StructuredTool.from_function(trace_query, name=TRACE_QUERY_TOOL)
