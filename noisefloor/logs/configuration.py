"""Configuration identity: what a run's tool records about the system under test.

Two runs are re-runs of one configuration only when everything their tool records about the
system under test agrees; runs whose configurations differ are different arms, and nothing
certifies a null contrast between them unless the user declares it. What each format records
(the keys of a configuration, besides the ``model`` and ``protocol`` columns every record has):

=============  ==========================================================================
format         configuration fields
=============  ==========================================================================
tau2-bench     ``agent`` (``info.agent_info.implementation``), ``agent_llm_args``
               (``info.agent_info.llm_args``), ``user`` (``info.user_info.implementation``),
               ``user_llm`` and ``user_llm_args`` (``info.user_info``), ``domain``
               (``info.environment_info.domain_name``); the agent's model is ``model``
inspect_ai     ``task``, ``task_args``, ``solver`` (the plan's steps, each solver and its
               parameters), ``scorers`` (``eval.scorers``: names and options), ``score``
               (the scorer read as the reward), ``generate_config`` (the model's generation
               settings, without the seed); the model is ``model``
tau-bench      ``strategy`` (the agent strategy), ``temperature``, ``user_model``,
               ``user_strategy`` (from run.py's file name); the model is ``model``
own JSONL      nothing beyond ``protocol`` and ``model``
=============  ==========================================================================

The loader (:func:`noisefloor.logs.load_trials`) keeps each record's configuration as a
canonical JSON text in the ``configuration`` column (missing for noisefloor's own records).

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks", section "The noise floor": a null contrast compares
arms that cannot differ by construction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["CONFIGURATION_KEY", "configuration_text", "differing_fields", "parse_configuration",
           "describe_differences"]

#: Key of ``extra`` under which a reader stores the run's configuration (a dict).
CONFIGURATION_KEY = "configuration"


def configuration_text(configuration: Mapping[str, Any] | None) -> str | None:
    """A configuration as canonical JSON (sorted keys, compact), or None when there is none.

    Examples
    --------
    >>> configuration_text({"b": 1, "a": {"y": 2, "x": 1}})
    '{"a":{"x":1,"y":2},"b":1}'
    >>> configuration_text(None) is None
    True
    """
    if configuration is None:
        return None
    return json.dumps(configuration, sort_keys=True, separators=(",", ":"), default=str)


def parse_configuration(text: Any) -> dict[str, Any]:
    """The dict of a ``configuration`` column value (``{}`` when missing).

    Examples
    --------
    >>> parse_configuration('{"agent":"llm_agent"}'), parse_configuration(None)
    ({'agent': 'llm_agent'}, {})
    """
    if not isinstance(text, str) or not text:
        return {}
    value = json.loads(text)
    return value if isinstance(value, dict) else {}


def differing_fields(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The fields on which two configurations differ (a field only one has differs), sorted.

    Examples
    --------
    >>> differing_fields({"agent": "llm_agent", "domain": "retail"},
    ...                  {"agent": "retry_agent", "domain": "retail", "user": "u"})
    ['agent', 'user']
    """
    return sorted(k for k in set(a) | set(b) if a.get(k, None) != b.get(k, None)
                  or (k in a) != (k in b))


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."


def describe_differences(a: Mapping[str, Any], b: Mapping[str, Any], *, name_a: str = "a",
                         name_b: str = "b") -> str:
    """``"field: value_a (name_a) vs value_b (name_b); ..."`` for every differing field.

    Examples
    --------
    >>> describe_differences({"agent": "llm_agent"}, {"agent": "retry_agent"},
    ...                      name_a="runA", name_b="runB")
    'agent: llm_agent (runA) vs retry_agent (runB)'
    """
    parts = []
    for key in differing_fields(a, b):
        va = _short(a[key]) if key in a else "not recorded"
        vb = _short(b[key]) if key in b else "not recorded"
        parts.append(f"{key}: {va} ({name_a}) vs {vb} ({name_b})")
    return "; ".join(parts)
