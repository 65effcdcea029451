"""The agreement of an annotation file in one call: layout, reading and the table per label.

:func:`agreement_study` is what ``noisefloor agreement FILE`` computes: it decides the file's
layout (:func:`noisefloor.logs.annotations.detect_layout`), reads it
(:func:`~noisefloor.logs.annotations.read_annotations`) and computes the table
(:func:`~noisefloor.agreement.study.agreement_by_label`, or with ``metric="icc"``
:func:`~noisefloor.agreement.study.icc_by_label`), refusing ``metric="cohen"`` when no pair
of raters is defined. The result holds the layout (and why it was chosen), the counts the
command's first line shows and the table; its :meth:`AgreementStudy.to_dict` is the document
``--json`` prints (:meth:`AgreementStudy.to_rows` its ``rows``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from noisefloor.agreement.study import AgreementTable, IccTable
from noisefloor.results import FrozenResult
from noisefloor.stats.validation import MentionError, ParameterError, Spell, literal

__all__ = ["STUDY_METRICS", "AgreementStudy", "AgreementStudyError", "NoCohenPairError",
           "agreement_study"]

#: What ``metric`` of :func:`agreement_study` accepts: one coefficient, the three kappa and
#: alpha coefficients (``"all"``), or the intraclass correlations of numeric scores.
STUDY_METRICS = ("all", "fleiss", "cohen", "krippendorff", "icc")


@dataclass(frozen=True)
class AgreementStudy(FrozenResult):
    """Result of :func:`agreement_study`.

    Attributes
    ----------
    source : str
        The annotation file, as named.
    layout : noisefloor.logs.annotations.Layout
        The layout it was read in and why (``layout.describe()``).
    metric : str
        As asked (:data:`STUDY_METRICS`).
    n_ratings : int
        Ratings read.
    n_ignored_ratings : int
        Ratings of the raters ``raters`` left out (``table.ignored``).
    table : AgreementTable or IccTable
        The coefficients per label.
    """

    source: str
    layout: Any
    metric: str
    n_ratings: int
    n_ignored_ratings: int
    table: AgreementTable | IccTable

    def to_rows(self) -> list[dict[str, Any]]:
        """The ``rows`` of ``noisefloor agreement --json`` (``table.to_rows()``: the keys of
        :data:`~noisefloor.agreement.study.ROW_KEYS` whatever the metric; NaN stays NaN)."""
        return self.table.to_rows()

    # hand-written: the layout as a dict, the table as its rows
    def to_dict(self) -> dict[str, Any]:
        """The document ``noisefloor agreement --json`` prints (NaN where it writes null):
        ``source``, ``layout`` (``layout``, ``reason``, ``columns``), ``metric``, the two counts
        and ``rows`` (:meth:`to_rows`)."""
        return {"source": self.source, "layout": self.layout.to_dict(), "metric": self.metric,
                "n_ratings": self.n_ratings, "n_ignored_ratings": self.n_ignored_ratings,
                "rows": self.to_rows()}


class AgreementStudyError(MentionError):
    """A refusal of the statistics on an annotation file: the file and its layout named.

    ``render`` spells the parameters of the cause as the caller asks (the command line: as
    options).
    """

    def __init__(self, cause: ValueError, path: str, layout: str) -> None:
        self.cause, self.path, self.layout = cause, path, layout
        ValueError.__init__(self, self.render())
        self.template = literal(str(self))

    def render(self, spell: Spell | None = None) -> str:
        """``PATH: the cause (read in LAYOUT)``, the cause's parameters spelled by ``spell``."""
        cause = self.cause
        if isinstance(cause, ParameterError) and spell is not None:
            subject = cause.parameter
            inner = cause.render(lambda name, value: spell(name, value).removesuffix("=")
                                 if value is None and name == subject else spell(name, value))
        elif isinstance(cause, MentionError):
            inner = cause.render(spell)
        else:
            inner = str(cause)
        return f"{self.path}: {inner} (read in {self.layout})"

    def __reduce__(self):
        return (type(self), (self.cause, self.path, self.layout))


class NoCohenPairError(ParameterError):
    """``metric="cohen"`` with no pair to compare: more or fewer than two raters and no judge.

    ``raters`` holds the human raters found (set after construction).
    """

    raters: tuple[str, ...] = ()


