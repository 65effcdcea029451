"""The store interface: append events, read them back one task at a time.

A backend implements four primitives (:meth:`EventStore._append_many`, :meth:`EventStore._select`,
:meth:`EventStore._count`, :meth:`EventStore.close`); everything else, including validation of
every filter a caller passes, lives here so all backends enforce the same guarantees:

* **Task scoping.** Every read names exactly one task id, matched by exact string equality (no
  patterns, no case folding, no trimming). Readers receive a :class:`TaskView`, whose task id is
  fixed when it is made; no method of a view accepts another task id. Backends re-check the task
  id of each row they return, and a mismatch raises instead of leaking.
* **Atomic appends.** :meth:`EventStore.append_many` commits all of its events or none.
"""

from __future__ import annotations

import abc
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from noisefloor.results import FrozenResult
from noisefloor.store.events import FailedPredicate, FailedTrialAction, parse_event

__all__ = [
    "MAX_EVENT_ID",
    "MAX_QUERY_LIMIT",
    "EventStore",
    "ScopeViolation",
    "StoreError",
    "StoredEvent",
    "TaskView",
]

#: Largest number of events one query returns.
MAX_QUERY_LIMIT = 100_000

#: Largest event id a store assigns (a signed 64-bit integer, SQLite's INTEGER PRIMARY KEY),
#: hence the largest ``after_id`` a query accepts.
MAX_EVENT_ID = 2**63 - 1

_EVENT_TYPES = ("failed_trial_action", "failed_predicate")


class ScopeViolation(RuntimeError):
    """A backend returned a row of another task; raised instead of returning it.

    A subclass of :class:`RuntimeError`: it signals a broken backend, never bad user input, so
    catching it to carry on is wrong.

    Examples
    --------
    >>> from noisefloor.store import ScopeViolation
    >>> issubclass(ScopeViolation, RuntimeError)
    True
    """


