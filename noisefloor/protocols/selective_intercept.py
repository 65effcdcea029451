"""Selective intercept: the intercept reader behind a score gate, every decision logged.

The gate fires only for events that are relevant, novel in the trial and close to the failure
they preceded; each decision, fired or not, is kept with its inputs in the trial's
``gate_log`` (and so in the trial record's ``extra["gate"]``).
"""

from __future__ import annotations

from noisefloor.protocols.intercept import Intercept, warning_block
from noisefloor.protocols.reader_interface import CallContext, Injection, TrialState
from noisefloor.store.base import TaskView

__all__ = ["SelectiveIntercept"]


class SelectiveIntercept(Intercept):
    """Selective intercept: a score gate fires only for relevant, novel, decision-proximal events.

    For each matching call the gate computes, over the matching events,

    * relevance = the largest attribution ``weight`` of a matching event (1 for last-K events);
    * novelty = 1 if this key has not been warned about earlier in the trial, else 0;
    * proximity = ``(k - position + 1) / k`` of the nearest-to-failure matching event (1 for the
      call that ended a failed trial, 1/3 for the third-from-last of K = 3);

    and fires when ``score = relevance * novelty * proximity >= threshold``. Every decision
    (fired or not) is appended to ``state.gate_log`` with its inputs, and ends up in the trial
    record's ``extra["gate"]``.

    Parameters
    ----------
    threshold : float, default 0.5
        With K = 3 last-K events: warns for the final and second-to-last calls of a failed
        trial, once per key per trial.
    max_events : int, default 5

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> from noisefloor.protocols import Coordinator, SelectiveIntercept
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append_many([FailedTrialAction(task_id="T", tool_name="step", arguments={"i": i},
    ...     reward=0.0, position=p, k=3) for i, p in ((0, 3), (1, 1))])
    >>> s = Coordinator(store, SelectiveIntercept()).start_trial("T", 1)
    >>> [s.after_tool_call("step", {"i": i}, "ok") == "ok" for i in (0, 1, 1)]
    [True, False, True]
    >>> [(g["proximity"], g["novelty"], g["fired"]) for g in s.state.gate_log]
    [(0.333333, 1.0, False), (1.0, 1.0, True), (1.0, 0.0, False)]
    """

    name = "selective"

    def __init__(self, *, threshold: float = 0.5, max_events: int = 5) -> None:
        super().__init__(max_events=max_events)
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must lie in [0, 1], got {threshold}")
        self.threshold = threshold

    def on_tool_call(self, view: TaskView, state: TrialState, call: CallContext) -> Injection | None:
        """Score the matching events, log the decision in ``state.gate_log``, warn if it fires.

        Parameters
        ----------
        view : TaskView
        state : TrialState
            ``warned_keys`` gives the novelty; one dict per matching call is appended to
            ``gate_log`` (keys ``call_index, tool, key, event_ids, matches, relevance, novelty,
            proximity, score, threshold, fired``).
        call : CallContext

        Returns
        -------
        Injection or None
            ``None`` when nothing matches (no log entry) or the score is below ``threshold``.

        Examples
        --------
        The second-to-last call of a K = 3 trial has proximity 2/3:

        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction, canonical_key
        >>> from noisefloor.protocols import CallContext, SelectiveIntercept, TrialState
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T", tool_name="f", arguments={"x": 1},
        ...                                    reward=0.0, position=2, k=3))
        >>> call = CallContext(0, "f", {"x": 1}, canonical_key("f", {"x": 1}), "ok")
        >>> state = TrialState("T", 1)
        >>> reader = SelectiveIntercept(threshold=0.7)
        >>> print(reader.on_tool_call(store.task("T"), state, call))
        None
        >>> state.gate_log[0]["score"], state.gate_log[0]["fired"]
        (0.666667, False)
        >>> SelectiveIntercept().on_tool_call(store.task("T"), state, call).event_ids
        (1,)
        """
        events, total = self._literal_matches(view, call)
        if not events:
            return None
        relevance = max(e.event.weight for e in events)
        novelty = 0.0 if call.key in state.warned_keys else 1.0
        proximity = max((e.event.k - e.event.position + 1) / e.event.k for e in events)
        score = relevance * novelty * proximity
        fired = score >= self.threshold
        state.gate_log.append({
            "call_index": call.index, "tool": call.name, "key": call.key,
            "event_ids": [e.event_id for e in events], "matches": total,
            "relevance": relevance, "novelty": novelty, "proximity": round(proximity, 6),
            "score": round(score, 6), "threshold": self.threshold, "fired": fired,
        })
        if not fired:
            return None
        return Injection(warning_block(call, events, total, "literal"),
                         tuple(e.event_id for e in events))

