"""An MCP server for the store (official ``mcp`` SDK, 2.x): tools ``trace.query`` and ``trace.write``.

Run it over stdio with ``noisefloor store serve --db PATH`` (or :func:`serve_stdio`); any MCP
client can then read and write a task's failure events. Every query names one task and returns
only that task's events. A bad request (wrong types, a missing field, an out-of-range value)
comes back as a tool error whose text names the field and what was expected, and so does an
argument the tool does not take (a misspelt filter is an error, never ignored); a store that
cannot be read or written (damaged, read-only) is a tool error naming the file and the cause.
The stdio transport (:mod:`noisefloor.store.mcp.stdio`) answers every request that carries an
id, with a JSON-RPC error when the SDK could not read it; the server keeps serving.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from noisefloor.store.base import MAX_EVENT_ID, EventStore, StoreError
from noisefloor.store.events import FailedTrialAction
from noisefloor.store.keys import canonical_key

__all__ = ["SERVER_NAME", "build_server", "serve_http", "serve_stdio"]

SERVER_NAME = "noisefloor-trace"

_INSTRUCTIONS = (
    "Task-scoped negative-knowledge store. trace.write records a tool call that preceded a "
    "failed attempt at a task; trace.query returns the failures recorded for one task. Events of "
    "other tasks are never returned."
)


def _printable(value: Any) -> Any:
    """Make strings valid UTF-8 for the wire: a lone surrogate becomes its ``\\udcXX`` escape."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable(v) for v in value]
    return value


def _event_dict(stored: Any) -> dict[str, Any]:
    return _printable(stored.to_dict())


def _strict(tool: Any) -> Any:
    """Make a registered tool refuse arguments it does not take (the SDK ignores them)."""
    from pydantic import ConfigDict, model_validator

    base = tool.fn_metadata.arg_model
    known = {field.alias or name for name, field in base.model_fields.items()}

    def refuse_unknown(cls: Any, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - known)
            if unknown:
                raise ValueError(
                    f"unknown argument{'s' if len(unknown) > 1 else ''} "
                    f"{', '.join(map(repr, unknown))}; {tool.name} takes "
                    f"{', '.join(sorted(known))}")
        return data

    strict = type(base.__name__, (base,), {
        "model_config": ConfigDict(**{**base.model_config, "extra": "forbid"}),
        # pydantic makes a before-validator whose first parameter is `cls` a classmethod itself
        "_refuse_unknown": model_validator(mode="before")(refuse_unknown),
        "__module__": base.__module__,
    })
    tool.fn_metadata.arg_model = strict
    tool.parameters["additionalProperties"] = False
    return tool


