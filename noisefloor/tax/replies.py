"""The judge's replies, journalled: every cascade-judge reply written to disk as it arrives.

A judge call is paid for; its reply must survive a crash, an interrupted report or a reply
that does not parse. :class:`JudgeJournal` appends one JSON line per judged rollout
(flushed and fsynced) to ``judge_journal.jsonl``: the rollout key, the rater, the judge model,
the SHA-256 of the judge's instructions, the reply text, and either the four labels or the
failure (``infrastructure`` when the call failed, ``unparseable`` when the reply held no
labels). A later :func:`noisefloor.tax.tax_report` with the same journal reuses every
labelled rollout of the same rater and instructions and asks the judge only for the rest.
The journal serves every judge, a callable (:func:`noisefloor.tax.cascade.judge_rollouts`) or
an endpoint (:func:`noisefloor.tax.judge.judge_with_endpoint`), and loads no HTTP client.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from noisefloor.tax.cascade import STAGES, JudgeRun, parse_judge_reply

__all__ = ["JOURNAL_NAME", "JudgeJournal"]

#: File name of the judge journal in a report directory.
JOURNAL_NAME = "judge_journal.jsonl"


def prompt_digest(prompt: str) -> str:
    """SHA-256 of the judge instructions (labels from other instructions are not reused)."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


class JudgeJournal:
    """Append-only journal of one rater's judge replies.

    Parameters
    ----------
    path : str or Path
        The JSONL file (created with its directory on the first reply).
    rater : str
        Rater name of the labels.
    prompt : str
        The judge's instructions (their digest is recorded and matched on reuse).
    model : str, default ""
        Judge model name, recorded with each reply.

    Attributes
    ----------
    path : Path
    entries : dict of str to dict
        The last journalled entry of each rollout key for this rater and prompt.
    n_other : int
        Journal lines of other raters or instructions (kept, not reused).

    Raises
    ------
    ValueError
        A journal line that is not a JSON object with ``rollout_key`` (file and line named).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "judge_journal.jsonl"
    >>> j = JudgeJournal(path, rater="judge", prompt="label L1-L4")
    >>> j.record("k1", '{"L1": 1, "L2": 0, "L3": 0, "L4": 1}')
    >>> j.record("k2", "I cannot tell")
    >>> again = JudgeJournal(path, rater="judge", prompt="label L1-L4")
    >>> again.missing(["k1", "k2", "k3"])
    ['k2', 'k3']
    >>> run = again.judge_run(["k1", "k2", "k3"])
    >>> len(run.labels), run.failures["kind"].tolist()
    (4, ['unparseable', 'not asked'])
    """

    def __init__(self, path: str | Path, *, rater: str, prompt: str, model: str = "") -> None:
        self.path = Path(path)
        self.rater = rater
        self.model = model
        self.digest = prompt_digest(prompt)
        self.entries: dict[str, dict[str, Any]] = {}
        self.n_other = 0
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        with open(self.path, encoding="utf-8") as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    entry = json.loads(raw)
                except json.JSONDecodeError:
                    if raw.endswith("\n"):
                        raise ValueError(f"{self.path}:{lineno}: not a JSON line (a judge "
                                         "journal line)") from None
                    break  # a torn last line of an interrupted write: that reply is lost
                if not isinstance(entry, dict) or not isinstance(entry.get("rollout_key"), str):
                    raise ValueError(f"{self.path}:{lineno}: field 'rollout_key': a judge "
                                     "journal line needs a string rollout_key")
                if entry.get("rater") == self.rater and entry.get("prompt_sha256") == self.digest:
                    self.entries[entry["rollout_key"]] = entry
                else:
                    self.n_other += 1

    def record(self, key: str, reply: str | BaseException) -> None:
        """Journal one reply (or the exception of a failed call) for rollout ``key``."""
        entry: dict[str, Any] = {"rollout_key": key, "rater": self.rater, "model": self.model,
                                 "prompt_sha256": self.digest, "labels": None, "failure": None,
                                 "reply": None}
        if isinstance(reply, BaseException):
            entry["failure"] = {"kind": "infrastructure",
                                "detail": f"{type(reply).__name__}: {reply}"}
        else:
            entry["reply"] = reply
            try:
                entry["labels"] = parse_judge_reply(reply)
            except ValueError as exc:
                entry["failure"] = {"kind": "unparseable", "detail": str(exc)}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.entries[key] = entry

    def labelled(self) -> set[str]:
        """Rollout keys with labels in the journal."""
        return {k for k, e in self.entries.items() if e.get("labels")}

    def missing(self, keys: Iterable[str]) -> list[str]:
        """The keys of ``keys`` without labels (never asked, failed, or unparseable)."""
        have = self.labelled()
        return [k for k in keys if k not in have]

    def judge_run(self, keys: Iterable[str]) -> JudgeRun:
        """Labels and failures of ``keys`` from the journal (a key never asked is a failure
        of kind ``not asked``)."""
        rows: list[dict[str, Any]] = []
        fails: list[dict[str, Any]] = []
        for key in keys:
            entry = self.entries.get(key)
            if entry is not None and entry.get("labels"):
                rows.extend({"item": key, "rater": self.rater, "category": s,
                             "label": int(entry["labels"][s])} for s in STAGES)
            elif entry is not None and entry.get("failure"):
                fails.append({"item": key, **entry["failure"]})
            else:
                fails.append({"item": key, "kind": "not asked", "detail": ""})
        return JudgeRun(pd.DataFrame(rows, columns=["item", "rater", "category", "label"]),
                        pd.DataFrame(fails, columns=["item", "kind", "detail"]))
