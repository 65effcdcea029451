"""Property tests (Hypothesis): round trips, task ids, and fast path == reference path."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.logs import TrialRecord, load_trials, read_records, validate_logs
from noisefloor.logs.jsonl.columns import fast_arrays
from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_fast, parse_strict
from noisefloor.logs.jsonl.validation import validate_record

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

text = st.text(min_size=1, max_size=12)
json_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(
    allow_nan=False, allow_infinity=False) | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                               max_size=3),
    max_leaves=8)

records = st.fixed_dictionaries(
    {
        "schema_version": st.just("1"),
        "benchmark": st.sampled_from(["tau2/retail", "tau/airline"]),
        "model": text,
        "protocol": st.sampled_from(["no_coord", "pull", "intercept"]),
        "seed": st.none() | st.integers(-2**63, 2**63 - 1),
        # ids with a leading zero ("0" and 1-3 digits) that must never be read as numbers
        "task_id": st.text(min_size=1, max_size=6) | st.text(alphabet="0123456789", min_size=1,
                                                             max_size=3).map("0".__add__),
        "trial": st.integers(0, 2**63 - 1),
        "reward": st.none() | st.floats(0, 1) | st.sampled_from([0, 1]),
        "termination_reason": st.none() | text,
        "infrastructure_error": st.booleans(),
    },
    optional={
        "store_events_at_start": st.none() | st.integers(0, 50),
        "injections": st.none() | st.integers(0, 50),
        # 64 lowercase hex digits, drawn as 32 bytes (st.from_regex costs 10x more per draw)
        "first_request_sha256": st.none() | st.binary(min_size=32, max_size=32).map(bytes.hex),
        "extra": st.none() | st.dictionaries(st.text(max_size=5), json_values, max_size=3),
    },
).map(
    # the readers refuse a reward on an infrastructure error (it never produced a result);
    # tests/logs/test_infrastructure_reward.py covers that refusal
    lambda rec: {**rec, "reward": None} if rec["infrastructure_error"] else rec
)


def _unique(recs):
    seen, out = set(), []
    for rec in recs:
        key = (rec["benchmark"], rec["model"], rec["protocol"], rec["seed"], rec["task_id"],
               rec["trial"])
        if key not in seen:
            seen.add(key)
            out.append(rec)
    return out


@SETTINGS
@given(st.lists(records, min_size=1, max_size=15).map(_unique))
def test_round_trip_preserves_records(recs):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        models = [TrialRecord.model_validate(r) for r in recs]
        path.write_text("".join(m.model_dump_json() + "\n" for m in models), encoding="utf-8")
        df = load_trials(path)
        back = list(read_records(path))
    assert back == models
    assert df["task_id"].tolist() == [r["task_id"] for r in recs]  # never coerced
    assert df["line"].tolist() == list(range(1, len(recs) + 1))
    for row, model in zip(df.itertuples(index=False), models):
        assert row.trial == model.trial and row.infrastructure_error == model.infrastructure_error
        assert (math.isnan(row.reward) if model.reward is None else row.reward == model.reward)
        assert (pd.isna(row.seed) if model.seed is None else row.seed == model.seed)
        assert row.extra == model.extra


# Mutations that break one constraint each (or none): the fast path must never accept a block
# that the pydantic model rejects, and loading must accept exactly the lines the model accepts.
mutations = st.sampled_from([
    None, ("task_id", 7), ("task_id", ""), ("trial", -1), ("trial", 1.0), ("trial", True),
    ("reward", 1.5), ("reward", True), ("reward", "1"), ("seed", 2.0), ("seed", False),
    ("infrastructure_error", 1), ("schema_version", 1), ("extra", [1]), ("extra", "x"),
    ("first_request_sha256", "A" * 64), ("first_request_sha256", "a" * 63),
    ("first_request_sha256", "é" * 64), ("injections", -1), ("store_events_at_start", 0.0),
    ("colour", "red"), ("drop", "reward"), ("drop", "seed"), ("drop", "task_id"),
    ("termination_reason", 3), ("model", None), ("seed", 2**64),
])


def _mutate(rec, mutation):
    rec = dict(rec)
    if mutation is None:
        return rec
    name, value = mutation
    if name == "drop":
        rec.pop(value, None)
    else:
        rec[name] = value
    return rec


@SETTINGS
@given(st.lists(st.tuples(records, mutations), min_size=1, max_size=12))
def test_fast_path_never_accepts_what_the_model_rejects(pairs):
    recs = [_mutate(r, m) for r, m in pairs]
    verdicts = [isinstance(validate_record(r, "x", i), TrialRecord) for i, r in enumerate(recs)]
    if fast_arrays(recs) is not None:
        assert all(verdicts)


@SETTINGS
@given(st.lists(st.tuples(records, mutations), min_size=1, max_size=12))
def test_loading_accepts_exactly_the_lines_the_model_accepts(pairs):
    recs = [_mutate(r, m) for r, m in pairs]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
        report = validate_logs(path, format="jsonl")
    bad_lines = {p.line for p in report.problems if p.kind != "duplicate_row"}
    expected_bad = set()
    for i, rec in enumerate(recs, 1):
        result = validate_record(rec, "x", i)
        if not isinstance(result, TrialRecord):
            expected_bad.add(i)
        elif any(v is not None and not -2**63 <= v < 2**63
                 for v in (result.trial, result.seed, result.injections,
                           result.store_events_at_start)):
            expected_bad.add(i)  # the model allows it, the int64 table cannot hold it
    assert bad_lines == expected_bad


keys = st.text(alphabet="abc:é\"\\", min_size=0, max_size=3)


@SETTINGS
@given(st.lists(st.tuples(keys, json_values), max_size=5), st.booleans())
def test_parse_fast_equals_parse_strict(pairs, nest):
    # hand-built objects may repeat keys; both decoders must agree on value or on rejection
    body = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs)
    text = ('{"extra": {' + body + "}}") if nest else "{" + body + "}"
    raw = text.encode()
    try:
        expected = parse_strict(raw)
    except JSONProblem as exc:
        try:
            parse_fast(raw)
        except JSONProblem as fast_exc:
            assert fast_exc.kind == exc.kind
        else:
            raise AssertionError(f"parse_fast accepted {text!r}") from None
        return
    assert parse_fast(raw) == expected


flat_records = records.map(lambda r: {k: v for k, v in r.items() if k != "extra"})
layouts = st.sampled_from(["compact", "spaced", "shuffled"])


def _dump(rec, layout, rng):
    if layout == "compact":
        return json.dumps(rec, separators=(",", ":"))
    if layout == "spaced":
        return json.dumps(rec, separators=(", ", " : "))
    items = list(rec.items())
    rng.shuffle(items)
    return json.dumps(dict(items))


@SETTINGS
@given(st.lists(st.tuples(flat_records, mutations), min_size=1, max_size=12), layouts,
       st.randoms(use_true_random=False))
def test_arrow_fast_path_never_accepts_what_the_model_rejects(pairs, layout, rng):
    from noisefloor.logs.jsonl.columns import arrow_block, to_arrays
    from noisefloor.logs.jsonl.validation import extract_columns

    recs = [_mutate(r, m) for r, m in pairs]
    data = "\n".join(_dump(r, layout, rng) for r in recs).encode()
    arrays = arrow_block(data)
    if arrays is None:
        return
    models = [validate_record(r, "x", i) for i, r in enumerate(recs)]
    assert all(isinstance(m, TrialRecord) for m in models)
    expected = to_arrays(extract_columns([dict(m) for m in models]))
    for name, arr in expected.items():
        got = arrays[name]
        if name == "extra":
            assert list(got) == list(arr)
        elif hasattr(arr, "to_pylist"):
            assert got.to_pylist() == arr.to_pylist(), name
        else:
            assert np.array_equal(got, arr, equal_nan=True), name


key_rows = st.lists(
    st.tuples(st.sampled_from(["b1", "b2"]), st.sampled_from(["m"]), st.sampled_from(["p", "q"]),
              st.none() | st.integers(0, 2), st.sampled_from(["0", "00", "007", "7"]),
              st.integers(0, 2)),
    min_size=1, max_size=40)


@SETTINGS
@given(key_rows, st.integers(1, 7))
def test_hashed_duplicate_index_matches_exact_keys(rows, block):
    import pyarrow as pa

    from noisefloor.logs.records.duplicates import DuplicateIndex
    from noisefloor.logs.records.frame import duplicate_rows

    # exact answer from the key frame (pandas duplicated on the values themselves)
    frame = pd.DataFrame(rows, columns=["benchmark", "model", "protocol", "seed", "task_id",
                                        "trial"]).astype({"seed": "Int64"})
    frame["source"], frame["line"] = "f", range(1, len(rows) + 1)
    exact = [(("f", a + 1), ("f", b + 1)) for a, b in duplicate_rows(frame)]

    batch, stream = DuplicateIndex(), DuplicateIndex()
    streamed = []
    for start in range(0, len(rows), block):
        part = rows[start:start + block]
        arrays = {
            "benchmark": pa.array([r[0] for r in part]), "model": pa.array([r[1] for r in part]),
            "protocol": pa.array([r[2] for r in part]),
            "seed": pa.array([r[3] for r in part], type=pa.int64()),
            "task_id": pa.array([r[4] for r in part]),
            "trial": np.array([r[5] for r in part], dtype=np.int64),
        }
        lines = list(range(start + 1, start + 1 + len(part)))
        batch.add(arrays, "f", lines)
        streamed += stream.add(arrays, "f", lines, streaming=True)
    assert batch.pairs() == exact
    assert streamed == exact
