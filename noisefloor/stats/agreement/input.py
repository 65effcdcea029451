"""Input checks for the agreement coefficients: ratings tables, missing values, category order.

Weighted kappa and ordinal alpha read distances off the categories' positions, so the order is
never guessed (:func:`ordered_categories`); the other coefficients take the declared categories
or the observed ones, sorted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.stats.agreement.result import _plain

__all__ = ["check_choice", "check_confidence", "check_n_boot", "ordered_categories",
           "resolve_categories"]


def check_confidence(confidence: float) -> float:
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1; got {confidence!r}")
    return confidence


def check_n_boot(n_boot: int) -> int:
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ValueError(f"n_boot must be a non-negative integer; got {n_boot!r}")
    return int(n_boot)


def check_choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}")
    return value


def _is_missing(x: Any) -> bool:
    if x is None:
        return True
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def _missing_mask(cells: np.ndarray) -> np.ndarray:
    """:func:`_is_missing` of every cell of an object array, in one pass (``pandas.isna``)."""
    return np.asarray(pd.isna(cells), dtype=bool)


def _type_mask(cells: np.ndarray, accept: Callable[[type], bool]) -> np.ndarray:
    """True where the type of the cell is not accepted by ``accept``; one call per distinct type."""
    types = np.frompyfunc(type, 1, 1)(cells)
    rejected = {t for t in set(np.asarray(types, dtype=object).ravel()) if not accept(t)}
    if not rejected:
        return np.zeros(np.shape(cells), dtype=bool)
    return np.asarray(np.frompyfunc(rejected.__contains__, 1, 1)(types), dtype=bool)


def _integer_array(x: Any) -> np.ndarray | None:
    """``x`` itself when it is a numpy array of integers (no label can be missing), else None."""
    return x if isinstance(x, np.ndarray) and x.dtype.kind in "iu" else None


def _first_seen(values: np.ndarray) -> list:
    """The distinct values of an integer array as Python ints, in the order first seen."""
    distinct, first = np.unique(values.ravel(), return_index=True)
    return distinct[np.argsort(first, kind="stable")].tolist()


def _codes(cells: np.ndarray, index: dict[Any, int]) -> np.ndarray:
    """``index[x]`` of every cell, as int64 (every cell must be a key).

    An integer array is looked up once per distinct value; other arrays hold the labels as
    Python objects and are looked up cell by cell.
    """
    if cells.size == 0:
        return np.zeros(cells.shape, dtype=np.int64)
    if cells.dtype.kind in "iu":
        distinct, inverse = np.unique(cells, return_inverse=True)
        lookup = np.array([index[x] for x in distinct.tolist()], dtype=np.int64)
        return lookup[np.asarray(inverse).reshape(cells.shape)]
    return np.asarray(np.frompyfunc(index.__getitem__, 1, 1)(cells), dtype=np.int64)


def _sort_key(x: Any) -> tuple:
    return (0, float(x), "") if isinstance(x, (int, float, np.number)) else (1, 0.0, str(x))


def resolve_categories(observed: Sequence[Any], categories: Sequence[Any] | None) -> tuple:
    """Declared categories (validated against the data) or the sorted observed ones."""
    seen = list(dict.fromkeys(observed))
    if categories is None:
        return tuple(sorted(seen, key=_sort_key))
    cats = tuple(categories)
    if len(set(cats)) != len(cats):
        raise ValueError(f"categories contains duplicates: {list(cats)!r}")
    unknown = [x for x in seen if x not in set(cats)]
    if unknown:
        raise ValueError(
            f"ratings contain values not among the declared categories {list(cats)!r}: "
            f"{unknown[:5]!r}"
        )
    return cats


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(
        x, (bool, np.bool_))


def ordered_categories(
    observed: Sequence[Any], categories: Sequence[Any] | None, what: str
) -> tuple[tuple, str]:
    """The category order for a coefficient whose value depends on it, and where it came from.

    Weighted kappa and ordinal alpha read distances off the categories' positions, so the order
    is never guessed: declared ``categories`` are used as given (validated against the data);
    without them, numeric labels are taken in numeric order, and labels that are not all numbers
    are an error, since their sorted (alphabetical) order is a fact of spelling, not of the scale.

    Parameters
    ----------
    observed : sequence
        The labels in the data (missing ones already removed).
    categories : sequence, optional
        The declared scale, lowest to highest.
    what : str
        The coefficient, for the error message (e.g. ``"weighted kappa"``).

    Returns
    -------
    categories : tuple
    order : {"declared", "numeric"}

    Raises
    ------
    ValueError
        No ``categories`` and a label that is not a number: the message lists the labels and
        shows how to declare the order; or a label outside the declared ``categories``.

    Examples
    --------
    >>> ordered_categories([3, 1, 2, 1], None, "weighted kappa")
    ((1, 2, 3), 'numeric')
    >>> ordered_categories(["mid", "low"], ["low", "mid", "high"], "weighted kappa")
    (('low', 'mid', 'high'), 'declared')
    >>> ordered_categories(["low", "mid", "high"], None, "weighted kappa")
    Traceback (most recent call last):
    ...
    ValueError: weighted kappa needs the category order declared: the labels 'low', 'mid', 'high' are not all numbers, so the order cannot be read off them (sorted, they would follow the alphabet: 'high', 'low', 'mid'). List the scale from lowest to highest: --categories low,mid,high on the command line, categories=['low', 'mid', 'high'] in Python (shown here in the order first seen; reorder as the scale runs, and add any point nobody used)
    """
    if categories is not None:
        return resolve_categories(observed, categories), "declared"
    seen = list(dict.fromkeys(observed))
    if all(_is_number(x) for x in seen):
        return tuple(sorted(seen, key=float)), "numeric"
    shown, listed = seen[:10], seen[:20]
    more = f" and {len(seen) - 10} more" if len(seen) > 10 else ""
    alphabetical = sorted(seen, key=_sort_key)[:10]
    raise ValueError(
        f"{what} needs the category order declared: the labels "
        f"{', '.join(repr(_plain(x)) for x in shown)}{more} are not all numbers, so the order "
        f"cannot be read off them (sorted, they would follow the alphabet: "
        f"{', '.join(repr(_plain(x)) for x in alphabetical)}). List the scale from lowest to "
        f"highest: --categories {','.join(str(_plain(x)) for x in listed)} on the command "
        f"line, categories={[_plain(x) for x in listed]!r} in Python (shown here in the order first "
        "seen; reorder as the scale runs, and add any point nobody used)"
    )


def _ratings_matrix(ratings: Any, name: str = "ratings") -> np.ndarray:
    arr: np.ndarray = (ratings.to_numpy(dtype=object) if isinstance(ratings, pd.DataFrame)
                       else np.asarray(ratings, dtype=object))
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (item x rater); got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 2:
        raise ValueError(
            f"{name} needs at least 1 item and 2 raters (item x rater); got shape {arr.shape}"
        )
    return arr
