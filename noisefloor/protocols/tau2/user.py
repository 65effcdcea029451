"""tau2-bench's user simulator with its model calls through noisefloor's endpoint layer.

:class:`EndpointUserSimulator` is tau2-bench's ``UserSimulator`` (same system prompt, same role
flip of the conversation, same stop tokens, same tools) whose one model call goes through
:func:`noisefloor.protocols.tau2.llm.generate` instead of litellm, so the user simulator gets the
same endpoint settings as the agent (per-URL limits, ``Retry-After``, retries, prices). It is
registered in tau2's registry as ``noisefloor_user_simulator`` and, like the agent, runs only
inside :func:`noisefloor.protocols.tau2.bind`.

References
----------
Barres et al. (2025), "tau^2-Bench: Evaluating Conversational Agents in a Dual-Control
Environment", arXiv:2506.07982.
"""

from __future__ import annotations

from typing import Any

from tau2.data_model.message import MultiToolMessage, ToolCall, UserMessage
from tau2.user.user_simulator import UserSimulator

from noisefloor.protocols.tau2.agent import AgentBinding, current_binding
from noisefloor.protocols.tau2.llm import generate, offered_tools

__all__ = ["USER_NAME", "EndpointUserSimulator"]

#: Name of the user simulator in tau2's registry.
USER_NAME = "noisefloor_user_simulator"


class EndpointUserSimulator(UserSimulator):
    """tau2-bench's ``UserSimulator`` calling its model through the endpoint layer.

    Raises
    ------
    RuntimeError
        If built outside :func:`noisefloor.protocols.tau2.bind`.
    """

    def __init__(self, tools: Any = None, instructions: Any = None, llm: str | None = None,
                 llm_args: dict[str, Any] | None = None) -> None:
        self.binding: AgentBinding = current_binding(USER_NAME)
        super().__init__(tools=tools, instructions=instructions, llm=llm, llm_args=llm_args)
        self._offered = offered_tools(self.tools)  # the schemas, built once per simulation

    def _generate_next_message(self, message: Any, state: Any) -> tuple[UserMessage, Any]:
        """tau2's user turn: the conversation with roles flipped, one model call, the reply as
        the user's message (its tool calls requested by the user)."""
        if isinstance(message, MultiToolMessage):
            state.messages.extend(message.tool_messages)
        else:
            state.messages.append(message)
        messages = state.system_messages + state.flip_roles()
        b = self.binding
        reply = generate(b.endpoints, b.user_endpoint, b.user, messages, tools=self._offered,
                         **self.llm_args)
        user_message = UserMessage(role="user", content=reply.content, cost=reply.cost,
                                   usage=reply.usage, raw_data=reply.raw_data)
        if reply.tool_calls is not None:
            user_message.tool_calls = [
                ToolCall(id=tc.id, name=tc.name, arguments=tc.arguments, requestor="user")
                for tc in reply.tool_calls]
        state.messages.append(user_message)
        return user_message, state
