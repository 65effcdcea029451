"""Reading the answers of the CSP tasks: names, ``key: value`` pairs, orders (a leaf module).

:mod:`harness.tasks.csp.common` re-exports every name.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

_PAIR_SPLIT = re.compile(r"[;,\n]+")
WORD = re.compile(r"^[A-Za-z][A-Za-z'\-]*$")


def first_line_block(text: Any) -> str | None:
    """The answer text with code fences and surrounding quotes removed, or ``None``."""
    if not isinstance(text, str):
        return None
    t = text.strip().strip("`").strip()
    if t.lower().startswith(("json", "text")):
        t = t[4:].strip()
    return t or None


def parse_pairs(text: Any, sep: str = r"[:=]") -> list[tuple[str, str]] | None:
    """Read ``key: value; key: value`` (also ``=``, commas, newlines, a JSON object).

    Returns the stripped (key, value) pairs in order, or ``None`` when no pair is found or
    any chunk between separators is not a pair (the text must be read completely).

    Examples
    --------
    >>> parse_pairs("Ashby=red; Bexley: green")
    [('Ashby', 'red'), ('Bexley', 'green')]
    >>> parse_pairs("Ashby=red; and that is all") is None
    True
    """
    t = first_line_block(text)
    if t is None:
        return None
    if t.startswith("{") and t.endswith("}"):
        t = t[1:-1].strip()
    pairs = []
    for chunk in _PAIR_SPLIT.split(t):
        if not chunk.strip():
            continue
        parts = re.split(sep, chunk, maxsplit=1)
        if len(parts) != 2:
            return None  # a chunk that is not a pair: the text is not read completely
        k = parts[0].strip().strip("\"'").strip()
        v = parts[1].strip().strip("\"'").strip()
        if not (k and v):
            return None
        pairs.append((k, v))
    return pairs or None


def parse_name_list(text: Any, names: list[str] | None = None) -> list[str] | None:
    """Read a comma/semicolon/arrow/newline separated list of names.

    Leading numbering (``1.``, ``1)``) and brackets are dropped. Returns ``None`` if empty.
    """
    t = first_line_block(text)
    if t is None:
        return None
    t = t.strip().strip("[]").strip()
    items = []
    for chunk in re.split(r"\s*(?:,|;|->|→|>|\n)\s*", t):
        c = re.sub(r"^\s*\d+\s*[.):]\s*", "", chunk).strip().strip("\"'").strip().rstrip(".")
        if c:
            items.append(c)
    return items or None


def word_list(text: Any, min_items: int = 1) -> list[str] | None:
    """:func:`parse_name_list` of ``text`` if it has at least ``min_items`` items and every item
    is a single word (:data:`WORD`), else ``None``."""
    items = parse_name_list(text)
    if not items or len(items) < min_items or not all(WORD.match(i) for i in items):
        return None
    return items


class OrderAnswer:
    """Mixin for an :class:`EliminationTask` whose answer is the order of named entities.

    The solution vector gives each entity's position; the answer lists the names in that order
    (written comma-separated). Subclasses set ``entity_key``, the setup key of the names.
    """

    entity_key: str

    def _answer_of(self, setup, vector):
        names = setup[self.entity_key]
        return [names[i] for i in sorted(range(len(names)), key=lambda i: vector[i])]

    def _vector_of(self, setup, answer):
        if not isinstance(answer, (list, tuple)):
            return None
        return position_vector(answer, setup[self.entity_key])

    def format_answer(self, answer: Any) -> str:
        return ", ".join(answer)


def position_vector(answer: Any, names: list[str]) -> np.ndarray:
    """Position in the list ``answer`` of each of ``names`` (-1 where absent); a name's first
    mention counts, tokens that name nobody are skipped."""
    vec = np.full(len(names), -1)
    for p, name in enumerate(answer):
        canon = canonical_name(str(name), names)
        if canon is not None and vec[names.index(canon)] == -1:
            vec[names.index(canon)] = p
    return vec


def canonical_name(token: str, names: list[str]) -> str | None:
    """Case-insensitive exact match of ``token`` to one of ``names``, else ``None``."""
    low = token.strip().lower()
    for n in names:
        if n.lower() == low:
            return n
    return None
