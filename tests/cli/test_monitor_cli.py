"""``noisefloor monitor``: text and JSON output on the fixture logs, errors, exit status."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from noisefloor.cli.monitor import ALARM_EXIT_CODE, NOT_EVALUATED_EXIT_CODE, monitor
from noisefloor.logs import load_trials
from noisefloor.pipelines import floor_run

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "monitor"
MONITORED = str(FIXTURES / "monitored.jsonl")
BASELINE = str(FIXTURES / "baseline.jsonl")


def run(*args):
    return CliRunner().invoke(monitor, list(args), catch_exceptions=False)


def test_text_output_lists_every_alarm_with_the_trial_that_raised_it():
    res = run(MONITORED, "--baseline", BASELINE, "--window", "30")
    assert res.exit_code == 0, res.output
    out = res.output
    assert "monitored: 240 trials, time order: file order" in out
    assert "target 0.675 (mean of 8 baseline rounds)" in out
    assert "k 0.5, h 1.5 -> K 0.095, H 0.286; in-control ARL ~ 10.7 rounds" in out
    assert "alarm at >= 9.00 (+50%)" in out
    assert "R1  left out: 120 store_empty" in out
    assert "8 alarm(s), in time order:" in out
    rows = [
        line.split()
        for line in out.splitlines()
        if line.strip().startswith(("R1 ", "R2 ", "R3 ")) and "monitored.jsonl:" in line
    ]
    firsts = {}
    for row in rows:
        firsts.setdefault(row[0], row[1].rsplit(":", 1)[1])
    # R1 at the row completing round 6, R2 at the onset in row 168, R3 at line 224 (the second
    # {"amount": 20} / {"amount": 20.0} pair) -- see tests/monitoring/test_monitor_trials.py
    assert firsts == {"R1": "140", "R2": "168", "R3": "224"}


def test_json_output_is_one_document():
    res = run(MONITORED, "--baseline", BASELINE, "--window", "30", "--json")
    assert res.exit_code == 0
    doc = json.loads(res.output)
    assert [(a["rule"], a["line"]) for a in doc["alarms"]][:3] == [
        ("R1", 140),
        ("R1", 160),
        ("R2", 168),
    ]
    assert doc["r2"]["statistic"][0] is None  # NaN (no full window yet) travels as null
    assert doc["r1"]["sigma_source"] == "sd of 8 baseline rounds (ddof 1)"
    assert doc["excluded"]["R1"]["store_empty"] == 120


def test_quiet_when_the_baseline_is_monitored_against_itself_and_exit_status():
    res = run(
        BASELINE, "--baseline", BASELINE, "--window", "100", "--cusum-h", "5", "--fail-on-alarm"
    )
    assert res.exit_code == 0 and res.output.rstrip().endswith("no alarm (R1, R2, R3 evaluated)")
    loud = run(MONITORED, "--baseline", BASELINE, "--window", "30", "--fail-on-alarm")
    assert loud.exit_code == ALARM_EXIT_CODE


def test_sigma_option_and_tasks_option():
    res = run(MONITORED, "--baseline", BASELINE, "--sigma", "0.05", "--tasks", "g01,g02", "--json")
    doc = json.loads(res.output)
    assert doc["r1"]["sigma"] == 0.05 and doc["r1"]["sigma_source"] == "parameter"
    assert doc["r1_rounds"]["tasks"] == ["g01", "g02"]


def _floor_log(path: Path, model: str = "demo-model") -> Path:
    # the monitored fixture's benchmark and model (the floor of another model is refused)
    rng = np.random.default_rng(4)
    with path.open("w") as fh:
        for seed in (0, 1):
            for protocol in ("no_coord", "intercept"):
                for t in range(30):
                    rec = {
                        "schema_version": "1",
                        "benchmark": "tau2/retail",
                        "model": model,
                        "protocol": protocol,
                        "seed": seed,
                        "task_id": f"t{t}",
                        "trial": 0,
                        "reward": float(rng.random() < 0.5),
                        "termination_reason": "user_stop",
                        "infrastructure_error": False,
                        "store_events_at_start": 0,
                        "injections": 0,
                    }
                    fh.write(json.dumps(rec) + "\n")
    return path


def test_sigma_from_floor_logs(tmp_path):
    floor_path = _floor_log(tmp_path / "floor.jsonl")
    expected = floor_run(load_trials(floor_path)).noise_floor.null_gap_sd
    res = run(MONITORED, "--baseline", BASELINE, "--floor-log", str(floor_path), "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["r1"]["sigma"] == pytest.approx(expected)
    assert doc["r1"]["sigma_source"] == (
        f"null_gap_sd of the noise floor of {floor_path} (2 per-seed null contrasts)")


def test_monitor_logs_takes_floor_logs_as_given_or_not(tmp_path):
    """No floor logs (``()``) is not given; a trial frame is, however it is held."""
    from noisefloor.monitoring.from_logs import monitor_logs

    assert monitor_logs(MONITORED, BASELINE, sigma=0.05, floor_logs=()).r1.sigma == 0.05
    floor_path = _floor_log(tmp_path / "floor.jsonl")
    with pytest.raises(ValueError, match="not both"):
        monitor_logs(MONITORED, BASELINE, sigma=0.05, floor_logs=load_trials(floor_path))


def test_errors_are_one_clear_line(tmp_path):
    both = CliRunner().invoke(
        monitor, [MONITORED, "--baseline", BASELINE, "--sigma", "0.1", "--floor-log", BASELINE]
    )
    assert both.exit_code == 2 and "give --sigma or --floor-log, not both" in both.output
    missing = CliRunner().invoke(monitor, [MONITORED])
    assert missing.exit_code == 2 and "--baseline" in missing.output
    no_floor = CliRunner().invoke(
        monitor, [MONITORED, "--baseline", BASELINE, "--floor-log", BASELINE]
    )
    assert no_floor.exit_code == 1 and "no null contrast" in no_floor.output
    # a malformed call record names its file and line
    lines = Path(MONITORED).read_text().splitlines()
    rec = json.loads(lines[4])
    rec["extra"]["coordination_keys"][0].pop("fingerprint")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines[:4] + [json.dumps(rec)] + lines[5:]) + "\n")
    res = CliRunner().invoke(monitor, [str(bad), "--baseline", BASELINE])
    assert res.exit_code == 1
    assert f"{bad}:5: extra.coordination_keys[0] must be an object" in res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize(
    "option, value, expected",
    [
        ("--cusum-k", "nan", "Invalid value for --cusum-k: expected a finite number"),
        ("--k", "0", "Invalid value for --k: expected an integer >= 1, got 0"),
        ("--window", "-5", "Invalid value for --window: expected an integer >= 1"),
        ("--quantile", "1.5", "Invalid value for --quantile: expected a number strictly between"),
        ("--sigma", "inf", "Invalid value for --sigma: expected a finite number"),
        ("--rel-increase", "-2", "Invalid value for --rel-increase: expected a number > 0"),
        ("--collision-threshold", "2", "Invalid value for --collision-threshold"),
    ],
)
def test_bad_option_values_name_the_flag_typed(option, value, expected):
    # the library would say "k must be finite" for --cusum-k nan: ambiguous with --k
    res = CliRunner().invoke(monitor, [MONITORED, "--baseline", BASELINE, option, value])
    assert res.exit_code == 2 and expected in res.output, res.output


def test_floor_log_errors_name_the_floor_log(tmp_path):
    res = CliRunner().invoke(monitor, [MONITORED, "--baseline", BASELINE, "--floor-log", BASELINE])
    assert res.exit_code == 1
    assert f"--floor-log {BASELINE}: no null contrast can be formed" in res.output
    tied = tmp_path / "tied.jsonl"
    tied.write_text("".join(
        json.dumps({"schema_version": "1", "benchmark": "tau2/retail", "model": "demo-model",
                    "protocol": p, "seed": 1, "task_id": f"t{i}", "trial": 0,
                    "reward": float(i % 2), "termination_reason": None,
                    "infrastructure_error": False,
                    "store_events_at_start": 0}) + "\n"  # an empty store certifies trial 0 null
        for p in ("no_coord", "intercept") for i in range(4)))
    res = CliRunner().invoke(monitor, [MONITORED, "--baseline", BASELINE, "--floor-log", str(tied)])
    assert res.exit_code == 1 and "null_gap_sd is nan, not a usable sigma" in res.output


def test_a_protocol_absent_from_the_logs_is_an_error_not_no_alarm():
    res = CliRunner().invoke(monitor, [MONITORED, "--baseline", BASELINE, "--protocol", "pul",
                                       "--fail-on-alarm"])
    # (the CLI may spell the keyword as its option: "protocol='pul'" or "--protocol pul")
    assert res.exit_code == 1 and "pul" in res.output and "matches no trial" in res.output
    assert "no alarm" not in res.output


def test_floor_log_of_another_model_or_benchmark_is_refused(tmp_path):
    # it was used without a word: the sigma of model "m" set the CUSUM of "demo-model"
    other = _floor_log(tmp_path / "other.jsonl", model="m")
    res = CliRunner().invoke(monitor, [MONITORED, "--baseline", BASELINE, "--floor-log", str(other)])
    assert res.exit_code == 1
    assert (f"--floor-log {other}: the floor's logs are model m (the monitored trials: "
            "demo-model)") in res.output
    assert "--sigma" in res.output


def _plain_log(path: Path) -> Path:
    # records without store, injection or coordination-key fields: no rule has anything to watch
    path.write_text("".join(
        json.dumps({"schema_version": "1", "benchmark": "b", "model": "m", "protocol": "p",
                    "seed": 1, "task_id": f"t{i}", "trial": 0, "reward": float(i % 2),
                    "termination_reason": None, "infrastructure_error": False}) + "\n"
        for i in range(6)))
    return path


def test_fail_on_alarm_when_no_rule_could_be_evaluated_is_not_a_pass(tmp_path):
    log = str(_plain_log(tmp_path / "plain.jsonl"))
    res = CliRunner().invoke(monitor, [log, "--baseline", log, "--fail-on-alarm"])
    assert res.exit_code == NOT_EVALUATED_EXIT_CODE, res.output
    assert "no rule could be evaluated" in res.output and "no alarm" not in res.output
    assert "R1  not evaluated" in res.output
    quiet = CliRunner().invoke(monitor, [log, "--baseline", log])  # without the flag: status 0
    assert quiet.exit_code == 0 and "nothing was checked" in quiet.output
    as_json = CliRunner().invoke(monitor, [log, "--baseline", log, "--fail-on-alarm", "--json"])
    assert as_json.exit_code == NOT_EVALUATED_EXIT_CODE


def test_a_rule_that_ran_but_compared_nothing_is_not_evaluated():
    # fixtures/logs/trials.jsonl logs injections = 0 everywhere: R2 runs, but a 50 % rise over a
    # baseline quantile of 0 is undefined and 6 trials fill no window of 200, so it compared
    # nothing; R1 (empty stores) and R3 (no call records) cannot run at all
    log = str(Path(__file__).resolve().parents[2] / "fixtures" / "logs" / "trials.jsonl")
    res = CliRunner().invoke(monitor, [log, "--baseline", log, "--fail-on-alarm"])
    assert res.exit_code == NOT_EVALUATED_EXIT_CODE, res.output
    assert "R2  note: baseline 0.95 quantile is 0" in res.output
    assert "no rule could be evaluated" in res.output


def test_json_is_the_library_result_with_one_key_set(tmp_path):
    """--json is ``monitor_logs(...).to_dict()`` and has the same keys, sigma given, from the
    baseline or from a floor's logs."""
    from noisefloor.cli._common import jsonable
    from noisefloor.monitoring import monitor_logs

    floor_path = str(_floor_log(tmp_path / "floor.jsonl"))
    cases = {
        "sigma from the baseline": ([], {}),
        "sigma given": (["--sigma", "0.05"], {"sigma": 0.05}),
        "sigma from a floor's logs": (["--floor-log", floor_path], {"floor_logs": [floor_path]}),
    }
    shapes = set()
    for case, (args, kwargs) in cases.items():
        doc = json.loads(run(MONITORED, "--baseline", BASELINE, *args, "--json").output)
        assert doc == jsonable(monitor_logs(MONITORED, BASELINE, **kwargs).to_dict()), case
        shapes.add((tuple(doc), tuple(doc["r1"])))
    assert len(shapes) == 1


