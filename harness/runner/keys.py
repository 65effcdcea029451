"""Rollout specifications, their keys, and the deterministic shard partition.

A rollout is one dialogue (or one solo attempt) of one task instance by one configuration.
Its key is the SHA-256 of a canonical JSON object of everything that names it and every run
setting that changes its outcome, so a journal can tell finished work from new work and two
machines can split the keys without talking to each other.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, overload

import orjson

from noisefloor.results import FrozenResult

#: Modes as recorded in ``protocol`` / ``extra.mode``; ``split_solo`` runs as both views.
MODES = ("solo", "pair", "split_solo_a", "split_solo_b")
#: What ``--modes`` accepts.
MODE_CHOICES = ("solo", "pair", "split_solo")
#: The prompt variant of an unchanged system prompt.
BASELINE = "baseline"


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: the byte string that is hashed.

    Examples
    --------
    >>> canonical_json({"b": 1, "a": [1.5, None]})
    '{"a":[1.5,null],"b":1}'
    """
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def settings_id(outcome_settings: dict[str, Any]) -> str:
    """First 16 hex digits of the SHA-256 of the outcome-changing settings.

    Examples
    --------
    >>> settings_id({"turn_cap": 12}) == settings_id({"turn_cap": 12})
    True
    >>> settings_id({"turn_cap": 12}) == settings_id({"turn_cap": 13})
    False
    """
    return hashlib.sha256(canonical_json(outcome_settings).encode()).hexdigest()[:16]


class _RolloutKey:
    """``RolloutSpec.key``: hex SHA-256 of the canonical JSON of every field (the rollout key).

    Computed on first use and kept in the instance (like :func:`functools.cached_property`,
    without its per-access lock on Python 3.11, which costs a second per 100,000 keys).

    Examples
    --------
    >>> spec = RolloutSpec("csp_sudoku4", 1, 0, "pair", "m", "m", "a", 0, "baseline", 0,
    ...                    "0" * 16)
    >>> len(spec.key), spec.key == RolloutSpec(**{**spec.to_dict(), "repeat": 1}).key
    (64, False)
    >>> import hashlib
    >>> spec.key == hashlib.sha256(canonical_json(spec.to_dict()).encode()).hexdigest()
    True
    """

    @overload
    def __get__(self, spec: None, owner: Any = None) -> _RolloutKey: ...

    @overload
    def __get__(self, spec: RolloutSpec, owner: Any = None) -> str: ...

    def __get__(self, spec: RolloutSpec | None, owner: Any = None) -> str | _RolloutKey:
        if spec is None:  # looked up on the class: the descriptor itself
            return self
        fields = spec.__dict__
        if len(fields) != len(_FIELDS):  # asdict deep-copies: slow
            fields = {name: fields[name] for name in _FIELDS}
        key = hashlib.sha256(orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)).hexdigest()
        spec.__dict__["key"] = key  # found before this (non-data) descriptor from now on
        return key


