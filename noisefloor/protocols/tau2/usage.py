"""Model calls, tokens, retries and cost of one role (agent or user simulator) in one simulation.

:mod:`noisefloor.protocols.tau2.llm` fills it; it lives apart from that module, which imports
tau2-bench (and LiteLLM), so that the result class loads without either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from noisefloor.results import FrozenResult

if TYPE_CHECKING:
    from noisefloor.endpoints import Completion

__all__ = ["RoleUsage"]


@dataclass
class RoleUsage(FrozenResult):
    """Model calls of one role (agent or user simulator) in one simulation.

    Attributes
    ----------
    calls : int
    prompt_tokens, completion_tokens : int
        Summed ``usage`` of the calls that reported it.
    calls_without_usage : int
        Calls whose reply had no ``usage`` (their tokens, and so the cost, are unknown).
    cost : float or None
        US dollars from the price table; None when a price or a call's usage is unknown.
    retries : int
        Failed attempts before the successes (429s, 5xx, timeouts).
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls_without_usage: int = 0
    cost: float | None = 0.0
    retries: int = 0

    def add(self, completion: Completion) -> None:
        """Count one successful call."""
        self.calls += 1
        self.retries += completion.retries
        if completion.tokens_in is None or completion.tokens_out is None:
            self.calls_without_usage += 1
        self.prompt_tokens += completion.tokens_in or 0
        self.completion_tokens += completion.tokens_out or 0
        if self.cost is not None:
            self.cost = None if completion.cost_usd is None else self.cost + completion.cost_usd
