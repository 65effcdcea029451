"""Fixtures of the tau2-bench tests: the retail tasks they play and a database cut to them.

The offline runs replay real retail tasks of tau2-bench through its own orchestrator and
evaluator. tau2 builds a fresh retail environment from its 1.3 MB database three times per
simulation (the run, then the predicted and the gold environment of its evaluation) and hashes
both evaluated databases; with the whole database that is about 80% of a simulation's CPU. What
these tests check (journal, phases, writer, store, hashes of first requests, resume) does not
depend on customers no task of theirs touches, so a module that runs simulations uses
the ``retail`` fixture: tau2's retail database cut to the users of :data:`RETAIL_TASKS`, their
orders and every product (:func:`noisefloor.protocols.tau2.retail_cut.retail_db_for`), loaded by
tau2's own loader in place of the whole file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# litellm fetches its model price map over the network when it is first imported (retrying with
# sleeps when offline) unless told to use its local copy; tau2 imports it, and these tests never
# reach the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

#: The retail tasks the tests of this folder play; :func:`retail_tasks` refuses any other.
RETAIL_TASKS = ("5", "18", "30", "38")


def retail_tasks(*ids: str) -> list[Any]:
    """tau2-bench retail tasks by id (tau2 ``Task`` objects), in the order given."""
    from tau2.registry import registry

    unknown = [t for t in ids if t not in RETAIL_TASKS]
    if unknown:
        raise ValueError(f"task(s) {unknown} are not in RETAIL_TASKS of tests/protocols/conftest.py:"
                         " add them there, so the cut database holds their users")
    by_id = {str(t.id): t for t in registry.get_tasks_loader("retail")("base")}
    return [by_id[t] for t in ids]


_CUT: dict[str, Path] = {}  # one cut database per process (by the session's base temp dir)


def _cut_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tau2.domains.retail.utils import RETAIL_DB_PATH

    from noisefloor.protocols.tau2.retail_cut import retail_db_for

    base = str(tmp_path_factory.getbasetemp())
    if base not in _CUT:
        db = json.loads(Path(RETAIL_DB_PATH).read_text())
        # every task's own user is in (retail_db_for raises on a task that names none)
        cut = retail_db_for(db, retail_tasks(*RETAIL_TASKS))
        assert len(cut["users"]) >= len(RETAIL_TASKS) and cut["orders"]
        path = tmp_path_factory.mktemp("tau2") / "retail_db.json"
        path.write_text(json.dumps(cut))
        _CUT[base] = path
    return _CUT[base]


# Module scope, not session scope: the root conftest.py keeps the tests that share a folder's
# session fixture on one worker, and these modules' tests should spread.
@pytest.fixture(scope="module")
def retail(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., list[Any]]]:
    """:func:`retail_tasks`, while tau2's retail environments load the cut database (for the
    module's tests)."""
    import tau2.domains.retail.environment as environment

    path = _cut_file(tmp_path_factory)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(environment, "RETAIL_DB_PATH", path)
        yield retail_tasks
