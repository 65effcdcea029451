"""A scripted OpenAI-compatible chat-completions server for trying the runner offline.

:class:`ScriptedServer` speaks real HTTP/1.1 (keep-alive) on 127.0.0.1, from an asyncio event
loop in a background thread, and answers ``POST /v1/chat/completions``
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
``taxed``
    A model that pays a collaboration tax, set by a :class:`TaxPolicy`: solo it answers
    correctly with probability ``competence[model][family]``; in a pair each grounding failure
    L1-L4 occurs with its rate (per family), lowered by the factor ``clause_effect`` when the
    matching clause of the prompt variants (:mod:`harness.runner.variants`) is in its system
    prompt; a failure leaves its trace phrase (:data:`FAILURE_PHRASES`) in the dialogue and
    makes the pair commit to a wrong answer. Draws are a hash of the model, the mode, the
    rendering read and the component, so a run is reproducible. Expected tax of a family:
    ``c * (1 - prod_k (1 - r_k))`` times the score a failure loses (``1 - grade`` of the
    task's corrupted answer, which earns partial credit in some tasks).
``judge``
    A cascade judge: replies to the judge prompt with the JSON labels, ``1`` for each stage
    whose trace phrase occurs in the transcript.

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
import asyncio
import hashlib
import json
import re
import socket
import sys
import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping
from typing import Any

from harness.base import FINAL_MARKER, OTHER_AGENT_PREFIX

POLICIES = ("solver", "wrong", "silent", "verbose", "extractor", "taxed", "judge")
STAGES = ("L1", "L2", "L3", "L4")
#: What a ``taxed`` agent writes when a grounding stage fails (what the ``judge`` detects).
FAILURE_PHRASES = {
    "L1": "I take it your notes use my conventions.",
    "L2": "No need to ask about anything I lack.",
    "L3": "I will solve from my own part alone.",
    "L4": "Agreed, without checking your proposal.",
}
#: Words of the matching clause that show it is in a system prompt (the shipped variants).
CLAUSE_CUES = {"L1": "Ground every claim", "L2": "Ask for what you lack",
               "L3": "Integrate both parts", "L4": "Re-derive before agreeing"}


class TaxPolicy:
    """Settings of the ``taxed`` and ``judge`` policies (see the module docstring).

    Parameters
    ----------
    competence : mapping, optional
        ``{model: {family: p}}`` or ``{model: p}``: probability of a correct solo answer
        (and the pair's ceiling). Default 1.0.
    rates : mapping, optional
        ``{family: {"L1": r, ...}}`` or ``{"L1": r, ...}`` (every family): probability that
        a pair rollout fails stage k. Default 0.
    clause_effect : float, default 0.25
        Factor applied to ``r_k`` when the Lk clause is in the system prompt.

    Examples
    --------
    >>> pol = TaxPolicy({"m": {"csp": 0.9}}, {"csp": {"L1": 0.2, "L4": 0.1}})
    >>> round(pol.expected_tax("m", "csp"), 4), pol.rate("csp", "L4", clause=True)
    (0.252, 0.025)
    """

    def __init__(self, competence: Mapping[str, Any] | None = None,
                 rates: Mapping[str, Any] | None = None, clause_effect: float = 0.25) -> None:
        self.competence = {m: (dict(v) if isinstance(v, Mapping) else {"*": float(v)})
                           for m, v in (competence or {}).items()}
        rates = dict(rates or {})
        if rates and all(k in STAGES for k in rates):
            rates = {"*": rates}
        self.rates = {f: {k: float(r) for k, r in v.items()} for f, v in rates.items()}
        for table in [*self.competence.values(), *self.rates.values()]:
            for key, value in table.items():
                if not 0 <= float(value) <= 1:
                    raise ValueError(f"a competence or rate must be in [0, 1], got {key}={value}")
        for fam, table in self.rates.items():
            bad = set(table) - set(STAGES)
            if bad:
                raise ValueError(f"rates of {fam!r}: stages must be L1-L4, got {sorted(bad)}")
        if not 0 <= clause_effect <= 1:
            raise ValueError(f"clause_effect must be in [0, 1], got {clause_effect!r}")
        self.clause_effect = float(clause_effect)

    def skill(self, model: str, family: str) -> float:
        table = self.competence.get(model, {})
        return float(table.get(family, table.get("*", 1.0)))

    def rate(self, family: str, stage: str, *, clause: bool = False) -> float:
        table = self.rates.get(family, self.rates.get("*", {}))
        r = float(table.get(stage, 0.0))
        return r * self.clause_effect if clause else r

    def expected_tax(self, model: str, family: str, clauses: Iterable[str] = ()) -> float:
        """``c * (1 - prod_k (1 - r_k))`` with the clauses in ``clauses`` applied."""
        keep = 1.0
        on = set(clauses)
        for k in STAGES:
            keep *= 1 - self.rate(family, k, clause=k in on)
        return self.skill(model, family) * (1 - keep)


def _uniform(*parts: str) -> float:
    """A reproducible draw in [0, 1) from the hash of ``parts``."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64
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
        ``{text: {"answer": ..., "wrong": ..., "family": ...}}`` for the full rendering (solo,
        canonical and both conventions) and both views' renderings (pair) of every (task,
        seed); answers are formatted as the task writes them after the termination marker.

    Examples
    --------
    >>> book = answer_book(["csp_sudoku4"], [0], difficulty=0)
    >>> len(book), sorted(set(e["answer"] for e in book.values()))
    (4, ['3412/1243/4321/2134'])
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
                     "wrong": task.format_answer(task.corrupt(inst, oracle)),
                     "family": task.family}
            book[task.render(inst)] = entry
            book[task.render_both(inst)] = entry
            for view in task.split(inst):
                book[task.render_view(view)] = entry
    return book


