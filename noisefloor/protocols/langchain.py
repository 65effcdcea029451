"""LangChain adapter: an agent middleware applying a reader and the writer(s) around an agent.

Requires the optional extra ``langchain`` (``pip install noisefloor[langchain]``; LangChain 1.x).

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
    raise ImportError(
        "noisefloor.protocols.langchain needs LangChain 1.x: pip install 'noisefloor[langchain]'"
    ) from exc

from noisefloor.logs.schema import TrialRecord
from noisefloor.protocols.readers import TRACE_QUERY_TOOL, Pull
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

    Examples
    --------
    See ``tests/protocols/test_langchain.py`` and the README: ``create_agent(model, tools,
    middleware=[CoordinationMiddleware(coordinator, grader=...)])``, then
    ``agent.invoke({"messages": [...]}, context={"task_id": "t1", "trial": 0})``.
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
        return f"CoordinationMiddleware[{self.coordinator.protocol}]"

    # -- trial lifecycle ---------------------------------------------------------------------
    def begin_trial(self, task_id: str, trial: int) -> TrialSession:
        """Start a trial explicitly (instead of passing ``context`` to the agent run)."""
        if self.session is not None:
            raise RuntimeError(
                f"trial {self.session.trial} of task {self.session.task_id!r} is still running; "
                "call end_trial(reward) first"
            )
        self.session = self.coordinator.start_trial(task_id, trial)
        self._first_request = None
        return self.session

    def end_trial(self, reward: float | None, **kwargs: Any) -> TrialRecord:
        """Finish the running trial (see :meth:`TrialSession.finish`) and return its record."""
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
        return handler(self._prepare(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
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
        try:
            result = handler(request)
        except Exception as exc:
            self._record_raise(request, exc)
            raise
        return self._after_tool(request, result)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
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
