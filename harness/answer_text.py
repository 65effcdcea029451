"""Normalising an answer's text before a task's parser reads it (a leaf module).

The collaboration-tax paper grades deterministically: "a grader model only converts free text
into a structured answer; the score itself is computed by a deterministic program" (section
3). A parser therefore accepts only an answer it reads *completely*. Models decorate answers
in a few ways that carry no content; :func:`normalise_answer` removes exactly those, and
nothing else, before :meth:`harness.base.Task.parse` sees the text:

- surrounding whitespace and a code fence (```` ```text ... ``` ````);
- a lead-in such as ``The answer is``, ``Answer:``, ``Our final answer is:``;
- surrounding Markdown emphasis (``**...**``, ``*...*``, ``__...__``, ``_..._``, backticks);
- surrounding quotes: ``"..."``, ``'...'``, curly quotes, guillemets ``«...»`` / ``‹...›``;
- one trailing full stop (not an ellipsis), inside or outside the emphasis.

Case is left to each task's parser (its answer format says whether case matters). Anything
else that surrounds an answer (a trailing remark, a parenthesis) is left in place, so a strict
parser rejects it and the answer goes to the grader model, never to partial credit.
"""

from __future__ import annotations

import re
from typing import Any

from harness.instance import UNPARSED, Instance
from harness.vocabulary import FINAL_MARKER

__all__ = ["AnswerReading", "normalise_answer"]

_LEAD = re.compile(
    r"^(?:so\s*,?\s*|thus\s*,?\s*|therefore\s*,?\s*)?(?:(?:the|our|my)\s+)?(?:final\s+)?"
    r"(?:answer|solution)(?:\s+is)?\s*(?::|-|\u2013|\u2014)?\s*", re.IGNORECASE)
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
#: Surrounding Markdown emphasis: one run of the same marks on both sides.
_EMPHASIS = re.compile(r"([*_`~]+)(.+)\1", re.DOTALL)
#: Surrounding quotes stripped.
_PAIRS = (('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"),
          ("\u2039", "\u203a"), ("\u201e", "\u201c"))


def _strip_pair(text: str) -> str:
    if text.startswith("```"):  # a code fence: the next pass removes it whole
        return text
    m = _EMPHASIS.fullmatch(text)
    if m and m.group(1) not in m.group(2) and m.group(2).strip():
        return m.group(2).strip()
    for left, right in _PAIRS:
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right):
            inner = text[len(left):len(text) - len(right)]
            # "'a', 'b'" starts and ends with a quote but is not one quoted string
            if left not in inner and right not in inner:
                return inner.strip()
    return text


def normalise_answer(text: object) -> str:
    """The answer text with its content-free decoration removed (see the module docstring).

    Parameters
    ----------
    text : object
        What follows the termination marker (a non-string gives ``""``).

    Returns
    -------
    str
        The text a task's parser must read completely.

    Examples
    --------
    >>> normalise_answer("  The answer is: **«1234/3412/2143/4321»**. ")
    '1234/3412/2143/4321'
    >>> normalise_answer("1: Ada; 2: Bo.")
    '1: Ada; 2: Bo'
    >>> normalise_answer("'Ada', 'Bo'")        # two quoted items, not one quoted string
    "'Ada', 'Bo'"
    >>> normalise_answer("Ada, Bo (I think)")  # a remark stays: the parser must refuse it
    'Ada, Bo (I think)'
    >>> normalise_answer("wait...")
    'wait...'
    """
    if not isinstance(text, str):
        return ""
    t = text.strip()
    stop_used = False
    for _ in range(8):  # each pass removes one layer; eight covers any real decoration
        before = t
        m = _FENCE.match(t)
        if m:
            t = m.group(1).strip()
        if not stop_used and t.endswith(".") and not t.endswith(".."):
            t, stop_used = t[:-1].rstrip(), True
        lead = _LEAD.match(t)
        if lead and lead.end() < len(t):
            t = t[lead.end():].strip()
        t = _strip_pair(t)
        if t == before:
            break
    return t


class AnswerReading:
    """How a task reads an answer out of a message: the methods :class:`harness.base.Task`
    inherits (it supplies ``parse``)."""

    def parse(self, text: str) -> Any:  # pragma: no cover - Task declares it abstract
        raise NotImplementedError

    def extract_answer(self, text: str, instance: Instance | None = None) -> Any:
        """Find the last termination marker in ``text`` and read what follows it
        (:meth:`read_answer`).

        Parameters
        ----------
        text : str
            A whole message or transcript; the marker is matched case-insensitively.

        Returns
        -------
        object
            The parsed answer; :data:`UNPARSED` when there is no marker, ``text`` is not a
            string, or the parser cannot read (or raises on) what follows the marker.

        Examples
        --------
    >>> from harness.registry import get_task
    >>> task = get_task("csp_sudoku4")
        >>> task.extract_answer("FINAL ANSWER: 1234/3412/2143/4321 final answer: 3412/1243/4321/2134")
        '3412/1243/4321/2134'
        >>> task.extract_answer("I think it is 3412/1243/4321/2134")
        UNPARSED
        """
        if not isinstance(text, str):
            return UNPARSED
        matches = list(re.finditer(re.escape(FINAL_MARKER), text, flags=re.IGNORECASE))
        if not matches:
            return UNPARSED
        return self.read_answer(text[matches[-1].end():], instance)

    def read_answer(self, text: str, instance: Instance | None = None) -> Any:
        """Read an answer: :func:`harness.answer_text.normalise_answer`, then :meth:`parse`.

        The normalisation removes only content-free decoration (whitespace, a code fence, a
        lead-in such as "The answer is", surrounding Markdown emphasis and quotes or
        guillemets, one trailing full stop); the parser must then read the whole text, so a
        decorated correct answer scores 1.0 or is left unparsed, never partial credit.

        Parameters
        ----------
        text : str
            The answer text (what follows the marker, or a grader model's reply).
        instance : Instance, optional
            The instance answered; when given, an answer :meth:`recognises` refuses (an item
            that names nothing in the instance, e.g. a remark read as a name) is
            :data:`UNPARSED` too.

        Returns
        -------
        object
            The parsed answer or :data:`UNPARSED` (also when the parser raises).

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("csp_sudoku4")
        >>> task.read_answer("The answer is **3412/1243/4321/2134**.")
        '3412/1243/4321/2134'
        >>> task.read_answer("3412/1243/4321/2134 (I checked every box)")
        UNPARSED
        """
        try:
            answer = self.parse(normalise_answer(text))
            if answer is not UNPARSED and instance is not None \
                    and not self.recognises(instance, answer):
                return UNPARSED
            return answer
        except Exception:  # a parser bug must not crash a run; the answer is unreadable
            return UNPARSED

    def recognises(self, instance: Instance, answer: Any) -> bool:
        """Whether every part of a parsed ``answer`` is something the instance can name.

        A parser does not see the instance, so a list of names cannot tell a name from a
        remark that looks like one ("I believe it is Ada"). Tasks whose grader silently skips
        unknown items override this (the default accepts every parsed answer).

        Parameters
        ----------
        instance : Instance
        answer : object
            A parsed answer (not :data:`UNPARSED`).

        Returns
        -------
        bool

        Examples
        --------
        >>> from harness.registry import get_task
        >>> task = get_task("csp_sudoku4")
        >>> task.recognises(task.generate(0, 0), "3412/1243/4321/2134")
        True
        """
        return True

