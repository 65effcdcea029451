"""The judge of ``tax report`` behind the same response boundary as the runner: a judge
endpoint that misbehaves leaves rollouts unlabelled (infrastructure failures), never a crash
and never a label."""

import pytest
from click.testing import CliRunner

from harness.runner.hostile import HostileServer
from noisefloor.cli.tax import report
from noisefloor.endpoints import ModelEndpoint
from noisefloor.tax.judge import judge_with_endpoint
from noisefloor.tax.run import read_run
from noisefloor.tax.synthetic import write_synthetic_run
from tests.tax.conftest import MODELS, TASKS


@pytest.fixture(scope="module")
def few_pairs(tmp_path_factory):
    """The small run's models, tasks and transcripts with one instance per task: 18 pair
    rollouts for the judge, 4 in flight (each gzip bomb is inflated up to the 8 MiB response
    cap, so each rollout costs a 8 MiB inflate)."""
    d = tmp_path_factory.mktemp("few_pairs")
    write_synthetic_run(d, models=MODELS, tasks=TASKS, n_instances=1,
                        transcripts="per_rollout", seed=3)
    return d


@pytest.mark.parametrize("kind", ["html", "array", "content_parts", "usage_negative",
                                  "gzip_bomb", "surrogate"])
def test_a_misbehaving_judge_leaves_rollouts_unlabelled(few_pairs, kind):
    run = read_run(few_pairs)
    with HostileServer({"j": kind}, bomb_bytes=64 << 20) as hostile:
        res = judge_with_endpoint(run, ModelEndpoint("j", (hostile.base_url,), concurrency=4),
                                  max_retries=0, timeout=5)
    n_pairs = int((run.rollouts["mode"] == "pair").sum())
    assert n_pairs > 0 and len(res.labels) == 0 and len(res.failures) == n_pairs
    assert set(res.failures["kind"]) == {"infrastructure"}


def test_judge_url_without_a_host_is_refused(small, tmp_path):
    res = CliRunner().invoke(report, [str(small[0]), "--out", str(tmp_path / "o"),
                                      "--judge-model", "j", "--judge-url", "http://"])
    assert res.exit_code == 2
    assert "Invalid value for --judge-url: 'http://' has no host" in res.output