class StoreError(OSError, sqlite3.DatabaseError):
    """The store's file cannot be read or written: damaged, read-only, locked, full.

    The message names the file and the cause in words (what SQLite said is kept in brackets
    and as ``__cause__``). A subclass of :class:`OSError` (it is a storage failure, and
    command-line tools report OSErrors as one line) and of :class:`sqlite3.DatabaseError`
    (code that caught SQLite's own error keeps working).

    Attributes
    ----------
    path : str
        The store file.
    reason : {"read_only", "damaged", "locked", "full", "not_a_database", "other"}
        The cause, for programs.

    Examples
    --------
    >>> from noisefloor.store import StoreError
    >>> err = StoreError("events.db", "read_only", "cannot write: the file is read-only")
    >>> str(err), err.reason, isinstance(err, OSError)
    ('events.db: cannot write: the file is read-only', 'read_only', True)
    """

    def __init__(self, path: str, reason: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path, self.reason = path, reason


@dataclass(frozen=True)
class StoredEvent(FrozenResult):
    """An event as read back from a store.

    Attributes
    ----------
    event_id : int
        Store-assigned id, increasing in commit order within one store.
    event : FailedTrialAction or FailedPredicate
        The validated event.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> store = SQLiteEventStore(":memory:")
    >>> event = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
    ...                           arguments={"order_id": "#W1"}, outcome="error: shipped",
    ...                           reward=0.0, position=1, k=3)
    >>> _ = store.append(event)
    >>> stored = store.query("T1")[0]
    >>> stored.event_id, stored.event.tool_name, stored.event == event
    (1, 'cancel_order', True)
    """

    event_id: int
    event: FailedTrialAction | FailedPredicate

    # hand-written: the event is a pydantic model, dumped in JSON mode
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the event's fields plus ``event_id``.

        Returns
        -------
        dict
            ``event_id`` first, then the event's fields as JSON values (the timestamp as an
            ISO 8601 string).

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> _ = store.append(FailedTrialAction(task_id="T1", tool_name="cancel_order",
        ...                                    arguments={"order_id": "#W1"}, reward=0.0,
        ...                                    position=1, k=3, timestamp="2026-01-01T00:00:00Z"))
        >>> d = store.query("T1")[0].to_dict()
        >>> d["event_id"], d["timestamp"], d["arguments"], d["key"]
        (1, '2026-01-01T00:00:00Z', {'order_id': '#W1'}, 'cancel_order:5de550960fecfded7c587d291983aaae')
        """
        return {"event_id": self.event_id, **self.event.model_dump(mode="json")}


@overload
def _check_str(value: Any, name: str, *, optional: Literal[False]) -> str: ...
@overload
def _check_str(value: Any, name: str, *, optional: bool = True) -> str | None: ...
def _check_str(value: Any, name: str, *, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}: {value!r:.80}")
    if not value:
        raise ValueError(f"{name} must be a non-empty string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{name} must be valid Unicode text (it holds an unpaired surrogate)") from None
    return value


def _check_limit(limit: Any) -> int:
    if limit is None:
        return MAX_QUERY_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"limit must be an int in [1, {MAX_QUERY_LIMIT}], got {limit!r}")
    if not 1 <= limit <= MAX_QUERY_LIMIT:
        raise ValueError(f"limit must be an int in [1, {MAX_QUERY_LIMIT}], got {limit}")
    return limit


class EventStore(abc.ABC):
    """Abstract task-scoped event store. Use :class:`~noisefloor.store.SQLiteEventStore`.

    A backend implements ``_append_many``, ``_select``, ``_count`` and :meth:`close`; this
    class validates every argument and re-checks the task id of every row read back. A store
    is a context manager that closes itself on exit.

    Examples
    --------
    Open a store file, write, read back, close:

    >>> import os, tempfile
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> path = os.path.join(tempfile.mkdtemp(), "store.db")
    >>> with SQLiteEventStore(path) as store:
    ...     _ = store.append(FailedTrialAction(task_id="T1", tool_name="cancel_order",
    ...                                        arguments={"order_id": "#W1"}, reward=0.0,
    ...                                        position=1, k=3))
    >>> with SQLiteEventStore(path) as store:
    ...     [(e.event_id, e.event.tool_name) for e in store.query("T1")]
    [(1, 'cancel_order')]
    """

    # -- backend primitives ------------------------------------------------------------------
    @abc.abstractmethod
    def _append_many(self, rows: Sequence[tuple[str, str, str | None, str | None, str, str]]) -> list[int]:
        """Atomically insert rows ``(task_id, event_type, tool_name, key, created, body)``."""

    @abc.abstractmethod
    def _select(
        self,
        task_id: str,
        *,
        event_type: str | None,
        tool_name: str | None,
        key: str | None,
        after_id: int,
        limit: int,
        newest_first: bool,
    ) -> list[tuple[int, str, str]]:
        """Rows ``(event_id, task_id, body)`` of one task, filtered by exact equality."""

    @abc.abstractmethod
    def _count(self, task_id: str, key: str | None = None) -> int:
        """Number of events of one task (with coordination key ``key`` if given)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the backend's resources; further calls raise.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> store = SQLiteEventStore(":memory:")
        >>> store.close()
        >>> store.count("T1")
        Traceback (most recent call last):
        ...
        RuntimeError: store ':memory:' is closed
        """

    # -- public API --------------------------------------------------------------------------
    def append(self, event: FailedTrialAction | FailedPredicate) -> int:
        """Append one event and return its id (committed when this returns).

        Parameters
        ----------
        event : FailedTrialAction or FailedPredicate

        Returns
        -------
        int
            Store-assigned id, larger than every id committed before it.

        Raises
        ------
        TypeError
            If ``event`` is not an event model.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> event = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
        ...                           arguments={"order_id": "#W1"}, outcome="error: shipped",
        ...                           reward=0.0, position=1, k=3)
        >>> store.append(event), store.append(event)
        (1, 2)
        """
        return self.append_many([event])[0]

    def append_many(self, events: Iterable[FailedTrialAction | FailedPredicate]) -> list[int]:
        """Append events atomically (all or none) and return their ids, in order.

        Raises
        ------
        TypeError
            If an item is not an event model (validate dicts with
            :func:`noisefloor.store.events.parse_event` first); nothing is written.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> event = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
        ...                           arguments={"order_id": "#W1"}, outcome="error: shipped",
        ...                           reward=0.0, position=1, k=3)
        >>> store.append_many([event, event])
        [1, 2]
        >>> store.append_many([event, {"task_id": "T1"}])
        Traceback (most recent call last):
        ...
        TypeError: events[1] must be a FailedTrialAction or FailedPredicate, got dict
        >>> store.count("T1")
        2
        """
        from noisefloor.store.events import event_to_json

        rows = []
        for i, event in enumerate(events):
            if not isinstance(event, (FailedTrialAction, FailedPredicate)):
                raise TypeError(
                    f"events[{i}] must be a FailedTrialAction or FailedPredicate, "
                    f"got {type(event).__name__}"
                )
            rows.append(
                (
                    event.task_id,
                    event.event_type,
                    event.tool_name,
                    event.key,
                    event.timestamp.isoformat(),
                    event_to_json(event),
                )
            )
        if not rows:
            return []
        return self._append_many(rows)

    def query(
        self,
        task_id: str,
        *,
        event_type: str | None = None,
        tool_name: str | None = None,
        key: str | None = None,
        after_id: int = 0,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[StoredEvent]:
        """Events of exactly one task, optionally filtered (exact equality on every filter).

        Parameters
        ----------
        task_id : str
            The task; compared byte for byte.
        event_type : {"failed_trial_action", "failed_predicate"} or None
        tool_name, key : str or None
            Exact tool name / coordination key (see :func:`noisefloor.store.canonical_key`).
        after_id : int, default 0
            Only events with a larger id (for incremental reads); 0 .. 2**63 - 1.
        limit : int or None
            At most this many events (1 .. 100000); ``None`` = 100000.
        newest_first : bool, default False
            Order by descending id instead of ascending.

        Returns
        -------
        list of StoredEvent

        Raises
        ------
        TypeError, ValueError
            For a filter of the wrong type or value; the message names the parameter.
        ScopeViolation
            If the backend returns an event of another task.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> event = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
        ...                           arguments={"order_id": "#W1"}, outcome="error: shipped",
        ...                           reward=0.0, position=1, k=3)
        >>> ids = store.append_many([event, event.model_copy(update={"position": 2}),
        ...                          event.model_copy(update={"task_id": "T2"})])
        >>> [e.event.position for e in store.query("T1", newest_first=True)]
        [2, 1]
        >>> [e.event_id for e in store.query("T1", key=event.key, after_id=1)]
        [2]
        >>> store.query("T1", limit=0)
        Traceback (most recent call last):
        ...
        ValueError: limit must be an int in [1, 100000], got 0
        """
        task_id = _check_str(task_id, "task_id", optional=False)
        if event_type is not None and event_type not in _EVENT_TYPES:
            raise ValueError(f"event_type must be one of {_EVENT_TYPES} or None, got {event_type!r:.80}")
        tool_name = _check_str(tool_name, "tool_name")
        key = _check_str(key, "key")
        if isinstance(after_id, bool) or not isinstance(after_id, int) or not 0 <= after_id <= MAX_EVENT_ID:
            raise ValueError(f"after_id must be an int in [0, 2**63 - 1], got {after_id!r:.80}")
        rows = self._select(
            task_id,
            event_type=event_type,
            tool_name=tool_name,
            key=key,
            after_id=after_id,
            limit=_check_limit(limit),
            newest_first=bool(newest_first),
        )
        out = []
        for event_id, row_task, body in rows:
            if row_task != task_id:
                raise ScopeViolation(f"backend returned an event of another task for {task_id!r:.80}")
            event = _parse_body(body, event_id)
            if event.task_id != task_id:
                raise ScopeViolation(f"event {event_id} body names another task")
            out.append(StoredEvent(event_id, event))
        return out

    def count(self, task_id: str, *, key: str | None = None) -> int:
        """Number of events stored for ``task_id`` (only those with ``key`` if given).

        Parameters
        ----------
        task_id : str
            The task; compared byte for byte.
        key : str or None
            Coordination key to count; ``None`` counts every event of the task.

        Returns
        -------
        int

        Raises
        ------
        TypeError, ValueError
            If ``task_id`` or ``key`` is not a non-empty string.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> event = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
        ...                           arguments={"order_id": "#W1"}, outcome="error: shipped",
        ...                           reward=0.0, position=1, k=3)
        >>> _ = store.append(event)
        >>> store.count("T1"), store.count("T1", key=event.key), store.count("t1")
        (1, 1, 0)
        """
        return self._count(_check_str(task_id, "task_id", optional=False), _check_str(key, "key"))

    def task(self, task_id: str) -> TaskView:
        """A read view fixed to one task (what readers receive).

        Parameters
        ----------
        task_id : str

        Returns
        -------
        TaskView

        Raises
        ------
        TypeError, ValueError
            If ``task_id`` is not a non-empty string.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> SQLiteEventStore(":memory:").task("T1")
        TaskView(task_id='T1')
        """
        return TaskView(self, _check_str(task_id, "task_id", optional=False))

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _parse_body(body: str, event_id: int) -> FailedTrialAction | FailedPredicate:
    import json

    return parse_event(json.loads(body), source=f"event {event_id}", trusted_keys=True)


class TaskView:
    """Read-only access to the events of one task. Made by :meth:`EventStore.task`.

    There is no way to widen a view: its task id is fixed at construction and none of its
    methods takes a task id.

    Examples
    --------
    >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
    >>> store = SQLiteEventStore(":memory:")
    >>> _ = store.append(FailedTrialAction(task_id="A", tool_name="f", arguments={"x": 1},
    ...                                    reward=0.0, position=1, k=3))
    >>> store.task("A").count(), store.task("B").count()
    (1, 0)
    """

    __slots__ = ("_store", "_task_id")

    def __init__(self, store: EventStore, task_id: str) -> None:
        self._store = store
        self._task_id = task_id

    @property
    def task_id(self) -> str:
        """The task this view reads.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore
        >>> SQLiteEventStore(":memory:").task("T1").task_id
        'T1'
        """
        return self._task_id

    def count(self, *, key: str | None = None) -> int:
        """Number of events of this task (only those with coordination key ``key`` if given).

        Parameters
        ----------
        key : str or None
            Coordination key to count; ``None`` counts every event of the task.

        Returns
        -------
        int

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> event = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
        ...                           arguments={"order_id": "#W1"}, outcome="error: shipped",
        ...                           reward=0.0, position=1, k=3)
        >>> _ = store.append(event)
        >>> store.task("T1").count(key=event.key), store.task("T1").count(key="other:0")
        (1, 0)
        """
        return self._store.count(self._task_id, key=key)

    def find(
        self,
        *,
        event_type: str | None = None,
        tool_name: str | None = None,
        key: str | None = None,
        after_id: int = 0,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[StoredEvent]:
        """This task's events, filtered as in :meth:`EventStore.query`.

        Parameters
        ----------
        event_type, tool_name, key, after_id, limit, newest_first
            As for :meth:`EventStore.query`.

        Returns
        -------
        list of StoredEvent

        Raises
        ------
        TypeError, ValueError
            For a filter of the wrong type or value.

        Examples
        --------
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> event = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
        ...                           arguments={"order_id": "#W1"}, outcome="error: shipped",
        ...                           reward=0.0, position=1, k=3)
        >>> _ = store.append(event)
        >>> view = store.task("T1")
        >>> [e.event.outcome for e in view.find(tool_name="cancel_order")]
        ['error: shipped']
        >>> view.find(event_type="failed_predicate")
        []
        """
        return self._store.query(
            self._task_id,
            event_type=event_type,
            tool_name=tool_name,
            key=key,
            after_id=after_id,
            limit=limit,
            newest_first=newest_first,
        )

    def by_key(self, key: str) -> list[StoredEvent]:
        """This task's events with coordination key ``key`` (literal or predicate key).

        Parameters
        ----------
        key : str
            See :func:`noisefloor.store.canonical_key`.

        Returns
        -------
        list of StoredEvent

        Examples
        --------
        >>> from noisefloor.store import canonical_key
        >>> from noisefloor.store import SQLiteEventStore, FailedTrialAction
        >>> store = SQLiteEventStore(":memory:")
        >>> event = FailedTrialAction(task_id="T1", trial=0, tool_name="cancel_order",
        ...                           arguments={"order_id": "#W1"}, outcome="error: shipped",
        ...                           reward=0.0, position=1, k=3)
        >>> _ = store.append(event)
        >>> hits = store.task("T1").by_key(canonical_key("cancel_order", {"order_id": "#W1"}))
        >>> [e.event_id for e in hits]
        [1]
        """
        return self.find(key=key)

    def __repr__(self) -> str:
        return f"TaskView(task_id={self._task_id!r})"


