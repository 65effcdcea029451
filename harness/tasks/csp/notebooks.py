"""Reading a CSP rendering back: its two notebooks, their intro and their fact lines.

The text solvers of the CSP tasks (each task's ``_solve_notebooks``) read nothing but
``task.render(instance)``, the text the solo control sees. A sentence they cannot read raises
``ValueError`` naming the line (:func:`unreadable`), so a rendering change that loses
information fails loudly instead of silently. A leaf module: it imports no task module.

Examples
--------
>>> from harness.tasks.csp.notebooks import read_notebooks
>>> text = ("Title\\n\\n--- Notebook 1 ---\\nIntro one.\\nYour constraints:\\n  1. A.\\n\\n"
...         "--- Notebook 2 ---\\nIntro two.\\nYour notes:\\n  - B.")
>>> [(b["intro"].strip(), b["facts"]) for b in read_notebooks(text)]
[('Intro one.', ['A.']), ('Intro two.', ['B.'])]
"""

from __future__ import annotations

import re
from typing import Any


def read_notebooks(text: str) -> list[dict[str, Any]]:
    """The two notebooks of a CSP rendering, each as ``{"intro": str, "facts": [str]}``.

    Parameters
    ----------
    text : str
        ``task.render(instance)``: a title, then ``--- Notebook 1 ---`` and ``--- Notebook 2
        ---`` sections, each an intro followed by ``Your constraints:`` (numbered lines) or
        ``Your notes:`` (dashed lines).

    Returns
    -------
    list of dict
        Two dicts; ``facts`` holds the lines with their numbering or dash removed.

    Raises
    ------
    ValueError
        If the text does not hold exactly two notebooks.
    """
    parts = re.split(r"^--- Notebook \d ---$", text, flags=re.MULTILINE)[1:]
    if len(parts) != 2:
        raise ValueError("rendering does not contain two notebooks")
    books = []
    for part in parts:
        intro, _, facts = part.partition("\nYour constraints:\n")
        if not facts:
            intro, _, facts = part.partition("\nYour notes:\n")
        lines = [re.sub(r"^\s*(?:\d+\.|-)\s*", "", ln).strip() for ln in facts.splitlines()]
        books.append({"intro": intro, "facts": [ln for ln in lines if ln]})
    return books


def need(pattern: str, text: str, what: str) -> re.Match[str]:
    """The first match of ``pattern`` in ``text``; ``ValueError`` naming ``what`` if none.

    Examples
    --------
    >>> need(r"(\\d+) guests", "Seat 5 guests.", "guest count")[1]
    '5'
    >>> need(r"(\\d+) guests", "Seat them.", "guest count")
    Traceback (most recent call last):
    ...
    ValueError: cannot find guest count in: 'Seat them.'
    """
    m = re.search(pattern, text)
    if m is None:
        raise ValueError(f"cannot find {what} in: {text[:200]!r}")
    return m


def unreadable(line: str) -> ValueError:
    """The error a text solver raises for a constraint line it cannot read."""
    return ValueError(f"unreadable constraint line: {line!r}")
