"""Agreement of an annotation study: one call from an annotation table to a table per label.

:mod:`~noisefloor.agreement.from_file` is ``noisefloor agreement FILE`` in one call
(:func:`~noisefloor.agreement.from_file.agreement_study`: layout, reading and the table).

:mod:`~noisefloor.agreement.study` reads the table of (item, rater, label, category) rows and
reports, per label, Fleiss' kappa and Krippendorff's alpha among the raters and Cohen's kappa
between a judge and the rater majority, or the intraclass correlations of numeric scores; both
tables give the rows of ``noisefloor agreement --json`` with one set of keys
(:data:`~noisefloor.agreement.study.ROW_KEYS`). The coefficients themselves are the pure
statistics of :mod:`noisefloor.stats.agreement`. The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.agreement.from_file import (
        STUDY_METRICS,
        AgreementStudy,
        AgreementStudyError,
        NoCohenPairError,
        agreement_study,
    )
    from noisefloor.agreement.study import (
        METRICS,
        NOT_APPLICABLE,
        ROW_KEYS,
        SUMMARY_KEYS,
        TIE_RULES,
        AgreementTable,
        IccTable,
        agreement_by_label,
        icc_by_label,
        majority_label,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "AgreementStudy": "from_file",
    "AgreementStudyError": "from_file",
    "NoCohenPairError": "from_file",
    "STUDY_METRICS": "from_file",
    "agreement_study": "from_file",
    "AgreementTable": "study",
    "IccTable": "study",
    "METRICS": "study",
    "NOT_APPLICABLE": "study",
    "ROW_KEYS": "study",
    "SUMMARY_KEYS": "study",
    "TIE_RULES": "study",
    "agreement_by_label": "study",
    "icc_by_label": "study",
    "majority_label": "study",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