def build_server(store: EventStore) -> Any:
    """Make the MCP server object (an ``mcp.server.mcpserver.MCPServer``) over ``store``.

    Parameters
    ----------
    store : EventStore
        The store the tools read and write.

    Returns
    -------
    mcp.server.mcpserver.MCPServer
        With tools ``trace.query`` and ``trace.write`` (input schemas from their signatures).
        ``trace.write`` returns ``{"event_id", "task_id", "key"}``; ``trace.query`` returns
        ``{"task_id", "events", "returned", "task_events_total"}`` with each event as
        :meth:`~noisefloor.store.StoredEvent.to_dict`.

    Notes
    -----
    A request the store rejects (bad type, missing ``tool_name`` beside ``arguments``,
    out-of-range value, an argument the tool does not take, arguments nested deeper than
    :data:`~noisefloor.store.keys.MAX_ARGUMENT_DEPTH`) raises the SDK's ``ToolError`` inside
    the tool, which the SDK sends to the client as an error result; so does a
    :class:`~noisefloor.store.StoreError` (a damaged or read-only store file), with the file
    and the cause in the text. The server keeps serving.

    Examples
    --------
    Calling the tools in-process (no transport):

    >>> import anyio
    >>> from noisefloor.store import SQLiteEventStore
    >>> from noisefloor.store.mcp.server import build_server
    >>> server = build_server(SQLiteEventStore(":memory:"))
    >>> [tool.name for tool in anyio.run(server.list_tools)]
    ['trace.query', 'trace.write']
    >>> async def write_then_query():
    ...     await server.call_tool("trace.write", {"task_id": "T1", "tool_name": "cancel_order",
    ...                                            "arguments": {"order_id": "#W1"}, "reward": 0.0})
    ...     return await server.call_tool("trace.query", {"task_id": "T1"})
    >>> found = anyio.run(write_then_query).structured_content
    >>> found["returned"], found["events"][0]["key"], found["events"][0]["writer"]
    (1, 'cancel_order:5de550960fecfded7c587d291983aaae', 'mcp')
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools import Tool

    from noisefloor import __version__

    def trace_query(
        task_id: Annotated[str, Field(min_length=1, description="The task whose events to return.")],
        tool_name: Annotated[str | None, Field(description="Only events of this tool.")] = None,
        arguments: Annotated[
            dict[str, Any] | None,
            Field(description="Only events of this exact call (canonical match: key order, "
                              "whitespace and number formatting do not matter); needs tool_name."),
        ] = None,
        event_type: Annotated[
            Literal["failed_trial_action", "failed_predicate"] | None,
            Field(description="Only events of this type."),
        ] = None,
        after_id: Annotated[int, Field(ge=0, le=MAX_EVENT_ID,
                                       description="Only events with a larger id.")] = 0,
        limit: Annotated[int, Field(ge=1, le=1000, description="Most events returned.")] = 100,
    ) -> dict[str, Any]:
        """Return the failure events recorded for one task (oldest first), optionally filtered."""
        try:
            key = None
            if arguments is not None:
                if tool_name is None:
                    raise ValueError("arguments needs tool_name (a call is a tool name plus arguments)")
                key = canonical_key(tool_name, arguments)
            events = store.query(task_id, tool_name=tool_name, key=key, event_type=event_type,
                                 after_id=after_id, limit=limit)
            total = store.count(task_id)
        except (ValueError, TypeError, StoreError) as exc:
            raise ToolError(f"trace.query: {exc}") from None
        return {"task_id": task_id, "events": [_event_dict(e) for e in events],
                "returned": len(events), "task_events_total": total}

    def trace_write(
        task_id: Annotated[str, Field(min_length=1, description="The task the failure belongs to.")],
        tool_name: Annotated[str, Field(min_length=1, description="The tool that was called.")],
        reward: Annotated[float, Field(ge=0.0, lt=1.0, description="Final reward of the failed attempt.")],
        arguments: Annotated[dict[str, Any], Field(description="The call's arguments.")] = {},  # noqa: B006
        outcome: Annotated[str, Field(description="What the tool returned (or the error).")] = "",
        position: Annotated[int, Field(ge=1, description="1 = the final call of the attempt.")] = 1,
        k: Annotated[int, Field(ge=1, description="Number of final calls the writer records.")] = 3,
        trial: Annotated[int | None, Field(ge=0)] = None,
        protocol: str | None = None,
        run_id: str | None = None,
        attempt_id: str | None = None,
        writer: Annotated[str, Field(min_length=1)] = "mcp",
    ) -> dict[str, Any]:
        """Record one tool call that preceded a failed attempt (a failed_trial_action event)."""
        try:
            event = FailedTrialAction(
                task_id=task_id, tool_name=tool_name, arguments=arguments, outcome=outcome,
                reward=reward, position=position, k=k, trial=trial, protocol=protocol,
                run_id=run_id, attempt_id=attempt_id, writer=writer,
            )
            event_id = store.append(event)
        except (ValueError, TypeError, StoreError) as exc:
            raise ToolError(f"trace.write: {exc}") from None
        return {"event_id": event_id, "task_id": task_id, "key": event.key}

    tools = [
        _strict(Tool.from_function(trace_query, name="trace.query",
                                   title="Query a task's failure events", structured_output=True)),
        _strict(Tool.from_function(trace_write, name="trace.write", title="Record a failed call",
                                   structured_output=True)),
    ]
    return MCPServer(SERVER_NAME, instructions=_INSTRUCTIONS, version=__version__,
                     log_level="WARNING", tools=tools)


def serve_stdio(db: str) -> None:
    """Open the SQLite store at ``db`` and serve it over stdio until the client disconnects.

    What ``noisefloor store serve --db PATH`` runs. Blocks; the store is closed on return.

    Parameters
    ----------
    db : str
        Path of the SQLite store file (created if missing).

    Returns
    -------
    None

    Raises
    ------
    ValueError, StoreError
        As :class:`~noisefloor.store.SQLiteEventStore` for a file that is not a store.

    Examples
    --------
    Serving needs a client on the other end of stdin/stdout, so this example only shows that a
    path which is not a store fails before serving starts:

    >>> import os, tempfile
    >>> from noisefloor.store.mcp.server import serve_stdio
    >>> bad = os.path.join(tempfile.mkdtemp(), "notes.db")
    >>> with open(bad, "w") as fh:
    ...     _ = fh.write("not a database")
    >>> serve_stdio(bad)
    Traceback (most recent call last):
    ...
    noisefloor.store.base.StoreError: ...notes.db: cannot open it as a noisefloor store (expected an SQLite database written by noisefloor; SQLite says: file is not a database)
    """
    import anyio

    from noisefloor.store.sqlite import SQLiteEventStore

    store = SQLiteEventStore(db)
    try:
        server = build_server(store)
        anyio.run(_run_screened, server)
    finally:
        store.close()


def serve_http(db: str, *, host: str = "127.0.0.1", port: int = 0, path: str = "/mcp",
               on_ready: Any = None) -> None:
    """Serve the SQLite store at ``db`` over MCP Streamable HTTP until interrupted.

    What ``noisefloor store serve --db PATH --transport http`` runs: the same server as
    :func:`serve_stdio` (tools ``trace.query`` and ``trace.write``), mounted at ``path`` by the
    ``mcp`` SDK's Streamable HTTP transport and served by uvicorn. The protocol version is the
    one the SDK negotiates with the client (``mcp.types.LATEST_PROTOCOL_VERSION``; 2026-07-28
    with ``mcp`` 2.3).

    Parameters
    ----------
    db : str
        Path of the SQLite store file (created if missing).
    host : str, default "127.0.0.1"
        Address to bind; the SDK's DNS-rebinding protection accepts only local Host headers
        when it is a loopback address.
    port : int, default 0
        Port to bind; 0 takes a free port from the OS.
    path : str, default "/mcp"
        URL path of the MCP endpoint.
    on_ready : callable, optional
        Called with the endpoint's URL (``http://host:port/mcp``) once the socket listens.

    Raises
    ------
    ValueError, StoreError
        As :class:`~noisefloor.store.SQLiteEventStore` for a file that is not a store.
    OSError
        If the address cannot be bound.
    """
    import socket

    import uvicorn

    from noisefloor.store.sqlite import SQLiteEventStore

    store = SQLiteEventStore(db)
    try:
        server = build_server(store)
        app = server.streamable_http_app(streamable_http_path=path, host=host)
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # listening before the URL is announced: a client that connects at once is queued by
        # the kernel until uvicorn accepts, instead of refused while uvicorn starts up
        sock.listen(2048)
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        if on_ready is not None:
            on_ready(f"http://{shown}:{bound}{path}")
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        store.close()


async def _run_screened(server: Any) -> None:
    """Serve over stdio through :func:`~noisefloor.store.mcp.stdio.screened_stdio`."""
    from noisefloor.store.mcp.stdio import screened_stdio

    lowlevel = server._lowlevel_server  # the SDK's own run_stdio_async does the same
    async with screened_stdio() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
