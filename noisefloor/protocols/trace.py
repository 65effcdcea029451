"""What a trial did, as the writer sees it: its tool calls and its reward."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SUCCESS_TOLERANCE", "ToolCall", "TrialTrace", "is_failure"]

#: A trial succeeded when its reward is within this distance of 1 (tau-bench's convention).
SUCCESS_TOLERANCE = 1e-6


def is_failure(reward: float | None) -> bool:
    """True when ``reward`` is a real reward below ``1 - 1e-6``; ``None`` (never ran) is not a failure.

    Raises
    ------
    TypeError
        If ``reward`` is not a number.
    ValueError
        If ``reward`` is NaN, infinite or outside [0, 1].

    Examples
    --------
    >>> is_failure(0.0), is_failure(0.9999999), is_failure(None)
    (True, False, False)
    """
    if reward is None:
        return False
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        raise TypeError(f"reward must be a number in [0, 1] or None, got {reward!r}")
    if math.isnan(reward) or not 0.0 <= reward <= 1.0:
        raise ValueError(f"reward must lie in [0, 1], got {reward}")
    return reward < 1.0 - SUCCESS_TOLERANCE


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a trial.

    Attributes
    ----------
    name : str
        Tool name.
    arguments : dict
        Arguments as the agent sent them.
    response : str
        What the tool returned (the text *before* any peer warning was prepended).
    error : bool
        True when the tool raised or reported an error.

    Examples
    --------
    >>> from noisefloor.protocols import ToolCall
    >>> ToolCall("cancel_order", {"order_id": "#W1"}, "order is shipped", error=True)
    ToolCall(name='cancel_order', arguments={'order_id': '#W1'}, response='order is shipped', error=True)
    """

    name: str
    arguments: dict[str, Any]
    response: str = ""
    error: bool = False


@dataclass(frozen=True)
class TrialTrace:
    """A finished trial, as handed to a writer.

    Attributes
    ----------
    task_id : str
    trial : int
    protocol : str
    calls : tuple of ToolCall
        The task tool calls in order (coordination tools such as ``trace_query`` excluded).
    reward : float or None
        Final reward on [0, 1]; ``None`` if the trial never produced one.
    run_id : str or None
    attempt_id : str or None
        Unique id of this attempt (the session makes one per trial).
    metadata : dict
        Free-form data for custom writers (judges).

    Examples
    --------
    >>> from noisefloor.protocols import LastKWriter, ToolCall, TrialTrace
    >>> trace = TrialTrace(task_id="T1", trial=0, protocol="no_coord",
    ...                    calls=(ToolCall("get_order", {"id": 1}, "shipped"),), reward=0.0)
    >>> [(e.tool_name, e.position) for e in LastKWriter().events_for(trace)]
    [('get_order', 1)]
    """

    task_id: str
    trial: int
    protocol: str
    calls: tuple[ToolCall, ...]
    reward: float | None
    run_id: str | None = None
    attempt_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
