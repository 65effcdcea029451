"""Conversation-shape features of a paired rollout, each a function of its messages alone.

A rollout's transcript is its list of message events (``agent`` a/b, ``role``
system/user/assistant, ``content``). A *turn* is an assistant message of agent a or b (what an
agent said; the copy its partner receives as a prefixed user message is not counted again).
The features, all computed by :func:`conversation_features`:

``turns``
    Number of turns.
``words_per_turn``
    Mean number of whitespace-separated words per turn.
``questions_per_turn``
    Question marks in the turns, divided by ``turns`` (questions asked of the partner).
``partner_facts``
    Distinct identifiers an agent writes that occur in its partner's system message (the
    partner's private view) and not in its own: facts of the other view taken up in the
    dialogue. An identifier is a word containing a digit (``K12``, ``(3,4)`` gives ``3`` and
    ``4``, ``09:30`` gives ``09`` and ``30``).
``proposals_before_final``
    Turns before the first final answer that contain a proposal cue (``propose``, ``suggest``,
    ``candidate``, ``how about``, ``let's go with``, case-insensitive).
``turns_to_final``
    1-based turn of the first final answer (a turn containing the termination marker); the
    number of turns plus one when no turn contains it (censored at the cap).
``reached_final``
    1 when some turn contains the termination marker, else 0.
``receiver_rederives``
    1 when, after the first turn with a proposal cue or the marker, the *other* agent writes a
    verification cue (``verify``, ``check``, ``recompute``, ``re-derive``, ``confirm``,
    ``double-check``), else 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.tax.markers import FINAL_MARKER

__all__ = ["FEATURES", "conversation_features", "feature_table"]

FEATURES = ("turns", "words_per_turn", "questions_per_turn", "partner_facts",
            "proposals_before_final", "turns_to_final", "reached_final", "receiver_rederives")
_IDENT = re.compile(r"\b\w*\d\w*\b")
_PROPOSE = re.compile(r"propos|suggest|candidate|how about|let'?s go with", re.IGNORECASE)
_VERIFY = re.compile(r"verif|check|recompute|re-?deriv|confirm", re.IGNORECASE)
_MARKER = re.compile(re.escape(FINAL_MARKER), re.IGNORECASE)


def conversation_features(events: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The conversation-shape features (module docstring) of one paired rollout.

    Parameters
    ----------
    events : sequence of mapping
        Message events in dialogue order, each with ``agent``, ``role`` and ``content``.

    Returns
    -------
    dict of str to float
        One value per name in :data:`FEATURES`; a dialogue without turns gives NaN
        ``words_per_turn`` and ``questions_per_turn`` (no turn to average over) and 0 counts.

    Examples
    --------
    >>> ev = [
    ...     {"agent": "a", "role": "system", "content": "You hold K1 and K2."},
    ...     {"agent": "b", "role": "system", "content": "You hold Q7."},
    ...     {"agent": "a", "role": "assistant", "content": "I hold K1. What is at Q7?"},
    ...     {"agent": "b", "role": "assistant", "content": "Q7 is free; I propose K1 then Q7."},
    ...     {"agent": "a", "role": "assistant", "content": "Let me check. FINAL ANSWER: K1,Q7"},
    ... ]
    >>> f = conversation_features(ev)
    >>> f["turns"], f["questions_per_turn"], f["partner_facts"], f["turns_to_final"]
    (3.0, 0.3333333333333333, 2.0, 3.0)
    >>> f["proposals_before_final"], f["receiver_rederives"]
    (1.0, 1.0)
    """
    views: dict[str, set] = {"a": set(), "b": set()}
    turns: list[tuple[str, str]] = []
    for ev in events:
        agent, role, content = ev["agent"], ev["role"], ev["content"]
        if agent not in ("a", "b"):
            continue
        if role == "system":
            views[agent].update(_IDENT.findall(content))
        elif role == "assistant":
            turns.append((agent, content))
    n = len(turns)
    words = [len(c.split()) for _, c in turns]
    questions = sum(c.count("?") for _, c in turns)
    mentioned: set = set()
    for agent, content in turns:
        other = "b" if agent == "a" else "a"
        own = views[agent]
        mentioned.update((agent, t) for t in _IDENT.findall(content)
                         if t in views[other] and t not in own)
    final_at = next((i for i, (_, c) in enumerate(turns) if _MARKER.search(c)), None)
    upto = turns if final_at is None else turns[:final_at]
    proposals = sum(1 for _, c in upto if _PROPOSE.search(c))
    first = next((i for i, (_, c) in enumerate(turns) if _PROPOSE.search(c) or _MARKER.search(c)),
                 None)
    rederives = 0.0
    if first is not None:
        proposer = turns[first][0]
        rederives = float(any(a != proposer and _VERIFY.search(c) is not None
                              for a, c in turns[first + 1:]))
    return {
        "turns": float(n),
        "words_per_turn": float(np.mean(words)) if n else float("nan"),
        "questions_per_turn": questions / n if n else float("nan"),
        "partner_facts": float(len(mentioned)),
        "proposals_before_final": float(proposals),
        "turns_to_final": float(final_at + 1 if final_at is not None else n + 1),
        "reached_final": float(final_at is not None),
        "receiver_rederives": rederives,
    }


def feature_table(events_by_key: Mapping[str, Sequence[Mapping[str, Any]]]) -> pd.DataFrame:
    """Features of many rollouts: one row per rollout key, one column per feature.

    Parameters
    ----------
    events_by_key : mapping of str to sequence of event mappings

    Returns
    -------
    pandas.DataFrame
        Index ``rollout_key``; columns :data:`FEATURES`.

    Examples
    --------
    >>> t = feature_table({"k1": [{"agent": "a", "role": "assistant", "content": "Why?"}]})
    >>> float(t.loc["k1", "turns"]), float(t.loc["k1", "questions_per_turn"])
    (1.0, 1.0)
    """
    rows = [conversation_features(ev) for ev in events_by_key.values()]
    return pd.DataFrame(rows, index=pd.Index(list(events_by_key), name="rollout_key"),
                        columns=list(FEATURES))
