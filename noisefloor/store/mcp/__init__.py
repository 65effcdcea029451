"""The store's MCP server: tools ``trace.query`` and ``trace.write`` over one event store.

:mod:`~noisefloor.store.mcp.server` builds the server on the official ``mcp`` SDK (the optional
extra ``mcp``) and serves it over stdio or streamable HTTP (``noisefloor store serve``);
:mod:`~noisefloor.store.mcp.stdio` is its stdio transport, which screens each line so that every
request carrying an id is answered, with a JSON-RPC error when the SDK could not read it. The
names below are imported on first use, so importing this package loads neither the SDK nor the
server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.store.mcp.server import SERVER_NAME, build_server, serve_http, serve_stdio
    from noisefloor.store.mcp.stdio import (
        INVALID_PARAMS,
        INVALID_REQUEST,
        MAX_MESSAGE_DEPTH,
        PARSE_ERROR,
        Screened,
        screen_line,
        screened_stdio,
    )

#: Public name -> the module (relative to this package) that defines it.
_HOMES: dict[str, str] = {
    "INVALID_PARAMS": "stdio",
    "INVALID_REQUEST": "stdio",
    "MAX_MESSAGE_DEPTH": "stdio",
    "PARSE_ERROR": "stdio",
    "SERVER_NAME": "server",
    "Screened": "stdio",
    "build_server": "server",
    "screen_line": "stdio",
    "screened_stdio": "stdio",
    "serve_http": "server",
    "serve_stdio": "server",
}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
