"""The text report of a plan (what ``faketensor run`` prints on stderr), written from the
plan's JSON form, and memory limits (``--memory-limit``) with their fit verdicts."""
from __future__ import annotations

import os
import re
from typing import Any

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9,
          "gb": 10**9, "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30,
          "tib": 2**40}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*$")


def parse_size(text: str) -> int:
    """Bytes from ``"24GiB"``, ``"80GB"``, ``"512M"``, ``"1000"``: K/M/G/T and KB/MB/GB/TB
    are powers of 1000, KiB/MiB/GiB/TiB powers of 1024 (case ignored)."""
    m = _SIZE.match(text)
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _UNITS:
        raise ValueError(f"not a size: {text!r} (use e.g. 24GiB, 80GB, 512M or bytes)")
    return int(float(m.group(1)) * _UNITS[unit])


def parse_limits(text: str, default_device: str = "cpu") -> dict[str, int]:
    """``"24GiB"`` (for ``default_device``) or ``"cpu=24GiB,cuda:0=80GB"`` -> device -> bytes;
    ``worker=16GiB``: each dask.distributed worker's limit (instead of the cluster's own)."""
    from ..._storage import parse_device
    out: dict[str, int] = {}
    for part in text.split(","):
        if "=" in part:
            dev, size = part.split("=", 1)
            dev = dev.strip()
            out["worker" if dev == "worker" else parse_device(dev)] = parse_size(size)
        else:
            out[default_device] = parse_size(part)
    return out


def available_memory() -> int | None:
    """This machine's available memory (Linux ``MemAvailable``, else physical), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def human(n: float) -> str:
    """Bytes in binary units: ``"1.50 GiB"``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{int(n)} B" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return str(n)


