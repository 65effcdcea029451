"""The one shape of every contrast table (``level``, ``seed``, ``certified_by``, ``verdict``)
and its contrast labels ``a-b`` (:func:`split_protocol_pair`, where names themselves hold '-').

Every table of paired contrasts that noisefloor returns (the floor's null contrasts,
:attr:`noisefloor.floor.nulls.NullContrasts.table`, a count table's null contrasts, a log's arm
contrasts, ``contrast --log``, an audit's contrasts, ``compare``'s rows) carries these columns
with one meaning and one dtype:

``level`` (str)
    :data:`TRIAL`: one paired comparison as it was run, at one seed (the trial, or the two
    trials compared, are in the table's ``trial``/``trial_a``/``trial_b`` or contrast label);
    :data:`POOLED`: counts summed over seeds (and, for ``compare``, over trials).
``seed`` (nullable integer, pandas ``Int64``)
    The seed of a trial-level row; ``<NA>`` on pooled rows and for a log that records no seed.
    Never a string: a pooled row is told by ``level``, never by its seed.
``certified_by`` (str)
    What certifies the row as a null contrast (its two arms cannot differ), one of the values
    of :mod:`noisefloor.floor.nulls` (``"empty store at start"``, ``"identical first requests"``,
    ``"declared null by the user"``, ...), several joined by ``"; "`` on a pooled row; ``""``
    for a real contrast that nothing certifies.
``verdict`` (str, tables that place gaps against a floor)
    Where the row's gap lies against the noise floor, in the vocabulary of the table's
    producer (:func:`noisefloor.floor.arm_contrasts.place_contrasts`, :func:`noisefloor.compare`);
    ``""`` where a row is not placed.

References
----------
Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A Paired Noise-Floor
Protocol for Multi-Agent LLM Benchmarks" (per-seed and pooled null contrasts).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

__all__ = ["DEFAULT_CLEAN", "FAMILY", "LEVELS", "POOLED", "SHAPE_COLUMNS", "TRIAL", "check_shape",
           "seed_array", "seed_text", "split_protocol_pair"]

#: ``level`` of a row: one comparison as run, at one seed.
TRIAL = "trial"
#: ``level`` of a row: counts summed over seeds (and trials for ``compare``).
POOLED = "pooled"
#: Every value of ``level``.
LEVELS = (TRIAL, POOLED)
#: The columns every contrast table carries (``verdict`` only where rows are placed).
SHAPE_COLUMNS = ("level", "seed", "certified_by")
#: The columns whose values make one multiplicity family of a count table: the contrasts of one
#: seed, trial and subset (the noise-floor paper's m = 3), as
#: :func:`noisefloor.stats.paired.sign_test_table` takes them.
FAMILY = ("seed", "trial", "subset")


def seed_array(values: Iterable) -> pd.arrays.IntegerArray:
    """Seeds as a nullable integer array: None, NaN and ``pd.NA`` become ``<NA>``.

    Parameters
    ----------
    values : iterable
        Integers (or integral floats) and missing values.

    Returns
    -------
    pandas.arrays.IntegerArray
        dtype ``Int64``.

    Raises
    ------
    ValueError
        A value that is neither an integer nor missing (such as the text ``"pooled"``).

    Examples
    --------
    >>> seed_array([300, None, 2.0]).tolist()
    [300, <NA>, 2]
    """
    out: list[int | None] = []
    for i, v in enumerate(values):
        if v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and math.isnan(v)):
            out.append(None)
        elif isinstance(v, (bool, np.bool_)) or not (
                isinstance(v, (int, np.integer))
                or (isinstance(v, (float, np.floating)) and float(v).is_integer())):
            raise ValueError(f"row {i}: seed must be an integer or missing, got {v!r}")
        else:
            out.append(int(v))
    return pd.array(out, dtype="Int64")


def check_shape(frame: pd.DataFrame, *, verdict: bool = False) -> None:
    """Raise unless ``frame`` has the contrast-table shape (see the module notes).

    Parameters
    ----------
    frame : pandas.DataFrame
        A contrast table.
    verdict : bool, default False
        Also require a string ``verdict`` column.

    Raises
    ------
    ValueError
        A column is missing, ``level`` holds a value other than :data:`LEVELS`, ``seed`` is not
        ``Int64``, a pooled row has a seed, or ``certified_by``/``verdict`` holds a non-string.

    Examples
    --------
    >>> t = pd.DataFrame({"level": ["trial", "pooled"], "seed": seed_array([1, None]),
    ...                   "certified_by": ["", ""]})
    >>> check_shape(t)
    >>> check_shape(t.assign(seed=[1, "pooled"]))
    Traceback (most recent call last):
    ...
    ValueError: contrast table: seed must be a nullable integer column (Int64), got object
    """
    wanted = SHAPE_COLUMNS + (("verdict",) if verdict else ())
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise ValueError(f"contrast table lacks column(s) {missing}; columns are "
                         f"{list(frame.columns)}")
    if str(frame["seed"].dtype) != "Int64":
        raise ValueError("contrast table: seed must be a nullable integer column (Int64), got "
                         f"{frame['seed'].dtype}")
    bad = sorted(set(map(str, frame["level"])) - set(LEVELS))
    if bad:
        raise ValueError(f"contrast table: level must be one of {list(LEVELS)}, got {bad}")
    pooled = (frame["level"] == POOLED).to_numpy(dtype=bool)
    if frame["seed"][pooled].notna().any():
        raise ValueError("contrast table: a pooled row has a seed (seed is <NA> when pooled)")
    for col in wanted[2:]:
        if not all(isinstance(v, str) for v in frame[col]):
            raise ValueError(f"contrast table: {col} must hold strings ('' when it does not "
                             "apply)")


def seed_text(level: str, seed, prefix: str = "") -> str:
    """How a contrast-table row's seed is shown: ``"pooled"`` (``level == "pooled"``), else
    ``prefix`` and ``"none"`` (no seed logged) or the seed.

    Examples
    --------
    >>> seed_text("trial", 300), seed_text("pooled", None), seed_text("trial", None, "seed ")
    ('300', 'pooled', 'seed none')
    """
    if level == POOLED:
        return "pooled"
    return prefix + ("none" if seed is None or pd.isna(seed) else str(int(seed)))


#: The contrast the noise-floor paper certifies clean (byte-identical first requests at trial 0).
DEFAULT_CLEAN = ("no_coord-intercept",)


def _splits(label: str) -> list[tuple[str, str]]:
    """Every way to read ``label`` as ``a-b`` with both sides non-empty (names may hold '-')."""
    return [(label[:i], label[i + 1:]) for i, ch in enumerate(label)
            if ch == "-" and 0 < i < len(label) - 1]


def _reversals(label: str) -> set[str]:
    """``b-a`` for every reading ``a-b`` of ``label``."""
    return {f"{b}-{a}" for a, b in _splits(label)}


def split_protocol_pair(label: str, protocols, *, what: str = "clean pair") -> tuple[str, str]:
    """Split ``"a-b"`` into two protocol names, where the names themselves may contain '-'.

    Of every split at a '-', the one whose two sides are both among ``protocols`` is taken.

    Parameters
    ----------
    label : str
        The pair as written, e.g. ``"no-coord-intercept"``.
    protocols : iterable of str
        The protocol names present (in the log).
    what : str, default "clean pair"
        What the label is, for the error message (e.g. ``"contrast"``).

    Returns
    -------
    (str, str)
        The two protocols, in the order written.

    Raises
    ------
    ValueError
        If no split, or more than one, gives two of ``protocols``; the message lists the
        protocols and every split that fits.

    Examples
    --------
    >>> split_protocol_pair("no-coord-intercept", ["no-coord", "intercept", "pull"])
    ('no-coord', 'intercept')
    >>> split_protocol_pair("a-b-c", ["a", "b-c", "a-b", "c"])
    Traceback (most recent call last):
    ...
    ValueError: clean pair 'a-b-c' is ambiguous: it reads as 'a' vs 'b-c' and as 'a-b' vs 'c', all protocols of the log (a, a-b, b-c, c); the pair cannot be told apart as written
    """
    names = sorted(set(map(str, protocols)))
    listed = ", ".join(names) or "none"
    fits = [(a, b) for a, b in _splits(label) if a in names and b in names]
    if len(fits) == 1:
        return fits[0]
    if not fits:
        raise ValueError(
            f"{what} must name two protocols as 'a-b' (e.g. 'no_coord-intercept'), both "
            f"present in the log; {label!r} splits into no two of them. Protocols in the log: "
            f"{listed}")
    readings = " and as ".join(f"{a!r} vs {b!r}" for a, b in fits)
    raise ValueError(
        f"{what} {label!r} is ambiguous: it reads as {readings}, all protocols of the log "
        f"({listed}); the pair cannot be told apart as written")
