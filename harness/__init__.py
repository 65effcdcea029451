"""The collaboration-tax harness: split-view tasks with deterministic graders.

A task is registered by name (:func:`harness.registry.get_task`); every task offers the same
interface (:class:`harness.base.Task`), so a runner can drive any of them in the three modes of
the collaboration-tax paper: solo on the full instance, and a pair of agents on the two views.
"""

from harness.base import UNPARSED, Instance, Task, View
from harness.registry import get_task, list_tasks, register

__all__ = ["UNPARSED", "Instance", "Task", "View", "get_task", "list_tasks", "register"]
