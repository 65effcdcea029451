"""Regressions found by a new-user test: log options shared by
every command, clean warnings and messages, help texts, passk --k lists."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from noisefloor.cli.main import cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TAU2_DIR = FIXTURES / "logs" / "tau2_dir"


def _run(*args):
    # click >= 8.2 keeps stderr apart (result.stdout / result.stderr; result.output is both).
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def test_passk_infrastructure_errors_fail_still_counts_them():
    # under --infrastructure-errors fail the row showed 0.
    r = _run("passk", TAU2_DIR, "--k", "1", "--infrastructure-errors", "fail")
    assert r.exit_code == 0, r.output
    header, row = r.stdout.splitlines()[:2]
    row = re.sub(r"\[[^]]*\]", "interval", row)  # the pass@k interval "[lo, hi]" is one cell
    assert row.split()[header.split().index("n_infrastructure_errors")] == "1"
    assert row.split()[header.split().index("n_trials")] == "6"
    assert "1 infrastructure-error trial(s) counted as failed trials" in r.stdout
    doc = json.loads(_run("passk", TAU2_DIR, "--k", "1", "--infrastructure-errors", "fail",
                          "--json").stdout)
    assert doc["groups"][0]["n_infrastructure_errors"] == 1
    assert doc["groups"][0]["infrastructure_errors"] == "fail"
    excluded = _run("passk", TAU2_DIR, "--k", "1").stdout
    assert "1 infrastructure-error trial(s) dropped before counting" in excluded


def test_passk_k_accepts_a_comma_list_and_repetition():
    # --k 1,2,3 gave "not a valid integer range".
    doc = json.loads(_run("passk", TAU2_DIR, "--k", "1,2", "--k", "3", "--k", "2",
                          "--json").stdout)
    assert list(doc["groups"][0]["pass_hat_k"]) == ["1", "2", "3"]
    bad = _run("passk", TAU2_DIR, "--k", "1,x")
    assert bad.exit_code == 2 and "comma-separated list" in bad.stderr + bad.output
    assert _run("passk", TAU2_DIR, "--k", "0").exit_code == 2


def _nan_log(tmp_path):
    # The whole fixture log with a NaN literal inside the first record's ``extra``.
    lines = (FIXTURES / "logs" / "trials.jsonl").read_text().splitlines()
    assert '"extra": {' in lines[0]
    lines[0] = lines[0].replace('"extra": {', '"extra": {"latency": NaN, ', 1)
    log = tmp_path / "nan.jsonl"
    log.write_text("\n".join(lines) + "\n")
    return log


@pytest.mark.parametrize("command", [["floor", "{log}"], ["passk", "{log}"],
                                     ["audit", "--out", "{out}", "--log", "{log}", "--no-plot"],
                                     ["monitor", "{log}", "--baseline", "{log}"],
                                     ["log", "validate", "{log}"]])
def test_every_log_reading_command_has_allow_nan(tmp_path, command):
    # the NaN error recommended --allow-nan, which only log validate had.
    log = _nan_log(tmp_path)
    args = [a.replace("{log}", str(log)).replace("{out}", str(tmp_path / "rep"))
            for a in command]
    refused = _run(*args)
    assert refused.exit_code == 1
    assert ("non-finite number literal NaN (pass --allow-nan to accept it where a field may "
            "hold it, e.g. extra; a reward must be finite)") in refused.output
    assert "allow_nan" not in refused.output  # item 13: the CLI names the option only
    accepted = _run(*args, "--allow-nan")
    assert accepted.exit_code == 0, accepted.output


def test_truncated_line_is_one_clean_warning_line_on_stderr(tmp_path):
    # floor/passk showed a raw Python warning with internal paths.
    lines = (FIXTURES / "logs" / "trials.jsonl").read_bytes().rstrip(b"\n")
    log = tmp_path / "trunc.jsonl"
    log.write_bytes(lines[:-60])
    n = lines.count(b"\n") + 1
    cut = len(lines[:-60].rsplit(b"\n", 1)[1])
    for args in (["floor", log], ["passk", log], ["monitor", log, "--baseline", log]):
        r = _run(*args)
        assert r.exit_code == 0, r.output
        warned = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(warned) == 1, warned
        assert warned[0].startswith(f"warning: {log}:{n}: final line is truncated (no newline, "
                                    f"{cut} bytes, malformed JSON: ")
        assert warned[0].endswith("; it was skipped")
        assert "warning" not in r.stdout and ".py" not in r.stderr


def test_log_validate_format_auto():
    # every other command lists and defaults to 'auto'.
    log = FIXTURES / "logs" / "trials.jsonl"
    assert _run("log", "validate", "--format", "auto", log).exit_code == 0
    assert "[default: auto]" in _run("log", "validate", "--help").output


def test_python_keywords_are_cli_options_in_messages(tmp_path):
    # "choose one with protocol=" on the command line.
    paper = FIXTURES / "logs" / "paper"  # three protocols, no benchmark/model recorded
    r = _run("monitor", paper, "--baseline", paper)
    assert r.exit_code == 1 and "pass --benchmark and --model" in r.output
    r = _run("monitor", paper, "--baseline", paper, "--benchmark", "b", "--model", "m")
    assert r.exit_code == 1 and r.output.rstrip().endswith("choose one with --protocol")
    undetected = tmp_path / "x.jsonl"
    undetected.write_text('{"a": 1}\n')
    r = _run("floor", undetected)
    assert r.exit_code == 1 and "--format" in r.output and "format=" not in r.output


def test_a_searched_directory_names_every_non_log_file(tmp_path):
    # ``floor ../shared/data`` stopped at the first non-log JSON file; every
    # such file is named at once (never skipped silently).
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "trials.jsonl").write_bytes((FIXTURES / "logs" / "trials.jsonl")
                                                     .read_bytes())
    (tmp_path / "runs" / "leaderboard.json").write_text('{"model-a": {"pass_1": 0.5}}')
    (tmp_path / "runs" / "split.json").write_text('{"train": ["1"], "test": ["2"]}')
    for command in (["floor"], ["passk"], ["audit", "--out", tmp_path / "rep", "--log"]):
        r = _run(*command, tmp_path / "runs")
        assert r.exit_code == 1
        lines = r.output.splitlines()
        assert lines[:3] == [
            "Error: 2 file(s) are not recognised trial logs:",
            f"  {tmp_path / 'runs' / 'leaderboard.json'}: a JSON object with keys 'model-a'",
            f"  {tmp_path / 'runs' / 'split.json'}: a JSON object with keys 'train', 'test'"]
        assert lines[3].startswith("expected one of: a tau2-bench results.json")
        assert "--format" in lines[3] and "format=" not in lines[3]


def _all_commands(group=cli, path=()):
    import click

    yield path, group
    if isinstance(group, click.Group):
        # every command, loaded or not: the root group loads its commands lazily
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, (path, name)
            yield from _all_commands(command, path + (name,))


def test_help_summaries_fit_and_show_no_rest_markup():
    # summaries cut mid-sentence ("..."), ``double backticks`` in help.
    for path, _command in _all_commands():
        r = _run(*path, "--help")
        assert r.exit_code == 0, path
        assert "``" not in r.output, (path, r.output)
        if "Commands:" in r.output:
            listing = r.output.split("Commands:", 1)[1]
            assert "..." not in listing, (path, listing)


def test_help_explains_difficulty_and_contrast_arms():
    show = _run("harness", "show", "--help").output
    assert "Instance size. 0: smaller (6x6 maps" in " ".join(show.split())
    wins = " ".join(_run("contrast", "--help").output.split())
    assert "Tasks where a succeeded and b failed." not in wins  # a and b were never defined


@pytest.mark.parametrize("script", sorted((FIXTURES.parent / "benchmarks").glob("*.py")),
                         ids=lambda p: p.name)
def test_benchmark_scripts_answer_help_without_running(script):
    # monitor_alarms.py --help ran the whole simulation; runner.py, agreement_bootstrap.py and
    # others imported numpy, statsmodels or the endpoint layer before reading their options, so
    # --help took seconds. -X importtime lists every module the run imported (on stderr).
    import os
    import subprocess
    import sys

    # a script's own folder comes first on its sys.path: point it at this checkout's package
    repo = str(script.parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [repo, os.environ.get(
        "PYTHONPATH")])))
    r = subprocess.run([sys.executable, "-X", "importtime", str(script), "--help"],
                       capture_output=True, text=True, timeout=60, cwd=repo, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: {script.name}")
    imported = {row.rsplit("|", 1)[1].strip().split(".")[0]
                for row in r.stderr.splitlines() if row.startswith("import time:")}
    assert "argparse" in imported  # the listing is there
    assert not imported & HEAVY, sorted(imported & HEAVY)


#: Libraries a benchmark script may import only once its options are read (each takes from a
#: tenth of a second to seconds to import).
HEAVY = {"numpy", "pandas", "scipy", "matplotlib", "statsmodels", "sklearn", "pyarrow",
         "litellm", "openai", "aiohttp", "httpx", "tau2", "selenium", "pydantic", "noisefloor"}


def test_a_parameter_error_names_the_option_of_the_command_that_ran():
    # messages on the command line name options, not Python keywords. The
    # parameter travels in the exception (ParameterError.parameter, a mention {name=value}) and
    # is looked up in the click params of the running command, within a group too; the regex
    # rewriting of message text this replaced is gone.
    import click

    from noisefloor.cli._common import handle_errors
    from noisefloor.cli.main import _Root
    from noisefloor.stats.validation import MentionError, ParameterError

    @click.group(cls=_Root)
    def root():
        pass

    @root.command()
    @click.option("--judge", "judge_url")  # the option stores under another name
    @click.option("--k-exceeds-n")
    @click.option("--allow-nan", is_flag=True)
    @handle_errors
    def rate(judge_url, k_exceeds_n, allow_nan):
        if allow_nan:
            raise MentionError("no {judge} given; pass {k_exceeds_n='nan'} or {protocol}")
        raise ParameterError("k_exceeds_n", "'nan' or 'exclude'", "error")

    r = CliRunner().invoke(root, ["rate"])
    assert r.exit_code == 1
    assert r.output == "Error: --k-exceeds-n must be 'nan' or 'exclude', got 'error'\n"
    r = CliRunner().invoke(root, ["rate", "--allow-nan"])
    # --judge by its spelling, --k-exceeds-n with its value; protocol is no option: Python's name
    assert r.output == "Error: no --judge given; pass --k-exceeds-n nan or protocol=\n"
