"""The manifest (:mod:`harness.manifest`) and the registry name the same tasks.

Adding a task means writing its class and adding its name to the manifest; these tests fail
when one of the two is done without the other, or when a task's class declares another family
than the manifest lists it under.
"""

from __future__ import annotations

from harness.base import FAMILIES
from harness.manifest import TASK_NAMES, TASKS_BY_FAMILY, family_counts, family_of
from harness.registry import list_tasks


def test_manifest_families_are_the_vocabulary_families_in_order():
    assert tuple(TASKS_BY_FAMILY) == FAMILIES


def test_manifest_names_are_unique_sorted_and_prefixed_by_family():
    assert len(set(TASK_NAMES)) == len(TASK_NAMES)
    for family, names in TASKS_BY_FAMILY.items():
        assert list(names) == sorted(names), f"{family}: keep the manifest sorted"
        for name in names:
            assert name.startswith(family + "_"), name


def test_registry_matches_manifest():
    registered = {t.name: t.family for t in list_tasks()}
    listed = {name: family_of(name) for name in TASK_NAMES}
    missing = sorted(set(listed) - set(registered))
    unlisted = sorted(set(registered) - set(listed))
    assert not missing, f"in harness/manifest.py but no registered class: {missing}"
    assert not unlisted, f"registered but not in harness/manifest.py: {unlisted}"
    assert registered == listed, "a task's class declares another family than the manifest"


def test_list_tasks_follows_manifest_order_and_counts():
    assert [t.name for t in list_tasks()] == list(TASK_NAMES)
    for family, count in family_counts().items():
        assert len(list_tasks(family)) == count

