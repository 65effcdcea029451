"""Write real inspect_ai logs with its mock model, offline; run by the tests in a subprocess.

``python tests/logs/make_inspect_logs.py OUT_DIR [--only NAME,...]`` runs tiny evals with
``mockllm/model`` and writes, under ``OUT_DIR``, the folders below (``--only`` names the
ones to write, e.g. ``--only eval,json``; ``deflate`` and ``v3`` also write ``eval``, ``v1``
and ``v3`` also write ``json``; ``expected.json`` covers what was written):

* ``eval/*.eval`` and ``json/*.json``: the same task (4 samples x 3 epochs, scorers ``match``
  and ``includes``; sample ``boom`` raises at epoch 2, a sample error) in inspect's two log
  formats. The ``.eval`` members are zstd-compressed, as current inspect writes them.
* ``deflate/*.eval``: that archive with every member re-compressed with deflate (the method
  of older inspect releases); the bytes of each member are unchanged.
* ``v1/*.json``: the ``.json`` log rewritten to log version 1 (a sample's single ``score``
  instead of the ``scores`` dict), which inspect still reads; current inspect cannot write it.
* ``v3/*.eval`` and ``v3/*.json``: the ``eval`` and ``json`` logs stamped log version 3 (the
  ``version`` of the ``.json`` document, of the archive's ``header.json`` and
  ``_journal/start.json``), the rest unchanged. The installed inspect_ai writes version 2 and
  refuses to read a newer one; inspect_ai validates every version with its one ``EvalLog``
  model, so a version-3 log of the same content reads as the version-2 log does
  (``expected.json`` holds the version-2 readings under ``v3_eval`` and ``v3_json``).
* ``noscore/*.eval``: task ``unscored``, two samples and no scorer at all.
* ``more/*.eval``: task ``values``, one sample per score value type (C/I/P/N, yes/no,
  true/false, numbers, booleans), one epoch; task ``limited``, one sample stopped by a message
  limit.
* ``scorers/a/*.eval`` and ``scorers/b/*.eval``: two systems on one task ``two_scorers``
  (12 samples x 3 epochs, target ``4``), scored by ``match`` and ``includes``. The mock
  outputs are ``4``, ``4 apples`` or ``5``, drawn per system from a seeded generator:
  ``match`` (the answer at the end) fails ``4 apples`` while ``includes`` passes it, so the two
  scorers disagree on every such sample and every analysis depends on the scorer read.
* ``expected.json``: what inspect itself reads from each log (``read_eval_log``): per sample
  and epoch the score value, ``value_to_float`` of it, error and limit; and the first
  scorer's accuracy metric. The tests compare the noisefloor reader with these.

The mock model's token counter downloads a tokenizer on first use; it is replaced by a
character count here, so the run needs no network; inspect's per-sample state of the OpenAI and
Anthropic providers, which the mock model does not use, is switched off (it imports both SDKs).
The evals run with ``log_realtime=False`` (no live event buffer for ``inspect view``; the log
files are the same) and the 72-sample
``scorers`` evals with ``log_buffer=100`` (their samples reach the archive in one flush instead
of one every 10; the reader reads only ``header.json``/``_journal/start.json`` and
``samples/``), which makes each sample about twice as cheap to write.

Within one test session the logs are written once: when the environment variable
``MAKE_INSPECT_LOGS_SHARED`` names a folder (the tests set it to one folder per session, shared
by the xdist workers), the first run writes every folder there under a file lock, and each run
copies the folders it was asked for from there into ``OUT_DIR`` (``expected.json`` naming the
copies). The tests' fixture and the example of ``docs/logs.md`` run this script with different
``--only``; without the variable each run writes its own logs, as a user's run does.
"""

from __future__ import annotations

import argparse
import fcntl
import itertools
import json
import os
import shutil
import zipfile
from pathlib import Path


def _offline() -> None:
    from inspect_ai.model._providers.mockllm import MockLLM

    async def count_text_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    MockLLM.count_text_tokens = count_text_tokens
    # inspect imports the OpenAI and Anthropic SDKs at each sample's start when they are
    # installed, to keep those providers' per-sample state (about 1 s of imports); the mock
    # model has no such state, so the logs are the same without it
    try:
        from inspect_ai.model import _assistant_internal
    except ImportError:  # another inspect release: it may keep no such state
        return
    _assistant_internal._HAS_OPENAI = False  # type: ignore[attr-defined]
    _assistant_internal._HAS_ANTHROPIC = False  # type: ignore[attr-defined]


