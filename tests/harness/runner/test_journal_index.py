"""The journal's index: a cache of the latest entry of every key that a resume reads instead of
decoding the journal. It must give what the journal gives, and be ignored the moment the
journal is not the file it was made from (appended to, cut, edited in place, replaced)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import warnings

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.runner import journal as jr
from harness.runner.run import (
    SUMMARY_FIELDS,
    RunSettings,
    check_meta,
    plan_rollouts,
    run_tax,
    variant_ids,
)
from harness.runner.settings import variant_texts
from noisefloor.endpoints import ModelEndpoint
from noisefloor.journal import (
    JournalError,
    TornJournalLineWarning,
    index_entries,
    index_path,
    read_index,
    read_journal,
    write_index,
)

#: A base URL nothing listens on: a resume that tried a request would fail (port 9: discard).
DEAD = [ModelEndpoint("m", ("http://127.0.0.1:9/v1",), price_input_per_mtok=1.0,
                      price_output_per_mtok=1.0)]
FIELDS = ["reward", "extra.tokens_in", "extra.error"]


def _entry(key: str, sid: str, *, reward: float | None = 1.0, tokens: int | None = 10,
           n: int = 0, protocol: str = "solo") -> dict:
    record = {"schema_version": "1", "benchmark": "tax/csp_sudoku4", "model": "m",
              "protocol": protocol, "seed": 0, "task_id": f"csp_sudoku4:{n}", "trial": 0,
              "reward": reward, "termination_reason": "final_answer" if reward is not None
              else "infrastructure_error:timeout", "infrastructure_error": reward is None,
              "first_request_sha256": None,
              "extra": {"tokens_in": tokens, "tokens_out": 5, "cost_usd": 1.5e-05,
                        "error": None if reward is not None else "m: timeout"}}
    return {"key": key, "settings": sid, "record": record}


def _lines(entries) -> bytes:
    return b"".join(orjson.dumps(e) + b"\n" for e in entries)


def _indexed(tmp_path, entries):
    path = tmp_path / "journal.ndjson"
    path.write_bytes(_lines(entries))
    write_index(path, index_entries(read_journal(path).entries, FIELDS))
    assert read_index(path, FIELDS) is not None
    return path


_value = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**12),
                   st.floats(allow_nan=False, allow_infinity=False),
                   st.text(st.characters(codec="utf-8"), max_size=6))
_record = st.fixed_dictionaries({}, optional={
    "reward": _value, "extra": st.one_of(st.none(), st.dictionaries(
        st.sampled_from(["tokens_in", "error", "other"]), _value, max_size=3))})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d", "\u00e9:\"k\""]),
                          st.sampled_from(["s1", "s2"]), _record), min_size=1, max_size=25))
def test_the_index_read_back_is_the_journal_projected(tmp_path_factory, rows):
    # duplicates of a key included: the index holds each key's last entry, in first-seen order
    path = tmp_path_factory.mktemp("j") / "journal.ndjson"
    path.write_bytes(b"".join(orjson.dumps({"key": k, "settings": s, "record": r}) + b"\n"
                              for k, s, r in rows))
    state = read_journal(path)
    write_index(path, index_entries(state.entries, FIELDS))
    index = read_index(path, FIELDS)
    assert index is not None
    assert index.keys == list(state.entries)
    assert index.settings == [e["settings"] for e in state.entries.values()]
    last = {k: r for k, _, r in rows}
    for name in FIELDS:
        head, _, tail = name.partition(".")
        expected = [last[k].get(head) for k in index.keys]
        if tail:
            expected = [v.get(tail) if isinstance(v, dict) else None for v in expected]
        assert index.columns[name] == expected, name


def test_an_appended_entry_makes_the_index_stale(tmp_path):
    path = _indexed(tmp_path, [_entry("k1", "s"), _entry("k2", "s")])
    with jr.JournalWriter(path) as writer:
        writer.append(_entry("k1", "s", reward=0.0))
    assert read_index(path, FIELDS) is None


def test_an_edit_in_place_is_seen_even_with_the_old_size_and_mtime(tmp_path):
    # the first line of a journal longer than the hashed tail: only the change time tells
    path = _indexed(tmp_path, [_entry(f"k{i}", "s", reward=1.0) for i in range(400)])
    before = path.stat()
    data = path.read_bytes()
    edited = data.replace(b'"reward":1.0', b'"reward":0.0', 1)
    assert len(edited) == len(data) > 2 * 65536 and edited[-65536:] == data[-65536:]
    with open(path, "r+b") as fh:  # same inode, same size
        fh.write(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime set back
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino)
    assert read_index(path, FIELDS) is None  # the change time moved


def test_a_changed_tail_is_seen_by_its_hash_alone(tmp_path):
    # what no clock can show (an edit within the file system's time resolution) the hash
    # of the last bytes does: here the stamp is made to agree in everything else
    path = _indexed(tmp_path, [_entry("k1", "s"), _entry("k2", "s")])
    head, body = index_path(path).read_bytes().split(b"\n", 1)
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"reward":1.0', b'"reward":0.0'))
    stat = path.stat()
    stamp = orjson.loads(head)
    stamp["journal"].update(size=stat.st_size, mtime_ns=stat.st_mtime_ns,
                            ctime_ns=stat.st_ctime_ns, inode=stat.st_ino)
    index_path(path).write_bytes(orjson.dumps(stamp) + b"\n" + body)
    assert read_index(path, FIELDS) is None
    path.write_bytes(data)  # the bytes the index was made from: the index is good again
    stat = path.stat()
    stamp["journal"].update(mtime_ns=stat.st_mtime_ns, ctime_ns=stat.st_ctime_ns,
                            inode=stat.st_ino)
    index_path(path).write_bytes(orjson.dumps(stamp) + b"\n" + body)
    assert read_index(path, FIELDS) is not None


def test_a_cut_replaced_or_removed_journal_makes_the_index_stale(tmp_path):
    path = _indexed(tmp_path, [_entry("k1", "s"), _entry("k2", "s")])
    data = path.read_bytes()
    with open(path, "r+b") as fh:
        fh.truncate(len(data) - 3)  # a torn last line
    assert read_index(path, FIELDS) is None
    path = _indexed(tmp_path, [_entry("k1", "s")])
    copy = tmp_path / "copy"
    shutil.copy2(path, copy)
    os.replace(copy, path)  # the same bytes and mtime in another file
    assert read_index(path, FIELDS) is None
    path = _indexed(tmp_path, [_entry("k1", "s")])
    path.unlink()
    assert read_index(path, FIELDS) is None


@pytest.mark.parametrize("damage", [b"", b"not json", b'{"format": 1}', b"[1, 2]\n[]"])
def test_a_damaged_index_or_one_for_other_fields_is_ignored(tmp_path, damage):
    path = _indexed(tmp_path, [_entry("k1", "s")])
    assert read_index(path, FIELDS[:2]) is None  # made for other fields
    head = index_path(path).read_bytes().split(b"\n", 1)[0]
    index_path(path).write_bytes(damage)
    assert read_index(path, FIELDS) is None
    index_path(path).write_bytes(head + b"\n" + damage)  # the right stamp, a bad body
    assert read_index(path, FIELDS) is None
    index_path(path).write_bytes(head + b"\n" + orjson.dumps([["k1", "k2"], ["s"],
                                                              [[1.0], [10], [None]]]))
    assert read_index(path, FIELDS) is None  # columns of another length than the keys


# --- run_tax: the index serves a resume, and never stands in for a journal that moved on ---

def _run_dir(tmp_path, rollouts=6):
    settings_ = RunSettings(tasks=("csp_sudoku4", "spatial_one_way"), models=("m",),
                            modes=("solo", "pair", "split_solo"), rollouts=rollouts)
    texts = variant_texts(settings_)
    plan = plan_rollouts(settings_, texts)
    meta = check_meta(tmp_path, settings_, variant_ids(settings_, texts), False)
    jr.write_meta(tmp_path, meta)
    entries = [_entry(s.key, s.settings, n=i, protocol=s.protocol) for i, s in enumerate(plan)]
    entries[0]["record"].update(reward=None, infrastructure_error=True,
                                termination_reason="infrastructure_error:timeout")
    entries[0]["record"]["extra"]["error"] = "m: timeout"
    entries.append(_entry(plan[3].key, plan[3].settings, reward=0.0, n=3,
                          protocol=plan[3].protocol))  # a duplicate: the last entry wins
    (tmp_path / jr.JOURNAL).write_bytes(_lines(entries))
    return settings_, plan


def _same(a, b) -> bool:
    da, db = a.to_dict(), b.to_dict()
    da.pop("elapsed_s")
    db.pop("elapsed_s")
    return da == db


def test_a_resume_reads_the_index_not_the_journal(tmp_path, monkeypatch):
    settings_, plan = _run_dir(tmp_path)
    first = run_tax(settings_, DEAD, tmp_path)  # decodes the journal, writes the index
    assert first.ran == 0 and first.infrastructure_errors == 1 and first.scored == len(plan) - 1
    assert read_index(tmp_path / jr.JOURNAL, SUMMARY_FIELDS) is not None

    def no_decoding(*args, **kwargs):
        raise AssertionError("the journal was decoded although its index is current")

    monkeypatch.setattr(jr, "read_journal", no_decoding)
    again = run_tax(settings_, DEAD, tmp_path)
    assert _same(again, first)
    monkeypatch.undo()
    index_path(tmp_path / jr.JOURNAL).unlink()  # the same resume from the journal itself
    assert _same(run_tax(settings_, DEAD, tmp_path), first)


def test_an_entry_appended_after_the_index_counts(tmp_path):
    settings_, plan = _run_dir(tmp_path)
    run_tax(settings_, DEAD, tmp_path)
    with jr.JournalWriter(tmp_path / jr.JOURNAL) as writer:  # e.g. a run killed mid-way
        writer.append(_entry(plan[5].key, plan[5].settings, reward=None, n=5,
                             protocol=plan[5].protocol))
    result = run_tax(settings_, DEAD, tmp_path)
    assert result.infrastructure_errors == 2 and result.ran == 0
    index_path(tmp_path / jr.JOURNAL).unlink()
    assert _same(run_tax(settings_, DEAD, tmp_path), result)


def test_a_torn_or_damaged_journal_after_the_index_keeps_its_messages(tmp_path):
    settings_, plan = _run_dir(tmp_path)
    run_tax(settings_, DEAD, tmp_path)
    journal = tmp_path / jr.JOURNAL
    good = journal.read_bytes()
    with open(journal, "ab") as fh:
        fh.write(b'{"key": "' + plan[1].key.encode() + b'", "settin')
    with pytest.warns(TornJournalLineWarning, match="the last line is torn"):
        result = run_tax(settings_, DEAD, tmp_path)
    assert result.ran == 0 and journal.read_bytes() == good  # cut; that rollout was finished
    lines = good.split(b"\n")
    lines[2] = b"not json"
    journal.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=r"journal.ndjson:3: not valid JSON .*only its last "
                                           r"line can be torn"):
        run_tax(settings_, DEAD, tmp_path)


def test_changed_settings_and_retry_errors_are_decided_from_the_index(tmp_path, monkeypatch):
    settings_, plan = _run_dir(tmp_path, rollouts=1)
    run_tax(settings_, DEAD, tmp_path)
    assert read_index(tmp_path / jr.JOURNAL, SUMMARY_FIELDS) is not None
    # retry_errors: the one infrastructure error runs again (the endpoint is dead: again one)
    decoded = []
    real = jr.read_journal
    monkeypatch.setattr(jr, "read_journal", lambda *a, **k: decoded.append(1) or real(*a, **k))
    retried = run_tax(settings_, DEAD, tmp_path, retry_errors=True, max_retries=0, timeout=2.0)
    assert retried.ran == 1 and retried.infrastructure_errors == 1
    assert decoded  # rollouts ran: the full records were needed for trials.jsonl
    # another turn cap: every rollout of the plan runs again under the new settings id
    changed = dataclasses.replace(settings_, turn_cap=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rerun = run_tax(changed, DEAD, tmp_path, allow_changed_settings=True, max_retries=0,
                        timeout=2.0)
    assert rerun.ran == len(plan) and rerun.skipped == 0
    assert rerun.infrastructure_errors == len(plan)
