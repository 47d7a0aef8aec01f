"""``--dist loadgroup`` that keeps groups together on pytest 9.2, with constant bookkeeping
per test (tests/conftest.py installs both parts: ``name_groups`` and ``GroupScheduling``).

pytest-xdist's LoadGroupScheduling finds each test's position by a linear search of the
collection, and at every report counts a worker's unfinished tests over every scope it was
ever given: quadratic in the number of tests. At this suite's ~38,000 tests that is minutes
of the controller's CPU, taken from the two workers. This is the same schedule (groups
first, largest first, then the other tests in collection order) with the positions in a
dict, each scope's unfinished tests counted as they finish, a finished scope dropped from its
worker's list, and ungrouped tests sent in batches (as ``--dist load`` does: up to 32 at a
time, fewer as the queue empties, so the two workers still end together).
"""
from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadGroupScheduling

try:  # pytest >= 9.2 keeps a node's id structured; xdist 3.8 still sets the old attribute
    from _pytest.nodeid import NodeId
except ImportError:  # pragma: no cover - older pytest: xdist's own suffix works
    NodeId = None


def name_groups(items: list) -> None:
    """Give each test marked ``xdist_group("name")`` the id suffix ``@name`` by which the
    scheduler keeps a group on one worker. xdist's worker writes it to ``item._nodeid``,
    which pytest 9.2 no longer reads (``Node.nodeid`` is ``str(item._id)``): without this
    every group is spread over both workers and each builds its module fixtures again
    (pytest-dev/pytest-xdist#1386; the open fix, #1388, sets the structured id the same way).
    A no-op once the id has the suffix."""
    if NodeId is None:
        return
    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)


BATCH = 32  # most ungrouped tests sent to a worker at once


class WorkUnit(dict):
    """A scope's tests (nodeid -> finished) and how many are unfinished."""

    __slots__ = ("left",)

    def __init__(self, tests: dict[str, bool]) -> None:
        super().__init__(tests)
        self.left = sum(not done for done in tests.values())


class GroupScheduling(LoadGroupScheduling):
    """LoadGroupScheduling whose assignment and completion cost O(1) per test."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self.positions: dict[Any, dict[str, int]] = {}  # worker -> nodeid -> index

    def _pending_of(self, workload: dict[str, dict[str, bool]]) -> int:
        return sum(unit.left if isinstance(unit, WorkUnit) else
                   list(unit.values()).count(False) for unit in workload.values())

    def _assign_work_unit(self, node: Any) -> None:
        """Send the next scope, and the ones after it while the batch is small."""
        positions = self.positions.get(node)
        if positions is None:
            collection = self.registered_collections[node]
            positions = self.positions[node] = {nid: i for i, nid in enumerate(collection)}
        work = self.assigned_work.setdefault(node, {})
        want = min(BATCH, len(self.workqueue) // (4 * max(1, len(self.nodes))))
        todo: list[int] = []
        while self.workqueue and (not todo or len(todo) < want):
            scope, tests = self.workqueue.popitem(last=False)
            unit = work[scope] = WorkUnit(tests)
            todo += [positions[nid] for nid, done in unit.items() if not done]
        node.send_runtest_some(todo)

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        nodeid = self.registered_collections[node][item_index]
        scope = self._split_scope(nodeid)
        work = self.assigned_work[node]
        unit = work.get(scope)
        if unit is not None and not unit[nodeid]:
            unit[nodeid] = True
            unit.left -= 1
            if not unit.left:  # finished: no longer summed at every report
                del work[scope]
        self._reschedule(node)
