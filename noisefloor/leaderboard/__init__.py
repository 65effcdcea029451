"""Audit a tau2-bench leaderboard: its entries, the gaps between them and their tiers.

:mod:`~noisefloor.leaderboard.entries` reads submission records into a :class:`Leaderboard`;
:mod:`~noisefloor.leaderboard.gaps` compares two entries (unpaired two-proportion test, setup
flags) and measures a re-runs floor from same-model submissions;
:mod:`~noisefloor.leaderboard.tiers` groups entries into tiers that the data can tell apart.
``noisefloor leaderboard`` in one call is :func:`noisefloor.pipelines.leaderboard_run` (it also
reads floors and trials from logs, a layer above this package).
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
        floor_from_reruns,
        gap_test,
        model_identity,
        reruns_floor,
        setup_flags,
    )
    from noisefloor.leaderboard.tiers import (
        LeaderboardTiers,
        holm,
        leaderboard_tiers,
        pairwise_sign_tests,
        pairwise_z_tests,
        save_tier_plot,
        save_tier_plots,
        tier_plot_path,
        tiers_by_domain,
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
    "LeaderboardTiers": "tiers",
    "SETUP_FIELDS": "entries",
    "reruns_floor": "gaps",
    "compare_entries": "gaps",
    "find_entry": "gaps",
    "floor_from_reruns": "gaps",
    "gap_test": "gaps",
    "holm": "tiers",
    "leaderboard_from_submissions": "entries",
    "leaderboard_tiers": "tiers",
    "model_identity": "gaps",
    "pairwise_sign_tests": "tiers",
    "pairwise_z_tests": "tiers",
    "read_leaderboard": "entries",
    "save_tier_plot": "tiers",
    "setup_flags": "gaps",
    "save_tier_plots": "tiers",
    "tier_plot_path": "tiers",
    "tiers_by_domain": "tiers",
    "tiers_from_pvalues": "tiers",
    "tiers_from_scores": "tiers",
    "tiers_from_shares": "tiers",
    "tiers_from_trials": "tiers",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
