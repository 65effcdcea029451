"""Reading tax runs: the contract's fields, and clear errors naming file, line and field."""

import json
import shutil

import pytest

from noisefloor.logs import LogValidationError
from noisefloor.tax.run import TaxRunError, read_run, read_transcripts


def _rewrite(src, dst, edit, line_no=1):
    shutil.copytree(src, dst)
    lines = (dst / "trials.jsonl").read_text().splitlines()
    rec = json.loads(lines[line_no - 1])
    edit(rec)
    lines[line_no - 1] = json.dumps(rec)
    (dst / "trials.jsonl").write_text("\n".join(lines) + "\n")
    return dst


def test_reads_modes_families_and_both_transcript_layouts(planted, small):
    for d, _ in (planted, small):
        run = read_run(d)
        df = run.rollouts
        assert set(df["mode"]) >= {"solo", "pair", "split_solo_a"}
        assert run.families == ("spatial", "relational", "csp")
        keys = df.loc[df["mode"] == "pair", "rollout_key"].head(5).tolist()
        events, missing = read_transcripts(run, keys)
        assert not missing and all(events[k] for k in keys)
        assert all(e["rollout_key"] == k for k in keys for e in events[k])
        seqs = [e["seq"] for e in events[keys[0]]]
        assert seqs == sorted(seqs)


def test_mixed_pairs_are_flagged(planted):
    df = read_run(planted[0]).rollouts
    mixed = df[df["mixed"]]
    assert set(mixed["model"]) == {"m-hi+m-lo", "m-lo+m-hi"}
    assert not df.loc[df["mode"] == "solo", "mixed"].any()


def test_missing_extra_field_names_file_line_field(small, tmp_path):
    d = _rewrite(small[0], tmp_path / "r", lambda r: r["extra"].pop("family"), line_no=3)
    with pytest.raises(TaxRunError, match=r"trials\.jsonl:3: field 'extra\.family': missing"):
        read_run(d)


def test_protocol_disagreeing_with_mode(small, tmp_path):
    d = _rewrite(small[0], tmp_path / "r", lambda r: r.update(protocol="solo+all_four"), line_no=1)
    with pytest.raises(TaxRunError, match=r":1: field 'protocol': disagrees with extra.mode 'solo'"):
        read_run(d)


def test_mixed_pair_model_must_follow_slot_order(planted, tmp_path):
    lines = (planted[0] / "trials.jsonl").read_text().splitlines()
    n = next(i for i, s in enumerate(lines, 1) if '"m-hi+m-lo"' in s)
    d = _rewrite(planted[0], tmp_path / "r", lambda r: r.update(model="m-hi&m-lo"), line_no=n)
    with pytest.raises(TaxRunError, match=rf":{n}: field 'model': a mixed pair's model must be "
                                          r"'m-hi\+m-lo'"):
        read_run(d)


def test_bad_schema_is_the_log_readers_error(small, tmp_path):
    d = _rewrite(small[0], tmp_path / "r", lambda r: r.update(reward=1.5), line_no=2)
    with pytest.raises(LogValidationError, match=r"trials\.jsonl:2"):
        read_run(d)


def test_missing_transcript_is_an_error_or_listed(small, tmp_path):
    d = tmp_path / "r"
    shutil.copytree(small[0], d)
    run = read_run(d)
    key = run.rollouts.loc[run.rollouts["mode"] == "pair", "rollout_key"].iloc[0]
    path = run.rollouts.loc[run.rollouts["rollout_key"] == key, "transcript"].iloc[0]
    import os
    os.remove(path)
    with pytest.raises(TaxRunError, match="field 'extra.transcript': transcript file .* does not exist"):
        read_transcripts(run, [key])
    events, missing = read_transcripts(run, [key], missing="omit")
    assert events == {} and missing == [key]


def test_shard_without_the_key_is_missing(planted, tmp_path):
    d = tmp_path / "r"
    shutil.copytree(planted[0], d)
    run = read_run(d)
    row = run.rollouts[run.rollouts["mode"] == "pair"].iloc[0]
    lines = open(row["transcript"]).read().splitlines()
    kept = [s for s in lines if json.loads(s)["rollout_key"] != row["rollout_key"]]
    open(row["transcript"], "w").write("\n".join(kept) + "\n")
    with pytest.raises(TaxRunError, match=rf":{row['line']}: field 'extra.transcript': no events "
                                          "with rollout_key"):
        read_transcripts(run, [row["rollout_key"]])


def test_bad_transcript_line_names_its_line(small, tmp_path):
    d = tmp_path / "r"
    shutil.copytree(small[0], d)
    run = read_run(d)
    row = run.rollouts[run.rollouts["mode"] == "pair"].iloc[0]
    lines = open(row["transcript"]).read().splitlines()
    ev = json.loads(lines[1])
    ev["role"] = "tool"
    lines[1] = json.dumps(ev)
    open(row["transcript"], "w").write("\n".join(lines) + "\n")
    with pytest.raises(TaxRunError, match=r"\.jsonl:2: field 'role': must be system, user or "
                                          "assistant"):
        read_transcripts(run, [row["rollout_key"]])


def test_no_such_directory():
    with pytest.raises(FileNotFoundError):
        read_run("/nonexistent/run")


def test_a_run_given_twice_is_refused(small, tmp_path):
    d = tmp_path / "copy"
    shutil.copytree(small[0], d)
    with pytest.raises(TaxRunError, match=r"copy/trials\.jsonl:1: field 'extra\.rollout_key': .* "
                                          r"was already read at .*trials\.jsonl:1"):
        read_run([small[0], d])
