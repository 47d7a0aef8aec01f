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

PLUGIN = "faketensor-tasks"
RECORDER = "faketensor-cluster"
_PRELOAD = __name__
#: recorders started in this process, by uid (the planner reads them directly)
_LOCAL: dict[str, Any] = {}
_CONFIG = ("distributed.scheduler.preload", "distributed.client.preload")
#: the workers' own memory management, off while planning: its thresholds compare the
#: managed bytes (a fake's virtual size) with the memory limit, so workers would spill
#: fakes to disk and the scheduler refuse tasks whose inputs exceed a worker's limit
#: (the fat-finger check in scheduler.py ``_add_to_processing``, under ``terminate``); the
#: plan compares each worker's predicted peak with its limit instead
_MEMORY = {f"distributed.worker.memory.{k}": False for k in ("target", "spill", "pause",
                                                             "terminate")}


def _key(k: Any) -> str:
    return k if isinstance(k, str) else str(k)


def summarize(rec: Any, top: int = 10) -> dict:
    """Per worker: peak, the task at it and the timeline; per task (the ``top`` by peak):
    inputs, output and peak; transfers between workers; the largest task."""
    by_worker: dict = {}
    for key, row in rec.tasks.items():
        by_worker.setdefault(row[0], []).append((key, row))
    samples: dict = {}
    for seq, w, b in rec.samples:
        samples.setdefault(w, []).append((seq, b))
    workers = {}
    for w in sorted(set(rec.workers) | set(by_worker)):
        info = rec.workers.get(w, {})
        rows = by_worker.get(w, [])
        over = _overlaps(rows) if (info.get("nthreads") or 1) > 1 else {}
        timeline = []
        best, at, upper = 0, None, 0
        for key, r in rows:
            peak = r[2] if r[2] is not None else r[1]
            spike = r[7] - r[1] + peak + over.get(key, 0)
            timeline.append((r[8], spike))
            timeline.append((r[8], r[7]))
            if spike > best:
                best, at = spike, key
            if spike + r[9] > upper:
                upper = spike + r[9]
        timeline += samples.get(w, [])
        timeline.sort(key=lambda t: t[0])
        workers[w] = {"name": info.get("name"), "nthreads": info.get("nthreads"),
                      "memory_limit": info.get("memory_limit"), "peak_bytes": best,
                      "peak_upper_bytes": max(upper, best),
                      "peak_task": _key(at) if at is not None else None,
                      "tasks": len(rows), "output_bytes": sum(r[1] for _, r in rows),
                      "timeline": [list(t) for t in timeline]}
    items = list(rec.tasks.items())
    measured = sum(1 for _, r in items if r[2] is not None)

    def task(key: Any, r: list) -> dict:
        return {"key": _key(key), "worker": r[0], "inputs": [_key(k) for k in r[4]],
                "input_bytes": r[3], "output_bytes": r[1], "peak_bytes": r[2],
                "unaligned_extra_bytes": r[9]}

    ranked = sorted(items, key=lambda kv: -(kv[1][2] if kv[1][2] is not None else kv[1][1]))
    largest = max(items, key=lambda kv: kv[1][1], default=None)
    moves = [{"from": a, "to": b, "bytes": n, "count": c}
             for (a, b), (n, c) in sorted(rec.transfers.items(), key=lambda kv: -kv[1][0])]
    return {
        "scheduler": getattr(rec.scheduler, "address", None),
        "graphs": rec.graphs,
        "workers": workers,
        "tasks": {"count": len(items), "measured": measured,
                  "lower_bounds": sum(1 for _, r in items if r[9]),
                  "top": [task(k, r) for k, r in ranked[:top]]},
        "largest_task": task(*largest) if largest else None,
        "transfers": {"bytes": sum(m["bytes"] for m in moves),
                      "count": sum(m["count"] for m in moves), "between": moves},
    }


def workers_over(summary: dict, limit: int | None = None) -> list[str]:
    """The workers whose predicted peak exceeds ``limit`` (else their own memory limit)."""
    out = []
    for w, d in summary["workers"].items():
        lim = limit or d.get("memory_limit")
        if lim and d["peak_bytes"] > lim:
            out.append(w)
    return out