@dataclass(frozen=True, init=False)
class RolloutSpec(FrozenResult):
    """What one rollout is.

    Attributes
    ----------
    task : str
        Registered task name.
    difficulty : int
        0, 1 or 2.
    instance_seed : int
        Seed of the task instance.
    mode : str
        One of :data:`MODES`.
    model_a : str
        Model of agent ``a`` (the only agent in solo and split_solo).
    model_b : str or None
        Model of agent ``b``; None for solo and split_solo.
    started_by : str or None
        ``"a"`` or ``"b"``: who speaks first in a pair; None otherwise.
    repeat : int
        Repeat index (the record's ``trial``), >= 0.
    variant : str
        Prompt variant name (``"baseline"`` when unchanged).
    seed : int
        The run's seed.
    settings : str
        :func:`settings_id` of the run's outcome-changing settings.
    """

    task: str
    difficulty: int
    instance_seed: int
    mode: str
    model_a: str
    model_b: str | None
    started_by: str | None
    repeat: int
    variant: str
    seed: int
    settings: str

    #: The rollout key (hex SHA-256 of the canonical JSON of the fields), computed once.
    key = _RolloutKey()

    def __init__(self, task: str, difficulty: int, instance_seed: int, mode: str, model_a: str,
                 model_b: str | None, started_by: str | None, repeat: int, variant: str,
                 seed: int, settings: str) -> None:
        # written by hand: a plan builds 10^5 and more of these on every resume, and the
        # generated frozen __init__ (one object.__setattr__ per field) costs three times this
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if (mode == "pair") != (model_b is not None):
            raise ValueError(f"model_b must be set exactly for mode 'pair', got mode "
                             f"{mode!r} with model_b={model_b!r}")
        if (mode == "pair") != (started_by in ("a", "b")):
            raise ValueError(f"started_by must be 'a' or 'b' for a pair and None otherwise, "
                             f"got {started_by!r} for mode {mode!r}")
        fields = self.__dict__  # the fields in their declared order (asdict, the key)
        fields["task"] = task
        fields["difficulty"] = difficulty
        fields["instance_seed"] = instance_seed
        fields["mode"] = mode
        fields["model_a"] = model_a
        fields["model_b"] = model_b
        fields["started_by"] = started_by
        fields["repeat"] = repeat
        fields["variant"] = variant
        fields["seed"] = seed
        fields["settings"] = settings

    @property
    def protocol(self) -> str:
        """The record's ``protocol``: the mode, plus ``+variant`` unless baseline.

        Examples
        --------
        >>> RolloutSpec("t", 1, 0, "solo", "m", None, None, 0, "all_four", 0, "").protocol
        'solo+all_four'
        """
        return self.mode if self.variant == BASELINE else f"{self.mode}+{self.variant}"

    @property
    def model(self) -> str:
        """The record's ``model``: the model, or ``"A+B"`` for a mixed pair (slot order).

        Examples
        --------
        >>> RolloutSpec("t", 1, 0, "pair", "big", "small", "a", 0, "baseline", 0, "").model
        'big+small'
        >>> RolloutSpec("t", 1, 0, "pair", "big", "big", "a", 0, "baseline", 0, "").model
        'big'
        """
        if self.model_b is None or self.model_b == self.model_a:
            return self.model_a
        return f"{self.model_a}+{self.model_b}"

    @property
    def task_id(self) -> str:
        """The record's ``task_id``: ``"<task>:<instance seed>"``."""
        return f"{self.task}:{self.instance_seed}"


_FIELDS = tuple(RolloutSpec.__dataclass_fields__)


def parse_shard(text: str) -> tuple[int, int]:
    """Read ``"i/n"`` (1 <= i <= n) as ``(i, n)``.

    Raises
    ------
    ValueError
        If the text is not of that form.

    Examples
    --------
    >>> parse_shard("2/3")
    (2, 3)
    >>> parse_shard("0/3")
    Traceback (most recent call last):
    ...
    ValueError: shard must be 'i/n' with 1 <= i <= n, got '0/3'
    """
    try:
        i, n = (int(part) for part in str(text).split("/"))
    except ValueError:
        i, n = 0, 0
    if not 1 <= i <= n:
        raise ValueError(f"shard must be 'i/n' with 1 <= i <= n, got {text!r}")
    return i, n


def in_shard(key: str, shard: tuple[int, int] | None) -> bool:
    """Whether rollout ``key`` belongs to shard ``(i, n)``: ``int(key, 16) mod n == i - 1``.

    Examples
    --------
    >>> keys = [f"{k:064x}" for k in range(6)]
    >>> [k[-1] for k in keys if in_shard(k, (2, 3))]
    ['1', '4']
    >>> all(in_shard(k, None) for k in keys)
    True
    """
    if shard is None:
        return True
    i, n = shard
    return int(key, 16) % n == i - 1
