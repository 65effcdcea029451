"""Runs as contrast arms: each log given is one run, with an optional label naming its arm.

:func:`~noisefloor.logs.load_trials` refuses two records with one trial key (benchmark, model,
protocol, seed, task, trial) as a trial counted twice. Two *runs* of one configuration share
every key (tau2-bench's default seed is 300, so repeat runs share it too), yet they are not
duplicates: each is a sample of the same configuration. :func:`load_runs` reads each path given
as its own run (a file, a tau2-bench run directory, or a folder of logs), refuses repeats
within a run as before, and keeps runs apart with a ``run`` column, so two runs of one
configuration become two arms (``protocol@run``, see :func:`noisefloor.nulls.arm_labels`). A
label given with a path (``runA.json=baseline``) names that run's arm: it replaces the
protocol of every record of the run (the protocol the log itself gave stays in
``logged_protocol``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from noisefloor.logs.detect import expand_paths
from noisefloor.logs.load import load_trials

__all__ = ["load_runs", "parse_log_spec", "run_names"]

PathLike = str | Path


def parse_log_spec(text: str) -> tuple[str, str | None]:
    """Split ``"PATH=LABEL"`` into the path and the label (None without ``=LABEL``).

    A text that is itself an existing path is a path, even if it contains ``=``; otherwise it
    is split at its last ``=``.

    Raises
    ------
    ValueError
        An empty label (``"run.json="``) or an empty path.

    Examples
    --------
    >>> parse_log_spec("runs/a.json=baseline"), parse_log_spec("runs/a.json")
    (('runs/a.json', 'baseline'), ('runs/a.json', None))
    """
    if Path(text).exists() or "=" not in text:
        return text, None
    path, label = text.rsplit("=", 1)
    if not path or not label:
        raise ValueError(f"a labelled log is written PATH=LABEL (e.g. 'runA.json=baseline'), got "
                         f"{text!r}")
    return path, label


def _spec(item: Any) -> tuple[Path, str | None]:
    if isinstance(item, tuple):
        if len(item) != 2:
            raise ValueError(f"a log is a path or a (path, label) pair, got {item!r}")
        path, label = item
        if label is not None and (not isinstance(label, str) or not label):
            raise ValueError(f"the label of log {path} must be a non-empty string or None, got "
                             f"{label!r}")
        return Path(path), label
    if isinstance(item, str):
        path, label = parse_log_spec(item)
        return Path(path), label
    if isinstance(item, Path):
        return item, None
    raise ValueError(f"a log is a path or a (path, label) pair, got {item!r}")


def _base_name(path: Path) -> str:
    if path.name == "results.json" or path.is_dir():
        return (path.parent.name if path.name == "results.json" else path.name) or str(path)
    return path.stem or str(path)


def run_names(paths: Sequence[PathLike]) -> list[str]:
    """Short distinct names of runs: the file stem (a tau2 run: its directory's name), or
    the path as given when two runs would share a name.

    Examples
    --------
    >>> run_names(["x/runA/results.json", "x/runB.json", "y/no_coord/trials.jsonl"])
    ['runA', 'runB', 'trials']
    >>> run_names(["p/no_coord/trials.jsonl", "p/pull/trials.jsonl"])
    ['p/no_coord/trials.jsonl', 'p/pull/trials.jsonl']
    """
    base = [_base_name(Path(p)) for p in paths]
    return [b if base.count(b) == 1 else str(p) for b, p in zip(base, paths)]


def load_runs(
    logs: PathLike | tuple | Sequence[Any], *, format: str | None = None,
    allow_nan: bool = False, benchmark: str | None = None, model: str | None = None,
    protocol: str | None = None,
) -> pd.DataFrame:
    """Load logs, each path one run, into one trial DataFrame with ``run`` and
    ``logged_protocol`` columns.

    Parameters
    ----------
    logs : path, (path, label), ``"PATH=LABEL"``, or a sequence of them
        Each item is one run: a file, a tau2-bench run directory, or a folder of logs. A label
        names the run's arm: it replaces the protocol of every record of that run. A string
        is read by :func:`parse_log_spec`.
    format, allow_nan, benchmark, model, protocol
        As in :func:`~noisefloor.logs.load_trials`, for every run (``protocol`` only for runs
        without a label).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`~noisefloor.logs.load_trials`, then ``run`` (str: the run's name,
        :func:`run_names`) and ``logged_protocol`` (str: the protocol before any label).
        ``attrs["sources"]`` lists the files read, ``attrs["truncated"]`` the truncated lines.

    Raises
    ------
    LogValidationError
        As :func:`~noisefloor.logs.load_trials` within each run (a trial key repeated inside
        one run is still a duplicate), or one file reached by two of the paths given.
    ValueError
        A label given for a run holding records of more than one protocol, or a bad item.

    Examples
    --------
    >>> import json, os, tempfile
    >>> rec = {"schema_version": "1", "benchmark": "b", "model": "m", "protocol": "p",
    ...        "seed": 300, "task_id": "1", "trial": 0, "reward": 1.0,
    ...        "termination_reason": None, "infrastructure_error": False}
    >>> d = tempfile.mkdtemp()
    >>> for name in ("runA.jsonl", "runB.jsonl"):
    ...     with open(os.path.join(d, name), "w") as f:
    ...         _ = f.write(json.dumps(rec) + "\\n")
    >>> t = load_runs([(os.path.join(d, "runA.jsonl"), "baseline"), os.path.join(d, "runB.jsonl")])
    >>> t[["protocol", "logged_protocol", "run", "seed"]].to_dict("records")
    [{'protocol': 'baseline', 'logged_protocol': 'p', 'run': 'runA', 'seed': 300}, {'protocol': 'p', 'logged_protocol': 'p', 'run': 'runB', 'seed': 300}]
    """
    items = [logs] if isinstance(logs, (str, Path, tuple)) else list(logs)
    if not items:
        raise ValueError("logs must name at least one path")
    specs = [_spec(x) for x in items]
    expand_paths([p for p, _ in specs])  # a file reached twice is named before reading
    names = run_names([p for p, _ in specs])
    frames, sources, truncated = [], [], []
    for (path, label), name in zip(specs, names):
        frame = load_trials(path, format=format, allow_nan=allow_nan, benchmark=benchmark,
                            model=model, protocol=protocol if label is None else None)
        sources.extend(frame.attrs.get("sources", []))
        truncated.extend(frame.attrs.get("truncated", []))
        frame["logged_protocol"] = frame["protocol"]
        if label is not None:
            held = sorted(map(str, frame["protocol"].dropna().unique()))
            if len(held) > 1:
                raise ValueError(
                    f"{path}: label {label!r} names one arm, but the log holds records of "
                    f"{len(held)} protocols ({', '.join(held)}); give each protocol's file its "
                    "own label, or no label")
            frame["protocol"] = pd.Series([label] * len(frame), index=frame.index,
                                          dtype=frame["logged_protocol"].dtype)
        frame["run"] = pd.Series([name] * len(frame), index=frame.index, dtype="str")
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    out.attrs = {"sources": sources, "truncated": truncated}
    return out
