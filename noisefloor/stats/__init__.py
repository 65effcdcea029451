"""Pure statistics: paired tests, intervals, multiplicity, pooling, pass^k, agreement, monitors.

No I/O and no plotting live in this package; every function returns a frozen result object. It
also holds what every layer shares at the public boundary: the parameter validation
(:mod:`~noisefloor.stats.validation`) and the warning classes
(:mod:`~noisefloor.stats.warning_classes`). The names below are imported on first use, so
importing a light module of the package (those two) does not load scipy and statsmodels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.stats.errorbars import clt_se, clustered_se, paired_difference_se
    from noisefloor.stats.games import shapley_values, two_player_game
    from noisefloor.stats.hierarchical import (
        percentile_interval,
        task_weighted_means,
        two_stage_bootstrap,
    )
    from noisefloor.stats.multiplicity import (
        MultiplicityResult,
        adjust_families,
        adjust_pvalues,
        holm,
    )
    from noisefloor.stats.paired import (
        SignTest,
        Slot,
        pair_counts,
        sign_test,
        sign_test_pvalues,
        sign_test_table,
        sign_tests,
        wilson_interval,
        wilson_mapped_ci,
    )
    from noisefloor.stats.passat import PassAtK, pass_at_k_estimate, pass_at_k_from_counts
    from noisefloor.stats.passk import (
        SUCCESS_TOLERANCE,
        PassHatK,
        PassHatKInterval,
        TaskCounts,
        count_trials,
        is_success,
        pass_hat_k_from_counts,
        pass_hat_k_interval_from_counts,
        per_task_pass_hat_k,
        trial_outcomes,
    )
    from noisefloor.stats.pooling import (
        RandomEffectsPool,
        gap_variance,
        pool_counts,
        pool_random_effects,
    )
    from noisefloor.stats.snr import (
        ClaimSNR,
        RerunsSimulation,
        claim_snr,
        flip_rate_to_success_prob,
        simulate_reruns,
    )
    from noisefloor.stats.stratified import (
        stratified_bootstrap,
        stratified_t_bounds,
        stratified_t_interval,
    )
    from noisefloor.stats.validation import (
        MentionError,
        ParameterError,
        ParameterTypeError,
        Spell,
        choice,
        count,
        literal,
        mention_text,
        probability,
        python_spelling,
    )
    from noisefloor.stats.warning_classes import (
        CountTotalsWarning,
        FirstRequestMismatchWarning,
        ForestRowsLeftOutWarning,
        InfrastructureRewardWarning,
        NaiveTimestampWarning,
        NoisefloorWarning,
        PartialRewardWarning,
        PublishedFiguresWarning,
        RawRatingsWarning,
        TornJournalLineWarning,
        TruncatedLineWarning,
        UnknownPriceWarning,
    )

#: Public name -> the module that defines it.
_HOMES = {
    "RerunsSimulation": "snr",
    "ClaimSNR": "snr",
    "CountTotalsWarning": "warning_classes",
    "FirstRequestMismatchWarning": "warning_classes",
    "ForestRowsLeftOutWarning": "warning_classes",
    "InfrastructureRewardWarning": "warning_classes",
    "MentionError": "validation",
    "MultiplicityResult": "multiplicity",
    "NaiveTimestampWarning": "warning_classes",
    "NoisefloorWarning": "warning_classes",
    "ParameterError": "validation",
    "ParameterTypeError": "validation",
    "PartialRewardWarning": "warning_classes",
    "PassAtK": "passat",
    "PassHatK": "passk",
    "PassHatKInterval": "passk",
    "PublishedFiguresWarning": "warning_classes",
    "RandomEffectsPool": "pooling",
    "RawRatingsWarning": "warning_classes",
    "SUCCESS_TOLERANCE": "passk",
    "SignTest": "paired",
    "Slot": "paired",
    "Spell": "validation",
    "TaskCounts": "passk",
    "TornJournalLineWarning": "warning_classes",
    "TruncatedLineWarning": "warning_classes",
    "UnknownPriceWarning": "warning_classes",
    "adjust_families": "multiplicity",
    "adjust_pvalues": "multiplicity",
    "choice": "validation",
    "claim_snr": "snr",
    "clt_se": "errorbars",
    "clustered_se": "errorbars",
    "count": "validation",
    "count_trials": "passk",
    "flip_rate_to_success_prob": "snr",
    "gap_variance": "pooling",
    "holm": "multiplicity",
    "is_success": "passk",
    "literal": "validation",
    "mention_text": "validation",
    "pair_counts": "paired",
    "paired_difference_se": "errorbars",
    "pass_at_k_estimate": "passat",
    "pass_at_k_from_counts": "passat",
    "pass_hat_k_from_counts": "passk",
    "pass_hat_k_interval_from_counts": "passk",
    "per_task_pass_hat_k": "passk",
    "percentile_interval": "hierarchical",
    "pool_counts": "pooling",
    "pool_random_effects": "pooling",
    "probability": "validation",
    "python_spelling": "validation",
    "shapley_values": "games",
    "sign_test": "paired",
    "sign_test_pvalues": "paired",
    "sign_test_table": "paired",
    "sign_tests": "paired",
    "simulate_reruns": "snr",
    "stratified_bootstrap": "stratified",
    "stratified_t_bounds": "stratified",
    "stratified_t_interval": "stratified",
    "task_weighted_means": "hierarchical",
    "trial_outcomes": "passk",
    "two_player_game": "games",
    "two_stage_bootstrap": "hierarchical",
    "wilson_interval": "paired",
    "wilson_mapped_ci": "paired",
}

__all__ = sorted(_HOMES)


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
