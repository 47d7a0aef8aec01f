"""Planning dask.distributed programs: tasks run on fakes on the real scheduler and workers.

Three pieces, all through distributed's plugin and preload APIs (nothing in distributed is
patched):

- ``FakeTasks`` (a ``WorkerPlugin``): wraps the worker's default executor so that each task
  runs in its own ``FakeMode`` (no outer mode: a task's figures are its own) and records the
  task's peak (the most its new buffers held at once, output and transient buffers included;
  inputs are not new). The figure goes back with the task: the plugin's ``transition`` hook puts
  it in the worker's ``TaskState.metadata``, which distributed sends with ``task-finished``
  (worker_state_machine.py ``_get_task_finished_msg``) and hands to scheduler plugins.
  ``meter`` is what measures a task: ``FakeMeter`` here; a real run's measurement (tracemalloc
  in the worker, tests/cluster_real.py) plugs in the same way.
- ``ClusterRecorder`` (a ``SchedulerPlugin``): per task its worker, inputs, output bytes
  (``ts.nbytes``: ``dask.sizeof`` on the worker, a fake's virtual bytes) and peak; per worker
  the managed memory (``WorkerState.nbytes``, the keys it holds) over the scheduler's
  transitions, its predicted peak and the task at it; bytes moved between workers; the
  largest task. ``summary()`` is the "cluster" section of a plan.
- ``planning()``: while a program is planned, dask's ``distributed.scheduler.preload`` and
  ``distributed.client.preload`` name this module, so every scheduler started in the process
  gets a recorder and every Client (LocalCluster's or one connecting to an address) registers
  both plugins on its cluster (``dask_setup`` below); spawned worker processes need nothing
  more than faketensor installed.

A worker's predicted peak, at the end of each task T it ran: the managed bytes it held then,
less T's output, plus T's peak, plus the peaks of its other tasks running at that moment (an
upper bound for those; exact with one thread per worker).
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Iterator

from . import cluster_summary as summary
from .cluster_summary import summarize, workers_over
from .report import cluster_lines as report_lines

PLUGIN = summary.PLUGIN
RECORDER = summary.RECORDER
_PRELOAD = __name__

_CONFIG = ("distributed.scheduler.preload", "distributed.client.preload")
#: the workers' own memory management, off while planning: its thresholds compare the
#: managed bytes (a fake's virtual size) with the memory limit, so workers would spill
#: fakes to disk and the scheduler refuse tasks whose inputs exceed a worker's limit
#: (the fat-finger check in scheduler.py ``_add_to_processing``, under ``terminate``); the
#: plan compares each worker's predicted peak with its limit instead
_MEMORY = {f"distributed.worker.memory.{k}": False for k in ("target", "spill", "pause",
                                                             "terminate")}


# --- registration: preloads and the planning session ---------------------------------------

class _Session:
    """Recorders and summaries of the clusters a planned program used."""

    def __init__(self) -> None:
        self.uids: set = set(summary.recorders())  # recorders that existed before: not this program's
        self.remote: dict = {}

    def summaries(self, top: int = 10) -> list[dict]:
        out = {uid: r.summary(top) for uid, r in list(summary.recorders().items())
               if uid not in self.uids}
        for uid, s in self.remote.items():
            out.setdefault(uid, s)
        return [s for s in out.values() if s["tasks"]["count"] or s["workers"]]


_SESSION: _Session | None = None


async def dask_setup(obj: Any) -> None:
    """The preload hook (distributed/preloading.py): a scheduler gets a recorder; a client
    registers the recorder and the worker plugin on its cluster (idempotent by name)."""
    from distributed import Client, Scheduler
    from .cluster_plugins import ClusterRecorder, FakeTasks
    if isinstance(obj, Scheduler):
        obj.add_plugin(ClusterRecorder(obj), idempotent=True, name=RECORDER)
    elif isinstance(obj, Client):
        await obj._register_scheduler_plugin(plugin=ClusterRecorder(), name=RECORDER,
                                             idempotent=True)
        await obj._register_worker_plugin(plugin=FakeTasks(), name=PLUGIN, idempotent=True)
        setattr(obj, "_faketensor_plugins", True)  # dask_teardown takes them off the cluster again


async def dask_teardown(obj: Any) -> None:
    """A client closing: fetch the summary of a recorder living in another process, and take
    the plugins this client registered off its cluster (a cluster the program connected to
    by address runs real tasks again afterwards)."""
    from distributed import Client
    if not isinstance(obj, Client) or not getattr(obj, "_faketensor_plugins", False):
        return
    session = _SESSION
    with contextlib.suppress(Exception):
        s = await obj._run_on_scheduler(_remote_summary)
        if session is not None and s is not None and s["uid"] not in summary.recorders():
            session.remote[s["uid"]] = s["summary"]
    with contextlib.suppress(Exception):
        await obj.scheduler.unregister_worker_plugin(name=PLUGIN)
        await obj.scheduler.unregister_scheduler_plugin(name=RECORDER)
    setattr(obj, "_faketensor_plugins", False)


def _remote_summary(dask_scheduler: Any = None) -> dict | None:
    rec = dask_scheduler.plugins.get(RECORDER) if dask_scheduler is not None else None
    return None if rec is None else {"uid": rec.uid, "summary": rec.summary()}


@contextlib.contextmanager
def planning(clients: tuple = ()) -> Iterator[_Session]:
    """While a program is planned: schedulers and clients started in this process (and
    worker processes they spawn) load this module as a preload; ``clients`` that already
    exist get the plugins now. The session's ``summaries()`` are what the program's
    clusters did."""
    global _SESSION
    saved_env = {_env(k): os.environ.get(_env(k)) for k in (*_CONFIG, *_MEMORY)}
    for k in _CONFIG:
        os.environ[_env(k)] = repr([_PRELOAD])
    for k, v in _MEMORY.items():
        os.environ[_env(k)] = repr(v)
    cfg = None
    if "dask.config" in sys.modules:  # already read its environment: set the config too
        import dask.config
        cfg = dask.config.set({**{k: _with_preload(dask.config.get(k, [])) for k in _CONFIG},
                               **_MEMORY})
        cfg.__enter__()
    prev, _SESSION = _SESSION, _Session()
    session = _SESSION
    if clients:
        from .cluster_plugins import ClusterRecorder, FakeTasks
        for c in clients:
            c.register_plugin(ClusterRecorder(), name=RECORDER)
            c.register_plugin(FakeTasks(), name=PLUGIN)
    try:
        yield session
    finally:
        for c in clients:
            with contextlib.suppress(Exception):
                s = c.run_on_scheduler(_remote_summary)
                if s is not None:
                    session.remote[s["uid"]] = s["summary"]
                c.unregister_worker_plugin(PLUGIN)
                c.unregister_scheduler_plugin(RECORDER)
        _SESSION = prev
        if cfg is not None:
            cfg.__exit__(None, None, None)
        for name, old in saved_env.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def _env(key: str) -> str:
    """The environment variable dask reads for a config key (dask/config.py)."""
    return "DASK_" + key.upper().replace(".", "__").replace("-", "_")


def _with_preload(current: Any) -> list:
    cur = list(current) if isinstance(current, (list, tuple)) else ([current] if current else [])
    return cur if _PRELOAD in cur else cur + [_PRELOAD]


__all__ = ["planning", "summarize", "workers_over", "report_lines", "PLUGIN", "RECORDER", "dask_setup", "dask_teardown"]
