"""Reading tau2-bench leaderboard submissions into a table of entries.

One ``submission.json`` (the schema of ``tau2.scripts.leaderboard.submission.Submission``) or a
merged JSON object keyed by submission folder becomes a :class:`Leaderboard`: one row per
(submission, domain) with pass^1..4 as proportions (the files hold percentages). Errors name the
file, line, submission and field. The comparisons live in :mod:`noisefloor.leaderboard.gaps`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from noisefloor.results import FrozenResult
from noisefloor.stats import validation as _validate

#: Tasks per domain in tau2-bench's ``base`` split (data/tau2/domains/<d>/split_tasks.json;
#: banking_knowledge: its tasks.json), the split leaderboard submissions must run in full.
DOMAIN_TASKS = {"airline": 50, "retail": 114, "telecom": 114, "banking_knowledge": 97}
#: Leaderboard fields whose difference flags a comparison.
SETUP_FIELDS = ("tau2_bench_version", "user_simulator", "submission_type")
#: The schema's default when a submission does not state its type.
DEFAULT_SUBMISSION_TYPE = "standard"

ENTRY_COLUMNS = ("submission", "model_name", "model_organization", "submitting_organization",
                 "submission_date", "domain", "n_tasks", "pass_1", "pass_2", "pass_3", "pass_4",
                 "tau2_bench_version", "user_simulator", "submission_type", "reasoning_effort",
                 "modality", "source", "reason")


class LeaderboardError(ValueError):
    """A leaderboard file not readable as tau2-bench submissions (names file, line, field)."""


@dataclass(frozen=True)
class Leaderboard(FrozenResult):
    """Result of :func:`read_leaderboard`.

    Attributes
    ----------
    entries : pandas.DataFrame
        One row per (submission, domain) with a results block: columns :data:`ENTRY_COLUMNS`;
        ``pass_k`` are proportions, NaN when not reported (``reason`` says so).
    source : str
        The file read.
    n_submissions : int
        Submissions in the file.
    """

    entries: pd.DataFrame = field(repr=False)
    source: str
    n_submissions: int

    def domains(self) -> list[str]:
        """Domains with at least one entry, in :data:`DOMAIN_TASKS` order.

        Returns
        -------
        list of str

        Examples
        --------
        >>> b = leaderboard_from_submissions({"m": {"model_name": "M",
        ...                                         "results": {"retail": {"pass_1": 50.0}}}})
        >>> b.domains()
        ['retail']
        """
        present = set(self.entries["domain"])
        return [d for d in DOMAIN_TASKS if d in present]

    # hand-written: takes a domain and sorts by domain, then best pass^1
    def to_frame(self, domain: str | None = None) -> pd.DataFrame:
        """Entries (of one domain, or all), best pass^1 first within each domain.

        Parameters
        ----------
        domain : str, optional
            One of :data:`DOMAIN_TASKS`.

        Returns
        -------
        pandas.DataFrame
            Columns :data:`ENTRY_COLUMNS`.

        Raises
        ------
        ValueError
            If ``domain`` is not a leaderboard domain.

        Examples
        --------
        >>> b = leaderboard_from_submissions({"m": {"model_name": "M",
        ...                                         "results": {"retail": {"pass_1": 50.0}}}})
        >>> b.to_frame("retail")[["submission", "n_tasks", "pass_1"]].values.tolist()
        [['m', 114, 0.5]]
        """
        frame = self.entries
        if domain is not None:
            _validate.choice("domain", domain, tuple(DOMAIN_TASKS))
            frame = frame[frame["domain"] == domain]
        order = {d: i for i, d in enumerate(DOMAIN_TASKS)}
        return (frame.assign(_o=frame["domain"].map(order))
                .sort_values(["_o", "pass_1"], ascending=[True, False], na_position="last")
                .drop(columns="_o").reset_index(drop=True))

    # hand-written: entries in the sorted order of to_frame(), after the scalars
    def to_dict(self) -> dict:
        """``{"source", "n_submissions", "entries": [...]}``.

        Returns
        -------
        dict

        Examples
        --------
        >>> b = leaderboard_from_submissions({"m": {"model_name": "M",
        ...                                         "results": {"retail": {"pass_1": 50.0}}}})
        >>> b.to_dict()["n_submissions"]
        1
        """
        return {"source": self.source, "n_submissions": self.n_submissions,
                "entries": self.to_frame().to_dict(orient="records")}


def _key_lines(text: str) -> dict[str, int]:
    """Line of the first ``"key":`` of every key written in ``text`` (one linear pass)."""
    lines: dict[str, int] = {}
    line, pos = 1, 0
    for m in _KEY.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        lines.setdefault(m.group(1), line)
    return lines


_KEY = re.compile(r'"((?:[^"\\\n]|\\.)*)"\s*:')


class _LazyLines:
    """:func:`_key_lines` of a text, computed at the first error only."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: dict[str, int] | None = None

    def get(self, key: str) -> int:
        if self._lines is None:
            self._lines = _key_lines(self.text) if self.text else {}
        return self._lines.get(key, 1)


