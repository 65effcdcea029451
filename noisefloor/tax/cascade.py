"""The four-stage cascade: an LLM judge labels L1-L4 per rollout; stage rates by outcome.

The judge is any callable taking a list of chat messages (``{"role", "content"}`` dicts, the
OpenAI chat format) and returning the reply text; the runner's endpoint layer provides one for
an OpenAI-compatible endpoint. Its instructions are the shipped file
``noisefloor/tax/data/judge_prompt.md`` (stage definitions from the collaboration-tax paper,
section 4). Labels are written in the long annotation layout ``noisefloor agreement`` reads
(``item`` = rollout key, ``rater``, ``category`` = stage, ``label`` 0/1), so the judge can be
checked against expert raters there unchanged. A judge call that raises is an infrastructure
failure: the rollout stays unlabelled and is listed, never scored 0.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from noisefloor.logs.annotations import read_annotations
from noisefloor.results import FrozenResult
from noisefloor.stats.paired import wilson_interval
from noisefloor.tax.run import TaxRun, read_transcripts

__all__ = ["STAGES", "JudgeRun", "collect_labels", "judge_keys", "judge_prompt", "judge_requests",
           "judge_rollouts", "parse_judge_reply", "render_transcript", "stage_rates"]

STAGES = ("L1", "L2", "L3", "L4")
Judge = Callable[[list[dict[str, str]]], str]
_JSON = re.compile(r"\{[^{}]*\}")


def judge_prompt() -> str:
    """The shipped judge instructions (``noisefloor/tax/data/judge_prompt.md``).

    Examples
    --------
    >>> "L4 re-derivation" in judge_prompt()
    True
    """
    return resources.files("noisefloor.tax").joinpath("data/judge_prompt.md").read_text(
        encoding="utf-8")


def render_transcript(events: Sequence[Mapping[str, Any]]) -> str:
    """A rollout's events as the text the judge reads: views first, then the dialogue (events
    of the agents a and b only; a grader model's or judge's events are not the dialogue).

    Examples
    --------
    >>> print(render_transcript([{"agent": "a", "role": "system", "content": "K1"},
    ...                          {"agent": "a", "role": "assistant", "content": "hi"}]))
    [view of agent a]
    K1
    <BLANKLINE>
    [agent a]: hi
    """
    events = [e for e in events if e["agent"] in ("a", "b")]  # not the grader model's or a judge's
    views = [f"[view of agent {e['agent']}]\n{e['content']}" for e in events
             if e["role"] == "system"]
    turns = [f"[agent {e['agent']}]: {e['content']}" for e in events if e["role"] == "assistant"]
    return "\n\n".join(views) + "\n\n" + "\n".join(turns)


def parse_judge_reply(text: str) -> dict[str, int]:
    """The four 0/1 labels of a judge reply; ValueError saying what is wrong otherwise.

    Examples
    --------
    >>> parse_judge_reply('Sure. {"L1": 0, "L2": 1, "L3": 1, "L4": 0}')
    {'L1': 0, 'L2': 1, 'L3': 1, 'L4': 0}
    """
    for m in _JSON.finditer(text or ""):
        try:
            obj = json.loads(m.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and all(k in obj for k in STAGES):
            out = {}
            for k in STAGES:
                v = obj[k]
                if isinstance(v, bool):
                    v = int(v)
                if v not in (0, 1):
                    raise ValueError(f"judge reply: {k} must be 0 or 1, got {v!r}")
                out[k] = int(v)
            return out
    raise ValueError(f"judge reply holds no JSON object with L1-L4: {str(text)[:120]!r}")


@dataclass(frozen=True)
class JudgeRun(FrozenResult):
    """Labels from :func:`judge_rollouts`.

    Attributes
    ----------
    labels : pandas.DataFrame
        Long annotation rows ``item, rater, category, label`` (one per rollout and stage).
    failures : pandas.DataFrame
        Rollouts left unlabelled: ``item, kind`` (``"infrastructure"`` when the judge call
        raised, ``"unparseable"`` when its reply held no valid labels), ``detail``.
    """

    _frame_field = "labels"

    labels: pd.DataFrame
    failures: pd.DataFrame

    def write(self, path: str | Path) -> Path:
        """Write the labels as JSONL in the long layout ``noisefloor agreement`` reads."""
        p = Path(path)
        with open(p, "w", encoding="utf-8") as fh:
            records = self.labels[["item", "rater", "category", "label"]].to_dict("records")
            fh.writelines(json.dumps({**rec, "label": int(rec["label"])}) + "\n"
                          for rec in records)
        return p


def judge_rollouts(
    run: TaxRun, judge: Judge, *, rater: str = "judge", keys: Sequence[str] | None = None,
    prompt: str | None = None, journal: Any = None, variants: bool = False,
) -> JudgeRun:
    """Ask ``judge`` for the L1-L4 labels of pair rollouts.

    Parameters
    ----------
    run : TaxRun
    judge : callable
        ``judge(messages) -> str``: ``messages`` is ``[{"role": "system", "content": prompt},
        {"role": "user", "content": transcript}]``.
    rater : str, default "judge"
        Rater name written in the labels.
    keys : sequence of str, optional
        Rollout keys to label; default :func:`judge_keys` (baseline pair rollouts with a
        reward, the prompt variants' too when ``variants``).
    prompt : str, optional
        Judge instructions; default :func:`judge_prompt`.
    journal : noisefloor.tax.replies.JudgeJournal, optional
        Every reply is journalled as it arrives; keys the journal already labelled are not
        asked again, and the result holds the journal's labels of every key.
    variants : bool, default False
        Also label the prompt variants' pair rollouts (no table of the report uses them).

    Returns
    -------
    JudgeRun

    Raises
    ------
    TaxRunError
        A selected rollout's transcript is missing.

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.run import read_run
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, models={"m": 0.9}, tasks=[("csp_sudoku4", "csp")],
    ...                         n_instances=2, modes=("pair",))
    >>> always = lambda messages: '{"L1": 1, "L2": 0, "L3": 0, "L4": 0}'
    >>> res = judge_rollouts(read_run(d), always)
    >>> len(res.labels), sorted(set(res.labels["category"])), len(res.failures)
    (8, ['L1', 'L2', 'L3', 'L4'], 0)
    """
    wanted = list(judge_keys(run, variants=variants) if keys is None else keys)
    ask = journal.missing(wanted) if journal is not None else wanted
    requests = judge_requests(run, keys=ask, prompt=prompt)
    replies: dict[str, str | BaseException] = {}
    for key, msgs in requests.items():
        try:
            replies[key] = judge(msgs)
        except Exception as exc:  # an endpoint failure is an infrastructure error, not a label
            replies[key] = exc
        if journal is not None:
            journal.record(key, replies[key])
    if journal is not None:
        return journal.judge_run(wanted)
    return collect_labels(replies, rater=rater)


def judge_keys(run: TaxRun, *, variants: bool = False) -> list[str]:
    """Rollouts the cascade needs labelled: pair rollouts with a reward, baseline prompt
    only unless ``variants`` (the stage rates use baseline pairs; variants are labelled only
    when asked)."""
    df = run.rollouts
    sel = (df["mode"] == "pair") & ~df["infrastructure_error"]
    if not variants:
        sel &= df["variant"] == "baseline"
    return df.loc[sel, "rollout_key"].tolist()


def judge_requests(run: TaxRun, *, keys: Sequence[str] | None = None,
                   prompt: str | None = None) -> dict[str, list[dict[str, str]]]:
    """The judge's chat messages for each rollout key (default :func:`judge_keys`).

    Raises
    ------
    TaxRunError
        A selected rollout's transcript is missing.
    """
    if keys is None:
        keys = judge_keys(run)
    events, _ = read_transcripts(run, keys)
    system = judge_prompt() if prompt is None else prompt
    return {key: [{"role": "system", "content": system},
                  {"role": "user", "content": render_transcript(events[key])}] for key in keys}


def collect_labels(replies: Mapping[str, str | BaseException], *, rater: str = "judge"
                   ) -> JudgeRun:
    """Labels from judge replies; a reply that is an exception is an infrastructure failure.

    Parameters
    ----------
    replies : mapping of str to str or exception
        Rollout key -> the judge's reply text, or the exception its call raised.
    rater : str, default "judge"

    Returns
    -------
    JudgeRun
        Unparseable replies and failed calls are listed in ``failures``, never labelled.
    """
    rows: list[dict[str, Any]] = []
    fails: list[dict[str, Any]] = []
    for key, reply in replies.items():
        if isinstance(reply, BaseException):
            fails.append({"item": key, "kind": "infrastructure",
                          "detail": f"{type(reply).__name__}: {reply}"})
            continue
        try:
            labels = parse_judge_reply(reply)
        except ValueError as exc:
            fails.append({"item": key, "kind": "unparseable", "detail": str(exc)})
            continue
        rows.extend({"item": key, "rater": rater, "category": s, "label": labels[s]}
                    for s in STAGES)
    return JudgeRun(pd.DataFrame(rows, columns=["item", "rater", "category", "label"]),
                    pd.DataFrame(fails, columns=["item", "kind", "detail"]))


def stage_rates(
    run: TaxRun, labels: pd.DataFrame | str | Path, *, rater: str = "judge",
    pairs: str = "homogeneous", confidence: float = 0.95,
) -> pd.DataFrame:
    """Rate of each stage's failure in failed and in successful rollouts, per family.

    Parameters
    ----------
    run : TaxRun
    labels : pandas.DataFrame or path
        Long annotations (``item, rater, category, label``), or a file
        :func:`noisefloor.logs.annotations.read_annotations` reads.
    rater : str, default "judge"
        Whose labels to use.
    pairs : {"homogeneous", "mixed"}, default "homogeneous"
        Same-model or mixed pair rollouts (baseline prompt).
    confidence : float, default 0.95
        Level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        One row per (family, stage, outcome) and per (``"all"``, stage, outcome): ``k`` (rollouts
        whose label is 1), ``n`` (labelled rollouts), ``rate``, ``ci_low``, ``ci_high`` (Wilson,
        :func:`noisefloor.stats.paired.wilson_interval`), ``note``.
        ``rate`` is NaN with a note when ``n == 0``. ``attrs`` holds ``n_unlabelled`` (pair
        rollouts without this rater's label for a stage) and ``n_unmatched`` (label items that
        are not rollouts of the run).

    Raises
    ------
    ValueError
        A label other than 0/1, no label by ``rater``, a bad ``pairs``.

    Notes
    -----
    Outcome: ``success`` when the reward is within 1e-6 of 1, else ``failed``. Wilson interval
    ``(p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
    inference. JASA 22(158), 209-212.

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.run import read_run
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, models={"m": 0.9}, tasks=[("csp_sudoku4", "csp")],
    ...                         n_instances=20, modes=("pair",), seed=3)
    >>> r = stage_rates(read_run(d), d + "/judge_labels.jsonl")
    >>> r.columns.tolist()[:6], int(r[r.family == "all"]["n"].sum())
    (['family', 'stage', 'outcome', 'k', 'n', 'rate'], 80)
    """
    if pairs not in ("homogeneous", "mixed"):
        raise ValueError(f"pairs must be 'homogeneous' or 'mixed', got {pairs!r}")
    every = read_annotations(labels) if isinstance(labels, (str, Path)) else labels
    lab = every[every["rater"] == rater]
    if lab.empty:
        raise ValueError(f"no labels by rater {rater!r}; raters present: "
                         f"{', '.join(sorted(map(str, set(every['rater'])))) or 'none'}")
    bad = ~lab["label"].isin([0, 1])
    if bad.any():
        r = lab[bad].iloc[0]
        where = f" (line {r['line']})" if "line" in lab.columns else ""
        raise ValueError(f"stage labels must be 0 or 1; item {r['item']!r} category "
                         f"{r['category']!r}{where} has {r['label']!r}")
    df = run.rollouts
    sel = df[(df["mode"] == "pair") & (df["variant"] == "baseline") & ~df["infrastructure_error"]
             & (df["mixed"] if pairs == "mixed" else ~df["mixed"])]
    wide = lab.pivot_table(index="item", columns="category", values="label", aggfunc="first")
    joined = sel.join(wide, on="rollout_key", how="left")
    rows = []
    n_unlabelled = 0
    fams = list(dict.fromkeys(sorted(sel["family"].unique(), key=lambda f: (
        {"spatial": 0, "relational": 1, "csp": 2}.get(f, 9), f)))) + ["all"]
    for stage in STAGES:
        col = joined[stage] if stage in joined.columns else pd.Series(math.nan, index=joined.index)
        n_unlabelled += int(col.isna().sum())
        for fam in fams:
            m = (joined["family"] == fam) if fam != "all" else pd.Series(True, index=joined.index)
            for outcome, ok in (("failed", False), ("success", True)):
                mm = m & (joined["success"] == ok) & col.notna()
                k, n = int(col[mm].sum()), int(mm.sum())
                if n == 0:
                    rows.append({"family": fam, "stage": stage, "outcome": outcome, "k": 0, "n": 0,
                                 "rate": math.nan, "ci_low": math.nan, "ci_high": math.nan,
                                 "note": f"no labelled {outcome} rollouts"})
                    continue
                lo, hi = wilson_interval(k, n, confidence)
                rows.append({"family": fam, "stage": stage, "outcome": outcome, "k": k, "n": n,
                             "rate": k / n, "ci_low": float(lo), "ci_high": float(hi), "note": ""})
    out = pd.DataFrame(rows)
    out.attrs["confidence"] = confidence
    out.attrs["n_unlabelled"] = n_unlabelled
    out.attrs["n_unmatched"] = int((~wide.index.isin(df["rollout_key"])).sum())
    return out
