"""What a plan holds at each device's peak by call stack, and live memory by allocation site
over the program: the data of the HTML report's flame graph and stacked timeline.

Both are worked out once, when the plan is made, from what the recording already keeps (the
memory event log, each op's interned site); nothing is added to the per-op path.
"""
from __future__ import annotations

from typing import Any, Sequence

from ...modes.memory import pool_bytes

#: sites drawn in the stacked timeline per device (the rest are "other")
TIMELINE_SITES = 8
#: points kept per device in ``site_timeline``
SITE_TIMELINE_POINTS = 2000


def _site_of(trace: Sequence, op: int) -> int:
    return trace[op].site if 0 <= op < len(trace) else 0


def peak_stacks(held: Sequence[tuple[int, int]], trace: Sequence, sites: Any) -> list[dict]:
    """``[{"frames", "complete", "bytes", "count"}]``: the buffers alive at a device's peak
    (``DeviceReport.held``: (op, bytes) each) summed per user call stack, largest first.
    ``frames`` run outermost call first; ``complete`` is False where only the innermost user
    frame was recorded (the op did not raise the running peak), so the callers are unknown."""
    by_site: dict[int, list] = {}
    for op, nbytes in held:
        row = by_site.setdefault(_site_of(trace, op), [0, 0])
        row[0] += nbytes
        row[1] += 1
    merged: dict[tuple, list] = {}
    for site, (b, c) in by_site.items():
        frames = tuple((f["file"], f["line"], f["function"]) for f in sites.frames(site)[::-1])
        row = merged.setdefault((frames, sites.complete(site)), [0, 0])
        row[0] += b
        row[1] += c
    out = [{"frames": [{"file": f, "line": ln, "function": fn} for f, ln, fn in frames],
            "complete": complete, "bytes": b, "count": c}
           for (frames, complete), (b, c) in merged.items()]
    out.sort(key=lambda r: (-r["bytes"], [(f["file"] or "", f["line"] or 0) for f in r["frames"]]))
    return out


def site_timeline(log: Sequence, trace: Sequence, sites: Any, dev: str,
                  top_sites: Sequence[dict], stacks: Sequence[dict],
                  max_points: int = SITE_TIMELINE_POINTS) -> dict:
    """Live bytes of one device over the ops, split by allocation site (innermost user line):
    ``{"sites": [{"file", "line", "function", "stack"}], "ops": [op, ...], "bytes": [[live
    bytes of site i at each op] per site], "other": [the rest at each op]}``. The sites are the
    device's ``top_sites`` (at most TIMELINE_SITES); each column sums to the timeline's live
    bytes at that op. At most about ``max_points`` ops are kept: per bucket of consecutive
    ops, the one with the most and the one with the least live, so the peak is kept."""
    keys = [(s["file"], s["line"]) for s in top_sites if s.get("device", dev) == dev]
    keys = keys[:TIMELINE_SITES]
    col = {k: i for i, k in enumerate(keys)}
    n = len(keys)
    pool = dev != "cpu"
    line_of: dict[int, int] = {}  # site index -> column (n: other)
    held: dict[int, tuple[int, int]] = {}  # storage id -> (column, bytes)
    live = [0] * (n + 1)
    total = 0
    ops: list[int] = []     # an op that changed the device's live bytes
    totals: list[int] = []  # live bytes after it
    cols: list[tuple] = []  # live bytes per column after it
    for op, sid, d_, d in zip(log[0::4], log[1::4], log[2::4], log[3::4]):
        if d_ != dev or sid == 0:
            continue
        if d > 0:
            site = _site_of(trace, op)
            c = line_of.get(site)
            if c is None:
                c = line_of[site] = col.get(sites.line(site)[:2], n)
            b = pool_bytes(d) if pool else d
            held[sid] = (c, b)
        else:
            c, b = held.pop(sid, (n, pool_bytes(-d) if pool else -d))
            b = -b
        live[c] += b
        total += b
        if ops and ops[-1] == op:
            totals[-1], cols[-1] = total, tuple(live)
        else:
            ops.append(op)
            totals.append(total)
            cols.append(tuple(live))
    keep = _thin(totals, max_points)
    by_line: dict[tuple, list] = {}
    for s in stacks:  # the largest stack ending at each line is the one shown for it
        if s["frames"]:
            inner = s["frames"][-1]
            by_line.setdefault((inner["file"], inner["line"]), s["frames"])
    names = {}
    for site, c in line_of.items():
        if c < n and c not in names:
            names[c] = sites.line(site)[2]
    return {"sites": [{"file": f, "line": ln, "function": names.get(i),
                       "stack": by_line.get((f, ln), [])} for i, (f, ln) in enumerate(keys)],
            "ops": [ops[k] for k in keep],
            "bytes": [[cols[k][i] for k in keep] for i in range(n)],
            "other": [cols[k][n] for k in keep]}


def _thin(totals: list[int], max_points: int) -> list[int]:
    """Indices of the first and last points and, per bucket of consecutive points, of the
    highest and the lowest total (so the peak and the troughs are kept)."""
    m = len(totals)
    if m <= max_points:
        return list(range(m))
    k = -(-m // (max_points // 2))
    keep = {0, m - 1}
    for lo in range(0, m, k):
        bucket = totals[lo:lo + k]
        keep.add(lo + bucket.index(max(bucket)))
        keep.add(lo + bucket.index(min(bucket)))
    return sorted(keep)