def test_sigma_with_floor_log_is_the_library_refusal_spelled_as_options(monkeypatch):
    # the command checked "--sigma or --floor-log" itself, before the library could; the
    # library's refusal (monitor_logs) is now the one, rendered with the command's options
    import noisefloor.cli.monitor as cli_monitor
    from noisefloor.monitoring import from_logs

    calls = []

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return from_logs.monitor_logs(*args, **kwargs)

    monkeypatch.setattr(cli_monitor, "monitor_logs", spy)
    both = CliRunner().invoke(
        monitor, [MONITORED, "--baseline", BASELINE, "--sigma", "0.1", "--floor-log", BASELINE])
    assert both.exit_code == 2, both.output
    assert "Error: give --sigma or --floor-log, not both" in both.output
    assert len(calls) == 1 and calls[0]["sigma"] == 0.1


def test_the_command_is_one_library_call_on_the_paths(monkeypatch, tmp_path):
    # monitor read the logs itself (read_logs) and passed the frames: now monitor_logs reads
    # the paths it is given, and refuses a log without any trial record itself
    import noisefloor.cli.monitor as cli_monitor
    from noisefloor.monitoring import from_logs

    seen = []

    def spy(logs, baseline, **kwargs):
        seen.append((logs, baseline, kwargs["read_options"]))
        return from_logs.monitor_logs(logs, baseline, **kwargs)

    monkeypatch.setattr(cli_monitor, "monitor_logs", spy)
    res = CliRunner().invoke(monitor, [MONITORED, "--baseline", BASELINE, "--sigma", "0.05"])
    assert res.exit_code == 0, res.output
    ((logs, baseline, read),) = seen
    assert logs == [(MONITORED, None)] and baseline == [(BASELINE, None)]
    assert read["format"] is None and read["allow_nan"] is False
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    res = CliRunner().invoke(monitor, [MONITORED, "--baseline", str(empty), "--format",
                                       "jsonl", "--sigma", "0.05"])
    assert res.exit_code == 1 and f"no trial record in {empty}" in res.output, res.output
    with pytest.raises(ValueError, match="no trial record"):
        from_logs.monitor_logs(MONITORED, str(empty), read_options={"format": "jsonl"},
                               sigma=0.05)
