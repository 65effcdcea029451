"""A trial log whose null contrast is certified clean, for the ``--floor-log`` tests.

Trial 0 of ``no_coord`` and ``intercept`` on tasks ``t00``, ``t01``, ... at each seed, with empty
stores (``store_events_at_start`` 0) and identical first requests per task, so
``intercept-no_coord`` is a clean null contrast at every seed.
"""

from __future__ import annotations

import json

# rewards per task as (no_coord, intercept)
SEED_1 = [(0.0, 1.0)] * 4 + [(1.0, 0.0)] + [(1.0, 1.0)] * 5  # W=4, L=1, T=5
SEED_2 = [(0.0, 1.0)] + [(1.0, 0.0)] * 2 + [(0.0, 0.0)] * 7  # W=1, L=2, T=7


def write_clean_null_log(path, seeds: dict) -> str:
    """Write ``{seed: [(no_coord reward, intercept reward), ...]}`` to ``path``; its str."""
    with open(path, "w", encoding="utf-8") as fh:
        for seed, rows in seeds.items():
            for i, pair in enumerate(rows):
                for protocol, reward in zip(("no_coord", "intercept"), pair):
                    fh.write(json.dumps({
                        "schema_version": "1", "benchmark": "tau2/retail", "model": "m",
                        "protocol": protocol, "seed": seed, "task_id": f"t{i:02d}", "trial": 0,
                        "reward": reward, "termination_reason": None,
                        "infrastructure_error": False, "store_events_at_start": 0,
                        "injections": 0,
                        "first_request_sha256": f"{seed:02d}{i:02d}".ljust(64, "0")}) + "\n")
    return str(path)
