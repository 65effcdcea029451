"""Property tests (Hypothesis) of the rollout keys, the shard partition and the journal."""

from __future__ import annotations

import dataclasses
import json
import warnings

import pytest
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


def test_keys_are_those_of_journals_already_written():
    # computed by the constructor the dataclass generated before RolloutSpec got its own
    # __init__: a journal written then must resume (every key the same bytes hashed)
    big = RolloutSpec("csp_sudoku4", 1, 3, "pair", "big", "small", "b", 2, "all_four", 7,
                      "0123456789abcdef")
    solo = RolloutSpec(task="spatial_one_way", difficulty=0, instance_seed=0, mode="solo",
                       model_a="m", model_b=None, started_by=None, repeat=0,
                       variant="baseline", seed=0, settings="fedcba9876543210")
    assert big.key == "75e6394f4e6cf69867005b81116cdf0064b373dea037d0d6208cfa6cacd4b1b8"
    assert solo.key == "0c152fe323e2f8d84ec376b74cb9fcac1aa0efbec60553e0cab7f138ac0b361c"


def test_the_constructor_takes_the_fields_in_order_and_stays_frozen():
    fields = [f.name for f in dataclasses.fields(RolloutSpec)]
    assert RolloutSpec.__init__.__code__.co_varnames[1:len(fields) + 1] == tuple(fields)
    assert list(vars(RolloutSpec(*[getattr(SPEC, f) for f in fields]))) == fields
    assert RolloutSpec(**SPEC.to_dict()) == SPEC and hash(RolloutSpec(**SPEC.to_dict())) == hash(SPEC)
    with pytest.raises(dataclasses.FrozenInstanceError):
        SPEC.repeat = 3  # type: ignore[misc]


@pytest.mark.parametrize("change, message", [
    ({"mode": "trio"}, "mode must be one of ('solo', 'pair', 'split_solo_a', 'split_solo_b'), "
                       "got 'trio'"),
    ({"model_b": None}, "model_b must be set exactly for mode 'pair', got mode 'pair' with "
                        "model_b=None"),
    ({"started_by": "c"}, "started_by must be 'a' or 'b' for a pair and None otherwise, got "
                          "'c' for mode 'pair'"),
    ({"mode": "solo", "model_b": None}, "started_by must be 'a' or 'b' for a pair and None "
                                        "otherwise, got 'a' for mode 'solo'"),
])
def test_an_impossible_configuration_is_refused(change, message):
    with pytest.raises(ValueError) as caught:
        dataclasses.replace(SPEC, **change)
    assert str(caught.value) == message


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
