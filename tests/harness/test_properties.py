"""The four properties of the collaboration-tax paper, checked for EVERY registered task.

Paper: *The Collaboration Tax* (EMNLP 2026), section 1 (solo-tractable, union-necessary,
deterministic grading, surface-form friction). Each test is parametrised over
:func:`harness.registry.list_tasks`, so a task registered by any module under
``harness/tasks`` is checked without being named here. Seeds come from Hypothesis
(derandomised, so CI is reproducible); the example counts keep the whole suite within about two
minutes on two cores.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.base import DEFAULT_DIFFICULTY, DIFFICULTIES, FINAL_MARKER, UNPARSED, Task
from harness.registry import list_tasks

TASKS = list_tasks()
IDS = [t.name for t in TASKS]
SEEDS = st.integers(min_value=0, max_value=2**31 - 1)
COMMON = dict(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
#: completions tried per view in the union-necessity test
COMPLETIONS = 12
#: seeds used to measure how often a naive paste of the views is wrong
FRICTION_SEEDS = range(30)


def _score(task: Task, inst, answer) -> float:
    score = task.grade(inst, answer)
    assert isinstance(score, float), f"{task.name}: grade returned {type(score).__name__}"
    assert 0.0 <= score <= 1.0 and not math.isnan(score), f"{task.name}: score {score}"
    return score


def test_every_task_describes_itself():
    """One-line description and an answer format (the manifest test checks the task list)."""
    assert len(set(IDS)) == len(IDS)
    for task in TASKS:
        assert task.description and "\n" not in task.description
        assert task.answer_format


# ----- 1. solo-tractable -----------------------------------------------------------------
@pytest.mark.parametrize("task", TASKS, ids=IDS)
@settings(max_examples=8, **COMMON)
@given(seed=SEEDS)
def test_solo_tractable(task: Task, seed: int):
    inst = task.generate(seed, DEFAULT_DIFFICULTY)
    truth = task.oracle(inst)
    assert _score(task, inst, truth) == 1.0
    text = task.render(inst)
    assert isinstance(text, str) and text.strip()
    solved = task.solve_text(text)
    if solved is not NotImplemented:
        assert _score(task, inst, solved) == 1.0, "text-only solver failed on the rendering"
    if type(task).format_answer is not Task.format_answer:
        written = f"Reasoning...\n{FINAL_MARKER} {task.format_answer(truth)}"
        assert _score(task, inst, task.extract_answer(written)) == 1.0, "parse round trip"
    assert FINAL_MARKER in task.solo_prompt(inst)


# ----- 2. union-necessary ----------------------------------------------------------------
@pytest.mark.parametrize("task", TASKS, ids=IDS)
@settings(max_examples=4, **COMMON)
@given(seed=SEEDS)
def test_union_necessary(task: Task, seed: int):
    inst = task.generate(seed, DEFAULT_DIFFICULTY)
    truth = task.oracle(inst)
    views = task.split(inst)
    for i, keep in enumerate("ab"):
        changed = False
        for k in range(COMPLETIONS):
            cf = task.counterfactual(inst, keep, seed + 7919 * (k + 1))
            assert task.split(cf)[i] == views[i], f"counterfactual altered kept view {keep}"
            if _score(task, cf, truth) < 1.0:
                changed = True
                break
        assert changed, f"view {keep} alone determines the answer ({COMPLETIONS} completions)"


# ----- 3. deterministic grading ----------------------------------------------------------
@pytest.mark.parametrize("task", TASKS, ids=IDS)
@settings(max_examples=8, **COMMON)
@given(seed=SEEDS, difficulty=st.sampled_from(DIFFICULTIES))
def test_deterministic_grading(task: Task, seed: int, difficulty: int):
    inst = task.generate(seed, difficulty)
    assert inst.difficulty == difficulty and inst.task == task.name
    assert task.generate(seed, difficulty) == inst, "generate is not deterministic"
    assert task.render(inst) == task.render(task.generate(seed, difficulty))
    a1, b1 = task.split(inst)
    a2, b2 = task.split(inst)
    assert (a1, b1) == (a2, b2)
    assert task.render_view(a1) == task.render_view(a2)
    truth = task.oracle(inst)
    assert _score(task, inst, truth) == 1.0
    assert task.grade(inst, truth) == task.grade(inst, truth)
    bad = task.corrupt(inst, truth)
    assert _score(task, inst, bad) < 1.0, f"corrupted answer {bad!r} scored 1"
    assert task.grade(inst, bad) == task.grade(inst, bad)
    assert _score(task, inst, None) == 0.0
    assert _score(task, inst, UNPARSED) == 0.0


@pytest.mark.parametrize("task", TASKS, ids=IDS)
@settings(max_examples=25, **COMMON)
@given(text=st.text(max_size=200), seed=st.integers(0, 50))
def test_parse_never_raises(task: Task, text: str, seed: int):
    inst = task.generate(seed, DEFAULT_DIFFICULTY)
    answer = task.parse(text)  # must not raise
    _score(task, inst, answer)
    _score(task, inst, task.extract_answer(f"{FINAL_MARKER} {text}"))


# ----- 4. surface-form friction ----------------------------------------------------------
@pytest.mark.parametrize("task", TASKS, ids=IDS)
@settings(max_examples=8, **COMMON)
@given(seed=SEEDS)
def test_conventions_differ(task: Task, seed: int):
    inst = task.generate(seed, DEFAULT_DIFFICULTY)
    conv = inst.conventions
    assert set(conv) == {"a", "b"}, "conventions must be declared for views a and b"
    keys = set(conv["a"]) | set(conv["b"])
    assert any(conv["a"].get(k) != conv["b"].get(k) for k in keys), conv
    va, vb = task.split(inst)
    assert (va.agent, vb.agent) == ("a", "b")
    assert va.conventions == conv["a"] and vb.conventions == conv["b"]
    assert task.render_view(va) != task.render_view(vb)
    # people read the declared conventions as one line per view, in words
    lines = task.describe_conventions(inst)
    assert [line[:3] for line in lines] == ["a: ", "b: "] and lines[0][3:] != lines[1][3:]
    # agents are never told the project's family names
    for prompt in (task.agent_prompt(va), task.solo_prompt(inst)):
        assert f"{task.family} puzzle" not in prompt


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_naive_paste_is_wrong_for_most_seeds(task: Task):
    insts = [task.generate(s, DEFAULT_DIFFICULTY) for s in FRICTION_SEEDS]
    naive = [task.naive_answer(i) for i in insts]
    if any(n is NotImplemented for n in naive):
        pytest.skip(f"{task.name} defines no naive_answer")
    wrong = sum(_score(task, i, n) < 1.0 for i, n in zip(insts, naive))
    assert wrong / len(insts) >= 0.5, f"naive paste right on {len(insts) - wrong}/{len(insts)}"
