"""``noisefloor leaderboard`` in one call: the listing, two entries compared, or the tiers.

:func:`leaderboard_run` does everything the command does and returns one
:class:`LeaderboardRun` whose :meth:`~LeaderboardRun.to_dict` is the command's ``--json``, with
the same top-level keys in every mode (the parts a mode does not produce are None). The command
line only parses its options and prints the result. The leaderboard's own work (its entries,
gaps, re-runs floor and tiers) is :mod:`noisefloor.leaderboard`; this module adds what needs the
layers above it: a floor read from trial logs, and tiers of the configurations of trial logs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from noisefloor.leaderboard.entries import DOMAIN_TASKS, Leaderboard, read_leaderboard
from noisefloor.leaderboard.gaps import (
    LeaderboardComparison,
    LeaderboardFloor,
    compare_entries,
    floor_from_reruns,
    reruns_floor,
)
from noisefloor.leaderboard.tiers import (
    LeaderboardTiers,
    save_tier_plots,
    tiers_by_domain,
    tiers_from_trials,
)
from noisefloor.logs.runs import logs_given
from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate

__all__ = ["LeaderboardRun", "leaderboard_run"]

_PLOT_SUFFIXES = (".png", ".svg", ".pdf")


@dataclass(frozen=True)
class LeaderboardRun(FrozenResult):
    """Result of :func:`leaderboard_run` (``noisefloor leaderboard``).

    Attributes
    ----------
    mode : {"listing", "compare", "tiers"}
        What was done.
    source : str
        The leaderboard file read, or (tiers of trial logs) the logs as named.
    n_submissions : int or None
        Submissions in the leaderboard file (None for trial logs).
    domain : str or None
        The one domain asked for (None: every domain).
    confidence : float
        Level of every interval and bound.
    entries : pandas.DataFrame or None
        Listing: the entries, best pass^1 first within each domain
        (:meth:`~noisefloor.leaderboard.Leaderboard.to_frame`).
    reruns_floor : LeaderboardFloor or None
        The leaderboard's re-runs floor from re-submissions of one model (None for trial logs).
    comparison : LeaderboardComparison or None
        Compare: the gap per shared domain, placed against the floor it names.
    tiers : tuple of LeaderboardTiers or None
        Tiers: one per domain with at least two entries (one for trial logs).
    plots : tuple of str or None
        Tiers with ``plot``: the figures written, one per element of ``tiers``.
    """

    _dict_keys = ("mode", "source", "n_submissions", "domain", "confidence", "entries",
                  "reruns_floor", "comparison", "tiers", "plots")

    mode: str
    source: str
    n_submissions: int | None
    domain: str | None
    confidence: float
    entries: pd.DataFrame | None = field(default=None, repr=False)
    reruns_floor: LeaderboardFloor | None = None
    comparison: LeaderboardComparison | None = None
    tiers: tuple[LeaderboardTiers, ...] | None = None
    plots: tuple[str, ...] | None = None

    # hand-written: the table is the mode's own (entries, the gaps, or every tier's entries)
    def to_frame(self) -> pd.DataFrame:
        """The listing's entries, the comparison's rows, or the entries of every tier result
        (with a ``domain`` column), by :attr:`mode`."""
        if self.comparison is not None:
            return self.comparison.to_frame()
        if self.tiers is not None:
            return pd.concat([t.to_frame().assign(domain=t.domain) for t in self.tiers],
                             ignore_index=True)
        return self.entries.copy() if self.entries is not None else pd.DataFrame()


def _check_options(board, a, b, floor, envelope, floor_logs, null_pairs, clean_pairs, tiers,
                   tier_logs, plot) -> None:
    P = _validate.ParameterError
    if not tiers:
        given = [n for n, v in (("tier_logs", tier_logs), ("plot", plot)) if _supplied(v)]
        if given:
            raise P(given[0], "None without {tiers=True}", message=_unused(
                given, "without {tiers=True}", "they give and draw the entries ranked into "
                "tiers"))
        if board is None:
            raise P("board", "a leaderboard (or {tier_logs} with {tiers=True})", message=(
                "give the leaderboard {board} (or {tier_logs} with {tiers=True})"))
        if (a is None) != (b is None):
            raise P("b" if b is None else "a", "given with {a}/{b}", message=(
                "give both {a} and {b} to compare two entries"))
    else:
        if (board is None) == (not logs_given(tier_logs)):
            raise P("board", "given or {tier_logs}", message=(
                "{tiers=True} reads the leaderboard {board} or trial logs ({tier_logs}), one "
                "of the two"))
        if plot is not None and not str(plot).lower().endswith(_PLOT_SUFFIXES):
            raise P("plot", "a path ending in .png, .svg or .pdf", str(plot))
    # never ignored: they place the gap of a and b
    unused = [name for name, value in (("a", a), ("b", b), ("floor", floor),
                                       ("envelope", envelope), ("floor_logs", floor_logs),
                                       ("null_pairs", null_pairs), ("clean_pairs", clean_pairs))
              if _supplied(value) and (tiers or name not in ("a", "b"))]
    if unused and (tiers or a is None):
        raise P(unused[0], "None " + ("with {tiers=True}" if tiers else "without {a}/{b}"),
                message=_unused(unused, "with {tiers=True}", "it ranks the whole leaderboard; "
                                "they place the gap between two entries ({a}, {b}) against a "
                                "floor") if tiers else _unused(
                    unused, "to the listing (no {a}/{b} to compare)", "they place the gap "
                    "between {a} and {b} against a floor"))
    for name, value in (("floor", floor), ("envelope", envelope)):
        if value is not None and not math.isfinite(value):
            raise P(name, "a finite proportion", value)
    if floor is not None and logs_given(floor_logs):
        raise P("floor", "None with {floor_logs}", floor, message=(
            "give {floor} or {floor_logs}, not both"))
    if envelope is not None and floor is None:
        raise P("envelope", "given with {floor}", envelope, message="{envelope} goes with {floor}")
    if (null_pairs or clean_pairs) and not logs_given(floor_logs):
        raise P("null_pairs", "given with {floor_logs}", message=(
            "{null_pairs} and {clean_pairs} go with {floor_logs} (they decide which contrasts "
            "of the log are null)"))


def _supplied(value) -> bool:
    """An argument given: not None, not an empty sequence."""
    return value is not None and not (isinstance(value, (tuple, list)) and not value)


def _unused(names, mode: str, why: str) -> str:
    """``{x}, {y} do not apply {mode}: {why}`` (parameters as mentions)."""
    verb = "does" if len(names) == 1 else "do"
    return ", ".join("{" + n + "}" for n in names) + f" {verb} not apply {mode}: {why}"


def leaderboard_run(board: Leaderboard | str | Path | None = None, *, domain: str | None = None,
                    a: str | None = None, b: str | None = None, floor: float | None = None,
                    envelope: float | None = None, floor_logs: Any = (),
                    floor_kind: str = "floor", null_pairs: Sequence = (),
                    clean_pairs: Sequence = (), confidence: float = 0.95, tiers: bool = False,
                    tier_logs: Any = (), plot: str | Path | None = None,
                    **read_options: Any) -> LeaderboardRun:
    """List a tau2-bench leaderboard, compare two of its entries, or rank it into tiers.

    What ``noisefloor leaderboard`` prints: without ``a``/``b`` the entries and the re-runs floor;
    with them the gap per shared domain; with ``tiers=True`` the tiers and simultaneous rank
    intervals of every domain (or of the configurations of ``tier_logs``).

    Parameters
    ----------
    board : Leaderboard, or path, optional
        The leaderboard (the merged ``leaderboard_submissions.json`` or one ``submission.json``,
        read by :func:`~noisefloor.leaderboard.read_leaderboard`). Needed unless ``tier_logs``.
    domain : str, optional
        Only this domain.
    a, b : str, optional
        Two entries (submission ids or model names) to compare; both or neither.
    floor, envelope : float, optional
        The floor (and envelope) the gap is placed against, proportions. Default: the floor of
        ``floor_logs``, else the leaderboard's own re-runs floor
        (:func:`~noisefloor.leaderboard.gaps.floor_from_reruns`).
    floor_logs : path, sequence of paths or ``(path, label)`` pairs, or DataFrame, optional
        Trial logs whose floor (``floor_kind``) the gap is placed against
        (:func:`noisefloor.pipelines.measured.required_floor`).
    floor_kind : {"floor", "envelope"}, default "floor"
        With ``floor_logs``: the clean-contrast floor or the envelope.
    null_pairs, clean_pairs : sequence, default ()
        With ``floor_logs``: which contrasts of the logs are null, which clean.
    confidence : float, default 0.95
        Level of every interval, and of the floor of ``floor_logs``.
    tiers : bool, default False
        Rank the whole leaderboard into tiers (Holm over all pairs).
    tier_logs : path, sequence of them, or DataFrame, optional
        With ``tiers``: trial logs whose configurations are the entries, instead of ``board``.
    plot : path, optional
        With ``tiers``: write each tier figure (``.png``, ``.svg``, ``.pdf``; several are
        named ``<stem>-<domain>``).
    **read_options
        How the logs are read (``format``, ``allow_nan``, ``benchmark``, ...), as in
        :func:`noisefloor.logs.load.read_log_trials`.

    Returns
    -------
    LeaderboardRun
        ``to_dict()`` is the command's ``--json``.

    Raises
    ------
    ValueError
        An inconsistent set of arguments (the message names them), an unknown entry, a
        floor the logs do not define, or a leaderboard that cannot be read.

    Examples
    --------
    >>> r = leaderboard_run("fixtures/leaderboard/three_entries.json", a="m_a", b="n_a")
    >>> r.mode, r.comparison.rows[0].verdict, r.comparison.floor_source[:28]
    ('compare', 'below', 'leaderboard re-runs envelope')
    >>> sorted(r.to_dict()) == sorted(leaderboard_run(
    ...     "fixtures/leaderboard/three_entries.json").to_dict())
    True
    """
    _check_options(board, a, b, floor, envelope, floor_logs, null_pairs, clean_pairs, tiers,
                   tier_logs, plot)
    conf = _validate.probability("confidence", confidence)
    if domain is not None:
        _validate.choice("domain", domain, tuple(DOMAIN_TASKS))
    if tiers and logs_given(tier_logs):
        return _tiers_of_logs(tier_logs, domain, conf, plot, read_options)
    lb = board if isinstance(board, Leaderboard) else read_leaderboard(board)
    reruns = reruns_floor(lb, confidence=conf)
    base = LeaderboardRun("listing", lb.source, lb.n_submissions, domain, conf,
                          reruns_floor=reruns)
    if tiers:
        parts = tiers_by_domain(lb, domain, confidence=conf)
        return replace(base, mode="tiers", tiers=parts, plots=_plots(parts, plot))
    if a is None or b is None:
        return replace(base, entries=lb.to_frame(domain))
    env = math.nan
    if logs_given(floor_logs):
        from noisefloor.pipelines.measured import required_floor

        measured = required_floor(floor_logs, floor_kind, confidence=conf,
                                  null_pairs=null_pairs, clean_pairs=clean_pairs,
                                  **read_options)
        value, source, kind = measured.value, measured.source, measured.kind
    elif floor is not None:
        value, source, kind = floor, "given", "floor"
        env = math.nan if envelope is None else envelope
    else:
        value, env, source, kind = floor_from_reruns(reruns)
    comparison = compare_entries(lb, a, b, domain=domain, floor=value, envelope=env,
                                 floor_source=source, floor_kind=kind, confidence=conf)
    return replace(base, mode="compare", comparison=comparison)


def _tiers_of_logs(logs, domain, confidence, plot, read_options) -> LeaderboardRun:
    from noisefloor.logs.load import read_log_trials
    from noisefloor.logs.runs import log_sources

    trials = read_log_trials(logs, **read_options)
    parts = (tiers_from_trials(trials, confidence=confidence),)
    return LeaderboardRun("tiers", ", ".join(log_sources(logs, trials)), None, domain,
                          confidence, tiers=parts, plots=_plots(parts, plot))


def _plots(parts: tuple[LeaderboardTiers, ...], plot) -> tuple[str, ...] | None:
    return None if plot is None else save_tier_plots(parts, plot)
