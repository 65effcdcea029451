"""Null contrasts, their certification and the noise floor built from them.

A null contrast compares two arms that cannot differ, and something certifies it (trial 0 across
protocols with empty stores or identical first requests, a re-run of one configuration whose
reader cannot have acted, a published count table's own declaration). This package pairs trial
records per task (:mod:`~noisefloor.floor.pairing`, which also gives one contrast ``a-b`` of a
trial frame, :func:`~noisefloor.floor.pairing.paired_contrast`), reads contrast labels
(:mod:`~noisefloor.floor.contrast_table`), certifies null contrasts
(:mod:`~noisefloor.floor.nulls`), counts wins, losses and ties of any two arms
(:mod:`~noisefloor.floor.arm_contrasts`, :mod:`~noisefloor.floor.count_table`; on the
coordination-active subset, :mod:`~noisefloor.floor.active`), and pools them
into the floor and the envelope (:mod:`~noisefloor.floor.estimate`; the spread of per-seed
null gaps, :mod:`~noisefloor.floor.null_gaps`) or, across seeds, a random-effects floor
(:mod:`~noisefloor.floor.random_effects`). Every contrast table has one
shape, with its columns defined in :mod:`~noisefloor.floor.contrast_table`. The names below are
imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.floor.active import (
        coordination_active_contrast,
        coordination_active_pass_hat_k,
        coordination_active_tasks,
    )
    from noisefloor.floor.arm_contrasts import (
        BASELINE_PROTOCOL,
        BY,
        arm_view,
        left_out_totals,
        log_contrasts,
        place,
        place_contrasts,
    )
    from noisefloor.floor.contrast_table import (
        DEFAULT_CLEAN,
        FAMILY,
        LEVELS,
        POOLED,
        SHAPE_COLUMNS,
        TRIAL,
        check_shape,
        seed_array,
        seed_text,
        split_protocol_pair,
    )
    from noisefloor.floor.count_table import null_contrasts_from_counts
    from noisefloor.floor.estimate import (
        MIN_INFORMATIVE_PAIRS,
        NULL_COLUMNS,
        POOLINGS,
        TAU_METHODS,
        NoiseFloor,
        noise_floor,
    )
    from noisefloor.floor.null_gaps import excursion_bound
    from noisefloor.floor.nulls import (
        COUNT_TABLE,
        DECLARED,
        DECLARED_CLEAN,
        EMPTY_STORE,
        FIRST_REQUESTS,
        NO_INJECTION,
        NO_STORE_READER,
        NO_STORE_READER_PROTOCOLS,
        REMEDIES,
        REMEDIES_LIST,
        TABLE_COLUMNS,
        NoNullContrastError,
        NullContrasts,
        arm_labels,
        certified_null_contrasts,
        certify_pair,
    )
    from noisefloor.floor.pairing import (
        PAIRING_COLUMNS,
        Contrast,
        Group,
        Slot,
        encode_groups,
        pair_counts,
        paired_contrast,
    )
    from noisefloor.floor.random_effects import BOUNDS, RandomEffectsFloor, random_effects_floor

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "BASELINE_PROTOCOL": "arm_contrasts",
    "BOUNDS": "random_effects",
    "BY": "arm_contrasts",
    "COUNT_TABLE": "nulls",
    "Contrast": "pairing",
    "DECLARED": "nulls",
    "DECLARED_CLEAN": "nulls",
    "DEFAULT_CLEAN": "contrast_table",
    "EMPTY_STORE": "nulls",
    "FAMILY": "contrast_table",
    "FIRST_REQUESTS": "nulls",
    "Group": "pairing",
    "LEVELS": "contrast_table",
    "MIN_INFORMATIVE_PAIRS": "estimate",
    "NO_INJECTION": "nulls",
    "NO_STORE_READER": "nulls",
    "NO_STORE_READER_PROTOCOLS": "nulls",
    "NULL_COLUMNS": "estimate",
    "NoNullContrastError": "nulls",
    "NoiseFloor": "estimate",
    "NullContrasts": "nulls",
    "PAIRING_COLUMNS": "pairing",
    "POOLED": "contrast_table",
    "POOLINGS": "estimate",
    "REMEDIES": "nulls",
    "REMEDIES_LIST": "nulls",
    "RandomEffectsFloor": "random_effects",
    "SHAPE_COLUMNS": "contrast_table",
    "Slot": "pairing",
    "TABLE_COLUMNS": "nulls",
    "TAU_METHODS": "estimate",
    "TRIAL": "contrast_table",
    "arm_labels": "nulls",
    "arm_view": "arm_contrasts",
    "certified_null_contrasts": "nulls",
    "certify_pair": "nulls",
    "check_shape": "contrast_table",
    "coordination_active_contrast": "active",
    "coordination_active_pass_hat_k": "active",
    "coordination_active_tasks": "active",
    "encode_groups": "pairing",
    "excursion_bound": "null_gaps",
    "left_out_totals": "arm_contrasts",
    "log_contrasts": "arm_contrasts",
    "noise_floor": "estimate",
    "null_contrasts_from_counts": "count_table",
    "pair_counts": "pairing",
    "paired_contrast": "pairing",
    "place": "arm_contrasts",
    "place_contrasts": "arm_contrasts",
    "random_effects_floor": "random_effects",
    "seed_array": "contrast_table",
    "seed_text": "contrast_table",
    "split_protocol_pair": "contrast_table",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
