"""Cross-machine determinism: every task's instances (its prompts, both views and the declared
conventions) for fixed seeds hash to digests recorded here.

``generate(seed, difficulty)`` must give the same instance on every machine and every Python
hash seed (the issue's requirement), so runs logged on one machine can be re-graded on another.
The oracle's route among equal-cost ones is left out (it may follow networkx's tie-breaking); its
score, 1.0, is in. A deliberate change to a generator or renderer changes its digest: update the table in
the same commit and say why. Recompute with ``PYTHONPATH=. python tests/harness/test_golden.py``
from the repository root (without ``PYTHONPATH=.`` the script imports the installed harness).
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
                repr(task.grade(inst, answer)),
            ]
            for part in parts:
                h.update(part.encode("utf-8"))
                h.update(b"\0")
    return h.hexdigest()[:16]


GOLDEN = {
    "spatial_key_door": "6d1e7f87ad29c356",
    "spatial_landmarks": "4f8eafcdd87f3a6a",
    "spatial_local_view": "84ca4c05c70483bd",
    "spatial_maze_halves": "ac4384773c177147",
    "spatial_obstacles_split": "67c54799018f780e",
    "spatial_one_way": "938a0e9b296a63df",
    "spatial_rotated_view": "e006ad47fc980483",
    "spatial_teleporters": "4600a1d21c8f7d7b",
    "spatial_tile_stitch": "24acc84910fcf7c6",
    "spatial_two_goals": "50c1185f08f01cc2",
    "spatial_weighted_terrain": "c8ef5847207a16a4",
    "relational_alias_resolution": "8da3a72a3d0fce89",
    "relational_club_memberships": "530abb6c71f506ff",
    "relational_course_prerequisites": "df19671b0fafe472",
    "relational_event_precedence": "2023a11baf60a34d",
    "relational_family_tree": "4048df1cacb215c6",
    "relational_install_order": "0a0c510a1e54d16b",
    "relational_org_chart": "25f21493bd96c323",
    "relational_ownership_transfers": "272ce79d143d94d1",
    "relational_rail_connections": "5a63f97de7228979",
    "relational_timeline_dates": "3a909ee8f8e9266e",
    "relational_transitive_comparison": "393a175f4624501c",
"csp_budget_currency": "a0b501cbd1ccd19c",
"csp_delivery_windows": "c0e0f7c968f94d19",
"csp_graph_colouring": "216c1eef3585220a",
"csp_knapsack_units": "e56cde120abf0358",
"csp_meeting_timezones": "f034539e758e64c5",
"csp_recipe_units": "b9f2ae9814f3de71",
"csp_room_booking": "7b9d5975e18550f1",
"csp_seating": "8e9c5cf8bdc21309",
"csp_shift_roster": "3b64dcc7c6471e10",
"csp_sudoku4": "d3572628d9154ff4",
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
