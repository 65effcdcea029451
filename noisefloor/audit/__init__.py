"""The audit of published claims: claimed gains placed against a noise floor.

:mod:`~noisefloor.audit.published` reads the tables a paper publishes (paired W/L/T counts per
contrast and seed, claimed deltas) with errors that name file, line and field;
:mod:`~noisefloor.audit.verdicts` gives each claim its verdict against the floor and the
envelope (below means unresolved, never refuted). The one-call pipeline behind
``noisefloor audit`` is :func:`noisefloor.pipelines.audit.audit_run`. The names below are
imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.audit.published import (
        BUNDLED_CLAIMS_SOURCE,
        BUNDLED_COUNTS_SOURCE,
        CLAIM_COLUMNS,
        COUNT_COLUMNS,
        PROPORTION_UNITS,
        REQUIRED_CLAIM,
        REQUIRED_COUNT,
        TableError,
        read_claims,
        read_paired_counts,
    )
    from noisefloor.audit.verdicts import (
        BASELINE_PROTOCOL,
        COMPARABLE_UNITS,
        VERDICTS,
        AuditResult,
        ClaimVerdict,
        audit,
        left_out_totals,
        log_contrasts,
        place,
        place_contrasts,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "AuditResult": "verdicts",
    "BASELINE_PROTOCOL": "verdicts",
    "BUNDLED_CLAIMS_SOURCE": "published",
    "BUNDLED_COUNTS_SOURCE": "published",
    "CLAIM_COLUMNS": "published",
    "COMPARABLE_UNITS": "verdicts",
    "COUNT_COLUMNS": "published",
    "ClaimVerdict": "verdicts",
    "PROPORTION_UNITS": "published",
    "REQUIRED_CLAIM": "published",
    "REQUIRED_COUNT": "published",
    "TableError": "published",
    "VERDICTS": "verdicts",
    "audit": "verdicts",
    "left_out_totals": "verdicts",
    "log_contrasts": "verdicts",
    "place": "verdicts",
    "place_contrasts": "verdicts",
    "read_claims": "published",
    "read_paired_counts": "published",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
