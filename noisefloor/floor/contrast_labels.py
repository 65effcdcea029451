"""Contrast labels ``a-b``: splitting them into two arms when names themselves contain '-'."""

from __future__ import annotations

#: The contrast the noise-floor paper certifies clean (byte-identical first requests at trial 0).
DEFAULT_CLEAN = ("no_coord-intercept",)


def _splits(label: str) -> list[tuple[str, str]]:
    """Every way to read ``label`` as ``a-b`` with both sides non-empty (names may hold '-')."""
    return [(label[:i], label[i + 1:]) for i, ch in enumerate(label)
            if ch == "-" and 0 < i < len(label) - 1]


def _reversals(label: str) -> set[str]:
    """``b-a`` for every reading ``a-b`` of ``label``."""
    return {f"{b}-{a}" for a, b in _splits(label)}


def split_protocol_pair(label: str, protocols, *, what: str = "clean pair") -> tuple[str, str]:
    """Split ``"a-b"`` into two protocol names, where the names themselves may contain '-'.

    Of every split at a '-', the one whose two sides are both among ``protocols`` is taken.

    Parameters
    ----------
    label : str
        The pair as written, e.g. ``"no-coord-intercept"``.
    protocols : iterable of str
        The protocol names present (in the log).
    what : str, default "clean pair"
        What the label is, for the error message (e.g. ``"contrast"``).

    Returns
    -------
    (str, str)
        The two protocols, in the order written.

    Raises
    ------
    ValueError
        If no split, or more than one, gives two of ``protocols``; the message lists the
        protocols and every split that fits.

    Examples
    --------
    >>> split_protocol_pair("no-coord-intercept", ["no-coord", "intercept", "pull"])
    ('no-coord', 'intercept')
    >>> split_protocol_pair("a-b-c", ["a", "b-c", "a-b", "c"])
    Traceback (most recent call last):
    ...
    ValueError: clean pair 'a-b-c' is ambiguous: it reads as 'a' vs 'b-c' and as 'a-b' vs 'c', all protocols of the log (a, a-b, b-c, c); the pair cannot be told apart as written
    """
    names = sorted(set(map(str, protocols)))
    listed = ", ".join(names) or "none"
    fits = [(a, b) for a, b in _splits(label) if a in names and b in names]
    if len(fits) == 1:
        return fits[0]
    if not fits:
        raise ValueError(
            f"{what} must name two protocols as 'a-b' (e.g. 'no_coord-intercept'), both "
            f"present in the log; {label!r} splits into no two of them. Protocols in the log: "
            f"{listed}")
    readings = " and as ".join(f"{a!r} vs {b!r}" for a, b in fits)
    raise ValueError(
        f"{what} {label!r} is ambiguous: it reads as {readings}, all protocols of the log "
        f"({listed}); the pair cannot be told apart as written")
