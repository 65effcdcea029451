"""Problems found while reading trial logs, and the exceptions and warnings that carry them.

Every problem names the file, the line (or 1-based record index for JSON documents), the field
when there is one, what was expected and what was received, so that a person can open the file
and fix it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "LogProblem",
    "LogValidationError",
    "TruncatedLine",
    "TruncatedLineWarning",
    "describe_value",
]


@dataclass(frozen=True)
class LogProblem:
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
    """

    source: str
    line: int | None
    field: str | None
    message: str
    expected: str | None = None
    received: str | None = None
    kind: str = "validation"

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        text = self.message
        if self.expected is not None:
            text += f" (expected {self.expected}"
            text += f", received {self.received})" if self.received is not None else ")"
        return f"{where}: {self.field}: {text}" if self.field else f"{where}: {text}"

    def to_dict(self) -> dict[str, Any]:
        """Return the problem as a plain dict (JSON-serialisable)."""
        return asdict(self)


class LogValidationError(ValueError):
    """A trial log cannot be loaded as it stands.

    ``str(error)`` is the first problem on one line (plus a count of the others);
    ``error.problems`` lists every problem found before the reader stopped.
    """

    def __init__(self, problems: list[LogProblem]) -> None:
        if not problems:
            raise ValueError("LogValidationError needs at least one problem")
        self.problems = list(problems)
        first = str(self.problems[0])
        more = len(self.problems) - 1
        super().__init__(first if more == 0 else f"{first} (and {more} more problem(s))")


@dataclass(frozen=True)
class TruncatedLine:
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

    def to_dict(self) -> dict[str, Any]:
        """Return the report as a plain dict (JSON-serialisable)."""
        return asdict(self)


class TruncatedLineWarning(UserWarning):
    """Warned when the last line of a JSONL file is cut off without a newline and skipped."""


class InfrastructureRewardWarning(UserWarning):
    """Warned (once per tau2-bench run) when simulations that ended in ``infrastructure_error``
    carry a ``reward_info.reward``: they are read with a null reward, as documented in
    :mod:`noisefloor.logs.tau2`, and the recorded reward is kept in ``extra["recorded_reward"]``."""


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
