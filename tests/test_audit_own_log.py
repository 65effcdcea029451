"""``noisefloor audit --log`` on a user's own two-system JSONL without store fields.

The log: 60 tasks x 3 trials of ``baseline`` and ``swarm`` (swarm truly succeeds 12 pp more
often), written in that order, no ``store_events_at_start``. Three footguns are pinned: the
contrast's sign follows the user's order, the bundled published claims are placed only when
asked, and no coordination-active subset is formed without store fields.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.pipelines import audit_run
from noisefloor.stats.validation import ParameterError


@pytest.fixture(scope="module")
def two_systems(tmp_path_factory) -> str:
    rng = np.random.default_rng(23)
    p = rng.uniform(0.2, 0.7, size=60)
    lines = []
    for protocol, shift in (("baseline", 0.0), ("swarm", 0.12)):
        for trial in range(3):
            success = rng.random(60) < p + shift
            lines += [{"schema_version": "1", "benchmark": "mybench", "model": "gpt-4.1",
                       "protocol": protocol, "seed": 1, "task_id": f"task-{i:02d}",
                       "trial": trial, "reward": float(success[i]),
                       "termination_reason": "done", "infrastructure_error": False}
                      for i in range(60)]
    path = tmp_path_factory.mktemp("own") / "two.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return str(path)


NULLS = ("baseline-baseline", "swarm-swarm")


def _records(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _write(path, records) -> str:
    path.write_text("".join(json.dumps(x) + "\n" for x in records), encoding="utf-8")
    return str(path)


def _run(path, **kw):
    return audit_run(logs=[path], null_pairs=NULLS, **kw)


def test_user_order_sets_the_sign(two_systems):
    ab = _run(two_systems, a="swarm", b="baseline").log_contrasts
    ba = _run(two_systems, a="baseline", b="swarm").log_contrasts
    assert set(ab["contrast"]) == {"swarm-baseline"}
    assert set(ba["contrast"]) == {"baseline-swarm"}
    # one contrast, both signs: wins and losses swap, the gap flips
    assert (ab["wins"].to_numpy() == ba["losses"].to_numpy()).all()
    assert np.allclose(ab["gap"].to_numpy(), -ba["gap"].to_numpy())
    assert (ab["gap"] > 0).all()  # the planted gain reads positive when swarm is named first


def test_default_order_is_the_logs_not_the_alphabet(two_systems, tmp_path):
    # the same records with swarm written first: the contrast follows the file, not sorting
    records = _records(two_systems)
    flipped = _write(tmp_path / "flipped.jsonl",
                     [r for r in records if r["protocol"] == "swarm"]
                     + [r for r in records if r["protocol"] == "baseline"])
    assert set(_run(flipped).log_contrasts["contrast"]) == {"swarm-baseline"}
    assert set(_run(two_systems).log_contrasts["contrast"]) == {"baseline-swarm"}


def test_sign_convention_is_said(two_systems, tmp_path):
    out = CliRunner().invoke(cli, ["audit", "--log", two_systems, "--null", NULLS[0], "--null",
                                   NULLS[1], "--a", "swarm", "--b", "baseline", "--no-plot",
                                   "--out", str(tmp_path / "o")], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "swarm-baseline is swarm minus baseline: a positive gap means swarm succeeded" in out.output
    default = CliRunner().invoke(cli, ["audit", "--log", two_systems, "--null", NULLS[0],
                                       "--no-plot", "--out", str(tmp_path / "o")])
    assert "choose the contrast and its sign with --a X --b Y" in default.output
    assert "a=" not in default.output


@pytest.mark.parametrize("args, message", [
    (["--a", "swarm"], "give both --a and --b"),
    (["--a", "swarm", "--b", "swarm"], "given as both arms"),
    (["--a", "swarm", "--b", "nope"], "'nope' is not in the log"),
])
def test_bad_arms_are_refused_naming_options(two_systems, args, message, tmp_path):
    out = CliRunner().invoke(cli, ["audit", "--log", two_systems, "--null", NULLS[0],
                                   "--no-plot", "--out", str(tmp_path / "o"), *args])
    assert out.exit_code != 0 and message in out.output, out.output


def test_a_b_without_logs_is_refused(tmp_path):
    with pytest.raises(ParameterError, match="go with logs="):
        audit_run(a="x", b="y")
    out = CliRunner().invoke(cli, ["audit", "--a", "x", "--b", "y", "--no-plot", "--out", str(tmp_path / "o")])
    assert out.exit_code != 0 and "--a and --b go with --log" in out.output


def test_own_audit_places_only_the_users_claims(two_systems, tmp_path):
    run = _run(two_systems)
    assert run.result.verdicts == () and "none" in run.claims_source
    assert run.to_dict()["claims"] == []
    text = CliRunner().invoke(cli, ["audit", "--log", two_systems, "--null", NULLS[0],
                                    "--no-plot", "--out", str(tmp_path / "r")]).output
    assert "Claims: none placed" in text and "Reflexion" not in text
    assert "Reflexion" not in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    claims = tmp_path / "claims.csv"
    claims.write_text("paper,effect_high,unit\nmine,0.2,pp\n", encoding="utf-8")
    mine = _run(two_systems, claims=claims)
    assert [v.paper for v in mine.result.verdicts] == ["mine"]


def test_bundled_claims_only_when_asked(two_systems, tmp_path):
    run = _run(two_systems, bundled_claims=True)
    assert len(run.result.verdicts) == 10
    assert "other papers' claims" in run.claims_note
    with pytest.raises(ParameterError, match="not both"):
        _run(two_systems, bundled_claims=True, claims=tmp_path / "c.csv")


def test_counts_without_claims_places_none(tmp_path):
    import importlib.resources as res

    path = tmp_path / "counts.csv"  # the bundled count table, given as the user's own file
    text = res.files("noisefloor.data").joinpath("paper_paired_counts.csv").read_text(
        encoding="utf-8")
    path.write_text("".join(line for line in text.splitlines(keepends=True)
                            if not line.startswith("#")), encoding="utf-8")
    assert audit_run(counts=path).result.verdicts == ()
    assert len(audit_run(counts=path, bundled_claims=True).result.verdicts) == 10


def test_bundled_default_run_is_unchanged():
    r = audit_run()
    assert round(r.noise_floor.floor, 3) == 0.118  # Kaliyev & Maryanskyy (2026): 11.8 pp floor
    assert r.result.counts == {"below": 7, "inside": 1, "above": 2}
    assert r.claims_note == ""


def test_no_coordination_active_subset_without_store_fields(two_systems):
    run = _run(two_systems)
    assert set(run.log_contrasts["subset"]) == {"all"}
    assert any("no coordination-active subset" in n and "store_events_at_start" in n
               for n in run.notes)
    assert not any("coordination_active" in str(r) for r in run.to_dict()["log_contrasts"])


def test_coordination_active_subset_with_store_fields(two_systems, tmp_path):
    stored = _write(tmp_path / "stored.jsonl",
                    [{**r, "store_events_at_start": 0 if r["trial"] == 0 else 3}
                     for r in _records(two_systems)])
    run = _run(stored)
    assert "coordination_active" in set(run.log_contrasts["subset"])
    assert not any("no coordination-active subset" in n for n in run.notes)


def test_contrast_refuses_the_subset_without_store_fields(two_systems, tmp_path):
    from noisefloor.pipelines import contrast_run

    with pytest.raises(ParameterError, match="no store_events_at_start"):
        contrast_run([two_systems], "swarm", "baseline", coordination_active=True)
    out = CliRunner().invoke(cli, ["contrast", "--log", two_systems, "--a", "swarm", "--b",
                                   "baseline", "--coordination-active"])
    assert out.exit_code != 0 and "drop --coordination-active" in out.output, out.output
    stored = _write(tmp_path / "stored.jsonl",
                    [{**r, "store_events_at_start": 0 if r["trial"] == 0 else 3}
                     for r in _records(two_systems)])
    rows = contrast_run([stored], "swarm", "baseline", coordination_active=True).contrasts
    assert "coordination_active" in set(rows["subset"])
