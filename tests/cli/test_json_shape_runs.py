"""One ``--json`` shape per command, and that document is the library result's ``to_dict()``:
``contrast`` (counts, protocols, models, re-runs), ``audit`` (bundled, a log by protocol or by
model), ``compare`` (two runs, or logs and named arms), ``log validate`` (readable or not) and
``floor`` (summed or random pooling, trial 0 or re-runs only). Each mode keeps the same
top-level keys and the same keys in every row, whatever the data."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from noisefloor.cli._common import jsonable
from noisefloor.cli.main import cli


def _json(*args: object, code: int = 0) -> Any:
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == code, r.output
    return json.loads(r.stdout)


def _doc(result: Any) -> Any:
    """``result.to_dict()`` as the command prints it (NaN as null, numpy values as Python)."""
    return json.loads(json.dumps(jsonable(result.to_dict()), allow_nan=False))


def _one_shape(docs: dict[str, dict], rows: str) -> None:
    assert len({tuple(d) for d in docs.values()}) == 1, {m: list(d) for m, d in docs.items()}
    keys = {tuple(r) for d in docs.values() for r in d[rows]}
    assert len(keys) == 1, keys


def test_contrast_json_has_one_shape_and_is_the_run(fixtures_dir):
    from noisefloor.pipelines import contrast_counts, contrast_run

    paper, nulls = fixtures_dir / "logs" / "paper", fixtures_dir / "nulls"
    labels = ("--benchmark", "tau2/retail", "--model", "m")
    models = ("--log", nulls / "tau2_runA", "--log", nulls / "tau2_modelB")
    docs = {"counts": _json("contrast", "--wins", 27, "--losses", 9, "--ties", 64, "--json"),
            "protocol": _json("contrast", "--log", paper, *labels, "--a", "intercept",
                              "--b", "no_coord", "--json"),
            "model": _json("contrast", *models, "--a", "claude-haiku-4-5", "--b",
                           "gpt-4.1-mini", "--trial", 0, "--json"),
            "a/a": _json("contrast", "--log", paper, *labels, "--a", "no_coord",
                         "--b", "no_coord", "--json")}
    assert [d["by"] for d in docs.values()] == ["counts", "protocol", "model", "protocol"]
    _one_shape(docs, "contrasts")
    # the arms' own column is null, the held-fixed one is filled
    assert {r["model"] for r in docs["protocol"]["contrasts"]} == {"m"}
    assert {r["protocol"] for r in docs["protocol"]["contrasts"]} == {None}
    assert {r["model"] for r in docs["model"]["contrasts"]} == {None}
    assert {r["protocol"] for r in docs["model"]["contrasts"]} == {"default"}
    assert docs["counts"] == _doc(contrast_counts(27, 9, 64))
    run = contrast_run([str(nulls / "tau2_runA"), str(nulls / "tau2_modelB")],
                       "claude-haiku-4-5", "gpt-4.1-mini", trials=[0])
    assert docs["model"] == _doc(run)


def test_audit_json_has_one_shape_and_is_the_run(fixtures_dir, tmp_path):
    from noisefloor.pipelines import audit_run

    nulls = fixtures_dir / "nulls"
    out = tmp_path / "report"
    common = ("--no-plot", "--out", out, "--json")
    docs = {"bundled": _json("audit", *common),
            "protocol": _json("audit", "--log", nulls / "two_systems.jsonl", "--null",
                              "baseline-baseline", *common),
            "model": _json("audit", "--log", nulls / "tau2_runA", "--log", nulls / "tau2_modelB",
                           "--by", "model", *common)}
    assert len({tuple(d) for d in docs.values()}) == 1
    assert docs["bundled"]["log_contrasts"] == []
    _one_shape({k: docs[k] for k in ("protocol", "model")}, "log_contrasts")
    run = audit_run(logs=[str(nulls / "tau2_runA"), str(nulls / "tau2_modelB")], by="model",
                    out=out, plot=False)
    assert docs["model"] == _doc(run)
    assert run.files == (str(out / "report.md"),)


def test_compare_json_has_one_shape_and_is_the_comparison(fixtures_dir):
    from noisefloor.compare import compare, compare_runs

    nulls = fixtures_dir / "nulls"
    run_a, run_b = nulls / "tau2_runA", nulls / "tau2_modelB"
    docs = {"runs": _json("compare", run_a, run_b, "--json"),
            "labelled": _json("compare", f"{run_a}=x", f"{run_b}=y", "--json"),
            "logs": _json("compare", "--log", nulls / "two_systems.jsonl", "--a", "swarm",
                          "--b", "baseline", "--json")}
    assert [d["by"] for d in docs.values()] == ["run", "run", "protocol"]
    _one_shape(docs, "trials")
    assert docs["runs"] == _doc(compare_runs(str(run_a), str(run_b)))
    logs = _doc(compare(str(nulls / "two_systems.jsonl"), a="swarm", b="baseline"))
    assert docs["logs"] == logs and "null_pairs=" in logs["advice"]


def test_log_validate_json_has_one_shape_and_is_the_report(fixtures_dir, tmp_path):
    from noisefloor.logs import validate_logs

    logs = fixtures_dir / "logs"
    missing = tmp_path / "missing.jsonl"
    docs = {"ok": _json("log", "validate", logs / "trials.jsonl", "--json"),
            "bad": _json("log", "validate", logs / "bad_example.jsonl", "--json", code=1),
            "unreadable": _json("log", "validate", missing, "--json", code=1),
            "both": _json("log", "validate", logs / "trials.jsonl", missing, "--json", code=1)}
    assert [d["ok"] for d in docs.values()] == [True, False, False, False]
    assert docs["unreadable"]["files"] == [] and docs["unreadable"]["problems"] == []
    assert len({tuple(d) for d in docs.values()}) == 1
    problems = {tuple(p) for d in docs.values() for p in (*d["problems"], *d["path_problems"])}
    assert len(problems) == 1, problems
    report = validate_logs([str(logs / "trials.jsonl"), str(missing)], unreadable="report")
    assert docs["both"] == _doc(report)


def test_floor_json_has_one_shape_and_is_the_run(fixtures_dir):
    from noisefloor.pipelines import floor_run

    paper, nulls = fixtures_dir / "logs" / "paper", fixtures_dir / "nulls"
    labels = ("--benchmark", "tau2/retail", "--model", "m")
    docs = {"summed": _json("floor", paper, *labels, "--json"),
            "random": _json("floor", paper, *labels, "--pooling", "random", "--json"),
            "reruns": _json("floor", nulls / "tau2_runA", nulls / "tau2_runB", "--no-trial0",
                            "--json")}
    _one_shape(docs, "contrasts")
    floors = [r for d in docs.values() for r in d["per_seed_floor"]]
    assert floors and {tuple(r) for r in floors} == {("seed", "floor")}
    run = floor_run(str(paper), benchmark="tau2/retail", model="m")
    assert docs["summed"] == _doc(run)
