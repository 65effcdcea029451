"""Place published coordination claims against a noise floor.

Each claim lands ``below`` the floor (unresolved: indistinguishable from two runs that cannot
differ), ``inside`` the band between the floor and the envelope, or ``above`` the envelope.
Following the noise-floor paper's reading, *below means unresolved against the floor, never
refuted*: the claim may be true, the evidence cannot tell it from noise.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import pandas as pd

from noisefloor.floor import NoiseFloor

VERDICTS = ("below", "inside", "above")
COMPARABLE_UNITS = ("pp", "percentage points", "percentage point", "proportion", "fraction")


@dataclass(frozen=True)
class ClaimVerdict:
    """One claim placed against the floor.

    Attributes
    ----------
    paper, benchmark, reported : str
        Who claimed it, on what, and the text as published.
    effect_low, effect_high : float
        The claimed range (proportions); ``effect_low`` NaN for an upper bound only.
    effect : float
        The value placed: the upper end of a range (``effect_high``), in absolute value.
    unit : str
        Unit of the published figure (``"pp"`` for percentage points).
    verdict : str
        ``"below"`` (effect < floor), ``"inside"`` (floor <= effect <= envelope) or ``"above"``
        (effect > envelope).
    ratio : float
        ``effect / floor``: how many floors the claim spans.
    comparable : bool
        False when the unit is not percentage points: the claim is placed, but flagged.
    flag : str
        Why the claim is flagged; empty otherwise.
    """

    paper: str
    benchmark: str
    reported: str
    effect_low: float
    effect_high: float
    effect: float
    unit: str
    verdict: str
    ratio: float
    comparable: bool
    flag: str = ""

    def to_dict(self) -> dict:
        """Plain-dict view."""
        return asdict(self)


@dataclass(frozen=True)
class AuditResult:
    """Result of :func:`audit`.

    Attributes
    ----------
    floor, envelope : float
        The thresholds used (proportions).
    verdicts : tuple of ClaimVerdict
        One per claim, in input order.
    counts : dict
        Number of claims per verdict (``below``, ``inside``, ``above``).
    noise_floor : NoiseFloor or None
        The floor result, when one was passed.
    """

    floor: float
    envelope: float
    verdicts: tuple[ClaimVerdict, ...]
    counts: dict
    noise_floor: NoiseFloor | None = field(default=None, repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per claim with every :class:`ClaimVerdict` field."""
        return pd.DataFrame([v.to_dict() for v in self.verdicts])

    def to_dict(self) -> dict:
        """``floor``, ``envelope``, ``counts`` and ``claims`` (a list of verdict dicts)."""
        return {"floor": self.floor, "envelope": self.envelope, "counts": dict(self.counts),
                "claims": [v.to_dict() for v in self.verdicts]}


def place(effect: float, floor: float, envelope: float) -> str:
    """Verdict for one effect (proportion, non-negative) against a floor and an envelope.

    Examples
    --------
    >>> place(0.06, 0.118, 0.153), place(0.135, 0.118, 0.153), place(0.22, 0.118, 0.153)
    ('below', 'inside', 'above')
    """
    if effect < floor:
        return "below"
    if effect <= envelope:
        return "inside"
    return "above"


def audit(claims: pd.DataFrame, floor: NoiseFloor | float, envelope: float | None = None) -> AuditResult:
    """Place each claim below, inside or above the noise floor.

    Parameters
    ----------
    claims : pandas.DataFrame
        Columns ``paper, effect_high, unit`` and optionally ``benchmark, reported,
        effect_low`` (proportions), as returned by :func:`noisefloor.published.read_claims`.
    floor : NoiseFloor or float
        A :class:`~noisefloor.floor.NoiseFloor` (its floor and envelope are used), or the
        floor as a proportion.
    envelope : float, optional
        Required when ``floor`` is a float; must be >= floor.

    Returns
    -------
    AuditResult
        Verdicts in input order and counts per verdict.

    Raises
    ------
    ValueError
        If the floor is NaN or not positive, the envelope is missing or below the floor, or
        a claim lacks ``effect_high``.

    Notes
    -----
    A range is placed by its upper end (the most favourable reading of the claim); a negative
    effect by its magnitude. A unit other than percentage points is placed on the same
    numeric scale but flagged ``comparable=False``.

    References
    ----------
    Kaliyev & Maryanskyy (2026), section "Where published gains sit relative to the floor":
    seven of ten claims below the clean-contrast pooled upper CI, one inside the envelope.

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"paper": ["X", "Y"], "effect_high": [0.06, 0.2], "unit": ["pp", "pp"]})
    >>> r = audit(c, 0.118, 0.153)
    >>> [v.verdict for v in r.verdicts], r.counts
    (['below', 'above'], {'below': 1, 'inside': 0, 'above': 1})
    """
    if isinstance(floor, NoiseFloor):
        result_floor = floor
        f, env = floor.floor, floor.envelope
    else:
        result_floor = None
        f = float(floor)
        if envelope is None:
            raise ValueError("envelope must be given when floor is a number")
        env = float(envelope)
    if math.isnan(f) or f <= 0:
        raise ValueError(f"the floor must be a positive proportion, got {f}; a NaN floor has no "
                         "informative null pairs to place claims against")
    if math.isnan(env) or env < f:
        raise ValueError(f"the envelope ({env}) must be a number >= the floor ({f})")
    for col in ("paper", "effect_high", "unit"):
        if col not in claims.columns:
            raise ValueError(f"claims lacks column {col!r}; columns are {list(claims.columns)}")
    verdicts = []
    for rec in claims.to_dict(orient="records"):
        high = float(rec["effect_high"])
        if math.isnan(high):
            raise ValueError(f"claim {rec['paper']!r} has no effect_high")
        effect = abs(high)
        unit = str(rec.get("unit", ""))
        comparable = unit.strip().lower() in COMPARABLE_UNITS
        flag = "" if comparable else (f"unit is {unit!r}, not percentage points: placed on the "
                                      "same numeric scale, not directly comparable")
        low = rec.get("effect_low", math.nan)
        verdicts.append(ClaimVerdict(
            paper=str(rec["paper"]), benchmark=str(rec.get("benchmark", "") or ""),
            reported=str(rec.get("reported", "") or ""),
            effect_low=float(low) if low is not None else math.nan, effect_high=high,
            effect=effect, unit=unit, verdict=place(effect, f, env), ratio=effect / f,
            comparable=comparable, flag=flag,
        ))
    counts = {v: sum(1 for x in verdicts if x.verdict == v) for v in VERDICTS}
    return AuditResult(f, env, tuple(verdicts), counts, result_floor)
