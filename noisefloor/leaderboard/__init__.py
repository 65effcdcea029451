"""Audit a tau2-bench leaderboard: its entries, the gaps between them and their tiers.

:mod:`~noisefloor.leaderboard.entries` reads submission records into a :class:`Leaderboard`;
:mod:`~noisefloor.leaderboard.gaps` compares two entries (unpaired two-proportion test, setup
flags) and measures an A/A floor from same-model submissions;
:mod:`~noisefloor.leaderboard.tiers` groups entries into tiers that the data can tell apart;
:mod:`~noisefloor.leaderboard.run` is ``noisefloor leaderboard`` in one call
(:func:`leaderboard_run`).
The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.leaderboard.entries import (
        DEFAULT_SUBMISSION_TYPE,
        DOMAIN_TASKS,
        ENTRY_COLUMNS,
        SETUP_FIELDS,
        Leaderboard,
        LeaderboardError,
        leaderboard_from_submissions,
        read_leaderboard,
    )
    from noisefloor.leaderboard.gaps import (
        EntryGap,
        LeaderboardComparison,
        LeaderboardFloor,
        compare_entries,
        find_entry,
        gap_test,
        model_identity,
        reruns_floor,
        setup_flags,
    )
    from noisefloor.leaderboard.run import (
        LeaderboardRun,
        floor_from_reruns,
        leaderboard_run,
        tier_plot_path,
    )
    from noisefloor.leaderboard.tiers import (
        LeaderboardTiers,
        holm,
        leaderboard_tiers,
        pairwise_sign_tests,
        pairwise_z_tests,
        save_tier_plot,
        tiers_from_pvalues,
        tiers_from_scores,
        tiers_from_shares,
        tiers_from_trials,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "DEFAULT_SUBMISSION_TYPE": "entries",
    "DOMAIN_TASKS": "entries",
    "ENTRY_COLUMNS": "entries",
    "EntryGap": "gaps",
    "Leaderboard": "entries",
    "LeaderboardComparison": "gaps",
    "LeaderboardError": "entries",
    "LeaderboardFloor": "gaps",
    "LeaderboardRun": "run",
    "LeaderboardTiers": "tiers",
    "SETUP_FIELDS": "entries",
    "reruns_floor": "gaps",
    "compare_entries": "gaps",
    "find_entry": "gaps",
    "floor_from_reruns": "run",
    "gap_test": "gaps",
    "holm": "tiers",
    "leaderboard_from_submissions": "entries",
    "leaderboard_run": "run",
    "leaderboard_tiers": "tiers",
    "model_identity": "gaps",
    "pairwise_sign_tests": "tiers",
    "pairwise_z_tests": "tiers",
    "read_leaderboard": "entries",
    "save_tier_plot": "tiers",
    "setup_flags": "gaps",
    "tier_plot_path": "run",
    "tiers_from_pvalues": "tiers",
    "tiers_from_scores": "tiers",
    "tiers_from_shares": "tiers",
    "tiers_from_trials": "tiers",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
