"""The coordination protocols inside tau2-bench (optional extra ``tau2``: ``pip install -e ".[tau2]"``).

:mod:`~noisefloor.protocols.tau2.agent` holds :class:`CoordinatedLLMAgent`, tau2's own LLM
agent with the protocol's reader at trial start and at the tool-result boundary, registered in
tau2's registry as ``noisefloor_llm_agent``; :mod:`~noisefloor.protocols.tau2.user`,
:class:`EndpointUserSimulator`, tau2's user simulator registered as
``noisefloor_user_simulator``; :mod:`~noisefloor.protocols.tau2.registration`,
:func:`register`, which puts both in tau2's registry; :mod:`~noisefloor.protocols.tau2.llm`,
:func:`generate`, tau2's model step through ``noisefloor.endpoints`` (retries, ``Retry-After``,
per-URL limits, prices), used by both roles, and :mod:`~noisefloor.protocols.tau2.usage`,
:class:`RoleUsage`, what it counts per role; :mod:`~noisefloor.protocols.tau2.run`,
:func:`run_protocols`, the noise-floor experiment (``noisefloor protocols run``: phases, one
store per arm, journal and resume); :mod:`~noisefloor.protocols.tau2.scripted`,
:class:`ScriptedEndpoint`, an offline OpenAI-compatible server that plays agent and user
simulator. The names below are imported on first use: :func:`run_protocols`,
:class:`ScriptedEndpoint`, :class:`ProtocolRunSettings` and :class:`RoleUsage` load without
tau2-bench, which ``run_protocols`` imports when it runs; the agent, the user simulator,
:func:`generate` and :func:`register` import tau2-bench (and LiteLLM), which takes several
seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.protocols.tau2.agent import AGENT_NAME, AgentBinding, CoordinatedLLMAgent, bind
    from noisefloor.protocols.tau2.llm import generate, offered_tools
    from noisefloor.protocols.tau2.registration import register
    from noisefloor.protocols.tau2.retail_cut import cut_retail_db, retail_db_for
    from noisefloor.protocols.tau2.run import ProtocolRunResult, ProtocolRunSettings, run_protocols
    from noisefloor.protocols.tau2.scripted import ScriptedEndpoint
    from noisefloor.protocols.tau2.state import ReplayFacts, db_facts, facts_before_calls
    from noisefloor.protocols.tau2.usage import RoleUsage
    from noisefloor.protocols.tau2.user import USER_NAME, EndpointUserSimulator

_HOMES: dict[str, str] = {
    "AGENT_NAME": "agent",
    "AgentBinding": "agent",
    "CoordinatedLLMAgent": "agent",
    "EndpointUserSimulator": "user",
    "ProtocolRunResult": "run",
    "ProtocolRunSettings": "run",
    "ReplayFacts": "state",
    "RoleUsage": "usage",
    "ScriptedEndpoint": "scripted",
    "USER_NAME": "user",
    "bind": "agent",
    "cut_retail_db": "retail_cut",
    "db_facts": "state",
    "facts_before_calls": "state",
    "generate": "llm",
    "offered_tools": "llm",
    "register": "registration",
    "retail_db_for": "retail_cut",
    "run_protocols": "run",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
