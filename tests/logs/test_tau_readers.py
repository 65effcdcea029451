"""Issue 9 section 3: the tau2-bench and tau-bench readers accept what the tools write.

pass^k is checked against tau2-bench's own formula, transcribed here from
``src/tau2/metrics/agent_metrics.py`` (``get_metrics_df`` and ``get_tasks_pass_hat_k``):
simulations ending in ``infrastructure_error`` are dropped, success is
``1 - 1e-6 <= reward <= 1 + 1e-6`` (a null reward is not a success), and per task
``math.comb(successes, k) / math.comb(n, k)`` is averaged over tasks. The trial number plays
no part in it, which is why tau2 lets it be null.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import warnings
from pathlib import Path

import pytest

from noisefloor.logs import LogValidationError, detect_format, load_trials, validate_logs
from noisefloor.passk import pass_hat_k

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "fixtures" / "logs"


def tau2_pass_hat_k(sims: list[dict], k: int) -> float:
    """tau2-bench's pass^k of a simulation list (see the module docstring)."""
    by_task: dict[str, list[bool]] = {}
    for sim in sims:
        if sim.get("termination_reason") == "infrastructure_error":
            continue
        reward = (sim.get("reward_info") or {}).get("reward")
        success = reward is not None and (1 - 1e-6) <= reward <= (1 + 1e-6)
        by_task.setdefault(sim["task_id"], []).append(success)
    if min(map(len, by_task.values())) < k:  # tau2 lowers its max k to the fewest trials
        raise ValueError(f"a task has fewer than {k} trials")
    values = [math.comb(sum(s), k) / math.comb(len(s), k) for s in by_task.values()]
    return sum(values) / len(values)


def _ours(frame, k: int) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pass_hat_k(frame, k).value


@pytest.fixture()
def run() -> dict:
    return json.loads((FIX / "tau2_json" / "results.json").read_text())


