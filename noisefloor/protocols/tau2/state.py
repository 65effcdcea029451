"""Facts of a tool call read from the tau2-bench domain database at the moment of the call.

A predicate (``tool=cancel_order`` with ``order.status=shipped``) is about the world state a
call met, so both of its readers must see the database as it was just before that call, with
every earlier call of the same trial applied:

* the **writer** (after a failed trial) -- :class:`ReplayFacts` builds a fresh environment of
  the domain (tau2's environment constructor), sets the task's initial state as tau2's
  orchestrator does (``Environment.set_state`` with the task's initialization data, actions and
  message history), replays the trial's tool calls before the blamed one in order, and reads the
  facts from that database;
* the **reader** (live, at the tool-result boundary) -- the coordinated agent reads the facts
  from the simulation's own environment when it hands its tool calls to the orchestrator, before
  tau2 executes them (:func:`facts_before_calls`; several calls of one message are applied in
  order to a copy of the database, so each sees its predecessors), and :class:`LiveFacts` serves
  them to the reader.

Facts are the rows the arguments name: an argument whose value is a key of a table
(``order_id="#W1"`` in ``orders``) gives that row under the table's singular name
(``order.status``). Both record the step at which they read: the number of the trial's tool
calls applied before the read (``facts_step``).

References
----------
Barres et al. (2025), "tau^2-Bench: Evaluating Conversational Agents in a Dual-Control
Environment", arXiv:2506.07982.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from noisefloor.protocols.trace import ToolCall, TrialTrace

__all__ = ["LiveFacts", "ReplayFacts", "db_facts", "facts_before_calls", "toolkit_of"]


def db_facts(db: Any, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The rows of ``db`` that the call's argument values name, under each table's singular name.

    Parameters
    ----------
    db : pydantic model
        A tau2 domain database (its dict-valued fields are tables keyed by id).
    arguments : mapping

    Returns
    -------
    dict
        ``{"order": {...row as JSON...}, ...}``; empty when no argument names a row.
    """
    facts: dict[str, Any] = {}
    if db is None:
        return facts
    tables = {name.rstrip("s"): table for name, table in vars(db).items() if isinstance(table, dict)}
    for value in arguments.values():
        if not isinstance(value, str):
            continue
        for name, table in tables.items():
            if value in table:
                row = table[value]
                facts[name] = row.model_dump(mode="json") if hasattr(row, "model_dump") else row
    return facts


def toolkit_of(tools: Sequence[Any]) -> Any:
    """The toolkit (holding the live ``db``) behind tau2 ``Tool`` objects, or ``None``.

    tau2's ``run_task`` gives the agent ``environment.get_tools()``: tools built from bound
    methods of the environment's toolkit, so ``tool._func.__self__`` is that toolkit.
    """
    for tool in tools:
        owner = getattr(getattr(tool, "_func", None), "__self__", None)
        if owner is not None and hasattr(owner, "db"):
            return owner
    return None


def facts_before_calls(toolkit: Any, calls: Sequence[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Facts of each call of one assistant message, read before tau2 executes it.

    Parameters
    ----------
    toolkit : tau2 toolkit
        The simulation's live toolkit (see :func:`toolkit_of`), not yet changed by ``calls``.
    calls : sequence of (name, arguments)
        In the order the orchestrator will execute them.

    Returns
    -------
    list of dict
        One facts mapping per call. The first is read from the live database; with several
        calls, each later one is read from a copy of the database to which the earlier calls
        of the message were applied (the live database is never changed).
    """
    if not calls:
        return []
    out = [db_facts(toolkit.db, calls[0][1])]
    if len(calls) == 1:
        return out
    scratch = type(toolkit)(copy.deepcopy(toolkit.db))
    for (name, args), (_, next_args) in zip(calls, calls[1:]):
        _apply(scratch, name, args)
        out.append(db_facts(scratch.db, next_args))
    return out


def _apply(toolkit: Any, name: str, arguments: Mapping[str, Any]) -> None:
    try:
        toolkit.use_tool(name, **dict(arguments))
    except Exception:  # a failing call changes nothing, as in tau2's environment
        pass


class LiveFacts:
    """Fact resolver of the live reader: the facts the agent read for the call being passed.

    The coordinated agent sets them per thread (:meth:`set`) before the tool result goes
    through the reader, and clears them after; outside that window the resolver returns no
    facts (the predicate's state conditions then do not hold).
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def set(self, facts: Mapping[str, Any] | None, step: int | None) -> None:
        """Facts (and the step they were read at) for the next resolver call on this thread."""
        self._local.facts = facts
        self._local.step = step

    @property
    def step(self) -> int | None:
        """The step of the facts set on this thread (``None`` when none)."""
        return getattr(self._local, "step", None)

    def __call__(self, tool: str, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        return dict(getattr(self._local, "facts", None) or {})


class ReplayFacts:
    """Fact resolver of the writer: the database rebuilt and replayed up to a call.

    Parameters
    ----------
    domain : str
        tau2 domain (its environment constructor from tau2's registry).
    tasks : mapping of str to tau2 Task
        By task id (their ``initial_state`` is set as tau2's orchestrator sets it).

    Notes
    -----
    Called as ``resolver(tool, arguments)`` it has no trial (nor task) to replay and reads the
    domain's database as the environment constructor builds it; :meth:`at_call` gives the
    resolver of one call of one trial, which is what the predicate extractor uses.
    """

    def __init__(self, domain: str, tasks: Mapping[str, Any]) -> None:
        self.domain = domain
        self.tasks = dict(tasks)

    def environment(self, task_id: str, calls: Sequence[ToolCall]) -> Any:
        """A fresh environment with the task's initial state and ``calls`` applied in order."""
        from tau2.data_model.message import ToolCall as Tau2Call
        from tau2.registry import registry

        env = registry.get_env_constructor(self.domain)()
        task = self.tasks.get(task_id)
        initial = getattr(task, "initial_state", None)
        if initial is not None:
            history = copy.deepcopy(initial.message_history or [])
            env.set_state(initialization_data=initial.initialization_data,
                          initialization_actions=initial.initialization_actions,
                          message_history=history)
        for i, call in enumerate(calls):
            env.get_response(Tau2Call(id=f"replay_{i}", name=call.name,
                                      arguments=dict(call.arguments), requestor="assistant"))
        return env

    def at_call(self, trace: TrialTrace, position: int) -> Any:
        """The resolver of call ``position`` of ``trace``: facts of the database after calls
        ``0 .. position - 1`` of the trial (the step ``position``)."""
        env = self.environment(trace.task_id, trace.calls[:position])
        db = env.tools.db if env.tools is not None else None
        return lambda tool, arguments: db_facts(db, arguments)

    def __call__(self, tool: str, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        env = self.environment("", ())
        return db_facts(env.tools.db if env.tools is not None else None, arguments)
