"""A scripted OpenAI-compatible chat-completions server for trying the runner offline.

:class:`ScriptedServer` speaks real HTTP on 127.0.0.1 (standard library ``http.server``,
one thread per connection, HTTP/1.1 keep-alive) and answers ``POST /v1/chat/completions``
with scripted agents instead of a model. Each model name maps to a *policy*:

``solver``
    Follows the dialogue protocol: in a pair it first sends its private information, and
    once it has both its own and its partner's information it writes ``FINAL ANSWER:`` with
    the correct answer (looked up in an :func:`answer_book`); solo it answers at once. With
    one view and no partner (split_solo) it says it cannot tell.
``wrong``
    Like ``solver`` but commits to a wrong answer (the task's ``corrupt`` of the oracle).
``silent``
    Never writes the termination marker (the dialogue reaches its turn cap).
``verbose``
    Like ``solver`` but writes the answer in words after the marker, between ``«`` and
    ``»``, so the task's parser cannot read it and an extractor model is needed.
``extractor``
    The extractor model: replies with the text between ``«`` and ``»`` of the last user
    message, or ``NONE``.

Faults are injected per request with :meth:`ScriptedServer.inject` (the next requests of a
model) or :meth:`ScriptedServer.fail_always`: ``"429"`` (with a ``Retry-After`` header),
``"500"``, ``"400"``, ``"401"``, ``"hang"`` (sleeps past any client timeout), ``"malformed"``
(a 200 response whose body is not JSON), ``"drop"`` (the connection is closed without a
response) and ``"empty"`` (a 200 response with an empty ``choices`` list).

Usage is reported deterministically: ``prompt_tokens = 1 + (characters of all messages) // 4``
and ``completion_tokens = 1 + len(reply) // 4``.

Run it from a shell with ``python -m harness.runner.scripted --port 8000``.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import sys
import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.base import FINAL_MARKER, OTHER_AGENT_PREFIX

POLICIES = ("solver", "wrong", "silent", "verbose", "extractor")
FAULTS = ("429", "500", "400", "401", "hang", "malformed", "drop", "empty")
#: How a scripted agent introduces its private information to the partner.
SHARE_PREFIX = "My information:"
_PRIVATE = re.compile(r"Your private information:\n(.*?)\n\nWhen both of you agree", re.S)


def answer_book(tasks: Iterable[str], seeds: Iterable[int], difficulty: int = 1
                ) -> dict[str, dict[str, str]]:
    """Map each rendering a scripted agent may read to the instance's answers.

    Parameters
    ----------
    tasks : iterable of str
        Registered task names.
    seeds : iterable of int
        Instance seeds.
    difficulty : {0, 1, 2}, default 1

    Returns
    -------
    dict
        ``{text: {"answer": ..., "wrong": ...}}`` for the full rendering (solo) and both
        views' renderings (pair) of every (task, seed); answers are formatted as the task
        writes them after the termination marker.

    Examples
    --------
    >>> book = answer_book(["csp_sudoku4"], [0], difficulty=0)
    >>> len(book), sorted(set(e["answer"] for e in book.values()))
    (3, ['3412/1243/4321/2134'])
    """
    from harness.registry import get_task

    seeds = list(seeds)
    book: dict[str, dict[str, str]] = {}
    for name in tasks:
        task = get_task(name)
        for seed in seeds:
            inst = task.generate(seed, difficulty)
            oracle = task.oracle(inst)
            entry = {"answer": task.format_answer(oracle),
                     "wrong": task.format_answer(task.corrupt(inst, oracle))}
            book[task.render(inst)] = entry
            for view in task.split(inst):
                book[task.render_view(view)] = entry
    return book


def _tokens(text: str) -> int:
    return 1 + len(text) // 4


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # headers and body go out as separate writes: without TCP_NODELAY, Nagle's algorithm
        # and delayed ACKs add about 40 ms to every response
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model"} for m in sorted(self.server.owner.policies)]
            self._send(200, json.dumps({"object": "list", "data": data}).encode())
        else:
            self._send(404, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        owner = self.server.owner
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        try:
            body = json.loads(raw)
            model = body["model"]
            messages = body["messages"]
        except (ValueError, KeyError, TypeError):
            self._send(400, b'{"error": {"message": "bad request body"}}')
            return
        fault = owner._next_fault(model)
        owner._log(model, fault, body)
        with owner._lock:
            owner._in_flight += 1
            owner.max_in_flight = max(owner.max_in_flight, owner._in_flight)
        try:
            self._answer(owner, model, messages, fault)
        finally:
            with owner._lock:
                owner._in_flight -= 1

    def _answer(self, owner: ScriptedServer, model: str, messages: list[dict[str, Any]],
                fault: str | None) -> None:
        if owner.latency_s:
            time.sleep(owner.latency_s)
        if fault == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if fault == "hang":
            time.sleep(owner.hang_s)
        if fault == "429":
            self._send(429, b'{"error": {"message": "rate limited", "type": "rate_limit"}}',
                       {"Retry-After": f"{owner.retry_after_s:g}"})
            return
        if fault in ("500", "400", "401"):
            self._send(int(fault), json.dumps({"error": {"message": f"scripted {fault}"}}).encode())
            return
        if fault == "malformed":
            self._send(200, b'{"id": "x", "choices": [{"index": 0, "mess')
            return
        if model not in owner.policies and owner.default_policy is None:
            self._send(404, json.dumps({"error": {"message": f"model {model!r} not found"}}).encode())
            return
        text = owner.reply(model, messages)
        prompt_chars = sum(len(str(m.get("content") or "")) for m in messages)
        payload = {
            "id": f"chatcmpl-{owner.requests}", "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [] if fault == "empty" else [{
                "index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1 + prompt_chars // 4,
                      "completion_tokens": _tokens(text),
                      "total_tokens": 1 + prompt_chars // 4 + _tokens(text)},
        }
        self._send(200, json.dumps(payload).encode())


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256
    owner: ScriptedServer


class ScriptedServer:
    """An OpenAI-compatible chat-completions server with scripted agents, on 127.0.0.1.

    Parameters
    ----------
    policies : mapping of str to str, optional
        Model name -> policy (one of ``solver``, ``wrong``, ``silent``, ``verbose``,
        ``extractor``). Default: ``{"solver": "solver", "wrong": "wrong", "silent": "silent",
        "verbose": "verbose", "extractor": "extractor"}``.
    book : dict, optional
        :func:`answer_book` output the ``solver``/``wrong``/``verbose`` agents look answers up
        in; a rendering not in the book is answered ``FINAL ANSWER: unknown``.
    default_policy : str or None, default None
        Policy of a model not in ``policies``; None answers such a model with HTTP 404.
    latency_s : float, default 0.0
        Seconds every request sleeps before it is answered.
    retry_after_s : float, default 0.05
        Value of the ``Retry-After`` header of an injected 429.
    hang_s : float, default 30.0
        Seconds a ``"hang"`` fault sleeps.
    port : int, default 0
        TCP port; 0 picks a free one.

    Attributes
    ----------
    base_url : str
        ``http://127.0.0.1:PORT/v1`` once started.
    requests : int
        Requests received so far.
    faults_served : collections.Counter
        Injected faults served so far, by kind.
    max_in_flight : int
        Most requests being answered at the same time so far.

    Examples
    --------
    >>> import openai
    >>> with ScriptedServer(policies={"m": "silent"}) as server:
    ...     client = openai.OpenAI(base_url=server.base_url, api_key="none")
    ...     reply = client.chat.completions.create(
    ...         model="m", messages=[{"role": "user", "content": "hello"}])
    >>> reply.choices[0].message.content, reply.usage.prompt_tokens
    ('I need to think about this some more.', 2)
    """

    def __init__(self, policies: Mapping[str, str] | None = None, *,
                 book: Mapping[str, Mapping[str, str]] | None = None,
                 default_policy: str | None = None, latency_s: float = 0.0,
                 retry_after_s: float = 0.05, hang_s: float = 30.0, port: int = 0) -> None:
        self.policies = dict(policies if policies is not None else {p: p for p in POLICIES})
        for model, policy in self.policies.items():
            if policy not in POLICIES:
                raise ValueError(f"policy of model {model!r} must be one of {POLICIES}, "
                                 f"got {policy!r}")
        if default_policy is not None and default_policy not in POLICIES:
            raise ValueError(f"default_policy must be one of {POLICIES} or None, "
                             f"got {default_policy!r}")
        self.book = dict(book or {})
        self.default_policy = default_policy
        self.latency_s = float(latency_s)
        self.retry_after_s = float(retry_after_s)
        self.hang_s = float(hang_s)
        self.port = int(port)
        self.requests = 0
        self.max_in_flight = 0
        self._in_flight = 0
        self.faults_served: Counter[str] = Counter()
        self.request_log: list[dict[str, Any]] = []
        self._queued: dict[str | None, deque[str]] = defaultdict(deque)
        self._always: dict[str, str] = {}
        self._lock = threading.Lock()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ----- lifecycle -----------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not started; call start() first")
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedServer:
        """Bind 127.0.0.1 and serve in a daemon thread; returns ``self``."""
        if self._httpd is not None:
            return self
        self._httpd = _HTTPServer(("127.0.0.1", self.port), _Handler)
        self._httpd.owner = self
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True,
                                        name=f"scripted-server-{self.port}")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (hanging requests are abandoned)."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ----- faults --------------------------------------------------------------------
    def inject(self, *faults: str, model: str | None = None) -> None:
        """Queue faults for the next requests (of ``model``, or of any model when None)."""
        for fault in faults:
            if fault not in FAULTS:
                raise ValueError(f"fault must be one of {FAULTS}, got {fault!r}")
        with self._lock:
            self._queued[model].extend(faults)

    def fail_always(self, model: str, fault: str | None) -> None:
        """Serve ``fault`` on every request of ``model`` (None clears it)."""
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"fault must be one of {FAULTS}, got {fault!r}")
        with self._lock:
            if fault is None:
                self._always.pop(model, None)
            else:
                self._always[model] = fault

    def _next_fault(self, model: str) -> str | None:
        with self._lock:
            self.requests += 1
            fault = self._always.get(model)
            if fault is None:
                for queue_key in (model, None):
                    if self._queued.get(queue_key):
                        fault = self._queued[queue_key].popleft()
                        break
            if fault is not None:
                self.faults_served[fault] += 1
            return fault

    def _log(self, model: str, fault: str | None, body: dict[str, Any]) -> None:
        with self._lock:
            self.request_log.append({"model": model, "fault": fault,
                                     "temperature": body.get("temperature")})

    # ----- the scripted agents -------------------------------------------------------
    def reply(self, model: str, messages: list[dict[str, Any]]) -> str:
        """The scripted reply of ``model`` to a chat history (no faults, no HTTP)."""
        policy = self.policies.get(model, self.default_policy)
        system = next((str(m.get("content") or "") for m in messages
                       if m.get("role") == "system"), "")
        if policy == "silent":
            return "I need to think about this some more."
        if policy == "extractor":
            last = next((str(m.get("content") or "") for m in reversed(messages)
                         if m.get("role") == "user"), "")
            found = re.search("«(.*?)»", last, re.S)
            return found.group(1) if found else "NONE"
        entry = self._lookup(system)
        answer = "unknown" if entry is None else entry["wrong" if policy == "wrong" else "answer"]
        final = (f"{FINAL_MARKER} we settled on «{answer}» after checking" if policy == "verbose"
                 else f"{FINAL_MARKER} {answer}")
        if OTHER_AGENT_PREFIX not in system:  # solo or split_solo
            if "only part of the information" in system:
                return "With only my part I cannot determine the answer."
            return f"I solved it.\n{final}"
        private = _PRIVATE.search(system)
        shared = any(m.get("role") == "assistant"
                     and str(m.get("content") or "").startswith(SHARE_PREFIX) for m in messages)
        heard = any(m.get("role") == "user" and SHARE_PREFIX in str(m.get("content") or "")
                    for m in messages)
        if not shared:
            return f"{SHARE_PREFIX}\n{private.group(1) if private else system}"
        if heard:
            return f"Combining both parts.\n{final}"
        return "Please send me your information."

    def _lookup(self, system: str) -> Mapping[str, str] | None:
        private = _PRIVATE.search(system)
        if private and private.group(1) in self.book:
            return self.book[private.group(1)]
        parts = system.split("\n\n", 1)
        if len(parts) == 2:
            body = parts[1].rsplit("\n\nWhen you are sure", 1)[0]
            if body in self.book:
                return self.book[body]
        return next((v for k, v in self.book.items() if k in system), None)


def main(argv: list[str] | None = None) -> None:
    """``python -m harness.runner.scripted``: serve until interrupted; prints the base URL."""
    parser = argparse.ArgumentParser(prog="python -m harness.runner.scripted",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per request")
    parser.add_argument("--tasks", default="", help="comma-separated tasks for the answer book")
    parser.add_argument("--seeds", default="0-9", help="instance seeds, e.g. 0-9")
    parser.add_argument("--difficulty", type=int, default=1)
    parser.add_argument("--model", action="append", default=[], metavar="NAME=POLICY",
                        help="model name and policy (repeatable); default one model per policy")
    args = parser.parse_args(argv)
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    tasks = [t for t in args.tasks.split(",") if t]
    if args.tasks == "all":
        from harness.registry import list_tasks
        tasks = [t.name for t in list_tasks()]
    policies = dict(m.split("=", 1) for m in args.model) or None
    server = ScriptedServer(policies, book=answer_book(tasks, seeds, args.difficulty),
                            latency_s=args.latency, port=args.port).start()
    sys.stdout.write(server.base_url + "\n")
    sys.stdout.flush()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
