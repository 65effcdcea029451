"""The floor or envelope of trial logs as one number, for commands that plan or place gaps.

``plan --floor-log``, ``leaderboard --floor-log`` and ``reruns-sim --floor-log`` read a floor
from logs rather than taking it as a number; :func:`measured_floor` is that reading, the
floor (or envelope) of :func:`noisefloor.pipelines.floor_run` with the contrast that sets it
and the number of paired tasks it was measured at. :func:`required_floor` is the same reading
for a caller that cannot go on without it: an undefined floor is an error that says which
logs and how to declare a null pair.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from noisefloor.results import FrozenResult

__all__ = ["FLOOR_KINDS", "MeasuredFloor", "measured_floor", "required_floor"]

#: What a floor reading can be: the floor (bound of the clean null contrast) or the envelope
#: (largest bound over every null contrast).
FLOOR_KINDS = ("floor", "envelope")


@dataclass(frozen=True)
class MeasuredFloor(FrozenResult):
    """Result of :func:`measured_floor`.

    Attributes
    ----------
    kind : {"floor", "envelope"}
        Which reading :attr:`value` is.
    value : float
        The floor or envelope, a proportion; NaN when undefined (see :attr:`reason`).
    contrast : str
        The null contrast that sets it (``""`` when undefined).
    n_tasks : int
        Paired tasks per seed of that contrast, the most over its seeds (0 when undefined):
        the n at which the floor was measured.
    confidence : float
        Level of the upper bound the floor is.
    reason : str
        Why :attr:`value` is undefined; empty otherwise.
    logs : str
        The logs it was read from as named (``"a.jsonl, b.jsonl=base"``; a trial frame: its
        source files, or ``"a trial frame"``).
    """

    _dict_keys = ("kind", "value", "contrast", "n_tasks", "confidence", "reason", "logs", "source")

    kind: str
    value: float
    contrast: str
    n_tasks: int
    confidence: float
    reason: str = ""
    logs: str = ""

    @property
    def source(self) -> str:
        """Where the floor came from, one line: ``"floor of a.jsonl (intercept-no_coord)"``,
        with ``", upper 90% bound"`` after the contrast at a confidence other than 0.95."""
        level = "" if self.confidence == 0.95 else f", upper {self.confidence * 100:g}% bound"
        detail = self.contrast if self.contrast else f"undefined: {self.reason}"
        return f"{self.kind} of {self.logs} ({detail}{level})"


def measured_floor(logs: Any, kind: str = "floor", *, confidence: float = 0.95,
                   null_pairs: Sequence = (), clean_pairs: Sequence = (),
                   **read_options: Any) -> MeasuredFloor:
    """The floor (or envelope) of trial logs, with its contrast and the n it was measured at.

    Parameters
    ----------
    logs : path, sequence of paths or ``(path, label)`` pairs, or pandas.DataFrame
        Trial logs (or a trial frame), as :func:`noisefloor.pipelines.floor_run` takes them.
    kind : {"floor", "envelope"}, default "floor"
        The reading: the floor of the clean null contrast, or the envelope over every null
        contrast.
    confidence : float, default 0.95
        Level of the upper bound.
    null_pairs, clean_pairs : sequence, default ()
        Passed to :func:`~noisefloor.pipelines.floor_run` (which contrasts are null, which
        clean).
    **read_options
        Other keyword arguments of :func:`~noisefloor.pipelines.floor_run` (``format``,
        ``benchmark``, ...).

    Returns
    -------
    MeasuredFloor
        NaN with a reason when the reading is undefined (no informative null contrast).

    Raises
    ------
    ValueError
        If ``kind`` is not one of :data:`FLOOR_KINDS`, or as
        :func:`~noisefloor.pipelines.floor_run` raises for the logs.

    Examples
    --------
    >>> m = measured_floor("fixtures/logs/paper", benchmark="tau2/retail", model="m")
    >>> m.kind, m.value, m.contrast, m.n_tasks
    ('floor', 0.25, 'intercept-no_coord', 4)
    """
    from noisefloor.pipelines.floor import floor_run
    from noisefloor.stats.validation import choice

    choice("kind", kind, FLOOR_KINDS)
    run = floor_run(logs, null_pairs=null_pairs, clean_pairs=clean_pairs,
                    confidence=confidence, **read_options)
    nf, table = run.noise_floor, run.null_contrasts.table
    value = nf.floor if kind == "floor" else nf.envelope
    contrast = nf.floor_contrast if kind == "floor" else nf.envelope_contrast
    named = ", ".join(run.sources) or "a trial frame"
    if math.isnan(value):
        return MeasuredFloor(kind, math.nan, "", 0, confidence,
                             nf.reason or "no informative null contrast", named)
    rows = table[table["contrast"] == contrast]
    n_tasks = int((rows["wins"] + rows["losses"] + rows["ties"]).max()) if len(rows) else 0
    return MeasuredFloor(kind, float(value), str(contrast), n_tasks, confidence, "", named)


def required_floor(floor_logs: Any, kind: str = "floor", *, confidence: float = 0.95,
                   null_pairs: Sequence = (), clean_pairs: Sequence = (),
                   **read_options: Any) -> MeasuredFloor:
    """:func:`measured_floor` for a caller that needs the number: an undefined floor is an error.

    A gain cannot be planned for or placed against a floor that the logs do not define (no
    null contrast certified, or none informative), and silently using NaN or 0 instead would
    hide that; this refuses it and says how to declare a null pair.

    Parameters
    ----------
    floor_logs : path, sequence of paths or ``(path, label)`` pairs, or pandas.DataFrame
        The trial logs whose floor is read (``logs`` of :func:`measured_floor`).
    kind, confidence, null_pairs, clean_pairs, **read_options
        As in :func:`measured_floor`.

    Returns
    -------
    MeasuredFloor
        A defined reading (:attr:`MeasuredFloor.value` finite); :attr:`MeasuredFloor.source`
        is the line that says where it came from.

    Raises
    ------
    noisefloor.stats.validation.MentionError
        The floor is undefined: the message names the logs, the reason, and the ``{floor_logs}``
        and ``{null_pairs}`` parameters (a command line spells them as its options).
    ValueError
        As :func:`measured_floor` raises.

    Examples
    --------
    >>> m = required_floor("fixtures/logs/paper", benchmark="tau2/retail", model="m")
    >>> m.value, m.source
    (0.25, 'floor of fixtures/logs/paper (intercept-no_coord)')
    """
    from noisefloor.stats.validation import MentionError, literal

    m = measured_floor(floor_logs, kind, confidence=confidence, null_pairs=null_pairs,
                       clean_pairs=clean_pairs, **read_options)
    if math.isnan(m.value):
        raise MentionError(
            f"{{floor_logs}} {literal(m.logs)}: no {kind} can be read ({literal(m.reason)}); "
            "declare a null pair of the logs with {null_pairs} ('a-b' at trial 0, 'a-a' "
            "re-runs) or give the floor as a number")
    return m