def _tokens(text: str) -> int:
    return 1 + len(text) // 4


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
            429: "Too Many Requests", 500: "Internal Server Error"}


def _response(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> bytes:
    head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
            "Content-Type: application/json", f"Content-Length: {len(body)}"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


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
    tax : TaxPolicy, optional
        Competences and grounding-failure rates of the ``taxed`` policy (default: competence
        1, no failures).

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
                 retry_after_s: float = 0.05, hang_s: float = 30.0, port: int = 0,
                 tax: TaxPolicy | None = None) -> None:
        self.policies = dict(policies if policies is not None else {p: p for p in POLICIES})
        for model, policy in self.policies.items():
            if policy not in POLICIES:
                raise ValueError(f"policy of model {model!r} must be one of {POLICIES}, "
                                 f"got {policy!r}")
        if default_policy is not None and default_policy not in POLICIES:
            raise ValueError(f"default_policy must be one of {POLICIES} or None, "
                             f"got {default_policy!r}")
        self.book = dict(book or {})
        self.tax = tax if tax is not None else TaxPolicy()
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
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # ----- lifecycle -----------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the server is not started; call start() first")
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedServer:
        """Bind 127.0.0.1 and serve from an event loop in a daemon thread; returns ``self``."""
        if self._server is not None:
            return self
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="scripted-server")
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._connection, "127.0.0.1", self.port, backlog=512),
            self._loop).result(timeout=10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        """Stop serving, abandon pending (hanging) requests and close the socket."""
        if self._server is None or self._loop is None:
            return

        async def shutdown() -> None:
            assert self._server is not None
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._loop.close()
        self._server = None
        self._loop = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ----- HTTP ----------------------------------------------------------------------
    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = (lines[0].split(" ") + ["", ""])[:2]
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (line.partition(":") for line in lines[1:] if ":" in line)}
                length = int(headers.get("content-length") or 0)
                raw = await reader.readexactly(length) if length else b""
                answer = await self._answer(method, path, raw)
                if answer is None:  # a dropped connection
                    writer.transport.abort()
                    return
                writer.write(answer)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        except asyncio.CancelledError:
            writer.transport.abort()
            return
        finally:
            if task is not None:
                self._tasks.discard(task)
        writer.close()

    async def _answer(self, method: str, path: str, raw: bytes) -> bytes | None:
        path = path.rstrip("/")
        if method == "GET" and path.endswith("/models"):
            data = [{"id": m, "object": "model"} for m in sorted(self.policies)]
            return _response(200, json.dumps({"object": "list", "data": data}).encode())
        if method != "POST" or not path.endswith("/chat/completions"):
            return _response(404, b'{"error": {"message": "not found"}}')
        try:
            body = json.loads(raw)
            model = body["model"]
            messages = body["messages"]
        except (ValueError, KeyError, TypeError):
            return _response(400, b'{"error": {"message": "bad request body"}}')
        fault = self._next_fault(model)
        self._log(model, fault, body)
        self._in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            if fault == "drop":
                return None
            if fault == "hang":
                await asyncio.sleep(self.hang_s)
        finally:
            self._in_flight -= 1
        if fault == "429":
            return _response(429, b'{"error": {"message": "rate limited", "type": "rate_limit"}}',
                             {"Retry-After": f"{self.retry_after_s:g}"})
        if fault in ("500", "400", "401"):
            return _response(int(fault),
                             json.dumps({"error": {"message": f"scripted {fault}"}}).encode())
        if fault == "malformed":
            return _response(200, b'{"id": "x", "choices": [{"index": 0, "mess')
        if model not in self.policies and self.default_policy is None:
            return _response(404, json.dumps(
                {"error": {"message": f"model {model!r} not found"}}).encode())
        text, finish = self.reply(model, messages), "stop"
        limit = body.get("max_tokens")
        if isinstance(limit, int) and limit >= 1 and _tokens(text) > limit:
            text, finish = text[:4 * (limit - 1)], "length"  # like a server: cut at the limit
        prompt = 1 + sum(len(str(m.get("content") or "")) for m in messages) // 4
        payload = {
            "id": f"chatcmpl-{self.requests}", "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [] if fault == "empty" else [{
                "index": 0, "finish_reason": finish,
                "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": _tokens(text),
                      "total_tokens": prompt + _tokens(text)},
        }
        return _response(200, json.dumps(payload).encode())

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
                                     "temperature": body.get("temperature"),
                                     "max_tokens": body.get("max_tokens")})

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
        if policy == "judge":
            return self._judge(messages)
        entry = self._lookup(system)
        pair = OTHER_AGENT_PREFIX in system
        failed: list[str] = []
        wrong = policy == "wrong"
        if policy == "taxed" and entry is not None:
            wrong, failed = self._taxed(model, system, entry, pair)
        answer = "unknown" if entry is None else entry["wrong" if wrong else "answer"]
        final = (f"{FINAL_MARKER} we settled on «{answer}» after checking" if policy == "verbose"
                 else f"{FINAL_MARKER} {answer}")
        if failed:
            final = " ".join(FAILURE_PHRASES[k] for k in failed) + "\n" + final
        if not pair:  # solo or split_solo
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

    def _taxed(self, model: str, system: str, entry: Mapping[str, str],
               pair: bool) -> tuple[bool, list[str]]:
        """(commits to a wrong answer, stages that failed) of a ``taxed`` agent."""
        family = entry.get("family", "")
        text = entry.get("answer", "")
        mode = "pair" if pair else "solo"
        ok = _uniform(model, mode, text, "competence") < self.tax.skill(model, family)
        if not pair:
            return not ok, []
        failed = [k for k in STAGES if _uniform(model, mode, text, k) < self.tax.rate(
            family, k, clause=CLAUSE_CUES[k] in system)]
        return (not ok) or bool(failed), failed

    @staticmethod
    def _judge(messages: list[dict[str, Any]]) -> str:
        transcript = next((str(m.get("content") or "") for m in reversed(messages)
                           if m.get("role") == "user"), "")
        return json.dumps({k: int(FAILURE_PHRASES[k] in transcript) for k in STAGES})

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


