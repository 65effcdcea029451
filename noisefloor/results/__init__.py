"""One mechanism for the plain views of frozen results: ``to_dict()`` and ``to_frame()``.

Every function of noisefloor returns one frozen dataclass. :class:`FrozenResult` gives each of
them the same two views, with the conversion rules written once (:func:`plain`), so a result
declares only what really differs about it (class attributes, never a re-written method), as
the results mixins of statsmodels do (Seabold and Perktold 2010, "statsmodels: Econometric and
statistical modeling with Python", Proceedings of the 9th Python in Science Conference). The
package sits below every layer: it imports nothing of noisefloor, and pandas only when a frame
is asked for (or a DataFrame is already among the values), so the statistics, the logs and the
harness can all use it; it is a package of its own, not a module of ``noisefloor``'s top level,
so that in the graph of packages it is a leaf and ties ``noisefloor.stats`` to no other package.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FrozenResult", "plain"]


def plain(value: Any) -> Any:
    """``value`` as plain Python (the conversion rules of :meth:`FrozenResult.to_dict`).

    Rules, applied recursively:

    - a result (anything with a ``to_dict`` method) becomes its ``to_dict()``;
    - any other dataclass instance becomes a dict of its fields, in declaration order;
    - a :class:`pandas.DataFrame` becomes a list of records (one dict per row);
    - a numpy array becomes a (nested) list; a numpy scalar the Python scalar;
    - a tuple, list, set or frozenset becomes a list (a set in sorted order);
    - a mapping becomes a dict with the same keys and converted values;
    - an :class:`~enum.Enum` member becomes its value; a path its string;
    - NaN stays NaN (a JSON writer decides: the CLI writes it as ``null``), and so does every
      other float, string, int, bool and None.

    Parameters
    ----------
    value : object
        Any field value of a result.

    Returns
    -------
    object
        Built of dict, list, str, int, float, bool and None only (a missing value in a
        frame's records stays missing: None, or ``pd.NA`` where pandas gives that).

    Examples
    --------
    >>> import numpy as np
    >>> plain((np.int64(3), np.float64(0.5), float("nan"), ("a", "b")))
    [3, 0.5, nan, ['a', 'b']]
    >>> type(plain(np.int64(3))).__name__
    'int'
    """
    if value is None or type(value) in (str, int, float, bool):
        return value
    to_dict = getattr(value, "to_dict", None)
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        return [plain(r) for r in value.to_dict(orient="records")]
    if callable(to_dict) and not isinstance(value, type):
        return to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if isinstance(value, numpy.ndarray):
            return [plain(v) for v in value.tolist()] if value.ndim else plain(value.item())
        if isinstance(value, numpy.generic):
            return value.item()
    if isinstance(value, Enum):
        return plain(value.value)
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return [plain(v) for v in sorted(value)]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


class FrozenResult:
    """Base of the frozen dataclass results: ``to_dict()`` and ``to_frame()`` made once.

    A result class is ``@dataclass(frozen=True) class X(FrozenResult): ...``. What differs
    between results is declared as class attributes:

    ``_dict_keys`` : tuple of str, optional
        The keys of :meth:`to_dict`, in order: field names, and names of properties that belong
        in the dict (default: every field in declaration order).
    ``_dict_exclude`` : tuple of str
        Fields left out of :meth:`to_dict` (default none), e.g. formatting aids.
    ``_frame_field`` : str, optional
        The field :meth:`to_frame` shows: a DataFrame (a copy is returned), a result (its
        ``to_frame()``) or a sequence of results (one row per item, one column per key of
        the item's dict). Default: one row, one column per key of :meth:`to_dict`.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Share(FrozenResult):
    ...     value: float
    ...     tasks: tuple[str, ...] = ()
    ...     reason: str = ""
    >>> Share(0.25, ("t1", "t2")).to_dict()
    {'value': 0.25, 'tasks': ['t1', 't2'], 'reason': ''}
    >>> Share(float("nan"), reason="no tasks").to_frame()
       value tasks    reason
    0    NaN    []  no tasks
    """

    _dict_keys: ClassVar[tuple[str, ...] | None] = None
    _dict_exclude: ClassVar[tuple[str, ...]] = ()
    _frame_field: ClassVar[str | None] = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict view: one key per field (or per ``_dict_keys``), values by :func:`plain`.

        Returns
        -------
        dict
            Keys in declaration order (or the order of ``_dict_keys``), without the fields of
            ``_dict_exclude``; values plain Python (nested results as dicts, DataFrames as
            lists of records, tuples as lists, numpy scalars as Python scalars, NaN kept).
        """
        keys = self._dict_keys
        if keys is None:
            names = getattr(self, "__dataclass_fields__", {})
            keys = tuple(names)
        return {k: plain(getattr(self, k)) for k in keys if k not in self._dict_exclude}

    def to_frame(self) -> pd.DataFrame:
        """Tabular view: ``_frame_field``'s table, or one row of :meth:`to_dict`.

        Returns
        -------
        pandas.DataFrame
            With ``_frame_field`` unset, shape ``(1, len(self.to_dict()))`` (a list-valued key
            is one cell holding the list).
        """
        import pandas as pd

        if self._frame_field is None:
            return pd.DataFrame([self.to_dict()])
        value = getattr(self, self._frame_field)
        if isinstance(value, pd.DataFrame):
            return value.copy()
        if callable(getattr(value, "to_frame", None)):
            return value.to_frame()
        return pd.DataFrame([plain(item) for item in value])
