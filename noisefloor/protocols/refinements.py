"""The noise-floor paper's three refinements as real model calls, each with a recorded fallback.

* :class:`ModelJudge` -- the causally attributed writer's judge: a model reads the failed
  trial's calls and reward and names the calls to write (for :class:`JudgedWriter`); falls back
  to the final K calls.
* :class:`ModelGate` -- the selective intercept with a model deciding the gate (relevant, novel,
  decision-proximal); falls back to the score gate of :class:`SelectiveIntercept`.
* :class:`ModelPredicateExtractor` -- predicate constraint extraction (``tool=cancel_order``
  where ``order.status eq shipped``) for :class:`PredicateWriter`; falls back to literal
  argument predicates.

Every model call goes through :class:`noisefloor.endpoints.Endpoints` (per-URL limits, retries,
``Retry-After``, prices) via :class:`ModelCaller`; the prompts are package data
(``noisefloor/protocols/prompts/*.md``, documented in its ``README.md``). Each component records,
per decision, which path decided (``"model"`` or ``"fallback"``) and why the model's answer was
not used (``error``); an endpoint failure is never taken as the model's verdict.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", KDD 2026 Workshop on Agentic AI Evaluation and
Trustworthiness.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from noisefloor.endpoints import ModelEndpoint
from noisefloor.protocols.blocking import BlockingEndpoints
from noisefloor.protocols.event_text import describe_event, short_text
from noisefloor.protocols.intercept import SelectiveIntercept, warning_block
from noisefloor.protocols.predicates import FactResolver, call_facts
from noisefloor.protocols.reader_interface import CallContext, Injection, TrialState
from noisefloor.protocols.trace import ToolCall, TrialTrace
from noisefloor.protocols.writers import Attribution
from noisefloor.store.base import TaskView
from noisefloor.store.events import Condition

__all__ = ["ModelCaller", "ModelGate", "ModelJudge", "ModelPredicateExtractor", "RefinementError",
           "load_prompt"]


class RefinementError(RuntimeError):
    """A model call of a refinement failed (endpoint error, or an answer that is not valid)."""


def load_prompt(name: str) -> str:
    """The prompt template ``name`` (``writer_judge``, ``gate``, ``predicate``) from package data.

    Examples
    --------
    >>> "{calls}" in load_prompt("writer_judge")
    True
    """
    return (resources.files("noisefloor.protocols") / "prompts" / f"{name}.md").read_text("utf-8")


def _json_object(text: str) -> dict[str, Any]:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise RefinementError(f"the answer holds no JSON object: {short_text(text, 120)!r}")
    try:
        value = json.loads(text[start:end + 1])
    except json.JSONDecodeError as exc:
        raise RefinementError(f"the answer is not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise RefinementError("the answer is not a JSON object")
    return value


class ModelCaller:
    """Synchronous JSON questions to one model through :class:`~noisefloor.endpoints.Endpoints`.

    The calls go through :class:`~noisefloor.protocols.blocking.BlockingEndpoints` (the endpoint
    pools on their own event loop), so the refinements can be called from any thread (tau2's
    simulations, the writer pass) and share the run's per-URL limits when ``endpoints`` is given.

    Parameters
    ----------
    endpoint : ModelEndpoint
    timeout : float, default 60.0
    max_retries : int, default 2
    temperature : float, default 0.0
    endpoints : BlockingEndpoints, optional
        The run's shared pools (must hold ``endpoint``); by default the caller opens its own.

    Attributes
    ----------
    calls : list of dict
        One ``{"prompt", "ok", "tokens_in", "tokens_out", "cost_usd", "error"}`` per question.
    """

    def __init__(self, endpoint: ModelEndpoint, *, timeout: float = 60.0, max_retries: int = 2,
                 temperature: float = 0.0, endpoints: BlockingEndpoints | None = None) -> None:
        self.endpoint = endpoint
        self.temperature = temperature
        self.calls: list[dict[str, Any]] = []
        self._own = endpoints is None
        self._endpoints = endpoints if endpoints is not None else BlockingEndpoints(
            [endpoint], timeout=timeout, max_retries=max_retries)

    def ask(self, prompt: str, **fields: Any) -> dict[str, Any]:
        """Fill the template ``prompt`` with ``fields``, ask the model, return its JSON object.

        Raises
        ------
        RefinementError
            When the endpoint fails (retries spent, fatal status) or the answer holds no JSON
            object.
        """
        text = load_prompt(prompt).format(**fields)
        messages = [{"role": "user", "content": text}]
        entry: dict[str, Any] = {"prompt": prompt, "ok": False}
        try:
            completion = self._endpoints.complete(self.endpoint, messages,
                                                  temperature=self.temperature)
        except Exception as exc:  # EndpointError and transport failures alike
            entry["error"] = f"{type(exc).__name__}: {short_text(str(exc), 300)}"
            self.calls.append(entry)
            raise RefinementError(entry["error"]) from None
        entry.update(tokens_in=completion.tokens_in, tokens_out=completion.tokens_out,
                     cost_usd=completion.cost_usd)
        try:
            answer = _json_object(completion.text)
        except RefinementError as exc:
            entry["error"] = str(exc)
            self.calls.append(entry)
            raise
        entry["ok"] = True
        self.calls.append(entry)
        return answer

    def close(self) -> None:
        """Close the endpoint pool (unless it was given: its owner closes it)."""
        if self._own:
            self._endpoints.close()


class ModelJudge:
    """The causally attributed writer's judge: ``JudgedWriter(ModelJudge(caller))``.

    Parameters
    ----------
    caller : ModelCaller
    k : int, default 3
        The fallback blames the final ``k`` calls with weight 1 (the last-K writer's choice).
    max_events : int, default 3
        Most calls the model may blame.

    Attributes
    ----------
    decisions : list of dict
        Per judged trial: ``{"task_id", "trial", "attempt_id", "decided_by", "blamed",
        "error"}``; ``decided_by`` is ``"model"`` or ``"fallback"`` (last K).
    """

    def __init__(self, caller: ModelCaller, *, k: int = 3, max_events: int = 3) -> None:
        self.caller = caller
        self.k = k
        self.max_events = max_events
        self.decisions: list[dict[str, Any]] = []

    def __call__(self, trace: TrialTrace) -> list[Attribution]:
        calls = "\n".join(f"{i}: {c.name}({short_text(c.arguments, 200)}) -> {short_text(c.response, 200)}"
                          for i, c in enumerate(trace.calls))
        record: dict[str, Any] = {"task_id": trace.task_id, "trial": trace.trial,
                                  "attempt_id": trace.attempt_id}
        try:
            answer = self.caller.ask("writer_judge", reward=trace.reward, calls=calls,
                                     max_events=self.max_events)
            verdicts = _attributions(answer, len(trace.calls))[: self.max_events]
            record["decided_by"] = "model"
        except RefinementError as exc:
            n = len(trace.calls)
            verdicts = [Attribution(i, 1.0, "final call (fallback: last K)")
                        for i in range(max(0, n - self.k), n)]
            record.update(decided_by="fallback", error=str(exc))
        record["blamed"] = [{"call_index": v.call_index, "weight": v.weight} for v in verdicts]
        self.decisions.append(record)
        return verdicts


def _attributions(answer: dict[str, Any], n: int) -> list[Attribution]:
    blamed = answer.get("blamed")
    if not isinstance(blamed, list):
        raise RefinementError("the answer has no 'blamed' list")
    out = []
    for item in blamed:
        if not isinstance(item, dict):
            raise RefinementError("an entry of 'blamed' is not an object")
        index, weight = item.get("call_index"), item.get("weight", 1.0)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise RefinementError(f"call_index {index!r} is not an index of the {n} calls")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 1:
            raise RefinementError(f"weight {weight!r} is not a number in [0, 1]")
        out.append(Attribution(index, float(weight), str(item.get("rationale", ""))))
    return out


class ModelGate(SelectiveIntercept):
    """Selective intercept whose gate a model decides; the score gate is the fallback.

    Every decision (model or fallback) is one entry of ``record.extra["gate"]`` with the score
    gate's fields plus ``decided_by`` (``"model"`` or ``"fallback"``), the model's three answers
    (``relevant, novel, decision_proximal``, ``reason``) or the ``error`` that caused the
    fallback.

    Parameters
    ----------
    caller : ModelCaller
    threshold : float, default 0.5
        The fallback score gate's threshold.
    max_events : int, default 5
    """

    name = "selective"

    def __init__(self, caller: ModelCaller, *, threshold: float = 0.5, max_events: int = 5) -> None:
        super().__init__(threshold=threshold, max_events=max_events)
        self.caller = caller

    def on_tool_call(self, view: TaskView, state: TrialState, call: CallContext) -> Injection | None:
        """Ask the model whether to warn about a matching call (see the class docstring)."""
        heuristic = super().on_tool_call(view, state, call)
        if not state.gate_log or state.gate_log[-1]["call_index"] != call.index:
            return None  # nothing matched: no decision to make
        entry = state.gate_log[-1]
        events, total = self._literal_matches(view, call)
        try:
            answer = self.caller.ask(
                "gate", call=f"{call.name}({short_text(call.arguments, 300)})",
                response=short_text(call.response, 300),
                events="; ".join(f"{describe_event(e.event)} -> {short_text(e.event.outcome, 120)}"
                                 for e in events),
                warned=", ".join(sorted(state.warned_keys)) or "none")
            flags = {k: answer.get(k) for k in ("relevant", "novel", "decision_proximal")}
            if not all(isinstance(v, bool) for v in flags.values()):
                raise RefinementError(f"the answer's gate flags are not booleans: {flags}")
        except RefinementError as exc:
            entry.update(decided_by="fallback", error=str(exc))
            return heuristic
        fired = all(flags.values())
        entry.update(decided_by="model", fired=fired, reason=str(answer.get("reason", "")), **flags)
        if not fired:
            return None
        return Injection(warning_block(call, events, total, "literal"),
                         tuple(e.event_id for e in events))


class ModelPredicateExtractor:
    """Predicate extraction by a model, for ``PredicateWriter(ModelPredicateExtractor(...))``.

    Parameters
    ----------
    caller : ModelCaller
    resolver : callable or None
        ``resolver(tool, arguments) -> facts`` (the world state of the call); without one the
        facts are the arguments alone (``args.<name>``). A resolver with an
        ``at_call(trace, position)`` method (the tau2 runner's replaying resolver) gives the
        resolver of the state just before call ``position`` of the trial; the decision then
        records that step as ``facts_step``.

    Attributes
    ----------
    decisions : list of dict
        Per call: ``{"tool", "decided_by", "conditions", "error", "facts_step"}``; the fallback is one ``eq``
        condition per scalar argument (the literal call as a predicate).
    """

    def __init__(self, caller: ModelCaller, resolver: FactResolver | None = None) -> None:
        self.caller = caller
        self.resolver = resolver
        self.decisions: list[dict[str, Any]] = []

    def __call__(self, trace: TrialTrace, call: ToolCall) -> list[Condition] | None:
        record: dict[str, Any] = {"tool": call.name}
        resolver = self.resolver
        at_call = getattr(resolver, "at_call", None)
        position = next((i for i, c in enumerate(trace.calls) if c is call), None) if trace else None
        if at_call is not None and position is not None:
            resolver = at_call(trace, position)
            record["facts_step"] = position
        facts = call_facts(call.name, call.arguments, resolver)
        try:
            answer = self.caller.ask("predicate", tool=call.name,
                                     arguments=short_text(call.arguments, 300),
                                     outcome=short_text(call.response, 300),
                                     facts=short_text(facts, 1500))
            raw = answer.get("conditions")
            if not isinstance(raw, list):
                raise RefinementError("the answer has no 'conditions' list")
            try:
                conditions = [Condition(**c) for c in raw]
            except (TypeError, ValueError) as exc:
                raise RefinementError(f"a condition is not valid: {short_text(str(exc), 200)}") from None
            record["decided_by"] = "model"
        except RefinementError as exc:
            conditions = [Condition(path=f"args.{k}", value=v) for k, v in sorted(call.arguments.items())
                          if isinstance(v, (str, int, float, bool)) or v is None]
            record.update(decided_by="fallback", error=str(exc))
        record["conditions"] = [c.model_dump(mode="json") for c in conditions]
        self.decisions.append(record)
        return conditions or None
