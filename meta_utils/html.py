"""The HTML form of a plan report: one self-contained page that opens offline.

``render_html(report)`` takes the JSON form of a plan (``faketensor run --json``, ``Plan.to_json()``;
schema in docs/reference/json-report.md) and returns a page with the status, live memory per device over the program
(peak marked and labelled with its source line), the allocation sites holding the most memory at
the peak, the FLOPs per source line and the findings (upcasts, hidden copies). The plot is drawn by matplotlib as inline SVG (the
``report`` extra): no script, no fetched resource, text kept as text. Every string taken from the
report is escaped, so a file or function name cannot inject markup.
"""
from __future__ import annotations

import html
import io
import os
from typing import Any, Iterable, Sequence

from .._stack import paused
from .report import human

#: points per device drawn at most; longer timelines keep each bucket's min and max
MAX_POINTS = 4000

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .4em 0; }
th, td { border: 1px solid #ccc; padding: .2em .6em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.status { padding: .4em .8em; border-radius: 4px; display: inline-block; }
.completed { background: #e3f4e3; } .stopped { background: #fbe3e3; }
code { font-size: 95%; } svg { max-width: 100%; height: auto; }
"""


def render_html(report: dict) -> str:
    """The page for ``report`` (the JSON form of a plan) as one HTML string.

    Raises ImportError naming the ``report`` extra when matplotlib is not installed. Works
    inside a mode too: nothing in it is intercepted (the page is drawn with real NumPy)."""
    with paused():
        _matplotlib()
        return _render(report)


def _render(report: dict) -> str:
    title = "faketensor plan"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title><style>{_CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        _status_section(report),
        '<h2 id="memory">Live memory per device</h2>',
        _timeline_svg(report),
        _devices_table(report.get("devices") or {}),
        '<h2 id="top-sites">Allocation sites holding the most memory at the peak</h2>',
        _table(["file", "line", "bytes", "allocations"],
               [(_loc_file(s), _int(s.get("line")), _bytes(s.get("bytes")), _int(s.get("count")))
                for s in report.get("top_sites") or []], numeric=(1, 2, 3)),
        '<h2 id="flops">FLOPs per source line</h2>',
        _flops_table(report),
    ]
    if report.get("cluster"):
        parts += _cluster_section(report["cluster"])
    findings = report.get("findings") or []
    parts += ['<h2 id="findings">Findings: upcasts and hidden copies</h2>',
              _table(["kind", "file", "line", "function", "bytes", "count", "message"],
                     [(_text(f.get("kind")), _loc_file(f), _int(f.get("line")),
                       _text(f.get("function")), _bytes(f.get("bytes")), _int(f.get("count")),
                       _text(f.get("message"))) for f in findings], numeric=(2, 4, 5))
              if findings else '<p id="no-findings">None.</p>']
    if report.get("memory_unmodelled"):
        parts += ['<h2 id="memory-unmodelled">Calls whose memory is not modelled (the peak '
                  'may be too low)</h2>',
                  _table(["function", "calls", "reason"],
                         [(_text(u.get("function")), _int(u.get("calls")), _text(u.get("reason")))
                          for u in report["memory_unmodelled"]], numeric=(1,))]
    if report.get("placeholders"):
        parts += ['<h2 id="placeholders">Placeholder values used</h2>',
                  _table(["file", "line", "function", "message"],
                         [(_loc_file(p), _int(p.get("line")), _text(p.get("function")),
                           _text(p.get("message"))) for p in report["placeholders"]],
                         numeric=(1,))]
    if report.get("sinks"):
        parts += ['<h2 id="sinks">Sinks: output skipped (formatting, logging, plotting)</h2>',
                  _table(["file", "line", "function", "kind", "call", "count", "message"],
                         [(_loc_file(s), _int(s.get("line")), _text(s.get("function")),
                           _text(s.get("kind")), _text(s.get("call")), _int(s.get("count")),
                           _text(s.get("message"))) for s in report["sinks"]],
                         numeric=(1, 5))]
    if report.get("io"):
        parts += ['<h2 id="io">Files written</h2>',
                  _table(["file", "line", "call", "path", "bytes", "exact", "note"],
                         [(_loc_file(e), _int(e.get("line")), _text(e.get("op")),
                           _text(e.get("path")),
                           _bytes(e["bytes"]) if e.get("bytes") is not None else "depends on values",
                           "yes" if e.get("exact") else "no", _text(e.get("note") or ""))
                          for e in report["io"]], numeric=(1, 4))]
    parts.append("</body></html>")
    return "\n".join(parts)


def save_html(report: dict, path: str | os.PathLike) -> None:
    """Write ``render_html(report)`` to ``path`` (UTF-8)."""
    page = render_html(report)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)


def downsample(x: Sequence[float], y: Sequence[float], max_points: int = MAX_POINTS
               ) -> tuple[list, list]:
    """At most about ``max_points`` of the points (x, y), in order: the first, the last and the
    smallest and largest y of each bucket of consecutive points, so the maximum (the peak) and the
    minimum are kept exactly and the drawn envelope is the real one."""
    import numpy as np
    xa, ya = np.asarray(x), np.asarray(y)
    n = len(ya)
    if n <= max_points:
        return xa.tolist(), ya.tolist()
    k = -(-n // (max_points // 2))  # points per bucket
    m = -(-n // k)
    padded = np.concatenate([ya, np.full(m * k - n, ya[-1], ya.dtype)]).reshape(m, k)
    base = np.arange(m) * k
    keep = np.concatenate([[0, n - 1], base + padded.argmax(1), base + padded.argmin(1)])
    keep = np.unique(np.minimum(keep, n - 1))
    return xa[keep].tolist(), ya[keep].tolist()


def _series(timeline: Sequence[Sequence]) -> dict[str, tuple[Any, Any]]:
    """{device: (op indices, live bytes)} from the report's ``[op, device, live]`` rows, as
    arrays (timelines can have millions of rows), devices in order of first appearance."""
    import numpy as np
    if not timeline:
        return {}
    devs = [row[1] for row in timeline]
    ops, lives = np.asarray([row[0] for row in timeline]), np.asarray([row[2] for row in timeline])
    names = np.asarray(devs, dtype=str)
    out = {}
    for dev in dict.fromkeys(devs):
        mask = names == str(dev)
        out[str(dev)] = ops[mask], lives[mask]
    return out


def _matplotlib():
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("the HTML report draws with matplotlib: "
                          "pip install 'faketensor[report]'") from e
    return matplotlib


# --- pieces of the page ---------------------------------------------------------------------

def _printable(value: Any) -> str:
    """``str(value)`` with characters that are not printable (control, format, lone surrogates)
    written as Python escapes: nothing invisible or unencodable reaches the page."""
    text = "" if value is None else str(value)
    return text if text.isprintable() else "".join(
        c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _text(value: Any) -> str:
    """A string from the report, safe in HTML text and attributes."""
    return html.escape(_printable(value), quote=True)


def _int(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else _text(value)


def _bytes(value: Any) -> str:
    if not isinstance(value, int):
        return _text(value)
    return f"{human(value)} ({value:,} B)" if value >= 1024 else f"{value} B"


def _loc_file(rec: dict) -> str:
    return f"<code>{_text(rec.get('file'))}</code>"


def _where(rec: dict | None) -> str:
    """``file:line (function)`` of a location record, as plain text (unescaped)."""
    if not rec:
        return "unknown"
    out = f"{rec.get('file', '?')}:{rec.get('line', '?')}"
    return f"{out} ({rec['function']})" if rec.get("function") else out


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = ()
           ) -> str:
    """A table of already escaped cells; ``numeric`` columns are right-aligned."""
    rows = list(rows)
    if not rows:
        return "<p>None.</p>"
    out = ["<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    for row in rows:
        out.append("<tr>" + "".join(
            f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _status_section(report: dict) -> str:
    status = report.get("status", "unknown")
    cls = "completed" if status == "completed" else "stopped"
    lines = [f'<p id="status" class="status {cls}">status: <b>{_text(status)}</b>, '
             f"exit code {_int(report.get('exit_code'))}</p>"]
    stop = report.get("stopped_at")
    if stop:
        lines.append(f'<p id="stopped-at">stopped at <code>{_text(_where(stop))}</code>: '
                     f"{_text(stop.get('message'))}</p>")
    wall = report.get("wall_seconds", report.get("wall_s"))
    wall_s = f"{wall:.3f} s" if isinstance(wall, (int, float)) else "unknown"
    lines.append(f"<p>{_int(report.get('ops'))} ops, {_int(report.get('flops'))} FLOPs, "
                 f"planned in {_text(wall_s)}</p>")
    return "\n".join(lines)


def _devices_table(devices: dict) -> str:
    rows = []
    for dev, d in devices.items():
        at = d.get("peak_at") or {}
        stack = at.get("stack") or []
        where = f"<code>{_text(_where(at))}</code>"
        if stack:
            frames = "<br>".join(
                f"<code>{_text(_where(f) if isinstance(f, dict) else f)}</code>" for f in stack)
            where += f"<details><summary>call stack</summary>{frames}</details>"
        rows.append((_text(dev), _bytes(d.get("peak_bytes")), where,
                     _bytes(d.get("live_end_bytes")), _bytes(d.get("allocated_bytes"))))
    return _table(["device", "peak", "peak reached at", "live at the end", "allocated in all"],
                  rows, numeric=(1, 3, 4))


def _flops_table(report: dict) -> str:
    by_line = sorted(report.get("flops_by_line") or [], key=lambda r: -(r.get("flops") or 0))
    total = report.get("flops") or sum(r.get("flops") or 0 for r in by_line)
    rows = [(_loc_file(r), _int(r.get("line")), _int(r.get("flops")),
             f"{100 * r['flops'] / total:.1f}%" if total and isinstance(r.get("flops"), int)
             else "") for r in by_line]
    return _table(["file", "line", "FLOPs", "share"], rows, numeric=(1, 2, 3))


def _timeline_svg(report: dict, xlabel: str = "op", element: str = "timeline") -> str:
    """Live bytes against op index, one panel per device, peak marked and labelled; inline SVG.
    A device record's ``peak_label`` (optional) replaces the peak's source line."""
    series = _series(report.get("timeline") or [])
    if not series:
        return '<p id="no-timeline">No timeline in this report.</p>'
    matplotlib = _matplotlib()
    from matplotlib.figure import Figure

    devices = report.get("devices") or {}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "faketensor",
                                "font.size": 10}):
        fig = Figure(figsize=(10, 2.6 * len(series) + 0.4), layout="constrained")
        axes = fig.subplots(len(series), 1, squeeze=False, sharex=True)[:, 0]
        for ax, (dev, (xs, ys)) in zip(axes, series.items()):
            name = _printable(dev)
            i = int(ys.argmax())
            top = int(ys[i])
            info = devices.get(dev) or {}
            peak = info.get("peak_bytes")
            peak = peak if isinstance(peak, int) else top
            x_peak = info.get("peak_op")
            x_peak = x_peak if isinstance(x_peak, int) else int(xs[i])
            unit, scale = _unit(max(peak, top))
            px, py = downsample(xs, ys)
            ax.plot(px, [v / scale for v in py], drawstyle="steps-post", color="#1f77b4",
                    linewidth=1.2, gid=f"timeline-{name}")
            ax.plot([x_peak], [peak / scale], "v", color="#d62728", markersize=8,
                    gid=f"peak-{name}")
            f = _frac(x_peak, xs)
            where = info.get("peak_label") or _where(info.get("peak_at"))
            ax.annotate(f"peak {human(peak)} at {_printable(where)}",
                        (x_peak, peak / scale), xytext=(0, 6), textcoords="offset points",
                        ha="left" if f <= 0.2 else "right" if f >= 0.8 else "center",
                        va="bottom", color="#d62728", parse_math=False, gid=f"peak-label-{name}")
            ax.set_ylim(0, max(peak, top) / scale * 1.18 or 1)
            ax.set_title(name, loc="left", parse_math=False)
            ax.set_ylabel(f"live memory ({unit})")
            ax.grid(alpha=0.3)
        axes[-1].set_xlabel(xlabel)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    return f'<div id="{element}">{svg[svg.index("<svg"):]}</div>'


#: workers drawn at most (those with the highest peaks); the table lists them all
MAX_WORKERS = 8


def _cluster_section(cluster: dict) -> list[str]:
    """Per-worker managed memory over the scheduler's transitions (with running tasks'
    peaks), the table of workers and the tasks with the largest peaks (meta_utils/cluster.py)."""
    workers = cluster.get("workers") or {}
    ranked = sorted(workers.items(), key=lambda kv: -(kv[1].get("peak_bytes") or 0))
    rows, devices = [], {}
    for w, d in ranked[:MAX_WORKERS]:
        name = f"worker {d.get('name')} ({w})"
        rows += [[t[0], name, t[1]] for t in d.get("timeline") or []]
        devices[name] = {"peak_bytes": d.get("peak_bytes"),
                         "peak_label": f"task {d.get('peak_task')}"}
    rows.sort(key=lambda r: r[0])
    tasks = (cluster.get("tasks") or {}).get("top") or []
    return [
        '<h2 id="cluster">Cluster: memory per worker</h2>',
        _timeline_svg({"timeline": rows, "devices": devices}, xlabel="scheduler transition",
                      element="cluster-timeline"),
        _table(["worker", "peak", "peak if received arrays arrive unaligned",
                "task at the peak", "memory limit", "tasks", "outputs"],
               [(_text(f"{d.get('name')} ({w})"), _bytes(d.get("peak_bytes")),
                 _bytes(d.get("peak_upper_bytes", d.get("peak_bytes"))),
                 f"<code>{_text(d.get('peak_task'))}</code>", _bytes(d.get("memory_limit")),
                 _int(d.get("tasks")), _bytes(d.get("output_bytes"))) for w, d in ranked],
               numeric=(1, 2, 4, 5, 6)),
        '<h2 id="cluster-tasks">Tasks with the largest peaks</h2>',
        _table(["task", "worker", "peak", "unaligned: up to +", "output", "inputs"],
               [(f"<code>{_text(t.get('key'))}</code>", _text(t.get("worker")),
                 _bytes(t.get("peak_bytes")), _bytes(t.get("unaligned_extra_bytes", 0)),
                 _bytes(t.get("output_bytes")),
                 _bytes(t.get("input_bytes"))) for t in tasks], numeric=(2, 3, 4, 5)),
        f"<p>Transferred between workers: {_bytes((cluster.get('transfers') or {}).get('bytes'))}"
        "</p>",
    ]


def _unit(n: int) -> tuple[str, int]:
    """The binary unit the axis of a series reaching ``n`` bytes is drawn in."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return unit, scale
    return "B", 1


def _frac(x: float, xs: Any) -> float:
    lo, hi = int(xs[0]), int(xs[-1])
    return 0.5 if hi == lo else (x - lo) / (hi - lo)
