"""Resuming from a large journal: the bulk decoding gives what the line-by-line reading gives
(last entry of a key wins, a torn last line cut off and run again, a damaged earlier line
named by its number), and a resume of thousands of finished rollouts runs nothing and
summarises them all."""

from __future__ import annotations

import json
import warnings

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.runner import journal as jr
from harness.runner.run import RunSettings, check_meta, plan_rollouts, run_tax, variant_ids
from harness.runner.settings import variant_texts
from noisefloor.endpoints import ModelEndpoint
from noisefloor.journal import JournalError, TornJournalLineWarning, _parse_journal

N = 6_000
#: A base URL nothing listens on: a resume that tried a request would fail (port 9: discard).
DEAD = [ModelEndpoint("m", ("http://127.0.0.1:9/v1",), price_input_per_mtok=1.0,
                      price_output_per_mtok=1.0)]


def _entry(key: str, settings_id: str, *, reward: float | None = 1.0, n: int = 0) -> dict:
    record = {"schema_version": "1", "benchmark": "tax/csp_sudoku4", "model": "m",
              "protocol": "solo", "seed": 0, "task_id": f"csp_sudoku4:{n}", "trial": 0,
              "reward": reward, "termination_reason": "final_answer" if reward is not None
              else "infrastructure_error:timeout", "infrastructure_error": reward is None,
              "first_request_sha256": None,
              "extra": {"tokens_in": 10, "tokens_out": 5, "cost_usd": 1.5e-05,
                        "error": None if reward is not None else "m: timeout",
                        "note": "a colon: \u00e9 \"quoted\" {braces}"}}
    return {"key": key, "settings": settings_id, "record": record}


def _slow(path, data, repair):
    """The line-by-line reading alone (what the bulk reading must agree with)."""
    from noisefloor import journal

    fast = journal._entries_fast
    journal._entries_fast = lambda lines: None
    try:
        return _parse_journal(path, data, repair)
    finally:
        journal._entries_fast = fast


def _lines(entries) -> bytes:
    return b"".join(orjson.dumps(e) + b"\n" for e in entries)


def test_duplicates_and_a_torn_last_line_in_a_large_journal(tmp_path):
    path = tmp_path / "journal.ndjson"
    entries = [_entry(f"k{i}", "s", n=i) for i in range(N)]
    # a rollout run again (retry_errors) appends a second entry: the last one wins
    entries += [_entry(f"k{i}", "s2", reward=0.0, n=i) for i in range(0, N, 7)]
    data = _lines(entries) + b'{"key": "k-torn", "settings": "s", "rec'
    path.write_bytes(data)
    with pytest.warns(TornJournalLineWarning, match="the last line is torn"):
        state = jr.read_journal(path, repair=True)
    assert state.torn and state.lines == len(entries) and len(state.entries) == N
    assert "k-torn" not in state.entries
    assert state.entries["k7"]["settings"] == "s2" and state.entries["k8"]["settings"] == "s"
    assert list(state.entries)[:3] == ["k0", "k1", "k2"]  # first-seen order kept
    assert path.read_bytes() == _lines(entries)  # cut after the last complete entry
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = jr.read_journal(path)  # nothing torn any more
    assert again.entries == state.entries and not again.torn


@pytest.mark.parametrize("damage, line", [
    (b"not json\n", 3), (b"[1, 2]\n", 3), (b'{"key": 1, "settings": "s", "record": {}}\n', 3),
    (b'{"key": "x", "settings": "s"}\n', 3), (b'{"key": "x", "settings": "s", "record": []}\n', 3),
])
def test_a_damaged_line_before_the_last_is_named(tmp_path, damage, line):
    path = tmp_path / "journal.ndjson"
    good = [_entry(f"k{i}", "s") for i in range(4)]
    path.write_bytes(_lines(good[:2]) + damage + _lines(good[2:]))
    with pytest.raises(JournalError, match=rf"journal.ndjson:{line}: .*only its last line can "
                                           r"be torn"):
        jr.read_journal(path)


def test_a_damaged_last_line_counts_as_torn_and_blank_lines_are_skipped(tmp_path):
    path = tmp_path / "journal.ndjson"
    good = [_entry(f"k{i}", "s") for i in range(3)]
    path.write_bytes(_lines(good[:1]) + b"\n  \n" + _lines(good[1:]) + b"[1]\n")
    with pytest.warns(TornJournalLineWarning):
        state = jr.read_journal(path, repair=True)
    assert sorted(state.entries) == ["k0", "k1", "k2"] and state.lines == 3 and state.torn
    assert path.read_bytes().endswith(_lines(good[1:]))


_text = st.text(st.characters(codec="utf-8"), max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), _text, st.booleans()),
                max_size=30),
       st.sampled_from([b"", b'{"key": "z"', b"\n", b"garbage", b'{"key": "z", "settings": 1,'
                        b' "record": {}}']))
def test_bulk_and_line_by_line_reading_agree(tmp_path_factory, rows, tail):
    path = tmp_path_factory.mktemp("j") / "journal.ndjson"
    data = b"".join(orjson.dumps({"key": k, "settings": s, "record": {"x": s, "ok": b}}) + b"\n"
                    for k, s, b in rows) + tail
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = _parse_journal(path, data, False)
        slow = _slow(path, data, False)
    assert (fast.entries, fast.lines, fast.torn) == (slow.entries, slow.lines, slow.torn)
    assert list(fast.entries) == list(slow.entries)


def test_a_resume_of_thousands_of_finished_rollouts_runs_nothing(tmp_path):
    settings_ = RunSettings(tasks=("csp_sudoku4", "spatial_one_way"), models=("m",),
                            modes=("solo", "pair", "split_solo"), rollouts=N // 8)
    texts = variant_texts(settings_)
    plan = plan_rollouts(settings_, texts)
    meta = check_meta(tmp_path, settings_, variant_ids(settings_, texts), False)
    jr.write_meta(tmp_path, meta)
    entries = [_entry(s.key, s.settings, n=i) for i, s in enumerate(plan)]
    entries[0]["record"].update(reward=None, infrastructure_error=True,
                                termination_reason="infrastructure_error:timeout")
    entries.append(entries[5])  # a duplicate line: the same rollout twice
    torn = b'{"key": "' + plan[-1].key.encode() + b'", "settings"'
    (tmp_path / jr.JOURNAL).write_bytes(_lines(entries[:-2] + entries[-1:]) + torn)
    # the last rollout's line is torn: it is the one rollout the resume must run; the
    # endpoint is dead, so it becomes an infrastructure error, never a score
    with pytest.warns(TornJournalLineWarning):
        result = run_tax(settings_, DEAD, tmp_path, max_retries=0, timeout=2.0)
    assert (result.planned, result.skipped, result.ran) == (len(plan), len(plan) - 1, 1)
    assert result.infrastructure_errors == 2 and result.scored == len(plan) - 2
    assert result.missing == 0 and result.tokens_in == 10 * (len(plan) - 1)
    records = [json.loads(line) for line in (tmp_path / jr.TRIALS).read_text().splitlines()]
    assert len(records) == len(plan)
    again = run_tax(settings_, DEAD, tmp_path)
    assert (again.ran, again.skipped, again.scored) == (0, len(plan), len(plan) - 2)
    assert again.to_dict()["cells"] == result.to_dict()["cells"]  # NaN as null
