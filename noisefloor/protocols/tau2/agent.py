"""The coordinated tau2-bench agent: tau2's own LLM agent with a protocol's reader around it.

:class:`CoordinatedLLMAgent` subclasses tau2-bench's ``LLMAgent`` and changes nothing of its
reasoning: the same system prompt template, the same messages, the same ``generate`` call. The
reader of the trial's :class:`~noisefloor.protocols.TrialSession` acts at exactly two points:

* **trial start** -- the system prompt is ``session.system_prompt(base)`` (``pull`` prepends its
  peer-warnings summary; every other reader leaves it byte for byte), and the reader's tools
  (``pull``: ``trace_query``) are offered beside the domain's tools. The agent answers those calls
  itself; they never reach the environment, the trajectory tau2 evaluates, or the step budget.
* **the tool-result boundary** -- every tool message the environment returns passes through
  ``session.after_tool_call(name, arguments, content)`` before the model sees it (``intercept``,
  ``selective_intercept``, ``predicate_intercept`` may prepend a ``[PEER-WARNING]`` block). The
  simulation's own trajectory keeps the environment's response unchanged.

tau2's ``run_task`` builds agents from a registry name with fixed arguments, so the session is
handed over per thread: :func:`bind` binds an :class:`AgentBinding` to the calling thread for the
duration of one ``run_task`` call. The agent also hashes its first request (the E1 audit:
``request_sha256`` of model, messages, tools and sampling arguments, the endpoint address and key
left out). Its model calls, like the user simulator's, go through noisefloor's endpoint layer
(:mod:`noisefloor.protocols.tau2.llm`), which counts tokens and costs per role.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
Barres et al. (2025), "tau^2-Bench: Evaluating Conversational Agents in a Dual-Control
Environment", arXiv:2506.07982.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch at import

from tau2.agent.llm_agent import LLMAgent, LLMAgentState
from tau2.data_model.message import (
    AssistantMessage,
    MultiToolMessage,
    ToolMessage,
)
from tau2.utils import llm_utils

from noisefloor.endpoints import ModelEndpoint
from noisefloor.protocols.blocking import BlockingEndpoints
from noisefloor.protocols.payload import request_sha256
from noisefloor.protocols.reader_interface import ToolSpec
from noisefloor.protocols.session import TrialSession
from noisefloor.protocols.tau2.llm import TRANSPORT_ARGS, OfferedTool, generate, offered_tools
from noisefloor.protocols.tau2.state import LiveFacts, facts_before_calls, toolkit_of
from noisefloor.protocols.tau2.usage import RoleUsage

__all__ = ["AGENT_NAME", "AgentBinding", "CoordinatedLLMAgent", "bind", "current_binding",
           "first_request_payload"]

#: Name of the agent in tau2's registry.
AGENT_NAME = "noisefloor_llm_agent"
#: Most consecutive model turns answered by reader tools before the agent must act.
MAX_READER_ROUNDS = 5

_local = threading.local()


@dataclass
class AgentBinding:
    """What one simulation's agent and user simulator need from the runner, and what they report.

    Attributes
    ----------
    session : TrialSession
        The trial under its protocol.
    endpoints : BlockingEndpoints
        The run's endpoint pools: every model call of the simulation goes through them.
    agent_endpoint, user_endpoint : ModelEndpoint
        The two roles' models (members of ``endpoints``).
    first_request_sha256 : str or None
        Set by the agent at its first model call.
    agent, user : RoleUsage
        Calls, tokens, retries and cost (price table) of each role; the agent's include
        reader-tool rounds.
    live_facts : LiveFacts or None
        The reader's fact resolver (``predicate_intercept``): the agent reads each tool call's
        facts from the simulation's database before tau2 executes the call, and hands them
        over at the tool-result boundary.
    facts_steps : list of int or None
        Per task tool call passed to the reader, in order: the step its facts were read at
        (the number of the trial's calls executed before), ``None`` without ``live_facts``.
    """

    session: TrialSession
    endpoints: BlockingEndpoints
    agent_endpoint: ModelEndpoint
    user_endpoint: ModelEndpoint
    first_request_sha256: str | None = None
    agent: RoleUsage = field(default_factory=RoleUsage)
    user: RoleUsage = field(default_factory=RoleUsage)
    live_facts: LiveFacts | None = None
    facts_steps: list[int | None] = field(default_factory=list)


def current_binding(who: str) -> AgentBinding:
    """The binding of this thread (see :func:`bind`).

    Raises
    ------
    RuntimeError
        If none is bound: ``who`` runs only inside the protocols runner.
    """
    binding = getattr(_local, "binding", None)
    if binding is None:
        raise RuntimeError(f"{who} runs only inside noisefloor.protocols.tau2.bind(...) "
                           "(use noisefloor.protocols.tau2.run_protocols)")
    return binding


@contextmanager
def bind(binding: AgentBinding) -> Iterator[AgentBinding]:
    """Bind ``binding`` to this thread while one tau2 ``run_task`` builds and runs its agent."""
    previous = getattr(_local, "binding", None)
    _local.binding = binding
    try:
        yield binding
    finally:
        _local.binding = previous


def first_request_payload(model: str | None, messages: list[Any], tools: list[Any] | None,
                          llm_args: dict[str, Any]) -> dict[str, Any]:
    """The request tau2's ``generate`` sends, as a JSON object: what ``first_request_sha256``
    hashes (transport arguments such as ``api_base`` left out).

    Examples
    --------
    >>> first_request_payload("m", [], [], {"temperature": 0, "api_base": "http://x"})
    {'model': 'm', 'messages': [], 'tools': None, 'tool_choice': None, 'temperature': 0}
    """
    schemas = [t.openai_schema for t in tools] if tools else None
    payload: dict[str, Any] = {
        "model": model,
        "messages": llm_utils.to_litellm_messages(messages),
        "tools": schemas,
        "tool_choice": "auto" if schemas else None,
    }
    payload.update({k: v for k, v in llm_args.items() if k not in TRANSPORT_ARGS})
    return payload


def _reader_tool(spec: ToolSpec) -> OfferedTool:
    """A reader's tool (``pull``'s ``trace_query``) in the shape tau2's ``generate`` reads."""
    return OfferedTool(spec.name, {"type": "function", "function": {
        "name": spec.name, "description": spec.description, "parameters": spec.parameters}})


