"""tau2-bench's retail database cut to the customers a set of tasks touches, for offline runs.

tau2-bench builds a fresh retail environment from its 1.3 MB database three times per simulation
(the run, then the predicted and the gold environment of its evaluation) and hashes both
evaluated databases; with the whole database that is most of a simulation's CPU when the models
are scripted (:class:`~noisefloor.protocols.tau2.scripted.ScriptedEndpoint`). A task reads and
writes only its own customer's records, so an offline run (a test, a benchmark at its smallest
size) can load the database cut to those customers, their orders and every product:
:func:`retail_db_for` cuts, :func:`cut_retail_db` loads the cut while a block runs. A run of
real models should use the whole database (a model may look up any record).

References
----------
Barres et al. (2025), "tau^2-Bench: Evaluating Conversational Agents in a Dual-Control
Environment", arXiv:2506.07982.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["cut_retail_db", "retail_db_for"]


def retail_db_for(db: dict[str, Any], tasks: Sequence[Any]) -> dict[str, Any]:
    """``db`` with only the users a task names, their orders and the orders a task names.

    Parameters
    ----------
    db : dict
        tau2-bench's retail database as JSON (``products``, ``users``, ``orders``).
    tasks : sequence of tau2 ``Task``
        A user is named by a task when its JSON holds the user's id, e-mail, or first and last
        name and zip code (how tau2's retail tasks identify their customer).

    Returns
    -------
    dict
        ``{"products": every product, "users": ..., "orders": ...}``.

    Raises
    ------
    ValueError
        If some task names no user (its customer would be missing from the cut).

    Examples
    --------
    >>> db = {"products": {"p": {}},
    ...       "users": {"ann_1": {"name": {"first_name": "Ann", "last_name": "Lee"},
    ...                           "email": "ann@x", "address": {"zip": "10001"}},
    ...                 "bob_2": {"name": {"first_name": "Bob", "last_name": "Ray"},
    ...                           "email": "bob@x", "address": {"zip": "20002"}}},
    ...       "orders": {"#1": {"user_id": "ann_1"}, "#2": {"user_id": "bob_2"}}}
    >>> class Task:
    ...     id = "7"
    ...     def model_dump_json(self):
    ...         return '{"instructions": "You are Ann Lee, zip 10001."}'
    >>> cut = retail_db_for(db, [Task()])
    >>> sorted(cut["users"]), sorted(cut["orders"]), sorted(cut["products"])
    (['ann_1'], ['#1'], ['p'])
    """
    texts = [t.model_dump_json() for t in tasks]

    def named(uid: str, user: dict[str, Any], text: str) -> bool:
        name = user["name"]
        return (uid in text or user["email"] in text
                or (name["first_name"] in text and name["last_name"] in text
                    and user["address"]["zip"] in text))

    users: dict[str, Any] = {}
    for task, text in zip(tasks, texts):
        mine = {uid: u for uid, u in db["users"].items() if named(uid, u, text)}
        if not mine:
            raise ValueError(f"retail task {task.id}: no user of the database is named in it "
                             "(by id, e-mail, or name and zip code)")
        users.update(mine)
    every = " ".join(texts)
    orders = {oid: o for oid, o in db["orders"].items() if o["user_id"] in users or oid in every}
    return {"products": db["products"], "users": users, "orders": orders}


@contextmanager
def cut_retail_db(tasks: Sequence[Any], directory: str | Path) -> Iterator[Path]:
    """While the block runs, tau2-bench's retail environments load the database cut to
    ``tasks`` (:func:`retail_db_for`), written to ``directory / "retail_db.json"``.

    Parameters
    ----------
    tasks : sequence of tau2 ``Task``
    directory : str or Path
        An existing folder for the cut database (it stays there).

    Yields
    ------
    Path
        The cut database's file.

    Notes
    -----
    Sets ``tau2.domains.retail.environment.RETAIL_DB_PATH``, the path tau2's
    ``get_environment`` loads, for the whole process (every thread), and restores it after.
    """
    import tau2.domains.retail.environment as environment

    whole = environment.RETAIL_DB_PATH
    path = Path(directory) / "retail_db.json"
    path.write_text(json.dumps(retail_db_for(json.loads(Path(whole).read_text()), tasks)))
    environment.RETAIL_DB_PATH = path
    try:
        yield path
    finally:
        environment.RETAIL_DB_PATH = whole
