"""One ``--json`` shape per command: ``passk`` whatever the number of configurations,
``agreement`` whatever the metric (the same top-level keys and the same keys in every row)."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from noisefloor.cli.main import cli


def _json(*args: object) -> Any:
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_passk_json_has_one_shape_for_one_and_several_configurations(fixtures_dir):
    logs = fixtures_dir / "logs"
    docs = {"one": _json("passk", logs / "tau2_dir", "--k", "1,2", "--json"),
            "runs": _json("passk", logs / "tau2_dir", logs / "tau2_json", "--k", "1,2", "--json"),
            "protocols": _json("passk", logs / "paper", "--benchmark", "tau2/retail",
                               "--model", "m", "--k", "1,2", "--json")}
    assert [len(d["groups"]) for d in docs.values()] == [1, 2, 3]
    assert {mode: list(d) for mode, d in docs.items()} == dict.fromkeys(
        docs, ["groups", "confidence"])
    group_keys = {tuple(g) for d in docs.values() for g in d["groups"]}
    assert len(group_keys) == 1, group_keys
    (keys,) = group_keys
    assert {"run", "pass_hat_k", "pass_at_k", "intervals"} <= set(keys)
    assert len({tuple(r) for d in docs.values() for g in d["groups"] for r in g["details"]}) == 1
    # --json is the library's one result
    from noisefloor.cli._common import jsonable
    from noisefloor.logs import load_trials
    from noisefloor.passk.report import pass_hat_k_report_from_trials

    trials = load_trials(str(logs / "paper"), benchmark="tau2/retail", model="m")
    report = pass_hat_k_report_from_trials(trials, (1, 2))
    assert jsonable(report.to_dict()) == docs["protocols"]
    # counted by hand in fixtures/logs/paper/*/trials.jsonl (24 records): one infrastructure
    # error, no_coord's task 13 trial 1 (reward null, termination_reason "harness_error:...");
    # intercept and pull have none
    assert report.n_infrastructure_errors == 1
    assert [(g["protocol"], g["n_infrastructure_errors"]) for g in docs["protocols"]["groups"]] \
        == [("intercept", 0), ("no_coord", 1), ("pull", 0)]
    assert report.n_trials_truncated == 0


def test_agreement_json_is_the_study_document_with_one_row_shape_for_every_metric(fixtures_dir):
    from noisefloor.agreement.study import ROW_KEYS

    study = fixtures_dir / "agreement" / "tax_annotations.csv"
    scores = fixtures_dir / "agreement" / "shrout_fleiss1979_scores.csv"
    docs = {"all": _json("agreement", study, "--judge", "judge", "--n-boot", "0", "--json"),
            "randolph": _json("agreement", study, "--metric", "fleiss", "--randolph",
                              "--n-boot", "0", "--json"),
            "icc": _json("agreement", scores, "--metric", "icc", "--json")}
    # one document, one key set, for kappa/alpha and ICC alike: the layout and why it was chosen
    # (the text output's first line) reach --json
    assert {mode: list(d) for mode, d in docs.items()} == dict.fromkeys(
        docs, ["source", "layout", "metric", "n_ratings", "n_ignored_ratings", "rows"])
    assert docs["all"]["layout"]["layout"] == "long" and docs["all"]["layout"]["reason"]
    assert docs["icc"]["layout"]["layout"] == "wide" and docs["icc"]["metric"] == "icc"
    modes = {mode: d["rows"] for mode, d in docs.items()}
    metrics = {r["metric"] for rows in modes.values() for r in rows}
    assert metrics == {"fleiss", "cohen", "krippendorff", "randolph", "icc"}
    assert all(isinstance(rows, list) and rows for rows in modes.values())
    assert {tuple(r) for rows in modes.values() for r in rows} == {ROW_KEYS}
    # a key of another metric is null (a number) or empty (a text, the categories)
    icc, kappa = modes["icc"][0], modes["all"][0]
    assert icc["z"] is None and icc["landis_koch"] == "" and icc["categories"] == []
    assert kappa["f"] is None and kappa["notation"] == "" and kappa["n_left_out"] is None
    # --json is the library's one result: its to_dict()
    from noisefloor.agreement.from_file import agreement_study
    from noisefloor.cli._common import jsonable

    calls = {"all": agreement_study(study, judge="judge", n_boot=0),
             "randolph": agreement_study(study, metric="fleiss", fleiss_method="randolph",
                                         n_boot=0),
             "icc": agreement_study(scores, metric="icc")}
    for mode, result in calls.items():
        doc = jsonable(result.to_dict())
        assert doc == docs[mode], mode
        assert doc["rows"] == jsonable(result.to_rows()), mode
    assert calls["all"].layout.describe().startswith("long layout")


def test_passk_command_is_one_library_call_on_the_paths(fixtures_dir, monkeypatch):
    # passk read the logs itself (read_logs) and called the library on the frame: now one
    # call, pass_hat_k_report_from_logs, on the paths (exported by noisefloor.passk)
    import noisefloor.cli.passk as cli_passk
    from noisefloor.passk import pass_hat_k_report_from_logs

    paper = str(fixtures_dir / "logs" / "paper")
    seen = []

    def spy(logs, ks, **kwargs):
        seen.append((logs, ks, kwargs))
        return pass_hat_k_report_from_logs(logs, ks, **kwargs)

    monkeypatch.setattr(cli_passk, "pass_hat_k_report_from_logs", spy)
    doc = _json("passk", paper, "--benchmark", "tau2/retail", "--model", "m", "--k", "1,2",
                "--json")
    ((logs, ks, kwargs),) = seen
    assert logs == [(paper, None)] and ks == (1, 2)
    assert kwargs["benchmark"] == "tau2/retail" and kwargs["model"] == "m"
    assert [g["protocol"] for g in doc["groups"]] == ["intercept", "no_coord", "pull"]
