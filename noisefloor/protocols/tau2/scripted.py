"""A scripted OpenAI-compatible endpoint that plays both tau2-bench's agent and its user simulator.

For offline runs of ``noisefloor protocols run`` (tests, benchmarks, a dry run of a pipeline):
the server answers ``POST /v1/chat/completions`` on 127.0.0.1 with a free port, without a
model. The ``model`` field of a request decides the role (``agent_model`` / ``user_model``).

The **agent** reads the task id from the user's first message and replays the task's expected
actions (``evaluation_criteria.actions``) as tool calls, one per turn, then says every
``communicate_info`` string and ``DONE``, so tau2's own evaluator gives reward 1. For a task in
``fail``, it replays every action but the last one, so the database check fails (reward 0) and
the writer stores its final calls, unless it has been warned: a ``[PEER-WARNING]`` block in a
tool result, or a system prompt that starts with the pull summary (then it first calls
``trace_query``); a warned agent replays the whole plan. A task in ``flaky`` stands for run-to-run
noise: each new conversation of it fails (as a ``fail`` task) or succeeds in turn, the choice
carried in its tool-call ids, so two arms sending identical requests can still differ. The **user** opens with
``(ref <task id>)``, answers anything else with a short reply, and ends with ``###STOP###``
once the agent says ``DONE``. Tasks in ``broken`` get HTTP 500 for every agent request (an
infrastructure error). ``latency`` seconds are slept before each answer.

The **refinement model** (``refine_model``) answers the three refinement prompts of
:mod:`noisefloor.protocols.refinements`: the writer's judge blames the final call alone (weight 1;
the fallback would blame the final K), the gate fires (relevant, novel, decision-proximal), and
predicate extraction returns ``order.status eq <status>`` when the facts show an order's status,
else the first scalar argument's value (``args.<name> eq <value>``).

Faults of the transport, per model: ``rate_limited`` answers the first N requests of a model
with HTTP 429 and a ``Retry-After`` header; ``failing`` answers every request of a model with
HTTP 500. Every request is logged (:attr:`ScriptedEndpoint.log`: model, status, arrival and
answer times, requests in flight on arrival), so tests can check waits and concurrency.

Examples
--------
>>> from noisefloor.protocols.tau2.scripted import ScriptedEndpoint
>>> with ScriptedEndpoint(tasks=[]) as server:
...     server.base_url.startswith("http://127.0.0.1:")
True
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ScriptedEndpoint"]

_REF = re.compile(r"\(ref ([^)]+)\)")
WARNED_PROMPT = "Peer warnings for this task"


class ScriptedEndpoint:
    """The scripted server (a context manager; see the module docstring).

    Parameters
    ----------
    tasks : sequence of tau2 ``Task``
        The tasks it can play.
    fail : iterable of str
        Task ids the agent gets wrong until warned.
    broken : iterable of str
        Task ids whose agent requests get HTTP 500.
    flaky : iterable of str
        Task ids whose conversations alternate between failing and succeeding.
    latency : float, default 0.0
        Seconds slept before each answer.
    agent_model, user_model : str
        Model names of the two roles.
    refine_model : str, default "scripted-refine"
        Model name of the refinements' role.
    rate_limited : dict of str to int, optional
        Model -> number of its first requests answered with HTTP 429 and ``Retry-After``.
    retry_after : float, default 1.0
        Seconds sent in ``Retry-After`` (as a decimal number).
    failing : iterable of str
        Models whose every request gets HTTP 500.

    Attributes
    ----------
    base_url : str
        ``http://127.0.0.1:<port>/v1`` once started.
    requests : collections.Counter
        Requests answered per role (``"agent"``, ``"user"``, ``"error"``).
    log : list of dict
        One ``{"model", "status", "arrived", "answered", "in_flight", "prompt_tokens",
        "completion_tokens"}`` per request (``time.monotonic()`` seconds; ``in_flight`` counts
        this request; the token counts of a 200, else None).
    max_in_flight : int
        Most requests in flight at once.
    """

    def __init__(self, tasks: Sequence[Any], *, fail: Iterable[str] = (), broken: Iterable[str] = (),
                 flaky: Iterable[str] = (), latency: float = 0.0, agent_model: str = "scripted-agent",
                 user_model: str = "scripted-user", refine_model: str = "scripted-refine",
                 rate_limited: dict[str, int] | None = None,
                 retry_after: float = 1.0, failing: Iterable[str] = ()) -> None:
        self.tasks = {str(t.id): t for t in tasks}
        self.fail = set(fail)
        self.broken = set(broken)
        self.flaky = set(flaky)
        self._flips = 0
        self.latency = float(latency)
        self.agent_model = agent_model
        self.user_model = user_model
        self.refine_model = refine_model
        self.requests: Counter[str] = Counter()
        self.rate_limited = dict(rate_limited or {})
        self.retry_after = float(retry_after)
        self.failing = set(failing)
        self.log: list[dict[str, Any]] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()
        self.base_url = ""

    # -- server ---------------------------------------------------------------------------------
    def start(self) -> ScriptedEndpoint:
        """Bind 127.0.0.1 on a free port and serve in a daemon thread."""
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # the head and the body go out as two writes: with Nagle's algorithm on, the body
            # waited for the client's delayed ACK of the head (about 40 ms per request on Linux)
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def setup(self) -> None:
                super().setup()
                with outer._lock:
                    outer._connections.add(self.connection)

            def finish(self) -> None:
                with outer._lock:
                    outer._connections.discard(self.connection)
                super().finish()

            def do_POST(self) -> None:  # http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                arrived = time.monotonic()
                model = str(body.get("model", ""))
                with outer._lock:
                    outer._in_flight += 1
                    in_flight = outer._in_flight
                    outer.max_in_flight = max(outer.max_in_flight, in_flight)
                    outer._seen[model] += 1
                    limited = outer._seen[model] <= outer.rate_limited.get(model, 0)
                headers: dict[str, str] = {}
                status, reply = 500, {"error": {"message": "scripted server crashed"}}
                try:
                    if limited:
                        time.sleep(outer.latency)
                        status, reply = 429, {"error": {"message": "rate limited",
                                                        "type": "rate_limit_error"}}
                        headers["Retry-After"] = f"{outer.retry_after:g}"
                    elif model in outer.failing:
                        time.sleep(outer.latency)
                        status, reply = 500, {"error": {"message": "scripted server error",
                                                        "type": "server_error"}}
                    else:
                        status, reply = outer.answer(body)
                finally:
                    with outer._lock:
                        outer._in_flight -= 1
                        usage = reply.get("usage") or {}
                        outer.log.append({"model": model, "status": status, "arrived": arrived,
                                          "answered": time.monotonic(), "in_flight": in_flight,
                                          "prompt_tokens": usage.get("prompt_tokens"),
                                          "completion_tokens": usage.get("completion_tokens")})
                data = json.dumps(reply).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        # stop() waits for the serving loop's next poll: every 50 ms, not the default 0.5 s
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Shut the server down, and the connections clients keep alive (so that no handler
        thread outlives the server waiting for another request on them)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            with self._lock:
                connections = list(self._connections)
            for conn in connections:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # the client closed it first

    def __enter__(self) -> ScriptedEndpoint:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the two roles --------------------------------------------------------------------------
    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """HTTP status and JSON body for one chat-completions request."""
        if self.latency:
            time.sleep(self.latency)
        model = str(body.get("model", ""))
        messages = body.get("messages") or []
        if model.endswith(self.user_model):
            role, message = "user", self._user(messages)
        elif model == self.refine_model:
            prompt = messages[-1].get("content") or "" if messages else ""
            role, message = "refine", {"role": "assistant",
                                       "content": json.dumps(_refine(prompt))}
        elif model.endswith(self.agent_model):
            task_id = _task_of(messages)
            if task_id in self.broken:
                with self._lock:
                    self.requests["error"] += 1
                return 500, {"error": {"message": "scripted server error", "type": "server_error"}}
            role, message = "agent", self._agent(task_id, messages, body.get("tools") or [])
        else:
            return 404, {"error": {"message": f"unknown model {model!r}", "type": "not_found"}}
        with self._lock:
            self.requests[role] += 1
        prompt = len(json.dumps(messages)) // 4
        completion = len(json.dumps(message)) // 4
        return 200, {
            "id": f"chatcmpl-{role}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }

    def _user(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
        task_id = next((tid for tid, t in self.tasks.items()
                        if str(t.user_scenario).strip() in system), None)
        said = [m for m in messages if m.get("role") == "assistant"]
        last = messages[-1].get("content") or "" if messages else ""
        if not said:
            return {"role": "assistant", "content": f"Hello, I need help with my request (ref {task_id})."}
        if "DONE" in last or len(said) > 12:
            return {"role": "assistant", "content": "Thank you, that is all. ###STOP###"}
        return {"role": "assistant", "content": "Yes, please go ahead."}

    def _agent(self, task_id: str | None, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]]) -> dict[str, Any]:
        task = self.tasks.get(task_id or "")
        if task is None:
            return {"role": "assistant", "content": "How can I help you today?"}
        system = messages[0].get("content") or "" if messages else ""
        pulled = system.startswith(WARNED_PROMPT)
        tool_names = {t["function"]["name"] for t in tools}
        made = [tc for m in messages if m.get("role") == "assistant"
                for tc in (m.get("tool_calls") or [])]
        queried = any(tc["function"]["name"] == "trace_query" for tc in made)
        if pulled and "trace_query" in tool_names and not queried:
            return _tool_call("call_q0", "trace_query", {"limit": 5})
        warned = pulled or any(m.get("role") == "tool" and "[PEER-WARNING]" in (m.get("content") or "")
                               for m in messages)
        actions = [a for a in (task.evaluation_criteria.actions or []) if a.requestor == "assistant"]
        done = [tc for tc in made if tc["function"]["name"] != "trace_query"]
        failing = task_id in self.fail
        tag = ""
        if task_id in self.flaky:
            if done:
                tag = done[0]["id"].split("_")[0][-1]
            else:
                with self._lock:
                    self._flips += 1
                    tag = "F" if self._flips % 2 else "S"
            failing = tag == "F"
        plan = actions[:-1] if failing and not warned else actions
        if len(done) < len(plan):
            a = plan[len(done)]
            return _tool_call(f"call{tag}_{len(done)}", a.name, dict(a.arguments))
        info = " ".join(task.evaluation_criteria.communicate_info or [])
        return {"role": "assistant", "content": f"{info} DONE".strip()}


def _refine(prompt: str) -> dict[str, Any]:
    """The scripted refinement model's answer to one of the three prompts."""
    if "Which calls caused the failure?" in prompt:
        indices = [int(m.group(1)) for m in re.finditer(r"^(\d+): ", prompt, re.M)]
        return {"blamed": [{"call_index": max(indices), "weight": 1.0,
                            "rationale": "the final call left the task unfinished"}]} if indices else {"blamed": []}
    if "Answer three questions" in prompt:
        return {"relevant": True, "novel": True, "decision_proximal": True,
                "reason": "the same call preceded a peer's failure"}
    if "predicate over the" in prompt:
        facts_line = re.search(r"^The facts of the call[^:]*: (.*)$", prompt, re.M)
        status = re.search(r'"order": \{.*?"status": "([^"]+)"', facts_line.group(1)) if facts_line else None
        if status:
            return {"conditions": [{"path": "order.status", "op": "eq", "value": status.group(1)}]}
        call = re.search(r"^The call: \w+\((.*)\)$", prompt, re.M)
        try:
            args = json.loads(call.group(1)) if call else {}
        except json.JSONDecodeError:  # cut by the prompt's length limit
            args = {}
        scalars = sorted(k for k, v in args.items() if isinstance(v, (str, int, float, bool)))
        if scalars:
            return {"conditions": [{"path": f"args.{scalars[0]}", "op": "eq", "value": args[scalars[0]]}]}
        return {"conditions": []}
    return {"error": "unknown prompt"}


def _task_of(messages: list[dict[str, Any]]) -> str | None:
    for m in messages:
        if m.get("role") == "user":
            found = _REF.search(m.get("content") or "")
            if found:
                return found.group(1)
    return None


def _tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]}
