"""Quantities of the CSP tasks: unit conversion with pint, writing and reading amounts.

Unit conversion uses pint's default registry (US customary ounce, pound, fluid ounce and cup:
1 oz = 28.349523125 g, 1 lb = 0.45359237 kg, 1 US fl oz = 29.5735295625 ml, 1 US cup = 8 US fl
oz, all exact by definition, NIST Handbook 44 appendix C). The tasks live in
:mod:`harness.tasks.csp.recipe` (recipe) and :mod:`harness.tasks.csp.optimisation` (knapsack,
budget).
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=1)
def ureg():
    """The shared pint ``UnitRegistry`` (built once, on first use)."""
    import pint  # deferred: importing pint takes about 0.14 s, not needed to list tasks

    return pint.UnitRegistry()


def convert(value: float, src: str, dst: str) -> float:
    """``value`` in unit ``src`` expressed in unit ``dst`` (pint unit names).

    Examples
    --------
    >>> round(convert(1, "pound", "gram"), 5)
    453.59237
    """
    return float(ureg().Quantity(value, src).to(dst).magnitude)


def parse_quantity(text: str) -> tuple[float, str] | None:
    """Read ``'250 g'``, ``'8.8 oz'``, ``'1.5 cups'``, ``'8 fl oz'`` into (grams, "g") for a mass
    or (millilitres, "ml") for a volume; ``None`` if it is not a mass or a volume.

    Examples
    --------
    >>> grams_or_ml, unit = parse_quantity("8 fl oz")
    >>> round(grams_or_ml, 7), unit
    (236.5882365, 'ml')
    >>> parse_quantity("3 metres") is None
    True
    """
    import pint  # deferred, as in ureg()

    t = re.sub(r"\bfl\.?\s*oz\b", "floz", text.strip(), flags=re.IGNORECASE)
    if not re.fullmatch(r"\s*\d+(?:\.\d+)?\s*[A-Za-z][A-Za-z ._]*", t):
        return None
    try:
        q = ureg().Quantity(t)
        if q.check("[mass]"):
            return float(q.to("gram").magnitude), "g"
        if q.check("[volume]"):
            return float(q.to("milliliter").magnitude), "ml"
    except (pint.errors.PintError, ValueError, TypeError, AttributeError, AssertionError):
        return None
    return None


def imperial_text(value: float, unit: str) -> str:
    """A canonical g/ml amount in US customary units, two decimals: oz or lb for a mass,
    fl oz or cups for a volume."""
    if unit == "g":
        oz = convert(value, "gram", "ounce")
        return f"{oz:.2f} oz" if oz < 16 else f"{convert(value, 'gram', 'pound'):.2f} lb"
    floz = convert(value, "milliliter", "fluid_ounce")
    return f"{floz:.2f} fl oz" if floz < 8 else f"{convert(value, 'milliliter', 'cup'):.2f} cups"


def metric_text(value: float, unit: str) -> str:
    return f"{value:g} {unit}"