#: the folders written, each named by ``--only``
PARTS = ("eval", "json", "deflate", "v1", "v3", "noscore", "more", "scorers")
#: what a folder is derived from (the arith log of that format)
_NEEDS = {"deflate": {"eval"}, "v1": {"json"}, "v3": {"eval", "json"}}


def main(out: Path, only: frozenset[str] = frozenset(PARTS)) -> None:
    """Write the logs named by ``only`` (see the module docstring) and ``expected.json``."""
    only = only.union(*(_NEEDS.get(part, set()) for part in only))
    _offline()
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import Score, includes, match, mean, scorer, value_to_float
    from inspect_ai.solver import generate, solver

    @solver
    def flaky():
        async def solve(state, generate_fn):
            if state.sample_id == "boom" and state.epoch == 2:
                raise RuntimeError("simulated tool outage")
            return await generate_fn(state)
        return solve

    answers = ["4", "4", "5", "9", "9", "9", "x", "4", "7", "7", "2"]
    dataset = [Sample(input="2+2?", target="4", id="a"), Sample(input="4+5?", target="9", id="b"),
               Sample(input="3+4?", target="7", id="boom"), Sample(input="1+1?", target="2", id=4)]
    logs: dict[str, Path] = {}
    for fmt in ("eval", "json"):
        if fmt not in only:
            continue
        outputs = [ModelOutput.from_content("mockllm/model", a)
                   for a in itertools.islice(itertools.cycle(answers), 60)]
        task = Task(dataset=dataset, solver=[flaky()], scorer=[match(), includes()], epochs=3,
                    name="arith")
        log = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=iter(outputs)),
                           log_dir=str(out / fmt), log_format=fmt, fail_on_error=False,
                           display="none", max_samples=1, log_realtime=False)[0]
        logs[fmt] = Path(log.location)

    values = ["C", "I", "P", "N", "yes", "No", "TRUE", "false", "0.25", 1, 0, 0.75, True, False]

    @scorer(metrics=[mean()])
    def typed():
        async def score(state, target):
            return Score(value=values[int(state.sample_id)])
        return score

    typed_task = Task(dataset=[Sample(input="q", target="t", id=i) for i in range(len(values))],
                      solver=[generate()], scorer=typed(), name="values")
    limited = Task(dataset=[Sample(input="hi", target="x", id="lim")],
                   solver=[generate(), generate(), generate()], scorer=match(), message_limit=2,
                   name="limited")
    if "more" in only:
        for log in inspect_eval([typed_task, limited], model="mockllm/model",
                                log_dir=str(out / "more"), display="none", log_realtime=False):
            key = "values" if log.eval.task == "values" else "limit"
            logs[key] = Path(log.location)

    import random

    two_scorers = [Sample(input="2+2?", target="4", id=f"s{i:02d}") for i in range(12)]
    systems = (("a", (0.3, 0.4, 0.3)), ("b", (0.5, 0.3, 0.2))) if "scorers" in only else ()
    for system, weights in systems:
        draw = random.Random(f"two_scorers-{system}")
        outputs = [ModelOutput.from_content("mockllm/model", a)
                   for a in draw.choices(["4", "4 apples", "5"], weights=weights, k=36)]
        inspect_eval(Task(dataset=two_scorers, solver=[generate()], scorer=[match(), includes()],
                          epochs=3, name="two_scorers"),
                     model=get_model("mockllm/model", custom_outputs=iter(outputs)),
                     log_dir=str(out / "scorers" / system), display="none", max_samples=1,
                     log_realtime=False, log_buffer=100)

    if "deflate" in only:
        logs["deflate"] = _deflate(logs["eval"], out / "deflate")
    if "v1" in only:
        logs["v1"] = _version_1(logs["json"], out / "v1")
    if "v3" in only:
        v3_eval, v3_json = _version_3(logs["eval"], logs["json"], out / "v3")

    if "noscore" in only:  # no scorer at all
        unscored = Task(dataset=[Sample(input="hi", target="x", id=i) for i in range(2)],
                        solver=[generate()], name="unscored")
        inspect_eval(unscored, model="mockllm/model", log_dir=str(out / "noscore"),
                     display="none", log_realtime=False)

    to_float = value_to_float()
    expected = {}
    for key, path in logs.items():
        log = read_eval_log(str(path))
        scorer_name = log.results.scores[0].name
        samples = {}
        for s in log.samples:
            score = (s.scores or {}).get(scorer_name)
            samples[f"{s.id}|{s.epoch}"] = {
                "value": None if score is None else score.value,
                "float": None if score is None else to_float(score.value),
                "error": None if s.error is None else s.error.message,
                "limit": None if s.limit is None else s.limit.type,
            }
        metrics = log.results.scores[0].metrics
        expected[key] = {
            "path": str(path), "version": log.version, "task": log.eval.task,
            "model": log.eval.model, "scorer": scorer_name,
            "accuracy": metrics["accuracy"].value if "accuracy" in metrics else None,
            "mean": metrics["mean"].value if "mean" in metrics else None,
            "samples": samples,
        }
    if "v3" in only:
        expected["v3_eval"] = {**expected["eval"], "path": str(v3_eval), "version": 3}
        expected["v3_json"] = {**expected["json"], "path": str(v3_json), "version": 3}
    (out / "expected.json").write_text(json.dumps(expected, indent=1))