def _write(tmp_path: Path, doc, name: str = "results.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=2))
    return path


def _more_trials(run: dict, n: int) -> dict:
    """The fixture run with ``n`` trials per task (copies of its simulations, varied rewards)."""
    sims = []
    for trial in range(n):
        for pos, sim in enumerate(run["simulations"][::2]):
            new = copy.deepcopy(sim)
            new["id"] = f"{sim['id']}-{trial}"
            new["trial"] = trial
            new["termination_reason"] = "user_stop"
            new["reward_info"] = {"reward": float((trial + pos) % 3 != 0)}
            sims.append(new)
    return {**run, "simulations": sims}


def test_fixture_pass_hat_k_equals_tau2s_formula(run):
    df = load_trials(FIX / "tau2_json")
    # one task has 1 counted trial (its other one is an infrastructure error): tau2 stops at
    # k = 1 there, and pass^2 is undefined here too
    assert math.isnan(_ours(df, 2))
    for k in (1,):
        assert _ours(df, k) == pytest.approx(tau2_pass_hat_k(run["simulations"], k), abs=1e-12)


def test_null_trials_load_and_give_tau2s_pass_hat_k(tmp_path, run):
    doc = _more_trials(run, 4)
    for sim in doc["simulations"]:
        sim["trial"] = None  # valid in tau2's SimulationRun (Optional[int] = None)
    del doc["simulations"][0]["trial"]  # the default, when the key is left out
    df = load_trials(_write(tmp_path, doc))
    assert len(df) == len(doc["simulations"])
    trials = df.groupby("task_id")["trial"].apply(sorted)
    assert len(trials) == 3 and all(t == [0, 1, 2, 3] for t in trials)  # (pandas 2 and 3 alike)
    assert all(e["trial_assigned"] for e in df["extra"])
    for k in (1, 2, 3, 4):
        assert _ours(df, k) == pytest.approx(tau2_pass_hat_k(doc["simulations"], k), abs=1e-12)


def test_null_trials_never_collide_with_explicit_ones(tmp_path, run):
    doc = _more_trials(run, 3)
    # task "0": trials 0 and 2 explicit, one null -> it takes 1; order in the file kept
    for sim in doc["simulations"]:
        if sim["task_id"] == "0" and sim["trial"] == 1:
            sim["trial"] = None
    df = load_trials(_write(tmp_path, doc))
    task0 = df[df["task_id"] == "0"].sort_values("line")
    assert task0["trial"].tolist() == [0, 1, 2]
    assert [bool(e.get("trial_assigned")) for e in task0["extra"]] == [False, True, False]


def test_null_trials_in_the_dir_layout(tmp_path):
    run_dir = Path(shutil.copytree(FIX / "tau2_dir", tmp_path / "run"))
    meta = json.loads((run_dir / "results.json").read_text())
    for entry in meta["simulation_index"]:
        entry["trial"] = None
        sim_path = run_dir / "simulations" / f"{entry['id']}.json"
        sim = json.loads(sim_path.read_text())
        sim["trial"] = None
        sim_path.write_text(json.dumps(sim))
    (run_dir / "results.json").write_text(json.dumps(meta))
    df = load_trials(run_dir)
    assert sorted(df.groupby("task_id")["trial"].apply(sorted)) == [[0, 1]] * 3


def test_a_bare_array_of_simulations_is_recognised_at_any_size(tmp_path, run):
    small = _write(tmp_path, run["simulations"], "sims.json")
    big_doc = copy.deepcopy(run["simulations"])
    big_doc[0]["messages"] = [{"role": "user", "content": "x" * 3_000_000}]  # > the 1 MiB head
    big = _write(tmp_path, big_doc, "big_sims.json")
    assert big.stat().st_size > 2 << 20
    for path in (small, big):
        assert detect_format(path) == "tau2"
        with pytest.raises(LogValidationError, match="no 'info' to name the benchmark and model"):
            load_trials(path)
        df = load_trials(path, benchmark="tau2/retail", model="claude-haiku-4-5")
        assert len(df) == len(run["simulations"]) and df["seed"].isna().all()
        assert _ours(df, 1) == pytest.approx(tau2_pass_hat_k(run["simulations"], 1), abs=1e-12)


def test_forced_tau2_messages_name_the_file_read(tmp_path, shared_data):
    path = tmp_path / "gpt-4o-airline.json"
    shutil.copy(shared_data / "tau-bench" / "gpt-4o-airline.json", path)
    problem, = validate_logs(path, format="tau2").problems
    assert problem.source == str(path)
    assert "results.json" not in problem.message.replace("not a tau2-bench results.json", "")
    assert "task_id" in problem.received  # says what the file holds instead
    scalar = _write(tmp_path, 7, "seven.json")
    problem, = validate_logs(scalar, format="tau2").problems
    assert problem.source == str(scalar) and "results.json" not in problem.message


# ---------------------------------------------------------------- tau-bench v1 file names

RUN_NAME = "tool-calling-gpt-4o-2024-08-06-0.0_range_0-50_user-gpt-4o-llm_0612103000.json"


def test_run_py_file_names_give_the_labels(tmp_path, shared_data):
    src = shared_data / "tau-bench" / "gpt-4o-airline.json"
    path = tmp_path / RUN_NAME
    shutil.copy(src, path)
    df = load_trials(path)
    assert set(df["model"]) == {"gpt-4o-2024-08-06"}
    assert set(df["benchmark"]) == {"tau/airline"}  # from the policy heading of the traj
    assert set(df["protocol"]) == {"tool-calling"}
    extra = df["extra"].iloc[0]
    assert (extra["temperature"], extra["user_model"], extra["user_strategy"]) == (0.0, "gpt-4o",
                                                                                   "llm")
    assert (extra["task_range"], extra["run_started"]) == ("0-50", "0612103000")
    # the published pass^1..4 of this file (../shared/data/tau-bench/README.md)
    for k, published in zip((1, 2, 3, 4), (0.420, 0.273, 0.220, 0.200)):
        assert _ours(df, k) == pytest.approx(published, abs=5e-4)


@pytest.mark.parametrize(("name", "model", "strategy", "temperature"), [
    ("react-claude-3-5-sonnet-20241022-1.0_range_0-115_user-gpt-4o-llm_1101093012.json",
     "claude-3-5-sonnet-20241022", "react", 1.0),
    ("few-shot-gpt-4-0613-1e-05_range_10--1_user-gpt-4o-mini-react_0101000000.json",
     "gpt-4-0613", "few-shot", 1e-05),
    ("act-meta-llama-3.1-70b-0.7_range_0-5_user-gpt-4o-verify_0101000000.json",
     "meta-llama-3.1-70b", "act", 0.7),
])
def test_run_py_names_with_hyphens_and_exponents(tmp_path, name, model, strategy, temperature):
    items = [{"task_id": 0, "trial": 0, "reward": 1.0, "info": {},
              "traj": [{"role": "system", "content": "# Retail agent policy\n\nAs a retail agent"}]}]
    path = _write(tmp_path, items, name)
    df = load_trials(path)
    assert (df["model"].iloc[0], df["protocol"].iloc[0]) == (model, strategy)
    assert df["benchmark"].iloc[0] == "tau/retail"
    assert df["extra"].iloc[0]["temperature"] == temperature


def test_run_py_name_without_a_known_policy_asks_for_the_benchmark(tmp_path):
    items = [{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": []}]
    path = _write(tmp_path, items, RUN_NAME)
    # the message names the parameter (benchmark=); the CLI spells it --benchmark
    with pytest.raises(LogValidationError,
                       match=r"cannot tell the tau-bench domain.*pass benchmark=$") as err:
        load_trials(path)
    assert err.value.render(lambda name, value: f"--{name}").endswith("pass --benchmark")
    assert set(load_trials(path, benchmark="tau/retail")["benchmark"]) == {"tau/retail"}


# ---------------------------------------------------------------- files that are no trial log

def test_a_leaderboard_json_is_named_as_such(shared_data):
    path = shared_data / "tau2-bench" / "leaderboard_submissions.json"
    problem, = validate_logs(path).problems
    assert "tau2-bench leaderboard submissions" in problem.received
    assert "no per-trial records" in problem.received


def test_a_log_or_leaderboard_given_as_a_table_is_named(shared_data, tmp_path):
    from noisefloor.audit.published import TableError, read_claims, read_paired_counts

    board = shared_data / "tau2-bench" / "leaderboard_submissions.json"
    with pytest.raises(TableError, match="not a CSV table: the file is a JSON object of tau2-bench "
                                         "leaderboard submissions"):
        read_paired_counts(board)  # was: "line 3: expected 1 fields ({), found 2"
    with pytest.raises(TableError, match="the file is a tau-bench results list"):
        read_claims(shared_data / "tau-bench" / "gpt-4o-airline.json")
    fake = tmp_path / "run.eval"
    fake.write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    with pytest.raises(TableError, match="an inspect_ai .eval log"):
        read_paired_counts(fake)


def test_streaming_reader_numbers_null_trials_too(tmp_path, run):
    from noisefloor.logs import read_records

    doc = _more_trials(run, 2)
    for sim in doc["simulations"]:
        sim["trial"] = None
    records = list(read_records(_write(tmp_path, doc)))
    assert sorted((r.task_id, r.trial) for r in records) == sorted(
        (t, i) for t in ("0", "1", "007") for i in (0, 1))


def test_a_lone_surrogate_in_a_tau2_document_names_its_path(tmp_path, run):
    run["simulations"][2]["task_id"] = "x\ud800"
    problem, = validate_logs(_write(tmp_path, run)).problems
    assert problem.field == "simulations[2].task_id" and "lone UTF-16 surrogate" in problem.message
