"""Place published coordination claims against a noise floor.

Each claim lands ``below`` the floor (unresolved: indistinguishable from two runs that cannot
differ), ``inside`` the band between the floor and the envelope, or ``above`` the envelope.
Following the noise-floor paper's reading, *below means unresolved against the floor, never
refuted*: the claim may be true, the evidence cannot tell it from noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

# contrasts between the arms of a log live in noisefloor.floor.arm_contrasts; imported here so that
# ``noisefloor.audit.verdicts.log_contrasts`` (and the others) keep working
from noisefloor.floor.arm_contrasts import (
    BASELINE_PROTOCOL,
    left_out_totals,
    log_contrasts,
    place,
    place_contrasts,
)
from noisefloor.floor.estimate import NoiseFloor
from noisefloor.results import FrozenResult

VERDICTS = ("below", "inside", "above")
COMPARABLE_UNITS = ("pp", "percentage points", "percentage point", "proportion", "fraction")


@dataclass(frozen=True)
class ClaimVerdict(FrozenResult):
    """One claim placed against the floor.

    Attributes
    ----------
    paper, benchmark, reported : str
        Who claimed it, on what, and the text as published.
    effect_low, effect_high : float
        The claimed range (proportions); ``effect_low`` NaN for an upper bound only.
    effect : float
        The value placed, sign kept: of a range, the end farthest from zero (for a gain the
        upper end ``effect_high``; for a loss, e.g. -10 to -2 pp, the lower end -10 pp); of a
        single number or an upper bound only, ``effect_high``. The verdict and ``ratio`` use
        its absolute value.
    unit : str
        Unit of the published figure (``"pp"`` for percentage points).
    verdict : str
        ``"below"`` (effect < floor), ``"inside"`` (floor <= effect <= envelope) or ``"above"``
        (effect > envelope).
    ratio : float
        ``|effect| / floor``: how many floors the claim spans.
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


@dataclass(frozen=True)
class AuditResult(FrozenResult):
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

    _frame_field = "verdicts"

    floor: float
    envelope: float
    verdicts: tuple[ClaimVerdict, ...]
    counts: dict
    noise_floor: NoiseFloor | None = field(default=None, repr=False, compare=False)

    # hand-written: verdicts are published as 'claims', the NoiseFloor is left out
    def to_dict(self) -> dict:
        """``floor``, ``envelope``, ``counts`` and ``claims`` (a list of verdict dicts)."""
        return {"floor": self.floor, "envelope": self.envelope, "counts": dict(self.counts),
                "claims": [v.to_dict() for v in self.verdicts]}


def audit(claims: pd.DataFrame, floor: NoiseFloor | float, envelope: float | None = None) -> AuditResult:
    """Place each claim below, inside or above the noise floor.

    Parameters
    ----------
    claims : pandas.DataFrame
        Columns ``paper, effect_high, unit`` and optionally ``benchmark, reported,
        effect_low`` (proportions), as returned by :func:`noisefloor.audit.published.read_claims`.
    floor : NoiseFloor or float
        A :class:`~noisefloor.floor.estimate.NoiseFloor` (its floor and envelope are used), or the
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
        If the floor is NaN or not positive, the envelope is missing or below the floor, a
        claim lacks ``effect_high``, or a claim in percentage points or proportions lies
        outside [-1, 1] (beyond 100 pp: a unit slip, named with the claim and its line).

    Notes
    -----
    A claim is placed by the distance from zero of its most favourable reading: for a range,
    the end farthest from zero. For a gain that is the upper end (the noise-floor paper's "a
    range uses its upper end"); a loss is as far from noise as a gain of the same size, so a
    claimed loss "-10 to -2 pp" is placed at 10 pp (``effect = -0.10``, sign kept for
    display), not at 2 pp, and a range straddling zero, "-3 to +8 pp", at 8 pp. A single
    number or an upper bound only (``effect_low`` NaN) is placed by ``|effect_high|``. A unit
    other than percentage points is placed on the same numeric scale but flagged
    ``comparable=False``.

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
    >>> loss = pd.DataFrame({"paper": ["Z"], "effect_low": [-0.10], "effect_high": [-0.02],
    ...                      "unit": ["pp"]})
    >>> v = audit(loss, 0.05, 0.08).verdicts[0]
    >>> v.effect, v.verdict, v.ratio
    (-0.1, 'above', 2.0)
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
        unit = str(rec.get("unit", ""))
        comparable = unit.strip().lower() in COMPARABLE_UNITS
        low = rec.get("effect_low", math.nan)
        # the end farthest from zero, sign kept (a tie keeps the upper end)
        effect = high
        if low is not None and not math.isnan(float(low)) and abs(float(low)) > abs(high):
            effect = float(low)
        for name, value in (("effect_high", high), ("effect_low", low)):
            # a gap of success rates lies in [-100, 100] pp; 500 pp is a unit slip (a
            # percentage given with unit 'proportion') that would be placed far "above"
            if comparable and value is not None and abs(float(value)) > 1:
                line, source = rec.get("line"), claims.attrs.get("source")
                where = ""
                if line is not None and line == line:
                    where = f" ({source}:{int(line)})" if source else f" (line {int(line)})"
                raise ValueError(
                    f"claim {rec['paper']!r}{where}: field {name!r}: {float(value) * 100:g} pp is "
                    f"outside [-100, 100] pp, impossible for a difference of success rates in "
                    f"unit {unit!r} (a percentage written as a proportion, or the reverse?)")
        flag = "" if comparable else (f"unit is {unit!r}, not percentage points: placed on the "
                                      "same numeric scale, not directly comparable")
        verdicts.append(ClaimVerdict(
            paper=str(rec["paper"]), benchmark=str(rec.get("benchmark", "") or ""),
            reported=str(rec.get("reported", "") or ""),
            effect_low=float(low) if low is not None else math.nan, effect_high=high,
            effect=effect, unit=unit, verdict=place(abs(effect), f, env), ratio=abs(effect) / f,
            comparable=comparable, flag=flag,
        ))
    counts = {v: sum(1 for x in verdicts if x.verdict == v) for v in VERDICTS}
    return AuditResult(f, env, tuple(verdicts), counts, result_floor)

__all__ = ["BASELINE_PROTOCOL", "COMPARABLE_UNITS", "VERDICTS", "AuditResult", "ClaimVerdict",
           "audit", "left_out_totals", "log_contrasts", "place", "place_contrasts"]
