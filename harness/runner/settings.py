"""What a tax run is: its settings (:class:`RunSettings`) and its plan (:func:`plan_rollouts`).

The settings are validated when they are made (before any model call); the plan is every
(prompt variant, task, instance, repeat, configuration) of them, in a fixed order, each with
its rollout key (:mod:`harness.runner.keys`). :func:`harness.runner.run.run_tax` runs a plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.base import SOLO_VIEWS
from harness.runner.budget import SOLO_BUDGETS
from harness.runner.keys import (
    BASELINE,
    MODE_CHOICES,
    RolloutSpec,
    settings_id,
)
from harness.runner.variants import load_variants
from noisefloor.results import FrozenResult
from noisefloor.stats.validation import ParameterError, literal

#: Version of the dialogue protocol (prompts, relaying, marker rule); part of every key.
PROTOCOL_VERSION = 1
STARTERS = ("a", "b", "alternate")


@dataclass(frozen=True)
class RunSettings(FrozenResult):
    """What to run (every field that decides the plan or the outcome of a rollout).

    Attributes
    ----------
    tasks : tuple of str
        Registered task names.
    models : tuple of str, default ()
        Models run in solo, split_solo and homogeneous pairs.
    pair_models : tuple of (str, str), default ()
        Mixed pairs; each runs in both slot orders (needs ``"pair"`` in ``modes``). With
        ``"solo"`` in ``modes`` the members' solo rollouts run too (the game needs them).
    modes : tuple of str, default ("solo", "pair")
        Any of ``solo``, ``pair``, ``split_solo``.
    rollouts : int, default 1
        Instances per task: instance seeds ``seed, seed + 1, ..., seed + rollouts - 1``.
    repeats : int, default 1
        Rollouts of each instance and configuration (the record's ``trial``).
    difficulty : int, default 1
    seed : int, default 0
        The run's seed (first instance seed; the record's ``seed``).
    turn_cap : int, default 12
        Most assistant messages per rollout.
    temperature : float or None, default None
        Sent with every agent request when set.
    max_tokens : int or None, default None
        Sent with every agent request when set.
    extractor_model : str or None, default None
    variants : tuple of str, default ("baseline",)
        Prompt variants; each multiplies the plan.
    variants_file : str or None, default None
        TOML file of variants (default: the shipped one).
    starter : {"a", "b", "alternate"}, default "a"
        Who opens a pair's dialogue; ``alternate`` alternates with instance and repeat.
    solo_view : {"canonical", "both"}, default "canonical"
        What the solo control reads (:meth:`harness.base.Task.solo_prompt`): the merged
        instance in one canonical form in every family, or both views in their own
        conventions. Recorded in every record's ``extra.solo_view``.
    solo_budget : {"none", "pair-median"}, default "none"
        Matched spend: ``pair-median`` runs the pairs first, then each solo under the token
        cap :func:`harness.runner.budget.pair_median_caps` (in ``extra.token_cap``).
    """

    tasks: tuple[str, ...]
    models: tuple[str, ...] = ()
    pair_models: tuple[tuple[str, str], ...] = ()
    modes: tuple[str, ...] = ("solo", "pair")
    rollouts: int = 1
    repeats: int = 1
    difficulty: int = 1
    seed: int = 0
    turn_cap: int = 12
    temperature: float | None = None
    max_tokens: int | None = None
    extractor_model: str | None = None
    variants: tuple[str, ...] = (BASELINE,)
    variants_file: str | None = None
    starter: str = "a"
    solo_view: str = "canonical"
    solo_budget: str = "none"

    def __post_init__(self) -> None:
        for name in ("tasks", "models", "modes", "variants"):
            value = getattr(self, name)
            object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(value))
        object.__setattr__(self, "pair_models", tuple(tuple(p) for p in self.pair_models))
        if not self.tasks:
            raise ValueError("tasks: give at least one task")
        if not self.models and not self.pair_models:
            raise ValueError("models: give at least one model (or pair_models)")
        bad = [m for m in self.modes if m not in MODE_CHOICES]
        if bad or not self.modes:
            raise ValueError(f"modes must be among {MODE_CHOICES}, got {list(self.modes)}")
        if self.pair_models and "pair" not in self.modes:
            raise ValueError("pair_models needs 'pair' in modes")
        for pair in self.pair_models:
            if len(pair) != 2 or not all(isinstance(m, str) and m for m in pair):
                raise ValueError(f"pair_models: each pair is two model names, got {pair!r}")
        for name, low in (("rollouts", 1), ("repeats", 1), ("turn_cap", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if self.difficulty not in (0, 1, 2) or isinstance(self.difficulty, bool):
            raise ValueError(f"difficulty must be one of (0, 1, 2), got {self.difficulty!r}")
        if self.solo_view not in SOLO_VIEWS:
            raise ValueError(f"solo_view must be one of {SOLO_VIEWS}, got {self.solo_view!r}")
        if self.solo_budget not in SOLO_BUDGETS:
            raise ValueError(f"solo_budget must be one of {SOLO_BUDGETS}, "
                             f"got {self.solo_budget!r}")
        if self.solo_budget != "none" and not {"solo", "pair"} <= set(self.modes):
            raise ValueError(f"solo_budget {self.solo_budget!r} needs 'solo' and 'pair' in "
                             f"modes, got {list(self.modes)}")
        if self.starter not in STARTERS:
            raise ValueError(f"starter must be one of {STARTERS}, got {self.starter!r}")
        if len(set(self.variants)) != len(self.variants) or not self.variants:
            raise ValueError(f"variants must be distinct names, got {list(self.variants)}")
        t = self.temperature
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))
                              or not 0 <= t <= MAX_TEMPERATURE):
            # NaN and infinity fail here: every request would be refused by the endpoint
            raise ParameterError("temperature", f"a finite number in [0, {MAX_TEMPERATURE:g}]", t)
        if self.max_tokens is not None and (isinstance(self.max_tokens, bool)
                                            or not isinstance(self.max_tokens, int)
                                            or not 1 <= self.max_tokens <= MAX_TOKENS):
            raise ParameterError("max_tokens", f"an int in [1, {MAX_TOKENS:,}]",
                                 self.max_tokens)
        planned = self.planned_size
        if planned > MAX_PLANNED_ROLLOUTS:
            raise ParameterError(
                "rollouts", "", self.rollouts,
                message=literal(f"the plan holds {planned:,} rollouts (tasks x rollouts x "
                                f"repeats x configurations x variants), more than the "
                                f"{MAX_PLANNED_ROLLOUTS:,} one run directory serves; lower ")
                + "{rollouts} or {repeats}, or split the plan over several directories")

    @property
    def planned_size(self) -> int:
        """Rollouts in the plan (before sharding), computed without building it."""
        per_model = (("solo" in self.modes) + ("pair" in self.modes)
                     + 2 * ("split_solo" in self.modes))
        configs = per_model * len(self.models) + sum(1 if a == b else 2
                                                     for a, b in self.pair_models)
        return len(self.variants) * len(self.tasks) * self.rollouts * self.repeats * configs

    @property
    def all_models(self) -> tuple[str, ...]:
        """Every model the plan calls, the extractor included, first use first."""
        names = list(self.models) + [m for p in self.pair_models for m in p]
        if self.extractor_model:
            names.append(self.extractor_model)
        return tuple(dict.fromkeys(names))

    @property
    def pair_members_without_solo(self) -> tuple[str, ...]:
        """Members of the mixed pairs not in ``models``: their solo rollouts (the game's
        ``v({i})``) are planned with the pairs when ``"solo"`` is in ``modes``."""
        return tuple(dict.fromkeys(m for p in self.pair_models for m in p
                                   if m not in self.models))

    def outcome_settings(self) -> dict[str, Any]:
        """The settings (besides the variant's text) that change a rollout's outcome."""
        return {"protocol_version": PROTOCOL_VERSION, "turn_cap": self.turn_cap,
                "temperature": self.temperature, "max_tokens": self.max_tokens,
                "extractor_model": self.extractor_model, "starter": self.starter,
                # only when not the default, so directories run before the option resume
                **({"solo_view": self.solo_view} if self.solo_view != "canonical" else {}),
                **({"solo_budget": self.solo_budget} if self.solo_budget != "none" else {})}

    # hand-written: a model pair is written as one "a+b" string
    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (each model pair as ``"a+b"``)."""
        out = super().to_dict()
        out["pair_models"] = ["+".join(p) for p in self.pair_models]
        return out


def variant_texts(settings: RunSettings) -> dict[str, str]:
    """The addition of each of ``settings.variants``.

    Raises
    ------
    ValueError
        If a variant is not defined in the variants file (the message lists the defined ones).
    """
    defined = load_variants(settings.variants_file)
    missing = [v for v in settings.variants if v not in defined]
    if missing:
        raise ValueError(f"unknown prompt variant(s) {missing}; "
                         f"{settings.variants_file or 'the default variants file'} defines "
                         f"{sorted(defined)}")
    return {v: defined[v] for v in settings.variants}


def variant_ids(settings: RunSettings, texts: dict[str, str]) -> dict[str, str]:
    """Each prompt variant's settings id: the run's outcome settings plus the variant's text.

    Parameters
    ----------
    settings : RunSettings
    texts : dict
        Variant name -> text (:func:`variant_texts`).

    Returns
    -------
    dict of str to str
        Variant name -> :func:`~harness.runner.keys.settings_id`; a rollout's key carries it, and
        the run directory's ``run.json`` records it, so a changed variant text is noticed.
    """
    base = settings.outcome_settings()
    return {v: settings_id({**base, "variant_text": texts[v]}) for v in settings.variants}


#: Most rollouts one run directory serves (its journal would hold about 10 GB).
MAX_PLANNED_ROLLOUTS = 10_000_000
#: Highest sampling temperature accepted (OpenAI's API takes [0, 2]; some servers more).
MAX_TEMPERATURE = 100.0
#: Highest max_tokens accepted.
MAX_TOKENS = 10_000_000


def plan_rollouts(settings: RunSettings, texts: dict[str, str] | None = None
                  ) -> list[RolloutSpec]:
    """Every rollout of the settings, in a fixed order.

    Parameters
    ----------
    settings : RunSettings
    texts : dict, optional
        Variant texts (default :func:`variant_texts`).

    Returns
    -------
    list of RolloutSpec

    Raises
    ------
    KeyError
        If a task is not registered.

    Examples
    --------
    >>> settings = RunSettings(tasks=("csp_sudoku4",), models=("m",), pair_models=(("x", "y"),),
    ...                        modes=("solo", "pair", "split_solo"), rollouts=2)
    >>> plan = plan_rollouts(settings)
    >>> len(plan), sorted({(s.protocol, s.model) for s in plan})
    (16, [('pair', 'm'), ('pair', 'x+y'), ('pair', 'y+x'), ('solo', 'm'), ('solo', 'x'), ('solo', 'y'), ('split_solo_a', 'm'), ('split_solo_b', 'm')])
    """
    from harness.registry import get_task

    texts = variant_texts(settings) if texts is None else texts
    ids = variant_ids(settings, texts)
    for name in settings.tasks:
        get_task(name)
    def configs(starter: str) -> list[tuple[str, str, str | None, str | None]]:
        out: list[tuple[str, str, str | None, str | None]] = []
        for model in settings.models:
            if "solo" in settings.modes:
                out.append(("solo", model, None, None))
            if "pair" in settings.modes:
                out.append(("pair", model, model, starter))
            if "split_solo" in settings.modes:
                out.append(("split_solo_a", model, None, None))
                out.append(("split_solo_b", model, None, None))
        if "solo" in settings.modes:  # a mixed pair's game needs v({i})
            for model in settings.pair_members_without_solo:
                out.append(("solo", model, None, None))
        for a, b in settings.pair_models:
            for x, y in ((a, b), (b, a)) if a != b else ((a, b),):
                out.append(("pair", x, y, starter))
        return out

    by_starter = {starter: configs(starter) for starter in ("a", "b")}
    difficulty, seed = settings.difficulty, settings.seed
    plan = []
    for variant in settings.variants:
        for task in settings.tasks:
            for i in range(settings.rollouts):
                instance_seed = settings.seed + i
                for repeat in range(settings.repeats):
                    starter = settings.starter
                    if starter == "alternate":
                        starter = "ab"[(i + repeat) % 2]
                    for mode, ma, mb, st in by_starter[starter]:
                        plan.append(RolloutSpec(task, difficulty, instance_seed, mode, ma, mb,
                                                st, repeat, variant, seed, ids[variant]))
    keys = [s.key for s in plan]
    if len(set(keys)) != len(keys):
        raise ValueError("the plan names a rollout twice (a model listed twice, or a pair "
                         "given in both orders)")
    return plan
