"""Matched spend: the solo control's token cap from the pair rollouts of the same task.

With ``solo_budget = "pair-median"`` the runner runs a plan's pair rollouts first, then each
solo rollout under a token cap (:func:`harness.runner.dialogue.run_rollout`): the median
token count (input + output, over every request) of the finished pair rollouts of the same
task, difficulty and prompt variant that the solo's model is a member of. The collaboration
tax measured this way compares a pair and a solo control that spend the same tokens
(the paper's tax is at unequal spend: a pair's two agents each read the dialogue).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from harness.runner.dialogue import RolloutOutcome
from harness.runner.keys import RolloutSpec

#: Values of ``RunSettings.solo_budget`` (``--solo-budget``).
SOLO_BUDGETS = ("none", "pair-median")
#: ``extra.error`` and termination of a solo that has no pair budget to be held to.
NO_PAIR_BUDGET = "no_pair_budget"


def _group(spec_or_record: Any) -> tuple[str, int, str]:
    if isinstance(spec_or_record, RolloutSpec):
        return spec_or_record.task, spec_or_record.difficulty, spec_or_record.variant
    extra = spec_or_record["extra"]
    return extra["task"], extra["difficulty"], extra["prompt_variant"]


def pair_median_caps(solos: Sequence[RolloutSpec], records: Iterable[dict[str, Any]]
                     ) -> dict[str, int | None]:
    """The token cap of each solo rollout: the median spend of its model's pair rollouts.

    Parameters
    ----------
    solos : sequence of RolloutSpec
        Solo rollouts to cap.
    records : iterable of dict
        Trial records of the run (of its current settings); pair records with a reward and
        known usage (``extra.tokens_in``, ``extra.tokens_out``) count.

    Returns
    -------
    dict
        ``{rollout key: cap}``; the cap is the median of ``tokens_in + tokens_out`` over the
        pair rollouts of the same task, difficulty and prompt variant in which the solo's
        model is agent a or b, rounded down; None when there is no such rollout.

    Examples
    --------
    >>> spec = RolloutSpec("csp_sudoku4", 0, 0, "solo", "m", None, None, 0, "baseline", 0, "")
    >>> def pair(tokens, models=("m", "m")):
    ...     return {"reward": 1.0, "extra": {"mode": "pair", "task": "csp_sudoku4",
    ...             "difficulty": 0, "prompt_variant": "baseline", "model_a": models[0],
    ...             "model_b": models[1], "tokens_in": tokens - 10, "tokens_out": 10}}
    >>> pair_median_caps([spec], [pair(900), pair(1201), pair(1300), pair(50, ("x", "y"))])
    {'...': 1201}
    """
    spend: dict[tuple[tuple[str, int, str], str], list[int]] = {}
    for r in records:
        extra = r["extra"]
        if extra["mode"] != "pair" or r["reward"] is None:
            continue
        tin, tout = extra.get("tokens_in"), extra.get("tokens_out")
        if not isinstance(tin, int) or not isinstance(tout, int):
            continue
        for model in {extra["model_a"], extra["model_b"]}:
            spend.setdefault((_group(r), model), []).append(tin + tout)
    out: dict[str, int | None] = {}
    for s in solos:
        values = spend.get((_group(s), s.model_a))
        out[s.key] = int(statistics.median(values)) if values else None
    return out


def no_budget_outcome(spec: RolloutSpec) -> RolloutOutcome:
    """The outcome of a solo rollout whose pair rollouts give no budget (none finished with
    usage): an infrastructure error, run again with ``retry_errors`` once the pairs are."""
    return RolloutOutcome(
        reward=None, termination_reason=f"infrastructure_error:{NO_PAIR_BUDGET}",
        infrastructure_error=True, turns=0, tokens_in=0, tokens_out=0, cost_usd=0.0,
        latency_s=0.0, retries=0, extraction="none", answer=None,
        error=f"no finished pair rollout of {spec.task} (difficulty {spec.difficulty}, prompt "
              f"variant {spec.variant}) with {spec.model_a} and token usage: the solo's "
              "pair-median token cap is undefined", events=())
