"""Cross-machine determinism: every task's instances, views, prompts and oracle answers for fixed
seeds hash to digests recorded here.

``generate(seed, difficulty)`` must give the same instance on every machine and every Python
hash seed (the issue's requirement), so runs logged on one machine can be re-graded on another.
A deliberate change to a generator, renderer or oracle changes its digest: update the table in
the same commit and say why. Recompute with ``python tests/harness/test_golden.py``.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from harness.base import DIFFICULTIES
from harness.registry import get_task, list_tasks

SEEDS = (0, 1, 2)


def digest(name: str) -> str:
    task = get_task(name)
    h = hashlib.sha256()
    for difficulty in DIFFICULTIES:
        for seed in SEEDS:
            inst = task.generate(seed, difficulty)
            view_a, view_b = task.split(inst)
            answer = task.oracle(inst)
            parts = [
                task.solo_prompt(inst),
                task.agent_prompt(view_a),
                task.agent_prompt(view_b),
                json.dumps(inst.conventions, sort_keys=True, default=str),
                task.format_answer(answer),
                repr(task.grade(inst, answer)),
            ]
            for part in parts:
                h.update(part.encode("utf-8"))
                h.update(b"\0")
    return h.hexdigest()[:16]


GOLDEN = {
    "spatial_key_door": "c9f5f540093b851b",
    "spatial_landmarks": "1dc8fb5313a920db",
    "spatial_local_view": "d39f9396b87ed36b",
    "spatial_maze_halves": "90c874144fc4c204",
    "spatial_obstacles_split": "56d51d2a705c8e22",
    "spatial_one_way": "757f971e74a2a02f",
    "spatial_rotated_view": "7e983c682996f95c",
    "spatial_teleporters": "cc95ecdc4bc6af67",
    "spatial_tile_stitch": "6f85f59005c23fd3",
    "spatial_two_goals": "42f2260b66ad42c6",
    "spatial_weighted_terrain": "331a45756a60df9c",
    "relational_alias_resolution": "7fab5f21c9655f5d",
    "relational_club_memberships": "cc1611fd16ca2723",
    "relational_course_prerequisites": "fb7245321adc83cf",
    "relational_event_precedence": "48241d0dab129b73",
    "relational_family_tree": "8ab6f5f41ea097c6",
    "relational_install_order": "c790cb08e0e58995",
    "relational_org_chart": "9d54a463e11eb33c",
    "relational_ownership_transfers": "dca9815912b59f3b",
    "relational_rail_connections": "d7f6478b43f1da87",
    "relational_timeline_dates": "c603a7b2355e12a6",
    "relational_transitive_comparison": "f163b3f4e430f128",
    "csp_budget_currency": "5da0aba31abcb99d",
    "csp_delivery_windows": "ac19e0ff111de763",
    "csp_graph_colouring": "a574d7c82bb0bb86",
    "csp_knapsack_units": "c4a9c8b483682402",
    "csp_meeting_timezones": "f408a51568166967",
    "csp_recipe_units": "2fb9044e75d71199",
    "csp_room_booking": "227d1201bf7e0802",
    "csp_seating": "fd2c0b70b871dd0f",
    "csp_shift_roster": "ae548fdc994dd858",
    "csp_sudoku4": "2fd35ec1fe9dea48",
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_instances_match_recorded_digest(name):
    assert digest(name) == GOLDEN[name], (
        f"{name}: generated instances changed; if deliberate, update GOLDEN (see module docstring)"
    )


def test_every_task_has_a_digest():
    assert sorted(GOLDEN) == sorted(t.name for t in list_tasks())


if __name__ == "__main__":
    for t in list_tasks():
        print(f'    "{t.name}": "{digest(t.name)}",')