def tax_policy_from_args(competence: Iterable[str], rates: Iterable[str],
                         clause_effect: float = 0.25) -> TaxPolicy:
    """A :class:`TaxPolicy` from ``MODEL[:FAMILY]=P`` and ``[FAMILY:]Lk=R`` strings.

    Raises
    ------
    ValueError
        A string not in that form, naming the option (``--competence`` / ``--rate``).

    Examples
    --------
    >>> pol = tax_policy_from_args(["m=0.9", "m:csp=0.5"], ["L1=0.1", "csp:L4=0.3"])
    >>> pol.skill("m", "spatial"), pol.skill("m", "csp"), pol.rate("csp", "L4")
    (0.9, 0.5, 0.3)
    """
    comp: dict[str, dict[str, float]] = {}
    for text in competence:
        key, eq, value = text.partition("=")
        model, _, family = key.partition(":")
        try:
            comp.setdefault(model, {})[family or "*"] = float(value)
        except ValueError:
            eq = ""
        if not eq or not model:
            raise ValueError(f"--competence expects MODEL[:FAMILY]=P, got {text!r}")
    table: dict[str, dict[str, float]] = {}
    for text in rates:
        key, eq, value = text.partition("=")
        family, _, stage = key.rpartition(":")
        try:
            table.setdefault(family or "*", {})[stage] = float(value)
        except ValueError:
            eq = ""
        if not eq or stage not in STAGES:
            raise ValueError(f"--rate expects [FAMILY:]Lk=R with k in 1-4, got {text!r}")
    for fam, t in list(table.items()):  # a family's table inherits the all-family rates
        if fam != "*":
            table[fam] = {**table.get("*", {}), **t}
    return TaxPolicy(comp, table, clause_effect)


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
    parser.add_argument("--competence", action="append", default=[],
                        metavar="MODEL[:FAMILY]=P",
                        help="taxed policy: probability of a correct solo answer (repeatable)")
    parser.add_argument("--rate", action="append", default=[], metavar="[FAMILY:]Lk=R",
                        help="taxed policy: rate of grounding failure Lk in a pair (repeatable)")
    parser.add_argument("--clause-effect", type=float, default=0.25,
                        help="factor on Lk's rate when the Lk clause is in the prompt")
    args = parser.parse_args(argv)
    try:
        tax = tax_policy_from_args(args.competence, args.rate, args.clause_effect)
    except ValueError as exc:
        parser.error(str(exc))
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    tasks = [t for t in args.tasks.split(",") if t]
    if args.tasks == "all":
        from harness.registry import list_tasks
        tasks = [t.name for t in list_tasks()]
    policies = dict(m.split("=", 1) for m in args.model) or None
    server = ScriptedServer(policies, book=answer_book(tasks, seeds, args.difficulty),
                            latency_s=args.latency, port=args.port, tax=tax).start()
    sys.stdout.write(server.base_url + "\n")
    sys.stdout.flush()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
