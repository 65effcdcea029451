"""Write real inspect_ai logs with its mock model, offline; run by the tests in a subprocess.

``python tests/logs/make_inspect_logs.py OUT_DIR`` runs three tiny evals with
``mockllm/model`` and writes, under ``OUT_DIR``:

* ``eval/*.eval`` and ``json/*.json``: the same task (4 samples x 3 epochs, scorers ``match``
  and ``includes``; sample ``boom`` raises at epoch 2, a sample error) in inspect's two log
  formats. The ``.eval`` members are zstd-compressed, as current inspect writes them.
* ``deflate/*.eval``: that archive with every member re-compressed with deflate (the method
  of older inspect releases); the bytes of each member are unchanged.
* ``v1/*.json``: the ``.json`` log rewritten to log version 1 (a sample's single ``score``
  instead of the ``scores`` dict), which inspect still reads; current inspect cannot write it.
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
character count here, so the run needs no network.
"""

from __future__ import annotations

import itertools
import json
import shutil
import sys
import zipfile
from pathlib import Path


def _offline() -> None:
    from inspect_ai.model._providers.mockllm import MockLLM

    async def count_text_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    MockLLM.count_text_tokens = count_text_tokens


def main(out: Path) -> None:
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
    logs = {}
    for fmt in ("eval", "json"):
        outputs = [ModelOutput.from_content("mockllm/model", a)
                   for a in itertools.islice(itertools.cycle(answers), 60)]
        task = Task(dataset=dataset, solver=[flaky()], scorer=[match(), includes()], epochs=3,
                    name="arith")
        log = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=iter(outputs)),
                           log_dir=str(out / fmt), log_format=fmt, fail_on_error=False,
                           display="none", max_samples=1)[0]
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
    for log in inspect_eval([typed_task, limited], model="mockllm/model",
                            log_dir=str(out / "more"), display="none"):
        key = "values" if log.eval.task == "values" else "limit"
        logs[key] = Path(log.location)

    import random

    two_scorers = [Sample(input="2+2?", target="4", id=f"s{i:02d}") for i in range(12)]
    for system, weights in (("a", (0.3, 0.4, 0.3)), ("b", (0.5, 0.3, 0.2))):
        draw = random.Random(f"two_scorers-{system}")
        outputs = [ModelOutput.from_content("mockllm/model", a)
                   for a in draw.choices(["4", "4 apples", "5"], weights=weights, k=36)]
        inspect_eval(Task(dataset=two_scorers, solver=[generate()], scorer=[match(), includes()],
                          epochs=3, name="two_scorers"),
                     model=get_model("mockllm/model", custom_outputs=iter(outputs)),
                     log_dir=str(out / "scorers" / system), display="none", max_samples=1)

    # deflate members: the same bytes in an archive as older inspect releases wrote it
    deflate = out / "deflate" / logs["eval"].name
    deflate.parent.mkdir()
    with zipfile.ZipFile(logs["eval"]) as src, \
            zipfile.ZipFile(deflate, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    logs["deflate"] = deflate

    # log version 1: one "score" per sample (inspect reads it as the first scorer's)
    doc = json.loads(logs["json"].read_text())
    doc["version"] = 1
    first = doc["results"]["scores"][0]["name"]
    for sample in doc["samples"]:
        scores = sample.pop("scores", None)
        if scores:
            sample["score"] = scores[first]
    v1 = out / "v1" / logs["json"].name
    v1.parent.mkdir()
    v1.write_text(json.dumps(doc))
    logs["v1"] = v1

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
    (out / "expected.json").write_text(json.dumps(expected, indent=1))


if __name__ == "__main__":
    target = Path(sys.argv[1])
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    main(target)
