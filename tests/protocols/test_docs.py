"""``docs/protocols.md`` stays true: every Python block runs, and prints its ``Output:`` block.

A fenced ``python`` block is an example; when the next non-blank line after it is ``Output:``
and a fenced block follows, that block is what the example must print (``...`` matches any
text, as doctest's ELLIPSIS does; trailing white space is ignored). A block preceded by
``<!-- file: NAME -->`` is an input file for a terminal session, which
``tests/test_docs_examples.py`` runs; it is not run here. Each example runs in a fresh
namespace, in a temporary working folder.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib.util
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocols.md"
_FILE_COMMENT = re.compile(r"^<!--\s*file:\s*\S+\s*-->$")


@dataclass
class Example:
    line: int
    code: str
    output: str | None


def python_examples(text: str) -> list[Example]:
    """The document's python blocks, each with the ``Output:`` block after it (or None)."""
    lines = text.splitlines()
    examples: list[Example] = []
    i = 0

    def fenced(start: int) -> tuple[list[str], int]:
        """Body of the fenced block opening at ``start`` and the index after its closing fence."""
        fence = lines[start][: len(lines[start]) - len(lines[start].lstrip("`"))]
        j = start + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        return lines[start + 1 : j], j + 1

    def next_text(j: int) -> int:
        while j < len(lines) and not lines[j].strip():
            j += 1
        return j

    while i < len(lines):
        line = lines[i]
        if not line.startswith("```"):
            i += 1
            continue
        is_file = bool(examples_file_comment(lines, i))
        body, after = fenced(i)
        if line.strip() == "```python" and not is_file:
            output = None
            j = next_text(after)
            if j < len(lines) and lines[j].strip() == "Output:":
                k = next_text(j + 1)
                if k < len(lines) and lines[k].startswith("```"):
                    out_body, after = fenced(k)
                    output = "\n".join(out_body)
            examples.append(Example(i + 1, "\n".join(body) + "\n", output))
        i = after
    return examples


def examples_file_comment(lines: list[str], fence_index: int) -> bool:
    """True when the nearest non-blank line above the fence is a ``<!-- file: NAME -->``."""
    j = fence_index - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return j >= 0 and bool(_FILE_COMMENT.match(lines[j].strip()))


def _normalise(text: str) -> str:
    rows = [row.rstrip() for row in text.splitlines()]
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows) + "\n"


def _matches(expected: str, got: str) -> bool:
    return doctest.OutputChecker().check_output(_normalise(expected), _normalise(got),
                                                doctest.ELLIPSIS)


EXAMPLES = python_examples(DOC.read_text(encoding="utf-8"))


def test_parser_pairs_examples_with_their_output():
    text = (
        "```python\nprint(1)\n```\n\nOutput:\n\n```text\n1\n```\n"
        "<!-- file: make.py -->\n```python\nprint(2)\n```\n"
        "```python\nx = 3\n```\nprose\n```text\nnot an output\n```\n"
    )
    got = [(e.line, e.code, e.output) for e in python_examples(text)]
    assert got == [(1, "print(1)\n", "1"), (14, "x = 3\n", None)]
    assert _matches("a ...\nb\n", "a 123\nb   \n\n")
    assert not _matches("a\n", "b\n")


def test_the_page_has_its_examples():
    # the plain-callables loop, pull, selective, predicate, own reader/writer, record, LangChain
    assert len(EXAMPLES) >= 7
    assert all(e.output is not None for e in EXAMPLES), [e.line for e in EXAMPLES if e.output is None]


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_example_prints_its_output(example: Example, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch):
    if "langchain" in example.code and importlib.util.find_spec("langchain") is None:
        pytest.skip("the LangChain example needs the langchain extra")
    monkeypatch.chdir(tmp_path)
    buffer = io.StringIO()
    namespace: dict[str, object] = {"__name__": "__docs_example__"}
    with contextlib.redirect_stdout(buffer):
        exec(compile(example.code, f"{DOC.name}:{example.line}", "exec"), namespace)
    got = buffer.getvalue()
    if example.output is not None:
        assert _matches(example.output, got), (
            f"docs/protocols.md:{example.line}\n--- expected\n{example.output}\n--- got\n{got}")
