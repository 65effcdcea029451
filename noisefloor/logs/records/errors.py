"""Problems found while reading trial logs, and the exceptions and warnings that carry them.

Every problem names the file, the line (or 1-based record index for JSON documents), the field
when there is one, what was expected and what was received, so that a person can open the file
and fix it.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from noisefloor.results import FrozenResult
from noisefloor.stats.validation import MentionError, Spell, mention_text
from noisefloor.stats.warning_classes import InfrastructureRewardWarning, TruncatedLineWarning

__all__ = [
    "InfrastructureRewardWarning",
    "LogProblem",
    "LogValidationError",
    "TruncatedLine",
    "TruncatedLineWarning",
    "describe_value",
]


@dataclass(frozen=True)
class LogProblem(FrozenResult):
    """One problem in one record of one file.

    Attributes
    ----------
    source : str
        Path of the file.
    line : int or None
        1-based line number (JSONL) or 1-based record index (JSON documents); ``None`` for a
        problem of the whole file (unreadable, unknown format).
    field : str or None
        Dotted field name (``"task_id"``, ``"reward_info.reward"``); ``None`` when the problem
        is not about one field (malformed JSON, duplicate row).
    message : str
        What is wrong, in one sentence.
    expected : str or None
        What the field should hold.
    received : str or None
        A short description of what it holds.
    kind : str
        Machine-readable category: ``"json"``, ``"encoding"``, ``"duplicate_key"``,
        ``"validation"``, ``"duplicate_row"``, ``"format"``, ``"io"``.
    templates : tuple of (str, str or None), optional
        ``message`` and ``expected`` as written with parameter mentions (``{allow_nan=True}``,
        see :func:`noisefloor.stats.validation.mention_text`), so a front end can spell the
        parameters its own way (:meth:`render`); made by :meth:`mentioning`. Not part of
        :meth:`to_dict` or of equality.
    """

    _dict_exclude = ("templates",)

    source: str
    line: int | None
    field: str | None
    message: str
    expected: str | None = None
    received: str | None = None
    kind: str = "validation"
    templates: tuple[str, str | None] | None = dataclass_field(default=None, compare=False,
                                                              repr=False)

    @classmethod
    def mentioning(cls, source: str, line: int | None, field: str | None, message: str,
                   expected: str | None = None, received: str | None = None,
                   kind: str = "validation") -> LogProblem:
        """A problem whose ``message`` / ``expected`` mention parameters as ``{name=value}``.

        Examples
        --------
        >>> p = LogProblem.mentioning("a.json", None, None, "cannot name the model (or pass "
        ...                           "{model})", "a non-empty string")
        >>> str(p)
        'a.json: cannot name the model (or pass model=) (expected a non-empty string)'
        >>> p.render(lambda name, value: "--" + name)
        'a.json: cannot name the model (or pass --model) (expected a non-empty string)'
        """
        return cls(source, line, field, mention_text(message),
                   None if expected is None else mention_text(expected), received, kind,
                   templates=(message, expected))

    def texts(self, spell: Spell | None = None) -> tuple[str, str | None]:
        """``(message, expected)`` with parameters spelled by ``spell(name, value)``."""
        if self.templates is None or spell is None:
            return self.message, self.expected
        message, expected = self.templates
        return (mention_text(message, spell),
                None if expected is None else mention_text(expected, spell))

    def render(self, spell: Spell | None = None) -> str:
        """``file:line: field: message (expected ..., received ...)``, parameters spelled by
        ``spell(name, value)`` (default: as in Python, ``name=value``)."""
        message, expected = self.texts(spell)
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        text = message
        if expected is not None:
            text += f" (expected {expected}"
            text += f", received {self.received})" if self.received is not None else ")"
        return f"{where}: {self.field}: {text}" if self.field else f"{where}: {text}"

    def __str__(self) -> str:
        return self.render()


class LogValidationError(MentionError):
    """A trial log cannot be loaded as it stands.

    ``str(error)`` is the first problem on one line (plus a count of the others);
    ``error.problems`` lists every problem found before the reader stopped.
    """

    def __init__(self, problems: list[LogProblem]) -> None:
        if not problems:
            raise ValueError("LogValidationError needs at least one problem")
        self.problems = list(problems)
        ValueError.__init__(self, self.render())

    def render(self, spell: Spell | None = None) -> str:
        """The first problem (plus a count of the others), parameters spelled by ``spell``."""
        first = self.problems[0].render(spell)
        more = len(self.problems) - 1
        return first if more == 0 else f"{first} (and {more} more problem(s))"

    def __reduce__(self):
        return (type(self), (self.problems,))


@dataclass(frozen=True)
class TruncatedLine(FrozenResult):
    """A final line cut off without a newline, skipped rather than fatal.

    Attributes
    ----------
    source : str
        Path of the file.
    line : int
        1-based number of the cut-off line.
    n_bytes : int
        Length of the fragment in bytes.
    reason : str
        Why the fragment could not be read (the JSON parser's message).
    """

    source: str
    line: int
    n_bytes: int
    reason: str

    def __str__(self) -> str:
        return (
            f"{self.source}:{self.line}: final line is truncated (no newline, {self.n_bytes} "
            f"bytes, {self.reason}); it was skipped"
        )


_JSON_TYPE_NAMES = {
    type(None): "null",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
}


def describe_value(value: Any, limit: int = 60) -> str:
    """Describe a decoded JSON value for an error message: its JSON type and a short repr.

    Examples
    --------
    >>> describe_value(7)
    'an integer 7'
    >>> describe_value(None)
    'null'
    >>> describe_value("007")
    "a string '007'"
    """
    name = _JSON_TYPE_NAMES.get(type(value), type(value).__name__)
    if value is None:
        return name
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{name} {text}"
