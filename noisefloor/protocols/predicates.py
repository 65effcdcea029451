"""Typed predicates over a tool call and the state it touches (predicate keying).

A call is described by its *facts*: ``{"args": <the call's arguments>, **resolver(tool, args)}``,
where an optional fact resolver adds world state (``{"order": {"status": "shipped"}}``). A
:class:`~noisefloor.store.Condition` names a dotted path into the facts (``order.status``,
``args.reason``) and compares it with a value; a predicate holds when all its conditions do.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from noisefloor.store.events import Condition

__all__ = ["MISSING", "FactResolver", "call_facts", "evaluate", "lookup"]

#: ``resolver(tool_name, arguments) -> mapping`` of extra facts about a call (may be empty).
FactResolver = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: Returned by :func:`lookup` for a path that does not exist.
MISSING = _Missing()


def call_facts(tool_name: str, arguments: Mapping[str, Any], resolver: FactResolver | None) -> dict[str, Any]:
    """Facts of one call: its arguments under ``args`` plus whatever ``resolver`` returns.

    Parameters
    ----------
    tool_name : str
        The tool called (passed to the resolver).
    arguments : mapping
        The call's arguments; copied under ``"args"``.
    resolver : callable or None
        ``resolver(tool_name, arguments) -> mapping`` of world state; ``None`` adds nothing.

    Returns
    -------
    dict
        ``{"args": dict(arguments), **resolver(tool_name, arguments)}``.

    Raises
    ------
    TypeError
        If the resolver returns something that is not a mapping, or tries to replace ``args``.

    Examples
    --------
    >>> from noisefloor.protocols import call_facts
    >>> status = {"#W1": "shipped"}
    >>> call_facts("cancel_order", {"order_id": "#W1"},
    ...            lambda tool, args: {"order": {"status": status[args["order_id"]]}})
    {'args': {'order_id': '#W1'}, 'order': {'status': 'shipped'}}
    >>> call_facts("f", {"x": 1}, None)
    {'args': {'x': 1}}
    >>> call_facts("f", {"x": 1}, lambda tool, args: {"args": {}})
    Traceback (most recent call last):
    ...
    TypeError: fact resolver must not return an 'args' entry (reserved for the call)
    """
    facts: dict[str, Any] = {"args": dict(arguments)}
    if resolver is not None:
        extra = resolver(tool_name, arguments)
        if not isinstance(extra, Mapping):
            raise TypeError(f"fact resolver must return a mapping, got {type(extra).__name__}")
        if "args" in extra:
            raise TypeError("fact resolver must not return an 'args' entry (reserved for the call)")
        facts.update(extra)
    return facts


def lookup(facts: Mapping[str, Any], path: str) -> Any:
    """Value at dotted ``path`` in nested mappings/lists, or :data:`MISSING`.

    Examples
    --------
    >>> lookup({"order": {"items": [{"id": 7}]}}, "order.items.0.id")
    7
    >>> lookup({"order": {}}, "order.status")
    MISSING
    """
    node: Any = facts
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, Sequence) and not isinstance(node, (str, bytes)) and part.isdigit():
            index = int(part)
            if index >= len(node):
                return MISSING
            node = node[index]
        else:
            return MISSING
    return node


def _holds(condition: Condition, facts: Mapping[str, Any]) -> bool:
    value = lookup(facts, condition.path)
    op = condition.op
    if op == "exists":
        return (value is not MISSING) == (condition.value is None or bool(condition.value))
    if value is MISSING:
        return False
    target = condition.value
    if op == "eq":
        return _same(value, target)
    if op == "ne":
        return not _same(value, target)
    if op == "in":
        return any(_same(value, t) for t in target)
    if op == "not_in":
        return not any(_same(value, t) for t in target)
    comparable = (
        isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(target, (int, float))
    ) or (isinstance(value, str) and isinstance(target, str))
    if not comparable:
        return False
    return {"lt": value < target, "le": value <= target, "gt": value > target, "ge": value >= target}[op]


def _same(a: Any, b: Any) -> bool:
    # booleans never equal numbers (True is not 1), numbers compare by value (1 == 1.0)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


def evaluate(conditions: Sequence[Condition], facts: Mapping[str, Any]) -> bool:
    """True when every condition holds on ``facts`` (an empty predicate always holds).

    Examples
    --------
    >>> from noisefloor.store import Condition
    >>> shipped = [Condition(path="order.status", value="shipped")]
    >>> evaluate(shipped, {"args": {"order_id": "#W456"}, "order": {"status": "shipped"}})
    True
    >>> evaluate(shipped, {"args": {"order_id": "#W789"}, "order": {"status": "pending"}})
    False
    """
    return all(_holds(c, facts) for c in conditions)
