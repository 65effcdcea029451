"""The E1 audit (identical first requests) names every task whose first requests differ."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from noisefloor.floor.nulls import FirstRequestMismatchWarning, certified_null_contrasts


def _trials(hashes_b):
    rows = []
    for protocol, hashes in (("no_coord", ["h0", "h1", "h2", "h3"]), ("intercept", hashes_b)):
        for i, h in enumerate(hashes):
            rows.append({"benchmark": "b", "model": "m", "seed": 1, "protocol": protocol,
                         "task_id": f"t{i}", "trial": 0, "reward": float(i % 2),
                         "infrastructure_error": False, "store_events_at_start": 0,
                         "injections": 0, "first_request_sha256": h})
    return pd.DataFrame(rows)


def test_identical_first_requests_are_clean_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = certified_null_contrasts(_trials(["h0", "h1", "h2", "h3"]))
    assert bool(result.table["clean"].iloc[0]) and result.first_request_mismatches == ()


def test_every_differing_task_is_named_and_the_contrast_is_not_clean():
    with pytest.warns(FirstRequestMismatchWarning, match=r"intercept-no_coord at seed 1: first "
                      r"requests differ on task\(s\) t1, t3, so the contrast is not clean"):
        result = certified_null_contrasts(_trials(["h0", "X", "h2", "Y"]))
    row = result.table.iloc[0]
    assert not bool(row["clean"]) and row["certified_by"] != "identical first requests"
    assert result.to_dict()["first_request_mismatches"] == [
        {"contrast": "intercept-no_coord", "seed": 1, "tasks": ["t1", "t3"], "unlogged": []}]


def test_a_hash_missing_in_one_arm_is_named_too():
    with pytest.warns(FirstRequestMismatchWarning, match=r"hashed in one arm only on task\(s\) t2"):
        result = certified_null_contrasts(_trials(["h0", "h1", None, "h3"]))
    assert result.first_request_mismatches[0]["unlogged"] == ["t2"]


def test_arms_that_differ_everywhere_by_design_are_not_reported():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = certified_null_contrasts(_trials(["p0", "p1", "p2", "p3"]))  # pull-like
    assert result.first_request_mismatches == () and not bool(result.table["clean"].iloc[0])
