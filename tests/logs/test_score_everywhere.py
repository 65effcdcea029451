"""``--score`` reaches every analysis: one reader for passk, floor, contrast and audit.

The logs are written by inspect_ai itself (``make_inspect_logs.py``: two systems on one task,
scorers ``match`` and ``includes``, which disagree on every ``4 apples`` answer). The expected
counts are computed here from inspect's own reading of the logs (``read_eval_log``), so a
reader that ignored the scorer, or paired the wrong records, fails.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli
from noisefloor.pipelines import audit_run, contrast_run, floor_run

SCORERS = ("match", "includes")


@pytest.fixture(scope="module")
def systems(inspect_logs) -> dict[str, Path]:
    root = Path(inspect_logs["eval"]["path"]).parents[1] / "scorers"
    return {name: next((root / name).glob("*.eval")) for name in ("a", "b")}


def _successes(path: Path, scorer: str) -> dict[tuple[str, int], bool]:
    """(sample id, trial) -> success, as inspect reads the log (C is success)."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    return {(str(s.id), s.epoch - 1): s.scores[scorer].value == "C" for s in log.samples}


def _wlt(x: dict, tx: int, y: dict, ty: int) -> tuple[int, int, int]:
    ids = sorted({i for i, _ in x})
    wins = sum(x[(i, tx)] and not y[(i, ty)] for i in ids)
    losses = sum(y[(i, ty)] and not x[(i, tx)] for i in ids)
    return wins, losses, len(ids) - wins - losses


def test_the_scorers_disagree_in_these_logs(systems):
    for path in systems.values():
        match, includes = (_successes(path, s) for s in SCORERS)
        assert match != includes  # else the test below could not tell the scorers apart


@pytest.mark.parametrize("scorer", SCORERS)
def test_floor_counts_follow_the_scorer(systems, scorer):
    got = floor_run([(systems["a"], "A"), (systems["b"], "B")], score=scorer)
    table = got.null_contrasts.table.set_index("contrast")
    for arm, path in (("A", systems["a"]), ("B", systems["b"])):
        ok = _successes(path, scorer)
        for i, j in itertools.combinations(range(3), 2):
            row = table.loc[f"{arm}[t{i}]-{arm}[t{j}]"]
            assert (row["wins"], row["losses"], row["ties"]) == _wlt(ok, i, ok, j)


@pytest.mark.parametrize("scorer", SCORERS)
def test_contrast_counts_follow_the_scorer(systems, scorer):
    got = contrast_run([(systems["a"], "A"), (systems["b"], "B")], a="A", b="B", score=scorer)
    frame = got.to_frame()
    a, b = _successes(systems["a"], scorer), _successes(systems["b"], scorer)
    for row in frame.itertuples():
        assert (row.wins, row.losses, row.ties) == _wlt(a, row.trial, b, row.trial_b)


def test_floor_contrast_and_audit_change_with_the_scorer(systems):
    logs = [(systems["a"], "A"), (systems["b"], "B")]
    floors = {s: floor_run(logs, score=s).noise_floor.floor for s in SCORERS}
    assert floors["match"] != floors["includes"]
    audits = {s: audit_run(logs=logs, score=s, plot=False).to_dict() for s in SCORERS}
    assert audits["match"]["floor"] != audits["includes"]["floor"]


def test_cli_score_changes_floor_and_passk(systems):
    runner = CliRunner()
    outputs = {}
    for scorer in SCORERS:
        floor = runner.invoke(cli, ["floor", "--log", f"{systems['a']}=A", "--log",
                                    f"{systems['b']}=B", "--score", scorer, "--json"])
        passk = runner.invoke(cli, ["passk", str(systems["a"]), "--score", scorer, "--json"])
        assert floor.exit_code == 0 and passk.exit_code == 0, floor.output + passk.output
        outputs[scorer] = (floor.output, passk.output)
    assert outputs["match"][0] != outputs["includes"][0]
    assert outputs["match"][1] != outputs["includes"][1]


def test_inspect_configuration_is_task_solver_scorers_and_the_scorer_read(systems):
    import json

    from noisefloor.logs import load_trials

    for scorer in SCORERS:
        frame = load_trials(systems["a"], score=scorer)
        (text,) = set(frame["configuration"])
        conf = json.loads(text)
        assert conf["task"] == "two_scorers" and conf["score"] == scorer
        assert [s["name"] for s in conf["scorers"]] == ["match", "includes"]
        assert [s["solver"] for s in conf["solver"]] == ["generate"]