class _Where:
    """``FILE:LINE: submission 'ID'`` for an error message (the line found when shown)."""

    def __init__(self, source: str, lines: _LazyLines, sid: str) -> None:
        self.source, self.lines, self.sid = source, lines, sid

    def __format__(self, spec: str) -> str:
        return f"{self.source}:{self.lines.get(self.sid)}: submission {self.sid!r}"

    __str__ = __repr__ = lambda self: self.__format__("")


def _no_duplicate_keys(source: Path, text: str):
    def hook(pairs: list) -> dict:
        out = dict(pairs)
        if len(out) != len(pairs):
            counts: dict = {}
            for k, _ in pairs:
                counts[k] = counts.get(k, 0) + 1
            dup = next(k for k, c in counts.items() if c > 1)
            found = list(re.finditer(r'"' + re.escape(dup) + r'"\s*:', text))[:2]
            line = text.count("\n", 0, found[-1].start()) + 1 if found else 1
            raise LeaderboardError(f"{source}:{line}: key {dup!r} "
                                   "occurs twice in one object (a JSON reader would keep only "
                                   "the last)")
        return out
    return hook


def read_leaderboard(path) -> Leaderboard:
    """Read tau2-bench leaderboard submissions (a merged file or one ``submission.json``).

    Parameters
    ----------
    path : str or pathlib.Path
        A JSON object keyed by submission folder whose values are submissions, or a single
        submission (an object with ``model_name`` and ``results``); its submission id is then
        the name of the folder holding it (or the file's stem).

    Returns
    -------
    Leaderboard

    Raises
    ------
    LeaderboardError
        On invalid JSON, a submission without ``model_name`` or ``results``, an unknown domain,
        or a pass^k that is not a percentage in [0, 100]; the message names the file, the line
        of the submission and the field.
    FileNotFoundError
        If ``path`` does not exist.

    Examples
    --------
    >>> import json, os, tempfile
    >>> sub = {"model_name": "M", "model_organization": "O", "submitting_organization": "O",
    ...        "submission_date": "2026-01-01", "results": {"airline": {"pass_1": 64.0}},
    ...        "methodology": {"tau2_bench_version": "1.0.1", "user_simulator": "gpt-4.1"}}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "submission.json")
    ...     _ = open(p, "w").write(json.dumps(sub))
    ...     lb = read_leaderboard(p)
    >>> lb.entries[["domain", "n_tasks", "pass_1"]].values.tolist()
    [['airline', 50, 0.64]]
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise LeaderboardError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})"
                               ) from None
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys(p, text))
    except RecursionError:
        raise LeaderboardError(f"{p}: the JSON nests too deeply") from None
    except json.JSONDecodeError as exc:
        raise LeaderboardError(f"{p}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise LeaderboardError(f"{p}:1: expected a JSON object (one submission, or submissions "
                               f"keyed by folder); got a {type(data).__name__}")
    if "model_name" in data or "results" in data:
        sid = p.parent.name if p.name == "submission.json" and p.parent.name else p.stem
        data = {sid: data}
    return leaderboard_from_submissions(data, source=str(p), text=text)


def leaderboard_from_submissions(subs: dict, *, source: str = "<submissions>",
                                 text: str = "") -> Leaderboard:
    """Build a :class:`Leaderboard` from submission dicts keyed by submission id.

    Parameters
    ----------
    subs : dict of str to dict
        Submission id -> a tau2-bench submission (``model_name``, ``results``, ...).
    source : str, optional
        Named in errors and recorded in the result.
    text : str, optional
        The JSON text ``subs`` was parsed from, to name the line of a bad submission.

    Returns
    -------
    Leaderboard

    Raises
    ------
    LeaderboardError
        As :func:`read_leaderboard`.

    Examples
    --------
    >>> sub = lambda name, p1, sim: {"model_name": name, "results": {"airline": {"pass_1": p1}},
    ...                              "methodology": {"tau2_bench_version": "1.0.1",
    ...                                              "user_simulator": sim}}
    >>> board = leaderboard_from_submissions({"m_a": sub("M", 70.0, "gpt-4.1"),
    ...                                       "m_b": sub("M", 72.0, "gpt-5.2"),
    ...                                       "n_a": sub("N", 60.0, "gpt-4.1")})
    >>> board.domains(), board.to_frame("airline")["submission"].tolist()
    (['airline'], ['m_b', 'm_a', 'n_a'])
    >>> sorted(board.to_dict())
    ['entries', 'n_submissions', 'source']
    """
    rows = []
    lines = _LazyLines(text if len(subs) > 1 else "")
    for sid, sub in subs.items():
        where = _Where(source, lines, sid)
        if not isinstance(sub, dict):
            raise LeaderboardError(f"{where}: expected a submission object; got "
                                   f"{type(sub).__name__}")
        for need in ("model_name", "results"):
            if need not in sub:
                raise LeaderboardError(f"{where}: field {need!r} is missing (a tau2-bench "
                                       "submission has model_name and results)")
        entries = list(_entries(sid, sub, where, source))
        shown = [(e["domain"], k, e[f"pass_{k}"] * 100) for e in entries for k in range(1, 5)
                 if not math.isnan(e[f"pass_{k}"])]
        if shown and max(v for *_, v in shown) <= 1 + 1e-9 \
                and any(1e-9 < v < 1 - 1e-9 for *_, v in shown):
            domain, k, v = next(x for x in shown if 1e-9 < x[2] < 1 - 1e-9)
            raise LeaderboardError(
                f"{where}: field results.{domain}.pass_{k}: {v:.6g} and every other pass^k of "
                "this submission are at most 1: they look like proportions, but a leaderboard "
                f"file holds percentages (write {v:.6g} as {v * 100:.6g})")
        rows.extend(entries)
    return Leaderboard(pd.DataFrame(rows, columns=list(ENTRY_COLUMNS)), source, len(subs))


def _entries(sid, sub, where, source):
    meta = sub.get("methodology") or {}
    results = sub["results"]
    if not isinstance(results, dict):
        raise LeaderboardError(f"{where}: field 'results' must be an object keyed by domain")
    for domain, block in results.items():
        if domain not in DOMAIN_TASKS:
            raise LeaderboardError(f"{where}: field results.{domain}: unknown domain; expected "
                                   f"one of {', '.join(DOMAIN_TASKS)}")
        if block is None:
            continue  # the schema's "no results for this domain"
        if not isinstance(block, dict):
            raise LeaderboardError(f"{where}: field results.{domain} must be an object or null")
        values = {}
        for k in range(1, 5):
            v = block.get(f"pass_{k}")
            if v is None:
                values[f"pass_{k}"] = math.nan
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 100:
                raise LeaderboardError(f"{where}: field results.{domain}.pass_{k}: expected a "
                                       f"percentage in [0, 100] or null; got {v!r}")
            values[f"pass_{k}"] = float(v) / 100.0
        reason = "" if not math.isnan(values["pass_1"]) else "pass_1 not reported"
        yield {
            "submission": sid, "model_name": str(sub["model_name"]),
            "model_organization": sub.get("model_organization", ""),
            "submitting_organization": sub.get("submitting_organization", ""),
            "submission_date": sub.get("submission_date", ""), "domain": domain,
            "n_tasks": DOMAIN_TASKS[domain], **values,
            "tau2_bench_version": meta.get("tau2_bench_version"),
            "user_simulator": meta.get("user_simulator"),
            "submission_type": sub.get("submission_type") or DEFAULT_SUBMISSION_TYPE,
            "reasoning_effort": sub.get("reasoning_effort"),
            "modality": sub.get("modality") or "text", "source": source, "reason": reason,
        }


def _version(v) -> str | None:
    return None if v is None else str(v).strip().lower().lstrip("v")


def _stated(v) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))