def report_lines(summary: dict, limit: int | None = None, top: int = 10) -> list[str]:
    """The cluster part of the text report: per worker its predicted peak, the task at it
    and the verdict against its memory limit; the tasks with the largest peaks; transfers."""
    from .report import human
    ws = summary["workers"]
    t = summary["tasks"]
    lines = [f"cluster {summary.get('scheduler')}: {len(ws)} workers, {t['count']:,} tasks "
             f"({t['measured']:,} measured on fakes), {summary['graphs']} graphs"]
    ranked = sorted(ws.items(), key=lambda kv: -kv[1]["peak_bytes"])
    for w, d in ranked[:top]:
        lim = limit or d.get("memory_limit")
        verdict = ("no memory limit" if not lim else
                   f"{'fits within' if d['peak_bytes'] <= lim else 'EXCEEDS'} its limit "
                   f"{human(lim)} ({100 * d['peak_bytes'] / lim:.0f}%)")
        lines.append(f"  worker {d.get('name')} ({w}): peak {human(d['peak_bytes'])} "
                     f"({d['peak_bytes']:,} B), {verdict}")
        if d.get("peak_task"):
            lines.append(f"      at task {d['peak_task']}; {d['tasks']:,} tasks, outputs "
                         f"{human(d['output_bytes'])} in all")
        upper = d.get("peak_upper_bytes", 0)
        if upper > d["peak_bytes"]:
            lines.append(f"      a lower bound: up to {human(upper)} ({upper:,} B) if the "
                         "arrays its tasks receive arrive unaligned")
    if len(ranked) > top:
        lines.append(f"  ... {len(ranked) - top} more workers (--top, or the JSON report)")
    if t.get("lower_bounds"):
        lines.append(f"  {t['lower_bounds']:,} tasks' peaks are lower bounds (+N: the copies "
                     "NumPy makes of received arrays that arrive unaligned)")
    if t["top"]:
        lines.append("  tasks with the largest peaks (peak, output, inputs):")
        for r in t["top"][:top]:
            peak = "?" if r["peak_bytes"] is None else human(r["peak_bytes"])
            if r.get("unaligned_extra_bytes"):
                peak += f" +{human(r['unaligned_extra_bytes'])}"
            lines.append(f"    {peak:>12} {human(r['output_bytes']):>12} "
                         f"{human(r['input_bytes']):>12}  {r['key']} on {r['worker']}")
    big = summary.get("largest_task")
    if big:
        lines.append(f"  largest task output: {human(big['output_bytes'])} ({big['key']})")
    tr = summary["transfers"]
    lines.append(f"  transferred between workers: {human(tr['bytes'])} in {tr['count']:,} "
                 "transfers")
    return lines


def _overlaps(rows: list) -> dict:
    """key -> sum of the peaks of the worker's other tasks running when it finished: those
    started before its end and ending at or after it (sorted starts and ends, prefix sums)."""
    import bisect
    from itertools import accumulate
    spans = [(r[5], r[6], r[2] if r[2] is not None else r[1], k) for k, r in rows
             if r[5] is not None and r[6] is not None]
    starts = sorted((s, p) for s, _, p, _ in spans)
    ends = sorted((e, p) for _, e, p, _ in spans)
    s_keys, s_sums = [s for s, _ in starts], [0, *accumulate(p for _, p in starts)]
    e_keys, e_sums = [e for e, _ in ends], [0, *accumulate(p for _, p in ends)]
    out = {}
    for s, e, p, k in spans:
        begun = s_sums[bisect.bisect_left(s_keys, e)]   # started before e
        ended = e_sums[bisect.bisect_left(e_keys, e)]   # ended before e
        out[k] = begun - ended - (p if s < e else 0)    # not itself
    return out


# --- registration: preloads and the planning session ---------------------------------------

class _Session:
    """Recorders and summaries of the clusters a planned program used."""

    def __init__(self) -> None:
        self.uids: set = set(_LOCAL)  # recorders that existed before: not this program's
        self.remote: dict = {}

    def summaries(self, top: int = 10) -> list[dict]:
        out = {uid: r.summary(top) for uid, r in list(_LOCAL.items()) if uid not in self.uids}
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
        if session is not None and s is not None and s["uid"] not in _LOCAL:
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
