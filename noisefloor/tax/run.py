"""Reading a collaboration-tax run: trial records plus transcripts, checked field by field.

A run directory holds ``trials.jsonl`` (one noisefloor :class:`~noisefloor.logs.TrialRecord`
per rollout, as ``noisefloor tax run`` writes it) and ``transcripts/`` (JSONL, one line per
message event). :func:`read_run` loads the records with :func:`noisefloor.logs.load_trials`
and checks the tax-specific fields of ``extra``; :func:`read_transcripts` fetches the message
events of given rollouts, from one file per rollout or from shard files filtered by
``rollout_key``. Every problem names the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd

from noisefloor.logs import load_trials
from noisefloor.results import FrozenResult
from noisefloor.stats.validation import MentionError, literal
from noisefloor.tax.layout import JOURNAL_FILE, TRIALS_STAMP_FILE, path_inside

__all__ = ["AGENTS", "EXTRACTIONS", "MODES", "SUCCESS_TOLERANCE", "TaxRun", "TaxRunError", "read_run",
           "read_transcripts", "rebuild_stale_runs"]

#: Rollout modes of the tax runner.
MODES = ("solo", "pair", "split_solo_a", "split_solo_b")
#: A rollout succeeded when its reward is within this of 1 (the pass^k convention).
SUCCESS_TOLERANCE = 1e-6
_REQUIRED_EXTRA = ("task", "family", "mode", "model_a", "model_b", "prompt_variant",
                   "rollout_key", "transcript")
_OPTIONAL_EXTRA = ("difficulty", "instance_seed", "started_by", "turns", "tokens_in",
                   "tokens_out", "cost_usd", "latency_s", "retries")
#: Who writes a transcript event: the two agents of a pair, a solo agent, the grader model
#: that rewrites an unreadable answer (``--extractor-model``) and a cascade judge.
AGENTS = ("a", "b", "solo", "extractor", "judge")
#: How a rollout's answer was read (``extra.extraction``; older records without it read as
#: ``unknown``): see :func:`harness.runner.dialogue.run_rollout`.
EXTRACTIONS = ("parse", "llm", "unreadable", "none", "unknown")
_ROLES = ("system", "user", "assistant")
#: Optional extra fields carried into the rollouts table (None where a record lacks them).
_READ_OPTIONAL = ("started_by", "turns", "extraction", "tokens_in", "tokens_out", "cost_usd",
                  "token_cap")


class TaxRunError(MentionError):
    """A bad tax record or transcript line; the message names the file, line and field.

    ``message`` is plain text; ``hint`` (optional) may mention parameters as ``{name}`` or
    ``{name=value}`` (:class:`~noisefloor.stats.validation.MentionError`): ``missing='omit'``
    in Python, ``--missing-transcripts omit`` on the command line.
    """

    def __init__(self, path: str | Path, line: int | None, field: str, message: str,
                 hint: str = "") -> None:
        self.path, self.line, self.field = str(path), line, field
        where = f"{path}:{line}" if line is not None else str(path)
        self._args = (str(path), line, field, message, hint)
        super().__init__(literal(f"{where}: field {field!r}: {message}") + hint)

    def __reduce__(self):
        return (type(self), self._args)


@dataclass(frozen=True)
class TaxRun(FrozenResult):
    """The rollouts of one or more tax runs.

    Attributes
    ----------
    rollouts : pandas.DataFrame
        One row per rollout: ``model`` (record model; ``"A+B"`` for a mixed pair), ``model_a``,
        ``model_b`` (None for solo modes), ``mode``, ``variant`` (``"baseline"`` or the prompt
        variant), ``mixed`` (bool), ``task``, ``family``, ``instance`` (the record's
        ``task_id``), ``trial``, ``reward`` (NaN for an infrastructure error),
        ``infrastructure_error``, ``success`` (reward within 1e-6 of 1; NA when no reward),
        ``termination_reason``, ``rollout_key``, ``transcript`` (absolute path), ``turns``,
        ``started_by``, ``extraction`` (how the answer was read: one of :data:`EXTRACTIONS`),
        ``tokens`` (input + output tokens of every request, NaN without usage), ``cost_usd``
        (NaN when a price is unknown), ``token_cap`` (the solo control's token cap under matched
        spend, NaN without one), ``source`` and ``line`` (record's file and line).
    sources : tuple of str
        The ``trials.jsonl`` files read.
    n_infrastructure_errors : int
        Rollouts without a reward (endpoint or harness failures): kept in ``rollouts``, left out
        of every mean and counted in every table that could have used them.
    """

    _frame_field = "rollouts"

    rollouts: pd.DataFrame
    sources: tuple
    n_infrastructure_errors: int

    @property
    def families(self) -> tuple[str, ...]:
        """Families present, in the paper's order (spatial, relational, csp) then others."""
        order = {"spatial": 0, "relational": 1, "csp": 2}
        return tuple(sorted(self.rollouts["family"].unique(), key=lambda f: (order.get(f, 9), f)))


def trials_behind_journal(trials: str | Path) -> str | None:
    """Why ``trials.jsonl`` is older than the runner's journal beside it, or None.

    The runner notes in ``.trials.stamp`` the size of ``journal.ndjson`` the records were
    built from; a journal that grew since (a run interrupted before it rebuilt the records)
    makes the records stale. A file without a journal beside it is not a runner's file and is
    never stale.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "trials.jsonl").write_text("")
    >>> print(trials_behind_journal(d / "trials.jsonl"))
    None
    >>> _ = (d / "journal.ndjson").write_text('{"key": "k"}\\n')
    >>> _ = (d / ".trials.stamp").write_text("0 s1")
    >>> trials_behind_journal(d / "trials.jsonl").split(": ", 1)[1]
    'older than its journal (built from 0 bytes of journal.ndjson, which now holds 13)'
    """
    trials = Path(trials)
    journal = trials.parent / JOURNAL_FILE
    try:
        size = journal.stat().st_size
    except FileNotFoundError:
        return None
    try:
        built = int((trials.parent / TRIALS_STAMP_FILE).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        built = None
    if built == size:
        return None
    what = ("with no note of the journal it was built from" if built is None
            else f"built from {built:,} bytes of {JOURNAL_FILE}, which now holds {size:,}")
    return f"{trials}: older than its journal ({what})"


def rebuild_stale_runs(paths: str | Path | Sequence[str | Path],
                       rebuild: Callable[[Path], tuple[int | None, int]]) -> tuple[str, ...]:
    """Rebuild the records of every run whose ``trials.jsonl`` is older than its journal.

    Parameters
    ----------
    paths : path or sequence of paths
        Run directories or ``trials.jsonl`` files, as for :func:`read_run`.
    rebuild : callable
        ``rebuild(run_dir) -> (records before or None, records after)``: the runner's
        :func:`harness.runner.journal.rebuild_trials` (the analysis does not import the runner).

    Returns
    -------
    tuple of str
        One note per run rebuilt (why it was stale, the records before and after); empty when
        every run was current.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "trials.jsonl").write_text("")
    >>> rebuild_stale_runs(d, lambda run_dir: (0, 0))
    ()
    """
    notes = []
    for log in [paths] if isinstance(paths, (str, Path)) else paths:
        path = Path(log)
        trials = path / "trials.jsonl" if path.is_dir() else path
        stale = trials_behind_journal(trials) if trials.exists() or path.is_dir() else None
        if stale is None:
            continue
        before, after = rebuild(trials.parent)
        held = "no file" if before is None else f"{before:,} records"
        notes.append(f"{stale}; rebuilt it from the journal: {after:,} records (it held {held})")
    return tuple(notes)


def _trials_file(path: Path) -> Path:
    if path.is_dir():
        f = path / "trials.jsonl"
        if not f.exists():
            raise FileNotFoundError(f"{path}: a tax run directory must hold trials.jsonl")
    elif not path.exists():
        raise FileNotFoundError(f"{path}: no such file or directory")
    else:
        f = path
    stale = trials_behind_journal(f)
    if stale:
        raise TaxRunError(f, None, "trials", stale.split(": ", 1)[1] + ": a run was "
                          "interrupted before it rebuilt its records; rebuild them from the "
                          "journal first (harness.runner.journal.rebuild_trials; noisefloor tax "
                          "report and tax run do it)")
    return f


def read_run(paths: str | Path | Sequence[str | Path]) -> TaxRun:
    """Read the records of tax runs and check their tax fields.

    Parameters
    ----------
    paths : path or sequence of paths
        Run directories (holding ``trials.jsonl``) or ``trials.jsonl`` files. Transcript paths
        in ``extra.transcript`` are relative to the file's directory.

    Returns
    -------
    TaxRun

    Raises
    ------
    noisefloor.logs.LogValidationError
        A record that is not a valid trial record (from :func:`noisefloor.logs.load_trials`).
    TaxRunError
        The same rollout key in two files (a run given twice); a record whose ``extra`` lacks
        a tax field, whose ``protocol`` disagrees with
        ``extra.mode`` / ``extra.prompt_variant``, whose benchmark is not ``tax/<task>`` of
        ``extra.task``, or a pair whose ``model`` is not ``model_a`` (same-model pair) or
        ``"model_a+model_b"`` (mixed pair).
    FileNotFoundError
        A path that does not exist or a directory without ``trials.jsonl``.

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, tasks=[("csp_sudoku4", "csp")], n_instances=2)
    >>> run = read_run(d)
    >>> sorted(run.rollouts["mode"].unique()), len(run.rollouts)
    (['pair', 'solo', 'split_solo_a'], 18)
    """
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not items:
        raise ValueError("paths must name at least one tax run directory or trials.jsonl")
    files = [_trials_file(Path(p)) for p in items]
    frames = []
    for f in files:
        trials = load_trials(f, format="jsonl")
        if len(trials):
            frames.append(_tax_columns(trials, f))
    if not frames:
        raise TaxRunError(files[0], None, "trials", "the run holds no records (no rollout "
                          "has finished yet, or the file is empty)")
    df = pd.concat(frames, ignore_index=True)
    dup = df.duplicated("rollout_key", keep=False).to_numpy()
    if dup.any():  # the same rollout in two of the files (a run or shard given twice)
        rows = df[dup & (df["rollout_key"] == df.loc[dup, "rollout_key"].iloc[0]).to_numpy()]
        first, second = rows.iloc[0], rows.iloc[1]
        raise TaxRunError(second["source"], int(second["line"]), "extra.rollout_key",
                          f"{second['rollout_key']!r} was already read at {first['source']}:"
                          f"{first['line']}: the same rollout would be counted twice (a run "
                          "directory or shard given twice? merge shards with noisefloor tax "
                          "merge)")
    if df.empty:
        raise TaxRunError(files[0], None, "trials", "the run holds no records")
    return TaxRun(rollouts=df, sources=tuple(str(f) for f in files),
                  n_infrastructure_errors=int(df["infrastructure_error"].sum()))


def _tax_columns(trials: pd.DataFrame, path: Path) -> pd.DataFrame:
    root = path.parent
    extras = trials["extra"].tolist()
    lines = trials["line"].to_numpy()
    cols: dict[str, list] = {k: [] for k in _REQUIRED_EXTRA + _READ_OPTIONAL}
    for extra, line in zip(extras, lines):
        if not isinstance(extra, dict):
            raise TaxRunError(path, int(line), "extra", "a tax record needs an extra object with "
                              f"{', '.join(_REQUIRED_EXTRA)}")
        rel = extra.get("transcript")
        if isinstance(rel, str) and not path_inside(rel):
            raise TaxRunError(path, int(line), "extra.transcript",
                              f"{rel!r} is not a path inside the run folder {root}")
        for k in _REQUIRED_EXTRA:
            if k not in extra:
                raise TaxRunError(path, int(line), f"extra.{k}",
                                  f"missing (a tax record's extra needs {', '.join(_REQUIRED_EXTRA)})")
        for k in cols:
            cols[k].append(extra.get(k))
    out = pd.DataFrame({
        "model": trials["model"].astype(object).to_numpy(),
        "model_a": cols["model_a"], "model_b": cols["model_b"],
        "mode": cols["mode"], "variant": cols["prompt_variant"],
        "task": cols["task"], "family": cols["family"],
        "instance": trials["task_id"].astype(object).to_numpy(),
        "trial": trials["trial"].to_numpy(),
        "reward": trials["reward"].to_numpy(dtype=float),
        "infrastructure_error": trials["infrastructure_error"].to_numpy(dtype=bool),
        "termination_reason": trials["termination_reason"].astype(object).to_numpy(),
        "rollout_key": cols["rollout_key"],
        "transcript": [str(root / t) if isinstance(t, str) else None for t in cols["transcript"]],
        "turns": pd.array(cols["turns"], dtype="Int64") if all(
            t is None or isinstance(t, int) for t in cols["turns"]) else cols["turns"],
        "started_by": cols["started_by"],
        "extraction": [e if isinstance(e, str) else "unknown" for e in cols["extraction"]],
        "tokens": [_total_tokens(i, o) for i, o in zip(cols["tokens_in"], cols["tokens_out"])],
        "cost_usd": [float(c) if isinstance(c, (int, float)) and not isinstance(c, bool)
                     else np.nan for c in cols["cost_usd"]],
        "token_cap": [float(c) if isinstance(c, int) and not isinstance(c, bool) else np.nan
                      for c in cols["token_cap"]],
        "source": str(path), "line": lines,
    })
    _check_fields(out, trials, path)
    ok = np.isfinite(out["reward"].to_numpy())
    succ = pd.array([bool(r >= 1 - SUCCESS_TOLERANCE) if o else None
                     for r, o in zip(out["reward"], ok)], dtype="boolean")
    out["success"] = succ
    out["mixed"] = (out["mode"] == "pair") & (out["model_a"] != out["model_b"])
    return out


def _total_tokens(tokens_in: Any, tokens_out: Any) -> float:
    """Input plus output tokens of a rollout; NaN when an endpoint reported no usage."""
    ok = all(isinstance(t, int) and not isinstance(t, bool) for t in (tokens_in, tokens_out))
    return float(tokens_in + tokens_out) if ok else np.nan


def _fail(path: Path, rows: pd.DataFrame, mask: np.ndarray, field: str, message) -> None:
    if mask.any():
        i = int(np.flatnonzero(mask)[0])
        row = rows.iloc[i]
        raise TaxRunError(path, int(row["line"]), field,
                          message(row) if callable(message) else message)


def _check_fields(out: pd.DataFrame, trials: pd.DataFrame, path: Path) -> None:
    for k in ("task", "family", "mode", "prompt_variant", "rollout_key", "transcript"):
        col = "variant" if k == "prompt_variant" else k
        bad = np.array([not (isinstance(v, str) and v) for v in out[col]])
        _fail(path, out, bad, f"extra.{k}", "must be a non-empty string")
    bad = ~out["mode"].isin(MODES).to_numpy()
    _fail(path, out, bad, "extra.mode", lambda r: f"must be one of {', '.join(MODES)}, got "
          f"{r['mode']!r}")
    expect = np.where(out["variant"] == "baseline", out["mode"], out["mode"] + "+" + out["variant"])
    bad = trials["protocol"].astype(object).to_numpy() != expect
    _fail(path, out, bad, "protocol", lambda r: (
        f"disagrees with extra.mode {r['mode']!r} and extra.prompt_variant {r['variant']!r} "
        f"(expected {r['mode'] if r['variant'] == 'baseline' else r['mode'] + '+' + r['variant']!r})"))
    bad = trials["benchmark"].astype(object).to_numpy() != ("tax/" + out["task"]).to_numpy()
    _fail(path, out, bad, "benchmark", lambda r: f"must be 'tax/{r['task']}' (extra.task)")
    ma = np.array([isinstance(v, str) and bool(v) for v in out["model_a"]])
    _fail(path, out, ~ma, "extra.model_a", "must be a non-empty string")
    pair = (out["mode"] == "pair").to_numpy()
    mb_ok = np.array([isinstance(v, str) and bool(v) for v in out["model_b"]])
    _fail(path, out, pair & ~mb_ok, "extra.model_b", "a pair rollout needs model_b")
    same = pair & (out["model_a"] == out["model_b"]).to_numpy()
    _fail(path, out, same & (out["model"] != out["model_a"]).to_numpy(), "model",
          lambda r: f"a same-model pair's model must be {r['model_a']!r}, got {r['model']!r}")
    mixed = pair & ~same
    want = out["model_a"].astype(str) + "+" + out["model_b"].astype(str)
    _fail(path, out, mixed & (out["model"] != want).to_numpy(), "model",
          lambda r: f"a mixed pair's model must be '{r['model_a']}+{r['model_b']}' (slot order), "
          f"got {r['model']!r}")
    solo = ~pair
    _fail(path, out, solo & (out["model"] != out["model_a"]).to_numpy(), "model",
          lambda r: f"a {r['mode']} rollout's model must be extra.model_a {r['model_a']!r}")
    dup = out.duplicated("rollout_key", keep=False).to_numpy()
    _fail(path, out, dup, "extra.rollout_key",
          lambda r: f"{r['rollout_key']!r} is used by more than one record")


def read_transcripts(
    run: TaxRun, keys: Iterable[str] | None = None, *, missing: str = "error",
) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """Message events of rollouts, in dialogue order, from their transcript files.

    Parameters
    ----------
    run : TaxRun
    keys : iterable of str or None, default None
        Rollout keys to fetch; None fetches every rollout with a reward.
    missing : {"error", "omit"}, default "error"
        A rollout whose transcript file is absent or holds no event with its key: raise, or
        leave it out of the result and list its key in the second return value.

    Returns
    -------
    (events, missing_keys) : (dict of str to list of dict, list of str)
        ``events[key]`` is the list of event dicts (``seq``, ``agent``, ``role``, ``content``,
        ``model``, ...) sorted by ``seq``.

    Raises
    ------
    TaxRunError
        A transcript line that is not JSON or lacks a field (file, line and field named); with
        ``missing="error"``, a rollout without a transcript (its record's file and line named,
        and the transcript path it points to).

    Examples
    --------
    >>> import tempfile
    >>> from noisefloor.tax.synthetic import write_synthetic_run
    >>> d = tempfile.mkdtemp()
    >>> _ = write_synthetic_run(d, models={"m": 0.9}, tasks=[("csp_sudoku4", "csp")],
    ...                         n_instances=1, modes=("pair",))
    >>> run = read_run(d)
    >>> events, missing = read_transcripts(run)
    >>> [e["role"] for e in events["m|pair|csp_sudoku4:0|0"]][:3], missing
    (['system', 'system', 'assistant'], [])
    """
    if missing not in ("error", "omit"):
        raise ValueError(f"missing must be 'error' or 'omit', got {missing!r}")
    df = run.rollouts
    if keys is None:
        sel = df[~df["infrastructure_error"]]
    else:
        wanted = set(keys)
        sel = df[df["rollout_key"].isin(wanted)]
    events: dict[str, list[dict[str, Any]]] = {}
    for path, group in sel.groupby("transcript", sort=False):
        want = set(group["rollout_key"])
        p = Path(str(path))
        if not p.exists():
            if missing == "error":
                row = group.iloc[0]
                raise TaxRunError(row["source"], int(row["line"]), "extra.transcript",
                                  f"transcript file {path} does not exist")
            continue
        with open(p, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    ev = orjson.loads(raw)
                except orjson.JSONDecodeError as exc:
                    raise TaxRunError(p, lineno, "line", f"not valid JSON ({exc})") from None
                key = ev.get("rollout_key") if isinstance(ev, dict) else None
                if not isinstance(key, str):
                    raise TaxRunError(p, lineno, "rollout_key", "each event needs a string "
                                      "rollout_key")
                if key not in want:
                    continue
                for f in ("seq", "agent", "role", "content"):
                    if f not in ev:
                        raise TaxRunError(p, lineno, f, "missing (an event needs rollout_key, "
                                          "seq, agent, role, content, model)")
                if ev["agent"] not in AGENTS:
                    raise TaxRunError(p, lineno, "agent", f"must be one of {', '.join(AGENTS)};"
                                      f" got {ev['agent']!r}")
                if ev["role"] not in _ROLES:
                    raise TaxRunError(p, lineno, "role", f"must be system, user or assistant; "
                                      f"got {ev['role']!r}")
                if not isinstance(ev["content"], str):
                    raise TaxRunError(p, lineno, "content", "must be a string")
                events.setdefault(key, []).append(ev)
    missing_keys = [k for k in sel["rollout_key"] if k not in events]
    if missing_keys and missing == "error":
        row = sel[sel["rollout_key"] == missing_keys[0]].iloc[0]
        raise TaxRunError(row["source"], int(row["line"]), "extra.transcript",
                          f"no events with rollout_key {missing_keys[0]!r} in {row['transcript']}"
                          f" ({len(missing_keys)} rollout(s) without a transcript; ",
                          hint="pass {missing='omit'} to leave them out and list them)")
    for v in events.values():
        v.sort(key=lambda e: e["seq"])
    return events, missing_keys
