"""The inspect_ai reader against real inspect logs (written by the ``inspect_logs`` fixture).

The references are what inspect itself reads from each log with ``read_eval_log``: the score
of every sample and epoch, its ``value_to_float``, the sample errors and limits, and the
first scorer's ``accuracy`` metric (inspect reduces each sample's epochs by their mean, then
averages over samples; errored epochs are not scored). pass^1 of the noisefloor reader is the
same estimand: per task c/n over the epochs that ran, averaged over tasks.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from noisefloor.cli.main import cli
from noisefloor.logs import LogValidationError, detect_format, load_trials, validate_logs
from noisefloor.logs.formats.inspect import value_to_float
from noisefloor.passk import pass_hat_k

#: the same eval: .eval zstd, .json, .eval deflate, log version 1, log version 3 (.eval, .json)
ARITH = ("eval", "json", "deflate", "v1", "v3_eval", "v3_json")


def _pass1(frame) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # boom has 2 counted epochs, the others 3
        return pass_hat_k(frame, 1).value


@pytest.mark.parametrize("key", [*ARITH, "values", "limit"])
def test_every_sample_maps_as_inspect_reads_it(inspect_logs, key):
    ref = inspect_logs[key]
    assert detect_format(ref["path"]) == "inspect"
    df = load_trials(ref["path"])
    assert len(df) == len(ref["samples"])
    assert set(df["benchmark"]) == {ref["task"]} and set(df["model"]) == {ref["model"]}
    assert set(df["protocol"]) == {"default"}
    rows = {(r.task_id, r.trial + 1): r for r in df.itertuples()}  # epoch 1 is trial 0
    for name, sample in ref["samples"].items():
        sample_id, epoch = name.rsplit("|", 1)
        row = rows[(sample_id, int(epoch))]
        if sample["error"] is not None:
            assert row.infrastructure_error and math.isnan(row.reward)
            assert row.termination_reason == f"error: {sample['error']}"
        else:
            assert not row.infrastructure_error
            assert row.reward == sample["float"]  # inspect's value_to_float of the same value
            assert row.extra["score_value"] == sample["value"]
        if sample["limit"] is not None:
            assert row.termination_reason == f"limit: {sample['limit']}"
        assert row.extra["scorer"] == ref["scorer"]


@pytest.mark.parametrize("key", ARITH)
def test_pass1_equals_inspects_accuracy(inspect_logs, key):
    ref = inspect_logs[key]
    df = load_trials(ref["path"])
    # inspect's own accuracy metric of the first scorer, as read by read_eval_log; 0.458333 is
    # (2/3 + 1/3 + 1/2 + 1/3) / 4: sample "boom" errored at epoch 2, so it counts 1 of 2.
    assert _pass1(df) == pytest.approx(ref["accuracy"], abs=1e-12)
    assert ref["accuracy"] == pytest.approx(0.458333333, abs=1e-9)
    # counting the errored epoch as a failure would give 0.4167: the two estimands differ here
    assert df["infrastructure_error"].sum() == 1


def test_one_epoch_mean_metric_equals_mean_reward(inspect_logs):
    ref = inspect_logs["values"]  # inspect's mean() over the typed scores, one epoch each
    df = load_trials(ref["path"])
    assert df["reward"].mean() == pytest.approx(ref["mean"], abs=1e-12)


def test_epochs_are_trials_and_formats_agree(inspect_logs):
    frames = {k: load_trials(inspect_logs[k]["path"]) for k in ARITH}
    cols = ["task_id", "trial", "reward", "infrastructure_error", "termination_reason"]
    base = frames["eval"][cols].sort_values(["task_id", "trial"]).reset_index(drop=True)
    assert sorted(base["trial"].unique()) == [0, 1, 2]
    assert sorted(base["task_id"].unique()) == ["4", "a", "b", "boom"]  # id 4 becomes "4"
    for key in ARITH[1:]:
        other = frames[key][cols].sort_values(["task_id", "trial"]).reset_index(drop=True)
        assert other.equals(base), key


def test_eval_archives_hold_zstd_and_deflate_members(inspect_logs):
    # the two compression methods really are exercised (93 = zstd, 8 = deflate)
    with zipfile.ZipFile(inspect_logs["eval"]["path"]) as z:
        assert {i.compress_type for i in z.infolist()} == {93}
    with zipfile.ZipFile(inspect_logs["deflate"]["path"]) as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}


def test_version_1_log_is_read_by_its_score_field(inspect_logs):
    doc = json.loads(Path(inspect_logs["v1"]["path"]).read_text())
    assert doc["version"] == 1 and "score" in doc["samples"][0]
    assert "scores" not in doc["samples"][0]


def test_score_option_picks_another_scorer(inspect_logs, tmp_path):
    path = inspect_logs["json"]["path"]
    default = load_trials(path)
    chosen = load_trials(path, score="includes")
    assert set(chosen["extra"].map(lambda e: e["scorer"])) == {"includes"}
    assert set(default["extra"].map(lambda e: e["scorer"])) == {"match"}
    with pytest.raises(LogValidationError, match=r"no scorer 'exact'.*'includes', 'match'"):
        load_trials(path, score="exact")
    # the CLI option reaches the reader
    result = CliRunner().invoke(cli, ["passk", path, "--score", "nope", "--k", "1"])
    assert result.exit_code == 1 and "no scorer 'nope'" in result.output


def test_cli_reads_inspect_logs_and_forced_format(inspect_logs):
    path = inspect_logs["eval"]["path"]
    result = CliRunner().invoke(cli, ["log", "validate", "--format", "inspect", path])
    assert result.exit_code == 0, result.output
    assert "12 valid record(s)" in result.output
    result = CliRunner().invoke(cli, ["passk", str(Path(path).parent), "--k", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert "0.4583" in result.output


def test_a_damaged_member_is_named_not_a_crash(inspect_logs, tmp_path):
    src = Path(inspect_logs["eval"]["path"])
    data = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as z:
        info = next(i for i in z.infolist() if i.filename.startswith("samples/"))
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for pos in range(start + 20, start + 60):
        data[pos] ^= 0xFF
    bad = tmp_path / src.name
    bad.write_bytes(bytes(data))
    report = validate_logs(bad)
    assert not report.ok
    problem = report.problems[0]
    assert problem.source == str(bad) and info.filename in problem.message


def test_a_zip_that_is_not_an_inspect_log(tmp_path):
    path = tmp_path / "other.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data.csv", "a,b\n")
    problem, = validate_logs(path).problems
    assert "header.json" in problem.message
    not_zip = tmp_path / "text.eval"
    not_zip.write_text("hello")
    with pytest.raises(LogValidationError, match="not a zip archive"):
        detect_format(not_zip)


def test_sample_without_the_scorer_is_a_problem(inspect_logs, tmp_path):
    doc = json.loads(Path(inspect_logs["json"]["path"]).read_text())
    del doc["samples"][0]["scores"]["match"]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc))
    problem, = validate_logs(path).problems
    assert (problem.line, problem.field) == (1, "scores.match")
    assert "'includes'" in problem.message  # names the scorers it has, and --score


def test_an_unmappable_score_value_is_not_counted_as_a_failure(inspect_logs, tmp_path):
    doc = json.loads(Path(inspect_logs["json"]["path"]).read_text())
    doc["samples"][2]["scores"]["match"]["value"] = {"accuracy": 1, "f1": 0.5}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc))
    problem, = validate_logs(path).problems
    assert (problem.line, problem.field) == (3, "scores.match.value")


def test_the_reader_does_not_import_inspect_ai(inspect_logs):
    code = ("import sys; from noisefloor.logs import load_trials; "
            f"df = load_trials({inspect_logs['eval']['path']!r}); "
            "assert len(df) == 12; assert 'inspect_ai' not in sys.modules; "
            "assert 'zipfile_zstd' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120,
                   cwd=Path(__file__).resolve().parents[2])


# value_to_float against inspect's own (the reference), on values inspect maps without warning
_STRINGS = st.one_of(
    st.sampled_from(["C", "I", "P", "N", "c", "yes", "YES", "No", "true", "False", "1", "0.5",
                     " 0.25 ", "1e-1", "-0", "+1", ".5", "5.", "maybe", "", "inf", "nan"]),
    st.text(alphabet="0123456789.eE+- CIPNyesno", max_size=6))


@given(st.one_of(_STRINGS, st.booleans(), st.integers(0, 1),
                 st.floats(0, 1, allow_nan=False)))
def test_value_to_float_matches_inspects(value):
    inspect_scorer = pytest.importorskip("inspect_ai.scorer")
    reference = inspect_scorer.value_to_float()
    ours = value_to_float(value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = reference(value)
    if ours is None:
        # where inspect gives up it warns and returns 0 (or a non-finite float): never a
        # reward noisefloor would invent
        assert theirs == 0.0 or not math.isfinite(theirs)
    else:
        assert ours == theirs


def test_eval_set_manifests_beside_the_logs_are_not_read_as_logs(inspect_logs, tmp_path):
    # inspect's eval_set writes logs.json (each log's header keyed by its file name) and
    # eval-set.json beside the logs (shapes as inspect 0.3.285 writes them)
    src = Path(inspect_logs["json"]["path"])
    run = tmp_path / "set"
    run.mkdir()
    log = run / src.name
    log.write_bytes(src.read_bytes())
    header = {k: v for k, v in json.loads(src.read_text()).items() if k != "samples"}
    (run / "logs.json").write_text(json.dumps({src.name: header}))
    (run / "eval-set.json").write_text(json.dumps({"eval_set_id": "x", "tasks": [{"name": "t"}]}))
    report = validate_logs(run)
    assert report.ok and report.files == (str(log),) and report.n_valid == 12
    with pytest.raises(LogValidationError, match="log-directory manifest"):
        detect_format(run / "logs.json")  # given by name it is named, not read
    # a file that merely has the name is read (and refused) as what it is
    (run / "logs.json").write_text(json.dumps({"a": 1}))
    assert not validate_logs(run).ok


def test_a_newer_log_version_is_refused_by_name(inspect_logs, tmp_path):
    doc = json.loads(Path(inspect_logs["json"]["path"]).read_text())
    doc["version"] = 4
    path = tmp_path / "v4.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(LogValidationError, match=r"unsupported inspect_ai log version \(expected "
                                                 r"1 or 2 or 3, received an integer 4\)"):
        load_trials(path)


def test_a_log_without_any_scorer_says_so_once(inspect_logs):
    folder = Path(inspect_logs["eval"]["path"]).parent.parent / "noscore"
    (log,) = sorted(folder.glob("*.eval"))
    report = validate_logs(log)
    (problem,) = report.problems
    assert "no scorer at all" in problem.message and "2 sample(s)" in problem.message
    assert "'?'" not in problem.message
    result = CliRunner().invoke(cli, ["passk", str(log)])
    assert result.exit_code == 1 and "no scorer at all" in result.output
