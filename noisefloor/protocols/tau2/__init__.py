"""The coordination protocols inside tau2-bench (optional extra ``tau2``: ``pip install -e ".[tau2]"``).

* :mod:`noisefloor.protocols.tau2.agent`: :class:`CoordinatedLLMAgent`, tau2's own LLM agent with
  the protocol's reader at trial start and at the tool-result boundary, registered in tau2's
  registry as ``noisefloor_llm_agent``.
* :mod:`noisefloor.protocols.tau2.user`: :class:`EndpointUserSimulator`, tau2's user simulator
  registered as ``noisefloor_user_simulator``.
* :mod:`noisefloor.protocols.tau2.registration`: :func:`register`, both in tau2's registry.
* :mod:`noisefloor.protocols.tau2.llm`: :func:`generate`, tau2's model step through
  ``noisefloor.endpoints`` (retries, ``Retry-After``, per-URL limits, prices), used by both roles.
* :mod:`noisefloor.protocols.tau2.run`: :func:`run_protocols`, the noise-floor experiment
  (``noisefloor protocols run``): phases, one store per arm, journal and resume.
* :mod:`noisefloor.protocols.tau2.scripted`: :class:`ScriptedEndpoint`, an offline
  OpenAI-compatible server that plays agent and user simulator.

Importing this package imports tau2-bench (and litellm), which takes several seconds.
"""

from noisefloor.protocols.tau2.agent import (
    AGENT_NAME,
    AgentBinding,
    CoordinatedLLMAgent,
    bind,
)
from noisefloor.protocols.tau2.llm import RoleUsage, generate
from noisefloor.protocols.tau2.registration import register
from noisefloor.protocols.tau2.run import ProtocolRunResult, ProtocolRunSettings, run_protocols
from noisefloor.protocols.tau2.scripted import ScriptedEndpoint
from noisefloor.protocols.tau2.user import USER_NAME, EndpointUserSimulator

__all__ = [
    "AGENT_NAME",
    "AgentBinding",
    "CoordinatedLLMAgent",
    "EndpointUserSimulator",
    "ProtocolRunResult",
    "ProtocolRunSettings",
    "RoleUsage",
    "ScriptedEndpoint",
    "USER_NAME",
    "bind",
    "generate",
    "register",
    "run_protocols",
]
