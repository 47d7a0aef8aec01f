"""Real runs on a dask.distributed cluster, measured inside the workers: the oracle for the
cluster plans of meta_utils/planner/cluster.py (tests/planner/test_cluster.py, benchmarks/bench_distributed.py).

``RealMeter`` plugs into the same worker plugin as the planner's ``FakeMeter``: each task's
peak is the most NumPy data (tracemalloc, NumPy's domain alone: memtools) allocated above what
the worker process held when the task started. tracemalloc counts the whole process, so the
task runs alone in it: ``inline`` makes the plugin run it on the worker's event loop thread,
which meanwhile receives nothing and frees no key (a key released while a task runs would
lower the process's figure under the task's own).
"""
from __future__ import annotations

import tracemalloc
from typing import Any, Callable

import memtools


class RealMeter:
    """A task's peak NumPy bytes above its start, in its worker process (one task at a time)."""

    inline = True

    def setup(self) -> None:
        if not tracemalloc.is_tracing():
            memtools._start_numpy_only()

    def __call__(self, fn: Callable, args: tuple, kwargs: dict) -> tuple[Any, dict]:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = fn(*args, **kwargs)
        return out, {"peak": tracemalloc.get_traced_memory()[1] - base}


def run(client: Any, submit: Callable[[Any], Any], meter: Any = None) -> tuple[Any, dict, dict]:
    """Run ``submit(client)`` (it returns futures) on the client's cluster with each task
    measured by ``meter`` (``None``: the planner's FakeMeter, tasks on fakes) and gather it:
    (the results, {key: (worker, output bytes, peak)}, the recorder's summary)."""
    from faketensor.meta_utils.planner.cluster import PLUGIN, RECORDER, _remote_summary
    from faketensor.meta_utils.planner.cluster_plugins import ClusterRecorder, FakeTasks
    client.register_plugin(FakeTasks(meter), name=PLUGIN)
    client.register_plugin(ClusterRecorder(), name=RECORDER)
    try:
        result = client.gather(submit(client))
        tasks = client.run_on_scheduler(_tasks)
        summary = client.run_on_scheduler(_remote_summary)["summary"]
    finally:
        client.unregister_worker_plugin(PLUGIN)
        client.unregister_scheduler_plugin(RECORDER)
    return result, tasks, summary


def _tasks(dask_scheduler: Any = None) -> dict:
    from faketensor.meta_utils.planner.cluster import RECORDER
    rec = dask_scheduler.plugins[RECORDER]
    return {str(k): (r[0], r[1], r[2], r[9]) for k, r in rec.tasks.items()}
