"""The floor, contrast, audit and planning pipelines: one call each, one frozen result each.

``noisefloor floor``, ``noisefloor contrast``, ``noisefloor audit``, ``noisefloor
leaderboard``, ``noisefloor plan`` and ``noisefloor reruns-sim`` are :func:`floor_run`
(:mod:`~noisefloor.pipelines.floor`), :func:`contrast_run` and :func:`contrast_counts`
(:mod:`~noisefloor.pipelines.contrast`), :func:`audit_run` (:mod:`~noisefloor.pipelines.audit`),
:func:`leaderboard_run` (:mod:`~noisefloor.pipelines.leaderboard`), :func:`plan_run` and
:func:`reruns_sim_run` (:mod:`~noisefloor.pipelines.planning`); the command line only parses
options and prints what :mod:`noisefloor.report.text` renders from the result, so a Python user
reproduces a command in one call and the terminal output, ``report.md`` and ``--json`` carry
the same content. The names below are imported on first use, so a command that needs no audit
(a count-only contrast) does not import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.pipelines.audit import (
        NO_CLAIMS_SOURCE,
        AuditRun,
        audit_run,
        write_audit_files,
    )
    from noisefloor.pipelines.contrast import (
        ContrastRun,
        contrast_counts,
        contrast_run,
        has_store_fields,
    )
    from noisefloor.pipelines.floor import FloorRun, floor_run, left_out_records
    from noisefloor.pipelines.leaderboard import LeaderboardRun, leaderboard_run
    from noisefloor.pipelines.measured import FLOOR_KINDS, measured_floor, required_floor
    from noisefloor.pipelines.planning import (
        DESIGN_NAMES,
        GIVEN_FLOOR,
        PlanRun,
        RerunsSimRun,
        plan_power_figure,
        plan_run,
        reruns_sim_run,
        trial_null_gaps,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "FLOOR_KINDS": "measured",
    "measured_floor": "measured",
    "required_floor": "measured",
    "AuditRun": "audit",
    "ContrastRun": "contrast",
    "DESIGN_NAMES": "planning",
    "FloorRun": "floor",
    "GIVEN_FLOOR": "planning",
    "LeaderboardRun": "leaderboard",
    "NO_CLAIMS_SOURCE": "audit",
    "PlanRun": "planning",
    "RerunsSimRun": "planning",
    "audit_run": "audit",
    "contrast_counts": "contrast",
    "contrast_run": "contrast",
    "floor_run": "floor",
    "has_store_fields": "contrast",
    "leaderboard_run": "leaderboard",
    "left_out_records": "floor",
    "plan_power_figure": "planning",
    "plan_run": "planning",
    "reruns_sim_run": "planning",
    "trial_null_gaps": "planning",
    "write_audit_files": "audit",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
