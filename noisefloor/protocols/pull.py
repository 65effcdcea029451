"""The ``pull`` reader: a peer-warnings summary in the system prompt and a ``trace_query`` tool.

At trial start the agent's system prompt is prefixed with a curated summary of the task's peer failure
events (:func:`peer_warnings_summary`), and the agent gets a ``trace_query`` tool to look up the
task's events itself; it is the agent that decides whether to read.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

import json
from typing import Any

from noisefloor.protocols.event_text import attempt_of, describe_event, short_text
from noisefloor.protocols.reader_interface import Reader, ReaderStart, ToolSpec, TrialState
from noisefloor.store.base import StoredEvent, TaskView
from noisefloor.store.events import FailedTrialAction

__all__ = ["TRACE_QUERY_TOOL", "Pull", "peer_warnings_summary"]

#: Name of the query tool the pull reader gives the agent. LLM function names allow only
#: ``[A-Za-z0-9_-]``, so the in-agent tool is ``trace_query``; the MCP server names it
#: ``trace.query``.
TRACE_QUERY_TOOL = "trace_query"


def peer_warnings_summary(view: TaskView, *, max_items: int = 10, window: int = 1000) -> tuple[str | None, tuple[int, ...]]:
    """Curated peer-warnings summary of a task's events, for the system prompt.

    Events are grouped by coordination key; groups are ranked by the number of distinct failed
    trials that wrote them, then by recency; at most ``max_items`` groups are listed, each with
    its last recorded outcome.

    Parameters
    ----------
    view : TaskView
    max_items : int, default 10
    window : int, default 1000
        Only the task's newest ``window`` events are read.

    Returns
    -------
    (str or None, tuple of int)
        The summary (``None`` when the task has no events) and the ids of the events shown.

    Raises
    ------
    ValueError
        If ``max_items < 1``.

    Examples
    --------
    Two failed attempts ended with the same booking call; one also searched:

    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import peer_warnings_summary
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append_many([
    ...     FailedTrialAction(task_id="T", tool_name=tool, arguments=args, outcome=out,
    ...                       reward=0.0, position=pos, k=3, attempt_id=attempt)
    ...     for tool, args, out, pos, attempt in [
    ...         ("search", {"q": "UA"}, "3 flights", 2, "x"),
    ...         ("book_flight", {"flight": "UA1"}, "no inventory", 1, "x"),
    ...         ("book_flight", {"flight": "UA1"}, "no inventory", 1, "y")]])
    >>> text, ids = peer_warnings_summary(store.task("T"))
    >>> print(text)
    Peer warnings for this task (calls made just before earlier attempts failed; they may or may not have caused the failure):
    - book_flight({"flight": "UA1"}) -- in 2 failed attempts; last outcome: no inventory
    - search({"q": "UA"}) -- in 1 failed attempt; last outcome: 3 flights
    >>> ids
    (1, 2, 3)
    >>> peer_warnings_summary(store.task("other"))
    (None, ())
    """
    if max_items < 1:
        raise ValueError(f"max_items must be >= 1, got {max_items}")
    events = view.find(newest_first=True, limit=window)
    if not events:
        return None, ()
    groups: dict[str, dict[str, Any]] = {}
    for rank, stored in enumerate(events):  # newest first
        e = stored.event
        g = groups.setdefault(e.key, {"event": e, "rank": rank, "trials": set(), "ids": []})
        g["trials"].add(attempt_of(e))
        g["ids"].append(stored.event_id)
    ranked = sorted(groups.values(), key=lambda g: (-len(g["trials"]), g["rank"]))[:max_items]
    lines = [
        (
            "Peer warnings for this task (calls made just before earlier attempts failed; "
            "they may or may not have caused the failure):"
        )
    ]
    shown: list[int] = []
    for g in ranked:
        e = g["event"]
        n = len(g["trials"])
        lines.append(
            f"- {describe_event(e)} -- in {n} failed attempt{'s' if n != 1 else ''}; "
            f"last outcome: {short_text(e.outcome, 160) or '(empty)'}"
        )
        shown.extend(g["ids"])
    return "\n".join(lines), tuple(sorted(shown))


class Pull(Reader):
    """``pull``: peer-warnings summary in the system prompt, plus a ``trace_query`` tool.

    Parameters
    ----------
    max_items : int, default 10
        Groups of events listed in the summary.
    query_limit : int, default 20
        Most events one ``trace_query`` call returns.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import Coordinator, Pull
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
    ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
    >>> s = Coordinator(store, Pull()).start_trial("T", 1)
    >>> print(s.system_prompt("You are a travel agent."))
    Peer warnings for this task (calls made just before earlier attempts failed; they may or may not have caused the failure):
    - book_flight({"flight": "UA1"}) -- in 1 failed attempt; last outcome: no inventory
    <BLANKLINE>
    You are a travel agent.
    >>> [t.name for t in s.tools]
    ['trace_query']
    """

    name = "pull"

    def __init__(self, *, max_items: int = 10, query_limit: int = 20) -> None:
        if max_items < 1 or query_limit < 1:
            raise ValueError("max_items and query_limit must be >= 1")
        self.max_items = max_items
        self.query_limit = query_limit

    def start(self, view: TaskView, state: TrialState) -> ReaderStart:
        """The peer-warnings summary and the ``trace_query`` tool, bound to this trial.

        Parameters
        ----------
        view : TaskView
        state : TrialState
            ``trace_queries`` counts the agent's calls of the tool.

        Returns
        -------
        ReaderStart
            ``prompt_addition`` from :func:`peer_warnings_summary` (``None`` for an empty
            task), the ``trace_query`` tool, ``injections`` = summary items.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="book_flight",
        ...     arguments={"flight": "UA1"}, outcome="no inventory", reward=0.0, position=1, k=3))
        >>> import json
        >>> from noisefloor.protocols import Pull, TrialState
        >>> state = TrialState("T", 1)
        >>> start = Pull(query_limit=5).start(store.task("T"), state)
        >>> start.injections, start.prompt_addition.splitlines()[1]
        (1, '- book_flight({"flight": "UA1"}) -- in 1 failed attempt; last outcome: no inventory')
        >>> reply = json.loads(start.tools[0].func(limit=9))
        >>> reply, state.trace_queries
        ({'error': 'limit must be an integer in [1, 5], got 9'}, 1)
        """
        summary, ids = peer_warnings_summary(view, max_items=self.max_items)
        n_items = 0 if summary is None else summary.count("\n- ")
        return ReaderStart(
            prompt_addition=summary,
            tools=(self._query_tool(view, state),),
            injections=n_items,
            event_ids=ids,
        )

    def _query_tool(self, view: TaskView, state: TrialState) -> ToolSpec:
        limit_cap = self.query_limit

        def trace_query(tool_name: str | None = None, limit: int = limit_cap) -> str:
            state.trace_queries += 1
            if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= limit_cap:
                return json.dumps({"error": f"limit must be an integer in [1, {limit_cap}], got {limit!r}"})
            if tool_name is not None and (not isinstance(tool_name, str) or not tool_name):
                return json.dumps({"error": "tool_name must be a non-empty string or omitted"})
            events = view.find(tool_name=tool_name, newest_first=True, limit=limit)
            return json.dumps(
                {"events": [_compact(s) for s in events], "task_events_total": view.count()},
                ensure_ascii=False,
            )

        return ToolSpec(
            name=TRACE_QUERY_TOOL,
            description=(
                "Look up failures that peer agents recorded on this same task: the tool calls made "
                "just before their attempts failed, newest first. Optionally filter by tool name."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "tool_name": {"type": "string", "description": "Only events of this tool."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": limit_cap,
                              "default": limit_cap},
                },
                "additionalProperties": False,
            },
            func=trace_query,
        )


def _compact(stored: StoredEvent) -> dict[str, Any]:
    """One event as ``trace_query`` returns it: the fields an agent needs, outcome cut."""
    e = stored.event
    out: dict[str, Any] = {
        "event_id": stored.event_id, "event_type": e.event_type, "tool_name": e.tool_name,
        "trial": e.trial, "protocol": e.protocol, "reward": e.reward, "position": e.position,
        "outcome": short_text(e.outcome, 300),
    }
    if isinstance(e, FailedTrialAction):
        out["arguments"] = e.arguments
    else:
        out["conditions"] = [c.model_dump(mode="json") for c in e.conditions]
    return out

