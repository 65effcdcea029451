"""The array forms of the agreement checks and sums against a plain loop over units and cells.

The checks of a count table and the coincidence sums of Krippendorff's alpha run as array
operations over the whole table. Each is compared here with the straightforward loop it
replaces, written out below as the reference: the same first bad cell named in the same words,
the same observed and expected agreement, on small random tables with missing ratings, units
with fewer than two ratings, bad cells of every kind and every level of measurement.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.stats.agreement import (
    check_count_table,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
)
from noisefloor.stats.agreement.alpha import _pairable_agreement
from noisefloor.stats.warning_classes import RawRatingsWarning

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# --- pairable agreement: the per-unit loop -------------------------------------------------

def loop_pairable_agreement(codes: np.ndarray, k: int) -> tuple[float, float, int]:
    """Krippendorff (2011): o_ck = sum_u (c-k pairs in unit u) / (m_u - 1), unit by unit."""
    o = np.zeros((k, k))
    for row in codes:
        vals = [int(x) for x in row if math.isfinite(x)]
        if len(vals) < 2:
            continue
        for a in range(len(vals)):
            for b in range(len(vals)):
                if a != b:
                    o[vals[a], vals[b]] += 1.0 / (len(vals) - 1)
    n = o.sum()
    if n == 0:
        return math.nan, math.nan, 0
    nc = o.sum(axis=1)
    expected = float((nc * (nc - 1)).sum() / (n * (n - 1))) if n > 1 else math.nan
    return float(np.trace(o) / n), expected, int(round(n))


@st.composite
def codes_with_gaps(draw):
    """Item x rater codes 0..k-1 with NaN for a missing rating (often whole units < 2)."""
    n_items = draw(st.integers(1, 12))
    n_raters = draw(st.integers(1, 6))
    k = draw(st.integers(1, 5))
    cells = draw(st.lists(st.one_of(st.integers(0, k - 1), st.none()),
                          min_size=n_items * n_raters, max_size=n_items * n_raters))
    codes = np.array([math.nan if c is None else float(c) for c in cells]).reshape(
        n_items, n_raters)
    return codes, k


def _same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-12


@SETTINGS
@given(codes_with_gaps())
def test_pairable_agreement_equals_the_per_unit_loop(case):
    codes, k = case
    got = _pairable_agreement(codes, k)
    want = loop_pairable_agreement(codes, k)
    assert _same(got[0], want[0]) and _same(got[1], want[1]) and got[2] == want[2], (got, want)


@SETTINGS
@given(codes_with_gaps(), st.sampled_from(["nominal", "ordinal", "interval"]),
       st.sampled_from([0, 10]))
def test_alpha_agreement_equals_the_loop_at_every_level(case, level, offset):
    """Through krippendorff_alpha: labels offset+code, positions in the sorted labels."""
    codes, k = case
    ratings = np.array([[None if math.isnan(c) else int(c) + offset for c in row]
                        for row in codes], dtype=object)
    used = sorted({int(c) for c in codes[np.isfinite(codes)]})
    position = {c: i for i, c in enumerate(used)}
    recoded = np.array([[math.nan if math.isnan(c) else position[int(c)] for c in row]
                        for row in codes], dtype=float).reshape(codes.shape)
    if codes.shape[1] < 2 or not (np.isfinite(codes).sum(axis=1) >= 2).any():
        with pytest.raises(ValueError):
            krippendorff_alpha(ratings, level=level, n_boot=0)
        return
    want = loop_pairable_agreement(recoded, len(used))
    r = krippendorff_alpha(ratings, level=level, n_boot=0)
    assert _same(r.observed_agreement, want[0]) and _same(r.expected_agreement, want[1])
    assert r.n_items == int((np.isfinite(codes).sum(axis=1) >= 2).sum())


# --- the count table: the per-cell loop ----------------------------------------------------

_RAW_HINT = ("If the table holds the label each rater gave each item (item x rater), call "
             "fleiss_kappa(ratings) instead, which counts them for you")


def loop_count_table_error(cells: list[list], frame: pd.DataFrame | None) -> str | None:
    """The message for the first bad cell or row, cell by cell in row order; None if none."""
    def where(i, j):
        if frame is None:
            return f"row {i}, column {j}"
        return f"row {i} (item {frame.index[i]!r}), column {j} ({frame.columns[j]!r})"

    k = len(cells[0])
    bad = []
    for i, row in enumerate(cells):
        for j, x in enumerate(row):
            if not isinstance(x, (int, float, np.integer, np.floating)) or isinstance(
                    x, (bool, np.bool_)):
                bad.append((i, j, x))
    if bad:
        i, j, x = bad[0]
        if x is None or x is pd.NA:
            what = "is missing; write 0 for a category nobody chose"
        elif isinstance(x, (str, bytes)):
            what = f"holds the text {x!r}"
        else:
            what = f"holds {x!r}, which is not a number"
        hint = "" if what.startswith("is missing") else _RAW_HINT
        if frame is not None and all(jj == 0 for _, jj, _ in bad) and k > 1:
            hint = ("If the first column names the items, make it the index (e.g. "
                    "pandas.read_csv(path, index_col=0)). " + _RAW_HINT)
        return ("counts must hold numbers (how many raters put the item in the category); "
                f"{where(i, j)} {what}" + (f". {hint}" if hint else ""))
    for i, row in enumerate(cells):
        for j, x in enumerate(row):
            v = float(x)
            if v < 0 or not math.isfinite(v) or v != round(v):
                return f"counts must be non-negative integers; {where(i, j)} holds {v!r}"
    sums = [sum(float(x) for x in row) for row in cells]
    for i, s in enumerate(sums):
        if s != sums[0]:
            rest = [sum(float(x) for x in row[1:]) for row in cells]
            first = ""
            if k > 2 and all(r == rest[0] for r in rest) and rest[0] >= 2:
                name = "" if frame is None else f" ({frame.columns[0]!r})"
                first = (f"Without the first column{name} every row sums to {rest[0]:g}: if "
                         "it holds item ids, make it the index (e.g. "
                         "pandas.read_csv(path, index_col=0)). ")
            return ("every row of counts must sum to the same number of raters: row 0 sums "
                    f"to {sums[0]:g} but row {i} sums to {s:g}. {first}{_RAW_HINT}; for "
                    "unequal numbers of raters use krippendorff_alpha")
    return None


_GOOD = st.one_of(st.integers(0, 4), st.sampled_from([0.0, 1.0, 2.0, np.int64(1), np.float32(2)]))
_BAD = st.sampled_from([-1, -2.0, 0.5, 1.25, math.nan, math.inf, None, pd.NA, "a", "2", True,
                        np.bool_(False), b"x"])


@st.composite
def count_tables(draw):
    """Cells of a small count table: mostly counts, sometimes a bad cell, rows equal or not."""
    n_items = draw(st.integers(1, 6))
    k = draw(st.integers(1, 4))
    m = draw(st.integers(2, 5))
    rows = []
    for _ in range(n_items):  # a row of counts summing to m, or to a drawn number
        split = sorted(draw(st.lists(st.integers(0, m), min_size=k - 1, max_size=k - 1)))
        row = [b - a for a, b in zip([0, *split], [*split, m])]
        rows.append(row if draw(st.booleans()) else draw(
            st.lists(_GOOD, min_size=k, max_size=k)))
    n_bad = draw(st.integers(0, 2))
    for _ in range(n_bad):
        i, j = draw(st.integers(0, n_items - 1)), draw(st.integers(0, k - 1))
        rows[i][j] = draw(_BAD)
    return rows


def _check(counts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RawRatingsWarning)
        return check_count_table(counts)


def _compare(counts, cells, frame):
    expected = loop_count_table_error(cells, frame)
    if expected is not None:
        with pytest.raises(ValueError, match=re.escape(expected) + "$"):
            _check(counts)
        return
    try:
        table, _, _ = _check(counts)
    except ValueError as err:  # a later check (fewer than 2 ratings per item): not a cell
        assert str(err).startswith("each item needs at least 2 ratings"), str(err)
        return
    assert np.array_equal(table, np.array([[float(x) for x in row] for row in cells]))


@SETTINGS
@given(count_tables())
def test_count_table_check_names_the_first_bad_cell_as_the_loop_does(cells):
    arr = np.empty((len(cells), len(cells[0])), dtype=object)
    arr[:] = [list(row) for row in cells]
    _compare(cells, cells, None)  # a list of lists
    _compare(arr, cells, None)  # an object array
    frame = pd.DataFrame(arr, columns=[f"c{j}" for j in range(arr.shape[1])],
                         index=[f"item{i}" for i in range(arr.shape[0])])
    _compare(frame, cells, frame)
    if all(isinstance(x, (int, float, np.integer, np.floating))
           and not isinstance(x, (bool, np.bool_)) for row in cells for x in row):
        numeric = np.array(cells, dtype=float)  # the fast path: a numeric array, no cell check
        _compare(numeric, numeric.tolist(), None)
        numeric_frame = pd.DataFrame(numeric, columns=frame.columns, index=frame.index)
        _compare(numeric_frame, numeric.tolist(), numeric_frame)
        if np.isfinite(numeric).all() and (numeric == np.round(numeric)).all():
            ints = numeric.astype(np.int64)
            _compare(ints, ints.tolist(), None)


@pytest.mark.parametrize("cells, message", [
    ([[1, 2], [2, 1.5]], "counts must be non-negative integers; row 1, column 1 holds 1.5"),
    ([[1, 2], [-1, 4]], "counts must be non-negative integers; row 1, column 0 holds -1.0"),
    ([[1, 2], [np.nan, 3]], "counts must be non-negative integers; row 1, column 0 holds nan"),
    ([[1, 2], [2, 2]], "row 0 sums to 3 but row 1 sums to 4"),
    ([[1, 2], [None, 3]], "row 1, column 0 is missing; write 0 for a category nobody chose"),
    ([[1, True], [1, 2]], "row 0, column 1 holds True, which is not a number"),
])
def test_count_table_messages_pinned(cells, message):
    """Each kind of bad cell, from a list and from a numeric array where it can be one."""
    with pytest.raises(ValueError, match=re.escape(message)):
        _check(cells)
    if not any(x is None or isinstance(x, bool) for row in cells for x in row):
        with pytest.raises(ValueError, match=re.escape(message)):
            _check(np.array(cells, dtype=float))


def test_boolean_columns_are_not_counts():
    """A boolean array or column is not taken as numbers by the shortcut for numeric input."""
    with pytest.raises(ValueError, match=re.escape("row 0, column 0 holds True, which is not")):
        _check(np.array([[True, False], [False, True]]))
    frame = pd.DataFrame({"a": [2, 1], "b": [True, False]}, index=["x", "y"])
    with pytest.raises(ValueError, match=re.escape(
            "row 0 (item 'x'), column 1 ('b') holds True, which is not a number")):
        _check(frame)
    nullable = pd.DataFrame({"a": pd.array([2, None], dtype="Int64"), "b": [0, 2]})
    with pytest.raises(ValueError, match=re.escape("row 1 (item 1), column 0 ('a') is missing")):
        _check(nullable)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 15), st.integers(2, 4), st.lists(st.integers(-3, 60), min_size=60,
                                                       max_size=60),
       st.sampled_from(["nominal", "ordinal", "interval"]),
       st.sampled_from(["none", "linear", "quadratic"]))
def test_integer_arrays_give_what_the_same_labels_as_objects_give(n, raters, pool, level, w):
    """Integer arrays take a shortcut (labels coded once per distinct value, no missing check):
    the results, categories and bootstrap intervals are those of the same labels as objects."""
    ints = np.array(pool[: n * raters]).reshape(n, raters)
    objs = ints.astype(object)

    def same(f):
        try:
            want = f(objs).to_dict()
        except ValueError as err:
            with pytest.raises(ValueError, match=re.escape(str(err))):
                f(ints)
            return
        assert repr(f(ints).to_dict()) == repr(want)  # identical, NaN included

    same(lambda x: krippendorff_alpha(x, level=level, n_boot=20, rng=1))
    same(lambda x: fleiss_kappa(x, n_boot=20, rng=1))
    same(lambda x: cohen_kappa(x[:, 0], x[:, 1], weights=w, n_boot=20, rng=1))


@SETTINGS
@given(st.integers(1, 30), st.integers(1, 4),
       st.lists(st.sampled_from([0.0, 1.0, 2.0, 0.5, -1.0, 3.25]), min_size=120, max_size=120))
def test_bootstrap_patterns_are_numpy_unique_rows(n, f, pool):
    """The items' patterns (the bootstrap's multinomial cells, whose order fixes the random
    stream) are the rows and inverse of numpy.unique(axis=0), so a seed gives the same interval."""
    from noisefloor.stats.agreement.resampling import _group

    rows = np.array(pool[: n * f]).reshape(n, f)
    unique, inverse = _group(rows)
    want_unique, want_inverse = np.unique(rows, axis=0, return_inverse=True)
    assert np.array_equal(unique, want_unique)
    assert np.array_equal(inverse, np.asarray(want_inverse).reshape(-1))