def human_flops(n: int) -> str:
    for unit, scale in (("PFLOP", 1e15), ("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6),
                        ("kFLOP", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} FLOP"


def _path(file: Any) -> str:
    if not file:
        return "?"
    try:
        rel = os.path.relpath(file)
    except ValueError:
        return file
    return file if rel.startswith(".." + os.sep + "..") else rel


def _loc(d: dict) -> str:
    if not d.get("file"):
        return "(outside any op)"
    fn = d.get("function")
    return f"{_path(d['file'])}:{d['line']}" + (f" in {fn}" if fn and fn != "<module>" else "")


def _size_groups(sizes: list) -> list[list]:
    """Consecutive sizes made alike (same line, op, bounds and runs, none held at the
    peak) as one group: a loop's masks are one line of the report, not one per pass."""
    groups: list[list] = []
    for k in sizes:
        key = (k["file"], k["line"], k["op"], k["lo"], k["hi"], k["upper"], k["lower"],
               k.get("fixed"), any(k["bytes_at_peak"].values()))
        if groups and not key[-1] and groups[-1][0]["_key"] == key:
            groups[-1].append(k)
        else:
            groups.append([{**k, "_key": key}])
    return groups


def _bounded_lines(b: dict | None) -> list[str]:
    """The range the data-dependent lengths make (docs/guide/bounded-sizes.md)."""
    if not b:
        return []
    out = ["data-dependent sizes: the figures above assume each at its upper bound (or "
           "where fixed); the range, each end exact for its assumption:"]
    for dev, r in b["peak"].items():
        lo = r["lower"]
        low = f"{human(lo)} ({lo:,} B)" if lo is not None else "not known"
        out.append(f"    {dev}: peak {low} .. {human(r['upper'])} ({r['upper']:,} B)")
    run = b.get("lower_run")
    if run is not None and not run["exact"]:
        stop = run.get("stopped_at") or {}
        out.append(f"    the run at the lower bounds ended {run['status']} at {_loc(stop)}: "
                   f"{stop.get('message', '')}")
    for group in _size_groups(b["sizes"]):
        k = group[0]
        fixed = (f", fixed at {k['fixed']:g} of its range" if k.get("fixed") is not None
                 else "")
        low = "" if k["lower"] is None else f", lower run {k['lower']:,}"
        held = ", ".join(f"{dev} {human(n)} at the peak"
                         for dev, n in k["bytes_at_peak"].items() if n)
        name = k["name"]
        if len(group) > 1:  # one line for the sizes a loop makes at one line
            name = f"each of {k['name']} .. {group[-1]['name']} ({len(group)} sizes)"
        out.append(f"    {name}: {k['lo']:,} <= {'k' if len(group) > 1 else name} <= "
                   f"{k['hi']:,} ({k['op']} at {_path(k['file'])}:{k['line']}; upper run "
                   f"{k['upper']:,}{low}{fixed}){'; ' + held if held else ''}")
    for dev, d in b.get("dominant", {}).items():
        out.append(f"    {dev}: {d['name']} dominates the upper bound ({human(d['bytes'])} "
                   "held at the peak by arrays of its length)")
    for f in b.get("fixed", []):
        if not f["used"]:
            out.append(f"    --assume-size {f['spec']}={f['fraction']:g}: no size was made "
                       "at that line")
    return out


def format_report(data: dict, *, top: int = 10, limits: dict | None = None,
                  name: str = "") -> str:
    """The plan's report as text lines: per device the peak, where (with the call stack),
    live at the end, allocated in total, the fit verdict and the top sites; FLOPs in all
    and per line; the findings; ops, planning time, and why it stopped."""
    lines = [f"faketensor plan{' of ' + name if name else ''}: {data['status']}, "
             f"{data['ops']:,} ops planned in {data['wall_seconds']:.2f} s"]
    for dev, d in data["devices"].items():
        at = d["peak_at"]
        op = f" ({at['op']}, op {at['op_index']})" if at.get("op") else ""
        lines.append(f"{dev}: peak {human(d['peak_bytes'])} ({d['peak_bytes']:,} B) at "
                     f"{_loc(at)}{op}")
        for fr in at["stack"][:-1][::-1]:
            lines.append(f"    called from {_loc(fr)}")
        lines.append(f"    live at end {human(d['live_end_bytes'])}, allocated in total "
                     f"{human(d['allocated_bytes'])}")
        lines.append("    " + _verdict(dev, d["peak_bytes"], limits))
        sites = [s for s in data["top_sites"] if s["device"] == dev][:top]
        if sites:
            lines.append("    held at the peak, by allocation site:")
            for s in sites:
                lines.append(f"    {human(s['bytes']):>12} {s['count']:>6}x  "
                             f"{_path(s['file'])}:{s['line']}")
    lines += _bounded_lines(data.get("bounded_sizes"))
    own = data.get("program_fake_modes") or 0
    if own:
        lines.append(f"the program entered a FakeMode of its own {own}x: what ran there is on "
                     "fakes for real too, so it is neither counted nor listed here")
    unmodelled = data.get("memory_unmodelled") or []
    if unmodelled:
        lines.append("memory not modelled for these calls (the peak may be too low):")
        for u in unmodelled:
            lines.append(f"    {u['function']} {u['calls']}x: {u['reason']}")
    lines.append(f"FLOPs: {human_flops(data['flops'])} ({data['flops']:,})")
    if data.get("flops_uncounted"):
        lines.append("    not counted (no rule for these calls): "
                     + ", ".join(data["flops_uncounted"]))
    for row in data["flops_by_line"][:top]:
        lines.append(f"    {human_flops(row['flops']):>12}  {_path(row['file'])}:{row['line']}")
    findings = data.get("findings") or []
    if findings:
        lines.append(f"findings ({len(findings)}):")
        for f in findings[:top]:
            lines.append(f"    {f['kind']:<13} {human(f['bytes']):>12} {f['count']:>6}x  "
                         f"{_loc(f)}: {f['message']}")
        if len(findings) > top:
            lines.append(f"    ... {len(findings) - top} more (--top, or the JSON report)")
    else:
        lines.append("findings: none")
    if data.get("placeholders"):
        lines.append(f"placeholder values used ({len(data['placeholders'])}):")
        for ph in data["placeholders"][:top]:
            lines.append(f"    {_loc(ph)}: {ph.get('message', '')}")
    if data.get("sinks"):
        sinks = data["sinks"]
        lines.append(f"sinks: output skipped ({len(sinks)} lines, "
                     f"{sum(s['count'] for s in sinks)} uses; the plan went on):")
        for s in sinks[:top]:
            lines.append(f"    {_loc(s)}: {s['kind']} {s['call']} {s['count']}x: {s['message']}")
        if len(sinks) > top:
            lines.append(f"    ... {len(sinks) - top} more (--top, or the JSON report)")
    if data.get("io"):
        known = sum(e["bytes"] or 0 for e in data["io"])
        lines.append(f"files written ({len(data['io'])}, {human(known)} where the size is known):")
        for e in data["io"][:top]:
            size = "size depends on values" if e["bytes"] is None else (
                human(e["bytes"]) + ("" if e["exact"] else " (not exact: see the JSON note)"))
            done = " (real arrays: written)" if e.get("written") else ""
            lines.append(f"    {_loc(e)}: {e['op']} {e['path']}: {size}{done}")
    if data.get("cluster"):
        lines += cluster_lines(data["cluster"], (limits or {}).get("worker"), top)
    if data["stopped_at"]:
        s = data["stopped_at"]
        lines.append(f"stopped ({data['status']}) at {_loc(s)}: {s['message']}")
    return "\n".join(lines)


def _verdict(dev: str, peak: int, limits: dict | None) -> str:
    if limits and dev in limits:
        lim = limits[dev]
        word = "fits within" if peak <= lim else "EXCEEDS"
        return f"{word} the limit {human(lim)} ({100 * peak / lim if lim else float('inf'):.0f}%)"
    if dev == "cpu":
        avail = available_memory()
        if avail:
            word = "fits in" if peak <= avail else "EXCEEDS"
            return f"{word} this machine's available memory {human(avail)}"
    return "no limit given"


def cluster_lines(summary: dict, limit: int | None = None, top: int = 10) -> list[str]:
    """The cluster part of the text report: per worker its predicted peak, the task at it
    and the verdict against its memory limit; the tasks with the largest peaks; transfers."""
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
