"""End to end: `noisefloor store serve` spoken to by the official MCP SDK's own stdio client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio

from noisefloor.store import SQLiteEventStore

REPO = Path(__file__).resolve().parents[2]


def _server_command(db):
    # `python -m noisefloor.cli.store` runs the same click group `noisefloor store` attaches
    return [sys.executable, "-m", "noisefloor.cli.store", "serve", "--db", str(db)]


def _params(db):
    from mcp.client.stdio import StdioServerParameters  # not at every worker's collection

    cmd = _server_command(db)
    env = {"PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return StdioServerParameters(command=cmd[0], args=cmd[1:], cwd=str(REPO), env=env)


def _text(result):
    return result.content[0].text


async def _session(db):
    from mcp import Client

    async with Client(_params(db), read_timeout_seconds=60) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"trace.query", "trace.write"}
        write_schema = tools["trace.write"].input_schema
        assert set(write_schema["required"]) == {"task_id", "tool_name", "reward"}
        assert write_schema["properties"]["reward"]["exclusiveMaximum"] == 1.0
        assert tools["trace.query"].input_schema["required"] == ["task_id"]

        # write: two events for task A, one for task B
        r = await client.call_tool("trace.write", {
            "task_id": "A", "tool_name": "cancel_order", "arguments": {"order_id": "#W1", "qty": 1},
            "reward": 0.0, "outcome": "error: shipped", "trial": 0, "protocol": "intercept"})
        assert not r.is_error, _text(r)
        first = r.structured_content
        assert first["event_id"] == 1 and first["key"].startswith("cancel_order:")
        r = await client.call_tool("trace.write", {
            "task_id": "A", "tool_name": "get_order", "arguments": {"order_id": "#W1"},
            "reward": 0.0, "position": 2})
        assert not r.is_error
        r = await client.call_tool("trace.write", {
            "task_id": "B", "tool_name": "cancel_order", "arguments": {"order_id": "#W1", "qty": 1},
            "reward": 0.5})
        assert not r.is_error

        # query: the literal call with other key order and number formatting matches
        r = await client.call_tool("trace.query", {
            "task_id": "A", "tool_name": "cancel_order", "arguments": {"qty": 1.0, "order_id": "#W1"}})
        assert not r.is_error
        got = r.structured_content
        assert got["returned"] == 1 and got["task_events_total"] == 2
        (event,) = got["events"]
        assert event["key"] == first["key"] and event["task_id"] == "A"
        assert event["schema_version"] == "1" and event["event_type"] == "failed_trial_action"
        assert event["outcome"] == "error: shipped" and event["protocol"] == "intercept"
        all_a = (await client.call_tool("trace.query", {"task_id": "A"})).structured_content
        assert [e["tool_name"] for e in all_a["events"]] == ["cancel_order", "get_order"]

        # malformed requests: clear errors naming the field; the server keeps running
        bad = [
            ("trace.write", {"task_id": "A", "tool_name": "f", "reward": "high"}, "reward"),
            ("trace.write", {"task_id": "A", "tool_name": "f", "reward": 1.0}, "reward"),
            ("trace.write", {"task_id": "A", "reward": 0.0}, "tool_name"),
            ("trace.write", {"task_id": "A", "tool_name": "f", "reward": 0, "position": 5}, "position"),
            ("trace.query", {"task_id": ""}, "task_id"),
            ("trace.query", {"task_id": "A", "limit": 0}, "limit"),
            ("trace.query", {"task_id": "A", "arguments": {"x": 1}}, "needs tool_name"),
            ("trace.query", {"task_id": ["A"]}, "task_id"),
        ]
        for name, args, field in bad:
            r = await client.call_tool(name, args)
            assert r.is_error, (name, args)
            assert field in _text(r), _text(r)
        r = await client.call_tool("trace.delete", {"task_id": "A"})
        assert r.is_error and "trace.delete" in _text(r)
        assert (await client.call_tool("trace.query", {"task_id": "A"})).structured_content[
            "task_events_total"] == 2

        # another task's events: nothing, whatever is passed
        for other in ("C", "a", "A ", "A' OR '1'='1", "%", "*", "B' UNION SELECT * FROM events --"):
            r = await client.call_tool("trace.query", {"task_id": other})
            assert not r.is_error and r.structured_content["events"] == [], other
        b = (await client.call_tool("trace.query", {"task_id": "B"})).structured_content
        assert [e["task_id"] for e in b["events"]] == ["B"]
        r = await client.call_tool("trace.query", {"task_id": "C", "tool_name": "cancel_order",
                                                   "arguments": {"order_id": "#W1", "qty": 1}})
        assert r.structured_content["events"] == []


def test_mcp_stdio_end_to_end(tmp_path):
    db = tmp_path / "trace.db"
    anyio.run(_session, db)
    # what the server wrote is in the file, readable by the library
    with SQLiteEventStore(db) as store:
        assert store.count("A") == 2 and store.count("B") == 1 and store.integrity_check() == "ok"


def test_server_survives_a_line_that_is_not_json(tmp_path):
    proc = subprocess.Popen(_server_command(tmp_path / "t.db"), cwd=REPO, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(obj):
        proc.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        proc.stdin.flush()

    try:
        send("this is not JSON-RPC {")
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw-test", "version": "0"}}})
        # a line that is not JSON is answered with a parse error (id null: none can be read,
        # JSON-RPC 2.0 section 5), and the server goes on to the next line
        parse_error = json.loads(proc.stdout.readline())
        assert parse_error["id"] is None and parse_error["error"]["code"] == -32700
        init = json.loads(proc.stdout.readline())
        assert init["id"] == 1 and init["result"]["serverInfo"]["name"] == "noisefloor-trace"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "trace.query", "arguments": {"task_id": "A"}}})
        reply = json.loads(proc.stdout.readline())
        assert reply["id"] == 2 and reply["result"]["structuredContent"]["events"] == []
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
