"""Validation at the public boundary: one exception that names its parameter, and the validators.

Every check of a caller's argument raises :class:`ParameterError` (a :class:`ValueError`; its
twin :class:`ParameterTypeError` is also a :class:`TypeError`) with one message template,
``"{parameter} must be {expected}, got {got!r}"``. The error keeps the parameter's Python name
in ``.parameter``, so a front end that spells parameters differently (the command line's
``--k-exceeds-n`` for ``k_exceeds_n``) renders the same message with its own names through
:meth:`ParameterError.render`; nothing rewrites message text.

Other parameters the message points to (``pass {k_exceeds_n='nan'} to decide``) are written as
*mentions* in braces: ``{name}`` or ``{name=value}``. In Python they read ``name=`` and
``name=value``; a front end passes ``spell`` to render them its own way. :func:`mention_text`
renders any text with mentions, so exceptions other than :class:`ParameterError` (a log
problem's hint) can use them too.

This module is pure (no I/O) and imports nothing else of noisefloor, so :mod:`noisefloor.stats`
uses it without leaving the package.
"""

from __future__ import annotations

import numbers
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any, SupportsFloat, SupportsIndex

import numpy as np

__all__ = [
    "MentionError",
    "ParameterError",
    "ParameterTypeError",
    "Spell",
    "choice",
    "count",
    "literal",
    "mention_text",
    "probability",
    "python_spelling",
]

#: ``spell(name, value)`` -> how a front end writes parameter ``name`` (``value`` is the text
#: after ``=`` in a mention, ``None`` for a bare ``{name}`` or the subject of the message).
Spell = Callable[[str, "str | None"], str]

#: Sentinel for "no value received" (a missing argument): the message then has no ``got``.
_NOTHING: Any = object()


def python_spelling(name: str, value: str | None, *, subject: bool = False) -> str:
    """How a parameter reads in a Python message.

    The subject of a message is the bare name (``n_boot must be ...``); a mention is a keyword
    (``protocol=``, ``k_exceeds_n='nan'``).

    Examples
    --------
    >>> python_spelling("n_boot", None, subject=True)
    'n_boot'
    >>> python_spelling("protocol", None)
    'protocol='
    >>> python_spelling("k_exceeds_n", "'nan'")
    "k_exceeds_n='nan'"
    """
    if subject:
        return name
    return f"{name}=" if value is None else f"{name}={value}"


class _Mentions(string.Formatter):
    """str.format over mention fields: ``{name}`` and ``{name=value}`` go through ``spell``."""

    def __init__(self, spell: Spell) -> None:
        self.spell = spell

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]):
        name, sep, value = field_name.partition("=")
        return self.spell(name, value if sep else None), field_name


def literal(text: object) -> str:
    """``str(text)`` with its braces doubled, to put data (a task id) into a message with mentions.

    Examples
    --------
    >>> mention_text(literal("task {7}") + " needs {k_exceeds_n}")
    'task {7} needs k_exceeds_n='
    """
    return str(text).replace("{", "{{").replace("}", "}}")


def mention_text(text: str, spell: Spell | None = None) -> str:
    """Render ``text`` whose parameter mentions are written ``{name}`` or ``{name=value}``.

    Parameters
    ----------
    text : str
        The message; a literal brace is doubled (``{{``), as in :meth:`str.format`.
    spell : callable, optional
        ``spell(name, value) -> str``; default :func:`python_spelling` (``name=value``).

    Returns
    -------
    str
        The message with every mention spelled.

    Examples
    --------
    >>> mention_text("2 protocols; choose one with {protocol}")
    '2 protocols; choose one with protocol='
    >>> mention_text("pass {allow_nan=True} to accept it")
    'pass allow_nan=True to accept it'
    >>> cli = lambda name, value: "--" + name.replace("_", "-") + (
    ...     "" if value in (None, "True") else " " + value.strip("'"))
    >>> mention_text("pass {k_exceeds_n='nan'} or {k_exceeds_n='exclude'}", cli)
    'pass --k-exceeds-n nan or --k-exceeds-n exclude'
    """
    return _Mentions(spell or python_spelling).vformat(text, (), {})


class MentionError(ValueError):
    """A :class:`ValueError` whose message mentions parameters (``{name}``, ``{name=value}``).

    ``str(error)`` spells them the Python way; :meth:`render` takes another spelling, so the
    command line shows its options without rewriting the text.

    Parameters
    ----------
    message : str
        The message with mentions; data put into it go through :func:`literal`.

    Examples
    --------
    >>> err = MentionError("no pair is certified; declare one with {null_pairs}")
    >>> str(err)
    'no pair is certified; declare one with null_pairs='
    >>> err.render(lambda name, value: "--null")
    'no pair is certified; declare one with --null'
    """

    def __init__(self, message: str) -> None:
        self.template = message
        super().__init__(mention_text(message))

    def render(self, spell: Spell | None = None) -> str:
        """The message with parameters spelled by ``spell(name, value)`` (default: Python)."""
        return mention_text(self.template, spell)

    def __reduce__(self):
        return (type(self), (self.template,))


