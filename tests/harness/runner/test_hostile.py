"""A two-model ``tax run`` against a misbehaving endpoint: every odd answer is an
infrastructure error of the rollouts it hits; the healthy model's rollouts are scored and
journalled; nothing crashes; memory stays bounded.

The healthy model ``solver`` is served by :class:`harness.runner.scripted.ScriptedServer`,
the model ``bad`` by :class:`harness.runner.hostile.HostileServer` (both on 127.0.0.1, free
ports). Nothing of the HTTP stack is mocked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.runner import journal as jr
from harness.runner.hostile import KINDS, HostileServer
from harness.runner.run import RunSettings, run_tax
from noisefloor.endpoints import ModelEndpoint
from noisefloor.endpoints.response import ERROR_EXCERPT_CHARS

ROOT = Path(__file__).resolve().parents[3]
#: The kind of infrastructure error each misbehaviour must become.
EXPECTED = {kind: "malformed_response" for kind in KINDS if kind != "ok"}
EXPECTED.update(gzip_bomb="response_too_large", endless="response_too_large",
                trickle="timeout", error_huge="http_500")
#: Peak RSS a `tax run` meeting every kind may use beyond a healthy run of the same plan in
#: the same process: 4 bodies at the 8 MiB cap in flight, each up to twice while joined, is
#: 64 MiB (measured: 92 MB after the healthy run, 108 MB after every kind; with a 300 MiB
#: response cap 332 MB; before the response boundary the gzip body alone took 2.3 GB).
RSS_EXTRA_MB = 100


def _settings():
    return RunSettings(tasks=("csp_sudoku4",), models=("solver", "bad"), modes=("solo",),
                       rollouts=2, difficulty=0)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_misbehaviour_is_an_infrastructure_error_of_its_model_only(server, tmp_path,
                                                                         kind):
    with HostileServer({"bad": kind}, error_bytes=5_000_000) as hostile:
        specs = [ModelEndpoint("solver", (server.base_url,), concurrency=2),
                 ModelEndpoint("bad", (hostile.base_url,), concurrency=2)]
        result = run_tax(_settings(), specs, tmp_path, timeout=1.0, max_retries=1,
                         backoff_base=0.01)
        assert hostile.served[kind] == 4  # 2 rollouts x (1 + 1 retry), nothing else
    records = {(r["model"], r["task_id"]): r for r in
               (json.loads(line) for line in (tmp_path / jr.TRIALS).read_text().splitlines())}
    assert len(records) == 4 and result.ran == 4 and result.missing == 0
    for (model, _), r in records.items():
        if model == "solver":
            assert (r["reward"], r["infrastructure_error"]) == (1.0, False)
        else:
            assert r["reward"] is None and r["infrastructure_error"] is True
            assert r["termination_reason"] == f"infrastructure_error:{EXPECTED[kind]}"
            # the error is a capped excerpt, never the body
            assert len(r["extra"]["error"]) < ERROR_EXCERPT_CHARS + 300
    state = jr.read_journal(tmp_path / jr.JOURNAL)
    assert len(state.entries) == 4  # the healthy model's rollouts were journalled too
    assert (tmp_path / jr.JOURNAL).stat().st_size < 40_000
    assert result.error_causes == ({"termination_reason": f"infrastructure_error:{EXPECTED[kind]}",
                                    "n": 2, "example": records[("bad", "csp_sudoku4:0")]
                                    ["extra"]["error"]},)
    assert not result.all_failed


def test_an_error_page_is_kept_as_an_excerpt_with_its_size(server, tmp_path):
    with HostileServer({"bad": "error_huge"}, error_bytes=5_000_000) as hostile:
        specs = [ModelEndpoint("solver", (server.base_url,)),
                 ModelEndpoint("bad", (hostile.base_url,))]
        run_tax(_settings(), specs, tmp_path, max_retries=0)
    error = [json.loads(line) for line in (tmp_path / jr.TRIALS).read_text().splitlines()
             if '"bad"' in line][0]["extra"]["error"]
    assert "HTTP 500: <html>xxx" in error
    assert error.endswith("(excerpt of a body of 5000000 bytes)")


#: One process runs ``noisefloor tax run`` twice (click's runner): ``argv[1]`` (a healthy run,
#: whose peak RSS is the baseline) then ``argv[2]``, each a JSON list of arguments, and prints
#: the peak RSS after each and the second run's exit code, output and stderr as JSON.
_TWO_RUNS = """
import json, resource, sys
from click.testing import CliRunner
from noisefloor.cli.main import cli
out = {}
for name, args in (("healthy", sys.argv[1]), ("hostile", sys.argv[2])):
    done = CliRunner().invoke(cli, ["tax", "run", *json.loads(args)], prog_name="noisefloor")
    out[name] = {"exit_code": done.exit_code, "stdout": done.stdout, "stderr": done.stderr,
                 "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
print(json.dumps(out))
"""


def _tax_run(args):
    """``noisefloor tax run ARGS`` in this process (click's runner): for what the command says
    and writes; a process of its own only where its memory is measured."""
    from click.testing import CliRunner

    from noisefloor.cli.main import cli

    return CliRunner().invoke(cli, ["tax", "run", *args], prog_name="noisefloor")


def test_one_run_meets_every_kind_within_bounded_memory(server, tmp_path):
    """All kinds in one `tax run` (one model per kind, 2 requests in flight each): it
    finishes, scores the healthy model, and the peak RSS of its process stays within
    RSS_EXTRA_MB of the peak after a healthy run of the same plan in that process."""
    bad = sorted(EXPECTED)
    with HostileServer({k: k for k in bad}) as hostile:  # 1 GiB bomb, 50 MB error page
        config = ["[[models]]", 'name = "solver"', f'base_urls = ["{server.base_url}"]']
        for k in bad:
            config += ["[[models]]", f'name = "{k}"', f'base_urls = ["{hostile.base_url}"]',
                       "concurrency = 2"]
        (tmp_path / "run.toml").write_text("\n".join(config) + "\n")
        common = ["--tasks", "csp_sudoku4", "--modes", "solo", "--rollouts", "2",
                  "--difficulty", "0", "--timeout", "1", "--max-retries", "1", "--json",
                  "--config", str(tmp_path / "run.toml")]
        proc = subprocess.run(
            [sys.executable, "-c", _TWO_RUNS,
             json.dumps([*common, "--models", "solver", "--out", str(tmp_path / "ok")]),
             json.dumps([*common, "--models", ",".join(["solver", *bad]),
                         "--out", str(tmp_path / "run")])],
            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout)
    healthy, done = runs["healthy"], runs["hostile"]
    assert healthy["exit_code"] == 0, healthy["stderr"]
    assert done["exit_code"] == 0, done["stderr"]
    # the peak RSS of the process after the healthy run, then after meeting every kind
    healthy_mb, peak_mb = healthy["peak_mb"], done["peak_mb"]
    summary = json.loads(done["stdout"])
    assert summary["scored"] == 2 and summary["infrastructure_errors"] == 2 * len(bad)
    causes = {c["termination_reason"]: c["n"] for c in summary["error_causes"]}
    assert sum(causes.values()) == 2 * len(bad)
    assert peak_mb < healthy_mb + RSS_EXTRA_MB, (healthy_mb, peak_mb)
    print(f"peak RSS: healthy run {healthy_mb:.0f} MB, every kind {peak_mb:.0f} MB")


def test_a_run_in_which_every_rollout_failed_exits_1_with_the_causes(tmp_path):
    with HostileServer({"bad": "html"}) as hostile:
        done = _tax_run(["--tasks", "csp_sudoku4", "--models", "bad", "--modes", "solo",
                         "--rollouts", "2", "--base-url", hostile.base_url,
                         "--max-retries", "0", "--out", str(tmp_path / "run")])
    assert done.exit_code == 1, done.output
    assert "every rollout with a record is an infrastructure error (2); causes:" in done.stderr
    assert "2 x infrastructure_error:malformed_response: bad: malformed_response after 0 " \
           "retries: a text/html body is not JSON" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--temperature", "nan"], "Error: --temperature must be a finite number in [0, 100], "
                               "got nan"),
    (["--base-url", "http://"], "Invalid value for --base-url: 'http://' has no host"),
    (["--price-input", "inf"], "Invalid value for --price-input: expected a finite number"),
    (["--rollouts", "1000000000"], "the plan holds 1,000,000,000 rollouts"),
])
def test_options_that_cannot_work_are_refused_before_the_run(tmp_path, args, message):
    base = ["--tasks", "csp_sudoku4", "--models", "m", "--modes", "solo",
            "--out", str(tmp_path / "run")]
    if "--base-url" not in args:
        base += ["--base-url", "http://127.0.0.1:9/v1"]
    done = _tax_run([*base, *args])
    assert done.exit_code == (2 if "Invalid value" in message else 1), done.output
    assert message in done.stderr, done.stderr
    assert not (tmp_path / "run").exists()  # refused before anything was written


def test_the_server_module_serves_from_the_command_line():
    proc = subprocess.Popen([sys.executable, "-m", "harness.runner.hostile", "--kind",
                             "x=array"], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("http://127.0.0.1:")
    finally:
        proc.kill()
        proc.wait()
