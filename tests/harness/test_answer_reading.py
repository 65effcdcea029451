"""Reading answers: a decorated correct answer scores 1.0 or is left unparsed, never partial.

The collaboration-tax paper (section 3): "a grader model only converts free text into a
structured answer; the score itself is computed by a deterministic program". A parser that
reads part of a decorated answer turns a correct answer into partial credit, and since solo
and pair answers are written differently that moves the tax itself. For every registered task,
the oracle answer is wrapped in decorations models write; the decorations the normalisation
removes must read as 1.0, any other must leave the answer unparsed (then the grader model is
asked).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.answer_text import normalise_answer
from harness.base import UNPARSED
from harness.registry import list_tasks

TASKS = list_tasks()
NAMES = [t.name for t in TASKS]

#: Decorations with no content: the answer must read as the oracle (score 1.0).
CLEAN = {
    "plain": lambda s: s,
    "bold": lambda s: f"**{s}**",
    "italic": lambda s: f"*{s}*",
    "underscore bold": lambda s: f"__{s}__",
    "backticks": lambda s: f"`{s}`",
    "fence": lambda s: f"```text\n{s}\n```",
    "full stop": lambda s: f"{s}.",
    "bold then stop": lambda s: f"**{s}**.",
    "lead-in": lambda s: f"The answer is {s}",
    "lead-in colon bold stop": lambda s: f"The final answer is: **{s}**.",
    "answer colon": lambda s: f"Answer: {s}",
    "guillemets": lambda s: f"\u00ab{s}\u00bb",
    "double quotes": lambda s: f'"{s}"',
    "curly quotes": lambda s: f"\u201c{s}\u201d",
    "whitespace": lambda s: f"\n   {s}   \n",
}
#: Decorations that carry words: the answer must be 1.0 (if a parser can read it) or unparsed.
NOISY = {
    "remark": lambda s: f"{s} (I am confident)",
    "trailing sentence": lambda s: f"{s}. Let me know if you disagree!",
    "two stops": lambda s: f"{s}..",
    "question": lambda s: f"{s}?",
    "prefix words": lambda s: f"I believe it is {s}",
    "emoji": lambda s: f"{s} \u2705",
}
#: Case changes: allowed where the format allows it, never partial credit.
CASES = {"upper": str.upper, "lower": str.lower, "title": str.title}


def _score(task, instance, text: str) -> tuple[object, float]:
    answer = task.extract_answer("We agree.\nFINAL ANSWER: " + text, instance)
    score = task.grade(instance, None if answer is UNPARSED else answer)
    return answer, score


@pytest.mark.parametrize("task", TASKS, ids=NAMES)
def test_clean_decorations_read_as_the_oracle(task):
    for seed in range(3):
        instance = task.generate(seed)
        text = task.format_answer(task.oracle(instance))
        for name, decorate in CLEAN.items():
            answer, score = _score(task, instance, decorate(text))
            assert score == 1.0, (task.name, seed, name, decorate(text), answer, score)


@pytest.mark.parametrize("task", TASKS, ids=NAMES)
def test_noisy_decorations_are_full_credit_or_unparsed(task):
    for seed in range(3):
        instance = task.generate(seed)
        text = task.format_answer(task.oracle(instance))
        for name, decorate in {**NOISY, **CASES}.items():
            answer, score = _score(task, instance, decorate(text))
            assert answer is UNPARSED or score == 1.0, (task.name, seed, name, answer, score)


def test_remarks_are_refused_by_every_parser():
    """The bug this guards: a parser that reads the answer and skips a trailing remark would
    give full credit here too, but it would also read '1: A; 2: B (wait, no: C)' as A, B."""
    for task in TASKS:
        instance = task.generate(0)
        text = task.format_answer(task.oracle(instance))
        answer, _ = _score(task, instance, f"{text} (I am confident)")
        assert answer is UNPARSED, task.name


_WRAPS = st.lists(st.sampled_from(sorted(CLEAN)), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(TASKS) - 1), seed=st.integers(0, 50), wraps=_WRAPS,
       noisy=st.one_of(st.none(), st.sampled_from(sorted(NOISY))),
       case=st.one_of(st.none(), st.sampled_from(sorted(CASES))))
def test_any_layering_of_decorations_never_earns_partial_credit(index, seed, wraps, noisy,
                                                               case):
    task = TASKS[index]
    instance = task.generate(seed)
    text = task.format_answer(task.oracle(instance))
    if case is not None:
        text = CASES[case](text)
    if noisy is not None:
        text = NOISY[noisy](text)
    for name in wraps:
        text = CLEAN[name](text)
    answer, score = _score(task, instance, text)
    assert answer is UNPARSED or score == 1.0, (task.name, seed, text, answer, score)
    if noisy is None and case is None:  # only content-free layers: must read
        assert score == 1.0, (task.name, seed, text, answer)


@pytest.mark.parametrize("text, expected", [
    ("**1: Ada; 2: Bo**.", "1: Ada; 2: Bo"),
    ("The answer is \u00ab3412/1243/4321/2134\u00bb", "3412/1243/4321/2134"),
    ("```\n[[0, 0], [0, 1]]\n```", "[[0, 0], [0, 1]]"),
    ("Ada, Bo...", "Ada, Bo..."),            # an ellipsis is not a full stop
    ("'Ada', 'Bo'", "'Ada', 'Bo'"),          # two quoted items are not one quoted string
    ("*Ada* and *Bo*", "*Ada* and *Bo*"),    # two emphasised words are not one
    ("Answer", "Answer"),                    # a lead-in with nothing after it stays
])
def test_normalise_answer_removes_only_decoration(text, expected):
    assert normalise_answer(text) == expected


def test_grader_model_reply_is_read_with_the_same_rule():
    task = next(t for t in TASKS if t.name == "csp_sudoku4")
    instance = task.generate(0, 0)
    assert task.read_answer("**3412/1243/4321/2134**.") == task.oracle(instance)
    assert task.read_answer("3412/1243/4321/2134 I think") is UNPARSED
