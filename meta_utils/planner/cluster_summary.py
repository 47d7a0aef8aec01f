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
    groups = getattr(rec, "groups", {})
    samples: dict = {}
    for seq, w, b in rec.samples:
        samples.setdefault(w, []).append((seq, b))
    workers = {}
    for w in sorted(set(rec.workers) | set(by_worker)):
        info = rec.workers.get(w, {})
        rows = by_worker.get(w, [])
        over = _overlaps(rows) if (info.get("nthreads") or 1) > 1 else {}
        timeline = []
        points = []  # (seq, total, running tasks' bytes, results held by prefix or None)
        best, at, upper = 0, None, 0
        for key, r in rows:
            peak = r[2] if r[2] is not None else r[1]
            spike = r[7] - r[1] + peak + over.get(key, 0)
            timeline.append((r[8], spike))
            timeline.append((r[8], r[7]))
            held = groups.get((r[8], w))
            points.append((r[8], spike, spike - (r[7] - r[1]), _without(held, key, r[1])))
            points.append((r[8], r[7], 0, held))
            if spike > best:
                best, at = spike, key
            if spike + r[9] > upper:
                upper = spike + r[9]
        timeline += samples.get(w, [])
        points += [(seq, b, 0, groups.get((seq, w))) for seq, b in samples.get(w, [])]
        timeline.sort(key=lambda t: t[0])
        points.sort(key=lambda t: t[0])
        workers[w] = {"name": info.get("name"), "nthreads": info.get("nthreads"),
                      "memory_limit": info.get("memory_limit"), "peak_bytes": best,
                      "peak_upper_bytes": max(upper, best),
                      "peak_task": _key(at) if at is not None else None,
                      "tasks": len(rows), "output_bytes": sum(r[1] for _, r in rows),
                      "timeline": [list(t) for t in timeline],
                      "peak_held": _peak_held(rec, at, dict(rows).get(at), over.get(at, 0)),
                      "group_timeline": _group_timeline(points)}
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


#: task prefixes drawn per worker in the stacked timeline (the rest are "other")
TIMELINE_GROUPS = 8


def _prefix(key: Any) -> str:
    from dask.utils import key_split
    return key_split(key)


def _without(held: dict | None, key: Any, out: int) -> dict | None:
    """``held`` less the output of ``key`` (counted in its running task's peak)."""
    if held is None or key is None:
        return held
    g = _prefix(key)
    rest = dict(held)
    if g in rest:
        b, n = rest[g]
        rest[g] = [b - out, n - 1]
        if rest[g][1] <= 0:
            del rest[g]
    return rest


def _peak_held(rec: Any, key: Any, row: Any, over: int) -> dict | None:
    """What the worker holds at its peak (the end of task ``key``): ``{"running": [{"key",
    "bytes"}], "held_bytes", "held": [{"group", "bytes", "keys"}] or None}``, largest
    first; the running
    task's peak (its output and transients) and, with several threads, the peaks of the
    tasks running beside it (``key`` null); ``held_bytes`` the results in its memory, and
    ``held`` those by task prefix, None where they were not recorded (with several threads,
    a task whose own figures did not raise the worker's running peak)."""
    if key is None or row is None:
        return None
    peak = row[2] if row[2] is not None else row[1]
    running = [{"key": _key(key), "bytes": peak}]
    if over:
        running.append({"key": None, "bytes": over})
    held = _without(getattr(rec, "held_at", {}).get(key), key, row[1])
    if held is not None and sum(b for b, _ in held.values()) != row[7] - row[1]:
        held = None  # the scheduler's count disagrees with its keys: say nothing
    return {"running": running, "held_bytes": row[7] - row[1],
            "held": None if held is None else [
                {"group": g, "bytes": b, "keys": n}
                for g, (b, n) in sorted(held.items(), key=lambda kv: (-kv[1][0], kv[0]))
                if n > 0]}


def _group_timeline(points: list) -> dict:
    """The worker's timeline split by task prefix: ``{"groups": [names], "seq": [...],
    "bytes": [[...] per group], "running": [...], "other": [...]}``. ``points`` are (seq,
    total, running, held): per point ``running`` is what the tasks running then hold beyond
    the results in memory, ``held`` those results by prefix (None: not grouped); "other"
    is the results of the prefixes not drawn, or all of them where they were not grouped.
    The columns sum to the ``timeline``'s bytes."""
    best: dict = {}
    for _, total, running, held in points:
        if held is not None and sum(b for b, _ in held.values()) == total - running:
            for g, (b, _) in held.items():
                best[g] = max(best.get(g, 0), b)
    names = sorted(best, key=lambda g: (-best[g], g))[:TIMELINE_GROUPS]
    rows: list[list[int]] = [[] for _ in names]
    other, run, seqs = [], [], []
    for seq, total, running, held in points:
        if held is None or sum(b for b, _ in held.values()) != total - running:
            held = {}
        vals = [held.get(g, (0, 0))[0] for g in names]
        seqs.append(seq)
        for i, v in enumerate(vals):
            rows[i].append(v)
        run.append(running)
        other.append(total - running - sum(vals))
    return {"groups": names, "seq": seqs, "bytes": rows, "running": run, "other": other}