class ParameterError(MentionError):
    """An argument outside what its parameter accepts.

    Parameters
    ----------
    parameter : str
        The parameter's Python name (``"k_exceeds_n"``).
    expected : str
        What it accepts, read after "must be" (``"one of 'nan', 'exclude'"``); may mention
        other parameters as ``{name}`` or ``{name=value}``.
    got : object, optional
        The value received; left out of the message when not given (a missing argument).
    message : str, optional
        A whole message in place of the template, for an error that is no range check (the
        data need a decision: ``"... pass {k_exceeds_n='nan'} to decide"``); it may mention
        parameters the same way. ``expected`` then says what the parameter must be set to.

    Attributes
    ----------
    parameter, expected, got, message
        As given (``got`` is :data:`None` when not given; see ``has_got``).
    has_got : bool
        Whether a value was received.

    Notes
    -----
    The message is ``"{parameter} must be {expected}, got {got!r}"``, or
    ``"{parameter} must be {expected}"`` without a value. ``str(error)`` spells parameters the
    Python way; :meth:`render` takes another spelling.

    Examples
    --------
    >>> err = ParameterError("n_boot", "an integer >= 100", 5)
    >>> str(err)
    'n_boot must be an integer >= 100, got 5'
    >>> err.render(lambda name, value: "--" + name.replace("_", "-"))
    '--n-boot must be an integer >= 100, got 5'
    >>> isinstance(err, ValueError), err.parameter
    (True, 'n_boot')
    >>> str(ParameterError("unequal_trials", "'allow' or 'truncate'", "error",
    ...                    message="trials differ; pass {unequal_trials='allow'} to decide"))
    "trials differ; pass unequal_trials='allow' to decide"
    """

    def __init__(self, parameter: str, expected: str, got: Any = _NOTHING, *,
                 message: str | None = None) -> None:
        self.parameter = parameter
        self.expected = expected
        self.has_got = got is not _NOTHING
        self.got = got if self.has_got else None
        self.message = message
        ValueError.__init__(self, self.render())

    def render(self, spell: Spell | None = None) -> str:
        """The message with parameters spelled by ``spell(name, value)`` (default: Python)."""
        if self.message is not None:
            return mention_text(self.message, spell)
        if spell is None:
            subject = python_spelling(self.parameter, None, subject=True)
        else:
            subject = spell(self.parameter, None)
        text = f"{subject} must be {mention_text(self.expected, spell)}"
        return f"{text}, got {self.got!r}" if self.has_got else text

    def __reduce__(self):  # picklable across processes with its fields
        return (_rebuild, (type(self), self.parameter, self.expected,
                           self.got if self.has_got else _NOTHING, self.message))


def _rebuild(cls, parameter, expected, got, message):
    return cls(parameter, expected, got, message=message)


class ParameterTypeError(ParameterError, TypeError):
    """A :class:`ParameterError` for an argument of the wrong type (also a :class:`TypeError`).

    Examples
    --------
    >>> err = ParameterTypeError("k", "an integer", "3")
    >>> isinstance(err, TypeError) and isinstance(err, ValueError)
    True
    """


# ----------------------------------------------------------------------------- validators


def count(name: str, value: object) -> int:
    """Return ``value`` as a non-negative int or raise naming the parameter.

    A float holding a whole number (``3.0``) is accepted; a bool is not.

    Raises
    ------
    ParameterTypeError
        Not a whole number.
    ParameterError
        Negative.

    Examples
    --------
    >>> count("wins", 3.0)
    3
    >>> count("wins", -1)
    Traceback (most recent call last):
    ...
    noisefloor.stats.validation.ParameterError: wins must be a non-negative integer count, got -1
    """
    expected = "a non-negative integer count"
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer() and value >= 0:
            return int(value)
        raise ParameterTypeError(name, expected, value)
    if value < 0:
        raise ParameterError(name, expected, value)
    return int(value)


def choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``allowed``; otherwise raise naming all of them.

    Examples
    --------
    >>> choice("method", "holm", ("holm", "bonferroni"))
    'holm'
    >>> choice("tie", "drop", ("exclude", "first"))
    Traceback (most recent call last):
    ...
    noisefloor.stats.validation.ParameterError: tie must be one of 'exclude', 'first', got 'drop'
    """
    if value not in allowed:
        raise ParameterError(name, "one of " + ", ".join(map(repr, allowed)), value)
    return str(value)


def probability(name: str, value: object) -> float:
    """Return ``value`` as a float strictly between 0 and 1, or raise naming the parameter.

    Examples
    --------
    >>> probability("confidence", 0.95)
    0.95
    >>> probability("confidence", 95)
    Traceback (most recent call last):
    ...
    noisefloor.stats.validation.ParameterError: confidence must be strictly between 0 and 1, got 95
    """
    try:
        if not isinstance(value, (SupportsFloat, SupportsIndex, str, bytes)):
            raise TypeError(value)
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterTypeError(name, "a number in (0, 1)", value) from None
    if not 0.0 < v < 1.0:
        raise ParameterError(name, "strictly between 0 and 1", value)
    return v
