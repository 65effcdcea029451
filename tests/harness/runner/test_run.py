"""run_tax end to end against the scripted loopback server: records, transcripts, faults,
resume, settings, variants, extraction, mixed pairs, shards and merge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.base import FINAL_MARKER, OTHER_AGENT_PREFIX
from harness.runner import journal as jr
from harness.runner.keys import RolloutSpec
from harness.runner.merge import MergeConflictError, merge_runs
from harness.runner.run import RunSettings, SettingsMismatchError, plan_rollouts, run_tax
from noisefloor.logs import load_trials
from tests.harness.runner.conftest import PRICE_IN, PRICE_OUT, endpoints_for

EXTRA_FIELDS = {"task", "family", "difficulty", "instance_seed", "mode", "model_a", "model_b",
                "started_by", "prompt_variant", "turns", "tokens_in", "tokens_out", "cost_usd",
                "latency_s", "retries", "extraction", "answer", "rollout_key", "transcript",
                "error", "solo_view", "token_cap"}


def _settings(**kw):
    base = dict(tasks=("csp_sudoku4", "spatial_one_way"), models=("solver",), rollouts=2,
                difficulty=0, modes=("solo", "pair", "split_solo"), turn_cap=6)
    base.update(kw)
    return RunSettings(**base)


def _records(path):
    return [json.loads(line) for line in Path(path, "trials.jsonl").read_text().splitlines()]


def _journal_keys(path):
    return [json.loads(line)["key"] for line in Path(path, jr.JOURNAL).read_text().splitlines()]


def test_every_key_once_with_the_record_contract(server, tmp_path):
    settings = _settings()
    result = run_tax(settings, endpoints_for(server, "solver"), tmp_path)
    plan = plan_rollouts(settings)
    records = _records(tmp_path)
    assert len(plan) == 16 == result.planned == result.ran == len(records)
    assert sorted(r["extra"]["rollout_key"] for r in records) == sorted(s.key for s in plan)
    assert sorted(_journal_keys(tmp_path)) == sorted(s.key for s in plan)
    for r in records:
        extra = r["extra"]
        assert set(extra) == EXTRA_FIELDS
        assert r["benchmark"] == f"tax/{extra['task']}"
        assert r["task_id"] == f"{extra['task']}:{extra['instance_seed']}"
        assert r["protocol"] == extra["mode"] and r["model"] == "solver"
        assert r["seed"] == 0 and r["trial"] == 0 and not r["infrastructure_error"]
        if extra["mode"] in ("solo", "pair"):  # the scripted solver solves these
            assert (r["reward"], r["termination_reason"], extra["extraction"]) == \
                (1.0, "final_answer", "parse")
        else:  # one view alone: no answer, turn cap, score 0 (a real outcome, not an error)
            assert (r["reward"], r["termination_reason"], extra["turns"]) == (0.0, "turn_cap", 6)
        assert extra["model_b"] == ("solver" if extra["mode"] == "pair" else None)
        assert extra["started_by"] == ("a" if extra["mode"] == "pair" else None)
    # noisefloor reads the file as it is, one row per rollout
    frame = load_trials(tmp_path / "trials.jsonl")
    assert len(frame) == 16
    assert set(frame["protocol"]) == {"solo", "pair", "split_solo_a", "split_solo_b"}


def test_transcripts_and_tokens_and_cost_add_up(server, tmp_path):
    result = run_tax(_settings(modes=("pair",)), endpoints_for(server, "solver"), tmp_path)
    records = _records(tmp_path)
    total_in = total_out = 0
    for r in records:
        events = jr.read_transcript(tmp_path, r)
        assert [e["seq"] for e in events] == list(range(len(events)))
        assistant = [e for e in events if e["role"] == "assistant"]
        assert len(assistant) == r["extra"]["turns"] == 3  # a shares, b shares, a answers
        assert [e["agent"] for e in assistant] == ["a", "b", "a"]
        # b receives a's first message with the partner prefix
        relayed = next(e for e in events if e["agent"] == "b" and e["role"] == "user")
        assert relayed["content"] == f"{OTHER_AGENT_PREFIX} {assistant[0]['content']}"
        assert FINAL_MARKER in assistant[-1]["content"]
        assert all(e["params"] == {} and e["base_url"] == server.base_url for e in assistant)
        t_in = sum(e["tokens_in"] for e in assistant)
        t_out = sum(e["tokens_out"] for e in assistant)
        assert (r["extra"]["tokens_in"], r["extra"]["tokens_out"]) == (t_in, t_out)
        # usage as the scripted server defines it: 1 + characters // 4 per message
        for e in assistant:
            assert e["tokens_out"] == 1 + len(e["content"]) // 4
        assert r["extra"]["cost_usd"] == pytest.approx((t_in * PRICE_IN + t_out * PRICE_OUT) / 1e6)
        total_in, total_out = total_in + t_in, total_out + t_out
    assert (result.tokens_in, result.tokens_out) == (total_in, total_out)
    assert result.cost_usd == pytest.approx((total_in * PRICE_IN + total_out * PRICE_OUT) / 1e6)


def test_unknown_price_is_null_not_zero(server, tmp_path):
    result = run_tax(_settings(modes=("solo",)), endpoints_for(server, "solver", prices=False),
                     tmp_path)
    assert result.cost_usd is None
    assert all(r["extra"]["cost_usd"] is None for r in _records(tmp_path))


def test_faults_become_retries_or_infrastructure_errors_never_scores(server, tmp_path):
    server.inject("429", "500", "malformed", "drop", "empty", "429")
    settings = _settings(modes=("solo", "pair"), models=("solver",))
    result = run_tax(settings, endpoints_for(server, "solver"), tmp_path, timeout=1.0,
                     backoff_base=0.01)
    records = _records(tmp_path)
    assert sum(server.faults_served.values()) == 6
    assert sum(r["extra"]["retries"] for r in records) == 6
    assert all(r["reward"] == 1.0 for r in records) and result.infrastructure_errors == 0

    # a model whose endpoint always fails: infrastructure errors with a null reward
    server.fail_always("solver", "500")
    out2 = tmp_path / "down"
    result = run_tax(settings, endpoints_for(server, "solver"), out2, max_retries=1,
                     backoff_base=0.01)
    records = _records(out2)
    assert result.infrastructure_errors == len(records) == 8 and result.scored == 0
    for r in records:
        assert r["infrastructure_error"] is True and r["reward"] is None
        assert r["termination_reason"] == "infrastructure_error:http_500"
        assert "http_500 after 1 retries" in r["extra"]["error"]
        assert r["extra"]["retries"] == 1
    frame = load_trials(out2 / "trials.jsonl")
    assert frame["reward"].isna().all()

    # a plain resume leaves the errors alone; --retry-errors runs them again
    server.fail_always("solver", None)
    again = run_tax(settings, endpoints_for(server, "solver"), out2)
    assert (again.ran, again.infrastructure_errors) == (0, 8)
    fixed = run_tax(settings, endpoints_for(server, "solver"), out2, retry_errors=True)
    assert (fixed.ran, fixed.infrastructure_errors, fixed.scored) == (8, 0, 8)
    assert len(_records(out2)) == 8  # the last entry of each key wins
    assert len(_journal_keys(out2)) == 16  # nothing is lost from the journal


def test_a_hang_past_the_timeout_is_retried(server, tmp_path):
    server.inject("hang")
    result = run_tax(_settings(modes=("solo",), tasks=("csp_sudoku4",), rollouts=1),
                     endpoints_for(server, "solver"), tmp_path, timeout=0.3, backoff_base=0.01)
    (record,) = _records(tmp_path)
    assert record["reward"] == 1.0 and record["extra"]["retries"] == 1
    assert result.endpoint_stats[0]["failures"] == {"timeout": 1}


def test_resume_skips_finished_keys_and_refuses_other_settings(server, tmp_path):
    settings = _settings(modes=("solo",))
    first = run_tax(settings, endpoints_for(server, "solver"), tmp_path)
    requests = server.requests
    again = run_tax(settings, endpoints_for(server, "solver"), tmp_path)
    assert (again.ran, again.skipped, server.requests) == (0, first.planned, requests)
    bigger = run_tax(_settings(modes=("solo",), rollouts=3), endpoints_for(server, "solver"),
                     tmp_path)
    assert (bigger.ran, bigger.skipped) == (2, 4)  # the plan may grow
    with pytest.raises(SettingsMismatchError, match=r"turn_cap: 6 -> 7"):
        run_tax(_settings(modes=("solo",), turn_cap=7), endpoints_for(server, "solver"),
                tmp_path)
    changed = run_tax(_settings(modes=("solo",), turn_cap=7), endpoints_for(server, "solver"),
                      tmp_path, allow_changed_settings=True, )
    assert changed.ran == changed.planned == 4
    assert len(_records(tmp_path)) == 4  # only the current settings' records


def test_prompt_variant_protocol_and_prompt(server, tmp_path):
    settings = _settings(modes=("pair",), variants=("baseline", "all_four"))
    run_tax(settings, endpoints_for(server, "solver"), tmp_path)
    records = _records(tmp_path)
    assert {r["protocol"] for r in records} == {"pair", "pair+all_four"}
    for r in records:
        system = jr.read_transcript(tmp_path, r)[0]
        assert system["role"] == "system"
        assert ("Re-derive before agreeing" in system["content"]) == \
            (r["extra"]["prompt_variant"] == "all_four")
    with pytest.raises(ValueError, match=r"unknown prompt variant\(s\) \['nope'\]"):
        run_tax(_settings(variants=("nope",)), endpoints_for(server, "solver"), tmp_path)


def test_extractor_model_reads_a_free_text_answer(server, tmp_path):
    settings = _settings(models=("verbose",), modes=("solo",), tasks=("csp_sudoku4",))
    run_tax(settings, endpoints_for(server, "verbose"), tmp_path / "plain")
    assert {(r["reward"], r["extra"]["extraction"]) for r in _records(tmp_path / "plain")} == \
        {(0.0, "unreadable")}
    settings = _settings(models=("verbose",), modes=("solo",), tasks=("csp_sudoku4",),
                         extractor_model="extractor")
    run_tax(settings, endpoints_for(server, "verbose", "extractor"), tmp_path / "llm")
    for r in _records(tmp_path / "llm"):
        assert (r["reward"], r["extra"]["extraction"], r["extra"]["turns"]) == (1.0, "llm", 1)
        events = jr.read_transcript(tmp_path / "llm", r)
        assert [e["agent"] for e in events][-3:] == ["extractor"] * 3


def test_mixed_pairs_run_in_both_slot_orders(server, tmp_path):
    settings = _settings(models=(), pair_models=(("solver", "silent"),), modes=("pair",),
                         starter="alternate", rollouts=2)
    run_tax(settings, endpoints_for(server, "solver", "silent"), tmp_path)
    records = _records(tmp_path)
    assert {r["model"] for r in records} == {"solver+silent", "silent+solver"}
    assert {(r["extra"]["model_a"], r["extra"]["model_b"]) for r in records} == \
        {("solver", "silent"), ("silent", "solver")}
    assert {r["extra"]["started_by"] for r in records} == {"a", "b"}
    assert all(r["termination_reason"] == "turn_cap" and r["reward"] == 0.0 for r in records)
    load_trials(tmp_path / "trials.jsonl")  # keys unique across the two slot orders


def _comparable(records):
    return sorted(json.dumps({**r, "extra": {k: v for k, v in r["extra"].items()
                                              if k != "latency_s"}}, sort_keys=True)
                   for r in records)


def test_two_shards_merged_equal_one_unsharded_run(server, tmp_path):
    settings = _settings(rollouts=3)
    eps = endpoints_for(server, "solver")
    whole = run_tax(settings, eps, tmp_path / "whole")
    one = run_tax(settings, eps, tmp_path / "s1", shard=(1, 2))
    two = run_tax(settings, eps, tmp_path / "s2", shard=(2, 2))
    assert one.planned + two.planned == whole.planned and min(one.planned, two.planned) > 0
    merged = merge_runs([tmp_path / "s1", tmp_path / "s2"], tmp_path / "merged")
    assert merged.records == whole.planned and merged.duplicates == 0
    assert _comparable(_records(tmp_path / "merged")) == _comparable(_records(tmp_path / "whole"))
    for r in _records(tmp_path / "merged"):
        assert jr.read_transcript(tmp_path / "merged", r)
    # the merged directory resumes as a finished run
    assert run_tax(settings, eps, tmp_path / "merged").ran == 0


def test_merge_refuses_conflicts_and_other_settings(server, tmp_path):
    settings = _settings(modes=("solo",), tasks=("csp_sudoku4",), rollouts=1)
    run_tax(settings, endpoints_for(server, "solver"), tmp_path / "a")
    run_tax(settings, endpoints_for(server, "solver"), tmp_path / "b")
    # the same key run twice with the same outcome merges to one record
    assert merge_runs([tmp_path / "a", tmp_path / "b"], tmp_path / "ab").duplicates == 1
    # ... but a different finished record of the same key is a conflict
    path = tmp_path / "b" / jr.JOURNAL
    entry = json.loads(path.read_text())
    entry["record"]["reward"] = 0.0
    path.write_text(json.dumps(entry) + "\n")
    with pytest.raises(MergeConflictError, match="has different records in .* \\(rewards 1.0 and 0.0\\)"):
        merge_runs([tmp_path / "a", tmp_path / "b"], tmp_path / "conflict")
    run_tax(_settings(modes=("solo",), tasks=("csp_sudoku4",), rollouts=1, turn_cap=3),
            endpoints_for(server, "solver"), tmp_path / "c")
    with pytest.raises(ValueError, match="different settings \\(turn_cap: 6 vs 3\\)"):
        merge_runs([tmp_path / "a", tmp_path / "c"], tmp_path / "ac")
    with pytest.raises(ValueError, match="already holds a journal"):
        merge_runs([tmp_path / "a"], tmp_path / "b")


def test_torn_last_line_is_run_again_and_bad_lines_are_named(server, tmp_path):
    settings = _settings(modes=("solo",), tasks=("csp_sudoku4",), rollouts=2)
    run_tax(settings, endpoints_for(server, "solver"), tmp_path)
    path = tmp_path / jr.JOURNAL
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[1][: len(lines[1]) // 2])  # died mid-write
    with pytest.warns(UserWarning, match="the last line is torn"):
        result = run_tax(settings, endpoints_for(server, "solver"), tmp_path)
    assert (result.ran, result.skipped) == (1, 1)
    assert len(_journal_keys(tmp_path)) == 2 and len(_records(tmp_path)) == 2
    path.write_bytes(b"not json\n" + path.read_bytes())
    with pytest.raises(jr.JournalError, match=r"journal.ndjson:1: not valid JSON"):
        run_tax(settings, endpoints_for(server, "solver"), tmp_path)


def test_missing_endpoint_and_bad_settings(server, tmp_path):
    with pytest.raises(ValueError, match=r"no endpoint for model\(s\) \['other'\]"):
        run_tax(_settings(models=("other",)), endpoints_for(server, "solver"), tmp_path)
    with pytest.raises(ValueError, match="modes must be among"):
        _settings(modes=("duo",))
    with pytest.raises(ValueError, match="pair_models needs 'pair'"):
        _settings(modes=("solo",), pair_models=(("a", "b"),))
    with pytest.raises(KeyError, match="unknown task 'nope'"):
        plan_rollouts(_settings(tasks=("nope",)))
    with pytest.raises(ValueError, match="model_b must be set exactly for mode 'pair'"):
        RolloutSpec("t", 0, 0, "solo", "m", "m", None, 0, "baseline", 0, "")


def test_an_auth_failure_stops_the_run_and_keeps_finished_work(server, tmp_path):
    from noisefloor.endpoints import EndpointFatalError

    server.fail_always("solver", "401")
    with pytest.raises(EndpointFatalError, match="http_401"):
        run_tax(_settings(modes=("solo",)), endpoints_for(server, "solver"), tmp_path)
    assert _journal_keys(tmp_path) == []


def test_extractor_failures_are_infrastructure_errors_and_none_is_no_answer(server, tmp_path):
    settings = _settings(models=("verbose",), modes=("solo",), tasks=("csp_sudoku4",),
                         rollouts=1, extractor_model="extractor")
    server.fail_always("extractor", "500")
    run_tax(settings, endpoints_for(server, "verbose", "extractor"), tmp_path / "down",
            max_retries=0)
    (r,) = _records(tmp_path / "down")
    assert (r["reward"], r["infrastructure_error"], r["termination_reason"]) == \
        (None, True, "infrastructure_error:http_500")
    # an extractor that finds no answer ('NONE') leaves the answer unread: score 0, not an error
    server.fail_always("extractor", None)
    # ('wrong' writes the oracle answer with '<corrupted>' appended: unreadable, no « »)
    settings = _settings(models=("wrong",), modes=("solo",), tasks=("csp_sudoku4",),
                         rollouts=1, extractor_model="extractor")
    run_tax(settings, endpoints_for(server, "wrong", "extractor"), tmp_path / "none")
    (r,) = _records(tmp_path / "none")
    assert (r["reward"], r["extra"]["extraction"], r["termination_reason"]) == \
        (0.0, "unreadable", "final_answer")
    assert jr.read_transcript(tmp_path / "none", r)[-1]["content"] == "NONE"


def test_cost_matches_a_published_price_example():
    from noisefloor.endpoints import ModelEndpoint

    # OpenAI's list price of gpt-4o-mini (July 2024): $0.15 per 1M input tokens and $0.60 per
    # 1M output tokens, so 2,000 input + 500 output tokens cost 0.0003 + 0.0003 = $0.0006
    spec = ModelEndpoint("gpt-4o-mini", ("https://api.openai.com/v1",),
                         price_input_per_mtok=0.15, price_output_per_mtok=0.60)
    assert spec.cost(2_000, 500) == pytest.approx(0.0006)
    assert spec.cost(None, 500) is None


def test_starter_b_opens_the_dialogue(server, tmp_path):
    run_tax(_settings(modes=("pair",), tasks=("csp_sudoku4",), rollouts=1, starter="b"),
            endpoints_for(server, "solver"), tmp_path)
    (r,) = _records(tmp_path)
    events = jr.read_transcript(tmp_path, r)
    first = next(e for e in events if e["role"] == "assistant")
    assert r["extra"]["started_by"] == "b" and first["agent"] == "b" and r["reward"] == 1.0
