"""tau2-bench's model step through noisefloor's endpoint layer.

tau2-bench's agent and user simulator call ``tau2.utils.llm_utils.generate``, which sends the
request through litellm. :func:`generate` takes the same arguments and builds the same request
(``to_litellm_messages`` of the same messages, the tools' ``openai_schema``, ``tool_choice``
``"auto"`` when tools are offered, the same sampling arguments such as ``temperature`` and the
``seed`` tau2 sets per simulation), but sends it through
:class:`~noisefloor.protocols.blocking.BlockingEndpoints`: per-URL adaptive concurrency limits,
``Retry-After``, retries with backoff, and the run's price table. The reply comes back as tau2's
``AssistantMessage`` (content, tool calls, ``usage``, ``cost`` from the price table, the raw
choice), so tau2 goes on exactly as after its own ``generate``.

A call whose retries are spent raises :class:`noisefloor.endpoints.EndpointError`; tau2's
orchestrator re-raises it, and the protocols runner records the simulation as an infrastructure
error (never scored).
"""

from __future__ import annotations

import json
from typing import Any

from tau2.data_model.message import AssistantMessage, Message, ToolCall
from tau2.utils import llm_utils

from noisefloor.endpoints import ModelEndpoint
from noisefloor.protocols.blocking import BlockingEndpoints
from noisefloor.protocols.tau2.usage import RoleUsage

__all__ = ["OfferedTool", "TRANSPORT_ARGS", "generate", "offered_tools", "wire_messages"]

#: llm_args that say where or how a request is sent, not what it asks: never sent as request
#: parameters (the endpoint layer owns them) and left out of the first-request hash.
TRANSPORT_ARGS = frozenset({"api_base", "base_url", "api_key", "timeout", "num_retries",
                            "max_retries", "extra_headers", "caching"})


class OfferedTool:
    """A tool as a model call offers it: its name and its chat-completions schema, built once.

    Parameters
    ----------
    name : str
    openai_schema : dict
        ``{"type": "function", "function": {"name", "description", "parameters"}}``, the
        shape of tau2's ``Tool.openai_schema``.
    """

    __slots__ = ("name", "openai_schema")

    def __init__(self, name: str, openai_schema: dict[str, Any]) -> None:
        self.name = name
        self.openai_schema = openai_schema


def offered_tools(tools: list[Any] | None) -> list[OfferedTool] | None:
    """tau2 tools with their schemas read once, for every model call of a simulation.

    tau2's ``Tool.openai_schema`` is a property that builds the JSON schema of the tool's
    parameters with pydantic at each access (about 1.5 ms per tool), and tau2's ``generate``
    reads it for every tool at every call; an agent offers the same tools at every turn.

    Parameters
    ----------
    tools : list of tau2 Tool or OfferedTool, or None
        Anything with ``name`` and ``openai_schema``; an :class:`OfferedTool` is kept as is.

    Returns
    -------
    list of OfferedTool or None
        In the order given; None for None.
    """
    if tools is None:
        return None
    return [t if isinstance(t, OfferedTool) else OfferedTool(t.name, t.openai_schema) for t in tools]


def wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """tau2's messages as chat-completions messages (tau2's own ``to_litellm_messages``, with
    the keys that hold None dropped, as litellm drops them before sending).

    Examples
    --------
    >>> from tau2.data_model.message import SystemMessage, AssistantMessage
    >>> wire_messages([SystemMessage(role="system", content="hi"),
    ...                AssistantMessage(role="assistant", content="ok")])
    [{'role': 'system', 'content': 'hi'}, {'role': 'assistant', 'content': 'ok'}]
    """
    out = []
    for m in llm_utils.to_litellm_messages(messages):
        d = {k: v for k, v in m.items() if v is not None or (k == "content" and m["role"] == "assistant")}
        out.append(d)
    return out


def generate(endpoints: BlockingEndpoints, spec: ModelEndpoint, usage: RoleUsage,
             messages: list[Message], tools: list[Any] | None = None,
             tool_choice: str | None = None, **llm_args: Any) -> AssistantMessage:
    """tau2's ``generate`` through the endpoint layer (see the module docstring).

    Parameters
    ----------
    endpoints : BlockingEndpoints
        The run's pools (holding ``spec``).
    spec : ModelEndpoint
        The role's model.
    usage : RoleUsage
        Counts of the role in this simulation (updated).
    messages : list of tau2 Message
    tools : list of tau2 Tool or OfferedTool, optional
        Read for their ``openai_schema`` (pass :func:`offered_tools` of a simulation's tools
        to build the schemas once).
    tool_choice : str, optional
        ``"auto"`` when tools are given and it is None (as tau2).
    **llm_args
        Sampling arguments (``temperature``, ``seed``, ...), sent as given;
        :data:`TRANSPORT_ARGS` are dropped.

    Returns
    -------
    AssistantMessage
        Content (None for a reply that is only tool calls), tool calls with parsed arguments,
        ``usage`` (``prompt_tokens``, ``completion_tokens``; None when the endpoint sent none),
        ``cost`` (None when unknown) and ``raw_data`` (the choice).

    Raises
    ------
    noisefloor.endpoints.EndpointError
        When the retries are spent (an infrastructure error).
    json.JSONDecodeError
        When a tool call's arguments are not JSON (as tau2's ``generate``).

    Notes
    -----
    A reply with neither content nor tool calls is asked again, at most the endpoint layer's
    ``max_retries`` times, as tau2 does; the last one is returned.
    """
    schemas = [t.openai_schema for t in tools] if tools else None
    params: dict[str, Any] = {k: v for k, v in llm_args.items() if k not in TRANSPORT_ARGS}
    if schemas:
        params["tools"] = schemas
        params["tool_choice"] = tool_choice or "auto"
    elif tool_choice is not None:
        params["tool_choice"] = tool_choice
    wire = wire_messages(messages)
    attempts = max(1, endpoints.max_retries + 1)
    for attempt in range(attempts):
        completion = endpoints.complete(spec, wire, **params)
        usage.add(completion)
        if completion.text.strip() or completion.tool_calls or attempt == attempts - 1:
            break
    calls = [ToolCall(id=c["id"], name=c["name"], arguments=json.loads(c["arguments"]))
             for c in completion.tool_calls or ()]
    content: str | None = completion.text
    if calls and not content:
        content = None
    tokens = (None if completion.tokens_in is None or completion.tokens_out is None else
              {"completion_tokens": completion.tokens_out, "prompt_tokens": completion.tokens_in})
    raw = {"finish_reason": completion.finish_reason, "index": 0,
           "message": {"role": "assistant", "content": content,
                       "tool_calls": [{"id": c["id"], "type": "function",
                                       "function": {"name": c["name"], "arguments": c["arguments"]}}
                                      for c in completion.tool_calls or ()] or None}}
    return AssistantMessage(role="assistant", content=content, tool_calls=calls or None,
                            cost=completion.cost_usd, usage=tokens, raw_data=raw)