def _deflate(eval_log: Path, folder: Path) -> Path:
    """The same member bytes in an archive as older inspect releases wrote it (deflate)."""
    deflate = folder / eval_log.name
    folder.mkdir()
    with zipfile.ZipFile(eval_log) as src, \
            zipfile.ZipFile(deflate, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    return deflate


def _version_1(json_log: Path, folder: Path) -> Path:
    """Log version 1: one ``score`` per sample (inspect reads it as the first scorer's)."""
    doc = json.loads(json_log.read_text())
    doc["version"] = 1
    first = doc["results"]["scores"][0]["name"]
    for sample in doc["samples"]:
        scores = sample.pop("scores", None)
        if scores:
            sample["score"] = scores[first]
    v1 = folder / json_log.name
    folder.mkdir()
    v1.write_text(json.dumps(doc))
    return v1


def _version_3(eval_log: Path, json_log: Path, folder: Path) -> tuple[Path, Path]:
    """The same logs with the version stamped 3 (see the module docstring)."""
    folder.mkdir()
    v3_json = folder / json_log.name
    doc = json.loads(json_log.read_text())
    doc["version"] = 3
    v3_json.write_text(json.dumps(doc))
    v3_eval = folder / eval_log.name
    with zipfile.ZipFile(eval_log) as src, zipfile.ZipFile(v3_eval, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename in ("header.json", "_journal/start.json"):
                member = json.loads(data)
                member["version"] = 3
                data = json.dumps(member).encode()
            dst.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED)
    return v3_eval, v3_json


#: the environment variable naming the folder one test session's runs share
SHARED_ENV = "MAKE_INSPECT_LOGS_SHARED"


def copy_shared(out: Path, only: frozenset[str], shared: Path) -> None:
    """Copy the folders named by ``only`` (and those they derive from) from the complete set of
    logs in ``shared/logs`` into ``out``, writing that set first (under ``shared/lock``) if no
    earlier run has; ``out/expected.json`` covers the copies, with their paths."""
    only = only.union(*(_NEEDS.get(part, set()) for part in only))
    shared = shared.resolve()
    shared.mkdir(parents=True, exist_ok=True)
    complete = shared / "logs"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes (or the process ends)
        if not (complete / "expected.json").exists():
            partial = shared / "writing"  # left by a run that failed part way, if it exists
            if partial.exists():
                shutil.rmtree(partial)
            partial.mkdir()
            main(partial)
            # expected.json names the logs where they will stay
            text = (partial / "expected.json").read_text()
            (partial / "expected.json").write_text(text.replace(str(partial.resolve()),
                                                                str(complete.resolve())))
            partial.rename(complete)
    for part in sorted(only):
        shutil.copytree(complete / part, out / part)
    expected = {}
    for key, ref in json.loads((complete / "expected.json").read_text()).items():
        rel = Path(ref["path"]).relative_to(complete.resolve())
        if rel.parts[0] in only:
            expected[key] = {**ref, "path": str(out.resolve() / rel)}
    (out / "expected.json").write_text(json.dumps(expected, indent=1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Write real inspect_ai logs with its mock model.")
    parser.add_argument("out", type=Path, help="folder to (re)create")
    parser.add_argument("--only", default=",".join(PARTS),
                        help=f"comma-separated folders to write, of: {', '.join(PARTS)}")
    args = parser.parse_args()
    only = frozenset(part.strip() for part in args.only.split(",") if part.strip())
    unknown = sorted(only - set(PARTS))
    if unknown or not only:
        parser.error(f"--only: unknown or no folder {unknown}; expected some of {', '.join(PARTS)}")
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    if os.environ.get(SHARED_ENV):
        copy_shared(args.out, only, Path(os.environ[SHARED_ENV]))
    else:
        main(args.out, only)
