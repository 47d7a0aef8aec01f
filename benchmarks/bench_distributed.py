"""Planning a dask.distributed computation on fakes vs dask running the same graph for real.

A blocked matmul plus a reduction, ``(x @ y).sum(axis=0)`` on float64 arrays of ``k x k``
chunks, at two sizes with the same graph:

- planned: ``x`` and ``y`` together 1 PB (chunks of about 1e15 / (2 k^2) bytes each), the
  tasks run on fakes on a LocalCluster with the planner's plugins (meta_utils/planner/cluster.py:
  each task in its own FakeMode, the scheduler plugin recording every task and worker);
- real: the same graph with 1x1 chunks, computed by dask on the same kind of LocalCluster
  with no plugin: dask's own overhead per task (the arithmetic is nothing).

Prints, per ``k``, the tasks, each side's wall time and time per task, and their ratio
(target: planning within 2x of dask's own). Both use a fresh LocalCluster of 2 workers with
one thread each, in-process (processes=False); the cluster's start is not counted. Not a
test: only ratios within one run count on a shared machine.

    python benchmarks/bench_distributed.py [--k 10 20 30] [--repeat 1] [--timeout SECONDS]

With ``--timeout`` each side of each size runs in a fresh process, killed after that many
seconds (the ladder stops there), and the line adds both processes' peak RSS and the load.
"""
from __future__ import annotations

import argparse
import math
import os
import time

import faketensor as ft  # before dask: graphs refer to NumPy's functions as patched
import dask.array as da
from distributed import Client, LocalCluster

from faketensor.meta_utils.planner import cluster

PB = 10 ** 15
CPU = [0.0]  # the last compute's CPU seconds, all of the process's threads


def graph(k: int, n: int):
    """(x @ y).sum(axis=0) with x, y of n x n float64 in k x k chunks."""
    c = -(-n // k)
    x = da.ones((n, n), chunks=c)
    y = da.ones((n, n), chunks=c)
    return (x @ y).sum(axis=0)


def _cluster() -> LocalCluster:
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                        dashboard_address=":0", memory_limit=0)


def real(k: int) -> tuple[float, int]:
    """dask computing the graph on 1x1 chunks: (seconds, tasks)."""
    with _cluster() as cl, Client(cl) as client:
        g = graph(k, k)
        tasks = len(g.__dask_graph__())
        t0, c0 = time.perf_counter(), time.process_time()
        client.compute(g).result()
        CPU[0] = time.process_time() - c0
        return time.perf_counter() - t0, tasks


def planned(k: int) -> tuple[float, int, dict]:
    """The planner's run of the 1 PB graph: (seconds, tasks, the cluster summary)."""
    n = int(math.isqrt(PB // 16))  # two n x n float64 arrays: 1 PB
    with cluster.planning() as session:
        with _cluster() as cl, Client(cl) as client:
            g = graph(k, n)
            tasks = len(g.__dask_graph__())
            t0, c0 = time.perf_counter(), time.process_time()
            out = client.compute(g).result()
            wall = time.perf_counter() - t0
            CPU[0] = time.process_time() - c0
            assert type(out) is ft.FakeArray, type(out)
    (summary,) = session.summaries()
    return wall, tasks, summary


def _one(side: str, k: int) -> None:
    """One side at one size, in this process: prints a JSON line (``--one``)."""
    import json
    import resource
    if side == "plan":
        wall, tasks, summ = planned(k)
        peak = max(w["peak_bytes"] for w in summ["workers"].values())
    else:
        wall, tasks = real(k)
        peak = None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"side": side, "k": k, "wall": wall, "tasks": tasks, "peak": peak,
                      "rss": rss, "cpu": CPU[0]}), flush=True)


def _side(side: str, k: int, timeout: float | None) -> dict | None:
    """``_one`` in a fresh process (its memory and state its own), killed after ``timeout``
    seconds: None when it did not finish."""
    import json
    import subprocess
    import sys
    try:
        r = subprocess.run([sys.executable, __file__, "--one", side, str(k)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode or not lines:
        print(f"  {side} k={k} failed: {r.stderr[-500:]}", flush=True)
        return None
    return json.loads(lines[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, nargs="+", default=[10, 20, 30])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per side and size, each run in a fresh process; a side "
                         "that does not finish in time ends the ladder")
    ap.add_argument("--one", nargs=2, metavar=("SIDE", "K"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        _one(args.one[0], int(args.one[1]))
        return
    print(f"{'k':>4} {'chunks':>9} {'tasks':>9} {'plan s':>8} {'dask s':>8} "
          f"{'plan us/task':>13} {'dask us/task':>13} {'ratio':>6}  worker peak (planned)"
          + ("   plan RSS  dask RSS  load  CPU us/task plan dask ratio" if args.timeout
             else ""), flush=True)
    for k in args.k:
        if args.timeout:
            p = _side("plan", k, args.timeout)
            r = _side("dask", k, args.timeout) if p else None
            if p is None or r is None:
                print(f"{k:>4} {'plan' if p is None else 'dask'} side did not finish within "
                      f"{args.timeout:.0f} s; stopping", flush=True)
                return
            wall_p, tasks_p, peak, wall_r, tasks_r = (p["wall"], p["tasks"], p["peak"],
                                                      r["wall"], r["tasks"])
            extra = (f"  {p['rss'] / 2**30:7.2f}G {r['rss'] / 2**30:7.2f}G  "
                     f"{os.getloadavg()[0]:4.1f}  {1e6 * p['cpu'] / tasks_p:9.0f} "
                     f"{1e6 * r['cpu'] / tasks_r:5.0f} {p['cpu'] / r['cpu']:5.2f}")
        else:
            pr = min(planned(k)[0] for _ in range(args.repeat)) if args.repeat > 1 else None
            wall_p, tasks_p, summ = planned(k)
            wall_p = min(wall_p, pr) if pr is not None else wall_p
            wall_r = min(real(k)[0] for _ in range(args.repeat))
            tasks_r = len(graph(k, k).__dask_graph__())
            peak = max(w["peak_bytes"] for w in summ["workers"].values())
            extra = ""
        assert tasks_r == tasks_p
        ratio = wall_p / wall_r
        print(f"{k:>4} {2 * k * k:>9,} {tasks_p:>9,} {wall_p:>8.2f} {wall_r:>8.2f} "
              f"{1e6 * wall_p / tasks_p:>13.0f} {1e6 * wall_r / tasks_r:>13.0f} {ratio:>6.2f}  "
              f"{peak / 2**40:.1f} TiB {'ok' if ratio <= 2 else 'MISSED'}" + extra, flush=True)


if __name__ == "__main__":
    main()
