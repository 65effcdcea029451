"""Property tests (Hypothesis) of the rollout keys, the shard partition and the journal."""

from __future__ import annotations

import dataclasses
import json
import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.runner import journal as jr
from harness.runner.keys import RolloutSpec, in_shard, parse_shard

hex_keys = st.lists(st.text("0123456789abcdef", min_size=64, max_size=64), max_size=60,
                    unique=True)


@given(hex_keys, st.integers(1, 9))
def test_shards_partition_the_keys(keys, n):
    owners = [[i for i in range(1, n + 1) if in_shard(k, (i, n))] for k in keys]
    assert all(len(o) == 1 for o in owners)  # every key in exactly one shard


@given(st.integers(1, 50), st.integers(1, 50))
def test_parse_shard_round_trip(i, n):
    if i <= n:
        assert parse_shard(f"{i}/{n}") == (i, n)


SPEC = RolloutSpec("csp_sudoku4", 1, 3, "pair", "m1", "m2", "a", 0, "baseline", 7, "ab" * 8)
CHANGES = {"task": "csp_time_zones", "difficulty": 2, "instance_seed": 4, "model_a": "m3",
           "model_b": "m3", "started_by": "b", "repeat": 1, "variant": "all_four", "seed": 8,
           "settings": "cd" * 8}


@given(st.sets(st.sampled_from(sorted(CHANGES)), min_size=1))
def test_any_change_of_what_names_a_rollout_changes_its_key(fields):
    other = dataclasses.replace(SPEC, **{f: CHANGES[f] for f in fields})
    assert other.key != SPEC.key


def test_swapping_slot_order_changes_the_key():
    swapped = dataclasses.replace(SPEC, model_a="m2", model_b="m1")
    assert swapped.key != SPEC.key and swapped.model == "m2+m1" and SPEC.model == "m1+m2"


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.data())
def test_a_journal_cut_at_any_byte_reads_as_a_prefix(tmp_path_factory, n, data):
    path = tmp_path_factory.mktemp("j") / jr.JOURNAL
    entries = [{"key": f"k{i}", "settings": "s", "record": {"i": i, "text": "x" * i}}
               for i in range(n)]
    blob = b"".join(json.dumps(e).encode() + b"\n" for e in entries)
    cut = data.draw(st.integers(0, len(blob)))
    path.write_bytes(blob[:cut])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = jr.read_journal(path, repair=True)
    complete = blob[:cut].count(b"\n")
    assert list(state.entries) == [f"k{i}" for i in range(complete)]
    assert state.torn == (cut > 0 and not blob[:cut].endswith(b"\n"))
    # after the repair the file ends at the last complete entry
    assert path.read_bytes() == b"".join(blob.splitlines(keepends=True)[:complete])
