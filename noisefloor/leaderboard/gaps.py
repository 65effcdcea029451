"""Audit a tau2-bench leaderboard: entries per domain, gaps between two entries, a re-runs floor.

Reads the leaderboard's submission records: one ``submission.json`` (the schema of
``tau2.scripts.leaderboard.submission.Submission``) or a merged JSON object keyed by submission
folder. ``results.<domain>.pass_1`` .. ``pass_4`` are percentages there; here they are
proportions (0..1).

Two entries are compared with the unpaired two-proportion z-test sized by the domain's task
count (a leaderboard publishes no per-task outcomes, so no paired test is possible; pass^1 is
averaged over trials of the same tasks, so counting trials as independent would overstate the
sample). A pair is flagged when its entries differ in tau2-bench version, user simulator or
submission type. Submissions of the same model (same name, reasoning effort and modality) are
re-runs: their gaps are re-run contrasts, and their largest interval excursion is a leaderboard-wide
floor.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd
import scipy.stats
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

from noisefloor.leaderboard.entries import (
    DEFAULT_SUBMISSION_TYPE,
    DOMAIN_TASKS,
    ENTRY_COLUMNS,
    SETUP_FIELDS,
    Leaderboard,
    LeaderboardError,
    _stated,
    _version,
    leaderboard_from_submissions,
    read_leaderboard,
)
from noisefloor.results import FrozenResult

#: Names re-exported from :mod:`noisefloor.leaderboard.entries`, so one import serves both.
__all__ = ["DEFAULT_SUBMISSION_TYPE", "DOMAIN_TASKS", "ENTRY_COLUMNS", "SETUP_FIELDS",
           "Leaderboard", "LeaderboardError", "leaderboard_from_submissions", "read_leaderboard",
           "setup_flags", "EntryGap", "gap_test", "find_entry", "LeaderboardComparison",
           "compare_entries", "model_identity", "LeaderboardFloor", "reruns_floor", "floor_from_reruns"]
from noisefloor.stats import validation as _validate
from noisefloor.stats.validation import MentionError


class _Row(Protocol):
    """A leaderboard row read by field name: a Series or a record dict."""

    def __getitem__(self, key: str, /) -> Any: ...


def setup_flags(a: _Row, b: _Row) -> tuple[str, ...]:
    """How two leaderboard entries differ in setup: tau2 version, user simulator, submission type.

    Parameters
    ----------
    a, b : pandas.Series or dict
        Rows of :attr:`Leaderboard.entries` (a row as a Series, or a record of
        ``DataFrame.to_dict("records")``).

    Returns
    -------
    tuple of str
        One message per differing field (``v0.1.3`` and ``0.1.3`` are the same version; a
        field one entry does not state counts as differing), then reasoning effort when the
        two state different ones or one does not state it.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.Series({"tau2_bench_version": "v0.1.3", "user_simulator": "gpt-4.1",
    ...                "submission_type": "standard", "reasoning_effort": "high"})
    >>> setup_flags(a, a.replace({"v0.1.3": "1.0.1"}))
    ('tau2-bench version differs (v0.1.3 vs 1.0.1)',)
    """
    flags = []
    for name in (*SETUP_FIELDS, "reasoning_effort"):
        va, vb = a[name], b[name]
        va, vb = (va if _stated(va) else None), (vb if _stated(vb) else None)
        if name == "reasoning_effort" and va is None and vb is None:
            continue
        same = (_version(va) == _version(vb)) if name == "tau2_bench_version" else (va == vb)
        if not same or va is None:
            label = name.replace("_", " ").replace("tau2 bench", "tau2-bench")
            flags.append(f"{label} differs ({va if va is not None else 'not stated'} vs "
                         f"{vb if vb is not None else 'not stated'})")
    return tuple(flags)


@dataclass(frozen=True)
class EntryGap:
    """One domain's comparison of two entries (a row of :class:`LeaderboardComparison`).

    Attributes
    ----------
    domain : str
    a, b : str
        Submission ids.
    pass_1_a, pass_1_b : float
        pass^1 of each (proportions).
    gap : float
        ``pass_1_a - pass_1_b``.
    n_tasks : int
        The domain's task count, the sample size of each arm.
    z, p_value : float
        Pooled two-proportion z statistic and two-sided p (statsmodels ``proportions_ztest``;
        = R ``prop.test(correct = FALSE)``).
    ci_low, ci_high : float
        Wald interval of the gap at ``confidence`` (statsmodels
        ``confint_proportions_2indep(method="wald")``; = R ``prop.test(correct = FALSE)``).
    confidence : float
    floor : float
        The floor the gap is placed against (NaN when none).
    verdict : str
        ``"below"`` (|gap| < floor), ``"inside"`` (floor <= |gap| <= envelope), ``"above"``,
        or ``"undefined"`` without a floor.
    ratio : float
        ``|gap| / floor``.
    flags : tuple of str
        Setup differences (:func:`setup_flags`).
    reason : str
        Why a field is NaN.
    """

    domain: str
    a: str
    b: str
    pass_1_a: float
    pass_1_b: float
    gap: float
    n_tasks: int
    z: float
    p_value: float
    ci_low: float
    ci_high: float
    confidence: float
    floor: float
    verdict: str
    ratio: float
    flags: tuple[str, ...]
    reason: str = ""


def gap_test(pass_1_a: float, pass_1_b: float, n_tasks: int, *, confidence: float = 0.95):
    """Unpooled-interval, pooled-test comparison of two success rates on ``n_tasks`` each.

    Parameters
    ----------
    pass_1_a, pass_1_b : float
        Success rates (proportions).
    n_tasks : int
        Tasks per arm.
    confidence : float, default 0.95

    Returns
    -------
    (z, p_value, ci_low, ci_high) : tuple of float
        NaN z and p when both rates are 0 or both 1 (no variance under the null).

    Notes
    -----
    ``z = (p_a - p_b) / sqrt(pbar (1 - pbar) 2 / n)``, ``pbar = (p_a + p_b) / 2``; interval
    ``(p_a - p_b) -+ z_{(1+c)/2} sqrt(p_a q_a / n + p_b q_b / n)``.

    Examples
    --------
    >>> z, p, lo, hi = gap_test(0.70, 0.72, 50)
    >>> round(p, 4), round(lo, 4), round(hi, 4)
    (0.8256, -0.1978, 0.1578)
    """
    conf = _validate.probability("confidence", confidence)
    n = _validate.count("n_tasks", n_tasks)
    ca, cb = pass_1_a * n, pass_1_b * n
    if pass_1_a == pass_1_b and pass_1_a in (0.0, 1.0):
        z = p = math.nan
    else:
        z, p = (float(v) for v in proportions_ztest([ca, cb], [n, n]))
    lo, hi = confint_proportions_2indep(ca, n, cb, n, method="wald", compare="diff",
                                        alpha=1 - conf)
    return z, p, float(lo), float(hi)


def _place(gap, floor, envelope):
    if math.isnan(floor) or math.isnan(gap):
        return "undefined", math.nan
    top = floor if math.isnan(envelope) else envelope
    verdict = "below" if abs(gap) < floor else ("inside" if abs(gap) <= top else "above")
    return verdict, abs(gap) / floor if floor > 0 else math.nan


def find_entry(board: Leaderboard, name: str, option: str = "a") -> str:
    """The submission id that ``name`` designates (an id, or a model name held once).

    Parameters
    ----------
    board : Leaderboard
    name : str
        A submission id (folder name) or a model name (case-insensitive).
    option : str, default "a"
        Keyword named in the error (``a=`` or ``b=``).

    Returns
    -------
    str

    Raises
    ------
    MentionError
        (a :class:`ValueError`) If the leaderboard holds no such entry, or the model name matches
        several submissions; the message names the argument (``--a``/``--b`` on the command
        line) and lists close matches.

    Examples
    --------
    Three entries of one domain: model M with two user simulators, model N with one.

    >>> from noisefloor.leaderboard import read_leaderboard
    >>> board = read_leaderboard("fixtures/leaderboard/three_entries.json")
    >>> find_entry(board, "N"), find_entry(board, "m_a")
    ('n_a', 'm_a')
    """
    ids = list(dict.fromkeys(board.entries["submission"]))
    if name in ids:
        return name
    by_model = board.entries[board.entries["model_name"].str.lower() == str(name).lower()]
    hits = list(dict.fromkeys(by_model["submission"]))
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise MentionError(f"{{{option}={_validate.literal(repr(name))}}} names {len(hits)} submissions "
                           f"of that model; give one of their ids: "
                           f"{_validate.literal(', '.join(hits))}")
    names = list(dict.fromkeys(board.entries["model_name"]))
    lowered = {c.lower(): c for c in ids + names}
    close = [lowered[c] for c in difflib.get_close_matches(str(name).lower(), list(lowered),
                                                            n=4, cutoff=0.5)]
    hint = f"; close matches: {', '.join(close)}" if close else ""
    raise MentionError(f"{{{option}={_validate.literal(repr(name))}}}: the leaderboard "
                       f"{_validate.literal(board.source)} holds no such entry (expected a "
                       f"submission id or model name){_validate.literal(hint)}")


@dataclass(frozen=True)
class LeaderboardComparison(FrozenResult):
    """Result of :func:`compare_entries`: one :class:`EntryGap` per shared domain.

    Attributes
    ----------
    a, b : str
        Submission ids compared.
    rows : tuple of EntryGap
    floor, envelope : float
        What the gaps were placed against (NaN when not given).
    floor_source : str
        Where the floor came from (:func:`~noisefloor.pipelines.leaderboard_run` records
        ``"given"`` for a floor passed in; a renderer says how it was given).
    floor_kind : {"floor", "envelope"}
        What ``floor`` is: a floor, or an envelope the gaps are placed against in its stead
        (the leaderboard's re-runs envelope, a log's envelope).
    """

    _dict_keys = ("a", "b", "floor", "envelope", "floor_source", "floor_kind", "rows")
    _frame_field = "rows"

    a: str
    b: str
    rows: tuple[EntryGap, ...]
    floor: float
    envelope: float
    floor_source: str
    floor_kind: str = "floor"


def compare_entries(board: Leaderboard, a: str, b: str, *, domain: str | None = None,
                    floor: float = math.nan, envelope: float = math.nan,
                    floor_source: str = "", floor_kind: str = "floor",
                    confidence: float = 0.95) -> LeaderboardComparison:
    """Compare two leaderboard entries in every domain both report (or one).

    Parameters
    ----------
    board : Leaderboard
    a, b : str
        Submission ids or model names (see :func:`find_entry`).
    domain : str, optional
        Restrict to one domain.
    floor, envelope : float, optional
        Noise floor (and envelope) to place each |gap| against, proportions.
    floor_source : str, optional
        Recorded with the result.
    floor_kind : {"floor", "envelope"}, default "floor"
        What ``floor`` is (recorded with the result; :func:`floor_from_reruns` says it).
    confidence : float, default 0.95
        Interval level.

    Returns
    -------
    LeaderboardComparison

    Raises
    ------
    KeyError
        If ``a`` or ``b`` is not an entry (message names ``a=``/``b=``).
    ValueError
        If they share no domain (or not ``domain``), or the floor is negative.

    Examples
    --------
    Three entries of one domain: model M with two user simulators, model N with one.

    >>> from noisefloor.leaderboard import read_leaderboard
    >>> board = read_leaderboard("fixtures/leaderboard/three_entries.json")
    >>> r = compare_entries(board, "m_a", "n_a", floor=0.12)
    >>> r.rows[0].domain, round(r.rows[0].gap, 2), r.rows[0].verdict, round(r.rows[0].p_value, 3)
    ('airline', 0.1, 'below', 0.295)
    >>> r.to_frame().shape[0], r.to_dict()["floor"]
    (1, 0.12)
    """
    conf = _validate.probability("confidence", confidence)
    _validate.choice("floor_kind", floor_kind, ("floor", "envelope"))
    if not math.isnan(floor) and floor < 0:
        raise _validate.ParameterError("floor", "a proportion >= 0", floor)
    ia, ib = find_entry(board, a, "a"), find_entry(board, b, "b")
    if ia == ib:
        raise _validate.ParameterError("b", "another submission than {a}", ia)
    ea = board.entries[board.entries["submission"] == ia].set_index("domain")
    eb = board.entries[board.entries["submission"] == ib].set_index("domain")
    shared = [d for d in DOMAIN_TASKS if d in ea.index and d in eb.index]
    if domain is not None:
        _validate.choice("domain", domain, tuple(DOMAIN_TASKS))
        if domain not in shared:
            raise _validate.ParameterError(
                "domain", f"a domain both {_validate.literal(ia)} and {_validate.literal(ib)} "
                f"report (shared: {', '.join(shared) or 'none'})", domain)
        shared = [domain]
    if not shared:
        raise ValueError(f"{ia} and {ib} share no domain ({ia}: {', '.join(ea.index)}; "
                         f"{ib}: {', '.join(eb.index)})")
    rows = [_gap_row(d, ia, ib, ea.loc[d], eb.loc[d], conf, floor, envelope) for d in shared]
    return LeaderboardComparison(ia, ib, tuple(rows), floor, envelope, floor_source, floor_kind)


def _gap_row(d, ia, ib, ra, rb, conf, floor, envelope) -> EntryGap:
    n = DOMAIN_TASKS[d]
    pa, pb = float(ra["pass_1"]), float(rb["pass_1"])
    flags = setup_flags(ra, rb)
    if math.isnan(pa) or math.isnan(pb):
        nan = math.nan
        return EntryGap(d, ia, ib, pa, pb, nan, n, nan, nan, nan, nan, conf, floor,
                        "undefined", nan, flags, "pass_1 not reported by "
                        + (ia if math.isnan(pa) else ib))
    z, p, lo, hi = gap_test(pa, pb, n, confidence=conf)
    verdict, ratio = _place(pa - pb, floor, envelope)
    reason = "" if not math.isnan(p) else "both entries at 0 or both at 1: no null variance"
    return EntryGap(d, ia, ib, pa, pb, pa - pb, n, z, p, lo, hi, conf, floor, verdict, ratio,
                    flags, reason)


def model_identity(row: pd.Series) -> str:
    """Key under which two submissions may be re-runs of one model.

    Lower-case model name with punctuation dropped and ``3.0`` read as ``3``, plus the
    modality: ``"Claude-Sonnet-4.5"`` and ``"Claude Sonnet 4.5"`` are one model. (Two
    submissions that both state a reasoning effort and state different ones are not re-runs;
    :func:`reruns_floor` checks that.)

    Examples
    --------
    >>> import pandas as pd
    >>> model_identity(pd.Series({"model_name": "Gemini 3.0 Pro", "modality": "text"}))
    'gemini3pro|text'
    """
    name = re.sub(r"(\d)\.0\b", r"\1", str(row["model_name"]).lower())
    return f"{re.sub(r'[^a-z0-9]', '', name)}|{row['modality']}"


def _same_effort(ra, rb) -> bool:
    ea, eb = ra["reasoning_effort"], rb["reasoning_effort"]
    return not (_stated(ea) and _stated(eb) and ea != eb)


@dataclass(frozen=True)
class LeaderboardFloor(FrozenResult):
    """Result of :func:`reruns_floor`: re-submissions of one model as re-run contrasts.

    Attributes
    ----------
    floor : float
        Largest excursion bound ``max(ci_high, -ci_low)`` over re-run gaps whose entries share
        tau2 version, user simulator and submission type (NaN with ``reason`` when none do).
    envelope : float
        The same over every re-run gap, flagged ones included.
    floor_pair, envelope_pair : str
        ``"domain: a vs b"`` of the gap that sets each.
    null_gap_sd : float
        Standard deviation (ddof 1) of all re-run gaps.
    confidence : float
    table : pandas.DataFrame
        One row per re-run gap: ``model, domain, a, b, pass_1_a, pass_1_b, gap, n_tasks, z,
        p_value, ci_low, ci_high, bound, flags, flagged``.
    reason : str
    """

    _dict_keys = ("floor", "envelope", "floor_pair", "envelope_pair", "null_gap_sd", "confidence",
                  "reason", "table")
    _frame_field = "table"

    floor: float
    envelope: float
    floor_pair: str
    envelope_pair: str
    null_gap_sd: float
    confidence: float
    table: pd.DataFrame = field(repr=False)
    reason: str = ""


#: Most re-run pairs :func:`reruns_floor` compares (a model submitted 1,415 times in one domain).
MAX_RERUN_PAIRS = 1_000_000


def reruns_floor(board: Leaderboard, *, confidence: float = 0.95) -> LeaderboardFloor:
    """The leaderboard-wide floor from re-submissions of one model (re-run contrasts).

    Parameters
    ----------
    board : Leaderboard
    confidence : float, default 0.95
        Level of each gap's interval.

    Returns
    -------
    LeaderboardFloor
        NaN floor and envelope with a reason when no model is submitted twice in a domain.

    Notes
    -----
    Each pair of submissions with one :func:`model_identity` and no conflicting reasoning
    effort, in each domain both report, is
    compared as :func:`gap_test` does; a pair's bound is ``max(ci_high, -ci_low)`` (the sign of
    a re-run gap is arbitrary). floor = max bound over unflagged pairs, envelope = max over all.

    Examples
    --------
    Three entries of one domain: model M with two user simulators, model N with one.

    >>> from noisefloor.leaderboard import read_leaderboard
    >>> board = read_leaderboard("fixtures/leaderboard/three_entries.json")
    >>> f = reruns_floor(board)
    >>> f.table[["a", "b", "flagged"]].values.tolist(), round(f.envelope, 4), f.reason[:25]
    ([['m_a', 'm_b', True]], 0.1978, 'every re-run pair differs')
    >>> f.to_frame().shape[0], sorted(f.to_dict())[:2]
    (1, ['confidence', 'envelope'])
    """
    conf = _validate.probability("confidence", confidence)
    e = board.entries[board.entries["pass_1"].notna()]
    # model_identity, column-wise (one pass over the entries)
    names = (e["model_name"].astype(str).str.lower()
             .str.replace(r"(\d)\.0\b", r"\1", regex=True)
             .str.replace(r"[^a-z0-9]", "", regex=True))
    e = e.assign(_id=names + "|" + e["modality"].astype(str))
    sizes = e.groupby(["_id", "domain"]).size()
    n_pairs = int((sizes * (sizes - 1) // 2).sum())
    if n_pairs > MAX_RERUN_PAIRS:
        # the first largest (ident, domain) group, as Series.idxmax picks it
        (ident, d), k = sizes.index[int(np.argmax(sizes.to_numpy()))], int(sizes.max())
        raise ValueError(f"the leaderboard holds {n_pairs:,} re-run pairs of re-submissions, "
                         f"more than the {MAX_RERUN_PAIRS:,} a re-runs floor is computed from (model "
                         f"{ident.split('|')[0]!r} alone is submitted {k:,} times in {d}); "
                         "pass a floor of your own instead")
    setup = ["tau2_bench_version", "user_simulator", "submission_type", "reasoning_effort"]
    meta: list[tuple[str, str, dict, dict]] = []
    pa_list: list[float] = []
    pb_list: list[float] = []
    multi = e[e.groupby(["_id", "domain"])["_id"].transform("size") > 1]
    records = multi.sort_values(["_id", "domain", "submission"]).to_dict("records")
    for (_, d), group in itertools.groupby(records, key=lambda r: (r["_id"], r["domain"])):
        recs = list(group)
        keys = [tuple(r[c] for c in setup) for r in recs]
        for i, j in itertools.combinations(range(len(recs)), 2):
            ra, rb = recs[i], recs[j]
            if not _same_effort(ra, rb):
                continue  # e.g. GPT-5.2 at reasoning effort none and at high: two configurations
            same = keys[i] == keys[j] and all(_stated(v) for v in keys[i])
            meta.append((d, "" if same else "; ".join(setup_flags(ra, rb)), ra, rb))
            pa_list.append(ra["pass_1"])
            pb_list.append(rb["pass_1"])
    pa, pb = np.asarray(pa_list, dtype=float), np.asarray(pb_list, dtype=float)
    n = np.asarray([DOMAIN_TASKS[m[0]] for m in meta], dtype=float)
    # gap_test, vectorised: pooled z-test and Wald interval of the difference
    pbar = (pa + pb) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (pa - pb) / np.sqrt(pbar * (1 - pbar) * 2 / n)
    z = np.where((pa == pb) & ((pa == 0) | (pa == 1)), np.nan, z)
    pval = 2 * scipy.stats.norm.sf(np.abs(z))
    half = scipy.stats.norm.ppf((1 + conf) / 2) * np.sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n)
    lo, hi = pa - pb - half, pa - pb + half
    rows = [{"model": ra["model_name"], "domain": d, "a": ra["submission"],
             "b": rb["submission"], "pass_1_a": ra["pass_1"], "pass_1_b": rb["pass_1"],
             "gap": ra["pass_1"] - rb["pass_1"], "n_tasks": DOMAIN_TASKS[d],
             "z": float(z[i]), "p_value": float(pval[i]), "ci_low": float(lo[i]),
             "ci_high": float(hi[i]), "bound": float(max(hi[i], -lo[i])), "flags": flags,
             "flagged": bool(flags)} for i, (d, flags, ra, rb) in enumerate(meta)]
    cols = ["model", "domain", "a", "b", "pass_1_a", "pass_1_b", "gap", "n_tasks", "z",
            "p_value", "ci_low", "ci_high", "bound", "flags", "flagged"]
    table = pd.DataFrame(rows, columns=cols)
    nan = math.nan
    if table.empty:
        return LeaderboardFloor(nan, nan, "", "", nan, conf, table,
                                "no model is submitted twice in one domain: no re-run contrast")

    def top(t):
        if t.empty:
            return nan, ""
        r = t.loc[t["bound"].idxmax()]
        return float(r["bound"]), f"{r['domain']}: {r['a']} vs {r['b']}"

    floor, fpair = top(table[~table["flagged"]])
    envelope, epair = top(table)
    reason = ("" if fpair else "every re-run pair differs in tau2 version, user simulator or "
              "submission type: no unflagged floor; the envelope counts the flagged pairs")
    sd = float(table["gap"].std(ddof=1)) if len(table) >= 2 else nan
    return LeaderboardFloor(floor, envelope, fpair, epair, sd, conf, table, reason)


def floor_from_reruns(reruns: LeaderboardFloor) -> tuple[float, float, str, str]:
    """The floor a gap is placed against when none is given: the leaderboard's own re-runs floor.

    The floor of re-submissions whose setup matches, with the envelope beside it; when every
    re-submission differs in setup, the envelope alone; NaN when the board has no re-run contrast.

    Parameters
    ----------
    reruns : LeaderboardFloor
        :func:`~noisefloor.leaderboard.gaps.reruns_floor` of the board.

    Returns
    -------
    tuple of (float, float, str, str)
        ``(floor, envelope, source, kind)``: the envelope is NaN unless the floor is the
        matched one; ``source`` says which reading it is and the pair that sets it; ``kind`` is
        ``"envelope"`` when the envelope stands in for the floor, else ``"floor"``.

    Examples
    --------
    >>> from noisefloor.leaderboard import read_leaderboard, reruns_floor
    >>> board = read_leaderboard("fixtures/leaderboard/three_entries.json")
    >>> floor, envelope, source, kind = floor_from_reruns(reruns_floor(board))
    >>> round(floor, 4), envelope, kind, source
    (0.1978, nan, 'envelope', 'leaderboard re-runs envelope (airline: m_a vs m_b; no re-submission matches in setup)')
    """
    if not math.isnan(reruns.floor):
        return (reruns.floor, reruns.envelope, f"leaderboard re-runs floor ({reruns.floor_pair})",
                "floor")
    if not math.isnan(reruns.envelope):
        return reruns.envelope, math.nan, (f"leaderboard re-runs envelope ({reruns.envelope_pair}; "
                                           "no re-submission matches in setup)"), "envelope"
    return math.nan, math.nan, "none (no re-run contrast on this leaderboard)", "floor"
