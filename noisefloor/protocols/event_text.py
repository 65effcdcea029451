"""How readers put peer events into words: short argument text, event descriptions, attempts.

Shared by the pull summary (:mod:`noisefloor.protocols.pull`) and the ``[PEER-WARNING]`` block
(:mod:`noisefloor.protocols.intercept`), so both describe an event and count failed attempts the
same way.
"""

from __future__ import annotations

import json
from typing import Any

from noisefloor.store.events import FailedPredicate, FailedTrialAction

__all__ = ["attempt_of", "describe_event", "short_text"]


def short_text(value: Any, limit: int) -> str:
    """``value`` as one line of at most ``limit`` characters (JSON for non-strings, ``...`` cut).

    Examples
    --------
    >>> short_text({"b": 1, "a": "x   y"}, 20)
    '{"a": "x y", "b": 1}'
    >>> short_text("a long outcome text", 10)
    'a long ...'
    """
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_event(event: FailedTrialAction | FailedPredicate) -> str:
    """The call an event records: ``tool(arguments)``, or ``tool where <conditions>``.

    Examples
    --------
    >>> from noisefloor.store import Condition, FailedPredicate, FailedTrialAction
    >>> describe_event(FailedTrialAction(task_id="T", tool_name="book", arguments={"f": "UA1"},
    ...                                  reward=0.0, position=1, k=3))
    'book({"f": "UA1"})'
    >>> describe_event(FailedPredicate(task_id="T", tool_name="cancel_order", reward=0.0,
    ...     conditions=[Condition(path="order.status", value="shipped")]))
    'cancel_order where order.status eq shipped'
    """
    if isinstance(event, FailedPredicate):
        clauses = " and ".join(f"{c.path} {c.op} {short_text(c.value, 60)}" for c in event.conditions)
        return f"{event.tool_name} where {clauses or 'any arguments'}"
    return f"{event.tool_name}({short_text(event.arguments, 160)})"


def attempt_of(event: FailedTrialAction | FailedPredicate) -> str | tuple[str | None, int | None, str | None]:
    """The failed attempt an event came from (one trial of one run under one protocol).

    ``attempt_id`` when the writer set one, else ``(run_id, trial, protocol)``.

    Examples
    --------
    >>> from noisefloor.store import FailedTrialAction
    >>> attempt_of(FailedTrialAction(task_id="T", tool_name="f", reward=0.0, position=1, k=3,
    ...                              trial=0, protocol="pull"))
    (None, 0, 'pull')
    """
    return event.attempt_id or (event.run_id, event.trial, event.protocol)
