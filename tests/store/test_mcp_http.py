"""The store's MCP server over Streamable HTTP, driven by the official ``mcp`` client."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import anyio

from noisefloor.store import SQLiteEventStore

REPO = Path(__file__).resolve().parents[2]


def _start(db: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "noisefloor", "store", "serve", "--db", str(db),
                             "--transport", "http", "--port", "0"], cwd=REPO, env=env,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.time() + 120
    while time.time() < deadline:
        line = proc.stderr.readline()
        if line.startswith("MCP Streamable HTTP on "):
            return proc, line.split(" on ", 1)[1].strip()
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError("the server did not report its URL")


def test_write_and_query_over_streamable_http(tmp_path):
    import mcp.types  # the MCP SDK: imported by the test, not by every worker's collection
    from mcp import Client

    db = tmp_path / "store.db"
    proc, url = _start(db)
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")

        async def session():
            async with Client(url, read_timeout_seconds=60) as client:
                version = client.protocol_version
                tools = {t.name for t in (await client.list_tools()).tools}
                written = await client.call_tool("trace.write", {
                    "task_id": "A", "tool_name": "cancel_order", "arguments": {"order_id": "#W1"},
                    "reward": 0.0, "outcome": "error: shipped"})
                found = await client.call_tool("trace.query", {"task_id": "A"})
                other = await client.call_tool("trace.query", {"task_id": "B"})
                bad = await client.call_tool("trace.write", {"task_id": "A", "reward": 2.0,
                                                             "tool_name": "f"})
                return version, tools, written, found, other, bad

        version, tools, written, found, other, bad = anyio.run(session)
        assert tools == {"trace.query", "trace.write"}
        assert written.structured_content["task_id"] == "A"
        assert found.structured_content["returned"] == 1
        assert found.structured_content["events"][0]["outcome"] == "error: shipped"
        assert other.structured_content["returned"] == 0  # task-scoped
        assert bad.is_error  # a rejected write is an error result; the server keeps serving
        with SQLiteEventStore(db) as store:
            assert store.count("A") == 1
        # the version the installed SDK (mcp 2.3) negotiates: the paper's 2026-07-28
        assert version == mcp.types.LATEST_PROTOCOL_VERSION == "2026-07-28"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_url_is_announced_only_once_the_socket_listens(tmp_path, monkeypatch):
    # Regression: the URL was announced when the socket was bound but before uvicorn called
    # listen(), so a client connecting at once was refused ("All connection attempts failed",
    # seen once in CI under load). Here uvicorn never starts: a connection made when the URL is
    # announced succeeds only if the socket already listens (the kernel queues it).
    import socket

    import uvicorn

    from noisefloor.store.mcp.server import serve_http

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    connected = []

    def on_ready(url):
        port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            connected.append(port)

    serve_http(str(tmp_path / "store.db"), port=0, on_ready=on_ready)
    assert len(connected) == 1
