"""One rollout: the solo, split_solo or pair dialogue of one task instance, and its score.

The dialogue follows the collaboration-tax paper (section 1): each agent's system prompt is
the task's prompt (``solo_prompt`` on the full instance, ``agent_prompt`` on its private
view, or :func:`split_solo_prompt` on one view with no partner), plus the prompt variant's
addition. In a pair, every message of one agent reaches the other as a user message
prefixed ``[other agent]:``; the dialogue ends when a message contains the termination
marker ``FINAL ANSWER:`` (the answer is what follows the last marker) or when ``turn_cap``
assistant messages have been written (``termination_reason = "turn_cap"``, score 0: a real
outcome). A solo agent that writes no marker is asked to continue, up to the same cap.

A solo agent may also run under a token cap (matched spend, :func:`_single`): each request's
``max_tokens`` is the room the cap leaves after the tokens spent and an upper bound of the
request's input; the dialogue ends with ``termination_reason = "token_cap"`` (score 0, like
the turn cap) when no room is left, and a reply whose request went past the cap is not read.

The answer is read by the task's deterministic parser (:meth:`harness.base.Task.read_answer`),
which accepts only an answer it reads completely after removing content-free decoration; with
an extractor (grader) model, an answer the parser cannot read is sent to that model, which only
rewrites it in the task's answer format (``extraction = "llm"``). The score is always the
task's deterministic ``grade``; a decorated answer never earns partial credit.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from harness.base import FINAL_MARKER, OTHER_AGENT_PREFIX, UNPARSED, Task
from harness.runner.keys import RolloutSpec
from harness.runner.variants import apply_variant
from noisefloor.endpoints import Completion, EndpointError, EndpointFatalError
from noisefloor.results import FrozenResult

#: First user message of a solo or split_solo agent.
SOLO_START = "Solve the puzzle."
#: First user message of the agent that opens a pair's dialogue.
PAIR_START = "Start the conversation with your partner."
#: User message after a solo reply without the termination marker.
SOLO_CONTINUE = (f"Continue. When you are sure, write one line that starts with "
                 f"'{FINAL_MARKER}' followed by your answer.")
_MARKER = re.compile(re.escape(FINAL_MARKER), re.IGNORECASE)
#: Tokens a chat template may add per message, on top of the content's tokens (a margin).
MESSAGE_OVERHEAD_TOKENS = 16

Complete = Callable[..., Awaitable[Completion]]


@cache
def _task(name: str) -> Task:
    from harness.registry import get_task

    return get_task(name)


def split_solo_prompt(task: Task, view: Any) -> str:
    """Prompt of the split_solo control: :meth:`harness.base.Task.split_solo_prompt`.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
    >>> a, _ = task.split(task.generate(0, 0))
    >>> split_solo_prompt(task, a) == task.split_solo_prompt(a)
    True
    """
    return task.split_solo_prompt(view)


def extractor_messages(task: Task, text: str) -> list[dict[str, str]]:
    """The request to the extractor model: convert ``text`` to the answer format, nothing more.

    Examples
    --------
    >>> from harness.registry import get_task
    >>> messages = extractor_messages(get_task("csp_sudoku4"), "it is 1234/...")
    >>> [m["role"] for m in messages], messages[1]["content"]
    (['system', 'user'], 'it is 1234/...')
    """
    system = (
        "You convert an answer written in free text into an exact format. Do not solve, "
        "check or change the answer; only rewrite it. Reply with the answer alone, in this "
        f"format: {task.answer_format}\nIf the text states no answer, reply NONE."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


@dataclass(frozen=True)
class RolloutOutcome(FrozenResult):
    """What one rollout produced.

    Attributes
    ----------
    reward : float or None
        The task's grade on [0, 1]; None for an infrastructure error.
    termination_reason : str
        ``final_answer``, ``turn_cap``, ``token_cap``, ``infrastructure_error:<kind>`` or
        ``harness_error:grade``.
    infrastructure_error : bool
    turns : int
        Assistant messages of the agents (the extractor's not counted).
    tokens_in, tokens_out : int or None
        Summed over every request (the extractor's included); None if an endpoint sent no
        usage.
    cost_usd : float or None
        Summed; None when any request's price is unknown.
    latency_s : float
        Wall-clock seconds of the whole rollout.
    retries : int
        Failed attempts over all requests.
    extraction : str
        How the answer was read: ``parse`` (the task's parser read the whole answer after
        :func:`harness.answer_text.normalise_answer`), ``llm`` (the parser could not, the
        grader model rewrote it and the parser read that), ``unreadable`` (a final answer was
        written but neither could read it; graded as no answer) or ``none`` (no final answer:
        turn cap or infrastructure error).
    answer : object
        The parsed answer as JSON (None when nothing was read).
    error : str or None
    events : tuple of dict
        The transcript, one dict per message in dialogue order.
    """

    reward: float | None
    termination_reason: str
    infrastructure_error: bool
    turns: int
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    latency_s: float
    retries: int
    extraction: str
    answer: Any
    error: str | None
    events: tuple[dict[str, Any], ...]


class _Tally:
    """Running totals of a rollout's requests and its transcript."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.events: list[dict[str, Any]] = []
        self.tokens_in: int | None = 0
        self.tokens_out: int | None = 0
        self.cost: float | None = 0.0
        self.retries = 0
        self.turns = 0
        self.capped = False  # the rollout ended at its token cap

    def message(self, agent: str, role: str, content: str, model: str) -> None:
        self.events.append({"rollout_key": self.key, "seq": len(self.events), "agent": agent,
                            "role": role, "content": content, "model": model})

    def reply(self, agent: str, done: Completion, *, counts: bool = True) -> None:
        self.message(agent, "assistant", done.text, done.model)
        self.events[-1].update(
            params=done.params, tokens_in=done.tokens_in, tokens_out=done.tokens_out,
            cost_usd=done.cost_usd, latency_s=round(done.latency_s, 6), retries=done.retries,
            base_url=done.base_url, finish_reason=done.finish_reason)
        self.retries += done.retries
        self.turns += counts
        self.tokens_in = None if self.tokens_in is None or done.tokens_in is None \
            else self.tokens_in + done.tokens_in
        self.tokens_out = None if self.tokens_out is None or done.tokens_out is None \
            else self.tokens_out + done.tokens_out
        self.cost = None if self.cost is None or done.cost_usd is None \
            else self.cost + done.cost_usd


def _jsonable(answer: Any) -> Any:
    if answer is UNPARSED or answer is None:
        return None
    return json.loads(json.dumps(answer, default=repr))


async def run_rollout(spec: RolloutSpec, complete: Complete, *, turn_cap: int,
                      params: dict[str, Any] | None = None, variant_text: str = "",
                      extractor_model: str | None = None,
                      solo_view: str = "canonical",
                      token_cap: int | None = None) -> RolloutOutcome:
    """Run one rollout and grade it.

    Parameters
    ----------
    spec : RolloutSpec
        What to run.
    complete : async callable
        ``await complete(model, messages, **params) -> Completion``, e.g.
        :meth:`noisefloor.endpoints.Endpoints.complete`.
    turn_cap : int
        Most assistant messages in the dialogue (>= 1).
    params : dict, optional
        Request parameters of every agent request (``temperature``, ``max_tokens``).
    variant_text : str, default ""
        Addition to every agent's system prompt.
    extractor_model : str, optional
        Model that rewrites an answer the parser cannot read.
    solo_view : {"canonical", "both"}, default "canonical"
        What a solo agent reads (:meth:`harness.base.Task.solo_prompt`).
    token_cap : int, optional
        Most tokens (input + output, summed over requests) a solo or split_solo rollout may
        spend; see :func:`_single`. Ignored for a pair.

    Returns
    -------
    RolloutOutcome

    Raises
    ------
    EndpointFatalError
        Passed on from ``complete``: the run cannot continue.

    Examples
    --------
    >>> import asyncio
    >>> from noisefloor.endpoints import Endpoints, ModelEndpoint
    >>> from harness.runner.scripted import ScriptedServer, answer_book
    >>> spec = RolloutSpec("csp_sudoku4", 0, 0, "pair", "solver", "solver", "a", 0,
    ...                    "baseline", 0, "")
    >>> async def go(url):
    ...     async with Endpoints([ModelEndpoint("solver", (url,))]) as endpoints:
    ...         return await run_rollout(spec, endpoints.complete, turn_cap=8)
    >>> with ScriptedServer(book=answer_book(["csp_sudoku4"], [0], 0)) as server:
    ...     out = asyncio.run(go(server.base_url))  # doctest: +SKIP
    >>> out.reward, out.turns, out.termination_reason, out.answer  # doctest: +SKIP
    (1.0, 3, 'final_answer', '3412/1243/4321/2134')
    """
    params = dict(params or {})
    task = _task(spec.task)
    instance = task.generate(spec.instance_seed, spec.difficulty)
    tally = _Tally(spec.key)
    started = time.monotonic()
    final_text: str | None = None
    error: EndpointError | None = None
    try:
        if spec.mode == "pair":
            final_text = await _pair(task, instance, spec, complete, tally, turn_cap, params,
                                     variant_text)
        else:
            final_text = await _single(task, instance, spec, complete, tally, turn_cap, params,
                                       variant_text, solo_view, token_cap)
    except EndpointFatalError:
        raise
    except EndpointError as exc:
        error = exc
    extraction, answer = "none", UNPARSED
    if error is None and final_text is not None:
        answer = task.extract_answer(final_text, instance)
        extraction = "parse" if answer is not UNPARSED else "unreadable"
        if answer is UNPARSED and extractor_model is not None:
            tail = final_text[list(_MARKER.finditer(final_text))[-1].end():].strip()
            messages = extractor_messages(task, tail)
            for m in messages:
                tally.message("extractor", m["role"], m["content"], extractor_model)
            try:
                done = await complete(extractor_model, messages, temperature=0)
                tally.reply("extractor", done, counts=False)
                answer = task.read_answer(done.text, instance)
                extraction = "llm" if answer is not UNPARSED else "unreadable"
            except EndpointFatalError:
                raise
            except EndpointError as exc:
                error = exc
    reward: float | None = None
    reason: str
    infra = error is not None
    message = None
    if error is not None:
        tally.retries += error.retries
        reason, message = f"infrastructure_error:{error.kind}", str(error)
    else:
        reason = ("final_answer" if final_text is not None
                  else "token_cap" if tally.capped else "turn_cap")
        try:
            reward = float(task.grade(instance, None if answer is UNPARSED else answer))
        except Exception as exc:  # a grader bug is the harness's failure, not a score
            reason, infra, message = "harness_error:grade", True, f"{type(exc).__name__}: {exc}"
    return RolloutOutcome(
        reward=reward, termination_reason=reason, infrastructure_error=infra,
        turns=tally.turns, tokens_in=tally.tokens_in, tokens_out=tally.tokens_out,
        cost_usd=tally.cost, latency_s=round(time.monotonic() - started, 6),
        retries=tally.retries, extraction=extraction if not infra else "none",
        answer=_jsonable(answer) if not infra else None, error=message,
        events=tuple(tally.events))


def _has_marker(text: str) -> bool:
    return _MARKER.search(text) is not None


def input_bound(messages: list[dict[str, str]]) -> int:
    """Upper bound of the input tokens of a request carrying ``messages``.

    A token of a byte-level tokenizer covers at least one byte, so a message's content has at
    most as many tokens as UTF-8 bytes; :data:`MESSAGE_OVERHEAD_TOKENS` per message covers the
    chat template.

    Examples
    --------
    >>> input_bound([{"role": "user", "content": "Solve it."}])
    25
    """
    return sum(len(m["content"].encode()) + MESSAGE_OVERHEAD_TOKENS for m in messages)


async def _single(task: Task, instance: Any, spec: RolloutSpec, complete: Complete,
                  tally: _Tally, turn_cap: int, params: dict[str, Any],
                  variant_text: str, solo_view: str = "canonical",
                  token_cap: int | None = None) -> str | None:
    """The solo or split_solo dialogue; the final reply's text, or None (turn or token cap).

    Under ``token_cap`` a request is sent only when the cap leaves room for at least one
    output token after the tokens spent so far and an upper bound of its input (the first
    request: :func:`input_bound` of its messages; later ones: the previous request's input
    and output tokens, which it repeats, plus :func:`input_bound` of the new message); its
    ``max_tokens`` is that room (or the run's ``max_tokens`` when smaller). A reply that
    arrives past the cap anyway (an endpoint counted more than the bound) is not read. An
    endpoint that reports no usage cannot be held to a cap: an infrastructure error.
    """
    if spec.mode == "solo":
        system = task.solo_prompt(instance, solo_view)
    else:
        view = task.split(instance)[0 if spec.mode == "split_solo_a" else 1]
        system = split_solo_prompt(task, view)
    model = spec.model_a
    history = [{"role": "system", "content": apply_variant(system, variant_text)},
               {"role": "user", "content": SOLO_START}]
    for m in history:
        tally.message("solo", m["role"], m["content"], model)
    spent, bound = 0, input_bound(history)
    for turn in range(turn_cap):
        request = params
        if token_cap is not None:
            room = token_cap - spent - bound
            if room < 1:
                tally.capped = True
                return None
            request = {**params, "max_tokens": min(room, params.get("max_tokens") or room)}
        done = await complete(model, history, **request)
        tally.reply("solo", done)
        history.append({"role": "assistant", "content": done.text})
        if token_cap is not None:
            if done.tokens_in is None or done.tokens_out is None:
                raise EndpointError("no_usage", "the endpoint reported no token usage, so "
                                    "the token cap cannot be kept", model=model, retries=0)
            spent += done.tokens_in + done.tokens_out
            if spent > token_cap:
                tally.capped = True
                return None
            bound = done.tokens_in + done.tokens_out + input_bound(
                [{"role": "user", "content": SOLO_CONTINUE}])
        if _has_marker(done.text):
            return done.text
        if turn + 1 < turn_cap:
            history.append({"role": "user", "content": SOLO_CONTINUE})
            tally.message("solo", "user", SOLO_CONTINUE, model)
    return None


async def _pair(task: Task, instance: Any, spec: RolloutSpec, complete: Complete,
                tally: _Tally, turn_cap: int, params: dict[str, Any],
                variant_text: str) -> str | None:
    # RolloutSpec.__post_init__ guarantees both for mode "pair" (narrowing for the type checker)
    assert spec.model_b is not None and spec.started_by is not None
    views = dict(zip("ab", task.split(instance)))
    models = {"a": spec.model_a, "b": spec.model_b}
    histories: dict[str, list[dict[str, str]]] = {}
    for agent in "ab":
        system = apply_variant(task.agent_prompt(views[agent]), variant_text)
        histories[agent] = [{"role": "system", "content": system}]
        tally.message(agent, "system", system, models[agent])
    speaker = spec.started_by
    histories[speaker].append({"role": "user", "content": PAIR_START})
    tally.message(speaker, "user", PAIR_START, models[speaker])
    for _ in range(turn_cap):
        done = await complete(models[speaker], histories[speaker], **params)
        tally.reply(speaker, done)
        histories[speaker].append({"role": "assistant", "content": done.text})
        if _has_marker(done.text):
            return done.text
        listener = "b" if speaker == "a" else "a"
        relayed = f"{OTHER_AGENT_PREFIX} {done.text}"
        histories[listener].append({"role": "user", "content": relayed})
        tally.message(listener, "user", relayed, models[listener])
        speaker = listener
    return None
