"""Agreement per label: the analysis of a multi-label annotation study in one call.

A study where several human raters (and optionally an automated judge) each give every item one
label per question -- e.g. whether each of the four grounding stages L1-L4 failed in a
transcript -- is summarised as a table with one row per (label, metric): Fleiss' kappa and
Krippendorff's alpha among the human raters, and Cohen's kappa between the judge and the human
majority (or between the two raters when there are exactly two and no judge).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats.agreement import (
    FLEISS_METHODS,
    LEVELS,
    WEIGHTS,
    AgreementResult,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    ordered_categories,
)
from noisefloor.stats.agreement.icc import IntraclassCorrelation, intraclass_correlation
from noisefloor.stats.agreement.input import (
    check_choice,
    check_confidence,
    check_n_boot,
    resolve_categories,
)
from noisefloor.stats.agreement.interval import as_generator

__all__ = ["METRICS", "NOT_APPLICABLE", "ROW_KEYS", "TIE_RULES", "AgreementTable", "IccTable",
           "agreement_by_label", "icc_by_label", "majority_label"]

METRICS = ("fleiss", "cohen", "krippendorff")
TIE_RULES = ("exclude", "lowest", "highest")

#: The first columns of :meth:`AgreementTable.to_frame`, and the first keys of a row of
#: ``noisefloor agreement --json`` (:data:`ROW_KEYS`).
SUMMARY_KEYS = (
    "label", "metric", "value", "ci_low", "ci_high", "n_items", "n_raters",
    "observed_agreement", "reason", "ci_reason",
)

#: Keys of every row of ``noisefloor agreement --json``, in order, whatever the metric:
#: :meth:`AgreementTable.to_rows` (kappa and alpha) and :meth:`IccTable.to_rows` (intraclass
#: correlations) give the same keys. A key that does not belong to the row's metric holds
#: :data:`NOT_APPLICABLE`'s value: NaN for a number (``null`` in JSON), ``""`` for a text,
#: ``[]`` for ``categories`` -- as :class:`~noisefloor.stats.agreement.AgreementResult` leaves
#: the Fleiss-only fields of a Cohen row.
ROW_KEYS = SUMMARY_KEYS + (
    "confidence", "comparison", "landis_koch", "expected_agreement", "se", "se_reason", "note",
    "se_null", "z", "p_value", "null_reason", "category_order", "categories",
    "form", "notation", "description", "f", "df1", "df2", "n_left_out",
)

#: The value of each key of :data:`ROW_KEYS` in a row whose metric it does not belong to.
NOT_APPLICABLE: dict[str, Any] = {
    k: ("" if k in ("label", "metric", "reason", "ci_reason", "comparison", "landis_koch",
                    "se_reason", "note", "null_reason", "category_order", "form", "notation",
                    "description")
        else [] if k == "categories" else math.nan)
    for k in ROW_KEYS
}


def _not_applicable(key: str) -> Any:
    """:data:`NOT_APPLICABLE`'s value of ``key`` (a fresh list for ``categories``)."""
    value = NOT_APPLICABLE[key]
    return list(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class AgreementTable(FrozenResult):
    """Per-label agreement results.

    Attributes
    ----------
    results : tuple of AgreementResult
        One per (label, metric), labels in first-seen order, metrics in the order asked for.
        ``AgreementResult.label`` names the label; ``comparison`` who was compared.
    judge : str or None
        The rater compared with the human majority, if any.
    raters : tuple of str
        The human raters.
    tie : str
        Rule applied when the human majority is tied (see :func:`majority_label`).
    ignored : tuple of str, default ()
        Raters in the annotations that are neither among ``raters`` nor the judge: left out
        because ``raters`` chose a subset.
    """

    _dict_keys = ("judge", "raters", "tie", "ignored", "results")

    results: tuple
    judge: str | None
    raters: tuple
    tie: str
    ignored: tuple = ()

    # hand-written: the results' one-row frames stacked, summary columns first
    def to_frame(self) -> pd.DataFrame:
        """One row per result: every scalar field of :class:`AgreementResult`, plus
        ``landis_koch`` (the Landis and Koch 1977 band, a reading aid beside the number)."""
        if not self.results:
            return pd.DataFrame(columns=list(SUMMARY_KEYS))
        frame = pd.concat([r.to_frame() for r in self.results], ignore_index=True)
        front = list(SUMMARY_KEYS)
        return frame[front + [c for c in frame.columns if c not in front]]

    def to_rows(self) -> list[dict[str, Any]]:
        """The rows of ``noisefloor agreement --json``: one per (label, metric), with the keys
        of :data:`ROW_KEYS` (those of the intraclass correlation, ``form`` to ``n_left_out``,
        not applicable: see :data:`NOT_APPLICABLE`); NaN stays NaN (the command writes null)."""
        rows = []
        for res in self.results:
            d = res.to_dict()
            rows.append({k: d[k] if k in d else _not_applicable(k) for k in ROW_KEYS})
        return rows


def majority_label(labels: Sequence[Any], categories: Sequence[Any], tie: str) -> Any:
    """The most frequent label, with an explicit rule for ties.

    Parameters
    ----------
    labels : sequence
        One item's labels from the human raters (missing ratings already removed).
    categories : sequence
        The category order, used by the ``"lowest"``/``"highest"`` rules.
    tie : {"exclude", "lowest", "highest"}
        ``"exclude"``: a tied item has no majority (returns None and is left out of the
        judge comparison, counted in the result's note); ``"lowest"``/``"highest"``: the tied
        category that comes first/last in ``categories`` (for 0/1 labels, ``"highest"`` calls a
        2-2 split positive).

    Returns
    -------
    label or None

    Examples
    --------
    >>> majority_label([1, 1, 0], [0, 1], "exclude")
    1
    >>> majority_label([1, 0, 1, 0], [0, 1], "exclude") is None
    True
    >>> majority_label([1, 0, 1, 0], [0, 1], "highest")
    1
    """
    check_choice("tie", tie, TIE_RULES)
    if len(labels) == 0:
        return None
    values, counts = np.unique(np.array([categories.index(x) for x in labels]), return_counts=True)
    top = values[counts == counts.max()]
    if top.size == 1:
        return categories[int(top[0])]
    if tie == "exclude":
        return None
    return categories[int(top.min() if tie == "lowest" else top.max())]


def agreement_by_label(
    annotations: pd.DataFrame,
    *,
    metrics: Sequence[str] = METRICS,
    judge: str | None = None,
    raters: Sequence[str] | None = None,
    weights: str = "none",
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
    fleiss_method: str = "fleiss",
    tie: str = "exclude",
    confidence: float = 0.95,
    n_boot: int = 2000,
    rng: int | np.random.Generator | None = None,
) -> AgreementTable:
    """Agreement per label among human raters, and of a judge against their majority.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table with columns ``item``, ``rater``, ``label`` and optionally ``category`` (the
        question each label answers, e.g. ``"L1"``); as returned by
        :func:`noisefloor.logs.annotations.read_annotations`. Without ``category`` (or with it
        empty) the whole table is one label named ``"all"``.
    metrics : sequence of {"fleiss", "cohen", "krippendorff"}, default all three
        Which coefficients to compute for every label.
    judge : str, optional
        A rater to compare with the majority of the human raters (Cohen's kappa). The judge
        never enters Fleiss' kappa or alpha.
    raters : sequence of str, optional
        The human raters to use (default: every rater except ``judge``). A selection: the
        ratings of anyone else but the judge are left out (listed in
        ``AgreementTable.ignored``), so ``raters=["alice", "bob"]`` gives Cohen's kappa
        between alice and bob in a study with more raters. Every name must be in the table.
    weights : {"none", "linear", "quadratic"}, default "none"
        Cohen's kappa weights.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Krippendorff's level of measurement.
    categories : sequence, optional
        Category order for every label, lowest to highest. Needed when the order enters a
        value (weighted Cohen's kappa, ordinal alpha) and the labels are not all numbers;
        numeric labels are then taken in numeric order. Each result's ``category_order``
        says which (``"declared"`` or ``"numeric"``). Default for the other coefficients:
        the labels observed for that question, sorted.
    fleiss_method : {"fleiss", "randolph"}, default "fleiss"
    tie : {"exclude", "lowest", "highest"}, default "exclude"
        Rule for a tied human majority (see :func:`majority_label`).
    confidence : float, default 0.95
    n_boot : int, default 2000
        Bootstrap resamples of items for every interval.
    rng : int or numpy.random.Generator, optional
        Seeds every bootstrap. Each (label, metric) row gets its own stream derived from it,
        so a seed fixes the whole table and a row's interval does not depend on which other
        labels or metrics are computed.

    Returns
    -------
    AgreementTable

    Raises
    ------
    ValueError
        Missing columns, an unknown metric/weights/level/tie, a judge or rater not in the
        table, a rater named twice or also as the judge, fewer than two human raters, an item
        rated twice by one rater, weighted kappa or ordinal alpha on labels that are not all
        numbers without ``categories`` (the message names the label and shows how to declare
        the order).

    Notes
    -----
    Fleiss' kappa needs every item rated by every human rater; when some ratings are missing
    its row is NaN with a reason naming the incomplete items (alpha handles missing ratings).
    Cohen's kappa without a judge is computed only for exactly two raters; otherwise its row is
    NaN with a reason. Items without a judge rating or with a tied majority (``tie="exclude"``)
    are left out of the judge comparison and counted in ``note``.

    Examples
    --------
    >>> rows = [(i, r, lab) for i, labs in enumerate([(1, 1, 1, 1), (0, 0, 0, 1), (1, 1, 0, 1),
    ...         (0, 0, 0, 0), (1, 1, 1, 0)]) for r, lab in zip(["a", "b", "c", "judge"], labs)]
    >>> df = pd.DataFrame(rows, columns=["item", "rater", "label"])
    >>> t = agreement_by_label(df, judge="judge", n_boot=0)
    >>> t.to_frame()[["label", "metric", "value", "n_items"]].round(3).values.tolist()
    [['all', 'fleiss', 0.732, 5], ['all', 'cohen', 0.167, 5], ['all', 'krippendorff', 0.75, 5]]
    """
    metrics = _check_options(annotations, metrics, weights, level, fleiss_method, tie)
    confidence = check_confidence(confidence)
    n_boot = check_n_boot(n_boot)
    root = int(as_generator(rng).integers(2**63))
    df = _long_table(annotations)
    humans, ignored = _choose_raters(df["rater"].unique().tolist(), judge, raters)
    if ignored:  # a chosen subset: the others' ratings play no part (nor their items)
        df = df[df["rater"].isin(humans + ([judge] if judge is not None else []))]
    needs_order = _order_needed(metrics, weights, level)
    several = df["category"].nunique() > 1  # name the label in messages only if there are more
    results = []
    for label, sub in df.groupby("category", sort=False):
        # a missing label (NaN) is a missing rating, never a category of its own
        observed = list(sub["label"].dropna())
        if needs_order:  # weighted kappa or ordinal alpha: the order is declared or numeric
            where = f"label {label!r}: " if several else ""
            cats, order = ordered_categories(observed, categories, where + needs_order)
        else:
            cats, order = resolve_categories(observed, categories), ""
        wide = sub.pivot(index="item", columns="rater", values="label")
        for metric in metrics:
            stream = np.random.SeedSequence(
                root, spawn_key=(zlib.crc32(str(label).encode()), zlib.crc32(metric.encode())))
            common: dict[str, Any] = dict(
                confidence=confidence, n_boot=n_boot, rng=np.random.default_rng(stream))
            res = _metric_row(metric, wide, humans, judge, cats, order, weights=weights,
                              level=level, fleiss_method=fleiss_method, tie=tie, common=common)
            results.append(replace(res, label=str(label)))
    return AgreementTable(results=tuple(results), judge=judge, raters=tuple(humans), tie=tie,
                          ignored=ignored)


def _check_options(annotations: pd.DataFrame, metrics: Sequence[str], weights: str, level: str,
                   fleiss_method: str, tie: str) -> tuple[str, ...]:
    """The columns and the choices of :func:`agreement_by_label`; returns ``metrics``."""
    for name in ("item", "rater", "label"):
        if name not in annotations.columns:
            raise ValueError(
                f"annotations needs columns item, rater, label; {name!r} is missing "
                f"(columns: {list(annotations.columns)})"
            )
    chosen = tuple(metrics)
    if not chosen:
        raise ValueError("metrics is empty; choose from " + ", ".join(METRICS))
    for m in chosen:
        check_choice("metrics", m, METRICS)
    check_choice("weights", weights, WEIGHTS)
    check_choice("level", level, LEVELS)
    check_choice("fleiss_method", fleiss_method, FLEISS_METHODS)
    check_choice("tie", tie, TIE_RULES)
    return chosen


def _long_table(annotations: pd.DataFrame) -> pd.DataFrame:
    """Items, raters and labels as strings, the question in ``category`` (``"all"`` if none);
    an item rated twice by one rater for one question is an error."""
    df = annotations.copy()
    df["item"] = df["item"].astype(str)
    df["rater"] = df["rater"].astype(str)
    if "category" not in df.columns:
        df["category"] = ""
    df["category"] = df["category"].fillna("").astype(str).replace("", "all")
    dup = df.duplicated(["category", "item", "rater"], keep=False)
    if dup.any():
        first = df[dup].iloc[0]
        raise ValueError(
            f"item {first['item']!r} is rated more than once by rater {first['rater']!r} "
            f"for label {first['category']!r}"
        )
    return df


def _choose_raters(all_raters: list[str], judge: str | None,
                   raters: Sequence[str] | None) -> tuple[list[str], tuple[str, ...]]:
    """The human raters (at least two) and the raters left out because ``raters`` chose."""
    if judge is not None and judge not in all_raters:
        raise ValueError(f"judge {judge!r} is not a rater in the table; raters: {all_raters}")
    if raters is None:
        humans = [r for r in all_raters if r != judge]
    else:
        humans = [str(r) for r in raters]
        unknown = [r for r in humans if r not in all_raters]
        if unknown:
            raise ValueError(
                f"rater(s) {', '.join(map(repr, unknown))} chosen as human raters do not appear "
                f"in the table; its raters are {', '.join(map(repr, all_raters))}"
            )
        twice = sorted({r for r in humans if humans.count(r) > 1})
        if twice:
            raise ValueError(f"rater(s) {', '.join(map(repr, twice))} chosen more than once")
        if judge in humans:
            raise ValueError(f"judge {judge!r} is also chosen as a human rater")
    if len(humans) < 2:
        names = ", ".join(repr(r) for r in humans) or "none"
        if raters is not None:
            where = f"{len(humans)} chosen"
        else:
            where = f"the table has {len(humans)}" + (
                f" besides the judge {judge!r}" if judge is not None else "")
        raise ValueError(f"agreement needs at least two human raters; {where}: {names}")
    return humans, tuple(r for r in all_raters if r not in humans and r != judge)


def _order_needed(metrics: tuple[str, ...], weights: str, level: str) -> str:
    """The coefficients asked for whose value depends on the category order ("" if none)."""
    wanted = []
    if "cohen" in metrics and weights != "none":
        wanted.append(f"{weights}-weighted Cohen's kappa")
    if "krippendorff" in metrics and level == "ordinal":
        wanted.append("ordinal Krippendorff's alpha")
    return " and ".join(wanted)


def _metric_row(metric: str, wide: pd.DataFrame, humans: list[str], judge: str | None,
                cats: tuple, order: str, *, weights: str, level: str, fleiss_method: str,
                tie: str, common: dict[str, Any]) -> AgreementResult:
    """One coefficient for one label from its item x rater table ``wide``."""
    human = wide.reindex(columns=humans)
    if metric == "fleiss":
        return _fleiss_row(human, cats, fleiss_method, common)
    if metric == "krippendorff":
        res = krippendorff_alpha(
            human.to_numpy(dtype=object), level=level, categories=cats, **common
        )
        res = replace(res, comparison=f"{len(humans)} raters")
        return replace(res, category_order=order) if level == "ordinal" else res
    res = _cohen_row(wide, humans, judge, cats, weights, tie, common)
    return replace(res, category_order=order if weights != "none" else "")



def _undefined(metric: str, reason: str, n_items: int, n_raters: int, cats: tuple,
               confidence: float, comparison: str, **extra: Any) -> AgreementResult:
    return AgreementResult(
        metric=metric, value=math.nan, ci_low=math.nan, ci_high=math.nan, confidence=confidence,
        n_items=n_items, n_raters=n_raters, categories=cats, observed_agreement=math.nan,
        expected_agreement=math.nan, reason=reason, comparison=comparison, **extra,
    )


def _fleiss_row(human: pd.DataFrame, cats: tuple, method: str, common: dict) -> AgreementResult:
    incomplete = human[human.isna().any(axis=1)]
    metric = "randolph" if method == "randolph" else "fleiss"
    comparison = f"{human.shape[1]} raters"
    if not incomplete.empty:
        names = list(incomplete.index[:5])
        more = f" and {len(incomplete) - 5} more" if len(incomplete) > 5 else ""
        return _undefined(
            metric,
            f"not computed: Fleiss' kappa needs every item rated by every rater; items "
            f"{names}{more} lack ratings (Krippendorff's alpha allows missing ratings)",
            int(human.shape[0]), int(human.shape[1]), cats, common["confidence"], comparison,
        )
    res = fleiss_kappa(human.to_numpy(dtype=object), categories=cats, method=method, **common)
    return replace(res, comparison=comparison)


def _cohen_row(
    wide: pd.DataFrame, humans: list, judge: str | None, cats: tuple, weights: str, tie: str,
    common: dict,
) -> AgreementResult:
    conf = common["confidence"]
    if judge is None:
        if len(humans) != 2:
            return _undefined(
                "cohen",
                f"not computed: Cohen's kappa compares two raters; there are {len(humans)} and "
                "no judge: name a judge to compare with the majority, or choose two raters",
                int(wide.shape[0]), len(humans), cats, conf, "", weights=weights,
            )
        pair = wide[humans].dropna()
        dropped = int(wide.shape[0] - pair.shape[0])
        note = f"{dropped} item(s) not rated by both raters left out" if dropped else ""
        comparison = f"{humans[0]} vs {humans[1]}"
        a, b = pair[humans[0]].tolist(), pair[humans[1]].tolist()
    else:
        comparison = f"{judge} vs majority of {len(humans)}"
        a, b = [], []
        no_judge = ties = no_humans = 0
        for _item, row in wide.iterrows():
            jl = row.get(judge)
            votes = [x for x in row[humans].tolist() if not pd.isna(x)]
            if pd.isna(jl):
                no_judge += 1
                continue
            if not votes:
                no_humans += 1
                continue
            maj = majority_label(votes, list(cats), tie)
            if maj is None:
                ties += 1
                continue
            a.append(jl)
            b.append(maj)
        parts = []
        if ties:
            parts.append(f"{ties} item(s) with a tied majority left out (tie rule: exclude)")
        if no_judge:
            parts.append(f"{no_judge} item(s) without a judge rating left out")
        if no_humans:
            parts.append(f"{no_humans} item(s) without human ratings left out")
        note = "; ".join(parts)
    if not a:
        return _undefined(
            "cohen", "not computed: no item has both ratings", 0, 2, cats, conf, comparison,
            weights=weights, note=note,
        )
    res = cohen_kappa(a, b, weights=weights, categories=cats, **common)
    return replace(res, comparison=comparison, note=note)


@dataclass(frozen=True)
class IccTable(FrozenResult):
    """Intraclass correlations per label (continuous scores).

    Attributes
    ----------
    results : tuple of (str, IntraclassCorrelation)
        One per label, in first-seen order.
    raters : tuple of str
        The raters whose scores entered, the judge (if any) last.
    judge : str or None
    ignored : tuple of str, default ()
        Raters left out because ``raters`` chose a subset.
    """

    results: tuple[tuple[str, IntraclassCorrelation], ...]
    raters: tuple[str, ...]
    judge: str | None = None
    ignored: tuple[str, ...] = ()

    # hand-written: one row per (label, form), stacked from the ICCs' frames
    def to_frame(self) -> pd.DataFrame:
        """One row per (label, form): ``label`` then the columns of
        :meth:`IntraclassCorrelation.to_frame`."""
        frames = [res.to_frame().assign(label=label) for label, res in self.results]
        frame = pd.concat(frames, ignore_index=True)
        return frame[["label"] + [c for c in frame.columns if c != "label"]]

    def to_rows(self) -> list[dict[str, Any]]:
        """The rows of ``noisefloor agreement --metric icc --json``: one per (label, form), with
        the keys of :data:`ROW_KEYS` (``metric`` is ``"icc"``; ``p_value`` is the F test's;
        the kappa-only keys are not applicable: see :data:`NOT_APPLICABLE`); NaN stays NaN."""
        rows = []
        for label, res in self.results:
            left_out = (f"{res.n_left_out} item(s) not scored by every rater left out"
                        if res.n_left_out else "")
            common = {"label": label, "metric": "icc", "n_items": res.n_items,
                      "n_raters": res.n_raters, "reason": res.reason,
                      "confidence": res.confidence, "comparison": f"{res.n_raters} raters",
                      "note": left_out, "n_left_out": res.n_left_out}
            for e in res.estimates:
                row = common | {"value": e.value, "ci_low": e.ci_low, "ci_high": e.ci_high,
                                "p_value": e.p_value, "form": e.form, "notation": e.notation,
                                "description": e.description, "f": e.f, "df1": e.df1,
                                "df2": e.df2}
                rows.append({k: row[k] if k in row else _not_applicable(k) for k in ROW_KEYS})
        return rows

    # hand-written: each result is a (label, ICC) pair, flattened into one dict
    def to_dict(self) -> dict[str, Any]:
        """``{"raters", "judge", "ignored", "results": [{"label", **IntraclassCorrelation}]}``."""
        return {"raters": list(self.raters), "judge": self.judge, "ignored": list(self.ignored),
                "results": [{"label": label} | res.to_dict() for label, res in self.results]}


def icc_by_label(annotations: pd.DataFrame, *, judge: str | None = None,
                 raters: Sequence[str] | None = None, confidence: float = 0.95) -> IccTable:
    """Intraclass correlations of numeric scores, per label.

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long table ``item``, ``rater``, ``label`` (a number: the score) and optionally
        ``category`` (the question; each is one label), as for :func:`agreement_by_label`.
    judge : str, optional
        A rater (e.g. an LLM judge) scored alongside the others: it enters as one more rater.
    raters : sequence of str, optional
        Use only these raters (besides the judge); default every rater.
    confidence : float, default 0.95

    Returns
    -------
    IccTable
        Per label, the six forms of :func:`noisefloor.stats.agreement.icc.intraclass_correlation`
        (items without a score from every rater are left out and counted).

    Raises
    ------
    ValueError
        Missing columns, unknown raters, fewer than two raters, an item scored twice by one
        rater, or a score that is not a number (naming the item, rater and value).

    Examples
    --------
    >>> sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> df = pd.DataFrame([(i, f"judge_{j + 1}", s) for i, row in enumerate(sf)
    ...                    for j, s in enumerate(row)], columns=["item", "rater", "label"])
    >>> t = icc_by_label(df)
    >>> t.to_frame()[["label", "notation", "value"]].round(2).values.tolist()[:3]
    [['all', 'ICC(1,1)', 0.17], ['all', 'ICC(2,1)', 0.29], ['all', 'ICC(3,1)', 0.71]]
    """
    _check_options(annotations, ("fleiss",), "none", "nominal", "fleiss", "exclude")
    confidence = check_confidence(confidence)
    df = _long_table(annotations)
    humans, ignored = _choose_raters(df["rater"].unique().tolist(), judge, raters)
    chosen = humans + ([judge] if judge is not None else [])
    df = df[df["rater"].isin(chosen)]
    scores = pd.to_numeric(df["label"], errors="coerce")
    bad = df[scores.isna() & df["label"].notna()]
    if not bad.empty:
        first = bad.iloc[0]
        raise ValueError(
            f"item {first['item']!r}, rater {first['rater']!r}: score {first['label']!r} is not "
            "a number; the intraclass correlation needs numeric scores (Cohen's or Fleiss' "
            "kappa or Krippendorff's alpha read categories)")
    df = df.assign(label=scores)
    results = []
    for label, sub in df.groupby("category", sort=False):
        wide = sub.pivot(index="item", columns="rater", values="label").reindex(columns=chosen)
        results.append((str(label), intraclass_correlation(wide.to_numpy(dtype=float),
                                                           confidence=confidence)))
    return IccTable(results=tuple(results), raters=tuple(chosen), judge=judge, ignored=ignored)
