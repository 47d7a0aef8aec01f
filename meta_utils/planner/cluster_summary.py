"""A planned dask.distributed cluster's figures: the plugins' names, the recorders of this
process and ``summarize``, the "cluster" section of a plan (cluster.py starts the
plugins, cluster_plugins.py records; both read this)."""
from __future__ import annotations

from typing import Any

PLUGIN = "faketensor-tasks"
RECORDER = "faketensor-cluster"
#: recorders started in this process, by uid (the planner reads them directly)
_LOCAL: dict[str, Any] = {}


def register_recorder(uid: str, recorder: Any) -> None:
    """Keep a scheduler plugin of this process (cluster_plugins.py) for the summary."""
    _LOCAL[uid] = recorder


def recorders() -> dict[str, Any]:
    """The recorders started in this process, by uid."""
    return _LOCAL


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