class CoordinatedLLMAgent(LLMAgent):
    """tau2-bench's ``LLMAgent`` under a coordination protocol (see the module docstring).

    Built by tau2's ``run_task`` inside :func:`bind`; outside it, construction fails.

    Raises
    ------
    RuntimeError
        If no :class:`AgentBinding` is bound to the thread.
    """

    def __init__(self, tools: list[Any], domain_policy: str, llm: str | None = None,
                 llm_args: dict[str, Any] | None = None) -> None:
        binding = current_binding(AGENT_NAME)
        self.binding: AgentBinding = binding
        self.session: TrialSession = binding.session
        reader_tools = [_reader_tool(spec) for spec in self.session.tools]
        self._toolkit = toolkit_of(tools) if binding.live_facts is not None else None
        self._facts: dict[str, tuple[dict[str, Any], int]] = {}
        self._passed = 0  # task tool calls passed through the reader so far
        super().__init__(tools=list(tools) + reader_tools, domain_policy=domain_policy,
                         llm=llm, llm_args=llm_args)
        self._offered = offered_tools(self.tools)  # the schemas, built once per simulation

    @property
    def system_prompt(self) -> str:
        """tau2's system prompt with the reader's start-time addition (``pull``: prepended)."""
        return self.session.system_prompt(super().system_prompt)

    def _call_model(self, state: LLMAgentState) -> AssistantMessage:
        messages = state.system_messages + state.messages
        b = self.binding
        if b.first_request_sha256 is None:
            b.first_request_sha256 = request_sha256(
                first_request_payload(self.llm, messages, self._offered, self.llm_args))
        return generate(b.endpoints, b.agent_endpoint, b.agent, messages, tools=self._offered,
                        **self.llm_args)

    def _read_facts(self, calls: list[Any]) -> None:
        """Facts of the calls about to go to the orchestrator, read now: tau2 has not yet
        executed them, so each sees the database as its call will meet it."""
        if self._toolkit is None or not calls:
            return
        done = self._passed
        facts = facts_before_calls(self._toolkit, [(tc.name, tc.arguments) for tc in calls])
        for i, (tc, f) in enumerate(zip(calls, facts)):
            self._facts[tc.id] = (f, done + i)

    def _pass_tool_results(self, message: Any, state: LLMAgentState) -> list[ToolMessage]:
        """Tool messages as the model will see them: each through ``after_tool_call``."""
        msgs = list(message.tool_messages) if isinstance(message, MultiToolMessage) else [message]
        calls = {}
        for m in reversed(state.messages):
            if isinstance(m, AssistantMessage) and m.tool_calls:
                calls = {tc.id: tc for tc in m.tool_calls}
                break
        seen = []
        for m in msgs:
            tc = calls.get(m.id) if isinstance(m, ToolMessage) else None
            if tc is None or m.requestor != "assistant":
                seen.append(m)
                continue
            facts, step = self._facts.pop(tc.id, (None, None))
            live = self.binding.live_facts
            if live is not None:
                live.set(facts, step)
            try:
                content = self.session.after_tool_call(tc.name, tc.arguments, m.content or "",
                                                       error=bool(m.error))
                self._passed += 1
                self.binding.facts_steps.append(step)
            finally:
                if live is not None:
                    live.set(None, None)
            seen.append(m if content == (m.content or "") else m.model_copy(update={"content": content}))
        return seen

    def generate_next_message(self, message: Any, state: LLMAgentState) -> tuple[AssistantMessage, LLMAgentState]:
        """tau2's turn, with tool results passed through the reader and reader tools answered.

        Parameters
        ----------
        message : UserMessage, ToolMessage or MultiToolMessage
        state : LLMAgentState

        Returns
        -------
        (AssistantMessage, LLMAgentState)
            The message for the orchestrator (reader-tool calls removed) and the state.
        """
        if isinstance(message, (ToolMessage, MultiToolMessage)):
            state.messages.extend(self._pass_tool_results(message, state))
        else:
            state.messages.append(message)
        for _ in range(MAX_READER_ROUNDS + 1):
            reply = self._call_model(state)
            state.messages.append(reply)
            calls = reply.tool_calls or []
            reader = [tc for tc in calls if self.session.is_coordination_tool(tc.name)]
            if not reader:
                self._read_facts(calls)
                return reply, state
            for tc in reader:
                answer = self.session.call_tool(tc.name, tc.arguments, None)
                state.messages.append(ToolMessage(id=tc.id, role="tool", content=answer,
                                                  requestor="assistant"))
            rest = [tc for tc in calls if not self.session.is_coordination_tool(tc.name)]
            if rest:
                self._read_facts(rest)
                return reply.model_copy(update={"tool_calls": rest}), state
        # the model asked only the reader for MAX_READER_ROUNDS + 1 turns: end its turn in words
        stop = AssistantMessage(role="assistant", content=reply.content or "One moment, please.")
        return stop, state
