"""Log specifications: each log given is one run, with an optional label naming its arm.

A log is given as a path, a ``(path, label)`` pair or the text ``"PATH=LABEL"``
(:func:`parse_log_spec`); :func:`run_specs` normalises any of them, :func:`run_names` gives
the runs short distinct names. :func:`noisefloor.logs.load_trials` reads each as its own run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["log_sources", "logs_given", "parse_log_spec", "run_names", "run_specs"]

PathLike = str | Path


def logs_given(logs: Any) -> bool:
    """Whether logs were given: a DataFrame counts, however long (its truth value is
    ambiguous), a path or a non-empty sequence of them counts, ``None`` and ``()`` do not.

    Examples
    --------
    >>> import pandas as pd
    >>> logs_given(pd.DataFrame()), logs_given(["a.jsonl"]), logs_given(()), logs_given(None)
    (True, True, False, False)
    """
    import pandas as pd

    return isinstance(logs, pd.DataFrame) or bool(logs)


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


def run_specs(logs: Any) -> list[tuple[Path, str | None]]:
    """``logs`` (a path, a ``(path, label)`` pair, ``"PATH=LABEL"``, or a sequence of them) as
    a list of ``(path, label)``, one per run.

    Raises
    ------
    ValueError
        No log, a bad item, or an empty label.

    Examples
    --------
    >>> run_specs("a.jsonl=base"), run_specs([("b.json", None)])
    ([(PosixPath('a.jsonl'), 'base')], [(PosixPath('b.json'), None)])
    """
    items = [logs] if isinstance(logs, (str, Path, tuple)) else list(logs)
    if not items:
        raise ValueError("logs must name at least one path")
    return [_spec(x) for x in items]


def log_sources(logs: Any, trials: Any = None) -> tuple[str, ...]:
    """The logs as a user named them: each path as given, ``PATH=LABEL`` when labelled.

    Parameters
    ----------
    logs : path, ``"PATH=LABEL"``, (path, label), a sequence of them, or a pandas.DataFrame
        What a reader was given.
    trials : pandas.DataFrame, optional
        The trials read; for a DataFrame ``logs``, its ``source`` column names the files.

    Returns
    -------
    tuple of str
        Empty for a trial frame that records no source.

    Examples
    --------
    >>> log_sources(["a.jsonl", ("b.jsonl", "base")])
    ('a.jsonl', 'b.jsonl=base')
    """
    import pandas as pd

    if isinstance(logs, pd.DataFrame):
        frame = logs if trials is None else trials
        return tuple(map(str, frame["source"].unique())) if "source" in frame.columns else ()
    items = [logs] if isinstance(logs, (str, Path, tuple)) else list(logs)
    return tuple(str(x[0]) + (f"={x[1]}" if x[1] else "") if isinstance(x, tuple) else str(x)
                 for x in items)

