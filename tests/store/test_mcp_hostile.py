"""Issue 13: the MCP server answers every request that carries an id, over the real stdio pipe.

Each test starts ``noisefloor store serve`` as a subprocess and reads its replies with a
bounded timeout, so a request the server fails to answer fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import selectors
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from noisefloor.store import FailedTrialAction, SQLiteEventStore, StoreError
from noisefloor.store.mcp.stdio import MAX_MESSAGE_DEPTH, screen_line

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 20.0  # seconds to wait for one reply line (the server answers in milliseconds)
#: seconds to wait for the first reply, which waits for the server's start (its imports take
#: seconds, more on a loaded machine)
STARTUP_TIMEOUT = 120.0

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "hostile-test", "version": "0"}}}


class Server:
    def __init__(self, db):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "noisefloor.cli.store", "serve", "--db", str(db)], cwd=REPO,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.buf = b""

    def send(self, obj):
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                raise AssertionError("the server did not answer within the timeout")
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError("the server closed stdout: " + self.proc.stderr.read().decode())
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, obj, timeout=TIMEOUT):
        self.send(obj)
        return self.reply(timeout)

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        finally:
            self.proc.stdout.close()
            self.proc.stderr.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("mcp") / "t.db")
    init = s.call(INIT, STARTUP_TIMEOUT)
    assert init["id"] == 0 and "result" in init
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    yield s
    s.close()


def _nested(depth):
    value = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def _deep_text(depth, id_=9):
    # built as text: json.dumps itself cannot write 3,000 levels
    inner = '{"a":' * depth + "1" + "}" * depth
    return (f'{{"jsonrpc": "2.0", "id": {id_}, "method": "tools/call", "params": {{"name": '
            f'"trace.query", "arguments": {{"task_id": "A", "arguments": {inner}}}}}}}').encode()


@pytest.mark.parametrize("request_,id_,code,text", [
    ({"id": 1, "method": "tools/list"}, 1, -32600, 'jsonrpc field must be "2.0" (it is missing)'),
    ({"jsonrpc": "1.0", "id": 2, "method": "tools/list"}, 2, -32600, "got '1.0'"),
    ({"jsonrpc": 2.0, "id": "x", "method": "tools/list"}, "x", -32600, "jsonrpc field"),
    ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": ["trace.query", {}]}, 3, -32602,
     "params must be an object"),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}, 1.5, -32600, "string or an integer"),
    ({"jsonrpc": "2.0", "id": None, "method": "tools/list"}, None, -32600, "string or an integer"),
    ({"jsonrpc": "2.0", "id": 4, "method": 7}, 4, -32600, "method must be a string"),
    ({"jsonrpc": "2.0", "id": 5}, 5, -32600, "Invalid Request"),
])
def test_malformed_requests_with_an_id_get_an_error(server, request_, id_, code, text):
    r = server.call(request_)
    assert r["jsonrpc"] == "2.0" and r["id"] == id_ and r["error"]["code"] == code
    assert text in r["error"]["message"]
    # and the server keeps serving
    ok = server.call({"jsonrpc": "2.0", "id": 100, "method": "tools/list"})
    assert ok["id"] == 100 and len(ok["result"]["tools"]) == 2


def test_lone_surrogate_and_deep_nesting_are_invalid_params(server):
    surrogate = (b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": '
                 b'"trace.query", "arguments": {"task_id": "\\ud800"}}}')
    r = server.call(surrogate)
    assert r["id"] == 6 and r["error"]["code"] == -32602
    assert "params.arguments.task_id holds a lone surrogate" in r["error"]["message"]
    for depth in (3000, 250, MAX_MESSAGE_DEPTH):  # past Python's parser, the SDK's, and ours
        r = server.call(_deep_text(depth, id_=depth))
        assert r["id"] == depth and r["error"]["code"] == -32602, r
        assert f"deeper than {MAX_MESSAGE_DEPTH} levels" in r["error"]["message"]
    # within the message bound but past the store's argument bound: a tool error, not silence
    r = server.call({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "trace.write", "arguments": {"task_id": "A", "tool_name": "f", "reward": 0.0,
                                             "arguments": {"x": _nested(101)}}}})
    assert r["id"] == 7 and r["result"]["isError"]
    assert "nest deeper than 100 levels" in r["result"]["content"][0]["text"]


def test_batches_and_unparseable_lines(server):
    r = server.call([{"jsonrpc": "2.0", "id": 10, "method": "tools/list"},
                     {"jsonrpc": "2.0", "method": "notifications/initialized"},
                     {"jsonrpc": "2.0", "id": 11, "method": "ping"}])
    assert [e["id"] for e in r] == [10, 11] and {e["error"]["code"] for e in r} == {-32600}
    assert "batches are not supported" in r[0]["error"]["message"]
    r = server.call([])
    assert r["id"] is None and r["error"]["code"] == -32600
    r = server.call(b'{"jsonrpc": "2.0", "id": 12, "method": "tools/list"')  # cut short
    assert r["id"] is None and r["error"]["code"] == -32700
    r = server.call(b'{"jsonrpc": "2.0", "id": 13, "method": "ping", "params": {"x": "\xff"}}')
    assert r["id"] == 13 and r["error"]["code"] == -32700 and "not valid UTF-8" in r["error"]["message"]
    # a notification that is malformed gets no reply; the next request is answered
    server.send({"method": "notifications/initialized"})
    assert server.call({"jsonrpc": "2.0", "id": 14, "method": "ping"})["id"] == 14


def _tool(server, id_, name, arguments):
    r = server.call({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                     "params": {"name": name, "arguments": arguments}})
    assert r["id"] == id_
    return r["result"]


def test_unknown_tool_arguments_and_huge_after_id_are_errors(server):
    res = _tool(server, 20, "trace.query", {"task_id": "A", "tool": "cancel_order"})
    assert res["isError"] and "unknown argument 'tool'" in res["content"][0]["text"]
    assert "tool_name" in res["content"][0]["text"]  # names what it takes
    res = _tool(server, 21, "trace.write", {"task_id": "A", "tool_name": "f", "reward": 0.0,
                                            "rewrd": 0.5})
    assert res["isError"] and "'rewrd'" in res["content"][0]["text"]
    res = _tool(server, 22, "trace.query", {"task_id": "A", "after_id": 2**64})
    assert res["isError"] and "after_id" in res["content"][0]["text"]
    res = _tool(server, 23, "trace.query", {"task_id": "A", "after_id": 2**63 - 1})
    assert not res["isError"] and res["structuredContent"]["events"] == []
    tools = server.call({"jsonrpc": "2.0", "id": 24, "method": "tools/list"})["result"]["tools"]
    assert all(t["inputSchema"]["additionalProperties"] is False for t in tools)


def _damage(db):
    with SQLiteEventStore(db) as store:
        store.append_many([FailedTrialAction(task_id=f"T{i}", tool_name="f", reward=0.0,
                                             arguments={"pad": "x" * 200}, position=1, k=1)
                           for i in range(400)])
    raw = bytearray(db.read_bytes())
    page = 4096
    raw[3 * page:6 * page] = b"\xa5" * (3 * page)  # overwrite b-tree pages of the events table
    db.write_bytes(bytes(raw))
    for extra in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        extra.unlink(missing_ok=True)


def test_damaged_store_is_a_tool_error_naming_the_file(tmp_path):
    db = tmp_path / "damaged.db"
    _damage(db)
    s = Server(db)
    try:
        s.call(INIT, STARTUP_TIMEOUT)
        s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        texts = []
        for i, task in enumerate(("T1", "T399", "T200")):
            res = _tool(s, 30 + i, "trace.query", {"task_id": task})
            texts.append(res["content"][0]["text"] if res.get("isError") else "")
        res = _tool(s, 40, "trace.write", {"task_id": "T1", "tool_name": "f", "reward": 0.0})
        texts.append(res["content"][0]["text"] if res.get("isError") else "")
    finally:
        s.close()
    damaged = [t for t in texts if t]
    assert damaged, "no request reached the damaged pages"
    for t in damaged:
        assert str(db) in t and "the store file is damaged" in t and "Error executing tool" in t


def _read_only(store):
    # the tests may run as root, which ignores file modes; SQLite's own read-only open gives
    # the same "attempt to write a readonly database" a read-only file or mount gives
    conn = sqlite3.connect(f"file:{store.path}?mode=ro", uri=True, isolation_level=None,
                           check_same_thread=False)
    store._conn.close()
    store._conn = conn


def test_read_only_store_is_a_clear_error_in_library_and_tool(tmp_path):
    from mcp.server.mcpserver.exceptions import ToolError

    from noisefloor.store.mcp.server import build_server

    store = SQLiteEventStore(tmp_path / "ro.db")
    _read_only(store)
    event = FailedTrialAction(task_id="T1", tool_name="f", reward=0.0, position=1, k=1)
    with pytest.raises(StoreError, match=r"ro\.db: cannot append events: the store is read-only") as info:
        store.append(event)
    assert info.value.reason == "read_only" and isinstance(info.value, OSError)
    assert store.count("T1") == 0  # reading still works
    server = build_server(store)

    async def write():
        return await server.call_tool("trace.write", {"task_id": "T1", "tool_name": "f", "reward": 0.0})

    with pytest.raises(ToolError, match=r"trace\.write: .*ro\.db: cannot append events: the store is read-only"):
        anyio.run(write)


@pytest.mark.parametrize("line,forward", [
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}', True),
    (b'{"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "x"}}', True),
    (b'{"jsonrpc": "2.0", "id": 1, "result": {}}', True),  # a reply to a server request
    (b"   ", False),
])
def test_screen_line_forwards_what_the_sdk_reads(line, forward):
    s = screen_line(line)
    assert (s.forward is not None) == forward and s.reply is None
