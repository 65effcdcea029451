"""The hashed duplicate check of :func:`noisefloor.logs.annotations.repeats.first_repeat` gives
the answer of a plain loop over rows, whatever the hash does.

Plausible bugs each test catches: two equal ids hashed differently because they sit in blocks
of different shape (one width in one block, several in the next; another Arrow chunk; another
offset in the data buffer), so a repeat is missed; a hash collision of two different ids
reported as a repeat; the bytes after a short id (its neighbour's) leaking into its hash; an id
and the same id with a trailing NUL byte taken for one; the first repeat in file order not
being the one reported once only colliding rows are compared.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisefloor.logs.annotations import repeats
from noisefloor.logs.annotations.annotation_table import PYTHON_STRING_DTYPE
from noisefloor.logs.annotations.repeats import first_repeat
from tests.logs.test_annotation_table import _first_repeat_reference


def _column(values: list[str], cuts: list[int]) -> pd.Series:
    """A pandas string column held in Arrow chunks cut at ``cuts`` (as a CSV reader leaves it)."""
    bounds = sorted({0, len(values), *(c % (len(values) + 1) for c in cuts)})
    chunks = [pa.array(values[a:b], type=pa.large_string()) for a, b in zip(bounds, bounds[1:])]
    array = pa.chunked_array(chunks, type=pa.large_string())
    if pd.api.types.is_object_dtype(PYTHON_STRING_DTYPE):
        return pd.Series(array.to_pylist(), dtype=object)
    return pd.Series(pd.array(array, dtype=PYTHON_STRING_DTYPE))


# ids of every length around the 8-byte word (0 to 20 bytes), with NUL bytes, non-ASCII and
# look-alikes that differ in one byte or in length only
_id = st.one_of(
    st.sampled_from(["", "a", "a\x00", "\x00", "ab", "abcdefgh", "abcdefgh\x00", "abcdefghi",
                     "item0000001", "item0000002", "é", "e\u0301", "x" * 16, "x" * 17]),
    st.text(st.sampled_from("ab\x00é"), max_size=20))


@settings(max_examples=400, deadline=None)
@given(rows=st.lists(st.tuples(_id, _id, _id), min_size=0, max_size=60),
       cuts=st.lists(st.integers(0, 60), max_size=4),
       block=st.sampled_from([1, 2, 3, 7, 1 << 15]),
       collide=st.sampled_from(["no", "lengths only", "nothing"]))
def test_hashed_first_repeat_equals_a_first_repeat_reference(rows, cuts, block, collide):
    # small blocks put one id into blocks of different shapes; "lengths only" makes every two
    # ids of one length collide (the words are masked to zero), "nothing" makes every two ids
    # collide: only the exact comparison of colliding rows can then give the right answer
    frame = pd.DataFrame({name: _column([r[i] for r in rows], cuts)
                          for i, name in enumerate(("category", "item", "rater"))})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repeats, "_BLOCK", block)
        patch.setattr(repeats, "_PREFIX", 4)  # so that the item column is hashed as well
        if collide != "no":
            patch.setattr(repeats, "_FIRST_BYTES", np.zeros(9, dtype=np.uint64))
        if collide == "nothing":
            patch.setattr(repeats, "_MULTIPLIER", np.uint64(0))
        assert first_repeat(frame) == _first_repeat_reference(rows)


def _hashes(values: list[str], cuts: list[int]) -> np.ndarray:
    series = _column(values, cuts)
    state = np.zeros(len(values), dtype=np.uint64)
    repeats._absorb_strings(state, repeats._as_strings(series))
    return state


@settings(max_examples=200, deadline=None)
@given(values=st.lists(_id, min_size=1, max_size=40), cuts=st.lists(st.integers(0, 40), max_size=4),
       block=st.sampled_from([1, 3, 1 << 15]))
def test_one_id_one_hash_wherever_it_sits(values, cuts, block):
    # the hash of a cell depends on the cell (and the column's longest cell, which sets the
    # number of words) alone: not on its chunk, its block, its position in the data buffer or
    # whether its block has one width
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repeats, "_BLOCK", block)
        hashes = _hashes(values, cuts)
    longest = max(values, key=lambda v: len(v.encode()))
    alone = {v: int(_hashes([v, longest], [])[0]) for v in set(values)}
    assert [int(h) for h in hashes] == [alone[v] for v in values]


def test_ids_that_differ_in_a_trailing_nul_or_a_far_byte_hash_apart():
    ids = ["", "\x00", "a", "a\x00", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefghj",
           "item0000001", "item0000002", "x" * 16, "x" * 17, "x" * 15 + "y"]
    hashes = _hashes(ids, [])
    assert len(set(hashes.tolist())) == len(ids)


def test_a_million_distinct_structured_ids_have_no_hash_collision():
    # fixed-width generated ids (the agreement benchmark's) and ids of varying width: not one
    # of them shares a 64-bit hash with another, so the exact comparison never runs
    fixed = [f"item{i:07d}" for i in range(500_000)]
    varying = [f"q{i}" for i in range(500_000)]
    for ids in (fixed, varying):
        hashes = _hashes(ids, [])
        assert len(np.unique(hashes)) == len(ids)


@pytest.mark.parametrize("seeded", [False, True])
def test_a_repeat_far_down_is_found_with_exact_codes_seeding_the_hash(seeded):
    # a shuffled file: the item column is hashed; the rater column, a few names, is coded
    # exactly and seeds the hash
    n = 30_000
    rng = np.random.default_rng(1)
    items = [f"item{i // 3:06d}" for i in range(n)]
    raters = [("ann", "bob", "cy")[i % 3] if seeded else f"r{i % 3}-{i // 3}" for i in range(n)]
    order = rng.permutation(n)
    items = [items[i] for i in order]
    raters = [raters[i] for i in order]
    items.insert(n - 7, items[11])
    raters.insert(n - 7, raters[11])
    frame = pd.DataFrame({"category": "", "item": items, "rater": raters})
    rows = list(zip(frame["category"], frame["item"], frame["rater"]))
    assert first_repeat(frame) == _first_repeat_reference(rows) == (n - 7, 11)
