"""Registration of noisefloor's tau2 agent and user simulator in tau2's registry.

The agent (:class:`~noisefloor.protocols.tau2.agent.CoordinatedLLMAgent`) wraps tau2's own LLM
agent with a store reader; the user simulator
(:class:`~noisefloor.protocols.tau2.user.EndpointUserSimulator`) is tau2's, with its model step sent
through :mod:`noisefloor.endpoints`. Both must be registered before tau2 can run them by name.
"""

from __future__ import annotations

from tau2.registry import registry

from noisefloor.protocols.tau2.agent import AGENT_NAME, CoordinatedLLMAgent
from noisefloor.protocols.tau2.user import USER_NAME, EndpointUserSimulator


def register() -> str:
    """Register :class:`CoordinatedLLMAgent` and the user simulator
    (:class:`~noisefloor.protocols.tau2.user.EndpointUserSimulator`) in tau2's registry (once);
    returns the agent's name.

    Examples
    --------
    >>> from tau2.registry import registry
    >>> register() in registry.get_agents()
    True
    >>> USER_NAME in registry.get_users()
    True
    """
    if AGENT_NAME not in registry.get_agents():
        registry.register_agent(CoordinatedLLMAgent, AGENT_NAME)
    if USER_NAME not in registry.get_users():
        registry.register_user(EndpointUserSimulator, USER_NAME)
    return AGENT_NAME