def agreement_study(
    path: str | Path,
    *,
    metric: str = "all",
    judge: str | None = None,
    raters: Sequence[str] | None = None,
    weights: str = "none",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    tie: str = "exclude",
    fleiss_method: str = "fleiss",
    layout: str = "auto",
    confidence: float = 0.95,
    n_boot: int = 2000,
    rng: int | np.random.Generator | None = 0,
) -> AgreementStudy:
    """Inter-rater agreement of the annotations in a file, one row per label and metric.

    Parameters
    ----------
    path : str or Path
        A long or wide annotation file (:func:`noisefloor.logs.annotations.read_annotations`).
    metric : {"all", "fleiss", "cohen", "krippendorff", "icc"}, default "all"
        One coefficient, the three (``"all"``), or the intraclass correlations of numeric
        scores (``"icc"``: :func:`~noisefloor.agreement.study.icc_by_label`, which takes
        ``judge``, ``raters`` and ``confidence`` only).
    judge, raters, weights, level, categories, tie, fleiss_method, confidence, n_boot, rng
        As for :func:`~noisefloor.agreement.study.agreement_by_label` (``categories`` are
        label values, numbers where the labels are numbers).
    layout : {"auto", "long", "wide"}, default "auto"
        As for :func:`~noisefloor.logs.annotations.detect_layout`.

    Returns
    -------
    AgreementStudy

    Raises
    ------
    AnnotationError
        A bad record (file, line and field named).
    AgreementStudyError
        What the statistics refuse, with the file and the layout it was read in.
    NoCohenPairError
        ``metric="cohen"`` without a judge on other than two raters.
    ParameterError
        ``metric="icc"`` with any of ``weights``, ``level``, ``categories``, ``tie``,
        ``fleiss_method``, ``n_boot``, ``rng`` away from its default (each named).
    ValueError
        A header that fits no layout, an unknown ``metric``.

    Examples
    --------
    >>> s = agreement_study("fixtures/agreement/tax_annotations.csv", judge="judge",
    ...                     metric="fleiss", n_boot=0)
    >>> s.layout.layout, s.n_ratings, [round(r["value"], 3) for r in s.to_rows()][:2]
    ('long', 2000, [0.629, 0.654])
    """
    from noisefloor.agreement.study import agreement_by_label, icc_by_label
    from noisefloor.logs.annotations import AnnotationError, detect_layout, read_annotations

    if metric not in STUDY_METRICS:
        raise ParameterError("metric", f"one of {list(STUDY_METRICS)}", metric)
    if metric == "icc":
        _refuse_kappa_parameters(weights=weights, level=level, categories=categories, tie=tie,
                                 fleiss_method=fleiss_method, n_boot=n_boot, rng=rng)
    chosen = detect_layout(path, layout)
    table: AgreementTable | IccTable
    try:
        df = read_annotations(path, layout=chosen.layout)
        if metric == "icc":
            table = icc_by_label(df, judge=judge, raters=raters, confidence=confidence)
        else:
            table = agreement_by_label(
                df, metrics=METRICS_OF[metric], judge=judge, raters=raters, weights=weights,
                level=level, categories=categories, fleiss_method=fleiss_method, tie=tie,
                confidence=confidence, n_boot=n_boot, rng=rng)
    except AnnotationError:  # names file, line and field already
        raise
    except ValueError as exc:
        raise AgreementStudyError(exc, str(path), chosen.describe()) from exc
    if metric == "cohen" and table.judge is None and len(table.raters) != 2:
        err = NoCohenPairError("judge", "a rater of the file, or two raters", message=(
            f"{literal(path)}: {{metric='cohen'}} compares two raters, and there are "
            f"{len(table.raters)} ({literal(', '.join(table.raters))}) and no judge: name one "
            "with {judge} (a rater compared with the majority of the others) or two raters "
            "with {raters}"))
        err.raters = tuple(table.raters)
        raise err
    return AgreementStudy(
        source=str(path), layout=chosen, metric=metric, n_ratings=len(df),
        n_ignored_ratings=int(df["rater"].isin(table.ignored).sum()), table=table)


#: The parameters of :func:`agreement_study` that set the kappa and alpha rows only, with
#: their defaults: ``metric="icc"`` takes none of them.
KAPPA_ONLY_DEFAULTS: dict[str, Any] = {
    "weights": "none", "level": "nominal", "categories": None, "tie": "exclude",
    "fleiss_method": "fleiss", "n_boot": 2000, "rng": 0}


def _refuse_kappa_parameters(**values: Any) -> None:
    """Refuse, by name, the kappa and alpha parameters set away from their defaults."""
    def differs(value: Any, default: Any) -> bool:
        if value is default:
            return False
        same_kind = isinstance(value, (str, int, np.integer)) and not isinstance(value, bool)
        return not (same_kind and value == default)

    given = [name for name, value in values.items()
             if differs(value, KAPPA_ONLY_DEFAULTS[name])]
    if given:
        names = ", ".join(f"{{{name}}}" for name in given)
        raise ParameterError(given[0], "left at its default with {metric='icc'}", message=(
            f"{names} set the kappa and alpha rows; {{metric='icc'}} computes the intraclass "
            "correlations, which take {judge}, {raters}, {layout} and {confidence} only"))


#: The coefficients each non-ICC ``metric`` computes.
METRICS_OF = {"all": ("fleiss", "cohen", "krippendorff"), "fleiss": ("fleiss",),
              "cohen": ("cohen",), "krippendorff": ("krippendorff",)}
