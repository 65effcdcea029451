"""The floor or envelope of trial logs as one number, for commands that plan or place gaps.

``plan --floor-log``, ``leaderboard --floor-log`` and ``reruns-sim --floor-log`` read a floor
from logs rather than taking it as a number; :func:`measured_floor` is that reading, the
floor (or envelope) of :func:`noisefloor.pipelines.floor_run` with the contrast that sets it
and the number of paired tasks it was measured at.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["FLOOR_KINDS", "MeasuredFloor", "measured_floor"]

#: What a floor reading can be: the floor (bound of the clean null contrast) or the envelope
#: (largest bound over every null contrast).
FLOOR_KINDS = ("floor", "envelope")


@dataclass(frozen=True)
class MeasuredFloor:
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
    """

    kind: str
    value: float
    contrast: str
    n_tasks: int
    confidence: float
    reason: str = ""

    def to_dict(self) -> dict:
        """The fields as a plain dict (JSON-ready)."""
        return asdict(self)


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
    from noisefloor.pipelines import floor_run
    from noisefloor.stats.validation import choice

    choice("kind", kind, FLOOR_KINDS)
    run = floor_run(logs, null_pairs=null_pairs, clean_pairs=clean_pairs,
                    confidence=confidence, **read_options)
    nf, table = run.noise_floor, run.null_contrasts.table
    value = nf.floor if kind == "floor" else nf.envelope
    contrast = nf.floor_contrast if kind == "floor" else nf.envelope_contrast
    if math.isnan(value):
        return MeasuredFloor(kind, math.nan, "", 0, confidence,
                             nf.reason or "no informative null contrast")
    rows = table[table["contrast"] == contrast]
    n_tasks = int((rows["wins"] + rows["losses"] + rows["ties"]).max()) if len(rows) else 0
    return MeasuredFloor(kind, float(value), str(contrast), n_tasks, confidence)
