"""Null contrasts of a published paired-count table (the noise-floor paper's layout).

A count table holds per-seed W/L/T of protocol pairs, not trial records, so nothing in it can
be checked: its trial-0 rows are null contrasts by the table's own declaration (the noise-floor
paper's: at trial 0 every coordination store is empty, so every reader is a no-op), and every
such row says so in ``certified_by`` (:data:`~noisefloor.floor.nulls.COUNT_TABLE`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from noisefloor.floor.contrast_table import DEFAULT_CLEAN, TRIAL, _reversals, seed_array
from noisefloor.floor.nulls import COUNT_TABLE


def null_contrasts_from_counts(
    counts: pd.DataFrame, *, clean: tuple[str, ...] | None = None
) -> pd.DataFrame:
    """Select the null contrasts of a published paired-count table.

    Parameters
    ----------
    counts : pandas.DataFrame
        A table like the noise-floor paper's (columns ``seed, trial, subset, contrast, wins,
        losses, ties``); rows at ``trial == 0`` (and ``subset == "all"`` when that column
        exists) are null contrasts.
    clean : tuple of str, optional
        Contrast labels whose first requests are byte-identical; either orientation matches,
        and a label written the other way round from the table turns the row to the order
        given (``a-b`` is a minus b: wins and losses swap). Each label given must be one of
        the table's null contrasts. Protocol names may contain '-': a label not in the table
        as written is matched against the table's labels by every split ``a-b`` -> ``b-a``;
        a label that matches two of them is an error. By default
        ``"no_coord-intercept"`` is clean when the table holds it (the noise-floor paper's
        clean contrast); otherwise none is.

    Returns
    -------
    pandas.DataFrame
        Columns ``contrast, kind, clean, certified_by, level, seed, wins, losses, ties``
        (kind ``"trial0"``; ``certified_by`` is :data:`~noisefloor.floor.nulls.COUNT_TABLE`;
        ``level`` ``"trial"`` and ``seed`` a nullable integer, the shape of
        :mod:`noisefloor.floor.contrast_table`) and
        ``reoriented`` (True where a clean label the user wrote reverses the table's order).

    Raises
    ------
    ValueError
        If no row is a null contrast, a ``clean`` label names none of them, a count lies
        outside [0, 2**63), or one pair of arms is given both ways (``a-b`` and ``b-a`` at the
        same seed, trial and subset, on any row). The message names ``file:line`` when ``counts.attrs["source"]`` and a
        ``line`` column are present.
    """
    _check_counts_fit(counts)  # every row: the audit tests the other contrasts too
    _check_no_reversed_twins(counts)  # every row too: a trial-1 pair given both ways double counts
    trial = counts["trial"]
    if pd.api.types.is_integer_dtype(trial.dtype):
        mask = trial == 0
    else:  # Python ints (no overflow), integral floats, digits
        mask = trial.map(lambda t: int(t) == 0).astype(bool)
    if "subset" in counts.columns:
        mask &= counts["subset"].astype(str) == "all"
    rows = counts[mask]
    rows.attrs = dict(counts.attrs)
    if rows.empty:
        raise ValueError("the count table holds no trial-0 contrast over all tasks: no null "
                         "contrast to build a floor from")
    present = set(rows["contrast"].astype(str))
    if clean is None:
        clean = tuple(c for c in DEFAULT_CLEAN if c in present or _reversals(c) & present)
    # table label -> the clean label as the user wrote it; a label written the other way round
    # from the table is found by the split whose reversal is a table contrast (protocol names
    # may contain '-', so every split is tried)
    orient: dict[str, str] = {}
    listed = ", ".join(sorted(present))
    for label in clean:
        reversed_in_table = sorted(_reversals(label) & present - {label})
        if len(reversed_in_table) > 1:
            raise ValueError(
                f"clean contrast {label!r} is ambiguous: read the other way round it could be "
                f"{' or '.join(map(repr, reversed_in_table))} of the table (protocol names "
                f"containing '-'); null (trial-0) contrasts of the table: {listed}")
        if label not in present and not reversed_in_table:
            raise ValueError(f"clean contrast {label!r} is not among the null (trial-0) contrasts "
                             f"of the table: {listed}")
        for table_label in [label, *reversed_in_table]:
            if table_label in present:
                orient.setdefault(table_label, label)
    labels = rows["contrast"].astype(str).to_numpy()
    wins = rows["wins"].astype(int).to_numpy()
    losses = rows["losses"].astype(int).to_numpy()
    # a clean label the user wrote the other way round from the table: orient the row as the
    # user wrote it (a-b = a minus b: wins and losses swap)
    oriented = pd.Series(labels, dtype=object).map(orient)
    clean_rows = oriented.notna().to_numpy(dtype=bool)
    as_written = np.where(clean_rows, oriented.to_numpy(dtype=object), labels)
    flip = as_written != labels
    seed = rows["seed"]
    out = pd.DataFrame({
        "contrast": as_written.tolist(),
        "kind": "trial0",
        "clean": clean_rows,
        "certified_by": COUNT_TABLE,
        "level": TRIAL,
        "seed": (pd.array(seed.to_numpy(), dtype="Int64")
                 if pd.api.types.is_integer_dtype(seed.dtype) and seed.dtype.kind == "i"
                 else seed_array(seed.tolist())),
        "wins": np.where(flip, losses, wins),
        "losses": np.where(flip, wins, losses),
        "ties": rows["ties"].astype(int).to_numpy(),
        "reoriented": flip,
    })
    return out


def _where(rows: pd.DataFrame, i: int) -> str:
    """``file:line`` (``attrs["source"]`` and the ``line`` column that
    :func:`~noisefloor.audit.published.read_paired_counts` records), else ``count table row i``."""
    source = rows.attrs.get("source")
    if "line" in rows.columns:
        line = int(rows["line"].iloc[i])
        return f"{source}:{line}" if source else f"count table line {line}"
    return f"{source}: row {i}" if source else f"count table row {i}"


def _check_counts_fit(rows: pd.DataFrame) -> None:
    # A count beyond the 64-bit range would overflow when converted (an OverflowError, not a
    # message); no benchmark has 2**63 tasks, so such a count is a typo.
    for col in ("wins", "losses", "ties"):
        values = rows[col]
        if pd.api.types.is_integer_dtype(values.dtype):
            data = values.to_numpy()
            bad = np.flatnonzero(data < 0) if data.dtype.kind == "i" else \
                np.flatnonzero(data >= 2**63)
        elif values.dtype == object:  # Python ints beyond 64 bits, or mixed cells
            bad = np.flatnonzero([isinstance(v, (int, np.integer)) and not 0 <= int(v) < 2**63
                                  for v in values.tolist()])
        else:
            continue
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"{_where(rows, i)}: field {col!r}: expected an "
                             f"integer in [0, 2**63), got {values.tolist()[i]}")


#: Up to this many rows the twin check walks the rows in Python: the column operations cost
#: about 10 ms whatever the size (groupby, merge, reindex), the walk a few microseconds a row.
_TWIN_ROW_LOOP = 1000


def _check_no_reversed_twins(rows: pd.DataFrame) -> None:
    # "a-b" and "b-a" at the same seed are the same paired tasks counted twice (once from each
    # side); keeping both would double the evidence and the Bonferroni family. A row is a twin
    # when a row before it holds one of its label's reversals under the same model, benchmark,
    # seed, trial and subset; the first such row is reported, with the first row it repeats.
    n = len(rows)
    if n == 0:
        return
    keys = [c for c in ("model", "benchmark", "seed", "trial", "subset") if c in rows.columns]
    labels = np.array(_as_str(rows["contrast"]), dtype=object)
    if n <= _TWIN_ROW_LOOP:
        found = _first_twin_by_rows(rows, keys, labels)
    else:
        found = _first_twin_by_columns(rows, keys, labels)
    if found is None:
        return
    i, twin = found
    raise ValueError(
        f"{_where(rows, i)}: field 'contrast': {labels[i]!r} is {labels[twin]!r} "
        f"({_where(rows, twin)}) written the other way round for the same seed, trial "
        "and subset; give "
        "each pair of arms once (wins and losses swap with the order)")


def _first_twin_by_rows(rows: pd.DataFrame, keys: list[str],
                        labels: np.ndarray) -> tuple[int, int] | None:
    """The first twin row and the row it repeats, walking the rows (small tables)."""
    if keys:
        key_of = list(zip(*(_as_str(rows[k]) for k in keys)))
    else:
        key_of = [()] * len(labels)
    first: dict = {}  # (key, label) -> its first row
    turned: dict[str, list[str]] = {}  # label -> its reversals, sorted
    for i, (key, label) in enumerate(zip(key_of, labels.tolist())):
        first.setdefault((key, label), i)
        rev = turned.get(label)
        if rev is None:
            rev = turned[label] = sorted(_reversals(label))
        for r in rev:
            j = first.get((key, r))
            if j is not None and j != i:
                return i, j
    return None


def _as_str(column: pd.Series) -> list:
    """``column.astype(str).tolist()``, without its fixed cost where the values are already
    strings or are integers or booleans without missing values (whose ``str`` is what
    ``astype(str)`` gives)."""
    if column.dtype.kind in "iub" and (isinstance(column.dtype, np.dtype) or not column.hasnans):
        return [str(v) for v in column.to_numpy().tolist()]
    if column.dtype == object and pd.api.types.infer_dtype(column, skipna=False) == "string":
        return column.tolist()
    return column.astype(str).tolist()


def _first_twin_by_columns(rows: pd.DataFrame, keys: list[str],
                           labels: np.ndarray) -> tuple[int, int] | None:
    """The first twin row and the row it repeats, over whole columns (large tables): each
    row's label is joined to its reversals and looked up among the first rows of each pair."""
    n = len(labels)
    key_id = (rows[keys].astype(str).groupby(keys, sort=False).ngroup().to_numpy()
              if keys else np.zeros(n, dtype=np.int64))
    label_code, uniques = pd.factorize(labels)
    m = len(uniques)
    code_of = {label: c for c, label in enumerate(uniques)}
    reversals = pd.DataFrame(
        [(c, code_of[r]) for c, label in enumerate(uniques) for r in _reversals(label)
         if r in code_of], columns=["label", "reversal"], dtype=np.int64)
    pair = key_id.astype(np.int64) * m + label_code
    first_of_pair = pd.Series(np.arange(n)).groupby(pair).min()
    mine = pd.DataFrame({"row": np.arange(n), "key": key_id, "label": label_code})
    joined = mine.merge(reversals, on="label")
    found = first_of_pair.reindex(joined["key"].to_numpy() * m
                                  + joined["reversal"].to_numpy()).to_numpy()
    twin_rows = joined["row"].to_numpy()[found < joined["row"].to_numpy()]  # NaN: never
    if not len(twin_rows):
        return None
    i = int(twin_rows.min())
    first: dict = {}  # the row walk's first rows of each label at this key, up to row i
    for j in np.flatnonzero(key_id[:i + 1] == key_id[i]):
        first.setdefault(labels[j], int(j))
    twin = next(first[r] for r in sorted(_reversals(labels[i])) if r in first and first[r] != i)
    return i, twin
